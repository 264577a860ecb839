// A `Marked` parser class (pi-tui re-exports marked's): lexer() gives the token tree pi's
// renderer uses, parse()/parseInline() render HTML. use() takes extensions ({ name, level,
// start, tokenizer, renderer }), tokenizer overrides and walkTokens.
import { Lexer } from "./pi_tui_md_lexer.mjs";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
// HTML-escape; without `encode`, existing entities are left alone.
function escapeHtml(html, encode) {
	const pattern = encode ? /[&<>"']/g : /[<>"']|&(?!(#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);)/g;
	return html.replace(pattern, (ch) => ESCAPES[ch]);
}

function cleanUrl(href) {
	try {
		return encodeURI(href).replace(/%25/g, "%");
	} catch {
		return null;
	}
}

const BLOCK_TYPES = ["space", "hr", "heading", "code", "table", "blockquote", "list", "html", "def", "paragraph", "text"];
const INLINE_TYPES = ["escape", "html", "link", "image", "strong", "em", "codespan", "br", "del", "text"];

class HtmlRenderer {
	constructor(options) {
		this.options = options;
		this.renderers = options.extensions?.renderers ?? {};
	}

	custom(token, types) {
		const render = this.renderers[token.type];
		if (!render) return undefined;
		const out = render.call({ parser: this }, token);
		if (out !== false || !types.includes(token.type)) return out || "";
		return undefined;
	}

	parse(tokens) {
		let out = "";
		for (const t of tokens) {
			const custom = this.custom(t, BLOCK_TYPES);
			if (custom !== undefined) {
				out += custom;
				continue;
			}
			out += this.block(t);
		}
		return out;
	}

	block(t) {
		switch (t.type) {
			case "space":
			case "def":
				return "";
			case "hr":
				return "<hr>\n";
			case "heading":
				return `<h${t.depth}>${this.parseInline(t.tokens)}</h${t.depth}>\n`;
			case "code": {
				const lang = (t.lang || "").match(/^\S*/)?.[0];
				const code = `${t.text.replace(/\n$/, "")}\n`;
				const body = t.escaped ? code : escapeHtml(code, true);
				return lang ? `<pre><code class="language-${escapeHtml(lang)}">${body}</code></pre>\n` : `<pre><code>${body}</code></pre>\n`;
			}
			case "table": {
				const cell = (c) => {
					const tag = c.header ? "th" : "td";
					return `${c.align ? `<${tag} align="${c.align}">` : `<${tag}>`}${this.parseInline(c.tokens)}</${tag}>\n`;
				};
				const row = (cells) => `<tr>\n${cells.map(cell).join("")}</tr>\n`;
				const body = t.rows.map(row).join("");
				return `<table>\n<thead>\n${row(t.header)}</thead>\n${body ? `<tbody>${body}</tbody>` : ""}</table>\n`;
			}
			case "blockquote":
				return `<blockquote>\n${this.parse(t.tokens)}</blockquote>\n`;
			case "list": {
				const tag = t.ordered ? "ol" : "ul";
				const start = t.ordered && t.start !== 1 ? ` start="${t.start}"` : "";
				return `<${tag}${start}>\n${t.items.map((item) => `<li>${this.parse(item.tokens)}</li>\n`).join("")}</${tag}>\n`;
			}
			case "checkbox":
				return this.checkbox(t);
			case "html":
				return t.text;
			case "paragraph":
				return `<p>${this.parseInline(t.tokens)}</p>\n`;
			case "text":
				return this.text(t);
			default:
				throw new Error(`Token with "${t.type}" type was not found.`);
		}
	}

	checkbox(t) {
		return `<input ${t.checked ? 'checked="" ' : ""}disabled="" type="checkbox"> `;
	}

	text(t) {
		if (t.tokens) return this.parseInline(t.tokens);
		return t.escaped ? t.text : escapeHtml(t.text);
	}

	parseInline(tokens, plain = false) {
		let out = "";
		for (const t of tokens) {
			const custom = this.custom(t, INLINE_TYPES);
			if (custom !== undefined) {
				out += custom;
				continue;
			}
			out += plain ? this.plainInline(t) : this.inline(t);
		}
		return out;
	}

	inline(t) {
		switch (t.type) {
			case "escape":
			case "text":
				return this.text(t);
			case "html":
				return t.text;
			case "checkbox":
				return this.checkbox(t);
			case "strong":
				return `<strong>${this.parseInline(t.tokens)}</strong>`;
			case "em":
				return `<em>${this.parseInline(t.tokens)}</em>`;
			case "codespan":
				return `<code>${escapeHtml(t.text, true)}</code>`;
			case "br":
				return "<br>";
			case "del":
				return `<del>${this.parseInline(t.tokens)}</del>`;
			case "link": {
				const inner = this.parseInline(t.tokens);
				const href = cleanUrl(t.href);
				if (href === null) return inner;
				return `<a href="${href}"${t.title ? ` title="${escapeHtml(t.title)}"` : ""}>${inner}</a>`;
			}
			case "image": {
				const alt = t.tokens ? this.parseInline(t.tokens, true) : t.text;
				const src = cleanUrl(t.href);
				if (src === null) return escapeHtml(alt);
				return `<img src="${src}" alt="${escapeHtml(alt)}"${t.title ? ` title="${escapeHtml(t.title)}"` : ""}>`;
			}
			default:
				throw new Error(`Token with "${t.type}" type was not found.`);
		}
	}

	// Alt text of images: the text of everything inside.
	plainInline(t) {
		if (t.type === "br") return "";
		if (t.type === "checkbox") return t.raw;
		return t.text;
	}
}

const defaultOptions = () => ({ async: false, breaks: false, extensions: null, gfm: true, hooks: null, pedantic: false, renderer: null, silent: false, tokenizer: null, walkTokens: null });

export class Marked {
	constructor(...extensions) {
		this.defaults = defaultOptions();
		this.options = this.setOptions;
		this.parse = (src, options) => this.parseMarkdown(src, options, true);
		this.parseInline = (src, options) => this.parseMarkdown(src, options, false);
		this.use(...extensions);
	}

	setOptions(options) {
		this.defaults = { ...this.defaults, ...options };
		return this;
	}

	use(...extensions) {
		for (const pack of extensions) {
			const next = { ...pack };
			if (pack.extensions) {
				const ext = this.defaults.extensions ?? { renderers: {}, childTokens: {} };
				for (const e of pack.extensions) {
					if (!e.name) throw new Error("extension name required");
					if ("renderer" in e) ext.renderers[e.name] = e.renderer;
					if ("tokenizer" in e) {
						if (e.level !== "block" && e.level !== "inline") throw new Error("extension level must be 'block' or 'inline'");
						(ext[e.level] ??= []).unshift({ tokenizer: e.tokenizer });
						if (e.start) (ext[e.level === "block" ? "startBlock" : "startInline"] ??= []).push(e.start);
					}
					if (e.childTokens) ext.childTokens[e.name] = e.childTokens;
				}
				next.extensions = ext;
			}
			if (pack.tokenizer) next.tokenizer = { ...(this.defaults.tokenizer ?? {}), ...pack.tokenizer };
			if (pack.walkTokens) {
				const previous = this.defaults.walkTokens;
				const own = pack.walkTokens;
				next.walkTokens = function (token) {
					const out = [own.call(this, token)];
					return previous ? out.concat(previous.call(this, token)) : out;
				};
			}
			this.defaults = { ...this.defaults, ...next };
		}
		return this;
	}

	walkTokens(tokens, callback) {
		let out = [];
		for (const token of tokens) {
			out = out.concat(callback.call(this, token));
			if (token.type === "table") {
				for (const cell of token.header) out = out.concat(this.walkTokens(cell.tokens, callback));
				for (const row of token.rows) for (const cell of row) out = out.concat(this.walkTokens(cell.tokens, callback));
			} else if (token.type === "list") {
				out = out.concat(this.walkTokens(token.items, callback));
			} else if (this.defaults.extensions?.childTokens?.[token.type]) {
				for (const key of this.defaults.extensions.childTokens[token.type]) out = out.concat(this.walkTokens(token[key].flat(Infinity), callback));
			} else if (token.tokens) {
				out = out.concat(this.walkTokens(token.tokens, callback));
			}
		}
		return out;
	}

	makeLexer(options) {
		const lexer = new Lexer({ extensions: options.extensions });
		// Overrides: returning false falls back to the built-in tokenizer.
		for (const [name, override] of Object.entries(options.tokenizer ?? {})) {
			const owner = typeof lexer.inlineTokenizer[name] === "function" ? lexer.inlineTokenizer : lexer;
			const builtIn = owner[name].bind(owner);
			const self = { lexer, options };
			owner[name] = (...args) => {
				const out = override.apply(self, args);
				return out === false ? builtIn(...args) : (out ?? undefined);
			};
		}
		return lexer;
	}

	lexer(src, options) {
		return this.makeLexer(options ?? this.defaults).lex(src);
	}

	parser(tokens, options) {
		return new HtmlRenderer(options ?? this.defaults).parse(tokens);
	}

	parseMarkdown(src, options, block) {
		const opts = { ...this.defaults, ...options };
		if (src === undefined || src === null) throw new Error("marked(): input parameter is undefined or null");
		if (typeof src !== "string") throw new Error(`marked(): input parameter is of type ${Object.prototype.toString.call(src)}, string expected`);
		const lexer = this.makeLexer(opts);
		const tokens = block ? lexer.lex(src) : lexer.inlineTokens(src);
		if (opts.walkTokens) this.walkTokens(tokens, opts.walkTokens);
		const renderer = new HtmlRenderer(opts);
		return block ? renderer.parse(tokens) : renderer.parseInline(tokens);
	}
}
