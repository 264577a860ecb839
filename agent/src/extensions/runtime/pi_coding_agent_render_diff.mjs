// renderDiff: a tool's diff text ("+12 added", "-12 removed", " 12 context") coloured by the
// theme, with the changed words of a one-line modification shown inverted.
import { theme } from "./pi_coding_agent_theme.mjs";

function parseLine(line) {
	const m = line.match(/^([+-\s])(\s*\d*)\s(.*)$/);
	return m ? { prefix: m[1], lineNum: m[2], content: m[3] } : null;
}

const untab = (text) => text.replace(/\t/g, "   ");

// Words (letters, digits, marks), whitespace runs and single other characters.
const tokens = (text) => text.match(/[\p{L}\p{N}\p{M}_]+|\s+|[^\p{L}\p{N}\p{M}_\s]/gu) ?? [];

// Word-level diff by longest common subsequence: [{ value, added?, removed? }].
function diffWords(before, after) {
	const a = tokens(before);
	const b = tokens(after);
	const lcs = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
	for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
	const parts = [];
	const push = (value, kind) => {
		const last = parts[parts.length - 1];
		if (last && last.kind === kind) last.value += value;
		else parts.push({ value, kind });
	};
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		if (i < a.length && j < b.length && a[i] === b[j]) {
			push(a[i++], "same");
			j++;
		} else if (j < b.length && (i >= a.length || lcs[i][j + 1] >= lcs[i + 1][j])) push(b[j++], "added");
		else push(a[i++], "removed");
	}
	return parts.map(({ value, kind }) => ({ value, added: kind === "added", removed: kind === "removed" }));
}

// Both lines with their changed parts inverted (leading indentation left plain).
function intraLine(before, after) {
	let removed = "";
	let added = "";
	let firstRemoved = true;
	let firstAdded = true;
	const mark = (value, first) => {
		const lead = first ? (value.match(/^(\s*)/)?.[1] ?? "") : "";
		const rest = value.slice(lead.length);
		return lead + (rest ? theme.inverse(rest) : "");
	};
	for (const part of diffWords(before, after)) {
		if (part.removed) {
			removed += mark(part.value, firstRemoved);
			firstRemoved = false;
		} else if (part.added) {
			added += mark(part.value, firstAdded);
			firstAdded = false;
		} else {
			removed += part.value;
			added += part.value;
		}
	}
	return { removed, added };
}

export function renderDiff(diffText, _options = {}) {
	const lines = diffText.split("\n");
	const out = [];
	let i = 0;
	const run = (prefix) => {
		const collected = [];
		for (let p = parseLine(lines[i] ?? ""); i < lines.length && p && p.prefix === prefix; p = parseLine(lines[i] ?? "")) {
			collected.push(p);
			i++;
		}
		return collected;
	};
	while (i < lines.length) {
		const parsed = parseLine(lines[i]);
		if (!parsed) {
			out.push(theme.fg("toolDiffContext", lines[i++]));
		} else if (parsed.prefix === "-") {
			const removed = run("-");
			const added = run("+");
			if (removed.length === 1 && added.length === 1) {
				// One line changed: show which words.
				const d = intraLine(untab(removed[0].content), untab(added[0].content));
				out.push(theme.fg("toolDiffRemoved", `-${removed[0].lineNum} ${d.removed}`));
				out.push(theme.fg("toolDiffAdded", `+${added[0].lineNum} ${d.added}`));
			} else {
				for (const r of removed) out.push(theme.fg("toolDiffRemoved", `-${r.lineNum} ${untab(r.content)}`));
				for (const a of added) out.push(theme.fg("toolDiffAdded", `+${a.lineNum} ${untab(a.content)}`));
			}
		} else if (parsed.prefix === "+") {
			out.push(theme.fg("toolDiffAdded", `+${parsed.lineNum} ${untab(parsed.content)}`));
			i++;
		} else {
			out.push(theme.fg("toolDiffContext", ` ${parsed.lineNum} ${untab(parsed.content)}`));
			i++;
		}
	}
	return out.join("\n");
}
