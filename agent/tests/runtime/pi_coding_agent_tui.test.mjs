// pi-agent's pi-coding-agent TUI values against goldens recorded from the reference package
// (goldens/make_pi_coding_agent_tui.mjs).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import { codingAgentTuiCases } from "./pi_coding_agent_tui_cases.mjs";
import { runCase } from "./pi_tui_cases.mjs";
import { prepareCodingAgentEnvironment } from "./pi_tui_env.mjs";

prepareCodingAgentEnvironment();
const agent = await import("../../src/extensions/runtime/pi_coding_agent_tui.mjs");
const tui = await import("../../src/extensions/runtime/pi_tui.mjs");
const goldens = JSON.parse(readFileSync(new URL("./goldens/pi_coding_agent_tui.json", import.meta.url), "utf8"));

for (const [name, fn] of codingAgentTuiCases(agent, tui, Object.keys(agent).sort())) {
	test(`pi-coding-agent tui: ${name}`, async () => {
		assert.ok(name in goldens, `no golden for ${name}: run goldens/make_pi_coding_agent_tui.mjs`);
		assert.deepEqual(await runCase(fn), goldens[name]);
	});
}
