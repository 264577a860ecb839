// Runs one pi example extension's custom UI (or editor component) with a key script and prints
// the rendered frames as JSON. Started by check_examples.mjs with a resolve hook that maps pi's
// packages either to the reference or to pi-agent's modules.
//   node drive_example.mjs <example dir> <file> tool|command|editor <name> <keys JSON> [args JSON]
const [dir, file, kind, name, keysJson, argsJson] = process.argv.slice(2);
const keys = JSON.parse(keysJson);
let seed = 42;
Math.random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const agent = await import("@earendil-works/pi-coding-agent");
agent.initTheme?.("dark");
const mod = await import(`${dir}/${file}`);
const tools = {};
const commands = {};
const handlers = {};
const api = {
	registerTool: (t) => (tools[t.name] = t),
	registerCommand: (n, c) => (commands[n] = c),
	on: (event, fn) => (handlers[event] ??= []).push(fn),
	getActiveTools: () => ["read", "bash", "edit"],
	getAllTools: () => ["read", "bash", "edit"].map((n) => ({ name: n, description: n })),
	events: { on() {}, emit() {} },
};
await mod.default(new Proxy(api, { get: (t, p) => (p in t ? t[p] : () => {}) }));
const theme = { fg: (c, s) => `<${c}>${s}</>`, bg: (c, s) => `[${c}]${s}[/]`, bold: (s) => `*${s}*`, italic: (s) => `_${s}_`, underline: (s) => s, strikethrough: (s) => `~${s}~`, inverse: (s) => `!${s}!` };
const frames = [];
const tui = { terminal: { rows: 30, columns: 60 }, requestRender() {} };
const ui = {
	theme,
	notify: (m) => frames.push(["notify", m]),
	setStatus() {},
	setWidget() {},
	custom: (factory) =>
		new Promise((resolve) => {
			let finished = false;
			Promise.resolve(factory(tui, theme, {}, (v) => ((finished = true), resolve(v)))).then(async (c) => {
				frames.push(c.render(60));
				for (const k of keys) {
					if (finished) break;
					c.handleInput?.(k);
					await new Promise((r) => setTimeout(r, 5));
					frames.push(c.render(60));
				}
				if (!finished) {
					c.dispose?.();
					resolve("unfinished");
				}
			});
		}),
};
const ctx = { mode: "tui", hasUI: true, ui, cwd: "/tmp", sessionManager: { getBranch: () => [], getEntries: () => [] }, modelRegistry: {} };
seed = 42;
if (kind === "editor") {
	const tuiModule = await import("@earendil-works/pi-tui");
	const kb = new tuiModule.KeybindingsManager({ ...tuiModule.TUI_KEYBINDINGS, "app.interrupt": { defaultKeys: "escape" }, "app.exit": { defaultKeys: "ctrl+d" } });
	let factory;
	ui.setEditorComponent = (f) => (factory = f);
	for (const h of handlers.session_start ?? []) await h({}, ctx);
	const editor = factory(tui, { borderColor: (s) => `<b>${s}</b>`, selectList: {} }, kb);
	frames.push(editor.render(40));
	for (const k of keys) {
		editor.handleInput(k);
		frames.push(editor.render(40));
	}
	console.log(JSON.stringify(frames));
} else {
	const args = JSON.parse(argsJson ?? "null");
	const result = kind === "tool" ? await tools[name].execute("id", args, undefined, undefined, ctx) : await commands[name].handler(args ?? "", ctx);
	console.log(JSON.stringify({ frames, result }));
}
process.exit(0);
