// renderLatex: basic LaTeX math as terminal Unicode (α, x², √x, a/b, ...). Display math
// stacks fractions, limits and matrices over several lines. Anything it does not know gives
// undefined, so callers can show the source instead.
import { visibleWidth } from "./pi_tui_width.mjs";
import * as T from "./pi_tui_latex_tables.mjs";

const NEGATIVE_SPACE = "\u0000";
// Private-use markers: a layout node's index between LAYOUT_START/END, named operators
// between OP_START/END (for spacing), and a space that normalisation must keep.
const LAYOUT_START = "\u{f0000}";
const LAYOUT_END = "\u{f0001}";
const KEEP_SPACE = "\u{f0002}";
const OP_START = "\u{f0004}";
const OP_END = "\u{f0005}";
const LAYOUT_MARKER = /\u{f0000}(\d+)\u{f0001}/gu;
const TRAILING_LAYOUT_MARKER = /\u{f0000}(\d+)\u{f0001}$/u;

function mapAll(value, table) {
	let out = "";
	for (const ch of value) {
		if (table[ch] === undefined) return undefined;
		out += table[ch];
	}
	return out;
}

// x² when every character has a Unicode script form, else ^x / ^(...) (_x, _abc, _(...)).
function script(value, kind) {
	const v = value.trim();
	const unicode = mapAll(v.replace(/\s*([=+-])\s*/g, "$1"), kind === "sub" ? T.SUBSCRIPTS : T.SUPERSCRIPTS);
	if (unicode !== undefined) return unicode;
	const mark = kind === "sub" ? "_" : "^";
	if ([...v].length === 1 || (kind === "sub" && /^[A-Za-z]+$/.test(v))) return `${mark}${v}`;
	return `${mark}(${v})`;
}

function fraction(numerator, denominator) {
	const n = numerator.trim();
	const d = denominator.trim();
	const simpleN = /^[\p{L}\p{N}.]+$/u.test(n);
	const simpleD = /^[\p{N}.]+$/u.test(d) || [...d].length === 1;
	return `${simpleN ? n : `(${n})`}/${simpleD ? d : `(${d})`}`;
}

const root = (value, symbol = "√") => {
	const v = value.trim();
	return /^[\p{L}\p{N}.]+$/u.test(v) ? `${symbol}${v}` : `${symbol}(${v})`;
};

// Space named operators from neighbouring words, collapse spaces, drop blank edge lines.
function normalize(value) {
	return value
		.replace(/(?<=[\p{L}\p{N})\]}\u{f0001}])\u{f0004}/gu, " ")
		.replaceAll(OP_START, "")
		.replace(/\u{f0005}(?=[\p{L}\p{N}√\u{f0000}])/gu, " ")
		.replaceAll(OP_END, "")
		.split("\n")
		.map((line) => line.replace(/[ \t]+/g, " ").trim())
		.filter((line, i, all) => line.length > 0 || (i > 0 && i < all.length - 1))
		.join("\n")
		.trim();
}

function padTo(line, width, centred = false) {
	const room = Math.max(0, width - visibleWidth(line));
	const left = centred ? Math.floor(room / 2) : 0;
	return `${" ".repeat(left)}${line}${" ".repeat(room - left)}`;
}

const textBox = (text) => ({ lines: [text], width: visibleWidth(text), baseline: 0 });

// Place boxes side by side, aligned on their baselines.
function besides(boxes) {
	if (boxes.length === 0) return { lines: [""], width: 0, baseline: 0 };
	const baseline = Math.max(...boxes.map((b) => b.baseline));
	const below = Math.max(...boxes.map((b) => b.lines.length - b.baseline - 1));
	const lines = [];
	for (let row = 0; row <= baseline + below; row++) {
		let line = "";
		for (const b of boxes) {
			const r = row - baseline + b.baseline;
			line += r >= 0 && r < b.lines.length ? padTo(b.lines[r] ?? "", b.width) : " ".repeat(b.width);
		}
		lines.push(line.trimEnd());
	}
	return { lines, width: boxes.reduce((w, b) => w + b.width, 0), baseline };
}

