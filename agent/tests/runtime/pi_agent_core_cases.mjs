// Cases for `@earendil-works/pi-agent-core`, run against a module given as a parameter: the
// reference's entry (goldens/make_pi_agent_core.mjs) or pi-agent's runtime module
// (pi_agent_core.test.mjs). The pure parts only: the agent, its loops and stores are not
// pi-agent's JavaScript.

import { exportShape, runAll, snapshot } from "./case_helpers.mjs";

const errorFields = (error) => ({
	name: error.name,
	message: error.message,
	own: snapshot(Object.fromEntries(Object.keys(error).map((key) => [key, error[key]]))),
	cause: error.cause === undefined ? null : String(error.cause?.message ?? error.cause),
	isError: error instanceof Error,
});

const TAGGED = [
	"LaneBusy",
	"MissingIdentities",
	"NoActiveRun",
	"NoActiveOperation",
	"NothingToResume",
	"InvalidMessage",
	"UnknownSkill",
	"UnknownTemplate",
	"UnknownTarget",
	"UnknownQueueItem",
	"LaneExists",
	"InvalidLane",
	"NothingToCompact",
	"Closed",
];

const message = (role, fields) => ({ role, timestamp: 1, ...fields });

const PATH = [
	{ type: "message", id: "a", message: message("user", { content: "hello" }) },
	{ type: "thinking_level_change", id: "b", thinkingLevel: "medium" },
	{ type: "message", id: "c", message: message("assistant", { content: [{ type: "text", text: "hi" }], provider: "p", model: "m", stopReason: "stop" }) },
	{ type: "active_tools_change", id: "d", activeToolNames: ["read", "bash"] },
	{ type: "message", id: "e", message: message("assistant", { content: [], provider: "p", model: "m2", stopReason: "deferred" }) },
	{ type: "custom", id: "f", customType: "note", data: { text: "projected" } },
	{ type: "custom", id: "g", customType: "unprojected", data: {} },
	{ type: "compaction", id: "h", summary: "compacted", tokensBefore: 10, timestamp: 5, retainedTail: [message("user", { content: "kept" })] },
	{ type: "branch_summary", id: "i", summary: "branch", fromId: "x", timestamp: "2026-01-01T00:00:00.000Z" },
	{ type: "branch_summary", id: "j", summary: "" },
	{ type: "model_change", id: "k", provider: "q", modelId: "n" },
	{ type: "message", id: "l", message: message("toolResult", { toolCallId: "t", toolName: "read", content: [{ type: "text", text: "out" }] }) },
];

const PROJECTORS = { entryProjectors: { note: (entry, index) => [message("custom", { customType: "note", content: entry.data.text, display: true, index })] } };

