// Checks a release's schema against the type declarations of that release of the reference.
//
//   node check.mjs TOOLS SCHEMA PACKAGE WORKDIR
//
// TOOLS is the folder conformance/schema-ts/install.sh installs into (its node_modules hold
// json-schema-to-typescript and typescript), SCHEMA the release's schema document, PACKAGE the
// release's @earendil-works/pi-coding-agent folder, WORKDIR an empty folder. Writes
// WORKDIR/generated.ts (json-schema-to-typescript's types of the prepared schema, see
// prepare.mjs) and WORKDIR/check.ts (one check a line, each labelled), type-checks them with tsc
// (--noEmit, strict) and prints, as JSON on stdout, every check that fails: its label and tsc's
// message. A check fails when the generated type and the reference's declared type differ:
//
//   KIND TAG variants: ref-only | gen-only      tag values only one side has
//   KIND TAG keys: ref-only | gen-only          fields only one side of a variant has
//   KIND TAG FIELD optional                     a field optional on one side only
//   KIND TAG FIELD gen->ref | ref->gen          a field's type not assignable that way
//
// KIND is command, response, event, ui-request or ui-response.

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { prepare } from "./prepare.mjs";

const [tools, schemaPath, pkg, work] = process.argv.slice(2);
const require = createRequire(path.join(tools, "node_modules") + "/");
const { compile } = require("json-schema-to-typescript");
const ts = require("typescript");

const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
const prepared = prepare(schema);
// The entry points as the root's fields, so that the generator writes each (and what they use).
const entries = ["Request", "Response", "Event", "ExtensionUiRequest", "ExtensionUiResponse"];
const root = {
  ...prepared,
  type: "object",
  properties: Object.fromEntries(entries.map((name) => [name, { $ref: `#/$defs/${name}` }])),
  required: entries,
  additionalProperties: false,
};
// additionalProperties: the schema leaves objects open (the reference ignores unknown fields);
// the reference's declarations have no index signatures, so the generated types have none.
const generated = await compile(root, "PiRpcEntryPoints", {
  bannerComment: "",
  additionalProperties: false,
  strictIndexSignatures: true,
  format: false,
});
fs.writeFileSync(path.join(work, "generated.ts"), generated);

// Each union's variants, by tag value, with their fields: from the schema itself.
const defs = schema.$defs;
const resolve = (node) => (node && node.$ref ? defs[node.$ref.split("/").pop()] : node);
const fieldsOf = (node, seen = new Set()) => {
  node = resolve(node);
  if (!node || seen.has(node)) return [];
  seen.add(node);
  const own = Object.keys(node.properties || {});
  const nested = (node.allOf || []).concat(node.$ref ? [node] : []).flatMap((n) => fieldsOf(n, seen));
  return [...new Set([...own, ...nested])];
};
const variantsOf = (name, key) =>
  (resolve({ $ref: `#/$defs/${name}` }).allOf || [])
    .filter((part) => part.if && part.if.properties && part.if.properties[key])
    .map((part) => [part.if.properties[key].const, fieldsOf(part.then)]);

const base = (name) => Object.keys(defs[name].properties || {});
const unions = [
  // kind, generated type, reference type, tag, variants [value, fields]
  ["command", "Request", "Ref.RpcCommand", "type", variantsOf("Request", "type"), base("Request")],
  ["response", "Response", "Ref.RpcResponse", "command", variantsOf("SuccessResponse", "command"),
    base("Response")],
  ["event", "Event", "RefEvent", "type", variantsOf("Event", "type"), []],
  ["ui-request", "ExtensionUiRequest", "Ref.RpcExtensionUIRequest", "method",
    variantsOf("ExtensionUiRequest", "method"), base("ExtensionUiRequest")],
];