function nodeBox(node, nodes) {
	if (node.type === "fraction") {
		const top = layout(node.numerator, nodes);
		const bottom = layout(node.denominator, nodes);
		const inner = Math.max(top.width, bottom.width, 1);
		const width = inner + 2;
		return {
			lines: [...top.lines.map((l) => padTo(l, width, true)), ` ${"─".repeat(inner)} `, ...bottom.lines.map((l) => padTo(l, width, true))],
			width,
			baseline: top.lines.length,
		};
	}
	if (node.type === "operator") {
		const inner = Math.max(visibleWidth(node.operator), node.lower === undefined ? 0 : visibleWidth(node.lower), node.upper === undefined ? 0 : visibleWidth(node.upper));
		const lines = [];
		if (node.upper !== undefined) lines.push(`${padTo(node.upper, inner, true)} `);
		lines.push(`${padTo(node.operator, inner, true)} `);
		if (node.lower !== undefined) lines.push(`${padTo(node.lower, inner, true)} `);
		return { lines, width: inner + 1, baseline: node.upper === undefined ? 0 : 1 };
	}
	const width = Math.max(0, ...node.lines.map((l) => visibleWidth(l)));
	return { lines: node.lines.map((l) => padTo(l, width)), width, baseline: node.baseline };
}

// Expand layout markers in `source` into a multi-line box.
function layout(source, nodes) {
	const out = [];
	let firstBaseline = 0;
	for (const line of source.split("\n")) {
		const boxes = [];
		let pos = 0;
		let previous;
		for (const m of line.matchAll(LAYOUT_MARKER)) {
			const node = nodes[Number(m[1])];
			if (!node) continue;
			if (m.index > pos) {
				const between = line.slice(pos, m.index);
				const trimmed = (previous ? between.trimStart() : between).trimEnd();
				const keepLeft = previous?.type === "matrix" && /^\s/.test(between);
				const keepRight = node.type === "matrix" && /\s$/.test(between);
				boxes.push(textBox(trimmed ? `${keepLeft ? " " : ""}${trimmed}${keepRight ? " " : ""}` : keepLeft || keepRight ? " " : ""));
			}
			boxes.push(nodeBox(node, nodes));
			pos = m.index + m[0].length;
			previous = node;
		}
		if (pos < line.length) {
			const rest = line.slice(pos);
			const trimmed = previous ? rest.trimStart() : rest;
			boxes.push(textBox(previous?.type === "matrix" && /^\s/.test(rest) ? ` ${trimmed}` : trimmed));
		}
		const row = besides(boxes);
		if (out.length === 0) firstBaseline = row.baseline;
		out.push(...row.lines);
	}
	return { lines: out, width: Math.max(0, ...out.map((l) => visibleWidth(l))), baseline: firstBaseline };
}

const ALIGN_ENVIRONMENTS = new Set(["aligned", "align", "align*", "alignedat", "alignat", "alignat*", "gather", "gathered", "multline", "multline*", "split"]);
const MATRIX_ENVIRONMENTS = ["array", "matrix", "smallmatrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix"];
// Delimiters per matrix kind: top-left, top-right, middle-left, middle-right, bottom-left, bottom-right.
const MATRIX_DELIMITERS = {
	pmatrix: "⎛⎞⎜⎟⎝⎠",
	bmatrix: "⎡⎤⎢⎥⎣⎦",
	Bmatrix: "⎧⎫⎨⎬⎩⎭",
	vmatrix: "││││││",
	Vmatrix: "║║║║║║",
};

class Parser {
	constructor(source, nodes, display) {
		this.source = source;
		this.nodes = nodes;
		this.display = display;
		this.pos = 0;
		this.ok = true;
		this.stackFractions = true;
	}

	get ch() {
		return this.source[this.pos];
	}

	skipBlanks() {
		while (this.pos < this.source.length && /[ \t]/.test(this.source[this.pos] ?? "")) this.pos++;
	}

	render() {
		const out = this.sequence();
		return this.ok && this.pos === this.source.length ? normalize(out) : undefined;
	}

	marker(node) {
		return `${LAYOUT_START}${this.nodes.push(node) - 1}${LAYOUT_END}`;
	}

