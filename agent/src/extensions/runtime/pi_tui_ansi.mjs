// Styled-text helpers: word wrapping and truncation that keep SGR styles and OSC 8 links
// intact across the cut, and column slicing.
import { clusterWidth, extractAnsiCode, graphemes, isPlainAscii, nextAnsiIndex, visibleWidth } from "./pi_tui_width.mjs";

const RESET = "\x1b[0m";

// OSC 8 hyperlink: undefined when `code` is not one, null when it closes a link, otherwise
// { params, url, terminator } (the terminator is kept because some terminals need BEL).
function parseHyperlink(code) {
	if (!code.startsWith("\x1b]8;")) return undefined;
	const terminator = code.endsWith("\x07") ? "\x07" : "\x1b\\";
	const body = code.slice(4, -terminator.length);
	const sep = body.indexOf(";");
	if (sep === -1) return undefined;
	const url = body.slice(sep + 1);
	if (!url) return null;
	return { params: body.slice(0, sep), url, terminator };
}

const openHyperlink = (link) => `\x1b]8;${link.params};${link.url}${link.terminator}`;
const closeHyperlink = (terminator) => `\x1b]8;;${terminator}`;

// The sequence closing a hyperlink still open at the end of `text`, or "".
function openLinkCloser(text) {
	if (!text.includes("\x1b]8;")) return "";
	let link = null;
	let i = 0;
	while (i < text.length) {
		const seq = extractAnsiCode(text, i);
		if (!seq) {
			i++;
			continue;
		}
		const parsed = parseHyperlink(seq.code);
		if (parsed !== undefined) link = parsed;
		i += seq.length;
	}
	return link ? closeHyperlink(link.terminator) : "";
}

const FLAG_ON = { 1: "bold", 2: "dim", 3: "italic", 4: "underline", 5: "blink", 7: "inverse", 8: "hidden", 9: "strikethrough" };
const FLAG_OFF = { 21: ["bold"], 22: ["bold", "dim"], 23: ["italic"], 24: ["underline"], 25: ["blink"], 27: ["inverse"], 28: ["hidden"], 29: ["strikethrough"] };
const FLAG_ORDER = [
	["bold", "1"],
	["dim", "2"],
	["italic", "3"],
	["underline", "4"],
	["blink", "5"],
	["inverse", "7"],
	["hidden", "8"],
	["strikethrough", "9"],
];

/** The SGR attributes and hyperlink in effect after a run of escape sequences. */
export class AnsiStyle {
	constructor() {
		this.link = null;
		this.reset();
	}

	reset() {
		for (const [flag] of FLAG_ORDER) this[flag] = false;
		this.fg = null;
		this.bg = null;
	}

	clear() {
		this.reset();
		this.link = null;
	}

	apply(code) {
		const link = parseHyperlink(code);
		if (link !== undefined) {
			this.link = link;
			return;
		}
		if (!code.endsWith("m")) return;
		const match = code.match(/\x1b\[([\d;]*)m/);
		if (!match) return;
		const params = match[1];
		if (params === "" || params === "0") {
			this.reset();
			return;
		}
		const parts = params.split(";");
		for (let i = 0; i < parts.length; i++) {
			const n = Number.parseInt(parts[i], 10);
			if (n === 38 || n === 48) {
				// Extended colours: 38;5;N or 38;2;R;G;B (48 for background).
				let used = 0;
				if (parts[i + 1] === "5" && parts[i + 2] !== undefined) used = 3;
				else if (parts[i + 1] === "2" && parts[i + 4] !== undefined) used = 5;
				if (used) {
					const colour = parts.slice(i, i + used).join(";");
					if (n === 38) this.fg = colour;
					else this.bg = colour;
					i += used - 1;
					continue;
				}
			}
			if (n === 0) this.reset();
			else if (FLAG_ON[n]) this[FLAG_ON[n]] = true;
			else if (FLAG_OFF[n]) for (const flag of FLAG_OFF[n]) this[flag] = false;
			else if (n === 39) this.fg = null;
			else if (n === 49) this.bg = null;
			else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) this.fg = String(n);
			else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) this.bg = String(n);
		}
	}

	applyAllIn(text) {
		let i = 0;
		while (i < text.length) {
			const seq = extractAnsiCode(text, i);
			if (seq) {
				this.apply(seq.code);
				i += seq.length;
			} else {
				i++;
			}
		}
	}

	/** Sequences that re-establish this style at the start of a line. */
	opening() {
		const codes = FLAG_ORDER.filter(([flag]) => this[flag]).map(([, code]) => code);
		if (this.fg) codes.push(this.fg);
		if (this.bg) codes.push(this.bg);
		let out = codes.length > 0 ? `\x1b[${codes.join(";")}m` : "";
		if (this.link) out += openHyperlink(this.link);
		return out;
	}

	/** What must be closed at a line end: underline (would bleed into padding) and links. */
	lineEndReset() {
		let out = "";
		if (this.underline) out += "\x1b[24m";
		if (this.link) out += closeHyperlink(this.link.terminator);
		return out;
	}
}

