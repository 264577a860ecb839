// Line diffs as pi's edit tool shows them (the JavaScript twin of agent/src/tools/diff.rs): the
// Myers search of the `diff` package pi uses (so ambiguous changes align the same way), the
// numbered display diff, and a unified patch with file headers only.

// Lines with their newlines; a final newline ends the last line rather than starting one.
function tokenize(text) {
	return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

// A path's components are a linked list, newest first: {count, added, removed, previous}.
function extend(path, added, removed, oldStep) {
	const last = path.last;
	const component =
		last && last.added === added && last.removed === removed
			? { count: last.count + 1, added, removed, previous: last.previous }
			: { count: 1, added, removed, previous: last };
	return { oldPos: path.oldPos + oldStep, last: component };
}

// Follows the diagonal while the lines agree; returns the new-text position reached.
function followCommon(path, newTokens, oldTokens, diagonal) {
	let oldPos = path.oldPos;
	let newPos = oldPos - diagonal;
	let common = 0;
	while (newPos + 1 < newTokens.length && oldPos + 1 < oldTokens.length && oldTokens[oldPos + 1] === newTokens[newPos + 1]) {
		newPos++;
		oldPos++;
		common++;
	}
	if (common > 0) path.last = { count: common, added: false, removed: false, previous: path.last };
	path.oldPos = oldPos;
	return newPos;
}

function changesOf(last, newTokens, oldTokens) {
	const components = [];
	for (let c = last; c; c = c.previous) components.push(c);
	components.reverse();
	let newPos = 0;
	let oldPos = 0;
	return components.map((c) => {
		let value;
		if (c.removed) {
			value = oldTokens.slice(oldPos, oldPos + c.count).join("");
			oldPos += c.count;
		} else {
			value = newTokens.slice(newPos, newPos + c.count).join("");
			newPos += c.count;
			if (!c.added) oldPos += c.count;
		}
		return { added: c.added, removed: c.removed, value };
	});
}

/** The line diff of two texts: runs of equal, removed and added lines ({added, removed, value}). */
export function diffLines(oldText, newText) {
	const oldTokens = tokenize(oldText);
	const newTokens = tokenize(newText);
	const oldLen = oldTokens.length;
	const newLen = newTokens.length;
	const maxEdit = oldLen + newLen;
	const best = new Map(); // diagonal -> path
	const start = { oldPos: -1, last: undefined };
	const startNew = followCommon(start, newTokens, oldTokens, 0);
	if (start.oldPos + 1 >= oldLen && startNew + 1 >= newLen) return changesOf(start.last, newTokens, oldTokens);
	best.set(0, start);
	let minDiagonal = -Infinity;
	let maxDiagonal = Infinity;
	for (let edit = 1; edit <= maxEdit; edit++) {
		for (let diagonal = Math.max(minDiagonal, -edit); diagonal <= Math.min(maxDiagonal, edit); diagonal += 2) {
			const removePath = best.get(diagonal - 1);
			best.delete(diagonal - 1);
			const addPath = best.get(diagonal + 1);
			const canAdd = addPath !== undefined && addPath.oldPos - diagonal >= 0 && addPath.oldPos - diagonal < newLen;
			const canRemove = removePath !== undefined && removePath.oldPos + 1 < oldLen;
			let path;
			if (canRemove && !(canAdd && removePath.oldPos < addPath.oldPos)) path = extend(removePath, false, true, 1);
			else if (canAdd) path = extend(addPath, true, false, 0);
			else {
				best.delete(diagonal);
				continue;
			}
			const newPos = followCommon(path, newTokens, oldTokens, diagonal);
			if (path.oldPos + 1 >= oldLen && newPos + 1 >= newLen) return changesOf(path.last, newTokens, oldTokens);
			if (path.oldPos + 1 >= oldLen) maxDiagonal = Math.min(maxDiagonal, diagonal - 1);
			if (newPos + 1 >= newLen) minDiagonal = Math.max(minDiagonal, diagonal + 1);
			best.set(diagonal, path);
		}
	}
	return [];
}

// A change's lines for display: without the empty piece after a final newline.
function displayLines(value) {
	const lines = value.split("\n");
	if (lines[lines.length - 1] === "") lines.pop();
	return lines;
}

/**
 * The numbered diff pi shows ("+12 line", "-12 line", " 12 line", an ellipsis for skipped
 * lines) with `contextLines` around changes, and the first changed line of the new text.
 */
export function generateDiffString(oldContent, newContent, contextLines = 4) {
	const parts = diffLines(oldContent, newContent);
	const width = String(Math.max(oldContent.split("\n").length, newContent.split("\n").length)).length;
	const number = (n) => String(n).padStart(width, " ");
	const ellipsis = ` ${"".padStart(width, " ")} ...`;
	const output = [];
	let oldLine = 1;
	let newLine = 1;
	let lastWasChange = false;
	let firstChangedLine;
	const show = (lines) => {
		for (const line of lines) {
			output.push(` ${number(oldLine)} ${line}`);
			oldLine++;
			newLine++;
		}
	};
	const skip = (count) => {
		if (count <= 0) return;
		output.push(ellipsis);
		oldLine += count;
		newLine += count;
	};
	parts.forEach((part, index) => {
		const lines = displayLines(part.value);
		if (part.added || part.removed) {
			firstChangedLine ??= newLine;
			for (const line of lines) {
				if (part.added) output.push(`+${number(newLine++)} ${line}`);
				else output.push(`-${number(oldLine++)} ${line}`);
			}
			lastWasChange = true;
			return;
		}
		const nextIsChange = index < parts.length - 1 && (parts[index + 1].added || parts[index + 1].removed);
		if (lastWasChange && nextIsChange) {
			if (lines.length <= contextLines * 2) show(lines);
			else {
				show(lines.slice(0, contextLines));
				skip(lines.length - 2 * contextLines);
				show(lines.slice(lines.length - contextLines));
			}
		} else if (lastWasChange) {
			show(lines.slice(0, contextLines));
			skip(lines.length - Math.min(lines.length, contextLines));
		} else if (nextIsChange) {
			const skipped = Math.max(0, lines.length - contextLines);
			skip(skipped);
			show(lines.slice(skipped));
		} else {
			oldLine += lines.length;
			newLine += lines.length;
		}
		lastWasChange = false;
	});
	return { diff: output.join("\n"), firstChangedLine };
}

/** A unified patch of `oldContent` to `newContent` under `path`, with only ---/+++ headers. */
export function generateUnifiedPatch(path, oldContent, newContent, contextLines = 4) {
	const parts = diffLines(oldContent, newContent).map((c) => ({ ...c, lines: tokenize(c.value) }));
	parts.push({ added: false, removed: false, lines: [] });
	const hunks = [];
	let oldStart = 0;
	let newStart = 0;
	let range = [];
	let oldLine = 1;
	let newLine = 1;
	parts.forEach(({ added, removed, lines }, index) => {
		if (added || removed) {
			if (oldStart === 0) {
				oldStart = oldLine;
				newStart = newLine;
				if (index > 0) {
					const previous = parts[index - 1].lines;
					range = previous.slice(previous.length - Math.min(previous.length, contextLines)).map((l) => ` ${l}`);
					oldStart -= range.length;
					newStart -= range.length;
				}
			}
			range.push(...lines.map((line) => `${added ? "+" : "-"}${line}`));
			if (added) newLine += lines.length;
			else oldLine += lines.length;
			return;
		}
		if (oldStart !== 0) {
			if (lines.length <= contextLines * 2 && index + 2 < parts.length) {
				range.push(...lines.map((line) => ` ${line}`));
			} else {
				const size = Math.min(lines.length, contextLines);
				range.push(...lines.slice(0, size).map((line) => ` ${line}`));
				hunks.push({ oldStart, oldLines: oldLine - oldStart + size, newStart, newLines: newLine - newStart + size, lines: range });
				range = [];
				oldStart = 0;
				newStart = 0;
			}
		}
		oldLine += lines.length;
		newLine += lines.length;
	});
	const out = [`--- ${path}`, `+++ ${path}`];
	for (const hunk of hunks) {
		const from = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
		const to = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
		out.push(`@@ -${from},${hunk.oldLines} +${to},${hunk.newLines} @@`);
		for (const line of hunk.lines) {
			if (line.endsWith("\n")) out.push(line.slice(0, -1));
			else out.push(line, "\\ No newline at end of file");
		}
	}
	return `${out.join("\n")}\n`;
}
