// Theme behaviour that depends on the process: decorations off when stdout is a pipe (as for
// pi-agent's sidecar), the theme pi-agent picks from settings on first use, custom theme
// files, and the terminal-only classes refusing construction.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { BUILTIN_THEMES } from "../../src/extensions/runtime/pi_coding_agent_themes.mjs";

const runtime = new URL("../../src/extensions/runtime/", import.meta.url);
const goldens = JSON.parse(readFileSync(new URL("./goldens/pi_coding_agent_tui.json", import.meta.url), "utf8"));

// Run `code` (an ES module body) in a fresh Node with the given environment; returns its JSON.
function inChild(code, env) {
	const clean = { PATH: process.env.PATH, HOME: process.env.HOME, TERM: "xterm-256color", ...env };
	const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { env: clean, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
	return JSON.parse(out);
}

const themeModule = JSON.stringify(new URL("pi_coding_agent_tui.mjs", runtime).href);

test("decorations are off on a pipe unless FORCE_COLOR says otherwise", () => {
	const code = `const m = await import(${themeModule}); m.initTheme("dark"); const t = m.getMarkdownTheme();
		console.log(JSON.stringify([t.bold("b"), t.italic("i"), t.strikethrough("s"), t.heading("h")]));`;
	const piped = inChild(code, { PI_CODING_AGENT_DIR: "/nonexistent" });
	assert.deepEqual(piped.slice(0, 3), ["b", "i", "s"]);
	assert.equal(piped[3], goldens["themes.dark"].markdown.heading.replace("t", "h"));
	const forced = inChild(code, { PI_CODING_AGENT_DIR: "/nonexistent", FORCE_COLOR: "1" });
	assert.deepEqual(forced.slice(0, 3), ["\x1b[1mb\x1b[22m", "\x1b[3mi\x1b[23m", "\x1b[9ms\x1b[29m"]);
	const off = inChild(code, { PI_CODING_AGENT_DIR: "/nonexistent", FORCE_COLOR: "0" });
	assert.deepEqual(off.slice(0, 3), ["b", "i", "s"]);
});

test("the first use of the theme loads the one in settings (project over global)", () => {
	const dir = mkdtempSync(join(tmpdir(), "pi-theme-"));
	try {
		const agentDir = join(dir, "agent");
		const project = join(dir, "project");
		mkdirSync(join(agentDir, "themes"), { recursive: true });
		mkdirSync(join(project, ".pi"), { recursive: true });
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ theme: "light" }));
		const code = `process.chdir(${JSON.stringify(project)}); const m = await import(${themeModule});
			console.log(JSON.stringify(m.getMarkdownTheme().heading("t")));`;
		const env = { PI_CODING_AGENT_DIR: agentDir, FORCE_COLOR: "1" };
		assert.equal(inChild(code, env), goldens["themes.light"].markdown.heading);
		writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ theme: "dark" }));
		assert.equal(inChild(code, env), goldens["themes.dark"].markdown.heading);
		// A custom theme file from <agentDir>/themes, by name.
		const custom = { ...BUILTIN_THEMES.dark, name: "mine", colors: { ...BUILTIN_THEMES.dark.colors, mdHeading: "#ff0000" } };
		writeFileSync(join(agentDir, "themes", "mine.json"), JSON.stringify(custom));
		writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ theme: "mine" }));
		assert.equal(inChild(code, env), "\x1b[38;5;196mt\x1b[39m");
		// An unknown name falls back to dark.
		writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ theme: "no-such" }));
		assert.equal(inChild(code, env), goldens["themes.dark"].markdown.heading);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("terminal and interactive-only classes refuse construction by name", async () => {
	const tui = await import(new URL("pi_tui.mjs", runtime).href);
	const agent = await import(new URL("pi_coding_agent_tui.mjs", runtime).href);
	for (const [name, Class] of [
		["ProcessTerminal", tui.ProcessTerminal],
		["TuiAltScreen", tui.TuiAltScreen],
		["TuiMainScreen", tui.TuiMainScreen],
		["FooterComponent", agent.FooterComponent],
		["ModelSelectorComponent", agent.ModelSelectorComponent],
		["ToolExecutionComponent", agent.ToolExecutionComponent],
	]) {
		assert.throws(() => new Class(), { message: `${name} is not supported by pi-agent yet` });
	}
});
