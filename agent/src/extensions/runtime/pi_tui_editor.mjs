// Editor: the multi-line prompt editor (word wrap, scrolling, history, paste markers, kill
// ring, undo, character jumps, autocomplete). Editing operations live in
// pi_tui_editor_edit.mjs and autocomplete in pi_tui_editor_complete.mjs.
import { CURSOR_MARKER } from "./pi_tui_components.mjs";
import { KillRing, UndoStack } from "./pi_tui_edit_support.mjs";
import { autocompleteMethods, DEFAULT_TRIGGERS, debouncePattern, triggerPattern } from "./pi_tui_editor_complete.mjs";
import { editMethods } from "./pi_tui_editor_edit.mjs";
import { scrollBorder, segmentWithMarkers, wordWrapLine } from "./pi_tui_editor_wrap.mjs";
import { getKeybindings } from "./pi_tui_keybindings.mjs";
import { decodePrintableKey, matchesKey } from "./pi_tui_keys.mjs";
import { graphemes, visibleWidth, words } from "./pi_tui_width.mjs";

export { wordWrapLine } from "./pi_tui_editor_wrap.mjs";

const wholeOr = (value, fallback, min, max) => (Number.isFinite(value) ? Math.max(min, Math.min(max, Math.floor(value))) : fallback);

export class Editor {
	state = { lines: [""], cursorLine: 0, cursorCol: 0 };
	/** Set by the TUI when focus changes. */
	focused = false;
	paddingX = 0;
	lastWidth = 80;
	scrollOffset = 0;
	autocompleteTriggerCharacters = [...DEFAULT_TRIGGERS];
	autocompleteTriggerPattern = triggerPattern(this.autocompleteTriggerCharacters);
	autocompleteDebouncePattern = debouncePattern(this.autocompleteTriggerCharacters);
	autocompleteState = null;
	autocompletePrefix = "";
	autocompleteMaxVisible = 5;
	autocompleteRequestTask = Promise.resolve();
	autocompleteStartToken = 0;
	autocompleteRequestId = 0;
	pastes = new Map();
	pasteCounter = 0;
	pasteBuffer = "";
	isInPaste = false;
	history = [];
	historyIndex = -1; // -1: not browsing; 0: most recent
	historyDraft = null;
	killRing = new KillRing();
	lastAction = null;
	jumpMode = null;
	// Sticky column for up/down, and where the cursor was before snapping to a marker start.
	preferredVisualCol = null;
	snappedFromCursorCol = null;
	undoStack = new UndoStack();
	onSubmit;
	onChange;
	disableSubmit = false;

	constructor(tui, theme, options = {}) {
		this.tui = tui;
		this.theme = theme;
		this.borderColor = theme.borderColor;
		this.paddingX = wholeOr(options.paddingX ?? 0, 0, 0, Infinity);
		this.autocompleteMaxVisible = wholeOr(options.autocompleteMaxVisible ?? 5, 5, 3, 20);
	}

	terminalRows() {
		return this.tui?.terminal?.rows ?? 24;
	}

	requestRender() {
		this.tui?.requestRender?.();
	}

	changed() {
		this.onChange?.(this.getText());
	}

	validPasteIds() {
		return new Set(this.pastes.keys());
	}

	segment(text, mode) {
		return segmentWithMarkers(text, mode === "word" ? words : graphemes, this.validPasteIds());
	}

	getPaddingX() {
		return this.paddingX;
	}

	setPaddingX(padding) {
		const next = wholeOr(padding, 0, 0, Infinity);
		if (this.paddingX !== next) {
			this.paddingX = next;
			this.requestRender();
		}
	}

	getAutocompleteMaxVisible() {
		return this.autocompleteMaxVisible;
	}

	setAutocompleteMaxVisible(maxVisible) {
		const next = wholeOr(maxVisible, 5, 3, 20);
		if (this.autocompleteMaxVisible !== next) {
			this.autocompleteMaxVisible = next;
			this.requestRender();
		}
	}

	/** Remember a submitted prompt for up/down history (no consecutive duplicates, 100 max). */
	addToHistory(text) {
		const trimmed = text.trim();
		if (!trimmed || (this.history.length > 0 && this.history[0] === trimmed)) return;
		this.history.unshift(trimmed);
		if (this.history.length > 100) this.history.pop();
	}

