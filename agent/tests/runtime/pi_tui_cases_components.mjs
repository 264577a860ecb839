// Component cases: construct as extensions do, drive with input, compare render(width).
import { autocompleteCases } from "./pi_tui_cases_autocomplete.mjs";
import { editorCases } from "./pi_tui_cases_editor.mjs";
import { imageCases } from "./pi_tui_cases_image.mjs";

const E = "\x1b";
export const cyan = (s) => `\x1b[36m${s}\x1b[39m`;
export const dim = (s) => `\x1b[2m${s}\x1b[22m`;
export const bgBlue = (s) => `\x1b[44m${s}\x1b[49m`;

export const selectTheme = {
	selectedPrefix: (s) => `<sp>${s}`,
	selectedText: cyan,
	description: dim,
	scrollInfo: (s) => `[${s}]`,
	noMatch: (s) => `!${s}`,
};

export const settingsTheme = {
	label: (s, sel) => (sel ? cyan(s) : s),
	value: (s, sel) => (sel ? cyan(s) : dim(s)),
	description: dim,
	cursor: cyan("→ "),
	hint: dim,
};

const widths = [1, 10, 30, 41, 60, 100];
const renderAt = (component, list = widths) => Object.fromEntries(list.map((w) => [w, component.render(w)]));

export function componentCases(tui) {
	const { Text, Box, Container, Spacer, TruncatedText, SelectList, SettingsList, Input, Loader, CancellableLoader, HStack, VStack, ScrollView } = tui;
	const cases = [];
	const texts = ["", "   ", "hello", "a longer line of text that will need to wrap at narrow widths", "line1\nline2\n\nline4", "tab\tstop", `\x1b[31mred\x1b[39m and plain`, "日本語 text wraps 日本語"];
	cases.push(["Text.default", () => texts.map((t) => renderAt(new Text(t)))]);
	cases.push(["Text.padding", () => texts.map((t) => renderAt(new Text(t, 0, 0)))]);
	cases.push(["Text.padding.2.1.bg", () => texts.map((t) => renderAt(new Text(t, 2, 1, bgBlue)))]);
	cases.push([
		"Text.setText.cache",
		() => {
			const t = new Text("first", 1, 0);
			const a = t.render(20);
			const b = t.render(20);
			t.setText("second");
			const c = t.render(20);
			t.setCustomBgFn(bgBlue);
			return [a, a === b, c, t.render(20), new Text().render(5)];
		},
	]);
	cases.push([
		"Box",
		() => {
			const box = new Box(1, 1, bgBlue);
			const empty = box.render(10);
			box.addChild(new Text("inside the box", 0, 0));
			box.addChild(new Spacer(1));
			box.addChild(new Text("second child text", 1, 0));
			const out = renderAt(box);
			box.setBgFn(cyan);
			const recoloured = box.render(30);
			const plain = new Box();
			plain.addChild(new Text("no bg", 0, 0));
			const z = new Box(0, 0);
			z.addChild(new Text("zero pad", 0, 0));
			const spacerOnly = new Box(2, 1);
			spacerOnly.addChild(new Spacer(0));
			return { empty, out, recoloured, plain: renderAt(plain), zero: renderAt(z), spacerOnly: spacerOnly.render(10) };
		},
	]);
	cases.push([
		"Box.removeChild.clear",
		() => {
			const box = new Box(2, 0);
			const a = new Text("a", 0, 0);
			const b = new Text("b", 0, 0);
			box.addChild(a);
			box.addChild(b);
			const both = box.render(8);
			box.removeChild(a);
			const one = box.render(8);
			box.clear();
			return [both, one, box.render(8), box.children.length];
		},
	]);
	cases.push([
		"Container",
		() => {
			const c = new Container();
			const t1 = new Text("one", 0, 0);
			c.addChild(t1);
			c.addChild(new Spacer(2));
			c.addChild(new TruncatedText("truncated line that is long", 1, 0));
			const full = renderAt(c);
			c.removeChild(t1);
			const removed = c.render(12);
			c.invalidate();
			c.clear();
			return { full, removed, cleared: c.render(12) };
		},
	]);
	cases.push(["Spacer", () => [new Spacer().render(5), new Spacer(3).render(5), new Spacer(0).render(5)]]);
	cases.push([
		"TruncatedText",
		() =>
			["", "short", "a very long line that must be truncated somewhere", "first line\nsecond line", `\x1b[31mcoloured text that is long\x1b[39m`, "日本語の長いテキストです"].map((t) => [
				renderAt(new TruncatedText(t)),
				renderAt(new TruncatedText(t, 2, 1)),
			]),
	]);
	const items = [
		{ value: "alpha", label: "Alpha", description: "First item in the list" },
		{ value: "beta", label: "Beta", description: "Second item,\nwith a newline in its description" },
		{ value: "gamma", label: "" },
		{ value: "delta-with-a-very-long-value-name-that-exceeds-the-column", label: "delta-with-a-very-long-value-name-that-exceeds-the-column", description: "long" },
		{ value: "epsilon", label: "Epsilon 日本", description: "wide label" },
		{ value: "zeta", label: "Zeta" },
		{ value: "eta", label: "Eta", description: "last" },
	];
	cases.push(["SelectList.render", () => renderAt(new SelectList(items, 5, selectTheme), [10, 30, 40, 41, 50, 80, 120])]);
	cases.push([
		"SelectList.navigation",
		() => {
			const list = new SelectList(items, 3, selectTheme);
			const events = [];
			list.onSelect = (item) => events.push(["select", item.value]);
			list.onCancel = () => events.push(["cancel"]);
			list.onSelectionChange = (item) => events.push(["change", item.value]);
			const frames = [list.render(60)];
			for (const key of [`${E}[B`, `${E}[B`, `${E}[B`, `${E}[A`, `${E}[A`, `${E}[A`, `${E}[A`, "\r", E, "\x03", "x"]) {
				list.handleInput(key);
				frames.push(list.render(60));
			}
			return { frames, events, selected: list.getSelectedItem() };
		},
	]);
	cases.push([
		"SelectList.filter.layout",
		() => {
			const list = new SelectList(items, 5, selectTheme, { minPrimaryColumnWidth: 10, maxPrimaryColumnWidth: 20 });
			const a = list.render(70);
			list.setFilter("E");
			const b = list.render(70);
			list.setFilter("zz");
			const c = list.render(70);
			list.setFilter("");
			list.setSelectedIndex(99);
			const d = [list.render(70), list.getSelectedItem()];
			const custom = new SelectList(items, 7, selectTheme, {
				maxPrimaryColumnWidth: 12,
				truncatePrimary: ({ text, maxWidth, columnWidth, isSelected }) => `${isSelected ? "*" : ""}${text}|${maxWidth}|${columnWidth}`,
			});
			const empty = new SelectList([], 5, selectTheme);
			return { a, b, c, d, custom: custom.render(80), empty: [empty.render(30), empty.getSelectedItem()] };
		},
	]);
	const settingItems = () => [
		{ id: "theme", label: "Theme", currentValue: "dark", values: ["dark", "light"], description: "Colour theme for the interface, applied immediately" },
		{ id: "autosave", label: "Autosave", currentValue: "on", values: ["on", "off"] },
		{ id: "model", label: "Default model name", currentValue: "claude-sonnet-4-5-with-a-long-suffix", description: "Model used for new sessions" },
		{ id: "empty", label: "No values", currentValue: "n/a" },
		{ id: "sub", label: "Submenu", currentValue: "x", description: "opens a submenu" },
	];
	cases.push([
		"SettingsList.render.navigate",
		() => {
			const changes = [];
			let cancelled = 0;
			const list = new SettingsList(settingItems(), 3, settingsTheme, (id, v) => changes.push([id, v]), () => cancelled++);
			const frames = [renderAt(list, [20, 50, 80])];
			for (const key of ["\r", " ", `${E}[B`, " ", `${E}[B`, `${E}[B`, "\r", `${E}[A`, `${E}[A`, `${E}[A`, `${E}[A`, E]) {
				list.handleInput(key);
				frames.push(list.render(50));
			}
			list.updateValue("autosave", "later");
			frames.push(list.render(50));
			return { frames, changes, cancelled };
		},
	]);
	cases.push([
		"SettingsList.search.submenu",
		() => {
			const changes = [];
			const items = settingItems();
			items[4].submenu = (current, done) => {
				const sub = new SelectList(
					[
						{ value: "x", label: "X" },
						{ value: "y", label: "Y" },
					],
					5,
					selectTheme,
				);
				sub.setSelectedIndex(current === "x" ? 0 : 1);
				sub.onSelect = (item) => done(item.value);
				sub.onCancel = () => done(undefined);
				return sub;
			};
			const list = new SettingsList(items, 5, settingsTheme, (id, v) => changes.push([id, v]), () => changes.push(["cancel"]), { enableSearch: true });
			const frames = [list.render(60)];
			for (const key of ["s", "u", "b", " ", "\r", `${E}[B`, "\r", "\x7f", "\x7f", "\x7f", "z", "z", "\x7f", "\x7f", " "]) {
				list.handleInput(key);
				frames.push(list.render(60));
			}
			const none = new SettingsList([], 5, settingsTheme, () => {}, () => {}, { enableSearch: true });
			const none2 = new SettingsList([], 5, settingsTheme, () => {}, () => {});
			return { frames, changes, none: none.render(40), none2: none2.render(40) };
		},
	]);
	cases.push(...inputCases(Input));
	cases.push([
		"Loader",
		() => {
			const requests = [];
			const ui = { requestRender: () => requests.push(1) };
			const loader = new Loader(ui, cyan, dim, "Working...");
			const first = renderAt(loader, [5, 20, 40]);
			loader.setMessage("Still working");
			const second = loader.render(30);
			loader.setIndicator({ frames: ["*"], intervalMs: 5 });
			const custom = loader.render(30);
			loader.setIndicator({ frames: [] });
			const noFrame = loader.render(30);
			loader.stop();
			const def = new Loader(null, cyan, dim);
			const d = def.render(20);
			def.stop();
			return { first, second, custom, noFrame, d, requests: requests.length };
		},
	]);
	cases.push([
		"CancellableLoader",
		() => {
			const loader = new CancellableLoader({ requestRender() {} }, cyan, dim, "Cancellable");
			let aborted = 0;
			loader.onAbort = () => aborted++;
			const before = [loader.aborted, loader.signal.aborted];
			loader.handleInput("x");
			const mid = loader.aborted;
			loader.handleInput(E);
			const after = [loader.aborted, loader.signal.aborted, aborted];
			loader.dispose();
			return { before, mid, after, render: loader.render(30) };
		},
	]);
	cases.push([
		"HStack.VStack",
		() => {
			const h = new HStack([new Text("left side", 0, 0), { component: new Text("right side text", 0, 0), grow: 1 }], { gap: 1 });
			const v = new VStack([new Text("top", 0, 0), { component: new Text("bottom", 0, 0), basis: 3 }, { component: new Text("hidden", 0, 0), visible: () => false }], { gap: 1 });
			const centred = new HStack([new Text("a\nb\nc", 0, 0), new Text("mid", 0, 0)], { align: "center" });
			const ended = new HStack([new Text("a\nb\nc", 0, 0), { component: new Text("end", 0, 0), shrink: 0 }], { align: "end", gap: 2 });
			const squeezed = new HStack([{ component: new Text("one two three", 0, 0), minSize: 4 }, { component: new Text("four five six", 0, 0), maxSize: 6 }]);
			return {
				h: renderAt(h, [5, 12, 30, 50]),
				v: renderAt(v, [5, 20]),
				centred: centred.render(10),
				ended: renderAt(ended, [6, 20]),
				squeezed: renderAt(squeezed, [6, 10, 40]),
				empty: new HStack().render(10),
			};
		},
	]);
	cases.push([
		"ScrollView",
		() => {
			const child = new Text("one\ntwo\nthree\nfour\nfive", 0, 0);
			const sv = new ScrollView(child, { follow: "end" });
			const requested = [];
			sv.updateLayout(5, 2, () => requested.push(1));
			const s1 = [sv.scrollTop, sv.isFollowingEnd, sv.viewportHeight];
			const left = sv.scrollBy(-10);
			const s2 = [sv.scrollTop, sv.isFollowingEnd, left];
			sv.scrollTo(2);
			sv.scrollToEnd();
			const s3 = [sv.scrollTop, sv.isFollowingEnd];
			sv.scrollToStart();
			const always = new ScrollView(child, { scrollbar: "always" });
			let err = null;
			try {
				sv.addChild(child);
			} catch (e) {
				err = e.message;
			}
			let axisErr = null;
			try {
				new ScrollView(child, { axis: "horizontal" });
			} catch (e) {
				axisErr = e.message;
			}
			return { s1, s2, s3, start: sv.scrollTop, render: sv.render(10), always: always.render(10), visible: [sv.isScrollbarVisible, always.isScrollbarVisible], err, axisErr, requested: requested.length };
		},
	]);
	cases.push([
		"compositeTuiLine",
		() => [
			tui.compositeTuiLine("0123456789abcdef", "XYZ", 4, 3, 16),
			tui.compositeTuiLine("\x1b[31m0123456789\x1b[39m", "\x1b[1mover\x1b[22m", 2, 6, 12),
			tui.compositeTuiLine("日本語日本語", "ab", 1, 3, 12),
			tui.compositeTuiLine("short", "overlay text", 8, 6, 20),
			tui.compositeTuiLine("", "x", 0, 1, 4),
		],
	]);
	cases.push([
		"isFocusable.isViewportTUI",
		() => [tui.isFocusable(new Input()), tui.isFocusable(new Text("x")), tui.isFocusable({ focused: false }), tui.isViewportTUI({}), tui.isViewportTUI({ [Symbol.for("@earendil-works/pi-tui/viewport")]: true }), tui.CURSOR_MARKER],
	]);
	cases.push(...imageCases(tui));
	cases.push(...editorCases(tui));
	cases.push(...autocompleteCases(tui));
	return cases;
}

