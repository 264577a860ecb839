// The input of the type generators in generate.sh: a pi-rpc schema document rewritten by
// conformance/schema-ts/prepare.mjs (tagged unions as `anyOf`, see there), then
//
// - a field whose schema is `false` (it must be absent, as `data` of a prompt's response) left
//   out of its object: quicktype reads no `false` schema, and a type without the field says
//   the same to a client;
// - every definition a property of the root object, so that each generator writes one type a
//   definition under the definition's name (a client picks the type by the record's tag).
//
//   node prepare.mjs SCHEMA > PREPARED

import fs from "node:fs";
import { prepare } from "../schema-ts/prepare.mjs";

function dropFalse(node) {
  if (Array.isArray(node)) return node.map(dropFalse);
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === "properties" && value && typeof value === "object"
      ? Object.fromEntries(
        Object.entries(value).filter(([, s]) => s !== false).map(([n, s]) => [n, dropFalse(s)]))
      : dropFalse(value);
  }
  return out;
}

const [schemaPath] = process.argv.slice(2);
const doc = dropFalse(prepare(JSON.parse(fs.readFileSync(schemaPath, "utf8"))));
const names = Object.keys(doc.$defs);
const root = {
  ...doc,
  type: "object",
  properties: Object.fromEntries(names.map((name) => [name, { $ref: `#/$defs/${name}` }])),
  required: names,
  additionalProperties: false,
};
process.stdout.write(JSON.stringify(root, null, 2) + "\n");
