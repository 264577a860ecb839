// Terminal cell widths: how many columns a string takes once escape sequences are dropped,
// wide (CJK, fullwidth) characters count two and combining marks count zero.
import { WIDE_RANGES } from "./pi_tui_wide_table.mjs";

// Made on first use: a segmenter and the Unicode property regexes below cost tens of
// milliseconds to build, which every extension importing pi-tui would pay at start-up.
function lazySegmenter(granularity) {
	let segmenter;
	return {
		segment(text) {
			segmenter ??= new Intl.Segmenter(undefined, { granularity });
			return segmenter.segment(text);
		},
	};
}

export const graphemes = lazySegmenter("grapheme");
export const words = lazySegmenter("word");

/** A regex built on first use. */
function lazy(build) {
	let regex;
	return () => (regex ??= build());
}

// Unicode-set regexes (flag v) exist from Node 20; Node 18 gets close /u equivalents.
function unicodeSetRegex(source, fallback) {
	try {
		return new RegExp(source, "v");
	} catch {
		return new RegExp(fallback, "u");
	}
}

const ZERO_WIDTH_RUN = lazy(() => /^(?:\p{Default_Ignorable_Code_Point}|\p{Control}|\p{Mark}|\p{Surrogate})+$/u);
const LEADING_INVISIBLE = lazy(() => /^[\p{Default_Ignorable_Code_Point}\p{Control}\p{Format}\p{Mark}\p{Surrogate}]+/u);
const INVISIBLE_CHAR = lazy(() => /^(?:\p{Default_Ignorable_Code_Point}|\p{Control}|\p{Format}|\p{Mark}|\p{Surrogate})$/u);
const MARK_CHAR = lazy(() => /^\p{Mark}$/u);
// Marks that terminals give a cell: spacing marks (but three that legacy wcwidth tables treat as
// zero width) plus some non-spacing marks those tables count as one.
const CELL_MARKS = lazy(() => /^(?:(?![\u1734\u302E\u302F])\p{Spacing_Mark}|[\u065F\u0F7F\u102B\u102C\u1031\u1033-\u1035\u1038\u103A-\u103E])+$/u);
const RGI_EMOJI = lazy(() =>
	unicodeSetRegex(
	"^\\p{RGI_Emoji}$",
	"^(?:\\p{Emoji_Presentation}|\\p{Extended_Pictographic}\\uFE0F)(?:[\\u{1F3FB}-\\u{1F3FF}]|\\u200D\\p{Extended_Pictographic}\\uFE0F?)*$|^[\\u{1F1E6}-\\u{1F1FF}]{2}$|^[#*0-9]\\uFE0F\\u20E3$",
),
);

/** East Asian width of one code point: 2 for Wide and Fullwidth, otherwise 1. */
export function eastAsianWidth(cp) {
	let lo = 0;
	let hi = WIDE_RANGES.length / 2 - 1;
	while (lo <= hi) {
		const mid = (lo + hi) >> 1;
		if (cp < WIDE_RANGES[mid * 2]) hi = mid - 1;
		else if (cp > WIDE_RANGES[mid * 2 + 1]) lo = mid + 1;
		else return 2;
	}
	return 1;
}

// Cheap pre-check before the emoji regex: pictograph blocks, VS16, or multi-code-unit clusters.
function mayBeEmoji(cluster) {
	const cp = cluster.codePointAt(0);
	return (
		(cp >= 0x1f000 && cp <= 0x1fbff) ||
		(cp >= 0x2300 && cp <= 0x23ff) ||
		(cp >= 0x2600 && cp <= 0x27bf) ||
		(cp >= 0x2b50 && cp <= 0x2b55) ||
		cluster.includes("\uFE0F") ||
		cluster.length > 2
	);
}

