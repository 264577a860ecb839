// Differential check against the reference (needs it installed, and Node 22 for type
// stripping): runs pi's example extensions' custom UIs with key scripts once on the reference
// packages and once on pi-agent's pi-tui / pi-coding-agent TUI modules, and reports whether
// the rendered frames are the same.
//   ~/.cache/pi-reference/0.84.1/node/node_modules/node/bin/node agent/tests/runtime/examples/check_examples.mjs
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ref = process.env.REF ?? join(homedir(), ".cache/pi-reference/0.84.1/pi/node_modules");
const runtime = fileURLToPath(new URL("../../../src/extensions/runtime/", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "pi-tui-examples-"));
// Type stripping refuses files under node_modules: work on a copy of the examples.
cpSync(join(ref, "@earendil-works/pi-coding-agent/examples/extensions"), join(work, "ex"), { recursive: true });
const refAgent = await import(join(ref, "@earendil-works/pi-coding-agent/dist/index.js"));
const ours = await import(join(runtime, "pi_coding_agent_tui.mjs"));
// pi-agent's side: its TUI values, plus placeholders for the rest of pi-coding-agent.
writeFileSync(join(work, "agent.mjs"), [`export * from ${JSON.stringify(join(runtime, "pi_coding_agent_tui.mjs"))};`, ...Object.keys(refAgent).filter((k) => !(k in ours)).map((k) => `export const ${k} = undefined;`)].join("\n"));
const shared = { typebox: join(ref, "typebox/build/index.mjs"), "@earendil-works/pi-ai": join(ref, "@earendil-works/pi-ai/dist/index.js") };
const sides = {
	reference: { ...shared, "@earendil-works/pi-tui": join(ref, "@earendil-works/pi-tui/dist/index.js"), "@earendil-works/pi-coding-agent": join(ref, "@earendil-works/pi-coding-agent/dist/index.js") },
	"pi-agent": { ...shared, "@earendil-works/pi-tui": join(runtime, "pi_tui.mjs"), "@earendil-works/pi-coding-agent": join(work, "agent.mjs") },
};
for (const [side, map] of Object.entries(sides)) {
	writeFileSync(join(work, `${side}.hooks.mjs`), `const map = ${JSON.stringify(map)};\nexport async function resolve(s, c, next) { return map[s] ? { url: "file://" + map[s], shortCircuit: true } : next(s, c); }\n`);
	writeFileSync(join(work, `${side}.register.mjs`), `import { register } from "node:module"; register(${JSON.stringify(`./${side}.hooks.mjs`)}, import.meta.url);\n`);
}
const E = "\x1b";
const question = { question: "Long question text that should wrap around the narrow width?", options: [{ label: "Alpha", description: "first option with a long description" }, { label: "Beta 日本語" }] };
const questionnaire = { questions: [{ id: "a", prompt: "First?", options: [{ value: "1", label: "One" }, { value: "2", label: "Two", description: "second" }] }, { id: "b", label: "B", prompt: "Second?", options: [{ value: "x", label: "X" }] }] };
const runs = [
	["question.ts", "tool", "question", [`${E}[B`, `${E}[B`, "\r", "a", `${E}[D`, "\x17", "b", "\r"], question],
	["question.ts", "tool", "question", [`${E}[B`, `${E}[A`, `${E}[B`, "\r"], question],
	["questionnaire.ts", "tool", "questionnaire", [E], questionnaire],
	["snake.ts", "command", "snake", [`${E}[C`, `${E}[C`, `${E}[B`, "p", "p", E]],
	["space-invaders.ts", "command", "invaders", [`${E}[C`, `${E}[D`, " ", "p", "p", E]],
	["tic-tac-toe.ts", "command", "tic-tac-toe", [`${E}[C`, "\r", `${E}[B`, "\r", E]],
	["tools.ts", "command", "tools", [`${E}[B`, " ", `${E}[B`, "\r", E]],
	["todo.ts", "command", "todos", [E]],
	["modal-editor.ts", "editor", "-", [..."hello world", E, "h", "h", "i", "X", E, "d", "d", "\r"]],
	["rainbow-editor.ts", "editor", "-", [..."happy day"]],
];
let same = 0;
try {
	for (const [file, kind, name, keys, args] of runs) {
		const out = {};
		for (const side of Object.keys(sides)) {
			const argv = ["--experimental-strip-types", "--no-warnings", "--import", join(work, `${side}.register.mjs`), fileURLToPath(new URL("./drive_example.mjs", import.meta.url)), join(work, "ex"), file, kind, name, JSON.stringify(keys), JSON.stringify(args ?? null)];
			out[side] = execFileSync(process.execPath, argv, { encoding: "utf8", env: { ...process.env, PI_CODING_AGENT_DIR: join(work, "agent-dir") } });
		}
		const ok = out.reference === out["pi-agent"];
		if (ok) same++;
		console.log(`${ok ? "same" : "DIFFERENT"}: ${file} ${kind} ${name} (${out.reference.length} bytes)`);
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
console.log(`${same}/${runs.length} example runs render the same`);
process.exit(same === runs.length ? 0 : 1);
