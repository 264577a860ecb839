// Shared editing helpers for Input and Editor: the kill ring, the undo stack and word-wise
// cursor movement.
import { words } from "./pi_tui_width.mjs";

export const PUNCTUATION = /[(){}[\]<>.,;:'"!?+\-=*/\\|&%^$#@~`]/;

export const isWhitespaceChar = (ch) => /\s/.test(ch);
export const isPunctuationChar = (ch) => PUNCTUATION.test(ch);

/** Emacs-style kill ring: consecutive kills can merge into one entry. */
export class KillRing {
	ring = [];

	push(text, { prepend, accumulate }) {
		if (!text) return;
		if (accumulate && this.ring.length > 0) {
			const last = this.ring.pop();
			this.ring.push(prepend ? text + last : last + text);
		} else {
			this.ring.push(text);
		}
	}

	peek() {
		return this.ring.length > 0 ? this.ring[this.ring.length - 1] : undefined;
	}

	/** Move the newest entry to the oldest end (yank-pop). */
	rotate() {
		if (this.ring.length > 1) this.ring.unshift(this.ring.pop());
	}

	get length() {
		return this.ring.length;
	}
}

/** Stack of deep-copied snapshots. */
export class UndoStack {
	stack = [];

	push(state) {
		this.stack.push(structuredClone(state));
	}

	pop() {
		return this.stack.pop();
	}

	clear() {
		this.stack.length = 0;
	}

	get length() {
		return this.stack.length;
	}
}

const segmentText = (text, options) => [...(options?.segment ? options.segment(text) : words.segment(text))];

/**
 * Cursor index one word back from `cursor`: skip whitespace, then one word (stopping at ASCII
 * punctuation inside it) or one run of punctuation.
 */
export function findWordBackward(text, cursor, options) {
	if (cursor <= 0) return 0;
	const atomic = options?.isAtomicSegment;
	const segments = segmentText(text.slice(0, cursor), options);
	const last = () => segments[segments.length - 1]?.segment || "";
	let pos = cursor;
	while (segments.length > 0 && !atomic?.(last()) && isWhitespaceChar(last())) pos -= segments.pop()?.segment.length || 0;
	if (segments.length === 0) return pos;
	const seg = segments[segments.length - 1];
	if (atomic?.(seg.segment)) return pos - seg.segment.length;
	if (seg.isWordLike) {
		const hits = [...seg.segment.matchAll(new RegExp(PUNCTUATION, "g"))];
		if (hits.length === 0) return pos - seg.segment.length;
		const h = hits[hits.length - 1];
		return pos - (seg.segment.length - (h.index + h[0].length));
	}
	while (segments.length > 0 && !atomic?.(last()) && !segments[segments.length - 1]?.isWordLike && !isWhitespaceChar(last())) {
		pos -= segments.pop()?.segment.length || 0;
	}
	return pos;
}

/** Cursor index one word forward from `cursor` (mirror of findWordBackward). */
export function findWordForward(text, cursor, options) {
	if (cursor >= text.length) return text.length;
	const atomic = options?.isAtomicSegment;
	const segments = segmentText(text.slice(cursor), options);
	let k = 0;
	let pos = cursor;
	while (k < segments.length && !atomic?.(segments[k].segment) && isWhitespaceChar(segments[k].segment)) pos += segments[k++].segment.length;
	if (k >= segments.length) return pos;
	const seg = segments[k];
	if (atomic?.(seg.segment)) return pos + seg.segment.length;
	if (seg.isWordLike) return pos + (PUNCTUATION.exec(seg.segment)?.index ?? seg.segment.length);
	while (k < segments.length && !atomic?.(segments[k].segment) && !segments[k].isWordLike && !isWhitespaceChar(segments[k].segment)) {
		pos += segments[k++].segment.length;
	}
	return pos;
}