	sequence(end) {
		let out = "";
		while (this.pos < this.source.length) {
			const c = this.ch;
			if (end && c === end) {
				this.pos++;
				return out;
			}
			if (c === "}") {
				this.ok = false;
				return out;
			}
			if (c === "{") {
				this.pos++;
				out += this.sequence("}");
			} else if (c === "\\") {
				const command = this.command();
				if (command === NEGATIVE_SPACE) {
					out = out.trimEnd();
					if (out.endsWith(OP_END)) out = out.slice(0, -OP_END.length);
				} else out += command;
			} else if (c === "^" || c === "_") {
				this.pos++;
				out = out.trimEnd();
				const s = script(this.argument(false), c === "_" ? "sub" : "sup");
				// Scripts on a named operator stay inside its markers.
				out = out.endsWith(OP_END) ? `${out.slice(0, -OP_END.length)}${s}${OP_END}` : out + s;
			} else if (/\s/.test(c)) {
				while (this.pos < this.source.length && /\s/.test(this.ch ?? "")) this.pos++;
				out += " ";
			} else if (c === "=" || c === "<" || c === ">") {
				out = `${out.trimEnd()} ${c} `;
				this.pos++;
			} else if (c === "&") {
				this.pos++;
			} else if (c === "~") {
				this.pos++;
				out += " ";
			} else if (c === "." && this.trailingMatrix(out)) {
				// A full stop after a stacked matrix goes on its last line.
				const node = this.trailingMatrix(out);
				node.lines[node.lines.length - 1] = `${node.lines[node.lines.length - 1] ?? ""}.`;
				this.pos++;
			} else {
				out += c;
				this.pos++;
			}
		}
		if (end) this.ok = false;
		return out;
	}

	trailingMatrix(out) {
		const m = TRAILING_LAYOUT_MARKER.exec(out);
		const node = m ? this.nodes[Number(m[1])] : undefined;
		return node?.type === "matrix" ? node : undefined;
	}

	command() {
		this.pos++;
		if (this.pos >= this.source.length) {
			this.ok = false;
			return "";
		}
		let name = this.ch ?? "";
		if (/[A-Za-z]/.test(name)) {
			const start = this.pos;
			while (this.pos < this.source.length && /[A-Za-z]/.test(this.ch ?? "")) this.pos++;
			name = this.source.slice(start, this.pos);
		} else this.pos++;
		if (name === "\\") return "\n";
		if (T.SPACING_COMMANDS.has(name)) return " ";
		if (T.NEGATIVE_SPACING_COMMANDS.has(name)) return NEGATIVE_SPACE;
		if (T.IGNORED_COMMANDS.has(name)) return "";
		if ("{}$%#_&".includes(name) && name.length === 1) return name;
		if (name === "|") return "‖";
		if (name === "not") return this.negation();
		if (T.LIMIT_OPERATORS.has(name)) return this.operator(name, "bracket", true, true);
		const symbol = T.SYMBOLS[name];
		if (symbol !== undefined) {
			if (T.DISPLAY_LIMIT_SYMBOLS.has(name)) return this.operator(symbol, "script", true);
			return name === "cdot" || name === "times" || T.RELATION_COMMANDS.has(name) ? ` ${symbol} ` : symbol;
		}
		if (T.NAMED_OPERATORS.has(name)) return `${OP_START}${name}${OP_END}`;
		if (T.SIZE_COMMANDS.has(name)) return "";
		if (name === "left" || name === "middle" || name === "right") {
			if (this.ch === ".") this.pos++;
			return "";
		}
		return this.structure(name);
	}

	negation() {
		const value = this.argument(false).trim();
		if (T.NEGATED[value] !== undefined) return ` ${T.NEGATED[value]} `;
		const chars = [...value];
		if (chars.length === 0) {
			this.ok = false;
			return "";
		}
		return ` ${chars[0]}\u0338${chars.slice(1).join("")} `;
	}

