// Inline Markdown tokens (emphasis, code spans, links, ...), as `marked` produces them: each
// tokenizer takes the remaining source and returns a token or undefined.
import { inline as R, STRICT_DEL } from "./pi_tui_md_rules.mjs";

const UNICODE_ALNUM = /[\p{L}\p{N}]/u;

/** `text` without trailing `ch` characters. */
export function trimEndChar(text, ch) {
	let end = text.length;
	while (end > 0 && text[end - 1] === ch) end--;
	return text.slice(0, end);
}

// Index of the bracket closing the first unmatched opener, -1 if none, -2 if unbalanced.
function closingBracket(text, [open, close]) {
	if (text.indexOf(close) === -1) return -1;
	let depth = 0;
	for (let i = 0; i < text.length; i++) {
		if (text[i] === "\\") i++;
		else if (text[i] === open) depth++;
		else if (text[i] === close && --depth < 0) return i;
	}
	return depth > 0 ? -2 : -1;
}

const unescapePunctuation = (text) => text && text.replace(R.anyPunctuation, "$1");

export class InlineTokenizer {
	constructor(lexer) {
		this.lexer = lexer;
	}

	get strictDel() {
		return this.lexer.options.strictDel;
	}

	escape(src) {
		const cap = R.escape.exec(src);
		if (cap) return { type: "escape", raw: cap[0], text: cap[1] };
	}

	tag(src) {
		const cap = R.tag.exec(src);
		if (!cap) return;
		const state = this.lexer.state;
		if (!state.inLink && /^<a /i.test(cap[0])) state.inLink = true;
		else if (state.inLink && /^<\/a>/i.test(cap[0])) state.inLink = false;
		if (!state.inRawBlock && /^<(pre|code|kbd|script)(\s|>)/i.test(cap[0])) state.inRawBlock = true;
		else if (state.inRawBlock && /^<\/(pre|code|kbd|script)(\s|>)/i.test(cap[0])) state.inRawBlock = false;
		return { type: "html", raw: cap[0], inLink: state.inLink, inRawBlock: state.inRawBlock, block: false, text: cap[0] };
	}

	linkToken(cap, { href, title }, raw) {
		const text = cap[1].replace(/\\([[\]])/g, "$1");
		this.lexer.state.inLink = true;
		const token = { type: cap[0].charAt(0) === "!" ? "image" : "link", raw, href, title: title || null, text, tokens: this.lexer.inlineTokens(text) };
		this.lexer.state.inLink = false;
		return token;
	}

	link(src) {
		const cap = R.link.exec(src);
		if (!cap) return;
		const url = cap[2].trim();
		if (url.startsWith("<")) {
			// <destination>: must close, and not with an escaped ">".
			if (!url.endsWith(">")) return;
			const inner = trimEndChar(url.slice(0, -1), "\\");
			if ((url.length - inner.length) % 2 === 0) return;
		} else {
			// An unbalanced ")" ends the destination early.
			const paren = closingBracket(cap[2], "()");
			if (paren === -2) return;
			if (paren > -1) {
				const length = (cap[0].indexOf("!") === 0 ? 5 : 4) + cap[1].length + paren;
				cap[2] = cap[2].substring(0, paren);
				cap[0] = cap[0].substring(0, length).trim();
				cap[3] = "";
			}
		}
		let href = cap[2].trim();
		const title = cap[3] ? cap[3].slice(1, -1) : "";
		if (href.startsWith("<")) href = href.slice(1, -1);
		return this.linkToken(cap, { href: unescapePunctuation(href), title: unescapePunctuation(title) }, cap[0]);
	}

	reflink(src, links) {
		const cap = R.reflink.exec(src) ?? R.nolink.exec(src);
		if (!cap) return;
		const id = (cap[2] || cap[1]).replace(/\s+/g, " ");
		const target = links[id.toLowerCase()];
		if (!target) {
			const ch = cap[0].charAt(0);
			return { type: "text", raw: ch, text: ch };
		}
		return this.linkToken(cap, target, cap[0]);
	}