	isEditorEmpty() {
		return this.state.lines.length === 1 && this.state.lines[0] === "";
	}

	isOnFirstVisualLine() {
		return this.findCurrentVisualLine(this.buildVisualLineMap(this.lastWidth)) === 0;
	}

	isOnLastVisualLine() {
		const lines = this.buildVisualLineMap(this.lastWidth);
		return this.findCurrentVisualLine(lines) === lines.length - 1;
	}

	navigateHistory(direction) {
		this.lastAction = null;
		if (this.history.length === 0) return;
		const next = this.historyIndex - direction; // up (-1) goes older
		if (next < -1 || next >= this.history.length) return;
		if (this.historyIndex === -1 && next >= 0) {
			this.pushUndoSnapshot();
			this.historyDraft = structuredClone(this.state);
		}
		this.historyIndex = next;
		if (next >= 0) {
			this.setTextInternal(this.history[next] || "", direction === -1 ? "start" : "end");
			return;
		}
		// Back past the newest entry: restore what was being typed.
		const draft = this.historyDraft;
		this.historyDraft = null;
		if (!draft) {
			this.setTextInternal("");
			return;
		}
		this.state = draft;
		this.preferredVisualCol = null;
		this.snappedFromCursorCol = null;
		this.scrollOffset = 0;
		this.changed();
	}

	exitHistoryBrowsing() {
		this.historyIndex = -1;
		this.historyDraft = null;
	}

	setTextInternal(text, cursorPlacement = "end") {
		const lines = text.split("\n");
		this.state.lines = lines.length === 0 ? [""] : lines;
		this.state.cursorLine = cursorPlacement === "start" ? 0 : this.state.lines.length - 1;
		this.setCursorCol(cursorPlacement === "start" ? 0 : this.state.lines[this.state.cursorLine]?.length || 0);
		this.scrollOffset = 0;
		this.changed();
	}

	invalidate() {}

	render(width) {
		const paddingX = Math.min(this.paddingX, Math.max(0, Math.floor((width - 1) / 2)));
		const contentWidth = Math.max(1, width - paddingX * 2);
		// Without padding one column is kept for the cursor; with padding it may use the padding.
		const layoutWidth = Math.max(1, contentWidth - (paddingX ? 0 : 1));
		this.lastWidth = layoutWidth;
		const horizontal = this.borderColor("─");
		const layoutLines = this.layoutText(layoutWidth);
		const maxVisible = Math.max(5, Math.floor(this.terminalRows() * 0.3));
		let cursorIndex = layoutLines.findIndex((l) => l.hasCursor);
		if (cursorIndex === -1) cursorIndex = 0;
		if (cursorIndex < this.scrollOffset) this.scrollOffset = cursorIndex;
		else if (cursorIndex >= this.scrollOffset + maxVisible) this.scrollOffset = cursorIndex - maxVisible + 1;
		this.scrollOffset = Math.max(0, Math.min(this.scrollOffset, Math.max(0, layoutLines.length - maxVisible)));
		const visible = layoutLines.slice(this.scrollOffset, this.scrollOffset + maxVisible);
		const pad = " ".repeat(paddingX);
		const out = [];
		out.push(this.scrollOffset > 0 ? this.borderColor(scrollBorder("↑", this.scrollOffset, width)) : horizontal.repeat(width));
		for (const line of visible) {
			let text = line.text;
			let lineWidth = visibleWidth(line.text);
			let cursorInPadding = false;
			if (line.hasCursor && line.cursorPos !== undefined) {
				const before = text.slice(0, line.cursorPos);
				const after = text.slice(line.cursorPos);
				const marker = this.focused ? CURSOR_MARKER : "";
				if (after.length > 0) {
					const first = [...this.segment(after, "grapheme")][0]?.segment || "";
					text = `${before}${marker}\x1b[7m${first}\x1b[0m${after.slice(first.length)}`;
				} else {
					text = `${before}${marker}\x1b[7m \x1b[0m`;
					lineWidth += 1;
					cursorInPadding = lineWidth > contentWidth && paddingX > 0;
				}
			}
			out.push(`${pad}${text}${" ".repeat(Math.max(0, contentWidth - lineWidth))}${cursorInPadding ? pad.slice(1) : pad}`);
		}
		const below = layoutLines.length - (this.scrollOffset + visible.length);
		out.push(below > 0 ? this.borderColor(scrollBorder("↓", below, width)) : horizontal.repeat(width));
		if (this.autocompleteState && this.autocompleteList) {
			for (const line of this.autocompleteList.render(contentWidth)) {
				out.push(`${pad}${line}${" ".repeat(Math.max(0, contentWidth - visibleWidth(line)))}${pad}`);
			}
		}
		return out;
	}

