// pi-agent-core's session helpers that need no storage: checking that a durable payload is
// plain JSON, file-system results as session errors, and a session search by scanning.

import { SessionError } from "./pi_agent_core_errors.mjs";

function invalid(reason) {
	throw new SessionError("invalid_payload", `Durable payload ${reason}`);
}

// The property values of a plain array or object, checked to be plain data properties.
function childValues(candidate) {
	const names = Object.getOwnPropertyNames(candidate);
	if (Array.isArray(candidate)) {
		if (Object.getPrototypeOf(candidate) !== Array.prototype) invalid("contains a non-standard array");
		if (Object.getOwnPropertySymbols(candidate).length > 0 || names.length !== candidate.length + 1) {
			invalid("contains an array with unsupported properties");
		}
		// Checked from the last element back, as pi does (which fault is reported first).
		const values = [];
		for (let index = candidate.length - 1; index >= 0; index--) {
			if (!Object.hasOwn(candidate, index)) invalid("contains a sparse array");
			const descriptor = Object.getOwnPropertyDescriptor(candidate, index);
			if (!("value" in descriptor)) invalid("contains an array accessor");
			values.unshift(descriptor.value);
		}
		return values;
	}
	const prototype = Object.getPrototypeOf(candidate);
	if (prototype !== Object.prototype && prototype !== null) invalid("contains a non-plain object");
	if (Object.getOwnPropertySymbols(candidate).length > 0) invalid("contains a symbol-keyed property");
	const keys = Object.keys(candidate);
	if (names.length !== keys.length) invalid("contains a non-enumerable property");
	const values = [];
	for (let index = keys.length - 1; index >= 0; index--) {
		const descriptor = Object.getOwnPropertyDescriptor(candidate, keys[index]);
		if (!("value" in descriptor)) invalid("contains an accessor");
		values.unshift(descriptor.value);
	}
	return values;
}

/**
 * Throws SessionError("invalid_payload") unless `value` is plain JSON data: null, strings,
 * booleans, finite numbers, and plain arrays and objects of them without cycles. A value met
 * twice outside a cycle is fine. Checked depth first, in order.
 */
export function assertJsonSerializable(value) {
	const onPath = new WeakSet();
	const visit = (candidate) => {
		if (candidate === null || typeof candidate === "string" || typeof candidate === "boolean") return;
		if (typeof candidate === "number") {
			if (!Number.isFinite(candidate)) invalid("contains a non-finite number");
			return;
		}
		if (typeof candidate !== "object") invalid(`contains ${typeof candidate}`);
		if (onPath.has(candidate)) invalid("contains a cycle");
		onPath.add(candidate);
		for (const child of childValues(candidate)) visit(child);
		onPath.delete(candidate);
	};
	visit(value);
}

/** A file-system result's value, or a SessionError ("not_found" or "storage") with `message`. */
export function getFileSystemResultOrThrow(result, message) {
	if (result.ok) return result.value;
	const code = result.error.code === "not_found" ? "not_found" : "storage";
	throw new SessionError(code, `${message}: ${result.error.message}`, result.error);
}

/**
 * A session search that opens every session `source` lists (in `cwd`, if given) and returns
 * the entries whose JSON contains the text, case-insensitively.
 */
export function createScanningSessionSearch(source) {
	return {
		async search(options) {
			const text = options.text.trim().toLowerCase();
			if (!text) return [];
			const hits = [];
			for (const metadata of await source.list()) {
				if (options.cwd !== undefined && metadata.cwd !== options.cwd) continue;
				const session = await source.open(metadata);
				for (const entry of await session.findEntries({ order: "oldestFirst" })) {
					const payload = JSON.stringify(entry);
					if (!payload.toLowerCase().includes(text)) continue;
					hits.push({ metadata, entryId: entry.id, timestamp: new Date(entry.timestamp).toISOString(), snippet: payload });
				}
			}
			return hits;
		},
	};
}