export const CJK_BREAK = /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}\p{Script_Extensions=Bopomofo}]/u;

// Split into runs of spaces and runs of other text (each CJK character its own token);
// escape sequences stick to the visible text that follows them.
function tokenize(text) {
	const tokens = [];
	let current = "";
	let currentIsSpace = null;
	let pending = "";
	const flush = () => {
		if (current) tokens.push(current);
		current = "";
		currentIsSpace = null;
	};
	let i = 0;
	while (i < text.length) {
		const seq = extractAnsiCode(text, i);
		if (seq) {
			pending += seq.code;
			i += seq.length;
			continue;
		}
		const end = nextAnsiIndex(text, i);
		for (const { segment } of graphemes.segment(text.slice(i, end))) {
			const isSpace = segment === " ";
			if (!isSpace && CJK_BREAK.test(segment)) {
				flush();
				tokens.push(pending + segment);
				pending = "";
				continue;
			}
			if (current && currentIsSpace !== isSpace) flush();
			current += pending;
			pending = "";
			currentIsSpace = isSpace;
			current += segment;
		}
		i = end;
	}
	if (pending) {
		if (current) current += pending;
		else if (tokens.length > 0) tokens[tokens.length - 1] += pending;
		else current = pending;
	}
	if (current) tokens.push(current);
	return tokens;
}

// Break a token wider than the line into width-sized pieces, carrying the style over.
function splitLongToken(token, width, style) {
	const pieces = [];
	let line = style.opening();
	let lineWidth = 0;
	let i = 0;
	while (i < token.length) {
		const seq = extractAnsiCode(token, i);
		if (seq) {
			line += seq.code;
			style.apply(seq.code);
			i += seq.length;
			continue;
		}
		const end = nextAnsiIndex(token, i);
		for (const { segment } of graphemes.segment(token.slice(i, end))) {
			if (!segment) continue;
			const w = visibleWidth(segment);
			if (lineWidth + w > width) {
				pieces.push(line + style.lineEndReset());
				line = style.opening();
				lineWidth = 0;
			}
			line += segment;
			lineWidth += w;
		}
		i = end;
	}
	if (line) pieces.push(line);
	return pieces.length > 0 ? pieces : [""];
}

function wrapLine(line, width) {
	if (!line) return [""];
	if (visibleWidth(line) <= width) return [line];
	const out = [];
	const style = new AnsiStyle();
	let current = "";
	let currentWidth = 0;
	for (const token of tokenize(line)) {
		const tokenWidth = visibleWidth(token);
		const blank = token.trim() === "";
		if (tokenWidth > width && !blank) {
			if (current) {
				out.push(current + style.lineEndReset());
				current = "";
				currentWidth = 0;
			}
			const pieces = splitLongToken(token, width, style);
			out.push(...pieces.slice(0, -1));
			current = pieces[pieces.length - 1];
			currentWidth = visibleWidth(current);
			continue;
		}
		if (currentWidth + tokenWidth > width && currentWidth > 0) {
			out.push(current.trimEnd() + style.lineEndReset());
			current = style.opening() + (blank ? "" : token);
			currentWidth = blank ? 0 : tokenWidth;
		} else {
			current += token;
			currentWidth += tokenWidth;
		}
		style.applyAllIn(token);
	}
	if (current) out.push(current);
	return out.length > 0 ? out.map((l) => l.trimEnd()) : [""];
}

/**
 * Word-wrap to `width` columns, keeping styles across breaks (and across the input's own
 * newlines). Lines are not padded.
 */
