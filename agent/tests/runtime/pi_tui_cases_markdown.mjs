// Markdown component and Marked cases.
import { createHash } from "node:crypto";
import { CORPUS, MATH_CORPUS } from "./pi_tui_md_corpus.mjs";

const sgr = (open, close) => (s) => `\x1b[${open}m${s}\x1b[${close}m`;
export const markdownTheme = {
	heading: sgr("33", "39"),
	link: sgr("34", "39"),
	linkUrl: sgr("2", "22"),
	code: sgr("36", "39"),
	codeBlock: sgr("32", "39"),
	codeBlockBorder: sgr("90", "39"),
	quote: sgr("35", "39"),
	quoteBorder: sgr("90", "39"),
	hr: sgr("90", "39"),
	listBullet: sgr("96", "39"),
	bold: sgr("1", "22"),
	italic: sgr("3", "23"),
	strikethrough: sgr("9", "29"),
	underline: sgr("4", "24"),
};
const highlightTheme = { ...markdownTheme, highlightCode: (code, lang) => code.split("\n").map((l) => `<${lang ?? "-"}>${l}`), codeBlockIndent: "| " };

// Deterministic pseudo-random Markdown from syntax pieces, to shake out lexer differences.
const MD_PIECES = ["word", " ", "two words", "*", "**", "_", "__", "`", "``", "~", "~~", "[", "]", "](http://x.y)", "(", ")", "<", ">", "<b>", "</b>", "\\", "!", "#", "\n", "\n\n", "# ", "## ", "- ", "* ", "1. ", "2) ", "> ", "    ", "\t", "|", "| a | b |\n|---|---|\n", "```", "```js\n", "~~~", "---", "===", "$", "$x^2$", "\\(a\\)", "https://u.rl/p", "www.site.com", "a@b.co", "&amp;", "日本", "😀", "[r]: http://r\n", "[r]"];
export function fuzzMarkdown(count, seed = 11) {
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state;
	};
	return Array.from({ length: count }, () => Array.from({ length: 4 + (next() % 24) }, () => MD_PIECES[next() % MD_PIECES.length]).join(""));
}

export function markdownCases(tui) {
	const { Markdown, Marked } = tui;
	const cases = [];
	const withLinks = (hyperlinks, fn) => () => {
		tui.setCapabilities({ images: null, trueColor: false, hyperlinks });
		try {
			return fn();
		} finally {
			tui.resetCapabilitiesCache();
		}
	};
	const renderAll = (make, widths) => CORPUS.map((src) => Object.fromEntries(widths.map((w) => [w, make(src).render(w)])));
	cases.push(["Markdown.corpus", withLinks(false, () => renderAll((s) => new Markdown(s, 1, 0, markdownTheme), [12, 40, 100]))]);
	cases.push(["Markdown.corpus.hyperlinks", withLinks(true, () => renderAll((s) => new Markdown(s, 0, 1, markdownTheme), [30, 80]))]);
	cases.push(["Markdown.corpus.highlight", withLinks(false, () => renderAll((s) => new Markdown(s, 2, 0, highlightTheme), [50]))]);
	const defaultStyle = { color: sgr("37", "39"), bgColor: sgr("48;5;236", "49"), bold: true, italic: true, strikethrough: false, underline: true };
	cases.push(["Markdown.corpus.defaultStyle", withLinks(false, () => renderAll((s) => new Markdown(s, 1, 1, markdownTheme, defaultStyle), [36]))]);
	cases.push([
		"Markdown.options",
		withLinks(false, () => {
			const src = "3) three\n4) four\n\n* star\n+ plus\n\nEscaped \\*stars\\* and \\_under\\_";
			return [
				new Markdown(src, 0, 0, markdownTheme, undefined, { preserveOrderedListMarkers: true, preserveBackslashEscapes: true }).render(40),
				new Markdown(src, 0, 0, markdownTheme, undefined, { transform: (md, w) => `${md}\n\nwidth ${w}` }).render(30),
				new Markdown("plain text", 0, 0, markdownTheme, { color: sgr("31", "39") }).render(20),
			];
		}),
	]);
	cases.push([
		"Markdown.math",
		withLinks(false, () => MATH_CORPUS.map((s) => [new Markdown(s, 0, 0, markdownTheme).render(60), new Markdown(s, 0, 0, markdownTheme, undefined, { renderLatex: false }).render(60)])),
	]);
	cases.push([
		"Markdown.streaming",
		withLinks(false, () => {
			const full = "# Title\n\nSome **bold** text and a list:\n\n- one\n- two\n\n```py\nprint('hi')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
			const md = new Markdown("", 1, 0, markdownTheme);
			const frames = [];
			for (let i = 0; i <= full.length; i += 7) {
				md.setText(full.slice(0, i));
				frames.push(md.render(40));
			}
			return frames;
		}),
	]);
	cases.push([
		"Markdown.cache.empty",
		() => {
			const md = new Markdown("[ref]: https://only.a.definition", 0, 0, markdownTheme);
			const empty = new Markdown("   ", 1, 1, markdownTheme);
			return [md.render(20), md.render(20), empty.render(10), new Markdown("x", 0, 0, markdownTheme).render(1)];
		},
	]);
	const fuzz = fuzzMarkdown(400);
	cases.push(["fuzz.Markdown", withLinks(false, () => fuzz.map((src, i) => new Markdown(src, i % 2, 0, markdownTheme).render(20 + (i % 40))))]);
	// Token trees as digests (the full trees would make the golden file large).
	cases.push(["fuzz.Marked.lexer", () => fuzz.map((src) => createHash("sha1").update(JSON.stringify(new Marked().lexer(src))).digest("hex"))]);
	cases.push(["Marked.lexer", () => CORPUS.map((s) => JSON.parse(JSON.stringify(new Marked().lexer(s))))]);
	cases.push(["Marked.parse", () => CORPUS.map((s) => new Marked().parse(s))]);
	cases.push(["Marked.parseInline", () => ["*em* **strong** `code` [l](u)", "a <b>tag</b> & ~~del~~"].map((s) => new Marked().parseInline(s))]);
	cases.push([
		"Marked.use",
		() => {
			const m = new Marked();
			const seen = [];
			m.use({
				extensions: [
					{
						name: "mention",
						level: "inline",
						start: (src) => src.indexOf("@"),
						tokenizer: (src) => {
							const match = /^@(\w+)/.exec(src);
							return match ? { type: "mention", raw: match[0], text: match[1] } : undefined;
						},
						renderer: (token) => `<u>${token.text}</u>`,
					},
				],
				walkTokens: (token) => {
					seen.push(token.type);
				},
			});
			return [m.parse("hi @bob and @alice!"), seen];
		},
	]);
	return cases;
}
