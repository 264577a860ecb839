// Editor cases: typing, wrapping, cursor movement, history, paste markers, kill/yank, undo,
// jumps, scrolling and autocomplete, compared by rendered frames.
const E = "\x1b";
const theme = {
	borderColor: (s) => s,
	selectList: { selectedPrefix: (s) => s, selectedText: (s) => `\x1b[36m${s}\x1b[39m`, description: (s) => `\x1b[2m${s}\x1b[22m`, scrollInfo: (s) => s, noMatch: (s) => s },
};
const fakeTui = (rows = 24) => ({ terminal: { rows, columns: 80 }, requests: 0, requestRender() { this.requests++; } });
const type = (s) => [...s];
const flush = () => new Promise((resolve) => setTimeout(resolve, 40));

export function editorCases(tui) {
	const { Editor } = tui;
	const drive = (keys, { width = 30, rows = 24, options, setup, frames = true } = {}) => {
		const t = fakeTui(rows);
		const editor = new Editor(t, theme, options);
		const events = [];
		editor.onSubmit = (v) => events.push(["submit", v]);
		editor.onChange = (v) => events.push(["change", v]);
		setup?.(editor);
		const shots = [];
		for (const key of keys) {
			editor.handleInput(key);
			if (frames) shots.push(editor.render(width));
		}
		return { shots, final: editor.render(width), text: editor.getText(), expanded: editor.getExpandedText(), cursor: editor.getCursor(), lines: editor.getLines(), events, empty: editor.isEditorEmpty() };
	};
	const cases = [];
	cases.push(["Editor.empty", () => [0, 1, 2, 10, 40].map((w) => new Editor(fakeTui(), theme).render(w))]);
	cases.push(["Editor.typing.submit", () => drive([...type("hello world"), "\r", ...type("second"), `${E}\r`, ...type("line"), "\r"])]);
	cases.push(["Editor.wrap", () => drive([...type("the quick brown fox jumps over the lazy dog and keeps on running"), `${E}[A`, `${E}[A`, `${E}[D`, `${E}[B`, `${E}[B`, "\x01", "\x05"], { width: 16 })]);
	cases.push(["Editor.wrap.cjk.wide", () => drive([...type("日本語のテキストを折り返す 😀😀😀 mixed"), `${E}[A`, `${E}[D`, "\x7f"], { width: 12 })]);
	cases.push(["Editor.multiline.navigation", () => drive([...type("first line"), "\n", ...type("2nd"), "\n", ...type("third line here"), `${E}[A`, `${E}[A`, `${E}[C`, `${E}[B`, `${E}[B`, `${E}[B`, "\x01", "\x7f", "\x04", "\x04"], { width: 30 })]);
	cases.push(["Editor.words.kill.yank", () => drive([...type("alpha beta gamma"), "\x17", "\x17", "\x19", `${E}b`, `${E}d`, "\x0b", "\x01", "\x0b", "\x19", `${E}y`, "\n", ...type("x"), "\x15", "\x15", "\x19", `${E}f`, `${E}[1;5D`, `${E}\x7f`])]);
	cases.push(["Editor.undo", () => drive([...type("one two"), "\n", ...type("three"), "\x1f", "\x1f", "\x1f", "\x1f", "\x1f", ...type("z"), "\x1b[3~", "\x1f"])]);
	cases.push([
		"Editor.history",
		() =>
			drive([`${E}[A`, `${E}[A`, `${E}[A`, `${E}[B`, `${E}[B`, `${E}[B`, ...type("draft"), "\x01", `${E}[A`, `${E}[B`], {
				setup: (e) => {
					e.addToHistory("older prompt");
					e.addToHistory("  newer prompt  ");
					e.addToHistory("newer prompt");
					e.addToHistory("   ");
				},
			}),
	]);
	const big = Array.from({ length: 15 }, (_, i) => `pasted line ${i}`).join("\n");
	cases.push(["Editor.paste", () => drive([`${E}[200~small\tpaste${E}[201~`, `${E}[200~${big}`, `${E}[201~`, ...type(" and "), `${E}[200~${"y".repeat(1200)}${E}[201~`, `${E}[D`, `${E}[D`, "\x7f", `${E}[200~multi\r\nline${E}[201~`, `${E}[200~/path/x${E}[201~`, `${E}[200~a${E}[106;5ub${E}[201~`, "\r"], { width: 40 })]);
	cases.push(["Editor.paste.markers.nav", () => drive([...type("ab"), `${E}[200~${big}${E}[201~`, ...type("cd"), `${E}[D`, `${E}[D`, `${E}[D`, `${E}[C`, `${E}b`, `${E}f`, `${E}[H`, "\x1b[3~", "\x1f"], { width: 12 })]);
	cases.push(["Editor.jump", () => drive([...type("find the x in text x"), "\x01", "\x1d", "x", "\x1d", "x", `${E}\x1d`, "t", "\x1d", "\x1d", "\x1d", "\x01", "q"])]);
	cases.push(["Editor.backslash.enter", () => drive([...type("line one\\"), "\r", ...type("two"), "\r"])]);
	cases.push(["Editor.disableSubmit", () => drive([...type("no submit"), "\r", "\x03"], { setup: (e) => (e.disableSubmit = true) })]);
	cases.push([
		"Editor.scroll",
		() => {
			const keys = [];
			for (let i = 0; i < 12; i++) keys.push(...type(`row ${i}`), "\n");
			keys.push(`${E}[5~`, `${E}[A`, `${E}[5~`, `${E}[6~`, `${E}[6~`);
			return drive(keys, { width: 20, rows: 10 });
		},
	]);
	cases.push([
		"Editor.padding.focused",
		() => {
			const e = new Editor(fakeTui(), { ...theme, borderColor: (s) => `\x1b[90m${s}\x1b[39m` }, { paddingX: 2, autocompleteMaxVisible: 50 });
			e.focused = true;
			e.setText("padded text that wraps around\twith a tab");
			const a = [e.render(20), e.render(3), e.getPaddingX(), e.getAutocompleteMaxVisible()];
			e.setPaddingX(-3);
			e.setAutocompleteMaxVisible(1);
			e.handleInput("\x01");
			return [a, e.render(20), e.getPaddingX(), e.getAutocompleteMaxVisible(), e.getText()];
		},
	]);
	cases.push([
		"Editor.setText.insert",
		() => {
			const e = new Editor(fakeTui(), theme);
			e.setText("a\r\nb\rc");
			const one = [e.getLines(), e.getCursor()];
			e.insertTextAtCursor("X\nY");
			e.insertTextAtCursor("");
			const two = [e.getLines(), e.getCursor(), e.render(20)];
			e.handleInput("\x1f");
			e.handleInput("\x1f");
			return [one, two, e.getLines(), e.isShowingAutocomplete()];
		},
	]);
	cases.push([
		"Editor.autocomplete",
		async () => {
			const provider = {
				async getSuggestions(lines, line, col, options) {
					const before = lines[line].slice(0, col);
					if (before.startsWith("/")) {
						const all = [
							{ value: "model", label: "model", description: "Pick a model" },
							{ value: "mode", label: "mode" },
							{ value: "help", label: "help", description: "Show help" },
						];
						const q = before.slice(1);
						const items = all.filter((i) => i.value.startsWith(q));
						return items.length ? { items, prefix: before } : null;
					}
					if (options.force) return { items: [{ value: "file.txt", label: "file.txt" }], prefix: before.split(" ").pop() };
					return null;
				},
				applyCompletion(lines, line, col, item, prefix) {
					const current = lines[line];
					const start = col - prefix.length;
					const value = prefix.startsWith("/") ? `/${item.value} ` : item.value;
					const next = [...lines];
					next[line] = current.slice(0, start) + value + current.slice(col);
					return { lines: next, cursorLine: line, cursorCol: start + value.length };
				},
			};
			const e = new Editor(fakeTui(), theme);
			const submitted = [];
			e.onSubmit = (v) => submitted.push(v);
			e.setAutocompleteProvider(provider);
			const frames = [];
			for (const key of ["/", "m", "o", `${E}[B`, "d", E, "\x7f", "\t", "x", "\r", "see ", "\t"]) {
				e.handleInput(key);
				await flush();
				frames.push([e.render(40), e.isShowingAutocomplete()]);
			}
			return { frames, submitted, text: e.getText() };
		},
	]);
	return cases;
}
