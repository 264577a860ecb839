// Editor editing operations (mixed into Editor.prototype): typing, paste, deletion, kill and
// yank, undo, cursor movement over wrapped (visual) lines, and character jumps.
import { findWordBackward, findWordForward, isWhitespaceChar } from "./pi_tui_edit_support.mjs";
import { isPasteMarker, PASTE_MARKER, PASTE_MARKER_WHOLE, wordWrapLine } from "./pi_tui_editor_wrap.mjs";
import { matchesKey } from "./pi_tui_keys.mjs";
import { visibleWidth } from "./pi_tui_width.mjs";

export const editMethods = {
	line(index = this.state.cursorLine) {
		return this.state.lines[index] || "";
	},

	insertTextAtCursorInternal(text) {
		if (!text) return;
		const normalized = this.normalizeText(text);
		const inserted = normalized.split("\n");
		const line = this.line();
		const before = line.slice(0, this.state.cursorCol);
		const after = line.slice(this.state.cursorCol);
		if (inserted.length === 1) {
			this.state.lines[this.state.cursorLine] = before + normalized + after;
			this.setCursorCol(this.state.cursorCol + normalized.length);
		} else {
			const last = inserted[inserted.length - 1];
			this.state.lines = [
				...this.state.lines.slice(0, this.state.cursorLine),
				before + inserted[0],
				...inserted.slice(1, -1),
				last + after,
				...this.state.lines.slice(this.state.cursorLine + 1),
			];
			this.state.cursorLine += inserted.length - 1;
			this.setCursorCol((last || "").length);
		}
		this.changed();
	},

	insertCharacter(char, skipUndoCoalescing) {
		this.exitHistoryBrowsing();
		// A typed word is one undo step; each whitespace starts a new one.
		if (!skipUndoCoalescing) {
			if (isWhitespaceChar(char) || this.lastAction !== "type-word") this.pushUndoSnapshot();
			this.lastAction = "type-word";
		}
		const line = this.line();
		this.state.lines[this.state.cursorLine] = line.slice(0, this.state.cursorCol) + char + line.slice(this.state.cursorCol);
		this.setCursorCol(this.state.cursorCol + char.length);
		this.changed();
		if (this.autocompleteState) {
			this.updateAutocomplete();
			return;
		}
		const before = this.line().slice(0, this.state.cursorCol);
		if (char === "/" && this.isAtStartOfMessage()) {
			this.tryTriggerAutocomplete();
		} else if (this.autocompleteTriggerCharacters.includes(char)) {
			const previous = before[before.length - 2];
			if (before.length === 1 || previous === " " || previous === "\t") this.tryTriggerAutocomplete();
		} else if (/[a-zA-Z0-9.\-_]/.test(char)) {
			if (this.isInSlashCommandContext(before) || this.autocompleteTriggerPattern.test(before)) this.tryTriggerAutocomplete();
		}
	},

	handlePaste(pasted) {
		this.cancelAutocomplete();
		this.exitHistoryBrowsing();
		this.lastAction = null;
		this.pushUndoSnapshot();
		// Some terminals re-encode control bytes in a paste as CSI u Ctrl+letter: decode them.
		const decoded = pasted.replace(/\x1b\[(\d+);5u/g, (match, code) => {
			const cp = Number(code);
			if (cp >= 97 && cp <= 122) return String.fromCharCode(cp - 96);
			if (cp >= 65 && cp <= 90) return String.fromCharCode(cp - 64);
			return match;
		});
		let text = this.normalizeText(decoded)
			.split("")
			.filter((ch) => ch === "\n" || ch.charCodeAt(0) >= 32)
			.join("");
		// A pasted path right after a word gets a space before it.
		if (/^[/~.]/.test(text)) {
			const previous = this.state.cursorCol > 0 ? this.line()[this.state.cursorCol - 1] : "";
			if (previous && /\w/.test(previous)) text = ` ${text}`;
		}
		const lines = text.split("\n");
		if (lines.length > 10 || text.length > 1000) {
			// Large pastes are kept aside and shown as a marker.
			const id = ++this.pasteCounter;
			this.pastes.set(id, text);
			this.insertTextAtCursorInternal(lines.length > 10 ? `[paste #${id} +${lines.length} lines]` : `[paste #${id} ${text.length} chars]`);
			return;
		}
		this.insertTextAtCursorInternal(text);
	},

	addNewLine() {
		this.cancelAutocomplete();
		this.exitHistoryBrowsing();
		this.lastAction = null;
		this.pushUndoSnapshot();
		const line = this.line();
		this.state.lines[this.state.cursorLine] = line.slice(0, this.state.cursorCol);
		this.state.lines.splice(this.state.cursorLine + 1, 0, line.slice(this.state.cursorCol));
		this.state.cursorLine++;
		this.setCursorCol(0);
		this.changed();
	},

	// With shift+enter bound to submit, "\" then enter submits (dropping the backslash).
	shouldSubmitOnBackslashEnter(data, kb) {
		if (this.disableSubmit || !matchesKey(data, "enter")) return false;
		const keys = kb.getKeys("tui.input.submit");
		if (!keys.includes("shift+enter") && !keys.includes("shift+return")) return false;
		return this.state.cursorCol > 0 && this.line()[this.state.cursorCol - 1] === "\\";
	},

	submitValue() {
		this.cancelAutocomplete();
		const result = this.expandPasteMarkers(this.state.lines.join("\n")).trim();
		this.state = { lines: [""], cursorLine: 0, cursorCol: 0 };
		this.pastes.clear();
		this.pasteCounter = 0;
		this.exitHistoryBrowsing();
		this.scrollOffset = 0;
		this.undoStack.clear();
		this.lastAction = null;
		this.onChange?.("");
		this.onSubmit?.(result);
	},

	// Deleting a paste marker drops its paste and renumbers the later ones.
	forgetPaste(id) {
		this.pastes.delete(id);
		this.pasteCounter--;
		for (const later of [...this.pastes.keys()].filter((k) => k > id).sort((a, b) => a - b)) {
			this.pastes.set(later - 1, this.pastes.get(later));
			this.pastes.delete(later);
		}
		this.state.lines = this.state.lines.map((line) => line.replace(PASTE_MARKER, (whole, n, suffix) => (Number(n) <= id ? whole : `[paste #${Number(n) - 1}${suffix}]`)));
	},

	// After a deletion: keep autocomplete in step, or reopen it where it applies.
	refreshAutocompleteAfterDelete() {
		if (this.autocompleteState) {
			this.updateAutocomplete();
			return;
		}
		const before = this.line().slice(0, this.state.cursorCol);
		if (this.isInSlashCommandContext(before) || this.autocompleteTriggerPattern.test(before)) this.tryTriggerAutocomplete();
	},

	joinWithPrevious() {
		const current = this.line();
		const previous = this.line(this.state.cursorLine - 1);
		this.state.lines[this.state.cursorLine - 1] = previous + current;
		this.state.lines.splice(this.state.cursorLine, 1);
		this.state.cursorLine--;
		this.setCursorCol(previous.length);
	},

	joinWithNext() {
		this.state.lines[this.state.cursorLine] = this.line() + this.line(this.state.cursorLine + 1);
		this.state.lines.splice(this.state.cursorLine + 1, 1);
	},

	handleBackspace() {
		this.exitHistoryBrowsing();
		this.lastAction = null;
		if (this.state.cursorCol > 0) {
			this.pushUndoSnapshot();
			const all = [...this.segment(this.line().slice(0, this.state.cursorCol), "grapheme")];
			const last = all[all.length - 1];
			const length = last ? last.segment.length : 1;
			const marker = PASTE_MARKER_WHOLE.exec(last.segment);
			if (marker) this.forgetPaste(Number(marker[1]));
			const line = this.line();
			this.state.lines[this.state.cursorLine] = line.slice(0, this.state.cursorCol - length) + line.slice(this.state.cursorCol);
			this.setCursorCol(this.state.cursorCol - length);
		} else if (this.state.cursorLine > 0) {
			this.pushUndoSnapshot();
			this.joinWithPrevious();
		}
		this.changed();
		this.refreshAutocompleteAfterDelete();
	},

	handleForwardDelete() {
		this.exitHistoryBrowsing();
		this.lastAction = null;
		const line = this.line();
		if (this.state.cursorCol < line.length) {
			this.pushUndoSnapshot();
			const first = [...this.segment(line.slice(this.state.cursorCol), "grapheme")][0];
			const length = first ? first.segment.length : 1;
			this.state.lines[this.state.cursorLine] = line.slice(0, this.state.cursorCol) + line.slice(this.state.cursorCol + length);
		} else if (this.state.cursorLine < this.state.lines.length - 1) {
			this.pushUndoSnapshot();
			this.joinWithNext();
		}
		this.changed();
		this.refreshAutocompleteAfterDelete();
	},

	setCursorCol(col) {
		this.state.cursorCol = col;
		this.preferredVisualCol = null;
		this.snappedFromCursorCol = null;
	},

	kill(text, prepend, accumulate) {
		this.killRing.push(text, { prepend, accumulate });
		this.lastAction = "kill";
	},

	deleteToStartOfLine() {
		this.exitHistoryBrowsing();
		const line = this.line();
		if (this.state.cursorCol > 0) {
			this.pushUndoSnapshot();
			this.kill(line.slice(0, this.state.cursorCol), true, this.lastAction === "kill");
			this.state.lines[this.state.cursorLine] = line.slice(this.state.cursorCol);
			this.setCursorCol(0);
		} else if (this.state.cursorLine > 0) {
			// At a line start the newline is what gets killed.
			this.pushUndoSnapshot();
			this.kill("\n", true, this.lastAction === "kill");
			this.joinWithPrevious();
		}
		this.changed();
	},

	deleteToEndOfLine() {
		this.exitHistoryBrowsing();
		const line = this.line();
		if (this.state.cursorCol < line.length) {
			this.pushUndoSnapshot();
			this.kill(line.slice(this.state.cursorCol), false, this.lastAction === "kill");
			this.state.lines[this.state.cursorLine] = line.slice(0, this.state.cursorCol);
		} else if (this.state.cursorLine < this.state.lines.length - 1) {
			this.pushUndoSnapshot();
			this.kill("\n", false, this.lastAction === "kill");
			this.joinWithNext();
		}
		this.changed();
	},

	deleteWordBackwards() {
		this.exitHistoryBrowsing();
		const line = this.line();
		if (this.state.cursorCol === 0) {
			if (this.state.cursorLine > 0) {
				this.pushUndoSnapshot();
				this.kill("\n", true, this.lastAction === "kill");
				this.joinWithPrevious();
			}
		} else {
			this.pushUndoSnapshot();
			const wasKill = this.lastAction === "kill";
			const end = this.state.cursorCol;
			this.moveWordBackwards();
			const start = this.state.cursorCol;
			this.kill(line.slice(start, end), true, wasKill);
			this.state.lines[this.state.cursorLine] = line.slice(0, start) + line.slice(end);
			this.setCursorCol(start);
		}
		this.changed();
	},

	deleteWordForward() {
		this.exitHistoryBrowsing();
		const line = this.line();
		if (this.state.cursorCol >= line.length) {
			if (this.state.cursorLine < this.state.lines.length - 1) {
				this.pushUndoSnapshot();
				this.kill("\n", false, this.lastAction === "kill");
				this.joinWithNext();
			}
		} else {
			this.pushUndoSnapshot();
			const wasKill = this.lastAction === "kill";
			const start = this.state.cursorCol;
			this.moveWordForwards();
			const end = this.state.cursorCol;
			this.setCursorCol(start);
			this.kill(line.slice(start, end), false, wasKill);
			this.state.lines[this.state.cursorLine] = line.slice(0, start) + line.slice(end);
		}
		this.changed();
	},

	moveToLineStart() {
		this.lastAction = null;
		this.setCursorCol(0);
	},

	moveToLineEnd() {
		this.lastAction = null;
		this.setCursorCol(this.line().length);
	},

	// Visual lines: { logicalLine, startCol, length } for each wrapped row at `width`.
	buildVisualLineMap(width) {
		const out = [];
		this.state.lines.forEach((raw, i) => {
			const line = raw || "";
			if (line.length === 0) out.push({ logicalLine: i, startCol: 0, length: 0 });
			else if (visibleWidth(line) <= width) out.push({ logicalLine: i, startCol: 0, length: line.length });
			else for (const c of wordWrapLine(line, width, [...this.segment(line, "grapheme")])) out.push({ logicalLine: i, startCol: c.startIndex, length: c.endIndex - c.startIndex });
		});
		return out;
	},

	isLastRowOf(visualLines, i) {
		return i === visualLines.length - 1 || visualLines[i + 1]?.logicalLine !== visualLines[i].logicalLine;
	},

	findVisualLineAt(visualLines, line, col) {
		for (let i = 0; i < visualLines.length; i++) {
			const vl = visualLines[i];
			if (!vl || vl.logicalLine !== line) continue;
			const offset = col - vl.startCol;
			if (offset >= 0 && (offset < vl.length || (this.isLastRowOf(visualLines, i) && offset === vl.length))) return i;
		}
		return visualLines.length - 1;
	},

	findCurrentVisualLine(visualLines) {
		return this.findVisualLineAt(visualLines, this.state.cursorLine, this.state.cursorCol);
	},

	moveToVisualLine(visualLines, from, to) {
		const source = visualLines[from];
		const target = visualLines[to];
		if (!(source && target)) return;
		let col;
		if (this.snappedFromCursorCol !== null) {
			const at = this.findVisualLineAt(visualLines, source.logicalLine, this.snappedFromCursorCol);
			col = this.snappedFromCursorCol - visualLines[at].startCol;
		} else {
			col = this.state.cursorCol - source.startCol;
		}
		// A row that is not the last of its line ends one before its length.
		const sourceMax = this.isLastRowOf(visualLines, from) ? source.length : Math.max(0, source.length - 1);
		const targetMax = this.isLastRowOf(visualLines, to) ? target.length : Math.max(0, target.length - 1);
		const moveTo = this.computeVerticalMoveColumn(col, sourceMax, targetMax);
		this.state.cursorLine = target.logicalLine;
		const line = this.line(target.logicalLine);
		this.state.cursorCol = Math.min(target.startCol + moveTo, line.length);
		// Never land inside a paste marker: snap to its start (or skip past it going down).
		for (const seg of this.segment(line, "grapheme")) {
			if (seg.index > this.state.cursorCol) break;
			if (seg.segment.length <= 1 || this.state.cursorCol >= seg.index + seg.segment.length) continue;
			if (seg.index < target.startCol && to > from) {
				const end = seg.index + seg.segment.length;
				let next = to + 1;
				while (next < visualLines.length && visualLines[next].logicalLine === target.logicalLine && visualLines[next].startCol < end) next++;
				if (next < visualLines.length) return void this.moveToVisualLine(visualLines, from, next);
			}
			this.snappedFromCursorCol = this.state.cursorCol;
			this.state.cursorCol = seg.index;
			return;
		}
		this.snappedFromCursorCol = null;
	},

	// Sticky column: remember the column when a shorter line clamps it, restore it later.
	computeVerticalMoveColumn(current, sourceMax, targetMax) {
		const tooShort = targetMax < current;
		if (this.preferredVisualCol === null || current < sourceMax) {
			if (tooShort) {
				this.preferredVisualCol = current;
				return targetMax;
			}
			this.preferredVisualCol = null;
			return current;
		}
		if (tooShort || targetMax < this.preferredVisualCol) return targetMax;
		const preferred = this.preferredVisualCol;
		this.preferredVisualCol = null;
		return preferred;
	},

	moveCursor(deltaLine, deltaCol) {
		this.lastAction = null;
		const visualLines = this.buildVisualLineMap(this.lastWidth);
		const current = this.findCurrentVisualLine(visualLines);
		if (deltaLine !== 0) {
			const target = current + deltaLine;
			if (target >= 0 && target < visualLines.length) this.moveToVisualLine(visualLines, current, target);
		}
		if (deltaCol > 0) {
			const line = this.line();
			if (this.state.cursorCol < line.length) {
				const first = [...this.segment(line.slice(this.state.cursorCol), "grapheme")][0];
				this.setCursorCol(this.state.cursorCol + (first ? first.segment.length : 1));
			} else if (this.state.cursorLine < this.state.lines.length - 1) {
				this.state.cursorLine++;
				this.setCursorCol(0);
			} else if (visualLines[current]) {
				this.preferredVisualCol = this.state.cursorCol - visualLines[current].startCol;
			}
		} else if (deltaCol < 0) {
			if (this.state.cursorCol > 0) {
				const all = [...this.segment(this.line().slice(0, this.state.cursorCol), "grapheme")];
				const last = all[all.length - 1];
				this.setCursorCol(this.state.cursorCol - (last ? last.segment.length : 1));
			} else if (this.state.cursorLine > 0) {
				this.state.cursorLine--;
				this.setCursorCol(this.line().length);
			}
		}
		// A picker computed for the old cursor position is stale.
		if (this.autocompleteState) this.updateAutocomplete();
	},

	pageScroll(direction) {
		this.lastAction = null;
		const page = Math.max(5, Math.floor(this.terminalRows() * 0.3));
		const visualLines = this.buildVisualLineMap(this.lastWidth);
		const current = this.findCurrentVisualLine(visualLines);
		this.moveToVisualLine(visualLines, current, Math.max(0, Math.min(visualLines.length - 1, current + direction * page)));
	},

	wordOptions() {
		return { segment: (text) => this.segment(text, "word"), isAtomicSegment: isPasteMarker };
	},

	moveWordBackwards() {
		this.lastAction = null;
		if (this.state.cursorCol === 0) {
			if (this.state.cursorLine > 0) {
				this.state.cursorLine--;
				this.setCursorCol(this.line().length);
			}
			return;
		}
		this.setCursorCol(findWordBackward(this.line(), this.state.cursorCol, this.wordOptions()));
	},

	moveWordForwards() {
		this.lastAction = null;
		const line = this.line();
		if (this.state.cursorCol >= line.length) {
			if (this.state.cursorLine < this.state.lines.length - 1) {
				this.state.cursorLine++;
				this.setCursorCol(0);
			}
			return;
		}
		this.setCursorCol(findWordForward(line, this.state.cursorCol, this.wordOptions()));
	},

	yank() {
		if (this.killRing.length === 0) return;
		this.pushUndoSnapshot();
		this.insertYankedText(this.killRing.peek());
		this.lastAction = "yank";
	},

	yankPop() {
		if (this.lastAction !== "yank" || this.killRing.length <= 1) return;
		this.pushUndoSnapshot();
		this.deleteYankedText();
		this.killRing.rotate();
		this.insertYankedText(this.killRing.peek());
		this.lastAction = "yank";
	},

	insertYankedText(text) {
		this.exitHistoryBrowsing();
		const parts = text.split("\n");
		const line = this.line();
		const before = line.slice(0, this.state.cursorCol);
		const after = line.slice(this.state.cursorCol);
		if (parts.length === 1) {
			this.state.lines[this.state.cursorLine] = before + text + after;
			this.setCursorCol(this.state.cursorCol + text.length);
		} else {
			this.state.lines[this.state.cursorLine] = before + (parts[0] || "");
			for (let i = 1; i < parts.length - 1; i++) this.state.lines.splice(this.state.cursorLine + i, 0, parts[i] || "");
			const lastIndex = this.state.cursorLine + parts.length - 1;
			this.state.lines.splice(lastIndex, 0, (parts[parts.length - 1] || "") + after);
			this.state.cursorLine = lastIndex;
			this.setCursorCol((parts[parts.length - 1] || "").length);
		}
		this.changed();
	},

	// Remove the text the last yank inserted (the newest kill ring entry, before the cursor).
	deleteYankedText() {
		const yanked = this.killRing.peek();
		if (!yanked) return;
		const parts = yanked.split("\n");
		if (parts.length === 1) {
			const line = this.line();
			this.state.lines[this.state.cursorLine] = line.slice(0, this.state.cursorCol - yanked.length) + line.slice(this.state.cursorCol);
			this.setCursorCol(this.state.cursorCol - yanked.length);
		} else {
			const startLine = this.state.cursorLine - (parts.length - 1);
			const startCol = this.line(startLine).length - (parts[0] || "").length;
			const afterCursor = this.line().slice(this.state.cursorCol);
			this.state.lines.splice(startLine, parts.length, this.line(startLine).slice(0, startCol) + afterCursor);
			this.state.cursorLine = startLine;
			this.setCursorCol(startCol);
		}
		this.changed();
	},

	pushUndoSnapshot() {
		this.undoStack.push({ state: this.state, pastes: this.pastes, pasteCounter: this.pasteCounter });
	},

	undo() {
		this.exitHistoryBrowsing();
		const snapshot = this.undoStack.pop();
		if (!snapshot) return;
		Object.assign(this.state, snapshot.state);
		this.pastes = snapshot.pastes;
		this.pasteCounter = snapshot.pasteCounter;
		this.lastAction = null;
		this.preferredVisualCol = null;
		this.changed();
	},

	/** Move to the next (or previous) occurrence of `char`, across lines. */
	jumpToChar(char, direction) {
		this.lastAction = null;
		const forward = direction === "forward";
		const lines = this.state.lines;
		for (let i = this.state.cursorLine; i !== (forward ? lines.length : -1); i += forward ? 1 : -1) {
			const line = lines[i] || "";
			const from = i === this.state.cursorLine ? this.state.cursorCol + (forward ? 1 : -1) : undefined;
			const at = forward ? line.indexOf(char, from) : line.lastIndexOf(char, from);
			if (at !== -1) {
				this.state.cursorLine = i;
				this.setCursorCol(at);
				return;
			}
		}
	},
};
