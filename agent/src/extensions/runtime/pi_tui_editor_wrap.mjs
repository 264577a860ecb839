// Editor layout helpers: word wrapping into chunks that keep source positions, and paste
// markers ("[paste #1 +120 lines]") that editing treats as one unit.
import { sliceByColumn } from "./pi_tui_ansi.mjs";
import { CJK_BREAK } from "./pi_tui_ansi.mjs";
import { isWhitespaceChar } from "./pi_tui_edit_support.mjs";
import { graphemes, visibleWidth } from "./pi_tui_width.mjs";

export const PASTE_MARKER = /\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]/g;
export const PASTE_MARKER_WHOLE = /^\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]$/;

export const isPasteMarker = (segment) => segment.length >= 10 && PASTE_MARKER_WHOLE.test(segment);

/** Segments of `text`, with each paste marker whose id is in `ids` merged into one segment. */
export function segmentWithMarkers(text, segmenter, ids) {
	if (ids.size === 0 || !text.includes("[paste #")) return segmenter.segment(text);
	const spans = [];
	for (const m of text.matchAll(PASTE_MARKER)) {
		if (ids.has(Number.parseInt(m[1], 10))) spans.push({ start: m.index, end: m.index + m[0].length });
	}
	if (spans.length === 0) return segmenter.segment(text);
	const out = [];
	let k = 0;
	for (const seg of segmenter.segment(text)) {
		while (k < spans.length && spans[k].end <= seg.index) k++;
		const span = spans[k];
		if (span && seg.index >= span.start && seg.index < span.end) {
			if (seg.index === span.start) out.push({ segment: text.slice(span.start, span.end), index: span.start, input: text });
		} else {
			out.push(seg);
		}
	}
	return out;
}

/**
 * Split `line` into chunks of at most `maxWidth` columns ({ text, startIndex, endIndex }),
 * breaking after spaces or around CJK characters where possible, else mid-word.
 */
export function wordWrapLine(line, maxWidth, preSegmented) {
	if (!line || maxWidth <= 0) return [{ text: "", startIndex: 0, endIndex: 0 }];
	if (visibleWidth(line) <= maxWidth) return [{ text: line, startIndex: 0, endIndex: line.length }];
	const chunks = [];
	const segments = preSegmented ?? [...graphemes.segment(line)];
	const cut = (start, end) => chunks.push({ text: line.slice(start, end), startIndex: start, endIndex: end });
	let width = 0;
	let chunkStart = 0;
	// Last place a break is allowed, and the width up to it.
	let breakAt = -1;
	let breakWidth = 0;
	for (let i = 0; i < segments.length; i++) {
		const seg = segments[i];
		const g = seg.segment;
		const w = visibleWidth(g);
		const space = !isPasteMarker(g) && isWhitespaceChar(g);
		if (width + w > maxWidth) {
			if (breakAt >= 0 && width - breakWidth + w <= maxWidth) {
				cut(chunkStart, breakAt);
				chunkStart = breakAt;
				width -= breakWidth;
			} else if (chunkStart < seg.index) {
				cut(chunkStart, seg.index);
				chunkStart = seg.index;
				width = 0;
			}
			breakAt = -1;
		}
		if (w > maxWidth) {
			// One unit wider than the line (a marker in a narrow editor): split it visually.
			const pieces = wordWrapLine(g, maxWidth);
			for (const p of pieces.slice(0, -1)) chunks.push({ text: p.text, startIndex: seg.index + p.startIndex, endIndex: seg.index + p.endIndex });
			const last = pieces[pieces.length - 1];
			chunkStart = seg.index + last.startIndex;
			width = visibleWidth(last.text);
			breakAt = -1;
			continue;
		}
		width += w;
		const next = segments[i + 1];
		if (space && next && (isPasteMarker(next.segment) || !isWhitespaceChar(next.segment))) {
			breakAt = next.index;
			breakWidth = width;
		} else if (!space && next && !isWhitespaceChar(next.segment)) {
			const cjk = !isPasteMarker(g) && CJK_BREAK.test(g);
			const nextCjk = !isPasteMarker(next.segment) && CJK_BREAK.test(next.segment);
			if (cjk || nextCjk) {
				breakAt = next.index;
				breakWidth = width;
			}
		}
	}
	cut(chunkStart, line.length);
	return chunks;
}

/** "─── ↑ 3 more ───..." filling `width`. */
export function scrollBorder(direction, hidden, width) {
	const available = Math.max(0, width);
	const label = `─── ${direction} ${hidden} more `;
	const rest = available - visibleWidth(label);
	if (rest >= 0) return label + "─".repeat(rest);
	const dots = "...".slice(0, available);
	return sliceByColumn(label, 0, available - visibleWidth(dots), true) + dots;
}
