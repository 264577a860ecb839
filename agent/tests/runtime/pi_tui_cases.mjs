// Cases shared by the golden generator (run against the reference pi-tui with Node 22) and
// the test (run against pi-agent's module). `piTuiCases(tui)` takes the module and returns
// [name, () => result] pairs; results must be JSON-representable (see normalizeResult).
import { componentCases } from "./pi_tui_cases_components.mjs";
import { keyCases } from "./pi_tui_cases_keys.mjs";
import { markdownCases } from "./pi_tui_cases_markdown.mjs";
import { textCases } from "./pi_tui_cases_text.mjs";

export function piTuiCases(tui) {
	const exportsCase = [
		"exports",
		() =>
			Object.keys(tui)
				.sort()
				.map((k) => `${k}:${typeof tui[k]}`),
	];
	return [exportsCase, ...textCases(tui), ...keyCases(tui), ...componentCases(tui), ...markdownCases(tui)];
}

// undefined, NaN and errors become tagged objects so JSON keeps them apart.
export function normalizeResult(value) {
	if (value === undefined) return { $undefined: true };
	if (typeof value === "number" && !Number.isFinite(value)) return { $number: String(value) };
	if (typeof value === "function") return { $function: true };
	if (Array.isArray(value)) return value.map(normalizeResult);
	if (value && typeof value === "object") {
		const out = {};
		for (const [k, v] of Object.entries(value)) out[k] = normalizeResult(v);
		return out;
	}
	return value;
}

/** Run one case (it may be async): its normalized result, or { $error: message } if it threw. */
export async function runCase(fn) {
	try {
		return normalizeResult(await fn());
	} catch (error) {
		return { $error: error instanceof Error ? error.message : String(error) };
	}
}