/** Cells taken by one grapheme cluster (a tab counts three). */
export function clusterWidth(cluster) {
	if (cluster === "\t") return 3;
	if (CELL_MARKS().test(cluster)) return [...cluster].length;
	if (ZERO_WIDTH_RUN().test(cluster)) return 0;
	if (mayBeEmoji(cluster) && RGI_EMOJI().test(cluster)) return 2;
	const visible = cluster.replace(LEADING_INVISIBLE(), "");
	const first = visible.codePointAt(0);
	if (first === undefined) return 0;
	// Lone regional indicators: terminals usually draw them wide.
	if (first >= 0x1f1e6 && first <= 0x1f1ff) return 2;
	let width = eastAsianWidth(first);
	// Later code points in the cluster that still take cells.
	let afterMark = false;
	for (const ch of [...visible].slice(1)) {
		if (CELL_MARKS().test(ch)) {
			width += 1;
			afterMark = false;
		} else if (MARK_CHAR().test(ch)) {
			afterMark = true;
		} else if (!INVISIBLE_CHAR().test(ch)) {
			const cp = ch.codePointAt(0);
			if (afterMark || (cp >= 0xff00 && cp <= 0xffef)) width += eastAsianWidth(cp);
			else if (cp === 0x0e33 || cp === 0x0eb3) width += 1;
			afterMark = false;
		}
	}
	return width;
}

export function isPlainAscii(str) {
	for (let i = 0; i < str.length; i++) {
		const c = str.charCodeAt(i);
		if (c < 0x20 || c > 0x7e) return false;
	}
	return true;
}

// Scan for the end of an escape sequence body ended by BEL or ST (ESC \).
function stringSequenceEnd(str, from) {
	for (let j = from; j < str.length; j++) {
		if (str[j] === "\x07") return j + 1;
		if (str[j] === "\x1b" && str[j + 1] === "\\") return j + 2;
	}
	return -1;
}

/**
 * The escape sequence starting at `pos`, if any: CSI ending in m/G/K/H/J, OSC or APC ended by
 * BEL or ST. Returns { code, length } or null.
 */
export function extractAnsiCode(str, pos) {
	if (pos >= str.length || str[pos] !== "\x1b") return null;
	const kind = str[pos + 1];
	let end = -1;
	if (kind === "[") {
		for (let j = pos + 2; j < str.length; j++) {
			const c = str[j];
			if (c === "m" || c === "G" || c === "K" || c === "H" || c === "J") {
				end = j + 1;
				break;
			}
		}
	} else if (kind === "]" || kind === "_") {
		end = stringSequenceEnd(str, pos + 2);
	}
	if (end < 0) return null;
	return { code: str.slice(pos, end), length: end - pos };
}

/** Index of the next escape sequence at or after `from` (or the string length). */
export function nextAnsiIndex(str, from) {
	let i = from;
	while (i < str.length && !extractAnsiCode(str, i)) i++;
	return i;
}

/** Remove ANSI, OSC and APC sequences, keeping the visible text. */
export function stripTerminalSequences(str) {
	if (!str.includes("\x1b")) return str;
	let out = "";
	let i = 0;
	while (i < str.length) {
		const seq = extractAnsiCode(str, i);
		if (seq) {
			i += seq.length;
		} else {
			out += str[i];
			i++;
		}
	}
	return out;
}

const widthCache = new Map();
const WIDTH_CACHE_LIMIT = 512;

/** Terminal columns taken by `str`. */
export function visibleWidth(str) {
	if (str.length === 0) return 0;
	if (isPlainAscii(str)) return str.length;
	const cached = widthCache.get(str);
	if (cached !== undefined) return cached;
	let clean = str.includes("\t") ? str.replace(/\t/g, "   ") : str;
	clean = stripTerminalSequences(clean);
	let width = 0;
	for (const { segment } of graphemes.segment(clean)) width += clusterWidth(segment);
	if (widthCache.size >= WIDTH_CACHE_LIMIT) widthCache.delete(widthCache.keys().next().value);
	widthCache.set(str, width);
	return width;
}
