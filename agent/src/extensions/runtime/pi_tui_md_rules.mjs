// The Markdown grammar pi's renderer uses (CommonMark with GitHub extensions, as the `marked`
// parser reads it): block and inline patterns. Built from named pieces so each can be read.

const S = (r) => (typeof r === "string" ? r : r.source);
const rx = (parts, flags = "") => new RegExp(parts.map(S).join(""), flags);

// ---- Block level -------------------------------------------------------------------------

const HTML_BLOCK_TAGS =
	"address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|" +
	"fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|" +
	"menuitem|meta|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul";

const HR_BODY = String.raw` {0,3}((?:-[\t ]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})(?:\n+|$)`;
const BULLET = String.raw` {0,3}(?:[*+-]|\d{1,9}[.)])`;

// Lines that end a paragraph (it cannot continue into them).
const HEADING_START = String.raw` {0,3}#{1,6}(?:\s|$)`;
const QUOTE_START = " {0,3}>";
const FENCE_START = String.raw` {0,3}(?:\`{3,}(?=[^\`\n]*\n)|~{3,})[^\n]*\n`;
const LIST_START = String.raw` {0,3}(?:[*+-]|1[.)])[ \t]+[^ \t\n]`;
const HTML_START = String.raw`<\/?(?:${HTML_BLOCK_TAGS})(?: +|\n|\/?>)|<(?:script|pre|style|textarea|!--)`;

// GFM table: header row, delimiter row, then body rows until a line that starts a block.
const TABLE_BODY =
	String.raw` *([^\n ].*)\n {0,3}((?:\| *)?:?-+:? *(?:\| *:?-+:? *)*(?:\| *)?)(?:\n((?:(?! *\n|` +
	[HR_BODY, HEADING_START, QUOTE_START, String.raw`(?: {4}| {0,3}\t)[^\n]`, FENCE_START, String.raw` {0,3}(?:[*+-]|1[.)])[ \t]`, HTML_START].join("|") +
	String.raw`).*(?:\n|$))*)\n*|$)`;

const paragraphBody = (withTable) =>
	String.raw`([^\n]+(?:\n(?!` +
	[HR_BODY, HEADING_START, QUOTE_START, FENCE_START, LIST_START, HTML_START, ...(withTable ? [TABLE_BODY] : []), " +\\n"].join("|") +
	String.raw`)[^\n]+)*)`;

// Setext heading: lines that do not start another block, then === or --- underneath.
const NOT_SETEXT_START = [
	`${BULLET} `,
	String.raw`(?: {4}| {0,3}\t)`,
	String.raw` {0,3}(?:\`{3,}|~{3,})`,
	" {0,3}>",
	" {0,3}#{1,6}",
	String.raw` {0,3}<[^\n>]+>\n`,
	String.raw` {0,3}\|?(?:[:\- ]*\|)+[\:\- ]*\n`,
].join("|");

const HTML_COMMENT = String.raw`<!--(?:-?>|[\s\S]*?(?:-->|$))`;
const HTML_ATTRIBUTE = String.raw` +[a-zA-Z:_][\w.:-]*(?: *= *"[^"\n]*"| *= *'[^'\n]*'| *= *[^\s"'=<>\`]+)?`;
const HTML_BLOCK_END = String.raw`[\s\S]*?(?:(?:\n[ \t]*)+\n|$)`;
const LINK_LABEL = String.raw`(?!\s*\])(?:\\[\s\S]|[^\[\]\\])+`;

