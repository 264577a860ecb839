// pi-ai's lenient JSON: repairing string literals, and parsing the incomplete JSON of a tool
// call's arguments while they stream.

const VALID_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);
const SHORT_ESCAPES = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapedControl(char) {
	return SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * Repairs string literals: raw control characters are escaped, and a backslash before a
 * character that cannot follow it is doubled.
 */
export function repairJson(json) {
	let out = "";
	let inString = false;
	for (let i = 0; i < json.length; i++) {
		const char = json[i];
		if (!inString) {
			out += char;
			if (char === '"') inString = true;
		} else if (char === '"') {
			out += char;
			inString = false;
		} else if (char === "\\") {
			const next = json[i + 1];
			if (next === "u" && /^[0-9a-fA-F]{4}$/.test(json.slice(i + 2, i + 6))) {
				out += json.slice(i, i + 6);
				i += 5;
			} else if (next !== undefined && VALID_ESCAPES.has(next)) {
				out += `\\${next}`;
				i += 1;
			} else {
				out += "\\\\";
			}
		} else {
			out += char.charCodeAt(0) <= 0x1f ? escapedControl(char) : char;
		}
	}
	return out;
}

/** JSON.parse, retried once on the repaired text when that differs. */
export function parseJsonWithRepair(json) {
	try {
		return JSON.parse(json);
	} catch (error) {
		const repaired = repairJson(json);
		if (repaired !== json) return JSON.parse(repaired);
		throw error;
	}
}

class IncompleteJson extends Error {}

// Parses a JSON text that may stop anywhere. An object or array keeps the members read before
// the text ended (or turned malformed); a string keeps the characters read; a literal cut short
// ("tr") counts as complete. Malformed input outside any container throws.
function parsePartial(input) {
	if (typeof input !== "string") throw new TypeError(`expecting str, got ${typeof input}`);
	const text = input.trim();
	if (!text) throw new Error(`${input} is empty`);
	const length = text.length;
	let at = 0;

	const skipBlank = () => {
		while (at < length && " \n\r\t".includes(text[at])) at++;
	};
	const literal = (word, value, minRest = 0) => {
		const rest = length - at;
		if (text.startsWith(word, at) || (rest > minRest && rest < word.length && word.startsWith(text.slice(at)))) {
			at += word.length;
			return { value };
		}
		return undefined;
	};

	const value = () => {
		skipBlank();
		if (at >= length) throw new IncompleteJson("Unexpected end of input");
		const char = text[at];
		if (char === '"') return string();
		if (char === "{") return object();
		if (char === "[") return array();
		const word =
			literal("null", null) ??
			literal("true", true) ??
			literal("false", false) ??
			literal("Infinity", Infinity) ??
			literal("-Infinity", -Infinity, 1) ??
			literal("NaN", NaN);
		return word ? word.value : number();
	};

	const string = () => {
		const start = at;
		let escaped = false;
		at++;
		while (at < length && (text[at] !== '"' || (escaped && text[at - 1] === "\\"))) {
			escaped = text[at] === "\\" ? !escaped : false;
			at++;
		}
		if (text[at] === '"') {
			at++;
			return JSON.parse(text.substring(start, at - Number(escaped)));
		}
		try {
			return JSON.parse(`${text.substring(start, at - Number(escaped))}"`);
		} catch {
			// An escape sequence cut short: drop it.
			return JSON.parse(`${text.substring(start, text.lastIndexOf("\\"))}"`);
		}
	};

	const object = () => {
		at++;
		skipBlank();
		const result = {};
		try {
			while (text[at] !== "}") {
				skipBlank();
				if (at >= length) return result;
				const key = string();
				skipBlank();
				at++; // the colon
				result[key] = value();
				skipBlank();
				if (text[at] === ",") at++;
			}
		} catch {
			return result;
		}
		at++;
		return result;
	};

	const array = () => {
		at++;
		const result = [];
		try {
			while (text[at] !== "]") {
				result.push(value());
				skipBlank();
				if (text[at] === ",") at++;
			}
		} catch {
			return result;
		}
		at++;
		return result;
	};

	// A number runs to the next , ] or }; one cut inside its exponent keeps the mantissa.
	const withoutExponent = (start) => JSON.parse(text.substring(start, text.lastIndexOf("e")));
	const number = () => {
		if (at === 0) {
			if (text === "-") throw new SyntaxError("Not sure what '-' is");
			try {
				return JSON.parse(text);
			} catch {
				return withoutExponent(0);
			}
		}
		const start = at;
		if (text[at] === "-") at++;
		while (at < length && !",]}".includes(text[at])) at++;
		const token = text.substring(start, at);
		try {
			return JSON.parse(token);
		} catch (error) {
			if (token === "-") throw new IncompleteJson("Not sure what '-' is");
			return withoutExponent(start);
		}
	};

	return value();
}

/**
 * Parses possibly incomplete JSON (a tool call's arguments while they stream). Never throws:
 * what cannot be parsed gives {}.
 */
export function parseStreamingJson(partialJson) {
	if (!partialJson || partialJson.trim() === "") return {};
	try {
		return parseJsonWithRepair(partialJson);
	} catch {
		for (const text of [partialJson, repairJson(partialJson)]) {
			try {
				return parsePartial(text) ?? {};
			} catch {
				// try the next form
			}
		}
		return {};
	}
}
