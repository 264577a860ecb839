// Component themes built from pi's current theme: Markdown, select lists, settings lists and
// the editor, plus code highlighting and language detection by file name.
import { textStyles } from "./pi_coding_agent_styles.mjs";
import { theme } from "./pi_coding_agent_theme.mjs";

const fg = (token) => (text) => theme.fg(token, text);

/**
 * Code lines in the code-block colour. (pi colours known languages token by token with
 * highlight.js; pi-agent has no highlighter and uses the plain code-block colour for all.)
 */
export function highlightCode(code, _lang) {
	return code.split("\n").map((line) => theme.fg("mdCodeBlock", line));
}

const EXTENSION_LANGUAGES = {
	ts: "typescript", tsx: "typescript", js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
	py: "python", rb: "ruby", rs: "rust", go: "go", java: "java", kt: "kotlin", swift: "swift", c: "c", h: "c",
	cpp: "cpp", cc: "cpp", cxx: "cpp", hpp: "cpp", cs: "csharp", php: "php", sh: "bash", bash: "bash", zsh: "bash",
	fish: "fish", ps1: "powershell", sql: "sql", html: "html", htm: "html", css: "css", scss: "scss", sass: "sass",
	less: "less", json: "json", yaml: "yaml", yml: "yaml", toml: "toml", xml: "xml", md: "markdown", markdown: "markdown",
	dockerfile: "dockerfile", makefile: "makefile", cmake: "cmake", lua: "lua", perl: "perl", r: "r", scala: "scala",
	clj: "clojure", ex: "elixir", exs: "elixir", erl: "erlang", hs: "haskell", ml: "ocaml", vim: "vim",
	graphql: "graphql", proto: "protobuf", tf: "hcl", hcl: "hcl",
};

/** The highlighting language for a file name's extension, if known. */
export function getLanguageFromPath(filePath) {
	const ext = filePath.split(".").pop()?.toLowerCase();
	if (!ext) return undefined;
	return Object.hasOwn(EXTENSION_LANGUAGES, ext) ? EXTENSION_LANGUAGES[ext] : undefined;
}

export function getMarkdownTheme() {
	return {
		heading: fg("mdHeading"),
		link: fg("mdLink"),
		linkUrl: fg("mdLinkUrl"),
		code: fg("mdCode"),
		codeBlock: fg("mdCodeBlock"),
		codeBlockBorder: fg("mdCodeBlockBorder"),
		quote: fg("mdQuote"),
		quoteBorder: fg("mdQuoteBorder"),
		hr: fg("mdHr"),
		listBullet: fg("mdListBullet"),
		bold: (text) => theme.bold(text),
		italic: (text) => theme.italic(text),
		underline: (text) => theme.underline(text),
		strikethrough: (text) => textStyles.strikethrough(text),
		highlightCode: (code, lang) => highlightCode(code, lang),
	};
}

export function getSelectListTheme() {
	return { selectedPrefix: fg("accent"), selectedText: fg("accent"), description: fg("muted"), scrollInfo: fg("muted"), noMatch: fg("muted") };
}

export function getEditorTheme() {
	return { borderColor: fg("borderMuted"), selectList: getSelectListTheme() };
}

export function getSettingsListTheme() {
	return {
		label: (text, selected) => (selected ? theme.fg("accent", text) : text),
		value: (text, selected) => (selected ? theme.fg("accent", text) : theme.fg("muted", text)),
		description: fg("dim"),
		cursor: theme.fg("accent", "→ "),
		hint: fg("dim"),
	};
}