const jsonEvent = fs.existsSync(path.join(pkg, "dist/modes/json-event.d.ts"));
const lines = [
  `import type * as Gen from "./generated.js";`,
  `import type * as Ref from ${JSON.stringify(path.join(pkg, "dist/modes/rpc/rpc-types.js"))};`,
  jsonEvent
    ? `import type { JsonAgentSessionEvent as RefEvent } from ${JSON.stringify(path.join(pkg, "dist/modes/json-event.js"))};`
    : `import type { AgentSessionEvent as RefEvent } from ${JSON.stringify(path.join(pkg, "dist/core/agent-session.js"))};`,
  `declare function take<T>(value: T): void;`,
  `declare function none<T extends never>(): void;`,
  `declare function same<A extends B, B extends boolean>(): void;`,
  `type Field<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : undefined) : never;`,
  `type Optional<T, K extends PropertyKey> = T extends unknown ? ({} extends Pick<T, K & keyof T> ? true : false) : never;`,
  `type Keys<T> = T extends unknown ? keyof T : never;`,
  `type Tagged<U, K extends PropertyKey, V> = Extract<U, { [P in K]: V }>;`,
  `type SuccessOf<U> = Extract<U, { success: true }>;`,
];
const labels = new Map(); // line number (0-based) -> label
const check = (label, code) => {
  labels.set(lines.length, label);
  lines.push(code);
};

const variantChecks = (kind, gen, ref, tag, value, fields) => {
  const v = JSON.stringify(value);
  const g = `Tagged<${gen}, "${tag}", ${v}>`;
  const r = `Tagged<${ref}, "${tag}", ${v}>`;
  const prefix = `${kind} ${value}`;
  check(`${prefix} keys: ref-only`, `none<Exclude<Keys<${r}>, Keys<${g}>>>();`);
  check(`${prefix} keys: gen-only`, `none<Exclude<Keys<${g}>, Keys<${r}>>>();`);
  for (const field of fields) {
    const f = JSON.stringify(field);
    check(`${prefix} ${field} optional`, `same<Optional<${g}, ${f}>, Optional<${r}, ${f}>>();`);
    check(`${prefix} ${field} gen->ref`, `take<Field<${r}, ${f}>>(null! as Field<${g}, ${f}>);`);
    check(`${prefix} ${field} ref->gen`, `take<Field<${g}, ${f}>>(null! as Field<${r}, ${f}>);`);
  }
};

for (const [kind, genName, ref0, tag, variants, shared] of unions) {
  const gen0 = `Gen.${genName}`;
  const [gen, ref] = kind === "response" ? [`SuccessOf<${gen0}>`, `SuccessOf<${ref0}>`] : [gen0, ref0];
  const tagType = (u) => `Extract<${u}, unknown>["${tag}"]`;
  check(`${kind} variants: ref-only`, `none<Exclude<${tagType(ref)}, ${tagType(gen)}>>();`);
  check(`${kind} variants: gen-only`, `none<Exclude<${tagType(gen)}, ${tagType(ref)}>>();`);
  for (const [value, fields] of variants) {
    variantChecks(kind, gen, ref, tag, value, [...new Set([...shared, ...fields])]);
  }
}
// The error response and the UI responses have no tag of their own: each checked as a whole
// variant, both ways, and field by field.
const errorFields = [...new Set([...base("Response"), ...fieldsOf(defs.ErrorResponse)])];
variantChecks("response", "Gen.Response", "Ref.RpcResponse", "success", false, errorFields);
// A dialog's answer is one object whose fields are all optional in the schema (as the
// reference reads them), a union in the declaration: compared as a whole, both ways.
check("ui-response gen->ref", "take<Ref.RpcExtensionUIResponse>(null! as Gen.ExtensionUiResponse);");
check("ui-response ref->gen", "take<Gen.ExtensionUiResponse>(null! as Ref.RpcExtensionUIResponse);");
fs.writeFileSync(path.join(work, "check.ts"), lines.join("\n") + "\n");

const program = ts.createProgram([path.join(work, "check.ts")], {
  noEmit: true,
  strict: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  types: [],
});
const failures = [];
for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  const file = diagnostic.file;
  if (!file || path.resolve(file.fileName) !== path.resolve(work, "check.ts")) {
    failures.push({ label: "tsc", message: `${file ? file.fileName : ""}: ${message}` });
    continue;
  }
  const line = file.getLineAndCharacterOfPosition(diagnostic.start).line;
  failures.push({ label: labels.get(line) || `check.ts line ${line + 1}`, message });
}
console.log(JSON.stringify(failures, null, 1));
