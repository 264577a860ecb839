// pi-agent's pi-tui module against goldens recorded from the reference package
// (goldens/make_pi_tui.mjs): every case must give the same result.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import { piTuiCases, runCase } from "./pi_tui_cases.mjs";
import { prepareEnvironment } from "./pi_tui_env.mjs";

prepareEnvironment();
const tui = await import("../../src/extensions/runtime/pi_tui.mjs");
const goldens = JSON.parse(readFileSync(new URL("./goldens/pi_tui.json", import.meta.url), "utf8"));
const cases = piTuiCases(tui);

test("every golden case is still in the case list", () => {
	const names = new Set(cases.map(([name]) => name));
	assert.deepEqual(
		Object.keys(goldens).filter((name) => !names.has(name)),
		[],
	);
});

for (const [name, fn] of cases) {
	test(`pi-tui: ${name}`, async () => {
		assert.ok(name in goldens, `no golden for ${name}: run goldens/make_pi_tui.mjs`);
		assert.deepEqual(await runCase(fn), goldens[name]);
	});
}
