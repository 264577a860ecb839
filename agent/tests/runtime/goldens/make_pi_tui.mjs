// Writes agent/tests/runtime/goldens/pi_tui.json: the shared pi-tui cases run against the
// reference @earendil-works/pi-tui. Run with Node 22 (the reference needs it):
//   ~/.cache/pi-reference/0.84.1/node/node_modules/node/bin/node agent/tests/runtime/goldens/make_pi_tui.mjs
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { piTuiCases, runCase } from "../pi_tui_cases.mjs";
import { prepareEnvironment } from "../pi_tui_env.mjs";

prepareEnvironment();
const ref = process.env.REF ?? join(homedir(), ".cache/pi-reference/0.84.1/pi/node_modules");
const tui = await import(pathToFileURL(join(ref, "@earendil-works/pi-tui/dist/index.js")).href);
const results = {};
for (const [name, fn] of piTuiCases(tui)) {
	if (name in results) throw new Error(`duplicate case name ${name}`);
	results[name] = await runCase(fn);
}
const target = new URL("./pi_tui.json", import.meta.url);
// One case per line: compact, and diffs show which cases changed.
const body = Object.entries(results).map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`);
writeFileSync(target, `{\n${body.join(",\n")}\n}\n`);
console.log(`wrote ${Object.keys(results).length} cases to ${target.pathname}`);