export const block = {
	newline: /^(?:[ \t]*(?:\n|$))+/,
	code: /^((?: {4}| {0,3}\t)[^\n]+(?:\n(?:[ \t]*(?:\n|$))*)?)+/,
	fences: /^ {0,3}(`{3,}(?=[^`\n]*(?:\n|$))|~{3,})([^\n]*)(?:\n|$)(?:|([\s\S]*?)(?:\n|$))(?: {0,3}\1[~`]* *(?=\n|$)|$)/,
	heading: /^ {0,3}(#{1,6})(?=\s|$)(.*)(?:\n+|$)/,
	hr: rx(["^", HR_BODY]),
	blockquote: rx([String.raw`^( {0,3}> ?(`, paragraphBody(false), String.raw`|[^\n]*)(?:\n|$))+`]),
	list: rx(["^(", BULLET, String.raw`)([ \t][^\n]*?)?(?:\n|$)`]),
	html: rx(
		[
			String.raw`^ {0,3}(?:<(script|pre|style|textarea)[\s>][\s\S]*?(?:<\/\1>[^\n]*\n+|$)`,
			`|${HTML_COMMENT}[^\\n]*(\\n+|$)`,
			String.raw`|<\?[\s\S]*?(?:\?>\n*|$)|<![A-Z][\s\S]*?(?:>\n*|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>\n*|$)`,
			`|<\\/?(${HTML_BLOCK_TAGS})(?: +|\\n|\\/?>)${HTML_BLOCK_END}`,
			`|<(?!script|pre|style|textarea)([a-z][\\w-]*)(?:${HTML_ATTRIBUTE})*? *\\/?>(?=[ \\t]*(?:\\n|$))${HTML_BLOCK_END}`,
			`|<\\/(?!script|pre|style|textarea)[a-z][\\w-]*\\s*>(?=[ \\t]*(?:\\n|$))${HTML_BLOCK_END})`,
		],
		"i",
	),
	def: rx([
		String.raw`^ {0,3}\[(`,
		LINK_LABEL,
		String.raw`)\]: *(?:\n[ \t]*)?([^<\s][^\s]*|<.*?>)(?:(?: +(?:\n[ \t]*)?| *\n[ \t]*)((?:"(?:\\"?|[^"\\])*"|'[^'\n]*(?:\n[^'\n]+)*\n?'|\([^()]*\))))? *(?:\n+|$)`,
	]),
	table: rx(["^", TABLE_BODY]),
	lheading: rx([`^(?!${NOT_SETEXT_START})((?:.|\\n(?!\\s*?\\n|${NOT_SETEXT_START}))+?)\\n {0,3}(=+|-+) *(?:\\n+|$)`]),
	paragraph: rx(["^", paragraphBody(true)]),
	text: /^[^\n]+/,
};

// Patterns that end a list item, for the item's indent (0..3 spaces allowed before them).
const byIndent = (make) => {
	const cache = [];
	return (indent) => {
		const n = Math.max(0, Math.min(3, indent - 1));
		cache[n] ??= make(n);
		return cache[n];
	};
};
export const listItemEnds = {
	bullet: byIndent((n) => new RegExp(`^ {0,${n}}(?:[*+-]|\\d{1,9}[.)])((?:[ \t][^\\n]*)?(?:\\n|$))`)),
	hr: byIndent((n) => new RegExp(`^ {0,${n}}((?:- *){3,}|(?:_ *){3,}|(?:\\* *){3,})(?:\\n+|$)`)),
	fences: byIndent((n) => new RegExp(`^ {0,${n}}(?:\`\`\`|~~~)`)),
	heading: byIndent((n) => new RegExp(`^ {0,${n}}#`)),
	html: byIndent((n) => new RegExp(`^ {0,${n}}<(?:[a-z].*>|!--)`, "i")),
	blockquote: byIndent((n) => new RegExp(`^ {0,${n}}>`)),
};

export const listItemStart = (bullet) => new RegExp(`^( {0,3}${bullet})((?:[\t ][^\\n]*)?(?:\\n|$))`);

// ---- Inline level ------------------------------------------------------------------------

const PUNCT = String.raw`[\p{P}\p{S}]`;
const PUNCT_SPACE = String.raw`[\s\p{P}\p{S}]`;
const NOT_PUNCT_SPACE = String.raw`[^\s\p{P}\p{S}]`;
// GFM: "~" counts as neither punctuation nor space next to * delimiters.
const PUNCT_NO_TILDE = String.raw`(?!~)[\p{P}\p{S}]`;
const PUNCT_SPACE_NO_TILDE = String.raw`(?!~)[\s\p{P}\p{S}]`;
const NOT_PUNCT_SPACE_OR_TILDE = String.raw`(?:[^\s\p{P}\p{S}]|~)`;

// Right-flanking delimiter runs for closing emphasis, one group per kind of run.
const closingRuns = (d, run, punct, punctSpace, notPunctSpace, withLast) => {
	const alternatives = [
		`(?!${d})${punct}(${run})(?=[\\s]|$)`,
		`${notPunctSpace}(${run})(?!${d})(?=${punctSpace}|$)`,
		`(?!${d})${punctSpace}(${run})(?=${notPunctSpace})`,
		`[\\s](${run})(?!${d})(?=${punct})`,
		`(?!${d})${punct}(${run})(?!${d})(?=${punct})`,
	];
	if (withLast) alternatives.push(`${notPunctSpace}(${run})(?=${notPunctSpace})`);
	return alternatives.join("|");
};

const LABEL = String.raw`(?:\[(?:\\[\s\S]|[^\[\]\\])*\]|\\[\s\S]|\`+(?!\`)[^\`]*?\`+(?!\`)|\`\`+(?=\])|[^\[\]\\\`])*?`;
const EMAIL_AUTOLINK = String.raw`[a-zA-Z0-9.!#$%&'*+/=?_\`{|}~-]+(@)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+(?![-_])`;
const PROTOCOL = "[hH][tT][tT][pP][sS]?|[fF][tT][pP]";
const REFLINK = String.raw`!?\[(${LABEL})\]\[(${LINK_LABEL})\]`;
const NOLINK = String.raw`!?\[(${LINK_LABEL})\](?:\[\])?`;
const EMAIL_CHARS = String.raw`[a-zA-Z0-9.!#$%&'*+\/=?_\`{\|}~-]`;