export function wrapTextWithAnsi(text, width) {
	if (!text) return [""];
	const out = [];
	const style = new AnsiStyle();
	for (const inputLine of text.split(/\r\n|\r|\n/)) {
		const prefix = out.length > 0 ? style.opening() : "";
		out.push(...wrapLine(prefix + inputLine, width));
		style.applyAllIn(inputLine);
	}
	return out.length > 0 ? out : [""];
}

/** Pad `line` to `width` and run it through the background function. */
export function applyBackgroundToLine(line, width, bgFn) {
	return bgFn(line + " ".repeat(Math.max(0, width - visibleWidth(line))));
}

// The longest prefix of `text` fitting `maxWidth`; escape sequences are kept only before
// visible text that is kept.
function clipToWidth(text, maxWidth) {
	if (maxWidth <= 0 || text.length === 0) return { text: "", width: 0 };
	if (isPlainAscii(text)) {
		const clipped = text.slice(0, maxWidth);
		return { text: clipped, width: clipped.length };
	}
	let out = "";
	let width = 0;
	let pending = "";
	let i = 0;
	while (i < text.length) {
		const seq = extractAnsiCode(text, i);
		if (seq) {
			pending += seq.code;
			i += seq.length;
			continue;
		}
		if (text[i] === "\t") {
			if (width + 3 > maxWidth) break;
			out += `${pending}\t`;
			pending = "";
			width += 3;
			i++;
			continue;
		}
		let end = i;
		while (end < text.length && text[end] !== "\t" && !extractAnsiCode(text, end)) end++;
		for (const { segment } of graphemes.segment(text.slice(i, end))) {
			const w = clusterWidth(segment);
			if (width + w > maxWidth) return { text: out, width };
			out += pending + segment;
			pending = "";
			width += w;
		}
		i = end;
	}
	return { text: out, width };
}

function finishTruncated(prefix, prefixWidth, ellipsis, ellipsisWidth, maxWidth, pad) {
	let out = `${prefix}${openLinkCloser(prefix)}${RESET}`;
	if (ellipsis.length > 0) out += `${ellipsis}${RESET}`;
	return pad ? out + " ".repeat(Math.max(0, maxWidth - prefixWidth - ellipsisWidth)) : out;
}

/**
 * Cut `text` to `maxWidth` columns, ending with `ellipsis` when something was cut; with
 * `pad`, fill with spaces to exactly `maxWidth`.
 */
export function truncateToWidth(text, maxWidth, ellipsis = "...", pad = false) {
	if (maxWidth <= 0) return "";
	if (text.length === 0) return pad ? " ".repeat(maxWidth) : "";
	const padTo = (s, w) => (pad ? s + " ".repeat(Math.max(0, maxWidth - w)) : s);
	const ellipsisWidth = visibleWidth(ellipsis);
	if (ellipsisWidth >= maxWidth) {
		const textWidth = visibleWidth(text);
		if (textWidth <= maxWidth) return padTo(text, textWidth);
		const clipped = clipToWidth(ellipsis, maxWidth);
		if (clipped.width === 0) return pad ? " ".repeat(maxWidth) : "";
		return finishTruncated("", 0, clipped.text, clipped.width, maxWidth, pad);
	}
	const keepWidth = maxWidth - ellipsisWidth;
	if (isPlainAscii(text)) {
		if (text.length <= maxWidth) return padTo(text, text.length);
		return finishTruncated(text.slice(0, keepWidth), keepWidth, ellipsis, ellipsisWidth, maxWidth, pad);
	}
	// Walk the text: keep the prefix that fits `keepWidth`, stop once it exceeds `maxWidth`.
	let kept = "";
	let keptWidth = 0;
	let keeping = true;
	let seen = 0;
	let pending = "";
	let overflow = false;
	const visit = (piece, w) => {
		if (keeping && keptWidth + w <= keepWidth) {
			kept += pending + piece;
			pending = "";
			keptWidth += w;
		} else {
			keeping = false;
			pending = "";
		}
		seen += w;
		overflow = seen > maxWidth;
		return overflow;
	};
	let i = 0;
	while (i < text.length && !overflow) {
		const seq = extractAnsiCode(text, i);
		if (seq) {
			pending += seq.code;
			i += seq.length;
			continue;
		}
		if (text[i] === "\t") {
			if (visit("\t", 3)) break;
			i++;
			continue;
		}
		let end = i;
		while (end < text.length && text[end] !== "\t" && !extractAnsiCode(text, end)) end++;
		for (const { segment } of graphemes.segment(text.slice(i, end))) {
			if (visit(segment, clusterWidth(segment))) break;
		}
		if (!overflow) i = end;
	}
	if (!overflow) return padTo(text, seen);
	return finishTruncated(kept, keptWidth, ellipsis, ellipsisWidth, maxWidth, pad);
}

