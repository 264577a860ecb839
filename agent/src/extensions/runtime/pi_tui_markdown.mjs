// Markdown component: parses with the Markdown lexer and draws headings, lists, quotes, code
// blocks, tables and inline styles through a MarkdownTheme, wrapped to the width.
import { applyBackgroundToLine, wrapTextWithAnsi } from "./pi_tui_ansi.mjs";
import { renderMarkdownTable } from "./pi_tui_md_table.mjs";
import { getCapabilities, hyperlink, isImageLine } from "./pi_tui_image.mjs";
import { renderLatex } from "./pi_tui_latex.mjs";
import { LATEX_EXTENSIONS } from "./pi_tui_md_latex_syntax.mjs";
import { Lexer } from "./pi_tui_md_lexer.mjs";
import { visibleWidth } from "./pi_tui_width.mjs";

export { Marked } from "./pi_tui_marked.mjs";

// While streaming, a closing fence may arrive a character at a time: a last line that is a
// partial fence is not shown as code.
function trimPartialClosingFence(tokens) {
	const token = tokens[tokens.length - 1];
	if (token?.type === "list") return trimPartialClosingFence(token.items[token.items.length - 1]?.tokens ?? []);
	if (token?.type === "blockquote") return trimPartialClosingFence(token.tokens ?? []);
	if (token?.type !== "code") return;
	const marker = /^(`{3,}|~{3,})/.exec(token.raw)?.[1];
	const lastLine = token.raw.split("\n").pop();
	if (!marker || !lastLine || lastLine.length >= marker.length || lastLine !== marker[0]?.repeat(lastLine.length)) return;
	token.text = token.text.slice(0, -lastLine.length).replace(/\n$/, "");
}

const SENTINEL = "\u0000";
// The escape codes a style function puts before its text.
const prefixOf = (style) => {
	const styled = style(SENTINEL);
	const at = styled.indexOf(SENTINEL);
	return at >= 0 ? styled.slice(0, at) : "";
};

export class Markdown {
	constructor(text, paddingX, paddingY, theme, defaultTextStyle, options) {
		this.text = text;
		this.paddingX = paddingX;
		this.paddingY = paddingY;
		this.theme = theme;
		this.defaultTextStyle = defaultTextStyle;
		this.options = options ? { ...options } : {};
	}

	setText(text) {
		this.text = text;
		this.invalidate();
	}

	invalidate() {
		this.cachedText = undefined;
		this.cachedWidth = undefined;
		this.cachedLines = undefined;
	}

	render(width) {
		if (this.cachedLines && this.cachedText === this.text && this.cachedWidth === width) return this.cachedLines;
		const contentWidth = Math.max(1, width - this.paddingX * 2);
		const source = this.options.transform?.(this.text, contentWidth) ?? this.text;
		let result = [];
		let shown = result;
		if (source && source.trim() !== "") {
			const tokens = new Lexer({ strictDel: true, extensions: LATEX_EXTENSIONS }).lex(source.replace(/\t/g, "   "));
			trimPartialClosingFence(tokens);
			const rendered = [];
			tokens.forEach((token, i) => rendered.push(...this.renderToken(token, contentWidth, tokens[i + 1]?.type)));
			const wrapped = [];
			for (const line of rendered) {
				if (isImageLine(line)) wrapped.push(line);
				else wrapped.push(...wrapTextWithAnsi(line, contentWidth));
			}
			const margin = " ".repeat(this.paddingX);
			const bgFn = this.defaultTextStyle?.bgColor;
			const body = wrapped.map((line) => {
				if (isImageLine(line)) return line;
				const framed = margin + line + margin;
				return bgFn ? applyBackgroundToLine(framed, width, bgFn) : framed + " ".repeat(Math.max(0, width - visibleWidth(framed)));
			});
			const blank = bgFn ? applyBackgroundToLine(" ".repeat(width), width, bgFn) : " ".repeat(width);
			const vertical = Array(this.paddingY).fill(blank);
			result = [...vertical, ...body, ...vertical];
			// As in pi: an empty result shows as one blank line, but is cached as no lines.
			shown = result.length > 0 ? result : [""];
		}
		this.cachedText = this.text;
		this.cachedWidth = width;
		this.cachedLines = result;
		return shown;
	}

	// The default text style (colour and decorations; the background is added per line).
	applyDefaultStyle(text) {
		const style = this.defaultTextStyle;
		if (!style) return text;
		let out = text;
		if (style.color) out = style.color(out);
		if (style.bold) out = this.theme.bold(out);
		if (style.italic) out = this.theme.italic(out);
		if (style.strikethrough) out = this.theme.strikethrough(out);
		if (style.underline) out = this.theme.underline(out);
		return out;
	}

	getDefaultStylePrefix() {
		if (!this.defaultTextStyle) return "";
		if (this.defaultStylePrefix === undefined) this.defaultStylePrefix = prefixOf((s) => this.applyDefaultStyle(s));
		return this.defaultStylePrefix;
	}

	defaultContext() {
		return { applyText: (text) => this.applyDefaultStyle(text), stylePrefix: this.getDefaultStylePrefix() };
	}

	// Blank line after a block unless the next token is itself a blank line (or there is none).
	spacingAfter(lines, nextType) {
		if (nextType && nextType !== "space") lines.push("");
	}

	renderToken(token, width, nextType, context) {
		const lines = [];
		const theme = this.theme;
		switch (token.type) {
			case "heading": {
				const style = token.depth === 1 ? (t) => theme.heading(theme.bold(theme.underline(t))) : (t) => theme.heading(theme.bold(t));
				const text = this.renderInline(token.tokens || [], { applyText: style, stylePrefix: prefixOf(style) });
				lines.push(token.depth >= 3 ? style(`${"#".repeat(token.depth)} `) + text : text);
				this.spacingAfter(lines, nextType);
				break;
			}
			case "paragraph":
				lines.push(this.renderInline(token.tokens || [], context));
				if (nextType && nextType !== "list" && nextType !== "space") lines.push("");
				break;
			case "text":
				lines.push(this.renderInline([token], context));
				break;
			case "latexBlock": {
				const shown = !token.pending && this.options.renderLatex !== false ? (renderLatex(token.text, { display: true }) ?? token.raw.trim()) : token.raw.trim();
				for (const line of shown.split("\n")) lines.push(this.applyDefaultStyle(line));
				this.spacingAfter(lines, nextType);
				break;
			}
			case "code": {
				const indent = theme.codeBlockIndent ?? "  ";
				lines.push(theme.codeBlockBorder(`\`\`\`${token.lang || ""}`));
				if (theme.highlightCode) for (const line of theme.highlightCode(token.text, token.lang)) lines.push(`${indent}${line}`);
				else for (const line of token.text.split("\n")) lines.push(`${indent}${theme.codeBlock(line)}`);
				lines.push(theme.codeBlockBorder("```"));
				this.spacingAfter(lines, nextType);
				break;
			}
			case "list":
				lines.push(...this.renderList(token, 0, width, context));
				break;
			case "table":
				lines.push(...renderMarkdownTable(this, token, width, nextType, context));
				break;
			case "blockquote":
				lines.push(...this.renderQuote(token, width));
				this.spacingAfter(lines, nextType);
				break;
			case "hr":
				lines.push(theme.hr("─".repeat(Math.min(width, 80))));
				this.spacingAfter(lines, nextType);
				break;
			case "html":
				if (typeof token.raw === "string") lines.push(this.applyDefaultStyle(token.raw.trim()));
				break;
			case "space":
				lines.push("");
				break;
			default:
				if (typeof token.text === "string") lines.push(token.text);
		}
		return lines;
	}

	renderQuote(token, width) {
		const theme = this.theme;
		const style = (t) => theme.quote(theme.italic(t));
		const stylePrefix = prefixOf(style);
		// Restore the quote style after inline resets inside the line.
		const applyQuote = (line) => style(stylePrefix ? line.replace(/\x1b\[0m/g, `\x1b[0m${stylePrefix}`) : line);
		const innerWidth = Math.max(1, width - 2);
		// Quote children are blocks; the default message style does not apply inside.
		const context = { applyText: (t) => t, stylePrefix };
		const children = token.tokens || [];
		const inner = [];
		children.forEach((child, i) => inner.push(...this.renderToken(child, innerWidth, children[i + 1]?.type, context)));
		while (inner.length > 0 && inner[inner.length - 1] === "") inner.pop();
		const lines = [];
		for (const line of inner) {
			for (const wrapped of wrapTextWithAnsi(applyQuote(line), innerWidth)) lines.push(theme.quoteBorder("│ ") + wrapped);
		}
		return lines;
	}

	renderInline(tokens, context) {
		const { applyText, stylePrefix } = context ?? this.defaultContext();
		const ctx = { applyText, stylePrefix };
		const theme = this.theme;
		const plain = (text) =>
			text
				.split("\n")
				.map((segment) => applyText(segment))
				.join("\n");
		let out = "";
		for (const token of tokens) {
			switch (token.type) {
				case "latex": {
					const shown = !token.pending && this.options.renderLatex !== false ? (renderLatex(token.text) ?? token.raw) : token.raw;
					out += plain(shown);
					break;
				}
				case "escape":
					out += plain(this.options.preserveBackslashEscapes ? token.raw : token.text);
					break;
				case "text":
					out += token.tokens && token.tokens.length > 0 ? this.renderInline(token.tokens, ctx) : plain(token.text);
					break;
				case "paragraph":
					out += this.renderInline(token.tokens || [], ctx);
					break;
				case "strong":
					out += theme.bold(this.renderInline(token.tokens || [], ctx)) + stylePrefix;
					break;
				case "em":
					out += theme.italic(this.renderInline(token.tokens || [], ctx)) + stylePrefix;
					break;
				case "codespan":
					out += theme.code(token.text) + stylePrefix;
					break;
				case "link": {
					const styled = theme.link(theme.underline(this.renderInline(token.tokens || [], ctx)));
					if (getCapabilities().hyperlinks) {
						out += hyperlink(styled, token.href) + stylePrefix;
					} else {
						// Without OSC 8, show the URL unless it is the text (or its mailto: form).
						const bare = token.href.startsWith("mailto:") ? token.href.slice(7) : token.href;
						out += token.text === token.href || token.text === bare ? styled + stylePrefix : styled + theme.linkUrl(` (${token.href})`) + stylePrefix;
					}
					break;
				}
				case "br":
					out += "\n";
					break;
				case "del":
					out += theme.strikethrough(this.renderInline(token.tokens || [], ctx)) + stylePrefix;
					break;
				case "html":
					if (typeof token.raw === "string") out += plain(token.raw);
					break;
				default:
					if (typeof token.text === "string") out += plain(token.text);
			}
		}
		while (stylePrefix && out.endsWith(stylePrefix)) out = out.slice(0, -stylePrefix.length);
		return out;
	}

	listMarker(list, item, index) {
		const start = typeof list.start === "number" ? list.start : 1;
		const keep = this.options.preserveOrderedListMarkers;
		if (list.ordered) {
			const source = keep ? /^(?: {0,3})(\d{1,9}[.)])[ \t]+/.exec(item.raw) : null;
			return source ? `${source[1]} ` : `${start + index}. `;
		}
		const source = keep ? /^(?: {0,3})([-+*])(?:[ \t]+|(?=\r?\n|$))/.exec(item.raw) : null;
		return source ? `${source[1]} ` : "- ";
	}

	renderList(list, depth, width, context) {
		const lines = [];
		const indent = "    ".repeat(depth);
		list.items.forEach((item, i) => {
			const marker = this.listMarker(list, item, i) + (item.task ? `[${item.checked ? "x" : " "}] ` : "");
			const firstPrefix = indent + this.theme.listBullet(marker);
			const restPrefix = indent + " ".repeat(visibleWidth(marker));
			const itemWidth = Math.max(1, width - visibleWidth(firstPrefix));
			let started = false;
			for (const child of item.tokens) {
				if (child.type === "list") {
					lines.push(...this.renderList(child, depth + 1, width, context));
					started = true;
					continue;
				}
				for (const line of this.renderToken(child, itemWidth, undefined, context)) {
					for (const wrapped of wrapTextWithAnsi(line, itemWidth)) {
						lines.push((started ? restPrefix : firstPrefix) + wrapped);
						started = true;
					}
				}
			}
			if (!started) lines.push(firstPrefix);
			if (list.loose && i !== list.items.length - 1) lines.push("");
		});
		return lines;
	}
}
