// Markdown lexer producing `marked`-shaped tokens (type, raw, text, tokens, ...), which is
// what pi's Markdown renderer walks. Options: `strictDel` (only ~~x~~ strikes through) and
// `extensions` ({ block: [{ start, tokenizer }], inline: [...] }) tried before the rules.
import { InlineTokenizer, maskForEmphasis, trimEndChar } from "./pi_tui_md_inline.mjs";
import { block as B, inline as I, listItemEnds, listItemStart } from "./pi_tui_md_rules.mjs";

// Drop trailing blank lines, unless there is only one.
function trimBlankTail(text) {
	const lines = text.split("\n");
	let last = lines.length - 1;
	while (last >= 0 && /^[ \t]*$/.test(lines[last])) last--;
	return lines.length - last <= 2 ? text : lines.slice(0, last + 1).join("\n");
}

// Tabs to spaces (stops every four columns), counting from column `column`.
function expandTabs(line, column = 0) {
	let col = column;
	let out = "";
	for (const ch of line) {
		if (ch === "\t") {
			const n = 4 - (col % 4);
			out += " ".repeat(n);
			col += n;
		} else {
			out += ch;
			col++;
		}
	}
	return out;
}

// A fenced block indented by N spaces has up to N spaces removed from each content line.
function dedentFenced(raw, text) {
	const m = raw.match(/^(\s+)(?:```)/);
	if (m === null) return text;
	const indent = m[1];
	return text
		.split("\n")
		.map((line) => {
			const ws = line.match(/^\s+/);
			if (ws === null) return line;
			return ws[0].length >= indent.length ? line.slice(indent.length) : line;
		})
		.join("\n");
}

// Table cells of one row; escaped pipes stay in the cell text.
function splitCells(row, count) {
	const marked = row.replace(/\|/g, (_, offset, str) => {
		let escaped = false;
		let at = offset;
		while (--at >= 0 && str[at] === "\\") escaped = !escaped;
		return escaped ? "|" : " |";
	});
	const cells = marked.split(/ \|/);
	if (!cells[0].trim()) cells.shift();
	if (cells.length > 0 && !cells.at(-1)?.trim()) cells.pop();
	if (count) {
		if (cells.length > count) cells.splice(count);
		else while (cells.length < count) cells.push("");
	}
	return cells.map((c) => c.trim().replace(/\\\|/g, "|"));
}

const TASK = /^\[[ xX]\] +\S/;
const TASK_PREFIX = /^\[[ xX]\] +/;

export class Lexer {
	constructor(options = {}) {
		this.options = { strictDel: false, extensions: null, ...options };
		this.tokens = [];
		this.tokens.links = Object.create(null);
		this.inlineQueue = [];
		this.state = { inLink: false, inRawBlock: false, top: true };
		this.inlineTokenizer = new InlineTokenizer(this);
	}

	lex(src) {
		this.blockTokens(src.replace(/\r\n|\r/g, "\n"), this.tokens);
		for (const job of this.inlineQueue) this.inlineTokens(job.src, job.tokens);
		this.inlineQueue = [];
		return this.tokens;
	}

	/** Queue `text` for inline lexing once the blocks are done; returns its token list. */
	inline(text, tokens = []) {
		this.inlineQueue.push({ src: text, tokens });
		return tokens;
	}

	blockTokens(src, tokens = [], lastParagraphClipped = false) {
		const ext = this.options.extensions;
		let shortest = Infinity;
		while (src) {
			if (src.length < shortest) shortest = src.length;
			else throw new Error(`Infinite loop on byte: ${src.charCodeAt(0)}`);
			let token;
			const last = tokens.at(-1);
			const take = (t) => {
				src = src.substring(t.raw.length);
				return t;
			};
			// Appends a continuation to the previous paragraph or text token.
			const extend = (addRaw, addText, dropOwnInline) => {
				last.raw += (last.raw.endsWith("\n") ? "" : "\n") + addRaw;
				last.text += `\n${addText}`;
				if (dropOwnInline) this.inlineQueue.pop();
				this.inlineQueue.at(-1).src = last.text;
			};
			if (ext?.block?.some((e) => (token = e.tokenizer.call({ lexer: this }, src, tokens)) && tokens.push(take(token)))) continue;
			if ((token = this.space(src))) {
				take(token);
				if (token.raw.length === 1 && last !== undefined) last.raw += "\n";
				else tokens.push(token);
				continue;
			}
			if ((token = this.code(src))) {
				take(token);
				if (last?.type === "paragraph" || last?.type === "text") extend(token.raw, token.text, false);
				else tokens.push(token);
				continue;
			}
			if ((token = this.fences(src) ?? this.heading(src) ?? this.hr(src) ?? this.blockquote(src) ?? this.list(src) ?? this.html(src))) {
				tokens.push(take(token));
				continue;
			}
			if ((token = this.def(src))) {
				take(token);
				if (last?.type === "paragraph" || last?.type === "text") extend(token.raw, token.raw, false);
				else if (!this.tokens.links[token.tag]) {
					this.tokens.links[token.tag] = { href: token.href, title: token.title };
					tokens.push(token);
				}
				continue;
			}
			if ((token = this.table(src) ?? this.lheading(src))) {
				tokens.push(take(token));
				continue;
			}
			// A paragraph stops where a block extension could start.
			let cut = src;
			if (ext?.startBlock) {
				let at = Infinity;
				for (const start of ext.startBlock) {
					const i = start.call({ lexer: this }, src.slice(1));
					if (typeof i === "number" && i >= 0) at = Math.min(at, i);
				}
				if (at < Infinity && at >= 0) cut = src.substring(0, at + 1);
			}
			if (this.state.top && (token = this.paragraph(cut))) {
				if (lastParagraphClipped && last?.type === "paragraph") extend(token.raw, token.text, true);
				else tokens.push(token);
				lastParagraphClipped = cut.length !== src.length;
				take(token);
				continue;
			}
			if ((token = this.text(src))) {
				take(token);
				if (last?.type === "text") extend(token.raw, token.text, true);
				else tokens.push(token);
				continue;
			}
			if (src) throw new Error(`Infinite loop on byte: ${src.charCodeAt(0)}`);
		}
		this.state.top = true;
		return tokens;
	}

	space(src) {
		const cap = B.newline.exec(src);
		if (cap && cap[0].length > 0) return { type: "space", raw: cap[0] };
	}

	code(src) {
		const cap = B.code.exec(src);
		if (!cap) return;
		const raw = trimBlankTail(cap[0]);
		return { type: "code", raw, codeBlockStyle: "indented", text: raw.replace(/^(?: {1,4}| {0,3}\t)/gm, "") };
	}

	fences(src) {
		const cap = B.fences.exec(src);
		if (!cap) return;
		const lang = cap[2] ? cap[2].trim().replace(I.anyPunctuation, "$1") : cap[2];
		return { type: "code", raw: cap[0], lang, text: dedentFenced(cap[0], cap[3] || "") };
	}

	heading(src) {
		const cap = B.heading.exec(src);
		if (!cap) return;
		let text = cap[2].trim();
		if (text.endsWith("#")) {
			// A closing run of #s goes, if it is separated by a space (or is all there is).
			const trimmed = trimEndChar(text, "#");
			if (!trimmed || trimmed.endsWith(" ")) text = trimmed.trim();
		}
		return { type: "heading", raw: trimEndChar(cap[0], "\n"), depth: cap[1].length, text, tokens: this.inline(text) };
	}

	hr(src) {
		const cap = B.hr.exec(src);
		if (cap) return { type: "hr", raw: trimEndChar(cap[0], "\n") };
	}

	blockquote(src) {
		const cap = B.blockquote.exec(src);
		if (!cap) return;
		let lines = trimEndChar(cap[0], "\n").split("\n");
		let raw = "";
		let text = "";
		const tokens = [];
		while (lines.length > 0) {
			// Quoted lines plus the lazy (unquoted) lines before the next quoted run.
			let quoted = false;
			const chunk = [];
			let i;
			for (i = 0; i < lines.length; i++) {
				if (/^ {0,3}>/.test(lines[i])) {
					chunk.push(lines[i]);
					quoted = true;
				} else if (!quoted) chunk.push(lines[i]);
				else break;
			}
			lines = lines.slice(i);
			const chunkRaw = chunk.join("\n");
			const chunkText = chunkRaw.replace(/\n {0,3}((?:=+|-+) *)(?=\n|$)/g, "\n    $1").replace(/^ {0,3}>[ \t]?/gm, "");
			raw = raw ? `${raw}\n${chunkRaw}` : chunkRaw;
			text = text ? `${text}\n${chunkText}` : chunkText;
			const top = this.state.top;
			this.state.top = true;
			this.blockTokens(chunkText, tokens, true);
			this.state.top = top;
			if (lines.length === 0) break;
			const last = tokens.at(-1);
			if (last?.type === "code") break;
			if (last?.type === "blockquote") {
				// The rest continues the nested quote.
				const merged = this.blockquote(`${last.raw}\n${lines.join("\n")}`);
				tokens[tokens.length - 1] = merged;
				raw = raw.substring(0, raw.length - last.raw.length) + merged.raw;
				text = text.substring(0, text.length - last.text.length) + merged.text;
				break;
			}
			if (last?.type === "list") {
				// The rest may continue the list.
				const source = `${last.raw}\n${lines.join("\n")}`;
				const merged = this.list(source);
				tokens[tokens.length - 1] = merged;
				raw = raw.substring(0, raw.length - last.raw.length) + merged.raw;
				text = text.substring(0, text.length - last.raw.length) + merged.raw;
				lines = source.substring(merged.raw.length).split("\n");
			}
		}
		return { type: "blockquote", raw, tokens, text };
	}

	list(src) {
		let cap = B.list.exec(src);
		if (!cap) return;
		let bullet = cap[1].trim();
		const ordered = bullet.length > 1;
		const list = { type: "list", raw: "", ordered, start: ordered ? +bullet.slice(0, -1) : "", loose: false, items: [] };
		bullet = ordered ? `\\d{1,9}\\${bullet.slice(-1)}` : `\\${bullet}`;
		const itemStart = listItemStart(bullet);
		let endsWithBlankLine = false;
		while (src) {
			if (!(cap = itemStart.exec(src)) || B.hr.test(src)) break;
			let raw = cap[0];
			src = src.substring(raw.length);
			let line = expandTabs(cap[2].split("\n", 1)[0], cap[1].length);
			let nextLine = src.split("\n", 1)[0];
			let blank = !line.trim();
			let contents = "";
			let indent;
			if (blank) {
				indent = cap[1].length + 1;
			} else {
				indent = line.search(/[^ ]/);
				indent = indent > 4 ? 1 : indent; // indented code inside the item
				contents = line.slice(indent);
				indent += cap[1].length;
			}
			let endEarly = false;
			if (blank && /^[ \t]*$/.test(nextLine)) {
				// An item starting with two blank lines is empty.
				raw += `${nextLine}\n`;
				src = src.substring(nextLine.length + 1);
				endEarly = true;
			}
			if (!endEarly) {
				const ends = Object.fromEntries(Object.entries(listItemEnds).map(([k, make]) => [k, make(indent)]));
				while (src) {
					const rawLine = src.split("\n", 1)[0];
					nextLine = rawLine;
					const untabbed = nextLine.replace(/\t/g, "    ");
					if (ends.fences.test(nextLine) || ends.heading.test(nextLine) || ends.html.test(nextLine) || ends.blockquote.test(nextLine) || ends.bullet.test(nextLine) || ends.hr.test(nextLine)) break;
					if (untabbed.search(/[^ ]/) >= indent || !nextLine.trim()) {
						contents += `\n${untabbed.slice(indent)}`;
					} else {
						// Lazy continuation, unless the previous line ends the paragraph.
						if (blank) break;
						if (line.replace(/\t/g, "    ").search(/[^ ]/) >= 4) break;
						if (ends.fences.test(line) || ends.heading.test(line) || ends.hr.test(line)) break;
						contents += `\n${nextLine}`;
					}
					blank = !nextLine.trim();
					raw += `${rawLine}\n`;
					src = src.substring(rawLine.length + 1);
					line = untabbed.slice(indent);
				}
			}
			if (!list.loose) {
				if (endsWithBlankLine) list.loose = true;
				else if (/\n[ \t]*\n[ \t]*$/.test(raw)) endsWithBlankLine = true;
			}
			list.items.push({ type: "list_item", raw, task: TASK.test(contents), loose: false, text: contents, tokens: [] });
			list.raw += raw;
		}
		const lastItem = list.items.at(-1);
		if (!lastItem) return;
		lastItem.raw = lastItem.raw.trimEnd();
		lastItem.text = lastItem.text.trimEnd();
		list.raw = list.raw.trimEnd();
		for (const item of list.items) {
			this.state.top = false;
			item.tokens = this.blockTokens(item.text, []);
			this.markTask(item, list.loose);
			if (!list.loose) {
				const spaces = item.tokens.filter((t) => t.type === "space");
				list.loose = spaces.length > 0 && spaces.some((t) => /\n.*\n/.test(t.raw));
			}
		}
		if (list.loose) {
			for (const item of list.items) {
				item.loose = true;
				for (const t of item.tokens) if (t.type === "text") t.type = "paragraph";
			}
		}
		return list;
	}

	// "[ ] " / "[x] " at the start of an item becomes a checkbox token.
	markTask(item, loose) {
		const first = item.tokens[0];
		if (!item.task || (first?.type !== "text" && first?.type !== "paragraph")) {
			item.task = false;
			return;
		}
		item.text = item.text.replace(TASK_PREFIX, "");
		first.raw = first.raw.replace(TASK_PREFIX, "");
		first.text = first.text.replace(TASK_PREFIX, "");
		for (let k = this.inlineQueue.length - 1; k >= 0; k--) {
			if (TASK.test(this.inlineQueue[k].src)) {
				this.inlineQueue[k].src = this.inlineQueue[k].src.replace(TASK_PREFIX, "");
				break;
			}
		}
		const box = /\[[ xX]\]/.exec(item.raw);
		if (!box) return;
		const checkbox = { type: "checkbox", raw: `${box[0]} `, checked: box[0] !== "[ ]" };
		item.checked = checkbox.checked;
		if (!loose) {
			item.tokens.unshift(checkbox);
		} else if (first.tokens) {
			first.raw = checkbox.raw + first.raw;
			first.text = checkbox.raw + first.text;
			first.tokens.unshift(checkbox);
		} else {
			item.tokens.unshift({ type: "paragraph", raw: checkbox.raw, text: checkbox.raw, tokens: [checkbox] });
		}
	}

	html(src) {
		const cap = B.html.exec(src);
		if (!cap) return;
		const raw = trimBlankTail(cap[0]);
		return { type: "html", block: true, raw, pre: cap[1] === "pre" || cap[1] === "script" || cap[1] === "style", text: raw };
	}

	def(src) {
		const cap = B.def.exec(src);
		if (!cap) return;
		const tag = cap[1].toLowerCase().replace(/\s+/g, " ");
		const href = cap[2] ? cap[2].replace(/^<(.*)>$/, "$1").replace(I.anyPunctuation, "$1") : "";
		const title = cap[3] ? cap[3].substring(1, cap[3].length - 1).replace(I.anyPunctuation, "$1") : cap[3];
		return { type: "def", tag, raw: trimEndChar(cap[0], "\n"), href, title };
	}

	table(src) {
		const cap = B.table.exec(src);
		if (!cap || !/[:|]/.test(cap[2])) return;
		const headers = splitCells(cap[1]);
		const aligns = cap[2].replace(/^\||\| *$/g, "").split("|");
		const rows = cap[3]?.trim() ? cap[3].replace(/\n[ \t]*$/, "").split("\n") : [];
		if (headers.length !== aligns.length) return;
		const align = aligns.map((a) => (/^ *-+: *$/.test(a) ? "right" : /^ *:-+: *$/.test(a) ? "center" : /^ *:-+ *$/.test(a) ? "left" : null));
		const cell = (text, header, i) => ({ text, tokens: this.inline(text), header, align: align[i] });
		return {
			type: "table",
			raw: trimEndChar(cap[0], "\n"),
			header: headers.map((h, i) => cell(h, true, i)),
			align,
			rows: rows.map((row) => splitCells(row, headers.length).map((c, i) => cell(c, false, i))),
		};
	}

	lheading(src) {
		const cap = B.lheading.exec(src);
		if (!cap) return;
		const text = cap[1].trim();
		return { type: "heading", raw: trimEndChar(cap[0], "\n"), depth: cap[2].charAt(0) === "=" ? 1 : 2, text, tokens: this.inline(text) };
	}

	paragraph(src) {
		const cap = B.paragraph.exec(src);
		if (!cap) return;
		const text = cap[1].endsWith("\n") ? cap[1].slice(0, -1) : cap[1];
		return { type: "paragraph", raw: cap[0], text, tokens: this.inline(text) };
	}

	text(src) {
		const cap = B.text.exec(src);
		if (cap) return { type: "text", raw: cap[0], text: cap[0], tokens: this.inline(cap[0]) };
	}

	inlineTokens(src, tokens = []) {
		const t = this.inlineTokenizer;
		const ext = this.options.extensions;
		const masked = maskForEmphasis(src, this.tokens.links);
		let keepPrevChar = false;
		let prevChar = "";
		let shortest = Infinity;
		while (src) {
			if (src.length < shortest) shortest = src.length;
			else throw new Error(`Infinite loop on byte: ${src.charCodeAt(0)}`);
			if (!keepPrevChar) prevChar = "";
			keepPrevChar = false;
			let token;
			const last = tokens.at(-1);
			const push = (tok) => {
				src = src.substring(tok.raw.length);
				tokens.push(tok);
			};
			if (ext?.inline?.some((e) => (token = e.tokenizer.call({ lexer: this }, src, tokens)) && (push(token), true))) continue;
			if ((token = t.escape(src) ?? t.tag(src) ?? t.link(src))) {
				push(token);
				continue;
			}
			if ((token = t.reflink(src, this.tokens.links))) {
				src = src.substring(token.raw.length);
				if (token.type === "text" && last?.type === "text") {
					last.raw += token.raw;
					last.text += token.text;
				} else tokens.push(token);
				continue;
			}
			if ((token = t.emStrong(src, masked, prevChar) ?? t.codespan(src) ?? t.br(src) ?? t.del(src, masked, prevChar) ?? t.autolink(src))) {
				push(token);
				continue;
			}
			if (!this.state.inLink && (token = t.url(src))) {
				push(token);
				continue;
			}
			// Plain text stops where an inline extension could start.
			let cut = src;
			if (ext?.startInline) {
				let at = Infinity;
				for (const start of ext.startInline) {
					const i = start.call({ lexer: this }, src.slice(1));
					if (typeof i === "number" && i >= 0) at = Math.min(at, i);
				}
				if (at < Infinity && at >= 0) cut = src.substring(0, at + 1);
			}
			if ((token = t.inlineText(cut))) {
				src = src.substring(token.raw.length);
				if (token.raw.slice(-1) !== "_") prevChar = token.raw.slice(-1);
				keepPrevChar = true;
				if (last?.type === "text") {
					last.raw += token.raw;
					last.text += token.text;
				} else tokens.push(token);
				continue;
			}
			if (src) throw new Error(`Infinite loop on byte: ${src.charCodeAt(0)}`);
		}
		return tokens;
	}
}
