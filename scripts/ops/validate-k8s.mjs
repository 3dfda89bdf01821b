#!/usr/bin/env node
// Validates rendered Kubernetes manifests (multi-document YAML on stdin or files) offline
// against the API types: kubernetes-models (core APIs), @kubernetes-models/gateway-api and
// @kubernetes-models/prometheus-operator (JSON schemas of the CRDs). Unknown kinds, unknown
// fields and wrong types fail. CloudNativePG objects (no schema offline) get hand-written checks
// of kind, required fields and known spec fields. Also checks the Parlor rules every Deployment
// must follow and the internal addresses (headless Services).
// The packages are ES modules installed (scripts/ops/package.json) under NODE_MODULES.
// usage: node validate-k8s.mjs NODE_MODULES NAME FILE.yaml
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, name, file] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(modules, p)).href);
const YAML = (await load("yaml/dist/index.js")).default;
const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));

async function modelFor(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  let p;
  if (group === "gateway.networking.k8s.io") p = `@kubernetes-models/gateway-api/${group}/${version}/${kind}`;
  else if (group === "monitoring.coreos.com") p = `@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`;
  else p = `kubernetes-models/${group === "" ? version : `${group}/${version}`}/${kind}`;
  for (const ext of [".mjs", ".js"]) {
    if (fs.existsSync(path.join(modules, p + ext))) return (await load(p + ext))[kind];
  }
  return undefined;
}

// kubernetes-models checks types and required fields but lets unknown fields through; the
// attribute maps of @kubernetes/client-node's generated models (the same OpenAPI spec) catch
// misspelt or misplaced fields in core API objects. Returns "path: unknown field" strings.
const clientModels = path.join(modules, "@kubernetes/client-node/dist/gen/models");
const attrCache = new Map();
async function attributes(type) {
  if (!attrCache.has(type)) {
    const file = path.join(clientModels, type + ".js");
    attrCache.set(type, fs.existsSync(file) ? (await load(path.relative(modules, file)))[type].attributeTypeMap : null);
  }
  return attrCache.get(type);
}
async function unknownFields(value, type, where, out) {
  if (value === null || value === undefined) return out;
  let m;
  if ((m = /^Array<(.+)>$/.exec(type))) {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) await unknownFields(value[i], m[1], `${where}[${i}]`, out);
    return out;
  }
  if ((m = /^\{ \[key: string\]: (.+); \}$/.exec(type))) {
    for (const [k, v] of Object.entries(value)) await unknownFields(v, m[1], `${where}.${k}`, out);
    return out;
  }
  const attrs = await attributes(type);
  if (!attrs || typeof value !== "object") return out;
  const known = new Map(attrs.map((a) => [a.baseName, a.type]));
  for (const [k, v] of Object.entries(value)) {
    if (!known.has(k)) out.push(`${where}.${k}: unknown field`);
    else await unknownFields(v, known.get(k), `${where}.${k}`, out);
  }
  return out;
}
function clientType(apiVersion, kind) {
  const version = apiVersion.split("/").pop();
  return version.charAt(0).toUpperCase() + version.slice(1) + kind;
}

