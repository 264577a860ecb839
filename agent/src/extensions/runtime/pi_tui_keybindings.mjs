// Named keybindings (tui.select.up, tui.editor.undo, ...) with user overrides, and fuzzy
// matching for pickers.
import { matchesKey } from "./pi_tui_keys.mjs";

const binding = (defaultKeys, description) => ({ defaultKeys, description });

/** The TUI's own keybindings and their default keys. */
export const TUI_KEYBINDINGS = {
	"tui.editor.cursorUp": binding("up", "Move cursor up"),
	"tui.editor.cursorDown": binding("down", "Move cursor down"),
	"tui.editor.historyPrevious": binding([], "Select previous prompt history entry"),
	"tui.editor.historyNext": binding([], "Select next prompt history entry"),
	"tui.editor.cursorLeft": binding(["left", "ctrl+b"], "Move cursor left"),
	"tui.editor.cursorRight": binding(["right", "ctrl+f"], "Move cursor right"),
	"tui.editor.cursorWordLeft": binding(["alt+left", "ctrl+left", "alt+b"], "Move cursor word left"),
	"tui.editor.cursorWordRight": binding(["alt+right", "ctrl+right", "alt+f"], "Move cursor word right"),
	"tui.editor.cursorLineStart": binding(["home", "ctrl+home", "ctrl+a"], "Move to line start"),
	"tui.editor.cursorLineEnd": binding(["end", "ctrl+end", "ctrl+e"], "Move to line end"),
	"tui.editor.jumpForward": binding("ctrl+]", "Jump forward to character"),
	"tui.editor.jumpBackward": binding("ctrl+alt+]", "Jump backward to character"),
	"tui.editor.pageUp": binding(["pageUp", "ctrl+pageUp"], "Page up"),
	"tui.editor.pageDown": binding(["pageDown", "ctrl+pageDown"], "Page down"),
	"tui.editor.deleteCharBackward": binding("backspace", "Delete character backward"),
	"tui.editor.deleteCharForward": binding(["delete", "ctrl+d"], "Delete character forward"),
	"tui.editor.deleteWordBackward": binding(["ctrl+w", "alt+backspace"], "Delete word backward"),
	"tui.editor.deleteWordForward": binding(["alt+d", "alt+delete"], "Delete word forward"),
	"tui.editor.deleteToLineStart": binding("ctrl+u", "Delete to line start"),
	"tui.editor.deleteToLineEnd": binding("ctrl+k", "Delete to line end"),
	"tui.editor.yank": binding("ctrl+y", "Yank"),
	"tui.editor.yankPop": binding("alt+y", "Yank pop"),
	"tui.editor.undo": binding("ctrl+-", "Undo"),
	"tui.input.newLine": binding(["shift+enter", "ctrl+j"], "Insert newline"),
	"tui.input.submit": binding("enter", "Submit input"),
	"tui.input.tab": binding("tab", "Tab / autocomplete"),
	"tui.input.copy": binding("ctrl+c", "Copy selection"),
	"tui.select.up": binding("up", "Move selection up"),
	"tui.select.down": binding("down", "Move selection down"),
	"tui.select.pageUp": binding("pageUp", "Selection page up"),
	"tui.select.pageDown": binding("pageDown", "Selection page down"),
	"tui.select.confirm": binding("enter", "Confirm selection"),
	"tui.select.cancel": binding(["escape", "ctrl+c"], "Cancel selection"),
	"tui.altScreen.pageUp": binding("pageUp", "Scroll viewport up one page"),
	"tui.altScreen.pageDown": binding("pageDown", "Scroll viewport down one page"),
	"tui.altScreen.halfPageUp": binding([], "Scroll viewport up half a page"),
	"tui.altScreen.halfPageDown": binding([], "Scroll viewport down half a page"),
	"tui.altScreen.previousPrompt": binding("ctrl+shift+up", "Jump to previous semantic prompt"),
	"tui.altScreen.nextPrompt": binding("ctrl+shift+down", "Jump to next semantic prompt"),
	"tui.altScreen.top": binding("home", "Scroll viewport to top"),
	"tui.altScreen.bottom": binding("end", "Scroll viewport to bottom"),
};

// A key or list of keys as a list without duplicates.
const keyList = (keys) => (keys === undefined ? [] : [...new Set(Array.isArray(keys) ? keys : [keys])]);

/** Resolves keybinding ids to keys: user bindings replace the defaults of the same id. */
export class KeybindingsManager {
	constructor(definitions, userBindings = {}) {
		this.definitions = definitions;
		this.userBindings = userBindings;
		this.keysById = new Map();
		this.conflicts = [];
		this.rebuild();
	}

