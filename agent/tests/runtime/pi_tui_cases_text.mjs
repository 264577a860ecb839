// Text helper cases: widths, truncation, wrapping, slicing, fuzzy matching.
const red = (s) => `\x1b[31m${s}\x1b[39m`;
const bold = (s) => `\x1b[1m${s}\x1b[22m`;
const under = (s) => `\x1b[4m${s}\x1b[24m`;
const bg = (s) => `\x1b[44m${s}\x1b[49m`;
const link = (s, url = "https://example.com/x") => `\x1b]8;;${url}\x1b\\${s}\x1b]8;;\x1b\\`;
const linkBel = (s, url = "https://example.com/y") => `\x1b]8;;${url}\x07${s}\x1b]8;;\x07`;

export const SAMPLE_STRINGS = [
	"",
	"hello",
	"hello world, this is plain ascii",
	"日本語のテキスト",
	"mixed 日本 text",
	"😀",
	"👨‍👩‍👧 family",
	"🇺🇸 flag",
	"\u{1F1E6} lone indicator",
	"👍🏽 tone",
	"e\u0301 combining",
	"tab\there",
	"\t\tlead",
	red("red text"),
	`${bold("bold")} and ${under("underlined")} words`,
	link("a link"),
	linkBel("bel link"),
	"\x1b_pi:c\x07marker",
	"กำลัง Thai",
	"नमस्ते Devanagari",
	"ｶﾀｶﾅ halfwidth",
	"ＡＢＣ fullwidth",
	"zero\u200bwidth",
	"\u2764\uFE0F heart",
	"⚡ bolt",
	"\x01\x02 controls",
	"한국어 Hangul",
	"1\uFE0F\u20E3 keycap",
	"© ® ™",
	"☺ smile",
	"\u0915\u094D\u0937 conjunct",
	"Ω≈ç√∫",
	"a\x1b[38;5;208mcolour\x1b[0mb",
	"x\x1b[38;2;10;20;30mrgb\x1b[49m y",
	"\x1b[7minverse\x1b[27m",
	"🏳️‍🌈 rainbow",
	"\u0e33 lone am",
	"ﾞ sound mark",
	"\u302E hangul tone",
];

// Deterministic pseudo-random strings from tricky pieces (styles, links, wide, combining,
// emoji, tabs, spaces), for broad agreement checks.
const PIECES = ["a", "word", " ", "  ", "\t", "日", "本語", "😀", "👍🏽", "🇯🇵", "e\u0301", "\u200b", "x".repeat(12), "-", "/", "\x1b[31m", "\x1b[39m", "\x1b[1;4m", "\x1b[0m", "\x1b[48;5;22m", "\x1b]8;;http://a.b\x1b\\", "\x1b]8;;\x1b\\", "\x1b]8;;http://c.d\x07", "\x1b]8;;\x07", "\x1b_pi:c\x07", "ｶ", "ก", "ำ", "\n"];
export function fuzzStrings(count, seed = 7) {
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state;
	};
	return Array.from({ length: count }, () => Array.from({ length: 3 + (next() % 14) }, () => PIECES[next() % PIECES.length]).join(""));
}

