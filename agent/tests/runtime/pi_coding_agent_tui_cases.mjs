// Cases for the TUI values of pi-coding-agent, shared by the golden generator (reference
// package) and the test (pi-agent's pi_coding_agent_tui.mjs). `agent` is the module under
// test, `tui` the matching pi-tui module.
export function codingAgentTuiCases(agent, tui, ownNames) {
	const cases = [];
	const E = "\x1b";
	const withTheme = (name, fn) => () => {
		agent.initTheme(name);
		return fn();
	};
	cases.push(["exports", () => ownNames.map((k) => `${k}:${typeof agent[k]}`)]);
	const fgColors = { accent: "#8abeb7", text: "", muted: 244, dim: "#666666", border: "#5f87ff", bashMode: "#b5bd68", thinkingOff: "#505050", thinkingMinimal: "#6e6e6e", thinkingLow: "#5f87af", thinkingMedium: "#81a2be", thinkingHigh: "#b294bb", thinkingXhigh: "#d183e8", grey: "#7f7f80", white: "#ffffff" };
	const bgColors = { selectedBg: "#3a3a4a", userMessageBg: 236, empty: "" };
	for (const mode of ["truecolor", "256color"]) {
		cases.push([
			`Theme.${mode}`,
			() => {
				const t = new agent.Theme(fgColors, bgColors, mode, { name: "custom" });
				return {
					fg: Object.keys(fgColors).map((k) => t.fg(k, "x")),
					bg: [...Object.keys(bgColors), "scrollbarThumb"].map((k) => t.bg(k, "y")),
					thinkingMax: t.fg("thinkingMax", "m"),
					styles: ["bold", "italic", "underline", "inverse", "strikethrough"].map((s) => [t[s]("plain"), t[s](""), t[s](`a\x1b[22mb\x1b[23mc\x1b[24md`), t[s]("line1\nline2\r\nline3")]),
					levels: ["off", "minimal", "low", "medium", "high", "xhigh", "max", "bogus"].map((l) => t.getThinkingBorderColor(l)("|")),
					bash: t.getBashModeBorderColor()("$"),
					mode: t.getColorMode(),
					name: t.name,
					ansi: [t.getFgAnsi("accent"), t.getBgAnsi("selectedBg")],
				};
			},
		]);
	}
	cases.push([
		"Theme.errors",
		() => {
			const t = new agent.Theme(fgColors, bgColors, "truecolor");
			const errors = [];
			for (const fn of [() => t.fg("nope", "x"), () => t.bg("nope", "x"), () => t.getFgAnsi("nope"), () => new agent.Theme({ a: "#12" }, {}, "truecolor"), () => new agent.Theme({ a: "red" }, {}, "truecolor")]) {
				try {
					fn();
					errors.push(null);
				} catch (e) {
					errors.push(e.message);
				}
			}
			return errors;
		},
	]);
	const sample = "# Title\n\nSome **bold**, *italic*, `code`, ~~gone~~ and [a link](https://x.example).\n\n> quoted\n\n- item\n- [x] done\n\n```\nplain code\n```\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |";
	for (const name of ["dark", "light", "no-such-theme"]) {
		cases.push([
			`themes.${name}`,
			withTheme(name, () => {
				const md = agent.getMarkdownTheme();
				const sl = agent.getSelectListTheme();
				const st = agent.getSettingsListTheme();
				return {
					markdown: Object.fromEntries(Object.entries(md).map(([k, f]) => [k, k === "highlightCode" ? f("a\nb") : f("t")])),
					select: Object.fromEntries(Object.entries(sl).map(([k, f]) => [k, f("t")])),
					settings: [st.label("l", true), st.label("l", false), st.value("v", true), st.value("v", false), st.description("d"), st.cursor, st.hint("h")],
					rendered: new tui.Markdown(sample, 1, 0, md).render(50),
					highlight: [agent.highlightCode("x = 1\ny"), agent.highlightCode("text", "no-such-language")],
				};
			}),
		]);
	}
	cases.push([
		"getLanguageFromPath",
		() => ["a.ts", "b.PY", "Makefile", "x.dockerfile", "noext", "dir.d/file.RS", "a.tf", "a.unknown", ".bashrc", "a.h", ""].map((p) => agent.getLanguageFromPath(p) ?? null),
	]);
	cases.push([
		"DynamicBorder.keyHints",
		withTheme("dark", () => [
			new agent.DynamicBorder().render(10),
			new agent.DynamicBorder((s) => `<${s}>`).render(0),
			agent.keyText("tui.select.cancel"),
			agent.keyText("tui.editor.cursorWordLeft"),
			agent.keyText("app.tools.expand"),
			agent.keyHint("tui.select.confirm", "select"),
			agent.rawKeyHint("ctrl+shift+x", "do it"),
		]),
	]);
	cases.push([
		"BorderedLoader",
		withTheme("dark", () => {
			const t = new agent.Theme(fgColors, bgColors, "256color");
			const ui = { requestRender() {} };
			const a = new agent.BorderedLoader(ui, t, "Working...");
			let aborted = 0;
			a.onAbort = () => aborted++;
			const first = a.render(30);
			a.handleInput(E);
			const state = [a.signal.aborted, aborted];
			a.dispose();
			const b = new agent.BorderedLoader(ui, t, "Fixed", { cancellable: false });
			const second = b.render(20);
			b.handleInput(E);
			const bState = b.signal.aborted;
			b.dispose();
			return { first, state, second, bState };
		}),
	]);
	cases.push([
		"CustomEditor",
		withTheme("dark", () => {
			const kb = new tui.KeybindingsManager({
				...tui.TUI_KEYBINDINGS,
				"app.interrupt": { defaultKeys: "escape" },
				"app.exit": { defaultKeys: "ctrl+d" },
				"app.clipboard.pasteImage": { defaultKeys: "ctrl+v" },
				"app.model.select": { defaultKeys: "ctrl+l" },
			});
			const events = [];
			const editor = new agent.CustomEditor({ terminal: { rows: 24 }, requestRender() {} }, { borderColor: (s) => s, selectList: {} }, kb);
			editor.onSubmit = (v) => events.push(["submit", v]);
			editor.onAction("app.model.select", () => events.push(["model"]));
			editor.onAction("app.exit", () => events.push(["exit"]));
			editor.onPasteImage = () => events.push(["paste-image"]);
			editor.onExtensionShortcut = (d) => d === "\x07" && (events.push(["ext"]), true);
			for (const key of ["\x04", "h", "i", "\x0c", "\x16", "\x07", E, "\x04", "\r"]) editor.handleInput(key);
			editor.onEscape = () => events.push(["escape"]);
			editor.handleInput(E);
			return { events, text: editor.getText(), render: editor.render(20) };
		}),
	]);
	cases.push([
		"truncateToVisualLines",
		() => [agent.truncateToVisualLines("", 3, 10), agent.truncateToVisualLines("one two three four five six seven", 2, 10), agent.truncateToVisualLines("a\nb", 5, 10, 1)],
	]);
	const diffs = [
		" 1 unchanged\n-2 old line\n+2 new line\n 3 after",
		"-1 removed one\n-2 removed two\n+1 added one",
		"+5 only added\n     ...\n 9 ctx\twith tab",
		"-3 \tindented old\n+3 \tindented new",
		"-1 const x = 1;\n+1 const y = 1;",
		"not a diff line\n-7 a b c\n+7 a x c",
	];
	// (pi's word diff moves whitespace between changed and unchanged parts in ways pi-agent's
	// simpler word diff does not follow, e.g. for a word added at the end: not covered here.)
	cases.push(["renderDiff", withTheme("dark", () => diffs.map((d) => agent.renderDiff(d)))]);
	cases.push([
		"message components",
		withTheme("dark", () => {
			const md = agent.getMarkdownTheme();
			const user = new agent.UserMessageComponent("Hello **there**\n\n1) first\n\\*raw\\*", md, 1, [(m) => `${m} (t)`]);
			const userRender = user.render(30);
			user.setOutputPad(0);
			const custom = new agent.CustomMessageComponent({ customType: "note", content: [{ type: "text", text: "A *custom* message" }, { type: "image" }] }, undefined, md);
			const rendered = new agent.CustomMessageComponent({ customType: "x", content: "s" }, (msg, opts) => new tui.Text(`custom:${msg.content}:${opts.expanded}`, 0, 0), md);
			rendered.setExpanded(true);
			const failing = new agent.CustomMessageComponent({ customType: "y", content: "fallback" }, () => {
				throw new Error("boom");
			}, md);
			const branch = new agent.BranchSummaryMessageComponent({ summary: "Did things." }, md);
			const branchCollapsed = branch.render(30);
			branch.setExpanded(true);
			const compaction = new agent.CompactionSummaryMessageComponent({ summary: "Summary.", tokensBefore: 12345 }, md);
			const compactionCollapsed = compaction.render(30);
			compaction.setExpanded(true);
			const skill = new agent.SkillInvocationMessageComponent({ name: "my-skill", content: "Skill body" }, md);
			const skillCollapsed = skill.render(30);
			skill.setExpanded(true);
			return {
				user: [userRender, user.render(30)],
				custom: custom.render(30),
				rendered: rendered.render(30),
				failing: failing.render(30),
				branch: [branchCollapsed, branch.render(30)],
				compaction: [compactionCollapsed, compaction.render(30)],
				skill: [skillCollapsed, skill.render(30)],
			};
		}),
	]);
	return cases;
}
