// CombinedAutocompleteProvider: suggestions for slash commands (and their arguments), file
// paths in the text, and "@" file attachments (fuzzy, through the `fd` tool when given).
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fuzzyFilter } from "./pi_tui_keybindings.mjs";

const DELIMITERS = new Set([" ", "\t", '"', "'", "="]);
const slashes = (value) => value.replace(/\\/g, "/");
const escapeRegex = (value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// fd matches the full path when the query has a "/": segments joined by either separator.
function fdQuery(query) {
	const q = slashes(query);
	if (!q.includes("/")) return q;
	const trimmed = q.replace(/^\/+|\/+$/g, "");
	if (!trimmed) return q;
	const parts = trimmed.split("/").filter(Boolean).map(escapeRegex);
	if (parts.length === 0) return q;
	const sep = "[\\\\/]";
	return parts.join(sep) + (q.endsWith("/") ? sep : "");
}

function lastDelimiter(text) {
	for (let i = text.length - 1; i >= 0; i--) if (DELIMITERS.has(text[i] ?? "")) return i;
	return -1;
}

const isTokenStart = (text, i) => i === 0 || DELIMITERS.has(text[i - 1] ?? "");

// The text from an unclosed double quote (with a preceding "@") at a token start, or null.
function quotedPrefix(text) {
	let open = false;
	let start = -1;
	for (let i = 0; i < text.length; i++) {
		if (text[i] === '"') {
			open = !open;
			if (open) start = i;
		}
	}
	if (!open) return null;
	if (start > 0 && text[start - 1] === "@") return isTokenStart(text, start - 1) ? text.slice(start - 1) : null;
	return isTokenStart(text, start) ? text.slice(start) : null;
}

function parsePrefix(prefix) {
	if (prefix.startsWith('@"')) return { rawPrefix: prefix.slice(2), isAtPrefix: true, isQuotedPrefix: true };
	if (prefix.startsWith('"')) return { rawPrefix: prefix.slice(1), isAtPrefix: false, isQuotedPrefix: true };
	if (prefix.startsWith("@")) return { rawPrefix: prefix.slice(1), isAtPrefix: true, isQuotedPrefix: false };
	return { rawPrefix: prefix, isAtPrefix: false, isQuotedPrefix: false };
}

function completionValue(path, { isAtPrefix, isQuotedPrefix }) {
	const at = isAtPrefix ? "@" : "";
	return isQuotedPrefix || path.includes(" ") ? `${at}"${path}"` : `${at}${path}`;
}

// Files and directories under `baseDir` matching `query`, from fd (respects .gitignore).
function walkWithFd(baseDir, fdPath, query, maxResults, signal) {
	const args = ["--base-directory", baseDir, "--max-results", String(maxResults), "--type", "f", "--type", "d", "--follow", "--hidden", "--exclude", ".git", "--exclude", ".git/*", "--exclude", ".git/**"];
	if (slashes(query).includes("/")) args.push("--full-path");
	if (query) args.push(fdQuery(query));
	return new Promise((resolve) => {
		if (signal.aborted) return resolve([]);
		const child = spawn(fdPath, args, { stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let done = false;
		const onAbort = () => {
			if (child.exitCode === null) child.kill("SIGKILL");
		};
		const finish = (results) => {
			if (done) return;
			done = true;
			signal.removeEventListener("abort", onAbort);
			resolve(results);
		};
		signal.addEventListener("abort", onAbort, { once: true });
		child.stdout.setEncoding("utf-8");
		child.stdout.on("data", (chunk) => {
			out += chunk;
		});
		child.on("error", () => finish([]));
		child.on("close", (code) => {
			if (signal.aborted || code !== 0 || !out) return finish([]);
			const results = [];
			for (const line of out.trim().split("\n").filter(Boolean)) {
				const shown = slashes(line);
				const isDirectory = shown.endsWith("/");
				const path = isDirectory ? shown.slice(0, -1) : shown;
				if (path === ".git" || path.startsWith(".git/") || path.includes("/.git/")) continue;
				results.push({ path: shown, isDirectory });
			}
			finish(results);
		});
	});
}

const mergeLine = (lines, index, line) => {
	const next = [...lines];
	next[index] = line;
	return next;
};

export class CombinedAutocompleteProvider {
	constructor(commands = [], basePath, fdPath = null) {
		this.commands = commands;
		this.basePath = basePath;
		this.fdPath = fdPath;
	}

	commandName(cmd) {
		return "name" in cmd ? cmd.name : cmd.value;
	}

	async getSuggestions(lines, cursorLine, cursorCol, options) {
		const before = (lines[cursorLine] || "").slice(0, cursorCol);
		const at = this.extractAtPrefix(before);
		if (at) {
			const { rawPrefix, isQuotedPrefix } = parsePrefix(at);
			const items = await this.getFuzzyFileSuggestions(rawPrefix, { isQuotedPrefix, signal: options.signal });
			return items.length === 0 ? null : { items, prefix: at };
		}
		if (!options.force && before.startsWith("/")) {
			const space = before.indexOf(" ");
			if (space === -1) {
				const entries = this.commands.map((cmd) => {
					const hint = "argumentHint" in cmd && cmd.argumentHint ? cmd.argumentHint : undefined;
					const desc = cmd.description ?? "";
					const full = hint ? (desc ? `${hint} — ${desc}` : hint) : desc;
					return { name: this.commandName(cmd), label: this.commandName(cmd), description: full || undefined };
				});
				const items = fuzzyFilter(entries, before.slice(1), (e) => e.name).map((e) => ({ value: e.name, label: e.label, ...(e.description && { description: e.description }) }));
				return items.length === 0 ? null : { items, prefix: before };
			}
			// "/command args": the command's own argument completions.
			const name = before.slice(1, space);
			const args = before.slice(space + 1);
			const command = this.commands.find((cmd) => this.commandName(cmd) === name);
			if (!command || !("getArgumentCompletions" in command) || !command.getArgumentCompletions) return null;
			const items = await command.getArgumentCompletions(args);
			return !Array.isArray(items) || items.length === 0 ? null : { items, prefix: args };
		}
		const path = this.extractPathPrefix(before, options.force ?? false);
		if (path === null) return null;
		const items = this.getFileSuggestions(path);
		return items.length === 0 ? null : { items, prefix: path };
	}

	applyCompletion(lines, cursorLine, cursorCol, item, prefix) {
		const line = lines[cursorLine] || "";
		const beforePrefix = line.slice(0, cursorCol - prefix.length);
		let after = line.slice(cursorCol);
		// A quoted completion replaces an existing closing quote after the cursor.
		if ((prefix.startsWith('"') || prefix.startsWith('@"')) && item.value.endsWith('"') && after.startsWith('"')) after = after.slice(1);
		if (prefix.startsWith("/") && beforePrefix.trim() === "" && !prefix.slice(1).includes("/")) {
			return { lines: mergeLine(lines, cursorLine, `${beforePrefix}/${item.value} ${after}`), cursorLine, cursorCol: beforePrefix.length + item.value.length + 2 };
		}
		const isDirectory = item.label.endsWith("/");
		// Inside a closing quote, a directory's cursor stays before the quote to keep typing.
		const offset = isDirectory && item.value.endsWith('"') ? item.value.length - 1 : item.value.length;
		if (prefix.startsWith("@")) {
			const suffix = isDirectory ? "" : " ";
			return { lines: mergeLine(lines, cursorLine, `${beforePrefix + item.value}${suffix}${after}`), cursorLine, cursorCol: beforePrefix.length + offset + suffix.length };
		}
		return { lines: mergeLine(lines, cursorLine, beforePrefix + item.value + after), cursorLine, cursorCol: beforePrefix.length + offset };
	}

	extractAtPrefix(text) {
		const quoted = quotedPrefix(text);
		if (quoted?.startsWith('@"')) return quoted;
		const start = lastDelimiter(text) + 1;
		return text[start] === "@" ? text.slice(start) : null;
	}

	extractPathPrefix(text, forceExtract = false) {
		const quoted = quotedPrefix(text);
		if (quoted) return quoted;
		const cut = lastDelimiter(text);
		const prefix = cut === -1 ? text : text.slice(cut + 1);
		if (forceExtract) return prefix;
		if (prefix.includes("/") || prefix.startsWith(".") || prefix.startsWith("~/")) return prefix;
		// An empty token after a space starts a path; empty text does not (that is Tab's job).
		return prefix === "" && text.endsWith(" ") ? prefix : null;
	}

	expandHomePath(path) {
		if (path.startsWith("~/")) {
			const expanded = join(homedir(), path.slice(2));
			return path.endsWith("/") && !expanded.endsWith("/") ? `${expanded}/` : expanded;
		}
		return path === "~" ? homedir() : path;
	}

	resolveScopedFuzzyQuery(rawQuery) {
		const q = slashes(rawQuery);
		const slash = q.lastIndexOf("/");
		if (slash === -1) return null;
		const displayBase = q.slice(0, slash + 1);
		const query = q.slice(slash + 1);
		const baseDir = displayBase.startsWith("~/") ? this.expandHomePath(displayBase) : displayBase.startsWith("/") ? displayBase : join(this.basePath, displayBase);
		try {
			if (!statSync(baseDir).isDirectory()) return null;
		} catch {
			return null;
		}
		return { baseDir, query, displayBase };
	}

	scopedPathForDisplay(displayBase, relativePath) {
		return displayBase === "/" ? `/${slashes(relativePath)}` : `${slashes(displayBase)}${slashes(relativePath)}`;
	}

	// Entries of the directory the prefix points into whose names start with its last part.
	getFileSuggestions(prefix) {
		try {
			const { rawPrefix, isAtPrefix, isQuotedPrefix } = parsePrefix(prefix);
			const expanded = rawPrefix.startsWith("~") ? this.expandHomePath(rawPrefix) : rawPrefix;
			const fromRoot = rawPrefix.startsWith("~") || expanded.startsWith("/");
			const isRoot = ["", "./", "../", "~", "~/", "/"].includes(rawPrefix) || (isAtPrefix && rawPrefix === "");
			let searchDir;
			let searchPrefix = "";
			if (isRoot || rawPrefix.endsWith("/")) {
				searchDir = fromRoot ? expanded : join(this.basePath, expanded);
			} else {
				searchDir = fromRoot ? dirname(expanded) : join(this.basePath, dirname(expanded));
				searchPrefix = basename(expanded);
			}
			const suggestions = [];
			for (const entry of readdirSync(searchDir, { withFileTypes: true })) {
				if (!entry.name.toLowerCase().startsWith(searchPrefix.toLowerCase())) continue;
				let isDirectory = entry.isDirectory();
				if (!isDirectory && entry.isSymbolicLink()) {
					try {
						isDirectory = statSync(join(searchDir, entry.name)).isDirectory();
					} catch {
						// broken link: a file
					}
				}
				const path = slashes(this.displayPath(rawPrefix, entry.name));
				suggestions.push({ value: completionValue(isDirectory ? `${path}/` : path, { isAtPrefix, isQuotedPrefix }), label: entry.name + (isDirectory ? "/" : "") });
			}
			// Directories first, then by name.
			suggestions.sort((a, b) => {
				const ad = a.value.endsWith("/");
				const bd = b.value.endsWith("/");
				if (ad !== bd) return ad ? -1 : 1;
				return a.label.localeCompare(b.label);
			});
			return suggestions;
		} catch {
			return [];
		}
	}

	// How an entry is written, keeping the prefix's own form (./, ~/, absolute).
	displayPath(prefix, name) {
		if (prefix.endsWith("/")) return prefix + name;
		if (prefix.includes("/") || prefix.includes("\\")) {
			if (prefix.startsWith("~/")) {
				const dir = dirname(prefix.slice(2));
				return `~/${dir === "." ? name : join(dir, name)}`;
			}
			if (prefix.startsWith("/")) {
				const dir = dirname(prefix);
				return dir === "/" ? `/${name}` : `${dir}/${name}`;
			}
			const joined = join(dirname(prefix), name);
			return prefix.startsWith("./") && !joined.startsWith("./") ? `./${joined}` : joined;
		}
		return prefix.startsWith("~") ? `~/${name}` : name;
	}

	// Higher is better: exact name, name prefix, name substring, path substring; dirs +10.
	scoreEntry(filePath, query, isDirectory) {
		const name = basename(filePath).toLowerCase();
		const q = query.toLowerCase();
		let score = 0;
		if (name === q) score = 100;
		else if (name.startsWith(q)) score = 80;
		else if (name.includes(q)) score = 50;
		else if (filePath.toLowerCase().includes(q)) score = 30;
		return isDirectory && score > 0 ? score + 10 : score;
	}

	async getFuzzyFileSuggestions(query, options) {
		if (!this.fdPath || options.signal.aborted) return [];
		try {
			const scoped = this.resolveScopedFuzzyQuery(query);
			const q = scoped?.query ?? query;
			const entries = await walkWithFd(scoped?.baseDir ?? this.basePath, this.fdPath, q, 100, options.signal);
			if (options.signal.aborted) return [];
			const ranked = entries.map((e) => ({ ...e, score: q ? this.scoreEntry(e.path, q, e.isDirectory) : 1 })).filter((e) => e.score > 0);
			ranked.sort((a, b) => b.score - a.score);
			return ranked.slice(0, 20).map(({ path, isDirectory }) => {
				const bare = isDirectory ? path.slice(0, -1) : path;
				const shown = scoped ? this.scopedPathForDisplay(scoped.displayBase, bare) : bare;
				return {
					value: completionValue(isDirectory ? `${shown}/` : shown, { isAtPrefix: true, isQuotedPrefix: options.isQuotedPrefix }),
					label: basename(bare) + (isDirectory ? "/" : ""),
					description: shown,
				};
			});
		} catch {
			return [];
		}
	}

	/** Tab completes files except while a slash command name is being typed. */
	shouldTriggerFileCompletion(lines, cursorLine, cursorCol) {
		const before = (lines[cursorLine] || "").slice(0, cursorCol).trim();
		return !(before.startsWith("/") && !before.includes(" "));
	}
}
