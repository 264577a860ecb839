// Records typebox goldens from the REAL typebox 1.x and pi-ai shipped with the
// reference pi. Run with the reference's Node 22:
//   REF=~/.cache/pi-reference/0.84.1/pi/node_modules \
//   ~/.cache/pi-reference/0.84.1/node/node_modules/node/bin/node agent/tests/runtime/goldens/make_typebox.mjs
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { typeCases } from "../typebox_cases.mjs";
import { checkCases } from "../typebox_check_cases.mjs";
import { valueCases } from "../typebox_value_cases.mjs";
import { toolArgCases } from "../typebox_tool_args_cases.mjs";
import { scriptCases } from "../typebox_script_cases.mjs";
import { runCase } from "../typebox_encode.mjs";

const ref = process.env.REF ?? join(homedir(), ".cache/pi-reference/0.84.1/pi/node_modules");
const load = (path) => import(pathToFileURL(join(ref, path)).href);
const typebox = await load("typebox/build/index.mjs");
const value = await load("typebox/build/value/index.mjs");
const compile = await load("typebox/build/compile/index.mjs");
const { validateToolArguments } = await load("@earendil-works/pi-ai/dist/utils/validation.js");

const names = {
  typebox: Object.keys(typebox), Type: Object.keys(typebox.Type),
  value: Object.keys(value), Value: Object.keys(value.Value), compile: Object.keys(compile),
};
const cases = [
  ...typeCases(typebox), ...checkCases(typebox, value, compile), ...valueCases(typebox, value, compile), ...scriptCases(typebox, value),
  ...toolArgCases(typebox, validateToolArguments),
];
const results = {};
for (const testCase of cases) {
  if (testCase.name in results) throw new Error(`duplicate case ${testCase.name}`);
  results[testCase.name] = runCase(testCase);
}
const out = join(dirname(fileURLToPath(import.meta.url)), "typebox.json");
writeFileSync(out, `${JSON.stringify({ names, results }, null, 1)}\n`);
console.log(`wrote ${Object.keys(results).length} cases to ${out}`);