	// Commands that take arguments.
	structure(name) {
		if (name === "frac" || name === "dfrac" || name === "tfrac") {
			const stack = this.display && this.stackFractions && name !== "tfrac";
			const numerator = this.argument(!stack);
			const denominator = this.argument(!stack);
			if (stack) return this.marker({ type: "fraction", numerator: normalize(numerator), denominator: normalize(denominator) });
			return fraction(numerator, denominator);
		}
		if (name === "sqrt") {
			const degree = this.optionalArgument()?.trim();
			const value = this.argument();
			if (degree === undefined || degree === "2") return root(value);
			if (degree === "3") return root(value, "∛");
			if (degree === "4") return root(value, "∜");
			return `${script(degree, "sup")}${root(value)}`;
		}
		if (name === "boxed" || name === "fbox") return `[${this.argument().trim()}]`;
		if (name === "binom" || name === "dbinom" || name === "tbinom") return `(${this.argument()} choose ${this.argument()})`;
		if (T.ACCENTS[name] !== undefined) {
			const value = this.argument();
			return [...value].length === 1 ? `${value}${T.ACCENTS[name]}` : `${name}(${value})`;
		}
		if (name === "mathbb") return Array.from(this.argument(), (c) => T.BLACKBOARD[c] ?? c).join("");
		if (name === "operatorname") {
			const starred = this.ch === "*";
			if (starred) this.pos++;
			return this.operator(normalize(this.argument()).trim(), "bracket", starred, true);
		}
		if (name === "mod" || name === "bmod") return " mod ";
		if (name === "pmod" || name === "pod") {
			const value = this.argument().trim();
			return name === "pmod" ? ` (mod ${value})` : ` (${value})`;
		}
		if (name === "overset" || name === "stackrel") {
			const upper = this.argument();
			return `${this.argument().trim()}${script(upper, "sup")}`;
		}
		if (name === "underset") {
			const lower = this.argument();
			return `${this.argument().trim()}${script(lower, "sub")}`;
		}
		if (T.PLAIN_WRAPPERS.has(name)) {
			const value = this.argument();
			return name.startsWith("text") || name === "mbox" ? value : value.trim();
		}
		if (name === "begin") return this.environment();
		this.ok = false;
		return name === "end" ? "" : `\\${name}`;
	}

	// A big operator or limit with optional _lower and ^upper.
	operator(op, inlineLower, displayLimits, spaced = false) {
		let limits = displayLimits;
		let at = this.pos;
		while (at < this.source.length && /[ \t]/.test(this.source[at] ?? "")) at++;
		const modifier = /^\\(limits|nolimits)(?![A-Za-z])/.exec(this.source.slice(at));
		if (modifier) {
			limits = modifier[1] === "limits";
			this.pos = at + modifier[0].length;
		}
		let lower;
		let upper;
		for (;;) {
			let p = this.pos;
			while (p < this.source.length && /[ \t]/.test(this.source[p] ?? "")) p++;
			const kind = this.source[p];
			if (kind !== "_" && kind !== "^") break;
			this.pos = p + 1;
			const value = normalize(this.argument(false)).replaceAll(" ", "");
			if (kind === "_") {
				if (lower !== undefined) this.ok = false;
				lower = value;
			} else {
				if (upper !== undefined) this.ok = false;
				upper = value;
			}
		}
		if (this.display && limits && (lower !== undefined || upper !== undefined)) return this.marker({ type: "operator", operator: op, lower, upper });
		let out = op;
		if (lower !== undefined) out += inlineLower === "bracket" ? `[${lower}]` : script(lower, "sub");
		if (upper !== undefined) out += script(upper, "sup");
		return spaced ? ` ${out} ` : out;
	}

	argument(stackFractions = true) {
		const previous = this.stackFractions;
		this.stackFractions = previous && stackFractions;
		let value;
		this.skipBlanks();
		if (this.pos >= this.source.length) {
			this.ok = false;
			value = "";
		} else if (this.ch === "{") {
			this.pos++;
			value = this.sequence("}");
		} else if (this.ch === "\\") {
			value = this.command();
		} else {
			value = this.ch ?? "";
			this.pos++;
		}
		this.stackFractions = previous;
		return value;
	}

	optionalArgument() {
		this.skipBlanks();
		if (this.ch !== "[") return undefined;
		const end = this.source.indexOf("]", this.pos + 1);
		if (end < 0) {
			this.ok = false;
			return undefined;
		}
		const value = this.source.slice(this.pos + 1, end);
		this.pos = end + 1;
		return this.nested(value);
	}

	rawGroup() {
		this.skipBlanks();
		if (this.ch !== "{") {
			this.ok = false;
			return undefined;
		}
		const start = ++this.pos;
		let depth = 1;
		while (this.pos < this.source.length) {
			const c = this.ch;
			if (c === "\\") {
				this.pos += 2;
				continue;
			}
			if (c === "{") depth++;
			if (c === "}") depth--;
			if (depth === 0) return this.source.slice(start, this.pos++);
			this.pos++;
		}
		this.ok = false;
		return undefined;
	}

