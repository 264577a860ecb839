// Writes goldens/pi_coding_agent_tui.json: the pi-coding-agent TUI cases run against the
// reference package. Run with Node 22:
//   ~/.cache/pi-reference/0.84.1/node/node_modules/node/bin/node agent/tests/runtime/goldens/make_pi_coding_agent_tui.mjs
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { codingAgentTuiCases } from "../pi_coding_agent_tui_cases.mjs";
import { runCase } from "../pi_tui_cases.mjs";
import { prepareCodingAgentEnvironment } from "../pi_tui_env.mjs";

prepareCodingAgentEnvironment();
const ref = process.env.REF ?? join(homedir(), ".cache/pi-reference/0.84.1/pi/node_modules");
const agent = await import(pathToFileURL(join(ref, "@earendil-works/pi-coding-agent/dist/index.js")).href);
const tui = await import(pathToFileURL(join(ref, "@earendil-works/pi-tui/dist/index.js")).href);
const ownNames = Object.keys(await import("../../../src/extensions/runtime/pi_coding_agent_tui.mjs")).sort();
const results = {};
for (const [name, fn] of codingAgentTuiCases(agent, tui, ownNames)) results[name] = await runCase(fn);
const target = new URL("./pi_coding_agent_tui.json", import.meta.url);
// One case per line: compact, and diffs show which cases changed.
const body = Object.entries(results).map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`);
writeFileSync(target, `{\n${body.join(",\n")}\n}\n`);
console.log(`wrote ${Object.keys(results).length} cases to ${target.pathname}`);
process.exit(0);