export function textCases(tui) {
	const { visibleWidth, truncateToWidth, wrapTextWithAnsi, sliceByColumn, stripTerminalSequences, getOsc8LinkAtColumn, fuzzyMatch, fuzzyFilter } = tui;
	const cases = [];
	cases.push(["visibleWidth.samples", () => SAMPLE_STRINGS.map((s) => visibleWidth(s))]);
	cases.push(["stripTerminalSequences.samples", () => SAMPLE_STRINGS.map((s) => stripTerminalSequences(s))]);
	for (const width of [0, 1, 2, 3, 5, 8, 12, 40]) {
		cases.push([`truncateToWidth.default.${width}`, () => SAMPLE_STRINGS.map((s) => truncateToWidth(s, width))]);
	}
	for (const width of [1, 4, 7, 10]) {
		cases.push([`truncateToWidth.pad.${width}`, () => SAMPLE_STRINGS.map((s) => truncateToWidth(s, width, "...", true))]);
		cases.push([`truncateToWidth.noEllipsis.${width}`, () => SAMPLE_STRINGS.map((s) => truncateToWidth(s, width, ""))]);
		cases.push([`truncateToWidth.unicodeEllipsis.${width}`, () => SAMPLE_STRINGS.map((s) => truncateToWidth(s, width, "…", true))]);
		cases.push([`truncateToWidth.wideEllipsis.${width}`, () => SAMPLE_STRINGS.map((s) => truncateToWidth(s, width, red("〜〜")))]);
	}
	const wrapInputs = [
		...SAMPLE_STRINGS,
		"The quick brown fox jumps over the lazy dog and keeps running far away",
		"supercalifragilisticexpialidocious is long",
		red("a red sentence that should wrap across several lines nicely"),
		`${bg("background colour that spans")} lines`,
		under("underlined text that wraps onto the next line please"),
		link("a hyperlink whose text is long enough to wrap"),
		linkBel("bel terminated hyperlink text which wraps too"),
		"line one\nline two\r\nline three\rline four",
		`${red("red start\nstill red")} after`,
		"trailing spaces     \n   leading spaces",
		"日本語のテキストはとても長いのでここで折り返されるべきです",
		"mixed English 和 日本語 words together in one line",
		"word\twith\ttabs\tbetween",
		"averyveryverylongwordwithoutanyspacesatallthatmustbreak",
		`${bold("bold")}${red("red")}adjacent${under("under")}stuck`,
		"a b c d e f g h i j k l m n o p",
		"  ",
		"x".repeat(25),
		"emoji 😀😀😀😀😀😀😀😀😀😀 run",
		`\x1b[1;4;31mstacked\x1b[0m plain \x1b[38;5;100mpalette text that wraps\x1b[39m`,
	];
	for (const width of [1, 3, 5, 10, 16, 24, 80]) {
		cases.push([`wrapTextWithAnsi.${width}`, () => wrapInputs.map((s) => wrapTextWithAnsi(s, width))]);
	}
	const sliceInputs = [...SAMPLE_STRINGS.slice(1), "abcdefghij", red("0123456789")];
	for (const [start, len, strict] of [
		[0, 3, false],
		[1, 4, false],
		[2, 5, true],
		[4, 10, false],
		[3, 2, true],
		[0, 0, false],
	]) {
		cases.push([`sliceByColumn.${start}.${len}.${strict}`, () => sliceInputs.map((s) => sliceByColumn(s, start, len, strict))]);
	}
	cases.push([
		"getOsc8LinkAtColumn",
		() => {
			const line = `pre ${link("link one")} mid ${linkBel("two", "https://b.example")} end`;
			return Array.from({ length: 30 }, (_, col) => getOsc8LinkAtColumn(line, col) ?? null);
		},
	]);
	const fuzz = fuzzStrings(300);
	cases.push(["fuzz.visibleWidth", () => fuzz.map((f) => visibleWidth(f))]);
	for (const width of [1, 4, 9, 20]) {
		cases.push([`fuzz.truncateToWidth.${width}`, () => fuzz.map((f) => [truncateToWidth(f, width), truncateToWidth(f, width, "…", true)])]);
		cases.push([`fuzz.wrapTextWithAnsi.${width}`, () => fuzz.map((f) => wrapTextWithAnsi(f, width))]);
	}
	cases.push(["fuzz.sliceByColumn", () => fuzz.map((f, i) => sliceByColumn(f, i % 5, 1 + (i % 7), i % 2 === 0))]);
	cases.push(["fuzz.Text", () => fuzz.slice(0, 80).map((f, i) => new tui.Text(f, i % 3, i % 2).render(5 + (i % 17)))]);
	cases.push(["fuzz.TruncatedText", () => fuzz.slice(0, 80).map((f, i) => new tui.TruncatedText(f, i % 3, 0).render(3 + (i % 13)))]);
	const fuzzyPairs = [
		["", "anything"],
		["abc", "abc"],
		["abc", "a-b-c"],
		["ab", "xaxb"],
		["mdl", "model"],
		["gpt4", "gpt-4o"],
		["4gpt", "gpt-4o"],
		["son45", "claude-sonnet-4-5"],
		["45son", "claude-sonnet-4-5"],
		["zzz", "abc"],
		["ABC", "xabcx"],
		["toolong", "short"],
		["src/ma", "src/main.rs"],
		["readme", "README.md"],
		["a", "banana"],
	];
	cases.push(["fuzzyMatch", () => fuzzyPairs.map(([q, t]) => fuzzyMatch(q, t))]);
	const items = ["claude-sonnet-4-5", "claude-opus-4", "gpt-4o", "gpt-4o-mini", "gemini-2.5-pro", "o3", "src/main.rs", "src/lib/mod.rs", "README.md"];
	for (const query of ["", "  ", "gpt", "4o", "son 45", "src/rs", "o", "claude opus", "xyz", "g p"]) {
		cases.push([`fuzzyFilter.${JSON.stringify(query)}`, () => fuzzyFilter(items, query, (s) => s)]);
	}
	return cases;
}
