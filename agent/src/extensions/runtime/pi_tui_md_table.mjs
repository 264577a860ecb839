// Markdown tables: columns sized to their content, shrunk (cells wrapped) to fit the width.
import { wrapTextWithAnsi } from "./pi_tui_ansi.mjs";
import { visibleWidth } from "./pi_tui_width.mjs";

const LONGEST_UNBROKEN_WORD = 30;
const sum = (list) => list.reduce((a, b) => a + b, 0);

function longestWord(text, cap) {
	let longest = 0;
	for (const word of text.split(/\s+/)) if (word.length > 0) longest = Math.max(longest, visibleWidth(word));
	return cap === undefined ? longest : Math.min(longest, cap);
}

// Minimum widths that fit `available`: one cell each, the rest shared by longest-word weight.
function squeezedMinimums(wordWidths, available) {
	const count = wordWidths.length;
	const mins = new Array(count).fill(1);
	const spare = available - count;
	if (spare <= 0) return mins;
	const weight = sum(wordWidths.map((w) => Math.max(0, w - 1)));
	const growth = wordWidths.map((w) => (weight > 0 ? Math.floor((Math.max(0, w - 1) / weight) * spare) : 0));
	for (let i = 0; i < count; i++) mins[i] += growth[i] ?? 0;
	let leftover = spare - sum(growth);
	for (let i = 0; leftover > 0 && i < count; i++, leftover--) mins[i]++;
	return mins;
}

/** Lines for a table token, drawn by `md` (a Markdown component) within `width` columns. */
export function renderMarkdownTable(md, token, width, nextType, context) {
	const lines = [];
	const count = token.header.length;
	if (count === 0) return lines;
	const overhead = 3 * count + 1; // "│ " + " │ " between cells + " │"
	const forCells = width - overhead;
	if (forCells < count) {
		// Too narrow for a table: show the Markdown source.
		const raw = token.raw ? wrapTextWithAnsi(token.raw, width) : [];
		if (nextType && nextType !== "space") raw.push("");
		return raw;
	}
	const cellText = (cell) => md.renderInline(cell.tokens || [], context);
	const natural = [];
	const words = [];
	token.header.forEach((cell, i) => {
		const text = cellText(cell);
		natural[i] = visibleWidth(text);
		words[i] = Math.max(1, longestWord(text, LONGEST_UNBROKEN_WORD));
	});
	for (const row of token.rows) {
		row.forEach((cell, i) => {
			const text = cellText(cell);
			natural[i] = Math.max(natural[i] || 0, visibleWidth(text));
			words[i] = Math.max(words[i] || 1, longestWord(text, LONGEST_UNBROKEN_WORD));
		});
	}
	const mins = sum(words) > forCells ? squeezedMinimums(words, forCells) : words;
	const minTotal = sum(mins);
	let widths;
	if (sum(natural) + overhead <= width) {
		widths = natural.map((w, i) => Math.max(w, mins[i]));
	} else {
		// Grow each column from its minimum in proportion to how much more it wants.
		const potential = natural.reduce((total, w, i) => total + Math.max(0, w - mins[i]), 0);
		const extra = Math.max(0, forCells - minTotal);
		widths = mins.map((min, i) => min + (potential > 0 ? Math.floor((Math.max(0, natural[i] - min) / potential) * extra) : 0));
		let remaining = forCells - sum(widths);
		while (remaining > 0) {
			let grew = false;
			for (let i = 0; i < count && remaining > 0; i++) {
				if (widths[i] < natural[i]) {
					widths[i]++;
					remaining--;
					grew = true;
				}
			}
			if (!grew) break;
		}
	}
	const rule = (left, mid, right) => `${left}─${widths.map((w) => "─".repeat(w)).join(`─${mid}─`)}─${right}`;
	const pad = (text, i) => text + " ".repeat(Math.max(0, widths[i] - visibleWidth(text)));
	const drawRow = (cells, style) => {
		const wrapped = cells.map((cell, i) => wrapTextWithAnsi(cellText(cell), Math.max(1, widths[i])));
		const height = Math.max(...wrapped.map((c) => c.length));
		for (let row = 0; row < height; row++) lines.push(`│ ${wrapped.map((c, i) => style(pad(c[row] || "", i))).join(" │ ")} │`);
	};
	lines.push(rule("┌", "┬", "┐"));
	drawRow(token.header, (s) => md.theme.bold(s));
	const separator = rule("├", "┼", "┤");
	lines.push(separator);
	token.rows.forEach((row, r) => {
		drawRow(row, (s) => s);
		if (r < token.rows.length - 1) lines.push(separator);
	});
	lines.push(rule("└", "┴", "┘"));
	if (nextType && nextType !== "space") lines.push("");
	return lines;
}
