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
// Run as `node models_validate.mjs NODE_MODULES`: the packages are loaded from that
// folder (the user's or the repository's), not from beside this file, which an
// installed wheel keeps in site-packages where no node_modules is. Only the packages
// the input needs are loaded, so a missing one costs only its own objects (the caller
// checks which are installed: cdk8s_headroom/validate/models.py).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// Keep in step with MODEL_PACKAGES in cdk8s_headroom/validate/models.py.
const MODELS = {
  "karpenter.sh/v1": ["karpenter", "karpenter.sh/v1"],
  "karpenter.k8s.aws/v1": ["karpenter", "karpenter.k8s.aws/v1"],
  "monitoring.coreos.com/v1": ["prometheus-operator", "monitoring.coreos.com/v1"],
  "argoproj.io/v1alpha1": ["argo-cd", "argoproj.io/v1alpha1"],
  "source.toolkit.fluxcd.io/v1": ["flux-cd", "source.toolkit.fluxcd.io/v1"],
  "kustomize.toolkit.fluxcd.io/v1": ["flux-cd", "kustomize.toolkit.fluxcd.io/v1"],
};

const modules = process.argv[2];

// The packages declare ESM-only `exports`, which require.resolve cannot follow: the
// subpath's `import` target is read from the package's own package.json.
async function load(apiVersion) {
  const [name, subpath] = MODELS[apiVersion];
  const folder = join(modules, "@kubernetes-models", name);
  const manifest = JSON.parse(await readFile(join(folder, "package.json"), "utf8"));
  return import(pathToFileURL(join(folder, manifest.exports[`./${subpath}`].import)).href);
}

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
const loaded = {};
for (const apiVersion of new Set(objects.map((object) => object?.apiVersion))) {
  if (Object.hasOwn(MODELS, apiVersion)) loaded[apiVersion] = await load(apiVersion);
}

let failed = false;
const results = objects.map((object) => {
  const name = object?.metadata?.name ?? "<unnamed>";
  const Model = Object.hasOwn(loaded, object?.apiVersion) ? loaded[object.apiVersion][object?.kind] : undefined;
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
