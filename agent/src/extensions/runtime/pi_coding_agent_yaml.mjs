// A YAML reader for front matter (the part of YAML 1.2 that front matter uses): block mappings
// and sequences, plain / single-quoted / double-quoted scalars (multi-line too), literal and
// folded block scalars, flow sequences and mappings, comments; scalars resolved by the core
// schema (null, booleans, integers, floats). Anchors, aliases, tags, complex keys and
// documents beyond the first are not supported: they throw, as malformed YAML does.

class YamlError extends Error {
	constructor(message, line) {
		super(line === undefined ? message : `${message} at line ${line + 1}`);
		this.name = "YAMLParseError";
	}
}

const indentOf = (line) => line.length - line.trimStart().length;
const isBlank = (line) => /^\s*(#.*)?$/.test(line);

/** The core schema's reading of a plain scalar. */
function resolvePlain(text) {
	if (/^(~|null|Null|NULL)?$/.test(text)) return null;
	if (/^(true|True|TRUE)$/.test(text)) return true;
	if (/^(false|False|FALSE)$/.test(text)) return false;
	if (/^[-+]?[0-9]+$/.test(text)) return Number.parseInt(text, 10);
	if (/^0o[0-7]+$/.test(text)) return Number.parseInt(text.slice(2), 8);
	if (/^0x[0-9a-fA-F]+$/.test(text)) return Number.parseInt(text.slice(2), 16);
	if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number.parseFloat(text);
	if (/^[-+]?\.(inf|Inf|INF)$/.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
	if (/^\.(nan|NaN|NAN)$/.test(text)) return NaN;
	return text;
}

// Plain text up to an inline comment (a # after a space).
function stripComment(text) {
	const match = /(^|\s)#/.exec(text);
	return (match ? text.slice(0, match.index) : text).trim();
}

const ESCAPES = {
	0: "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r", e: "\x1b",
	" ": " ", '"': '"', "/": "/", "\\": "\\", N: "\u0085", _: "\u00a0", L: "\u2028", P: "\u2029",
};
const HEX_ESCAPES = { x: 2, u: 4, U: 8 };

// Line breaks inside a quoted or plain multi-line scalar: one becomes a space, each further
// (empty) line a newline.
function foldLines(lines) {
	let out = "";
	let pendingBreaks = 0;
	lines.forEach((line, index) => {
		if (index > 0 && line === "") {
			pendingBreaks++;
			return;
		}
		if (index > 0) out += pendingBreaks > 0 ? "\n".repeat(pendingBreaks) : " ";
		pendingBreaks = 0;
		out += line;
	});
	return out + "\n".repeat(pendingBreaks);
}

function unescapeDouble(body, line) {
	let out = "";
	for (let i = 0; i < body.length; i++) {
		const char = body[i];
		if (char !== "\\") {
			out += char;
			continue;
		}
		const next = body[++i];
		if (next in HEX_ESCAPES) {
			const hex = body.slice(i + 1, i + 1 + HEX_ESCAPES[next]);
			if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== HEX_ESCAPES[next]) throw new YamlError("Invalid escape sequence", line);
			out += String.fromCodePoint(Number.parseInt(hex, 16));
			i += hex.length;
		} else if (next !== undefined && Object.hasOwn(ESCAPES, next)) {
			out += ESCAPES[next];
		} else {
			throw new YamlError(`Invalid escape sequence \\${next ?? ""}`, line);
		}
	}
	return out;
}

class Reader {
	constructor(text) {
		this.lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
		// A final newline ends the last line; it does not start an empty one.
		if (this.lines.length > 1 && this.lines[this.lines.length - 1] === "") this.lines.pop();
		this.at = 0;
	}

	skipBlank() {
		while (this.at < this.lines.length && isBlank(this.lines[this.at])) this.at++;
	}

	fail(message) {
		throw new YamlError(message, this.at);
	}

	/** The node whose first line is the next non-blank one, if indented at least `minIndent`. */
	node(minIndent, parentIndent) {
		this.skipBlank();
		if (this.at >= this.lines.length) return null;
		const line = this.lines[this.at];
		const indent = indentOf(line);
		if (indent < minIndent) return null;
		const content = line.slice(indent);
		if (/^\t/.test(content)) this.fail("Tabs are not allowed as indentation");
		if (/^-( |$)/.test(content)) return this.sequence(indent);
		if (this.keyOf(content)) return this.mapping(indent);
		return this.value(content, indent, parentIndent);
	}

	// [key, rest of the line after the colon] when `content` starts a mapping entry.
	keyOf(content) {
		if (content.startsWith('"') || content.startsWith("'")) {
			const end = this.quotedEnd(content, 0);
			if (end === -1) return undefined;
			const after = content.slice(end + 1);
			const match = /^\s*:(\s|$)/.exec(after);
			if (!match) return undefined;
			const key = content[0] === '"' ? unescapeDouble(content.slice(1, end), this.at) : content.slice(1, end).replaceAll("''", "'");
			return [key, after.slice(match[0].length)];
		}
		if (/^[[{?&*!|>%@`]/.test(content) || content.startsWith("- ")) {
			if (content.startsWith("? ") || content === "?") this.fail("Complex keys are not supported");
			return undefined;
		}
		const match = /:(\s|$)/.exec(content);
		if (!match || /\s#/.test(content.slice(0, match.index))) return undefined;
		return [resolveKey(content.slice(0, match.index).trim()), content.slice(match.index + match[0].length)];
	}

	// The index of the quote closing the one at `start`, or -1.
	quotedEnd(text, start) {
		const quote = text[start];
		for (let i = start + 1; i < text.length; i++) {
			if (quote === '"' && text[i] === "\\") i++;
			else if (text[i] === quote) {
				if (quote === "'" && text[i + 1] === "'") i++;
				else return i;
			}
		}
		return -1;
	}

	mapping(indent) {
		const result = {};
		for (;;) {
			this.skipBlank();
			if (this.at >= this.lines.length) return result;
			const line = this.lines[this.at];
			const lineIndent = indentOf(line);
			if (lineIndent < indent) return result;
			if (lineIndent > indent) this.fail("Bad indentation of a mapping entry");
			const entry = this.keyOf(line.slice(indent));
			if (!entry) this.fail("Implicit map keys need to be followed by map values");
			const [key, rest] = entry;
			if (Object.hasOwn(result, key)) this.fail("Map keys must be unique");
			const value = this.entryValue(rest.trim(), indent);
			Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
		}
	}

	// The value after "key:" (or "- "): on the same line, or the block below.
	entryValue(rest, indent) {
		if (rest === "" || rest.startsWith("#")) {
			this.at++;
			this.skipBlank();
			const next = this.lines[this.at];
			// A sequence may sit at its key's own indentation.
			if (next !== undefined && indentOf(next) === indent && /^-( |$)/.test(next.slice(indent))) {
				return this.sequence(indent);
			}
			return this.node(indent + 1, indent);
		}
		if (/^-( |$)/.test(rest)) this.fail("Sequence items are not allowed on a single line with map keys");
		return this.value(rest, indent, indent);
	}

	sequence(indent) {
		const result = [];
		for (;;) {
			this.skipBlank();
			if (this.at >= this.lines.length) return result;
			const line = this.lines[this.at];
			const lineIndent = indentOf(line);
			if (lineIndent < indent) return result;
			const content = line.slice(indent);
			if (lineIndent > indent) this.fail("Bad indentation of a sequence entry");
			if (!/^-( |$)/.test(content)) return result;
			const item = content.slice(1);
			const rest = item.trimStart();
			if (rest === "" || rest.startsWith("#")) {
				// An empty item: its value is the block below it, if more indented, else null.
				this.at++;
				result.push(this.node(indent + 1, indent));
				continue;
			}
			// The item's own content starts a node at its column ("- a: 1" then "  b: 2").
			const column = indent + 1 + (item.length - rest.length);
			this.lines[this.at] = " ".repeat(column) + rest;
			result.push(this.node(column, indent));
		}
	}

	/** A scalar or flow value starting with `text` on the current line. */
	value(text, indent, parentIndent) {
		const first = text[0];
		if (first === "&" || first === "*" || first === "!") this.fail("Anchors, aliases and tags are not supported");
		if (first === "|" || first === ">") return this.blockScalar(text, parentIndent);
		if (first === '"' || first === "'") return this.quoted(text);
		if (first === "[" || first === "{") return this.flow(text);
		// A plain scalar, continued by the following more indented lines.
		const parts = [stripComment(text)];
		if (/:(\s|$)/.test(parts[0])) this.fail("Nested mappings are not allowed in compact mappings");
		this.at++;
		while (this.at < this.lines.length) {
			const line = this.lines[this.at];
			if (line.trim() === "") {
				parts.push("");
				this.at++;
				continue;
			}
			if (indentOf(line) <= parentIndent || line.trim().startsWith("#")) break;
			parts.push(stripComment(line.trim()));
			this.at++;
		}
		while (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
		return parts.length === 1 ? resolvePlain(parts[0]) : foldLines(parts);
	}

	quoted(text) {
		const startLine = this.at;
		let joined = text;
		let end = this.quotedEnd(joined, 0);
		while (end === -1) {
			if (++this.at >= this.lines.length) throw new YamlError("Missing closing quote", startLine);
			joined += `\n${this.lines[this.at]}`;
			end = this.quotedEnd(joined, 0);
		}
		const after = joined.slice(end + 1).trim();
		if (after !== "" && !after.startsWith("#")) this.fail("Unexpected content after a quoted scalar");
		this.at++;
		const body = joined.slice(1, end);
		const lines = body.split("\n");
		const last = lines.length - 1;
		let out = "";
		let breaks = 0;
		let joinNext = false;
		for (let i = 0; i <= last; i++) {
			let line = lines[i];
			if (i > 0) line = line.trimStart();
			if (i < last) line = line.trimEnd();
			if (i > 0 && i < last && line === "") {
				breaks++;
				continue;
			}
			if (i > 0) out += joinNext ? "" : breaks > 0 ? "\n".repeat(breaks) : " ";
			breaks = 0;
			// In double quotes, a backslash ending a line joins it to the next without a space.
			joinNext = text[0] === '"' && i < last && /(^|[^\\])(\\\\)*\\$/.test(line);
			if (joinNext) line = line.slice(0, -1);
			out += text[0] === '"' ? unescapeDouble(line, startLine + i) : line.replaceAll("''", "'");
		}
		return out;
	}

	blockScalar(header, parentIndent) {
		const match = /^([|>])([-+]?)([1-9]?)([-+]?)\s*(#.*)?$/.exec(header);
		if (!match) this.fail("Invalid block scalar header");
		const folded = match[1] === ">";
		const chomp = match[2] || match[4];
		this.at++;
		let contentIndent = match[3] ? parentIndent + Number(match[3]) : undefined;
		const lines = [];
		while (this.at < this.lines.length) {
			const line = this.lines[this.at];
			// A blank line is empty unless its spaces go past the content's indentation.
			if (line.trim() === "" && (contentIndent === undefined || line.length <= contentIndent)) {
				lines.push("");
				this.at++;
				continue;
			}
			const indent = line.trim() === "" ? line.length : indentOf(line);
			contentIndent ??= indent;
			if (indent < contentIndent || indent <= parentIndent) break;
			lines.push(line.slice(contentIndent));
			this.at++;
		}
		let trailing = 0;
		while (lines.length > 0 && lines[lines.length - 1] === "") {
			lines.pop();
			trailing++;
		}
		let body = folded ? foldBlock(lines) : lines.join("\n");
		if (lines.length === 0) return chomp === "+" ? "\n".repeat(trailing) : "";
		if (chomp === "+") body += "\n".repeat(trailing + 1);
		else if (chomp !== "-") body += "\n";
		return body;
	}

	flow(text) {
		const startLine = this.at;
		let joined = text;
		for (;;) {
			const parser = new FlowParser(joined);
			const value = parser.tryParse();
			if (value !== INCOMPLETE) {
				const after = joined.slice(parser.at).trim();
				if (after !== "" && !after.startsWith("#")) this.fail("Unexpected content after a flow collection");
				this.at++;
				return value;
			}
			if (++this.at >= this.lines.length) throw new YamlError("Unterminated flow collection", startLine);
			joined += `\n${this.lines[this.at]}`;
		}
	}
}

function resolveKey(text) {
	const value = resolvePlain(text);
	return value === null ? "" : String(value);
}

// Folded block lines: the break between two ordinary lines is a space, and dropped before
// empty lines (each of which is a newline); breaks next to more-indented lines are kept.
function foldBlock(lines) {
	let i = 0;
	while (i < lines.length && lines[i] === "") i++;
	let out = "\n".repeat(i);
	while (i < lines.length) {
		const line = lines[i];
		out += line;
		let next = i + 1;
		while (next < lines.length && lines[next] === "") next++;
		if (next >= lines.length) break;
		const empties = next - i - 1;
		const keepBreak = /^\s/.test(line) || /^\s/.test(lines[next]);
		out += empties === 0 ? (keepBreak ? "\n" : " ") : "\n".repeat(keepBreak ? empties + 1 : empties);
		i = next;
	}
	return out;
}

const INCOMPLETE = Symbol("incomplete");

// [a, b] and {a: 1, b: [2]} on one or more lines.
class FlowParser {
	constructor(text) {
		this.text = text;
		this.at = 0;
	}

	tryParse() {
		try {
			return this.collection();
		} catch (error) {
			if (error === INCOMPLETE) return INCOMPLETE;
			throw error;
		}
	}

	space() {
		for (;;) {
			while (this.at < this.text.length && /\s/.test(this.text[this.at])) this.at++;
			if (this.text[this.at] !== "#") return;
			while (this.at < this.text.length && this.text[this.at] !== "\n") this.at++;
		}
	}

	collection() {
		const open = this.text[this.at++];
		const close = open === "[" ? "]" : "}";
		const result = open === "[" ? [] : {};
		for (;;) {
			this.space();
			if (this.at >= this.text.length) throw INCOMPLETE;
			if (this.text[this.at] === close) {
				this.at++;
				return result;
			}
			const first = this.item();
			this.space();
			let value = first;
			let isPair = false;
			if (this.text[this.at] === ":") {
				this.at++;
				this.space();
				value = /[,\]}]/.test(this.text[this.at] ?? "") ? null : this.item();
				isPair = true;
				this.space();
			}
			if (Array.isArray(result)) result.push(isPair ? { [String(first)]: value } : first);
			else result[first === null ? "" : String(first)] = isPair ? value : null;
			if (this.at >= this.text.length) throw INCOMPLETE;
			if (this.text[this.at] === ",") this.at++;
			else if (this.text[this.at] !== close) throw new YamlError("Expected , or a closing bracket");
		}
	}

	item() {
		const char = this.text[this.at];
		if (char === "[" || char === "{") return this.collection();
		if (char === '"' || char === "'") {
			const end = Reader.prototype.quotedEnd.call(null, this.text, this.at);
			if (end === -1) throw INCOMPLETE;
			const body = this.text.slice(this.at + 1, end).replace(/\s*\n\s*/g, " ");
			this.at = end + 1;
			return char === '"' ? unescapeDouble(body) : body.replaceAll("''", "'");
		}
		const start = this.at;
		while (this.at < this.text.length) {
			const c = this.text[this.at];
			if (c === "," || c === "]" || c === "}" || (c === ":" && /[\s,\]}]/.test(this.text[this.at + 1] ?? " "))) break;
			if (c === "#" && /\s/.test(this.text[this.at - 1] ?? "")) break;
			this.at++;
		}
		return resolvePlain(this.text.slice(start, this.at).replace(/\s*\n\s*/g, " ").trim());
	}
}

/** The value of a YAML document (null when it is empty or only comments). */
export function parseYaml(text) {
	const reader = new Reader(text);
	const value = reader.node(0, -1);
	reader.skipBlank();
	if (reader.at < reader.lines.length) reader.fail("Unexpected content");
	return value;
}