	rows(body) {
		return body.split(/\\\\(?:\[[^\]\n]*\])?/);
	}

	environment() {
		const env = this.rawGroup();
		if (!env) return "";
		const endMarker = `\\end{${env}}`;
		const end = this.source.indexOf(endMarker, this.pos);
		if (end < 0) {
			this.ok = false;
			return "";
		}
		const body = this.source.slice(this.pos, end);
		this.pos = end + endMarker.length;
		if (env === "equation" || env === "equation*" || env === "displaymath") return this.nested(body).trim();
		if (ALIGN_ENVIRONMENTS.has(env)) {
			const at = ["alignedat", "alignat", "alignat*"].includes(env);
			const content = at ? body.replace(/^\s*\{[^}]*\}/, "") : body;
			return this.rows(content)
				.map((row) => {
					const cells = row.split("&");
					const joined = at ? Array.from({ length: Math.ceil(cells.length / 2) }, (_, i) => cells.slice(i * 2, i * 2 + 2).join("")).join(" ") : cells.join("");
					return this.nested(joined).trim();
				})
				.filter(Boolean)
				.join("\n");
		}
		if (env === "cases" || env === "cases*") {
			const rows = this.rows(body)
				.map((row) => row.split("&").map((cell) => this.nested(cell, false).trim()))
				.filter((row) => row.some(Boolean));
			return rows
				.map((row, i) => {
					const value = (row[0] ?? "").replace(/,\s*$/, "");
					const condition = row[1] ?? "";
					const brace = i === 0 ? "⎧" : i === rows.length - 1 ? "⎩" : "⎨";
					const joiner = /^(?:if|when|for|otherwise)\b/i.test(condition) ? " " : " if ";
					return `${brace} ${value}${condition ? `${joiner}${condition}` : ""}`;
				})
				.join("\n");
		}
		if (MATRIX_ENVIRONMENTS.includes(env)) return this.matrix(env, env === "array" ? body.replace(/^\s*\{[^}]*\}/, "") : body);
		this.ok = false;
		return body;
	}

	matrix(env, body) {
		const cells = this.rows(body)
			.map((row) => row.split("&").map((cell) => this.nested(cell, false).trim()))
			.filter((row) => row.some(Boolean));
		const columns = Math.max(0, ...cells.map((r) => r.length));
		const widths = Array.from({ length: columns }, (_, c) => Math.max(0, ...cells.map((r) => visibleWidth(r[c] ?? ""))));
		const rows = cells.map((r) =>
			Array.from({ length: columns }, (_, c) => {
				const cell = r[c] ?? "";
				return `${cell}${KEEP_SPACE.repeat(Math.max(0, (widths[c] ?? 0) - visibleWidth(cell)))}`;
			}).join(" │ "),
		);
		let lines = rows;
		if (!["array", "matrix", "smallmatrix"].includes(env)) {
			const d = MATRIX_DELIMITERS[env] ? [...MATRIX_DELIMITERS[env]] : undefined;
			if (!d) {
				this.ok = false;
				return rows.join("\n");
			}
			lines = rows.map((row, i) => {
				const [l, r] = i === 0 ? [d[0], d[1]] : i === rows.length - 1 ? [d[4], d[5]] : [d[2], d[3]];
				return `${l} ${row} ${r}`;
			});
		}
		if (lines.length <= 1) return lines[0] ?? "";
		return this.marker({ type: "matrix", lines, baseline: 0 });
	}

	nested(source, stackFractions = true) {
		const out = new Parser(source, this.nodes, this.display && stackFractions).render();
		if (out === undefined) {
			this.ok = false;
			return source;
		}
		return out;
	}
}

/** A LaTeX math expression as Unicode text, or undefined if it uses unsupported syntax. */
export function renderLatex(source, options = {}) {
	const nodes = [];
	const out = new Parser(source, nodes, options.display === true).render();
	if (out === undefined) return undefined;
	if (nodes.length === 0) return out.replaceAll(KEEP_SPACE, " ");
	const lines = layout(out, nodes).lines;
	const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
	return lines
		.map((l) => l.slice(indent).trimEnd())
		.join("\n")
		.trimEnd()
		.replaceAll(KEEP_SPACE, " ");
}