	rebuild() {
		this.keysById.clear();
		this.conflicts = [];
		// A key the user bound to more than one known id is a conflict.
		const claims = new Map();
		for (const [id, keys] of Object.entries(this.userBindings)) {
			if (!(id in this.definitions)) continue;
			for (const key of keyList(keys)) {
				if (!claims.has(key)) claims.set(key, new Set());
				claims.get(key).add(id);
			}
		}
		for (const [key, ids] of claims) {
			if (ids.size > 1) this.conflicts.push({ key, keybindings: [...ids] });
		}
		for (const [id, definition] of Object.entries(this.definitions)) {
			const user = this.userBindings[id];
			this.keysById.set(id, keyList(user === undefined ? definition.defaultKeys : user));
		}
	}

	matches(data, keybinding) {
		return (this.keysById.get(keybinding) ?? []).some((key) => matchesKey(data, key));
	}

	getKeys(keybinding) {
		return [...(this.keysById.get(keybinding) ?? [])];
	}

	getDefinition(keybinding) {
		return this.definitions[keybinding];
	}

	getConflicts() {
		return this.conflicts.map((c) => ({ ...c, keybindings: [...c.keybindings] }));
	}

	setUserBindings(userBindings) {
		this.userBindings = userBindings;
		this.rebuild();
	}

	getUserBindings() {
		return { ...this.userBindings };
	}

	getResolvedBindings() {
		const resolved = {};
		for (const id of Object.keys(this.definitions)) {
			const keys = this.keysById.get(id) ?? [];
			resolved[id] = keys.length === 1 ? keys[0] : [...keys];
		}
		return resolved;
	}
}

let current = null;

export function setKeybindings(keybindings) {
	current = keybindings;
}

/** The process-wide keybindings (TUI defaults until setKeybindings is called). */
export function getKeybindings() {
	if (!current) current = new KeybindingsManager(TUI_KEYBINDINGS);
	return current;
}

const WORD_START_AFTER = /[\s\-_./:]/;

// Subsequence match of `query` in `text` (both lower case); lower score is better.
function scoreSubsequence(query, text) {
	if (query.length === 0) return { matches: true, score: 0 };
	if (query.length > text.length) return { matches: false, score: 0 };
	let q = 0;
	let score = 0;
	let last = -1;
	let run = 0;
	for (let i = 0; i < text.length && q < query.length; i++) {
		if (text[i] !== query[q]) continue;
		if (last === i - 1) {
			run++;
			score -= run * 5; // consecutive matches
		} else {
			run = 0;
			if (last >= 0) score += (i - last - 1) * 2; // gap
		}
		if (i === 0 || WORD_START_AFTER.test(text[i - 1])) score -= 10;
		score += i * 0.1; // later matches weigh a little more
		last = i;
		q++;
	}
	if (q < query.length) return { matches: false, score: 0 };
	if (query === text) score -= 100;
	return { matches: true, score };
}

/**
 * Whether all of `query`'s characters occur in order in `text` (case-insensitive), with a
 * score (lower is better). "abc12" also tries "12abc" and vice versa, at a small penalty.
 */
export function fuzzyMatch(query, text) {
	const q = query.toLowerCase();
	const t = text.toLowerCase();
	const primary = scoreSubsequence(q, t);
	if (primary.matches) return primary;
	const swap = /^([a-z]+)([0-9]+)$/.exec(q) ?? /^([0-9]+)([a-z]+)$/.exec(q);
	if (!swap) return primary;
	const swapped = scoreSubsequence(swap[2] + swap[1], t);
	return swapped.matches ? { matches: true, score: swapped.score + 5 } : primary;
}

/**
 * The items whose text matches every whitespace- or slash-separated token of `query`,
 * best first. A blank query returns `items` itself.
 */
export function fuzzyFilter(items, query, getText) {
	if (!query.trim()) return items;
	const tokens = query
		.trim()
		.split(/[\s/]+/)
		.filter((t) => t.length > 0);
	if (tokens.length === 0) return items;
	const scored = [];
	for (const item of items) {
		const text = getText(item);
		let total = 0;
		let all = true;
		for (const token of tokens) {
			const m = fuzzyMatch(token, text);
			if (!m.matches) {
				all = false;
				break;
			}
			total += m.score;
		}
		if (all) scored.push({ item, total });
	}
	scored.sort((a, b) => a.total - b.total);
	return scored.map((s) => s.item);
}