	// Emphasis by delimiter runs: find the closing run in the masked source (code spans,
	// links and escapes blanked out) that balances the opening run.
	emStrong(src, masked, prevChar = "") {
		let m = R.emStrongLDelim.exec(src);
		if (!m || (!m[1] && !m[2] && !m[3] && !m[4])) return;
		if (m[4] && UNICODE_ALNUM.test(prevChar)) return; // no intraword "_"
		const next = m[1] || m[3] || "";
		if (next && prevChar && !R.punctuation.exec(prevChar)) return;
		const openLength = [...m[0]].length - 1;
		let open = openLength;
		let middle = 0;
		const closer = m[0][0] === "*" ? R.emStrongRDelimAst : R.emStrongRDelimUnd;
		closer.lastIndex = 0;
		const rest = masked.slice(-1 * src.length + openLength);
		while ((m = closer.exec(rest)) !== null) {
			const run = m[1] || m[2] || m[3] || m[4] || m[5] || m[6];
			if (!run) continue;
			let length = [...run].length;
			if (m[3] || m[4]) {
				open += length; // left-flanking only: opens more
				continue;
			}
			if ((m[5] || m[6]) && openLength % 3 && !((openLength + length) % 3)) {
				middle += length; // rule of three
				continue;
			}
			open -= length;
			if (open > 0) continue;
			length = Math.min(length, length + open + middle);
			const first = [...m[0]][0].length;
			const raw = src.slice(0, openLength + m.index + first + length);
			if (Math.min(openLength, length) % 2) {
				const text = raw.slice(1, -1);
				return { type: "em", raw, text, tokens: this.lexer.inlineTokens(text) };
			}
			const text = raw.slice(2, -2);
			return { type: "strong", raw, text, tokens: this.lexer.inlineTokens(text) };
		}
	}

	codespan(src) {
		const cap = R.code.exec(src);
		if (!cap) return;
		let text = cap[2].replace(/\n/g, " ");
		if (/[^ ]/.test(text) && text.startsWith(" ") && text.endsWith(" ")) text = text.substring(1, text.length - 1);
		return { type: "codespan", raw: cap[0], text };
	}

	br(src) {
		const cap = R.br.exec(src);
		if (cap) return { type: "br", raw: cap[0] };
	}

	del(src, masked, prevChar = "") {
		if (this.strictDel) {
			const cap = STRICT_DEL.exec(src);
			if (!cap) return;
			return { type: "del", raw: cap[0], text: cap[2], tokens: this.lexer.inlineTokens(cap[2]) };
		}
		let m = R.delLDelim.exec(src);
		if (!m) return;
		if ((m[1] || "") && prevChar && !R.punctuation.exec(prevChar)) return;
		const openLength = [...m[0]].length - 1;
		let open = openLength;
		const closer = R.delRDelim;
		closer.lastIndex = 0;
		const rest = masked.slice(-1 * src.length + openLength);
		while ((m = closer.exec(rest)) !== null) {
			const run = m[1] || m[2] || m[3] || m[4] || m[5] || m[6];
			if (!run) continue;
			let length = [...run].length;
			if (length !== openLength) continue;
			if (m[3] || m[4]) {
				open += length;
				continue;
			}
			open -= length;
			if (open > 0) continue;
			length = Math.min(length, length + open);
			const raw = src.slice(0, openLength + m.index + [...m[0]][0].length + length);
			const text = raw.slice(openLength, -openLength);
			return { type: "del", raw, text, tokens: this.lexer.inlineTokens(text) };
		}
	}

	autolink(src) {
		const cap = R.autolink.exec(src);
		if (!cap) return;
		const text = cap[1];
		const href = cap[2] === "@" ? `mailto:${text}` : text;
		return { type: "link", raw: cap[0], text, href, tokens: [{ type: "text", raw: text, text }] };
	}

	url(src) {
		const cap = R.url.exec(src);
		if (!cap) return;
		let href;
		if (cap[2] === "@") {
			href = `mailto:${cap[0]}`;
		} else {
			// Drop trailing punctuation that is not part of the URL.
			let before;
			do {
				before = cap[0];
				cap[0] = R.backpedal.exec(cap[0])?.[0] ?? "";
			} while (before !== cap[0]);
			href = cap[1] === "www." ? `http://${cap[0]}` : cap[0];
		}
		const text = cap[0];
		return { type: "link", raw: cap[0], text, href, tokens: [{ type: "text", raw: text, text }] };
	}

	inlineText(src) {
		const cap = R.text.exec(src);
		if (cap) return { type: "text", raw: cap[0], text: cap[0], escaped: this.lexer.state.inRawBlock };
	}
}

// Blank out what emphasis must not see: known reference links, escaped punctuation, links,
// code spans and HTML tags (same length, so positions still line up).
export function maskForEmphasis(src, links) {
	let masked = src;
	let m;
	const ids = Object.keys(links);
	if (ids.length > 0) {
		while ((m = R.reflinkSearch.exec(masked)) !== null) {
			if (ids.includes(m[0].slice(m[0].lastIndexOf("[") + 1, -1))) {
				masked = `${masked.slice(0, m.index)}[${"a".repeat(m[0].length - 2)}]${masked.slice(R.reflinkSearch.lastIndex)}`;
			}
		}
	}
	while ((m = R.anyPunctuation.exec(masked)) !== null) {
		masked = `${masked.slice(0, m.index)}++${masked.slice(R.anyPunctuation.lastIndex)}`;
	}
	while ((m = R.blockSkip.exec(masked)) !== null) {
		const keep = m[2] ? m[2].length : 0;
		masked = `${masked.slice(0, m.index + keep)}[${"a".repeat(m[0].length - keep - 2)}]${masked.slice(R.blockSkip.lastIndex)}`;
	}
	return masked;
}
