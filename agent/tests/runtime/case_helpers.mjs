// Helpers shared by the runtime case lists: turning results into comparable JSON, and running
// one case so that a throw becomes part of its result.

/**
 * A JSON-ready copy of `value` that keeps what JSON would lose: undefined, non-finite numbers,
 * bigints, functions (by kind), errors (name and message), and non-enumerable own keys of
 * objects (under "~hidden", e.g. typebox's markers) and a null prototype (as "~nullProto").
 */
export function snapshot(value, seen = new Set()) {
	if (value === undefined) return { $undefined: true };
	if (typeof value === "number" && !Number.isFinite(value)) return { $number: String(value) };
	if (Object.is(value, -0)) return { $number: "-0" };
	if (typeof value === "bigint") return { $bigint: String(value) };
	if (typeof value === "function") return { $function: value.prototype && /^class\b/.test(String(value)) ? "class" : "function" };
	if (typeof value === "symbol") return { $symbol: String(value.description) };
	if (value === null || typeof value !== "object") return value;
	if (seen.has(value)) return { $cycle: true };
	seen.add(value);
	try {
		if (value instanceof Error) {
			return { $error: value.name, message: value.message, ...plainFields(value, seen, ["stack", "message", "name"]) };
		}
		if (Array.isArray(value)) return value.map((item) => snapshot(item, seen));
		if (value instanceof Map) return { $map: [...value].map(([k, v]) => [snapshot(k, seen), snapshot(v, seen)]) };
		if (value instanceof Set) return { $set: [...value].map((v) => snapshot(v, seen)) };
		if (value instanceof RegExp) return { $regexp: String(value) };
		const out = plainFields(value, seen, []);
		const hidden = {};
		for (const key of Object.getOwnPropertyNames(value)) {
			if (!Object.getOwnPropertyDescriptor(value, key).enumerable) hidden[key] = snapshot(value[key], seen);
		}
		if (Object.keys(hidden).length > 0) out["~hidden"] = hidden;
		if (Object.getPrototypeOf(value) === null) out["~nullProto"] = true;
		return out;
	} finally {
		seen.delete(value);
	}
}

function plainFields(value, seen, skip) {
	const out = {};
	for (const key of Object.keys(value)) if (!skip.includes(key)) out[key] = snapshot(value[key], seen);
	return out;
}

/** The result of `fn()` (awaited) as a snapshot, or {$throws: {name, message}}. */
export async function attempt(fn) {
	try {
		return snapshot(await fn());
	} catch (error) {
		return { $throws: { name: error?.name, message: String(error?.message ?? error) } };
	}
}

/** Names and kinds of a module's exports, sorted. */
export function exportShape(mod) {
	return Object.keys(mod)
		.sort()
		.map((name) => [name, typeof mod[name]]);
}

/** Runs `cases` ({name: () => value}) in order; returns {name: snapshot}. */
export async function runAll(cases) {
	const results = {};
	for (const [name, fn] of Object.entries(cases)) results[name] = await attempt(fn);
	return results;
}

/** A finished assistant message with one text block. */
export const assistantText = (text) => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });

/** A JSON copy with every "timestamp" field replaced by "<ts>". */
export function withoutTimestamps(value) {
	return JSON.parse(JSON.stringify(value ?? null, (key, v) => (key === "timestamp" ? "<ts>" : v)));
}