/** Columns [startCol, startCol + length) of `line`, with their width. */
export function sliceWithWidth(line, startCol, length, strict = false) {
	if (length <= 0) return { text: "", width: 0 };
	const endCol = startCol + length;
	let out = "";
	let outWidth = 0;
	let col = 0;
	let pending = "";
	let i = 0;
	while (i < line.length && col < endCol) {
		const seq = extractAnsiCode(line, i);
		if (seq) {
			if (col >= startCol) out += seq.code;
			else pending += seq.code;
			i += seq.length;
			continue;
		}
		const end = nextAnsiIndex(line, i);
		for (const { segment } of graphemes.segment(line.slice(i, end))) {
			const w = clusterWidth(segment);
			if (col >= startCol && (!strict || col + w <= endCol)) {
				out += pending + segment;
				pending = "";
				outWidth += w;
			}
			col += w;
			if (col >= endCol) break;
		}
		i = end;
	}
	return { text: out, width: outWidth };
}

/** Columns [startCol, startCol + length) of `line`; `strict` drops a wide char crossing the end. */
export function sliceByColumn(line, startCol, length, strict = false) {
	return sliceWithWidth(line, startCol, length, strict).text;
}

const segmentStyle = new AnsiStyle();

/**
 * The part of `line` before column `beforeEnd` and the part in [afterStart, afterStart +
 * afterLen), the latter starting with the style in effect there (for overlay compositing).
 */
export function extractSegments(line, beforeEnd, afterStart, afterLen, strictAfter = false) {
	let before = "";
	let beforeWidth = 0;
	let after = "";
	let afterWidth = 0;
	let col = 0;
	let pendingBefore = "";
	let afterStarted = false;
	const afterEnd = afterStart + afterLen;
	const done = () => (afterLen <= 0 ? col >= beforeEnd : col >= afterEnd);
	segmentStyle.clear();
	let i = 0;
	while (i < line.length && !done()) {
		const seq = extractAnsiCode(line, i);
		if (seq) {
			segmentStyle.apply(seq.code);
			if (col < beforeEnd) pendingBefore += seq.code;
			else if (col >= afterStart && col < afterEnd && afterStarted) after += seq.code;
			i += seq.length;
			continue;
		}
		const end = nextAnsiIndex(line, i);
		for (const { segment } of graphemes.segment(line.slice(i, end))) {
			const w = clusterWidth(segment);
			if (col < beforeEnd && col + w <= beforeEnd) {
				before += pendingBefore + segment;
				pendingBefore = "";
				beforeWidth += w;
			} else if (col >= afterStart && col < afterEnd && (!strictAfter || col + w <= afterEnd)) {
				if (!afterStarted) {
					after += segmentStyle.opening();
					afterStarted = true;
				}
				after += segment;
				afterWidth += w;
			}
			col += w;
			if (done()) break;
		}
		i = end;
	}
	return { before, beforeWidth, after, afterWidth };
}

/** The OSC 8 link URL covering visible column `column` of `line`, if any. */
export function getOsc8LinkAtColumn(line, column) {
	let url;
	let col = 0;
	let i = 0;
	while (i < line.length) {
		const seq = extractAnsiCode(line, i);
		if (seq) {
			const link = /^\x1b\]8;[^;]*;([^\x07\x1b]*)(?:\x07|\x1b\\)$/.exec(seq.code);
			if (link) url = link[1] || undefined;
			i += seq.length;
			continue;
		}
		const end = nextAnsiIndex(line, i);
		for (const { segment } of graphemes.segment(line.slice(i, end))) {
			const w = segment === "\t" ? 3 : clusterWidth(segment);
			if (column >= col && column < col + w) return url;
			col += w;
		}
		i = end;
	}
	return undefined;
}
