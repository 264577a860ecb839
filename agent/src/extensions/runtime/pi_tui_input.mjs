// Input: a one-line text field with a fake cursor, horizontal scrolling, Emacs-style kill and
// yank, undo, and bracketed paste.
import { sliceByColumn } from "./pi_tui_ansi.mjs";
import { CURSOR_MARKER } from "./pi_tui_components.mjs";
import { findWordBackward, findWordForward, isWhitespaceChar, KillRing, UndoStack } from "./pi_tui_edit_support.mjs";
import { getKeybindings } from "./pi_tui_keybindings.mjs";
import { decodeKittyPrintable } from "./pi_tui_keys.mjs";
import { graphemes, visibleWidth } from "./pi_tui_width.mjs";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

const lastCluster = (text) => {
	const all = [...graphemes.segment(text)];
	return all[all.length - 1]?.segment;
};
const firstCluster = (text) => graphemes.segment(text)[Symbol.iterator]().next().value?.segment;

// C0 controls, DEL and C1 controls are never typed text.
const hasControlChars = (data) =>
	[...data].some((ch) => {
		const c = ch.charCodeAt(0);
		return c < 32 || c === 0x7f || (c >= 0x80 && c <= 0x9f);
	});

export class Input {
	value = "";
	cursor = 0;
	onSubmit;
	onEscape;
	/** Set by the TUI when focus changes. */
	focused = false;
	pasteBuffer = "";
	isInPaste = false;
	killRing = new KillRing();
	lastAction = null;
	undoStack = new UndoStack();

	getValue() {
		return this.value;
	}

	setValue(value) {
		this.value = value;
		this.cursor = Math.min(this.cursor, value.length);
	}

	handleInput(data) {
		if (data.includes(PASTE_START)) {
			this.isInPaste = true;
			this.pasteBuffer = "";
			data = data.replace(PASTE_START, "");
		}
		if (this.isInPaste) {
			this.pasteBuffer += data;
			const end = this.pasteBuffer.indexOf(PASTE_END);
			if (end !== -1) {
				this.handlePaste(this.pasteBuffer.substring(0, end));
				this.isInPaste = false;
				const rest = this.pasteBuffer.substring(end + PASTE_END.length);
				this.pasteBuffer = "";
				if (rest) this.handleInput(rest);
			}
			return;
		}
		const kb = getKeybindings();
		const is = (id) => kb.matches(data, id);
		if (is("tui.select.cancel")) return void this.onEscape?.();
		if (is("tui.editor.undo")) return void this.undo();
		if (is("tui.input.submit") || data === "\n") return void this.onSubmit?.(this.value);
		const actions = [
			["tui.editor.deleteCharBackward", () => this.handleBackspace()],
			["tui.editor.deleteCharForward", () => this.handleForwardDelete()],
			["tui.editor.deleteWordBackward", () => this.deleteWordBackwards()],
			["tui.editor.deleteWordForward", () => this.deleteWordForward()],
			["tui.editor.deleteToLineStart", () => this.deleteToLineStart()],
			["tui.editor.deleteToLineEnd", () => this.deleteToLineEnd()],
			["tui.editor.yank", () => this.yank()],
			["tui.editor.yankPop", () => this.yankPop()],
			["tui.editor.cursorLeft", () => this.moveBy(-1)],
			["tui.editor.cursorRight", () => this.moveBy(1)],
			["tui.editor.cursorLineStart", () => this.moveTo(0)],
			["tui.editor.cursorLineEnd", () => this.moveTo(this.value.length)],
			["tui.editor.cursorWordLeft", () => this.moveWordBackwards()],
			["tui.editor.cursorWordRight", () => this.moveWordForwards()],
		];
		for (const [id, run] of actions) {
			if (is(id)) return void run();
		}
		const printable = decodeKittyPrintable(data);
		if (printable !== undefined) return void this.insertCharacter(printable);
		if (!hasControlChars(data)) this.insertCharacter(data);
	}

	moveBy(direction) {
		this.lastAction = null;
		if (direction < 0 && this.cursor > 0) this.cursor -= lastCluster(this.value.slice(0, this.cursor))?.length ?? 1;
		if (direction > 0 && this.cursor < this.value.length) this.cursor += firstCluster(this.value.slice(this.cursor))?.length ?? 1;
	}

	moveTo(index) {
		this.lastAction = null;
		this.cursor = index;
	}

	insertCharacter(char) {
		// Typing a word is one undo step; whitespace starts a new one.
		if (isWhitespaceChar(char) || this.lastAction !== "type-word") this.pushUndo();
		this.lastAction = "type-word";
		this.value = this.value.slice(0, this.cursor) + char + this.value.slice(this.cursor);
		this.cursor += char.length;
	}

