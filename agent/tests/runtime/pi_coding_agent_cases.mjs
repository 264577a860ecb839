// Cases for `@earendil-works/pi-coding-agent`, run against a module given as a parameter: the
// reference's entry (goldens/make_pi_coding_agent.mjs) or pi-agent's runtime module
// (pi_coding_agent.test.mjs). Tools are compared by their definitions and, for bash, by runs
// through custom operations; the render hooks (renderCall/renderResult) are the TUI's and left
// out. Running the built-in tools themselves is the agent's, tested elsewhere.

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { exportShape, runAll, snapshot } from "./case_helpers.mjs";
import { sessionCases } from "./pi_coding_agent_session_cases.mjs";
import { randomYamlDocs } from "./yaml_docs.mjs";

const TOOL_NAMES = ["Read", "Bash", "Edit", "Write", "Grep", "Find", "Ls"];
const RENDER_HOOKS = new Set(["renderCall", "renderResult"]);

/** A tool object without its render hooks: its keys in order, and its snapshot. */
function toolShape(tool) {
	const keys = Object.keys(tool).filter((key) => !RENDER_HOOKS.has(key));
	return { keys, value: snapshot(Object.fromEntries(keys.map((key) => [key, tool[key]]))) };
}

// Long texts are compared by length and digest.
function compact(value) {
	return JSON.parse(
		JSON.stringify(value, (_key, v) =>
			typeof v === "string" && v.length > 300 ? { length: v.length, sha256: createHash("sha256").update(v).digest("hex") } : v,
		),
	);
}

const TRUNCATE_INPUTS = [
	"",
	"a",
	"a\n",
	"\n",
	"\n\n\n",
	"one\ntwo\nthree",
	"one\ntwo\nthree\n",
	"héllo wörld\nçà et là\nñ\n",
	"😀😁😂\n🤖\n日本語のテキスト\n",
	"x\ud800y\nlone\udc00surrogate",
	"short\n" + "a".repeat(40) + "\nend",
	"a".repeat(40) + "\nshort",
	"é".repeat(30),
	"😀".repeat(12),
	Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n"),
	Array.from({ length: 2500 }, (_, i) => `row ${i}`).join("\n"),
	Array.from({ length: 900 }, (_, i) => `${i}:${"b".repeat(70)}`).join("\n"),
	"c".repeat(60000),
	`head\n${"d".repeat(60000)}`,
	`${"e".repeat(60000)}\ntail`,
];

const TRUNCATE_OPTIONS = [
	undefined,
	{ maxLines: 1 },
	{ maxLines: 2 },
	{ maxLines: 0 },
	{ maxBytes: 0 },
	{ maxBytes: 1 },
	{ maxBytes: 5 },
	{ maxBytes: 7 },
	{ maxBytes: 13 },
	{ maxLines: 3, maxBytes: 10 },
	{ maxLines: 100, maxBytes: 100 },
];

const FRONTMATTER_DOCS = [
	"no front matter\n",
	"---\nname: my-skill\ndescription: Does things\n---\n# Body\n\ntext\n",
	"---\r\nname: crlf\r\ndescription: Windows\r\n---\r\nBody\r\n",
	"---\n---\nempty front matter",
	"---\n# only a comment\n---\nbody",
	"---\nname: x\nno closing fence",
	"---\ntools: [read, bash]\nallowed:\n  - one\n  - two\nnested:\n  key: 'quoted value'\n  n: 3\n---\n\n  indented body  \n",
	"---\ndescription: |\n  Multi\n  line\nmodel: claude\nthinking: high\ndisable-model-invocation: true\n---\nPrompt $1 and $@",
	"---\ndescription: >\n  folded\n  text\n---\n",
	"---\nbad: [unclosed\n---\nbody",
	"---\nkey: value: other\n---\n",
	"---\ndup: 1\ndup: 2\n---\n",
	"---\nlist:\n- a\n- b\n---\nbody",
	"  ---\nnot: front matter\n---\n",
	"----\nname: four dashes\n----\nbody",
	"---\nname: x\n---extra\nbody",
	"---\nargument-hint: \"<file>\"\ndescription: \"Review: the file\"\n---\n",
	"---\nversion: 1.10\nflag: yes\nempty:\nnull_val: null\n---\n",
];

