#!/usr/bin/env node
// Validates rendered Kubernetes manifests (multi-document YAML on stdin or files) offline
// against the API types: kubernetes-models (core APIs), @kubernetes-models/gateway-api and
// @kubernetes-models/prometheus-operator (JSON schemas of the CRDs). Unknown kinds, unknown
// fields and wrong types fail. Also checks the Parlor rules every Deployment must follow.
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

// Parlor's own requirements for a server Deployment (issue 12).
function policy(obj) {
  const errs = [];
  if (obj.kind !== "Deployment") return errs;
  const spec = obj.spec, pod = spec.template.spec;
  if (!(spec.replicas >= 2)) errs.push("replicas < 2");
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
    if (!refs.has("parlor-db") || !refs.has("parlor-keys")) errs.push(where + "no Secret refs");
  }
  return errs;
}

let failures = 0, strict = 0;
const counts = {};
for (const doc of docs) {
  if (doc.errors.length) { console.log(`${name}: YAML error: ${doc.errors[0].message}`); failures++; continue; }
  const obj = doc.toJSON();
  if (!obj) continue;
  const id = `${obj.kind}/${obj.metadata && obj.metadata.name}`;
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
  const errs = policy(obj);
  if (errs.length) { console.log(`${name}: ${id}: ${errs.join("; ")}`); failures++; continue; }
  counts[obj.kind] = (counts[obj.kind] || 0) + 1;
}
const total = Object.values(counts).reduce((a, b) => a + b, 0);
console.log(`${name}: ${total} objects valid (` +
  Object.entries(counts).sort().map(([k, n]) => `${n} ${k}`).join(", ") + `), ${failures} invalid; ${strict} also checked for unknown fields`);
process.exit(failures ? 1 : 0);