export async function piAgentCoreCases(core) {
	const cases = {
		exports: () => exportShape(core),
		constants: () => ({
			DEFAULT_MAX_BYTES: core.DEFAULT_MAX_BYTES,
			DEFAULT_MAX_LINES: core.DEFAULT_MAX_LINES,
			GREP_MAX_LINE_LENGTH: core.GREP_MAX_LINE_LENGTH,
			DEFAULT_COMPACTION_SETTINGS: core.DEFAULT_COMPACTION_SETTINGS,
			prefixes: [core.BRANCH_SUMMARY_PREFIX, core.BRANCH_SUMMARY_SUFFIX, core.COMPACTION_SUMMARY_PREFIX, core.COMPACTION_SUMMARY_SUFFIX],
		}),
		results: () => {
			const failure = core.err(new Error("bad"));
			let thrown;
			try {
				core.getOrThrow(failure);
			} catch (error) {
				thrown = error.message;
			}
			return {
				ok: core.ok(1),
				err: snapshot(failure),
				getOrThrow: core.getOrThrow(core.ok({ v: 2 })),
				thrown,
				getOrUndefined: [core.getOrUndefined(core.ok({ v: 3 })), core.getOrUndefined(failure)],
				Result: [core.Result.ok(1), core.Result.err("e"), core.Result.isOk(core.ok(1)), core.Result.isErr(core.ok(1)), core.Result.isErr(failure)],
				toError: [core.toError(new TypeError("t")), core.toError("s"), core.toError({ a: 1 }), core.toError(10n), core.toError(undefined)].map((e) => [e.name, e.message]),
			};
		},
		taggedErrors: () =>
			TAGGED.map((tag) => {
				const error = new core[tag]({ message: `${tag} happened`, lane: "main" });
				return {
					fields: errorFields(error),
					json: error.toJSON(),
					is: [core[tag].is(error), core[tag].is(new Error("x"))],
					matched: core.matchError(error, { [tag]: (e) => `matched ${e._tag}` }),
				};
			}),
		customTagged: () => {
			const Custom = core.TaggedError("Custom");
			const error = new Custom({ message: "custom", extra: [1] });
			return { fields: errorFields(error), json: error.toJSON(), is: Custom.is(error) };
		},
		harnessErrors: () => [
			errorFields(new core.HarnessFault("fault", new Error("root"))),
			errorFields(new core.HarnessClosed()),
			errorFields(new core.HarnessNotImplemented("compact")),
		],
		codedErrors: () => [
			errorFields(new core.FileError("not_found", "missing", "/a/b")),
			errorFields(new core.FileError("io", "failed", undefined, new Error("disk"))),
			errorFields(new core.ExecutionError("timeout", "slow")),
			errorFields(new core.CompactionError("nothing", "none", "why")),
			errorFields(new core.BranchSummaryError("x", "y")),
			errorFields(new core.SessionError("invalid_query", "bad limit")),
		],
		messages: () => ({
			branch: [core.createBranchSummaryMessage("s", "from", 42), core.createBranchSummaryMessage("s", "from", "2026-01-01T00:00:01.000Z")],
			compaction: [core.createCompactionSummaryMessage("s", 5, 7), core.createCompactionSummaryMessage("s", 5, "2026-01-01T00:00:02.000Z")],
			custom: [core.createCustomMessage("t", "c", true, { d: 1 }, 9), core.createCustomMessage("t", [], false, undefined, "2026-01-01T00:00:03.000Z")],
			bash: [
				core.bashExecutionToText({ command: "ls", output: "a\nb", exitCode: 0 }),
				core.bashExecutionToText({ command: "x", output: "", exitCode: 2, truncated: true, fullOutputPath: "/f" }),
				core.bashExecutionToText({ command: "y", output: "o", cancelled: true, exitCode: 1 }),
			],
		}),
		convertToLlm: () =>
			core.convertToLlm([
				message("user", { content: "u" }),
				message("bashExecution", { command: "c", output: "o", exitCode: 0 }),
				message("bashExecution", { command: "c", output: "o", excludeFromContext: true }),
				message("custom", { customType: "x", content: "text" }),
				message("branchSummary", { summary: "b" }),
				message("compactionSummary", { summary: "c", tokensBefore: 1 }),
				message("toolResult", { content: [] }),
				message("unknown", {}),
			]),
		serializeConversation: () =>
			core.serializeConversation([
				message("user", { content: [{ type: "text", text: "q" }] }),
				message("assistant", { content: [{ type: "thinking", thinking: "t" }, { type: "text", text: "a" }, { type: "toolCall", name: "read", arguments: { path: "p" } }] }),
				message("toolResult", { content: [{ type: "text", text: "r".repeat(2100) }] }),
			]),
		sessionContext: () => [core.buildSessionContext(PATH), core.buildSessionContext(PATH, PROJECTORS), core.buildSessionContext(PATH.slice(0, 7), PROJECTORS)],
		contextEntries: () => [
			core.defaultContextEntryTransform(PATH).map((e) => e.id),
			core.defaultContextEntryTransform(PATH.slice(0, 5)).map((e) => e.id),
			core.buildContextEntries(PATH, { entryTransforms: [(entries) => entries.filter((e) => e.type !== "model_change"), (entries) => entries.slice(1)] }).map((e) => e.id),
		],
		entryMessages: () => PATH.map((entry, index) => core.sessionEntryToContextMessages(entry, index, PATH, PROJECTORS)),
		tokens: () => ({
			estimates: [
				message("user", { content: "abcdefgh" }),
				message("assistant", { content: [{ type: "toolCall", name: "n", arguments: { big: 1n } }] }),
				message("assistant", { content: [{ type: "toolCall", name: "n", arguments: undefined }] }),
				message("custom", { content: [{ type: "image" }, { type: "text", text: "x" }] }),
				message("bashExecution", { command: "ab", output: "cd" }),
				message("compactionSummary", { summary: "s".repeat(9) }),
				message("other", {}),
			].map((m) => core.estimateTokens(m)),
			context: core.estimateContextTokens([
				message("user", { content: "x".repeat(40) }),
				message("assistant", { content: [], stopReason: "stop", usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 0 } }),
				message("user", { content: "y".repeat(20) }),
			]),
			contextWithout: core.estimateContextTokens([message("user", { content: "z".repeat(13) })]),
			calculate: core.calculateContextTokens({ input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 0 }),
			last: core.getLastAssistantUsage([{ type: "message", message: message("assistant", { content: [], stopReason: "stop", usage: { input: 3, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 4 } }) }]),
			should: core.shouldCompact(100, 110, { enabled: true, reserveTokens: 20 }),
		}),
		cutPoints: () => {
			const m = (role, text, extra = {}) => ({ type: "message", id: `${role}-${text.length}`, message: message(role, { content: [{ type: "text", text }], ...extra }) });
			const entries = [
				m("user", "u".repeat(400)),
				m("assistant", "a".repeat(800), { stopReason: "toolUse" }),
				m("toolResult", "t".repeat(1200)),
				{ type: "model_change", id: "mc", provider: "p", modelId: "m" },
				{ type: "custom", id: "cu", customType: "x", data: {} },
				m("assistant", "b".repeat(200)),
				{ type: "branch_summary", id: "bs", summary: "went elsewhere", fromId: "z", timestamp: 3 },
				m("bashExecution", "", { command: "ls", output: "o".repeat(100) }),
				m("assistant", "c".repeat(400)),
				m("user", "v".repeat(40)),
			];
			return {
				cuts: [0, 10, 100, 150, 300, 600, 5000].map((keep) => [core.findCutPoint(entries, 0, entries.length, keep), core.findCutPoint(entries, 3, 9, keep)]),
				turnStarts: entries.map((_, i) => [core.findTurnStartIndex(entries, i, 0), core.findTurnStartIndex(entries, i, 4)]),
				none: core.findCutPoint(entries.slice(3, 5), 0, 2, 10),
			};
		},
		prepareCompaction: () => {
			const m = (id, role, text, extra = {}) => ({ type: "message", id, message: message(role, { content: [{ type: "text", text }], ...extra }) });
			const call = (id, name, path) => ({ type: "message", id, message: message("assistant", { content: [{ type: "toolCall", id, name, arguments: { path } }], stopReason: "toolUse" }) });
			const first = [
				m("a", "user", "q".repeat(2000)),
				call("b", "read", "src/a.rs"),
				m("c", "toolResult", "r".repeat(3000)),
				call("d", "edit", "src/b.rs"),
				m("e", "user", "next ".repeat(300)),
				call("f", "write", "out.txt"),
				m("g", "assistant", "done ".repeat(200)),
			];
			const compaction = { type: "compaction", id: "h", seq: 8, summary: "earlier", tokensBefore: 900, timestamp: 9, retainedTail: [message("user", { content: "kept request" })], details: { readFiles: ["old.txt"], modifiedFiles: ["mod.txt"] } };
			const later = [...first, compaction, call("i", "read", "later.rs"), m("j", "assistant", "z".repeat(1600)), m("k", "user", "last question")];
			const shape = (result) => {
				const value = result.value;
				if (!value) return result;
				return { ...value, fileOps: { read: [...value.fileOps.read], written: [...value.fileOps.written], edited: [...value.fileOps.edited] } };
			};
			return [
				core.prepareCompaction([], { keepRecentTokens: 10 }),
				core.prepareCompaction([...first, compaction], { keepRecentTokens: 10 }),
				...[1, 300, 700, 100000].map((keep) => shape(core.prepareCompaction(first, { enabled: true, reserveTokens: 1, keepRecentTokens: keep }))),
				...[1, 500].map((keep) => shape(core.prepareCompaction(later, { enabled: true, reserveTokens: 1, keepRecentTokens: keep }))),
			];
		},
		unserializableContext: () =>
			core.estimateContextTokens([message("assistant", { content: [{ type: "toolCall", name: "n", arguments: { big: 2n } }] }), message("user", { content: "four" })]),
		truncation: () => [core.truncateHead("a\nb\nc", { maxLines: 2 }), core.truncateTail("a\nb\nc", { maxBytes: 3 }), core.truncateLine("abcdef", 2), core.formatSize(2048)],
		promptTemplates: () => ({
			args: ["", "one two", "  spaced   out  ", "tab\tsep", `"quoted arg" 'single one' mixed"quote"`, `unterminated "quote here`].map((s) => core.parseCommandArgs(s)),
			substituted: [
				core.substituteArgs("$1 and $2 and $3", ["a", "b"]),
				core.substituteArgs("all: $@ | $ARGUMENTS", ["x", "y"]),
				core.substituteArgs("${@:2} | ${@:2:1} | ${@:0} | ${@:5}", ["a", "b", "c"]),
				core.substituteArgs("$10 $1", ["one"]),
				core.substituteArgs("no placeholders", []),
			],
			invocation: [core.formatPromptTemplateInvocation({ content: "Review $1" }, ["file.ts"]), core.formatPromptTemplateInvocation({ content: "Plain" })],
		}),
		skills: () => ({
			invocation: [
				core.formatSkillInvocation({ name: "demo", filePath: "/skills/demo/SKILL.md", content: "Do it." }),
				core.formatSkillInvocation({ name: "root", filePath: "/SKILL.md", content: "c" }, "also this"),
				core.formatSkillInvocation({ name: "win", filePath: "C:\\skills\\SKILL.md", content: "c" }),
				core.formatSkillInvocation({ name: "drive", filePath: "C:\\SKILL.md", content: "c" }),
				core.formatSkillInvocation({ name: "trailing", filePath: "/a/b/", content: "c" }),
			],
			systemPrompt: [
				core.formatSkillsForSystemPrompt([]),
				core.formatSkillsForSystemPrompt([{ name: "<x>", description: "a & b", filePath: "/p" }, { name: "h", description: "d", filePath: "/h", disableModelInvocation: true }]),
			],
		}),
		sanitize: () => core.sanitizeBinaryOutput("ok\ttab\nnew\rcr\x00\x01\x1b[31m\x7f\ufff9\ufffa\ufffb\ufffc😀\ud800end"),
		telemetry: async () => {
			const ctx = core.NOOP_TELEMETRY_CONTEXT;
			const seen = [];
			const value = await ctx.startSpan({ name: "outer" }, async (span) => {
				seen.push(span === ctx, span.addEvent("e"), span.setAttributes({}), span.setStatus("ok"));
				return span.startSpan({ name: "inner" }, () => "inner value");
			});
			const rejected = await ctx.startSpan({ name: "x" }, () => {
				throw new Error("span failed");
			}).catch((e) => e.message);
			const starter = core.createTypedSpanStarter(ctx, []);
			const typed = await starter("pi.test", { a: 1 }, (span, child) => child("pi.child", {}, () => typeof span.addEvent));
			const schema = { version: 1, spans: {} };
			return { keys: Object.keys(ctx), frozen: Object.isFrozen(ctx), seen, value, rejected, typed, defined: core.defineTelemetrySchema(schema) === schema };
		},
		jsonSerializable: () => {
			const shared = { s: 1 };
			const cyclic = { a: [] };
			cyclic.a.push(cyclic);
			const sparse = [1, , 3];
			const extraProp = Object.assign([1], { extra: true });
			const accessorArray = [1, 2];
			Object.defineProperty(accessorArray, 1, { get: () => 2, enumerable: true });
			const hidden = Object.defineProperty({}, "h", { value: 1, enumerable: false });
			const symbolKey = { [Symbol("s")]: 1 };
			const getter = { get g() { return 1; } };
			const two = [1, , 3];
			Object.defineProperty(two, 0, { get: () => 1, enumerable: true });
			return [
				{ a: [1, "x", true, null, { b: [shared, shared] }], n: -0.5 },
				Object.create(null),
				NaN,
				Infinity,
				undefined,
				() => 1,
				10n,
				cyclic,
				sparse,
				extraProp,
				accessorArray,
				new Date(0),
				new Map(),
				hidden,
				symbolKey,
				getter,
				two,
				[[[{ deep: [1, { bad: Symbol("x") }] }]]],
			].map((value) => {
				try {
					core.assertJsonSerializable(value);
					return "ok";
				} catch (error) {
					return [error.name, error.code, error.message];
				}
			});
		},
		fileSystemResults: () =>
			[core.ok({ v: 1 }), core.err({ code: "not_found", message: "no such file" }), core.err({ code: "permission", message: "denied" })].map((result) => {
				try {
					return core.getFileSystemResultOrThrow(result, "Reading session");
				} catch (error) {
					return [error.name, error.code, error.message, error.cause?.message];
				}
			}),
		scanningSearch: async () => {
			const sessions = {
				one: [{ id: "a", timestamp: 1000, text: "Hello World" }, { id: "b", timestamp: "2026-01-01T00:00:00Z", text: "other" }],
				two: [{ id: "c", timestamp: 2000, text: "hello again" }],
			};
			const source = {
				list: async () => [{ id: "one", cwd: "/w" }, { id: "two", cwd: "/x" }],
				open: async (metadata) => ({ findEntries: async (query) => (query.order === "oldestFirst" ? sessions[metadata.id] : []) }),
			};
			const search = core.createScanningSessionSearch(source);
			return [await search.search({ text: "  HELLO " }), await search.search({ text: "hello", cwd: "/x" }), await search.search({ text: "   " })];
		},
		uuid: () => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(core.uuidv7()),
	};
	return runAll(cases);
}