// Pairs of texts for the diff cases: small changes, moves, whole rewrites, final newlines.
const DIFF_PAIRS = (() => {
	const lines = (n, f = (i) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n");
	return [
		["", ""],
		["same\n", "same\n"],
		["", "new\n"],
		["old\n", ""],
		["a\nb\nc\n", "a\nB\nc\n"],
		["x", "y"],
		["x\n", "x"],
		["a\nb", "a\nb\nc"],
		[lines(30), lines(30, (i) => (i === 15 ? "changed" : `line ${i}`))],
		[lines(40), lines(40, (i) => (i === 3 || i === 35 ? `edited ${i}` : `line ${i}`))],
		[lines(20), lines(20, (i) => (i === 5 || i === 9 ? `edited ${i}` : `line ${i}`))],
		[lines(12), `${lines(12)}\nappended`],
		[`inserted\n${lines(12)}`, lines(12)],
		["a\nb\na\nb\na\n", "b\na\nb\na\nb\n"],
		["one\ntwo\nthree\nfour\n", "four\nthree\ntwo\none\n"],
		["a\n\n\nb\n", "a\n\nb\n\n"],
		["crlf\r\nline\r\n", "crlf\r\nLINE\r\n"],
		[lines(120), lines(120, (i) => (i % 17 === 0 ? `x${i}` : `line ${i}`))],
	];
})();

// Seeded pseudo-random text pairs: lines dropped, added and replaced, final newlines or not.
function randomDiffPairs(count, seed) {
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
	const words = ["a", "b", "c", "x", "", "long line here", "}", "{"];
	const pick = () => words[Math.floor(next() * words.length)];
	return Array.from({ length: count }, () => {
		const lines = Array.from({ length: Math.floor(next() * 30) }, pick);
		const edited = lines.flatMap((line) => {
			const r = next();
			return r < 0.1 ? [] : r < 0.2 ? [line, pick()] : r < 0.3 ? [pick()] : [line];
		});
		return [lines.join("\n") + (next() < 0.5 ? "\n" : ""), edited.join("\n") + (next() < 0.5 ? "\n" : "")];
	});
}

const SAMPLE_MESSAGES = [
	{ role: "user", content: "plain user text", timestamp: 1 },
	{ role: "user", content: [{ type: "text", text: "block " }, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "text", text: "text" }], timestamp: 2 },
	{ role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 3 },
	{
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "think one" },
			{ type: "text", text: "answer" },
			{ type: "thinking", thinking: "think two" },
			{ type: "toolCall", id: "t1", name: "read", arguments: { path: "a.txt", offset: 2 } },
			{ type: "toolCall", id: "t2", name: "bash", arguments: { command: "ls -la \"x\"" } },
		],
		stopReason: "toolUse",
		timestamp: 4,
	},
	{ role: "assistant", content: [{ type: "toolCall", id: "t3", name: "ls", arguments: {} }], stopReason: "toolUse", timestamp: 5 },
	{ role: "toolResult", toolCallId: "t1", toolName: "read", content: [{ type: "text", text: "file content" }], isError: false, timestamp: 6 },
	{ role: "toolResult", toolCallId: "t2", toolName: "bash", content: [{ type: "text", text: "z".repeat(2500) }], isError: false, timestamp: 7 },
	{ role: "toolResult", toolCallId: "t3", toolName: "ls", content: [], isError: true, timestamp: 8 },
	{ role: "bashExecution", command: "make", output: "built", exitCode: 0, cancelled: false, truncated: false, timestamp: 9 },
	{ role: "bashExecution", command: "false", output: "", exitCode: 1, cancelled: false, truncated: true, fullOutputPath: "/tmp/out.log", timestamp: 10 },
	{ role: "bashExecution", command: "sleep 9", output: "partial", exitCode: null, cancelled: true, timestamp: 11 },
	{ role: "bashExecution", command: "secret", output: "hidden", exitCode: 0, excludeFromContext: true, timestamp: 12 },
	{ role: "custom", customType: "note", content: "custom text", display: true, timestamp: 13 },
	{ role: "custom", customType: "rich", content: [{ type: "text", text: "rich" }], display: false, details: { a: 1 }, timestamp: 14 },
	{ role: "branchSummary", summary: "branch went nowhere", fromId: "abc", timestamp: 15 },
	{ role: "compactionSummary", summary: "earlier work", tokensBefore: 5000, timestamp: 16 },
	{ role: "mystery", content: "dropped", timestamp: 17 },
	{ role: "assistant", content: [], stopReason: "stop", timestamp: 18 },
];