// CloudNativePG objects (postgresql.cnpg.io/v1): its CRDs are not available offline, so these
// are checked by hand against the operator's API reference: the kind is known, the fields the
// API requires are there with the right types, and no top-level spec field is unknown.
const CNPG_SPEC_FIELDS = {
  Cluster: ["instances", "imageName", "imageCatalogRef", "primaryUpdateStrategy", "primaryUpdateMethod",
    "enablePDB", "postgresql", "bootstrap", "storage", "walStorage", "resources", "affinity", "backup",
    "monitoring", "managed", "superuserSecret", "enableSuperuserAccess", "certificates", "description",
    "inheritedMetadata", "env", "envFrom", "minSyncReplicas", "maxSyncReplicas", "replicationSlots",
    "startDelay", "stopDelay", "smartShutdownTimeout", "switchoverDelay", "failoverDelay", "logLevel",
    "nodeMaintenanceWindow", "priorityClassName", "schedulerName", "serviceAccountTemplate",
    "topologySpreadConstraints", "externalClusters", "replica", "projectedVolumeTemplate",
    "ephemeralVolumeSource", "ephemeralVolumesSizeLimit", "tablespaces", "seccompProfile", "plugins",
    "probes", "livenessProbeTimeout", "postgresUID", "postgresGID", "imagePullPolicy", "imagePullSecrets"],
  Pooler: ["cluster", "type", "instances", "template", "pgbouncer", "deploymentStrategy", "monitoring",
    "serviceTemplate"],
  ScheduledBackup: ["schedule", "cluster", "suspend", "immediate", "backupOwnerReference", "target",
    "method", "online", "onlineConfiguration", "pluginConfiguration"],
};
function cnpg(obj) {
  const errs = [], spec = obj.spec;
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const need = (cond, what) => { if (!cond) errs.push(what); };
  if (obj.apiVersion !== "postgresql.cnpg.io/v1") return [`unknown apiVersion ${obj.apiVersion}`];
  if (!CNPG_SPEC_FIELDS[obj.kind]) return [`unknown kind ${obj.kind}`];
  need(obj.metadata && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(obj.metadata.name || ""), "metadata.name missing or not a DNS label");
  if (!isObj(spec)) return errs.concat(["spec missing"]);
  for (const k of Object.keys(spec)) if (!CNPG_SPEC_FIELDS[obj.kind].includes(k)) errs.push(`spec.${k}: unknown field`);
  if (obj.kind === "Cluster") {
    need(Number.isInteger(spec.instances) && spec.instances >= 1, "spec.instances: required, integer >= 1");
    need(isObj(spec.storage) && (spec.storage.size || spec.storage.pvcTemplate), "spec.storage.size: required");
    const sync = spec.postgresql && spec.postgresql.synchronous;
    if (sync !== undefined) {
      need(["any", "first"].includes(sync.method), "spec.postgresql.synchronous.method: any|first");
      need(Number.isInteger(sync.number) && sync.number >= 1 && sync.number < spec.instances,
        "spec.postgresql.synchronous.number: 1 .. instances-1");
      if (sync.dataDurability !== undefined)
        need(["required", "preferred"].includes(sync.dataDurability), "synchronous.dataDurability: required|preferred");
    }
    const params = (spec.postgresql && spec.postgresql.parameters) || {};
    for (const [k, v] of Object.entries(params)) need(typeof v === "string", `spec.postgresql.parameters.${k}: must be a string`);
    const store = spec.backup && spec.backup.barmanObjectStore;
    if (spec.backup) {
      need(isObj(store) && typeof store.destinationPath === "string", "spec.backup.barmanObjectStore.destinationPath: required");
      need(/^[0-9]+[dwm]$/.test(spec.backup.retentionPolicy || ""), "spec.backup.retentionPolicy: e.g. 30d");
    }
  } else if (obj.kind === "Pooler") {
    need(isObj(spec.cluster) && spec.cluster.name, "spec.cluster.name: required");
    need(isObj(spec.pgbouncer), "spec.pgbouncer: required");
    need(spec.type === undefined || ["rw", "ro", "r"].includes(spec.type), "spec.type: rw|ro|r");
    if (isObj(spec.pgbouncer)) {
      need(["session", "transaction"].includes(spec.pgbouncer.poolMode || "session"), "spec.pgbouncer.poolMode: session|transaction");
      for (const [k, v] of Object.entries(spec.pgbouncer.parameters || {})) need(typeof v === "string", `spec.pgbouncer.parameters.${k}: must be a string`);
    }
  } else if (obj.kind === "ScheduledBackup") {
    need(typeof spec.schedule === "string" && spec.schedule.trim().split(/\s+/).length === 6,
      "spec.schedule: required, six-field cron (seconds first)");
    need(isObj(spec.cluster) && spec.cluster.name, "spec.cluster.name: required");
  }
  return errs;
}