	handleBackspace() {
		this.lastAction = null;
		if (this.cursor <= 0) return;
		this.pushUndo();
		const n = lastCluster(this.value.slice(0, this.cursor))?.length ?? 1;
		this.value = this.value.slice(0, this.cursor - n) + this.value.slice(this.cursor);
		this.cursor -= n;
	}

	handleForwardDelete() {
		this.lastAction = null;
		if (this.cursor >= this.value.length) return;
		this.pushUndo();
		const n = firstCluster(this.value.slice(this.cursor))?.length ?? 1;
		this.value = this.value.slice(0, this.cursor) + this.value.slice(this.cursor + n);
	}

	kill(from, to, prepend, accumulate) {
		this.killRing.push(this.value.slice(from, to), { prepend, accumulate });
		this.lastAction = "kill";
		this.value = this.value.slice(0, from) + this.value.slice(to);
		this.cursor = from;
	}

	deleteToLineStart() {
		if (this.cursor === 0) return;
		this.pushUndo();
		this.kill(0, this.cursor, true, this.lastAction === "kill");
	}

	deleteToLineEnd() {
		if (this.cursor >= this.value.length) return;
		this.pushUndo();
		const at = this.cursor;
		this.kill(at, this.value.length, false, this.lastAction === "kill");
		this.cursor = at;
	}

	deleteWordBackwards() {
		if (this.cursor === 0) return;
		const wasKill = this.lastAction === "kill";
		this.pushUndo();
		this.kill(findWordBackward(this.value, this.cursor), this.cursor, true, wasKill);
	}

	deleteWordForward() {
		if (this.cursor >= this.value.length) return;
		const wasKill = this.lastAction === "kill";
		this.pushUndo();
		const at = this.cursor;
		this.kill(at, findWordForward(this.value, at), false, wasKill);
	}

	insertAtCursor(text) {
		this.value = this.value.slice(0, this.cursor) + text + this.value.slice(this.cursor);
		this.cursor += text.length;
	}

	yank() {
		const text = this.killRing.peek();
		if (!text) return;
		this.pushUndo();
		this.insertAtCursor(text);
		this.lastAction = "yank";
	}

	yankPop() {
		if (this.lastAction !== "yank" || this.killRing.length <= 1) return;
		this.pushUndo();
		// Replace the text the last yank inserted with the next older entry.
		const previous = this.killRing.peek() || "";
		this.value = this.value.slice(0, this.cursor - previous.length) + this.value.slice(this.cursor);
		this.cursor -= previous.length;
		this.killRing.rotate();
		this.insertAtCursor(this.killRing.peek() || "");
		this.lastAction = "yank";
	}

	pushUndo() {
		this.undoStack.push({ value: this.value, cursor: this.cursor });
	}

	undo() {
		const snapshot = this.undoStack.pop();
		if (!snapshot) return;
		this.value = snapshot.value;
		this.cursor = snapshot.cursor;
		this.lastAction = null;
	}

	moveWordBackwards() {
		if (this.cursor === 0) return;
		this.lastAction = null;
		this.cursor = findWordBackward(this.value, this.cursor);
	}

	moveWordForwards() {
		if (this.cursor >= this.value.length) return;
		this.lastAction = null;
		this.cursor = findWordForward(this.value, this.cursor);
	}

	handlePaste(pasted) {
		this.lastAction = null;
		this.pushUndo();
		// One line only: newlines go, tabs become four spaces.
		this.insertAtCursor(pasted.replace(/\r\n|\r|\n/g, "").replace(/\t/g, "    "));
	}

	invalidate() {}

	render(width) {
		const prompt = "> ";
		const available = width - prompt.length;
		if (available <= 0) return [prompt];
		let shown = this.value;
		let cursorAt = this.cursor;
		const totalWidth = visibleWidth(this.value);
		if (totalWidth >= available) {
			// Scroll horizontally; keep a column for the cursor when it is at the end.
			const scrollWidth = this.cursor === this.value.length ? available - 1 : available;
			const cursorCol = visibleWidth(this.value.slice(0, this.cursor));
			if (scrollWidth > 0) {
				const half = Math.floor(scrollWidth / 2);
				let startCol = 0;
				if (cursorCol >= half) startCol = cursorCol > totalWidth - half ? Math.max(0, totalWidth - scrollWidth) : Math.max(0, cursorCol - half);
				shown = sliceByColumn(this.value, startCol, scrollWidth, true);
				cursorAt = sliceByColumn(this.value, startCol, Math.max(0, cursorCol - startCol), true).length;
			} else {
				shown = "";
				cursorAt = 0;
			}
		}
		const under = firstCluster(shown.slice(cursorAt)) ?? " ";
		const marker = this.focused ? CURSOR_MARKER : "";
		const line = `${shown.slice(0, cursorAt)}${marker}\x1b[7m${under}\x1b[27m${shown.slice(cursorAt + under.length)}`;
		return [prompt + line + " ".repeat(Math.max(0, available - visibleWidth(line)))];
	}
}