// Operations that answer from a script: chunks of output, then an exit code or an error.
function scriptedOperations(script, seen) {
	return {
		exec: async (command, cwd, { onData, timeout, env }) => {
			seen.push({ command, cwd, timeout, mark: env?.PI_CASE_MARK ?? null, sessionVar: env?.PI_MODEL ?? null, hookVar: env?.HOOK_VAR ?? null });
			for (const chunk of script.chunks ?? []) onData(Buffer.from(chunk));
			if (script.error) throw new Error(script.error);
			return { exitCode: script.exitCode ?? 0 };
		},
	};
}

const TEMP_PATH = /\/[^\s\]]*pi-bash-[0-9a-f]+\.log/g;

async function runBash(pi, script, options = {}, params = { command: "do it" }) {
	const seen = [];
	const updates = [];
	const tool = pi.createBashTool("/work/dir", { operations: scriptedOperations(script, seen), ...options });
	const full = (script.chunks ?? []).join("");
	try {
		const result = await tool.execute("call-1", params, undefined, (update) => updates.push(update));
		const path = result.details?.fullOutputPath;
		const fileMatches = path ? readFileSync(path, "utf-8") === full : null;
		const text = result.content[0].text.replace(TEMP_PATH, "<full-output>");
		return compact({ text, details: { ...result.details, fullOutputPath: path ? "<full-output>" : undefined }, fileMatches, seen, firstUpdate: updates[0] ?? null });
	} catch (error) {
		return compact({ error: error.message.replace(TEMP_PATH, "<full-output>"), seen, firstUpdate: updates[0] ?? null });
	}
}