export const inline = {
	escape: /^\\([!"#$%&'()*+,\-./:;<=>?@[\]\\^_`{|}~])/,
	tag: rx([
		String.raw`^<!--(?:-?>|[\s\S]*?-->)|^<\/[a-zA-Z][\w:-]*\s*>`,
		String.raw`|^<[a-zA-Z][\w-]*(?:\s+[a-zA-Z:_][\w.:-]*(?:\s*=\s*"[^"]*"|\s*=\s*'[^']*'|\s*=\s*[^\s"'=<>\`]+)?)*?\s*\/?>`,
		String.raw`|^<\?[\s\S]*?\?>|^<![a-zA-Z]+\s[\s\S]*?>|^<!\[CDATA\[[\s\S]*?\]\]>`,
	]),
	link: rx([
		String.raw`^!?\[(${LABEL})\]\(\s*(<(?:\\.|[^\n<>\\])+>|[^ \t\n\x00-\x1f]*)`,
		String.raw`(?:(?:[ \t]+(?:\n[ \t]*)?|\n[ \t]*)("(?:\\"?|[^"\\])*"|'(?:\\'?|[^'\\])*'|\((?:\\\)?|[^)\\])*\)))?\s*\)`,
	]),
	reflink: rx(["^", REFLINK]),
	nolink: rx(["^", NOLINK]),
	reflinkSearch: rx([REFLINK, "|", NOLINK, String.raw`(?!\()`], "g"),
	emStrongLDelim: rx([String.raw`^(?:\*+(?:((?!\*)${PUNCT_NO_TILDE})|([^\s*]))?)|^_+(?:((?!_)${PUNCT_NO_TILDE})|([^\s_]))?`], "u"),
	emStrongRDelimAst: rx(
		[String.raw`^[^_*]*?__[^_*]*?\*[^_*]*?(?=__)|[^*]+(?=[^*])|`, closingRuns("\\*", "\\*+", PUNCT_NO_TILDE, PUNCT_SPACE_NO_TILDE, NOT_PUNCT_SPACE_OR_TILDE, true)],
		"gu",
	),
	emStrongRDelimUnd: rx([String.raw`^[^_*]*?\*\*[^_*]*?_[^_*]*?(?=\*\*)|[^_]+(?=[^_])|`, closingRuns("_", "_+", PUNCT, PUNCT_SPACE, NOT_PUNCT_SPACE, false)], "gu"),
	code: /^(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/,
	br: /^( {2,}|\\)\n(?!\s*$)/,
	delLDelim: rx([String.raw`^~~?(?:((?!~)${PUNCT})|[^\s~])`], "u"),
	delRDelim: rx([String.raw`^[^~]+(?=[^~])|`, closingRuns("~", "~~?", PUNCT, PUNCT_SPACE, NOT_PUNCT_SPACE, true)], "gu"),
	autolink: rx([String.raw`^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s\x00-\x1f<>]*|${EMAIL_AUTOLINK})>`]),
	url: rx([
		String.raw`^((?:${PROTOCOL}):\/\/|www\.)(?:[a-zA-Z0-9\-]+\.?)+[^\s<]*`,
		String.raw`|^[A-Za-z0-9._+-]+(@)[a-zA-Z0-9-_]+(?:\.[a-zA-Z0-9-_]*[a-zA-Z0-9])+(?![-_])`,
	]),
	backpedal: /(?:[^?!.,:;*_'"~()&]+|\([^)]*\)|&(?![a-zA-Z0-9]+;$)|[?!.,:;*_'"~)]+(?!$))+/,
	// Plain text up to the next character that may start something else. (The protocol
	// alternation is unparenthesised, as in the reference: text also stops before "http".)
	text: rx([
		String.raw`^([\`~]+|[^\`~])(?:(?= {2,}\n)|(?=${EMAIL_CHARS}+@)|[\s\S]*?(?:(?=[\\<!\[\`*~_]|\b_|${PROTOCOL}:\/\/|www\.|$)`,
		String.raw`|[^ ](?= {2,}\n)|[^a-zA-Z0-9.!#$%&'*+\/=?_\`{\|}~-](?=${EMAIL_CHARS}+@)))`,
	]),
	punctuation: rx([String.raw`^((?![*_])${PUNCT_SPACE})`], "u"),
	anyPunctuation: rx([String.raw`\\(${PUNCT})`], "gu"),
	blockSkip: rx([String.raw`\[(?:[^\[\]\`]|(?<a>\`+)[^\`]+\k<a>(?!\`))*?\]\((?:\\[\s\S]|[^\\\(\)]|\((?:\\[\s\S]|[^\\\(\)])*\))*\)|(?<!\`)()(?<b>\`+)[^\`]+\k<b>(?!\`)|<(?! )[^<>]*?>`], "g"),
};

/** pi's stricter strikethrough: exactly two tildes on each side. */
export const STRICT_DEL = /^(~~)(?=[^\s~])((?:\\.|[^\\])*?(?:\\.|[^\s~\\]))\1(?=[^~]|$)/;
