// pi-agent's typebox modules against goldens recorded from the real
// typebox 1.x (goldens/make_typebox.mjs): export names, schema JSON and
// hidden markers, Check/Errors, value operations, tool argument validation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as typebox from "../../src/extensions/runtime/typebox.mjs";
import * as value from "../../src/extensions/runtime/typebox_value.mjs";
import * as compile from "../../src/extensions/runtime/typebox_compile.mjs";
import { validateToolArguments } from "../../src/extensions/runtime/typebox_tool_args.mjs";
import { typeCases } from "./typebox_cases.mjs";
import { checkCases } from "./typebox_check_cases.mjs";
import { valueCases } from "./typebox_value_cases.mjs";
import { toolArgCases } from "./typebox_tool_args_cases.mjs";
import { scriptCases } from "./typebox_script_cases.mjs";
import { runCase } from "./typebox_encode.mjs";

const golden = JSON.parse(readFileSync(new URL("./goldens/typebox.json", import.meta.url), "utf8"));

test("export names match typebox 1.x", () => {
  const ours = {
    typebox: Object.keys(typebox), Type: Object.keys(typebox.Type),
    value: Object.keys(value), Value: Object.keys(value.Value), compile: Object.keys(compile),
  };
  for (const key of Object.keys(golden.names)) assert.deepEqual(ours[key].sort(), [...golden.names[key]].sort(), key);
  assert.equal(golden.names.typebox.length, 286);
});

const cases = [
  ...typeCases(typebox), ...checkCases(typebox, value, compile), ...valueCases(typebox, value, compile), ...scriptCases(typebox, value),
  ...toolArgCases(typebox, validateToolArguments),
];

test("every golden case is exercised", () => {
  assert.deepEqual(cases.map((c) => c.name).sort(), Object.keys(golden.results).sort());
});

for (const testCase of cases) {
  test(testCase.name, () => {
    assert.ok(testCase.name in golden.results, "missing golden");
    assert.deepEqual(runCase(testCase), golden.results[testCase.name]);
  });
}
