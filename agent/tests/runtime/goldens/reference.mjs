// Where the reference pi's packages are installed (for the golden makers only), and writing a
// golden file. Run the makers with Node 22, e.g.
//   ~/.cache/pi-reference/0.84.1/node/node_modules/node/bin/node agent/tests/runtime/goldens/make_pi_ai.mjs

import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const REFERENCE_VERSION = "0.84.1";

export const REF =
	process.env.PI_REFERENCE_MODULES ?? join(homedir(), ".cache", "pi-reference", REFERENCE_VERSION, "pi", "node_modules");

/** Imports a file of the reference installation, e.g. "@earendil-works/pi-ai/dist/compat.js". */
export function importReference(relativePath) {
	return import(pathToFileURL(join(REF, relativePath)).href);
}

export function writeGolden(name, data) {
	const path = new URL(`./${name}.json`, import.meta.url);
	writeFileSync(path, `${JSON.stringify({ referenceVersion: REFERENCE_VERSION, ...data }, null, "\t")}\n`);
	console.log(`wrote ${path.pathname}`);
}
