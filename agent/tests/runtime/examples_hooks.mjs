// Module resolution for examples_load.test.mjs: pi's package names resolve to pi-agent's
// runtime modules for examples copied under `ours`, and to the reference's packages for those
// under `reference`. A runtime module this tree does not have (another part's, not merged
// here) resolves to the reference's package.

import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

let config;

export function initialize(data) {
	config = data;
}

// Specifier (after the old scope is renamed) -> [runtime file, reference entry].
const PACKAGES = {
	"@earendil-works/pi-ai": ["pi_ai.mjs", "@earendil-works/pi-ai/dist/compat.js"],
	"@earendil-works/pi-ai/compat": ["pi_ai.mjs", "@earendil-works/pi-ai/dist/compat.js"],
	"@earendil-works/pi-ai/oauth": ["pi_ai_oauth.mjs", "@earendil-works/pi-ai/dist/oauth.js"],
	"@earendil-works/pi-ai/providers/all": ["pi_ai_providers.mjs", "@earendil-works/pi-ai/dist/providers/all.js"],
	"@earendil-works/pi-coding-agent": ["pi_coding_agent.mjs", "@earendil-works/pi-coding-agent/dist/index.js"],
	"@earendil-works/pi-agent-core": ["pi_agent_core.mjs", "@earendil-works/pi-agent-core/dist/index.js"],
	"@earendil-works/pi-tui": ["pi_tui.mjs", "@earendil-works/pi-tui/dist/index.js"],
	typebox: ["typebox.mjs", "typebox/build/index.mjs"],
	"typebox/compile": ["typebox_compile.mjs", "typebox/build/compile/index.mjs"],
	"typebox/value": ["typebox_value.mjs", "typebox/build/value/index.mjs"],
};

export async function resolve(specifier, context, next) {
	const name = specifier.replace(/^@mariozechner\//, "@earendil-works/").replace(/^@sinclair\/typebox/, "typebox");
	const entry = PACKAGES[name];
	const parent = context.parentURL ?? "";
	if (entry && config && (parent.startsWith(config.oursUrl) || parent.startsWith(config.referenceUrl))) {
		const runtimeFile = fileURLToPath(new URL(entry[0], config.runtimeUrl));
		const useOurs = parent.startsWith(config.oursUrl) && existsSync(runtimeFile);
		const url = useOurs ? pathToFileURL(runtimeFile).href : pathToFileURL(`${config.referenceModules}/${entry[1]}`).href;
		return { url, shortCircuit: true };
	}
	return next(specifier, context);
}