function inputCases(Input) {
	const drive = (keys, width = 20, setup) => {
		const input = new Input();
		const events = [];
		input.onSubmit = (v) => events.push(["submit", v]);
		input.onEscape = () => events.push(["escape"]);
		setup?.(input);
		const frames = [];
		for (const key of keys) {
			input.handleInput(key);
			frames.push([input.getValue(), input.render(width)[0]]);
		}
		return { frames, events };
	};
	const type = (s) => [...s];
	return [
		["Input.typing", () => drive([...type("hello world"), "\x7f", "\x7f", `${E}[D`, `${E}[D`, "X", "\x01", "Y", "\x05", "\r", E])],
		["Input.words.kill.yank", () => drive([...type("one two three"), "\x17", "\x17", "\x19", `${E}b`, `${E}b`, `${E}d`, "\x0b", "\x01", "\x0b", "\x19", "\x15", "\x19", `${E}y`, "\x1f", "\x1f"])],
		["Input.undo", () => drive([...type("abc def"), "\x1f", "\x1f", "\x1f", ...type("xyz"), "\x1b[3~", `${E}[D`, "\x1b[3~", "\x04", "\x1f", "\x1f"])],
		["Input.scroll", () => drive([...type("a fairly long piece of input text for scrolling"), "\x01", `${E}[C`, `${E}[C`, `${E}f`, `${E}f`, "\x05"], 12)],
		["Input.wide", () => drive([...type("日本語のテキスト"), "😀", `${E}[D`, `${E}[D`, "\x7f"], 10)],
		["Input.paste", () => drive([`${E}[200~pasted\nline\twith tab`, `${E}[201~`, "!", `${E}[200~all in one${E}[201~tail`], 40)],
		["Input.kitty", () => drive([`${E}[97u`, `${E}[65;2u`, `${E}[97;5u`, "\x00", "\u0085", `${E}[13u`], 20)],
		[
			"Input.setValue.focused.narrow",
			() => {
				const input = new Input();
				input.setValue("preset value");
				input.focused = true;
				const a = [input.render(30), input.render(2), input.render(1), input.render(3)];
				input.handleInput("\x05");
				input.setValue("ab");
				input.handleInput("c");
				return [a, input.getValue(), input.render(10)];
			},
		],
	];
}
