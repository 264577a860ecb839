// Markdown syntax for math: $...$, \(...\) inline and $$...$$, \[...\] blocks, as lexer
// extensions. An unfinished expression while streaming is marked `pending`.

function isEscaped(source, index) {
	let slashes = 0;
	for (let i = index - 1; i >= 0 && source[i] === "\\"; i--) slashes++;
	return slashes % 2 === 1;
}

function findUnescaped(source, closing, from) {
	let at = source.indexOf(closing, from);
	while (at >= 0 && isEscaped(source, at)) at = source.indexOf(closing, at + closing.length);
	return at;
}

// An unclosed "$..." counts as math only if it looks like math.
const looksLikeMath = (source) => /\\[A-Za-z]+|[_^=+*/<>()[\]|±≤≥≠≈∈→⇒∞∫∑√-]/.test(source);

const INLINE_DELIMITERS = [
	["$$", "$$"],
	["\\(", "\\)"],
	["\\[", "\\]"],
];

function inlineLatex(source) {
	let pair = INLINE_DELIMITERS.find(([open]) => source.startsWith(open));
	if (!pair && source.startsWith("$") && !/^\$\s/.test(source)) pair = ["$", "$"];
	if (!pair) return undefined;
	const [open, close] = pair;
	const end = findUnescaped(source, close, open.length);
	if (end >= 0 && open === "$") {
		// Rule out prices and shell variables: "$5 and $10", "$HOME/$USER", "`$x`".
		const body = source.slice(open.length, end);
		const after = source.slice(end + 1);
		if (/\s$/.test(body) || /^\d/.test(after) || (/^[A-Z_][A-Z0-9_]*(?:[^A-Za-z0-9_\s])?$/.test(body) && /^[A-Za-z_][A-Za-z0-9_]*/.test(after)) || body.includes("`")) {
			return undefined;
		}
	}
	if (end < 0) {
		const pending = source.slice(open.length);
		if (open.startsWith("\\") || looksLikeMath(pending)) return { type: "latex", raw: source, text: pending, pending: true };
		return undefined;
	}
	const text = source.slice(open.length, end);
	if (!text || text.includes("\n")) return undefined;
	return { type: "latex", raw: source.slice(0, end + close.length), text };
}

function blockLatex(source) {
	const dollars = /^ {0,3}\$\$[ \t]*(?:\n)?([\s\S]*?)\$\$[ \t]*(?:\n|$)/.exec(source);
	if (dollars?.[1]) return { type: "latexBlock", raw: dollars[0], text: dollars[1].trim() };
	const brackets = /^ {0,3}\\\[[ \t]*(?:\n)?([\s\S]*?)\\\][ \t]*(?:\n|$)/.exec(source);
	if (brackets?.[1]) return { type: "latexBlock", raw: brackets[0], text: brackets[1].trim() };
	const openBracket = /^ {0,3}\\\[[ \t]*(?:\n)?([\s\S]*)$/.exec(source);
	if (openBracket) return { type: "latexBlock", raw: openBracket[0], text: openBracket[1], pending: true };
	const openDollars = /^ {0,3}\$\$[ \t]*(?:\n)?([\s\S]*)$/.exec(source);
	if (openDollars?.[1] && looksLikeMath(openDollars[1])) return { type: "latexBlock", raw: openDollars[0], text: openDollars[1], pending: true };
	return undefined;
}

/** Lexer extensions for math, in the shape pi_tui_md_lexer.mjs takes. */
export const LATEX_EXTENSIONS = {
	block: [{ tokenizer: blockLatex }],
	inline: [{ tokenizer: inlineLatex }],
	startBlock: [
		(source) => {
			const m = /(?:^|\n) {0,3}(?:\$\$|\\\[)/.exec(source);
			return m ? m.index + (m[0].startsWith("\n") ? 1 : 0) : undefined;
		},
	],
	startInline: [
		(source) => {
			const found = [source.indexOf("$"), source.indexOf("\\("), source.indexOf("\\[")].filter((i) => i >= 0);
			return found.length > 0 ? Math.min(...found) : undefined;
		},
	],
};
