// Validates objects of the CRDs the project emits or documents against the npm
// @kubernetes-models schemas, strictly: Karpenter (NodePool, EC2NodeClass), the
// Prometheus Operator (PrometheusRule), Argo CD (Application, ApplicationSet) and Flux
// (GitRepository, Kustomization).
// Reads a JSON array of objects on stdin; prints a JSON array of
// {"kind", "name", "errors": [...]} (one per object, in order); exits 1 when any object
// is invalid or of a kind this package has no schema for, 0 otherwise.
//
// The package ships its schemas compiled to ajv validators without
// `additionalProperties: false`, so on their own they accept unknown fields, which the
// API server then drops or rejects. The compiled code reads every property its schema
// declares (`data.spec`, `data.template`, ...), present or not, and walks maps key by key.
// So the object is validated through a Proxy that records each read: a key present on
// an object that the validator walked, but never read, is a field the schema does not
// declare. Objects the validator never looked into (schema `{}` or a bare
// `type: object`) accept anything, as the schema says.
import * as argo from "@kubernetes-models/argo-cd/argoproj.io/v1alpha1";
import * as kustomize from "@kubernetes-models/flux-cd/kustomize.toolkit.fluxcd.io/v1";
import * as source from "@kubernetes-models/flux-cd/source.toolkit.fluxcd.io/v1";
import * as aws from "@kubernetes-models/karpenter/karpenter.k8s.aws/v1";
import * as sh from "@kubernetes-models/karpenter/karpenter.sh/v1";
import * as monitoring from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

// Keep in step with MODELLED_API_VERSIONS in scripts/validation.py.
const MODELS = {
  "karpenter.sh/v1": sh,
  "karpenter.k8s.aws/v1": aws,
  "monitoring.coreos.com/v1": monitoring,
  "argoproj.io/v1alpha1": argo,
  "source.toolkit.fluxcd.io/v1": source,
  "kustomize.toolkit.fluxcd.io/v1": kustomize,
};

function tracked(root) {
  const records = [];
  const proxies = new WeakMap();
  const wrap = (value, path) => {
    if (!value || typeof value !== "object") return value;
    if (proxies.has(value)) return proxies.get(value);
    const record = { path, target: value, read: new Set(), walked: false };
    records.push(record);
    const mark = (key) => {
      record.walked = true;
      if (typeof key === "string") record.read.add(key);
    };
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        mark(key);
        const child = Reflect.get(target, key, receiver);
        return typeof key === "string" && Object.hasOwn(target, key)
          ? wrap(child, `${path}/${key}`)
          : child;
      },
      has(target, key) {
        mark(key);
        return Reflect.has(target, key);
      },
      getOwnPropertyDescriptor(target, key) {
        mark(key);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
      ownKeys(target) {
        record.walked = true;
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  return { proxy: wrap(root, ""), records };
}

function unknownFields(records) {
  const found = [];
  for (const { path, target, read, walked } of records) {
    if (!walked || Array.isArray(target)) continue;
    for (const key of Object.keys(target)) {
      if (!read.has(key)) found.push(`${path || "/"} must NOT have additional properties (${key})`);
    }
  }
  return found;
}

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
  const { proxy, records } = tracked(new Model(object));
  let errors = [];
  try {
    proxy.validate();
  } catch (error) {
    const details = error?.errors?.map((e) => `${e.instancePath || "/"} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`);
    errors = details?.length ? details : [String(error?.message ?? error)];
  }
  errors.push(...unknownFields(records));
  if (errors.length) failed = true;
  return { kind: object.kind, name, errors };
});
process.stdout.write(JSON.stringify(results));
process.exitCode = failed ? 1 : 0;