export async function piCodingAgentCases(pi) {
	const cases = {
		exports: () => exportShape(pi),
		constants: () => ({
			VERSION: pi.VERSION,
			CONFIG_DIR_NAME: pi.CONFIG_DIR_NAME,
			DEFAULT_MAX_BYTES: pi.DEFAULT_MAX_BYTES,
			DEFAULT_MAX_LINES: pi.DEFAULT_MAX_LINES,
			CURRENT_SESSION_VERSION: pi.CURRENT_SESSION_VERSION,
			DEFAULT_COMPACTION_SETTINGS: pi.DEFAULT_COMPACTION_SETTINGS,
		}),
		getAgentDir: () => {
			const saved = process.env.PI_CODING_AGENT_DIR;
			try {
				const answers = [];
				for (const value of [undefined, "/custom/agent", "~/elsewhere/agent", "~"]) {
					if (value === undefined) delete process.env.PI_CODING_AGENT_DIR;
					else process.env.PI_CODING_AGENT_DIR = value;
					answers.push(pi.getAgentDir().replace(homedir(), "<home>"));
				}
				return answers;
			} finally {
				if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
				else process.env.PI_CODING_AGENT_DIR = saved;
			}
		},
		packagePaths: () => {
			const saved = process.env.PI_PACKAGE_DIR;
			process.env.PI_PACKAGE_DIR = "/opt/pi-package";
			try {
				return [pi.getPackageDir(), pi.getReadmePath(), pi.getDocsPath(), pi.getExamplesPath()];
			} finally {
				if (saved === undefined) delete process.env.PI_PACKAGE_DIR;
				else process.env.PI_PACKAGE_DIR = saved;
			}
		},

		formatSize: () => [0, 1, 512, 1023, 1024, 1536, 10 * 1024 - 1, 1024 * 1024 - 1, 1024 * 1024, 5.5 * 1024 * 1024, 3 * 1024 ** 3].map(pi.formatSize),
		truncateHead: () => TRUNCATE_INPUTS.map((input) => TRUNCATE_OPTIONS.map((options) => compact(pi.truncateHead(input, options)))),
		truncateTail: () => TRUNCATE_INPUTS.map((input) => TRUNCATE_OPTIONS.map((options) => compact(pi.truncateTail(input, options)))),
		truncateLine: () =>
			["", "short", "x".repeat(500), "x".repeat(501), "é".repeat(600), "😀".repeat(300)].flatMap((line) => [
				compact(pi.truncateLine(line)),
				compact(pi.truncateLine(line, 3)),
				compact(pi.truncateLine(line, 0)),
			]),

		parseFrontmatter: () =>
			FRONTMATTER_DOCS.map((doc) => {
				try {
					return snapshot(pi.parseFrontmatter(doc));
				} catch (error) {
					return { throws: true };
				}
			}),
		frontmatterRandom: () =>
			randomYamlDocs(150, 11).map((doc) => {
				try {
					return snapshot(pi.parseFrontmatter(doc).frontmatter);
				} catch {
					return { throws: true };
				}
			}),
		stripFrontmatter: () =>
			FRONTMATTER_DOCS.map((doc) => {
				try {
					return pi.stripFrontmatter(doc);
				} catch {
					return { throws: true };
				}
			}),

		toolDefinitions: () => Object.fromEntries(TOOL_NAMES.map((name) => [name, toolShape(pi[`create${name}ToolDefinition`]("/some/cwd"))])),
		tools: () => Object.fromEntries(TOOL_NAMES.map((name) => [name, toolShape(pi[`create${name}Tool`]("/some/cwd"))])),
		parametersJson: () => Object.fromEntries(TOOL_NAMES.map((name) => [name, JSON.stringify(pi[`create${name}Tool`]("/x").parameters)])),
		bashWithoutSessionEnvironment: () => [
			toolShape(pi.createBashTool("/x", { exposeSessionEnvironment: false })),
			toolShape(pi.createBashToolDefinition("/x", { exposeSessionEnvironment: false })),
		],
		toolSets: () => ({
			coding: pi.createCodingTools("/x").map((t) => t.name),
			readOnly: pi.createReadOnlyTools("/x").map((t) => t.name),
			freshSchemas: pi.createReadTool("/x").parameters !== pi.createReadTool("/x").parameters,
		}),
		editPrepareArguments: () => {
			const prepare = pi.createEditToolDefinition("/x").prepareArguments;
			return [
				null,
				"text",
				{ path: "a", edits: [{ oldText: "x", newText: "y" }] },
				{ path: "a", edits: '[{"oldText":"x","newText":"y"}]' },
				{ path: "a", edits: "not json" },
				{ path: "a", edits: '{"oldText":"x"}' },
				{ path: "a", oldText: "o", newText: "n" },
				{ path: "a", oldText: "o", newText: "n", edits: [{ oldText: "p", newText: "q" }] },
				{ path: "a", oldText: "o" },
			].map((input) => snapshot(prepare(input)));
		},

		bashOutput: () => runBash(pi, { chunks: ["hello\n", "world\n"] }),
		bashNoOutput: () => runBash(pi, {}),
		bashSplitUtf8: () => runBash(pi, { chunks: [Buffer.from("é").subarray(0, 1), Buffer.from("é").subarray(1), "!"] }),
		bashExitCode: () => runBash(pi, { chunks: ["failed here\n"], exitCode: 2 }),
		bashExitNoOutput: () => runBash(pi, { exitCode: 1 }),
		bashAborted: () => runBash(pi, { chunks: ["partial"], error: "aborted" }),
		bashTimedOut: () => runBash(pi, { chunks: ["slow"], error: "timeout:5" }, {}, { command: "sleep", timeout: 5 }),
		bashOtherError: () => runBash(pi, { error: "spawn failed" }),
		bashManyLines: () => runBash(pi, { chunks: [Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n")] }),
		bashManyBytes: () => runBash(pi, { chunks: [Array.from({ length: 800 }, (_, i) => `${i} ${"w".repeat(90)}`).join("\n")] }),
		bashLongLastLine: () => runBash(pi, { chunks: [`first\n${"L".repeat(70000)}`] }),
		bashCommandPrefix: () => runBash(pi, { chunks: ["ok"] }, { commandPrefix: "set -e" }),
		bashSpawnHook: () =>
			runBash(pi, { chunks: ["ok"] }, { spawnHook: (context) => ({ ...context, command: `hooked: ${context.command}`, cwd: "/hooked", env: { ...context.env, HOOK_VAR: "set" } }) }),
		bashEnvironment: async () => {
			process.env.PI_CASE_MARK = "marked";
			process.env.PI_MODEL = "leaked-model";
			try {
				return await runBash(pi, { chunks: ["ok"] });
			} finally {
				delete process.env.PI_CASE_MARK;
				delete process.env.PI_MODEL;
			}
		},

		localBashOperations: async () => {
			const ops = pi.createLocalBashOperations();
			const dir = mkdtempSync(join(tmpdir(), "pi-case-"));
			const run = async (command, options = {}) => {
				let out = "";
				try {
					const result = await ops.exec(command, options.cwd ?? dir, { onData: (d) => (out += d.toString()), ...options });
					return { out, ...result };
				} catch (error) {
					return { out, error: error.message.replace(dir, "<dir>") };
				}
			};
			try {
				const controller = new AbortController();
				setTimeout(() => controller.abort(), 100);
				return {
					echo: await run("echo hi; sleep 0.1; echo err >&2; sleep 0.1; pwd | sed 's|.*/||' | cut -c1-8"),
					exit: await run("exit 3"),
					env: await run("echo $CASE_VAR", { env: { ...process.env, CASE_VAR: "from-env" } }),
					timeout: await run("sleep 5", { timeout: 0.2 }),
					aborted: await run("sleep 5", { signal: controller.signal }),
					badTimeout: await run("true", { timeout: -1 }),
					missingDir: await run("true", { cwd: join(dir, "missing") }),
				};
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
		shellConfig: () => {
			const out = { found: pi.getShellConfig(), explicit: pi.getShellConfig("/bin/sh") };
			try {
				pi.getShellConfig("/no/such/shell");
			} catch (error) {
				out.missing = error.message;
			}
			return out;
		},

		diffString: () => DIFF_PAIRS.map(([a, b]) => [pi.generateDiffString(a, b), pi.generateDiffString(a, b, 1), pi.generateDiffString(a, b, 0)]),
		diffRandom: () =>
			randomDiffPairs(60, 5).map(([a, b]) => [pi.generateDiffString(a, b, 1), pi.generateUnifiedPatch("f", a, b, 2)]),
		unifiedPatch: () => DIFF_PAIRS.map(([a, b]) => [pi.generateUnifiedPatch("dir/file.txt", a, b), pi.generateUnifiedPatch("f", a, b, 1), pi.generateUnifiedPatch("f", a, b, 0)]),

		convertToLlm: () => pi.convertToLlm(SAMPLE_MESSAGES),
		serializeConversation: () => pi.serializeConversation(pi.convertToLlm(SAMPLE_MESSAGES)),
		serializeRaw: () => pi.serializeConversation(SAMPLE_MESSAGES.filter((m) => ["user", "assistant", "toolResult"].includes(m.role))),
		estimateTokens: () => SAMPLE_MESSAGES.map((m) => pi.estimateTokens(m)),

		...sessionCases(pi),

		typeGuards: () =>
			["bash", "read", "edit", "write", "grep", "find", "ls", "other"].map((toolName) => [
				pi.isBashToolResult({ toolName }),
				pi.isReadToolResult({ toolName }),
				pi.isEditToolResult({ toolName }),
				pi.isWriteToolResult({ toolName }),
				pi.isGrepToolResult({ toolName }),
				pi.isFindToolResult({ toolName }),
				pi.isLsToolResult({ toolName }),
				pi.isToolCallEventType("other", { toolName }),
			]),
		defineTool: () => {
			const tool = { name: "x", execute: () => {} };
			return pi.defineTool(tool) === tool;
		},
		sourceInfo: () => [
			pi.createSyntheticSourceInfo("/a/ext.ts", { source: "cli" }),
			pi.createSyntheticSourceInfo("/b", { source: "pkg", scope: "project", origin: "package", baseDir: "/b" }),
		],
		skillBlocks: () =>
			[
				'<skill name="demo" location="/s/demo/SKILL.md">\nLine one\nLine two\n</skill>',
				'<skill name="demo" location="/s/SKILL.md">\nBody\n</skill>\n\n  and do this  ',
				'<skill name="demo" location="/s/SKILL.md">\nBody\n</skill>\n\n   ',
				'<skill name="demo">\nBody\n</skill>',
				"plain text",
			].map((text) => snapshot(pi.parseSkillBlock(text))),
		skillsPrompt: () => [
			pi.formatSkillsForPrompt([]),
			pi.formatSkillsForPrompt([{ name: "hidden", description: "d", filePath: "/h", disableModelInvocation: true }]),
			pi.formatSkillsForPrompt([
				{ name: "a&b", description: "Uses <tags> & \"quotes\" 'too'", filePath: "/s/a/SKILL.md" },
				{ name: "plain", description: "Plain", filePath: "/s/plain.md", disableModelInvocation: false },
			]),
		],
		dimensionNote: () => [
			pi.formatDimensionNote({ wasResized: false, width: 1, height: 1, originalWidth: 1, originalHeight: 1 }),
			pi.formatDimensionNote({ wasResized: true, width: 800, height: 600, originalWidth: 2000, originalHeight: 1500 }),
			pi.formatDimensionNote({ wasResized: true, width: 3, height: 3, originalWidth: 10, originalHeight: 10 }),
		],
		storedCredential: () => {
			const dir = mkdtempSync(join(tmpdir(), "pi-auth-"));
			try {
				const path = join(dir, "auth.json");
				writeFileSync(path, JSON.stringify({ prov: { type: "api_key", key: "k" } }));
				writeFileSync(join(dir, "bad.json"), "{not json");
				return [pi.readStoredCredential("prov", path), pi.readStoredCredential("other", path), pi.readStoredCredential("prov", join(dir, "bad.json")), pi.readStoredCredential("prov", join(dir, "missing.json"))];
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
		credentialSyncError: () => {
			const error = new pi.CredentialSynchronizationError("prov", "login", { type: "api_key" }, { cause: new Error("c") });
			return { name: error.name, message: error.message, providerId: error.providerId, operation: error.operation, credential: error.credential, cause: error.cause.message, isError: error instanceof Error };
		},
		eventBus: async () => {
			const bus = pi.createEventBus();
			const log = [];
			const errors = [];
			const original = console.error;
			console.error = (...args) => errors.push(args.map((a) => (a instanceof Error ? a.message : a)).join(" "));
			try {
				const off = bus.on("ch", (data) => log.push(`one:${data}`));
				bus.on("ch", async (data) => {
					log.push(`two:${data}`);
					throw new Error("handler broke");
				});
				bus.on("other", (data) => log.push(`other:${data}`));
				bus.emit("ch", 1);
				off();
				bus.emit("ch", 2);
				bus.clear();
				bus.emit("ch", 3);
				bus.emit("other", 4);
				await new Promise((r) => setTimeout(r, 5));
				return { log, errors };
			} finally {
				console.error = original;
			}
		},
		fileMutationQueue: async () => {
			const dir = mkdtempSync(join(tmpdir(), "pi-queue-"));
			const file = join(dir, "f.txt");
			writeFileSync(file, "");
			const log = [];
			const task = (label, ms, value) => async () => {
				log.push(`start ${label}`);
				await new Promise((r) => setTimeout(r, ms));
				log.push(`end ${label}`);
				if (value instanceof Error) throw value;
				return value;
			};
			try {
				const results = await Promise.allSettled([
					pi.withFileMutationQueue(file, task("a1", 80, "A1")),
					pi.withFileMutationQueue(join(dir, ".", "f.txt"), task("a2", 1, new Error("a2 failed"))),
					pi.withFileMutationQueue(join(dir, "g.txt"), task("b", 5, "B")),
					pi.withFileMutationQueue(file, task("a3", 1, "A3")),
				]);
				return { log, results: results.map((r) => (r.status === "fulfilled" ? r.value : r.reason.message)) };
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
		wrapRegisteredTool: async () => {
			let active = ["read"];
			const contexts = [];
			const definition = {
				name: "adder",
				label: "Adder",
				description: "Adds tools",
				parameters: { type: "object" },
				executionMode: "sequential",
				execute: async (id, params, signal, onUpdate, ctx) => {
					contexts.push(ctx.label);
					active = params.next;
					return { content: [{ type: "text", text: id }], details: {}, addedToolNames: params.already };
				},
			};
			const runner = { getActiveTools: () => active, createContext: () => ({ label: `ctx${contexts.length}` }) };
			const [tool] = pi.wrapRegisteredTools([{ definition }], runner);
			return {
				keys: Object.keys(tool),
				added: await tool.execute("c1", { next: ["read", "bash", "edit"], already: ["edit", "x"] }),
				none: await tool.execute("c2", { next: ["read", "bash", "edit"] }),
				removed: await tool.execute("c3", { next: ["bash", "grep"] }),
				contexts,
			};
		},
	};
	return runAll(cases);
}