	handleInput(data) {
		const kb = getKeybindings();
		const is = (id) => kb.matches(data, id);
		if (this.jumpMode !== null) {
			// Waiting for the character to jump to; the jump key again cancels.
			if (is("tui.editor.jumpForward") || is("tui.editor.jumpBackward")) {
				this.jumpMode = null;
				return;
			}
			const target = decodePrintableKey(data) ?? (data.charCodeAt(0) >= 32 ? data : undefined);
			const direction = this.jumpMode;
			this.jumpMode = null;
			if (target !== undefined) return void this.jumpToChar(target, direction);
		}
		if (data.includes("\x1b[200~")) {
			this.isInPaste = true;
			this.pasteBuffer = "";
			data = data.replace("\x1b[200~", "");
		}
		if (this.isInPaste) {
			this.pasteBuffer += data;
			const end = this.pasteBuffer.indexOf("\x1b[201~");
			if (end === -1) return;
			const pasted = this.pasteBuffer.substring(0, end);
			if (pasted.length > 0) this.handlePaste(pasted);
			this.isInPaste = false;
			const rest = this.pasteBuffer.substring(end + 6);
			this.pasteBuffer = "";
			if (rest.length > 0) this.handleInput(rest);
			return;
		}
		if (is("tui.input.copy")) return; // Ctrl+C is the host's
		if (is("tui.editor.undo")) return void this.undo();
		if (this.autocompleteState && this.autocompleteList && this.handleAutocompleteKey(data, is)) return;
		if (is("tui.input.tab") && !this.autocompleteState) return void this.handleTabCompletion();
		const actions = [
			["tui.editor.deleteToLineEnd", () => this.deleteToEndOfLine()],
			["tui.editor.deleteToLineStart", () => this.deleteToStartOfLine()],
			["tui.editor.deleteWordBackward", () => this.deleteWordBackwards()],
			["tui.editor.deleteWordForward", () => this.deleteWordForward()],
		];
		for (const [id, run] of actions) if (is(id)) return void run();
		if (is("tui.editor.deleteCharBackward") || matchesKey(data, "shift+backspace")) return void this.handleBackspace();
		if (is("tui.editor.deleteCharForward") || matchesKey(data, "shift+delete")) return void this.handleForwardDelete();
		const more = [
			["tui.editor.yank", () => this.yank()],
			["tui.editor.yankPop", () => this.yankPop()],
			["tui.editor.historyPrevious", () => (this.cancelAutocomplete(), this.navigateHistory(-1))],
			["tui.editor.historyNext", () => (this.cancelAutocomplete(), this.navigateHistory(1))],
			["tui.editor.cursorLineStart", () => this.moveToLineStart()],
			["tui.editor.cursorLineEnd", () => this.moveToLineEnd()],
			["tui.editor.cursorWordLeft", () => this.moveWordBackwards()],
			["tui.editor.cursorWordRight", () => this.moveWordForwards()],
		];
		for (const [id, run] of more) if (is(id)) return void run();
		const newline =
			is("tui.input.newLine") ||
			(data.charCodeAt(0) === 10 && data.length > 1) ||
			data === "\x1b\r" ||
			data === "\x1b[13;2~" ||
			(data.length > 1 && data.includes("\x1b") && data.includes("\r")) ||
			data === "\n";
		if (newline) {
			if (this.shouldSubmitOnBackslashEnter(data, kb)) {
				this.handleBackspace();
				return void this.submitValue();
			}
			return void this.addNewLine();
		}
		if (is("tui.input.submit")) {
			if (this.disableSubmit) return;
			// No shift+enter in some terminals: a backslash before the cursor makes enter a newline.
			const line = this.state.lines[this.state.cursorLine] || "";
			if (this.state.cursorCol > 0 && line[this.state.cursorCol - 1] === "\\") {
				this.handleBackspace();
				return void this.addNewLine();
			}
			return void this.submitValue();
		}
		if (this.handleNavigationKey(is)) return;
		if (matchesKey(data, "shift+space")) return void this.insertCharacter(" ");
		const printable = decodePrintableKey(data);
		if (printable !== undefined) return void this.insertCharacter(printable);
		if (data.charCodeAt(0) >= 32) this.insertCharacter(data);
	}

