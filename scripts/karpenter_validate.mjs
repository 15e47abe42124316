// Validates Karpenter objects against the @kubernetes-models/karpenter JSON schemas.
// Reads a JSON array of objects on stdin; prints a JSON array of
// {"kind", "name", "errors": [...]} (one per object, in order); exits 1 when any object
// is invalid or of a kind this package has no schema for, 0 otherwise.
import * as sh from "@kubernetes-models/karpenter/karpenter.sh/v1";
import * as aws from "@kubernetes-models/karpenter/karpenter.k8s.aws/v1";

const MODELS = {
  "karpenter.sh/v1": sh,
  "karpenter.k8s.aws/v1": aws,
};

let input = "";
for await (const chunk of process.stdin) input += chunk;
const objects = JSON.parse(input);

let failed = false;
const results = objects.map((object) => {
  const name = object?.metadata?.name ?? "<unnamed>";
  const Model = MODELS[object?.apiVersion]?.[object?.kind];
  if (!Model || typeof Model.prototype?.validate !== "function") {
    failed = true;
    return { kind: object?.kind, name, errors: [`no schema for ${object?.apiVersion} ${object?.kind}`] };
  }
  try {
    new Model(object).validate();
    return { kind: object.kind, name, errors: [] };
  } catch (error) {
    failed = true;
    const details = error?.errors?.map((e) => `${e.instancePath || "/"} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`);
    return { kind: object.kind, name, errors: details?.length ? details : [String(error?.message ?? error)] };
  }
});
process.stdout.write(JSON.stringify(results));
process.exitCode = failed ? 1 : 0;