// Parlor's own requirements for a server Deployment.
function policy(obj, hpaTargets) {
  const errs = [];
  if (obj.kind !== "Deployment") return errs;
  const spec = obj.spec, pod = spec.template.spec;
  // An HPA owns the scale: a `replicas` in the manifest would reset it at every apply.
  if (hpaTargets.has(obj.metadata.name) && spec.replicas !== undefined) errs.push("replicas set although an HPA scales it");
  if (!hpaTargets.has(obj.metadata.name)) errs.push("no HorizontalPodAutoscaler");
  if (!pod.terminationGracePeriodSeconds) errs.push("no terminationGracePeriodSeconds");
  if (!(pod.securityContext && pod.securityContext.runAsNonRoot)) errs.push("not runAsNonRoot");
  for (const c of pod.containers) {
    const where = `container ${c.name}: `;
    if (!(c.readinessProbe && c.readinessProbe.grpc)) errs.push(where + "readiness is not grpc");
    if (!(c.livenessProbe && c.livenessProbe.grpc)) errs.push(where + "liveness is not grpc");
    if (!(c.lifecycle && c.lifecycle.preStop)) errs.push(where + "no preStop");
    if (!(c.securityContext && c.securityContext.readOnlyRootFilesystem))
      errs.push(where + "root filesystem writable");
    if (!(c.resources && c.resources.requests && c.resources.limits)) errs.push(where + "no resources");
    const refs = new Set((c.env || []).filter((e) => e.valueFrom && e.valueFrom.secretKeyRef)
      .map((e) => e.valueFrom.secretKeyRef.name));
    if (!refs.has("parlor-db-app") || !refs.has("parlor-keys")) errs.push(where + "no Secret refs");
  }
  for (const c of [...pod.containers, ...(pod.initContainers || [])]) {
    const where = `container ${c.name}: `;
    // The image chosen in one place (k8s/base/kustomization.yaml images:), by version or digest.
    if (!/^[^:@]+(:[0-9][^:@]*|@sha256:[0-9a-f]{64})$/.test(c.image || "") )
      errs.push(where + `image ${c.image} is not pinned to a version tag or digest`);
    // Settings from the generated ConfigMap (hashed name: a change rolls the pods).
    for (const e of c.envFrom || [])
      if (e.configMapRef && !/^parlor-config-[a-z0-9]{10}$/.test(e.configMapRef.name))
        errs.push(where + `envFrom ${e.configMapRef.name} is not the generated (hashed) parlor-config`);
  }
  if (!(pod.initContainers || []).some((c) => (c.args || []).includes("migrate")))
    errs.push("no migrate init container (migrations per release)");
  return errs;
}

let failures = 0, strict = 0;
const counts = {};
const objects = docs.filter((d) => !d.errors.length).map((d) => d.toJSON()).filter(Boolean);
const hpaTargets = new Set(objects.filter((o) => o.kind === "HorizontalPodAutoscaler")
  .map((o) => o.spec.scaleTargetRef.name));
// Internal callers reach each service through a headless Service (per-call balancing).
for (const o of objects.filter((x) => x.kind === "ConfigMap" && /^parlor-config-/.test(x.metadata.name))) {
  for (const [k, v] of Object.entries(o.data || {})) {
    const m = /^PARLOR_([A-Z]+)_ADDRESS$/.exec(k);
    if (!m) continue;
    const svc = /^dns:\/\/\/([a-z0-9-]+):8080$/.exec(v);
    const target = svc && objects.find((x) => x.kind === "Service" && x.metadata.name === svc[1]);
    if (!target || target.spec.clusterIP !== "None") {
      console.log(`${name}: ConfigMap ${o.metadata.name}: ${k}=${v} is not dns:///<headless Service>:8080`);
      failures++;
    }
  }
}
for (const doc of docs) {
  if (doc.errors.length) { console.log(`${name}: YAML error: ${doc.errors[0].message}`); failures++; continue; }
  const obj = doc.toJSON();
  if (!obj) continue;
  const id = `${obj.kind}/${obj.metadata && obj.metadata.name}`;
  if (obj.apiVersion && obj.apiVersion.startsWith("postgresql.cnpg.io/")) {
    const errs = cnpg(obj);
    if (errs.length) { console.log(`${name}: ${id}: ${errs.join("; ")}`); failures++; continue; }
    counts[obj.kind] = (counts[obj.kind] || 0) + 1;
    continue;
  }
  let Model;
  try { Model = await modelFor(obj.apiVersion, obj.kind); } catch (e) { console.log(`${name}: ${id}: ${e.message}`); }
  if (!Model) { console.log(`${name}: ${id}: no API type for ${obj.apiVersion} ${obj.kind}`); failures++; continue; }
  try {
    new Model(obj).validate();
  } catch (e) {
    console.log(`${name}: ${id} (${obj.apiVersion}): INVALID\n  ${String(e.message).split("\n").join("\n  ")}`);
    failures++;
    continue;
  }
  const type = clientType(obj.apiVersion, obj.kind);
  if (await attributes(type)) {
    const unknown = await unknownFields(obj, type, obj.kind, []);
    if (unknown.length) { console.log(`${name}: ${id}: ${unknown.join("; ")}`); failures++; continue; }
    strict++;
  }
  const errs = policy(obj, hpaTargets);
  if (errs.length) { console.log(`${name}: ${id}: ${errs.join("; ")}`); failures++; continue; }
  counts[obj.kind] = (counts[obj.kind] || 0) + 1;
}
const total = Object.values(counts).reduce((a, b) => a + b, 0);
console.log(`${name}: ${total} objects valid (` +
  Object.entries(counts).sort().map(([k, n]) => `${n} ${k}`).join(", ") + `), ${failures} invalid; ${strict} also checked for unknown fields`);
process.exit(failures ? 1 : 0);