	handleNavigationKey(is) {
		if (is("tui.editor.cursorUp")) {
			const first = this.isOnFirstVisualLine();
			if (first && (this.isEditorEmpty() || this.historyIndex > -1 || this.state.cursorCol === 0)) this.navigateHistory(-1);
			else if (first) this.moveToLineStart();
			else this.moveCursor(-1, 0);
			return true;
		}
		if (is("tui.editor.cursorDown")) {
			const last = this.isOnLastVisualLine();
			if (this.historyIndex > -1 && last) this.navigateHistory(1);
			else if (last) this.moveToLineEnd();
			else this.moveCursor(1, 0);
			return true;
		}
		const moves = [
			["tui.editor.cursorRight", () => this.moveCursor(0, 1)],
			["tui.editor.cursorLeft", () => this.moveCursor(0, -1)],
			["tui.editor.pageUp", () => this.pageScroll(-1)],
			["tui.editor.pageDown", () => this.pageScroll(1)],
			["tui.editor.jumpForward", () => (this.jumpMode = "forward")],
			["tui.editor.jumpBackward", () => (this.jumpMode = "backward")],
		];
		for (const [id, run] of moves) {
			if (is(id)) {
				run();
				return true;
			}
		}
		return false;
	}

	// Lines as laid out at `width`, one of them carrying the cursor position.
	layoutText(width) {
		const { lines, cursorLine, cursorCol } = this.state;
		if (lines.length === 0 || (lines.length === 1 && lines[0] === "")) return [{ text: "", hasCursor: true, cursorPos: 0 }];
		const out = [];
		lines.forEach((raw, i) => {
			const line = raw || "";
			const current = i === cursorLine;
			if (visibleWidth(line) <= width) {
				out.push(current ? { text: line, hasCursor: true, cursorPos: cursorCol } : { text: line, hasCursor: false });
				return;
			}
			const chunks = wordWrapLine(line, width, [...this.segment(line, "grapheme")]);
			chunks.forEach((chunk, k) => {
				const last = k === chunks.length - 1;
				let here = false;
				let pos = 0;
				if (current) {
					// A cursor in the spaces at a break shows at the end of that chunk.
					here = last ? cursorCol >= chunk.startIndex : cursorCol >= chunk.startIndex && cursorCol < chunk.endIndex;
					if (here) pos = last ? cursorCol - chunk.startIndex : Math.min(cursorCol - chunk.startIndex, chunk.text.length);
				}
				out.push(here ? { text: chunk.text, hasCursor: true, cursorPos: pos } : { text: chunk.text, hasCursor: false });
			});
		});
		return out;
	}

	getText() {
		return this.state.lines.join("\n");
	}

	expandPasteMarkers(text) {
		let out = text;
		for (const [id, content] of this.pastes) out = out.replace(new RegExp(`\\[paste #${id}( (\\+\\d+ lines|\\d+ chars))?\\]`, "g"), () => content);
		return out;
	}

	/** The text with paste markers replaced by what was pasted. */
	getExpandedText() {
		return this.expandPasteMarkers(this.state.lines.join("\n"));
	}

	getLines() {
		return [...this.state.lines];
	}

	getCursor() {
		return { line: this.state.cursorLine, col: this.state.cursorCol };
	}

	setText(text) {
		this.cancelAutocomplete();
		this.lastAction = null;
		this.exitHistoryBrowsing();
		const normalized = this.normalizeText(text);
		if (this.getText() !== normalized) this.pushUndoSnapshot();
		this.pastes.clear();
		this.pasteCounter = 0;
		this.setTextInternal(normalized);
	}

	/** Insert at the cursor as one undo step. */
	insertTextAtCursor(text) {
		if (!text) return;
		this.cancelAutocomplete();
		this.pushUndoSnapshot();
		this.lastAction = null;
		this.exitHistoryBrowsing();
		this.insertTextAtCursorInternal(text);
	}

	normalizeText(text) {
		return text.replace(/\r\n/g, "\n").replace(/\r/g, "\n").replace(/\t/g, "    ");
	}
}

Object.assign(Editor.prototype, editMethods, autocompleteMethods);
