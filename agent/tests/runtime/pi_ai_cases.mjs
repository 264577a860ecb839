// Cases for `@earendil-works/pi-ai` (the compat entry extensions get), run against a module
// given as a parameter: the real package (goldens/make_pi_ai.mjs) or pi-agent's runtime module
// (pi_ai.test.mjs). Only behaviour both must share is here: nothing that reads the model
// catalogue or calls a provider.

import { assistantText as message, exportShape, runAll, snapshot, withoutTimestamps } from "./case_helpers.mjs";
import { piAiFauxCases } from "./pi_ai_faux_cases.mjs";
import { piAiModelsCases } from "./pi_ai_models_cases.mjs";

const JSON_DOCS = [
	'{"path": "src/main.rs", "offset": 10, "limit": 2.5}',
	'{"edits": [{"oldText": "a\\nb", "newText": "c \\"q\\" \\u00e9"}], "flag": true, "none": null}',
	'[1, -2, 3e5, "x", {"k": [false, {}]}]',
	'{"nested": {"deep": {"deeper": [1, [2, [3]]]}}, "tail": "end"}',
	'{"e": 1e-3, "neg": -0.5, "big": 12345678901234567890}',
];

// Seeded pseudo-random JSON texts (with irregular spacing) whose every prefix is parsed.
function randomJsonDocs(count, seed) {
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
	const pick = (items) => items[Math.floor(next() * items.length)];
	const space = () => pick(["", "", " ", "\n  ", "\t"]);
	const strings = ["", "a", "path/to/file.rs", 'quote " inside', "back\\slash", "tab\there", "é ü 😀", "line\nbreak", "\u00e9"];
	const value = (depth) => {
		const kind = depth > 2 ? pick(["s", "n", "b"]) : pick(["s", "n", "b", "o", "a", "o"]);
		if (kind === "s") return JSON.stringify(pick(strings));
		if (kind === "n") return pick(["0", "-1", "42", "3.14", "-0.5", "1e10", "2E-3", "1234567"]);
		if (kind === "b") return pick(["true", "false", "null"]);
		const size = Math.floor(next() * 4);
		const items = Array.from({ length: size }, (_, i) =>
			kind === "a" ? `${space()}${value(depth + 1)}` : `${space()}"${pick(["k", "path", "edits", "old Text", "n"])}${i}"${space()}:${space()}${value(depth + 1)}`,
		);
		return kind === "a" ? `[${items.join(",")}${space()}]` : `{${items.join(",")}${space()}}`;
	};
	return Array.from({ length: count }, () => `{${space()}"root":${space()}${value(0)}${space()}}`);
}

const MALFORMED = [
	"",
	"   ",
	"{",
	"[",
	'{"a": "raw\nnewline"}',
	'{"a": "bad \\q escape"}',
	'{"a": "tab\there", "b": 1',
	'{"path": "C:\\Users\\x"}',
	"not json",
	"-",
	"tru",
	'{"a": NaN, "b": Infinity, "c": -Infinity}',
	'{"a": -I',
	'{"a": 1.',
	'{"temp": 1.',
	'{"a": 1e',
	'{"a": 1e+',
	'{"a": "x\\u00',
	'{"a": "x\\',
	'{"a" 1, "b": 2}',
	'{"a": 1} trailing',
	"[1, 2",
	'[1, "two", {"three": 3',
	'"just a string',
	"42",
	"null",
	'{"k": [1, 2, ], "j": 3}',
];

function assistant(fields) {
	return {
		role: "assistant",
		content: [],
		stopReason: "stop",
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
		...fields,
	};
}

const ERROR_TEXTS = [
	"prompt is too long: 213462 tokens > 200000 maximum",
	'413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
	"Your input exceeds the context window of this model",
	"Requested token count exceeds the model's maximum context length of 131072 tokens",
	"Input length (265330) exceeds model's maximum context length (262144).",
	"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
	"This model's maximum prompt length is 131072 but the request contains 537812 tokens",
	"Please reduce the length of the messages or completion",
	"This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens",
	"Input length 5 exceeds the maximum allowed input length of 4 tokens.",
	"The input (10 tokens) is longer than the model's context length (8 tokens).",
	"the request exceeds the available context size, try increasing it",
	"tokens to keep from the initial prompt is greater than the context length",
	"prompt token count of 10 exceeds the limit of 8",
	"invalid params, context window exceeds limit",
	"Your request exceeded model token limit: 10 (requested: 12)",
	"Prompt has 1,024 tokens, but the configured context size is 512 tokens",
	"Prompt contains 10 tokens ... too large for model with 8 maximum context length",
	"model_context_window_exceeded",
	"prompt too long; exceeded max context length by 20 tokens",
	"Range of input length should be [1, 30720]",
	"context_length_exceeded",
	"Too many tokens in request",
	"token limit exceeded",
	"400 status code (no body)",
	"413 (no body)",
	"ThrottlingException: Too many tokens, please wait before trying again.",
	"Throttling error: Too many tokens",
	"Service unavailable: too many tokens",
	"rate limit reached: too many tokens",
	"429 Too Many Requests",
	"overloaded_error",
	"Internal server error",
	"500 Internal Error",
	"fetch failed",
	"socket hang up",
	"request timed out",
	"ECONNRESET upstream connect error",
	"insufficient_quota: you exceeded your billing",
	"GoUsageLimitError 429",
	"Provider returned error",
	"WebSocket closed",
	"Anthropic stream ended before message_stop",
	"Bad request: invalid tool schema",
	"",
];

const MODELS = [
	{ id: "plain", provider: "p", reasoning: false, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
	{ id: "reasoner", provider: "p", reasoning: true, cost: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 } },
	{
		id: "mapped",
		provider: "q",
		reasoning: true,
		thinkingLevelMap: { minimal: null, xhigh: "xhigh", max: null },
		cost: {
			input: 2,
			output: 8,
			cacheRead: 0.2,
			cacheWrite: 2.5,
			tiers: [
				{ inputTokensAbove: 200000, input: 4, output: 16, cacheRead: 0.4, cacheWrite: 5 },
				{ inputTokensAbove: 100000, input: 3, output: 12, cacheRead: 0.3, cacheWrite: 3.75 },
			],
		},
	},
	{ id: "maxed", provider: "q", reasoning: true, thinkingLevelMap: { max: "max", low: null } },
];

const LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max", "bogus"];

const usage = (input, output, cacheRead, cacheWrite, cacheWrite1h) => ({
	input,
	output,
	cacheRead,
	cacheWrite,
	...(cacheWrite1h === undefined ? {} : { cacheWrite1h }),
	totalTokens: input + output + cacheRead + cacheWrite,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

// An event stream's events and final result, with timestamps dropped.
async function drain(stream) {
	const events = [];
	for await (const event of stream) events.push(event);
	return { events: withoutTimestamps(events), result: withoutTimestamps(await stream.result()) };
}


const MODEL = { id: "m1", api: "test-api", provider: "test-provider", name: "M1" };

export async function piAiCases(ai) {
	const cases = {
		exports: () => exportShape(ai),

		stringEnum: () => [
			ai.StringEnum(["add", "subtract"]),
			ai.StringEnum(["a", "b"], { description: "Pick one", default: "a" }),
			ai.StringEnum(["x"], { description: "", default: "" }),
			ai.StringEnum([], { default: "z" }),
		],
		stringEnumJson: () => JSON.stringify(ai.StringEnum(["on", "off"], { description: "Mode" })),

		uuidv7: () => {
			const ids = Array.from({ length: 2000 }, () => ai.uuidv7());
			const shape = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
			const ms = Number.parseInt(ids[0].replace(/-/g, "").slice(0, 12), 16);
			return {
				allMatch: ids.every((id) => shape.test(id)),
				sortedInCreationOrder: ids.every((id, i) => i === 0 || ids[i - 1] < id),
				unique: new Set(ids).size === ids.length,
				timestampNearNow: Math.abs(ms - Date.now()) < 60000,
			};
		},

		contentText: () => [
			ai.contentText("plain"),
			ai.contentText([{ type: "text", text: "a" }, { type: "image", data: "x" }, { type: "text", text: "b" }]),
			ai.contentText([{ type: "text", text: "a" }, { type: "text", text: "b" }], " | "),
			ai.contentText([]),
		],

		streamingJsonPrefixes: () =>
			JSON_DOCS.map((doc) => Array.from({ length: doc.length + 1 }, (_, n) => snapshot(ai.parseStreamingJson(doc.slice(0, n))))),
		streamingJsonRandom: () =>
			randomJsonDocs(30, 7).map((doc) => Array.from({ length: doc.length + 1 }, (_, n) => snapshot(ai.parseStreamingJson(doc.slice(0, n))))),
		streamingJsonMalformed: () => MALFORMED.map((text) => snapshot(ai.parseStreamingJson(text))),
		repairJson: () => MALFORMED.map((text) => ai.repairJson(text)),
		parseJsonWithRepair: () =>
			MALFORMED.map((text) => {
				try {
					return snapshot(ai.parseJsonWithRepair(text));
				} catch (error) {
					return { throws: error.name };
				}
			}),

		overflowByText: () =>
			ERROR_TEXTS.map((errorMessage) => ai.isContextOverflow(assistant({ stopReason: "error", errorMessage }))),
		overflowTextNeedsErrorStop: () => ai.isContextOverflow(assistant({ errorMessage: "prompt is too long" })),
		overflowSilent: () => [
			ai.isContextOverflow(assistant({ usage: { input: 900, output: 5, cacheRead: 200, cacheWrite: 0 } }), 1000),
			ai.isContextOverflow(assistant({ usage: { input: 900, output: 5, cacheRead: 100, cacheWrite: 0 } }), 1000),
			ai.isContextOverflow(assistant({ usage: { input: 2000, output: 5, cacheRead: 0, cacheWrite: 0 } })),
			ai.isContextOverflow(assistant({ stopReason: "length", usage: { input: 985, output: 0, cacheRead: 5, cacheWrite: 0 } }), 1000),
			ai.isContextOverflow(assistant({ stopReason: "length", usage: { input: 985, output: 1, cacheRead: 5, cacheWrite: 0 } }), 1000),
			ai.isContextOverflow(assistant({ stopReason: "length", usage: { input: 900, output: 0, cacheRead: 0, cacheWrite: 0 } }), 1000),
		],
		overflowPatterns: () => ai.getOverflowPatterns().map(String),
		recoverableLength: () => [
			ai.isRecoverableLength(assistant({ stopReason: "length", usage: { output: 10 } }), 100),
			ai.isRecoverableLength(assistant({ stopReason: "length", usage: { output: 100 } }), 100),
			ai.isRecoverableLength(assistant({ stopReason: "length", usage: { output: 0 } }), 0),
			ai.isRecoverableLength(assistant({ stopReason: "stop", usage: { output: 1 } }), 100),
		],
		retryable: () => [
			...ERROR_TEXTS.map((errorMessage) => ai.isRetryableAssistantError(assistant({ stopReason: "error", errorMessage }))),
			ai.isRetryableAssistantError(assistant({ stopReason: "stop", errorMessage: "overloaded" })),
		],
		retryLoop: async () => {
			const runs = [];
			for (const [responses, policy] of [
				[["error:overloaded", "error:502 bad gateway", "stop"], { enabled: true, maxRetries: 3, baseDelayMs: 1 }],
				[["error:overloaded", "error:overloaded", "error:overloaded"], { enabled: true, maxRetries: 2, baseDelayMs: 1 }],
				[["error:invalid request"], { enabled: true, maxRetries: 3, baseDelayMs: 1 }],
				[["error:overloaded", "aborted"], { enabled: true, maxRetries: 3, baseDelayMs: 1 }],
				[["error:overloaded"], { enabled: false, maxRetries: 3, baseDelayMs: 1 }],
				[["error:overloaded"], undefined],
			]) {
				const log = [];
				let i = 0;
				const produce = async () => {
					const [stopReason, errorMessage] = responses[i++].split(":");
					log.push(`produce ${i}`);
					return { role: "assistant", stopReason, errorMessage };
				};
				const callbacks = {
					onRetryScheduled: (...args) => log.push(["scheduled", ...args]),
					onRetryAttemptStart: () => log.push("attemptStart"),
					onRetryFinished: (...args) => log.push(["finished", ...args]),
				};
				const final = await ai.retryAssistantCall(produce, policy, undefined, callbacks);
				runs.push({ final, log });
			}
			const controller = new AbortController();
			const log = [];
			const pending = ai.retryAssistantCall(
				async () => ({ role: "assistant", stopReason: "error", errorMessage: "overloaded" }),
				{ enabled: true, maxRetries: 3, baseDelayMs: 10000 },
				controller.signal,
				{ onRetryScheduled: () => setTimeout(() => controller.abort(), 5), onRetryFinished: (...a) => log.push(a) },
			);
			runs.push({ abortedDuringBackoff: await pending, log });
			return runs;
		},

		calculateCost: () =>
			[
				[MODELS[0], usage(1000, 500, 2000, 400)],
				[MODELS[0], usage(1000, 500, 2000, 400, 100)],
				[MODELS[2], usage(150000, 100, 0, 0)],
				[MODELS[2], usage(100000, 100, 0, 0)],
				[MODELS[2], usage(150000, 100, 60000, 0)],
				[MODELS[1], usage(0, 0, 0, 0)],
			].map(([model, u]) => ({ returned: ai.calculateCost(model, u), usage: u })),
		thinkingLevels: () =>
			MODELS.map((model) => ({
				supported: ai.getSupportedThinkingLevels(model),
				clamped: LEVELS.map((level) => ai.clampThinkingLevel(model, level)),
			})),
		modelsAreEqual: () => [
			ai.modelsAreEqual(MODELS[0], { id: "plain", provider: "p" }),
			ai.modelsAreEqual(MODELS[0], { id: "plain", provider: "other" }),
			ai.modelsAreEqual(MODELS[0], undefined),
			ai.modelsAreEqual(null, MODELS[0]),
			ai.hasApi({ api: "x" }, "x"),
			ai.hasApi({ api: "x" }, "y"),
		],

		eventStream: async () => {
			const stream = new ai.EventStream(
				(e) => e.last,
				(e) => `final:${e.n}`,
			);
			stream.push({ n: 1 });
			const consumed = drain(stream);
			stream.push({ n: 2 });
			stream.push({ n: 3, last: true });
			stream.push({ n: 4 });
			return consumed;
		},
		eventStreamEnd: async () => {
			const stream = new ai.EventStream(
				() => false,
				() => "never",
			);
			setTimeout(() => {
				stream.push({ n: 1 });
				stream.end("ended");
				stream.push({ n: 2 });
			}, 1);
			return drain(stream);
		},
		assistantStream: async () => {
			const done = ai.createAssistantMessageEventStream();
			done.push({ type: "start", partial: message("") });
			done.push({ type: "done", reason: "stop", message: message("hi") });
			const failed = new ai.AssistantMessageEventStream();
			failed.push({ type: "error", reason: "aborted", error: { role: "assistant", stopReason: "aborted" } });
			return { done: await drain(done), failed: await drain(failed), isInstance: done instanceof ai.EventStream };
		},
		lazyStream: async () => {
			const ok = ai.lazyStream(MODEL, async () => {
				const inner = ai.createAssistantMessageEventStream();
				setTimeout(() => inner.push({ type: "done", reason: "stop", message: message("lazy") }), 1);
				return inner;
			});
			const failed = ai.lazyStream(MODEL, async () => {
				throw new Error("setup failed");
			});
			const thrownString = ai.lazyStream(MODEL, () => Promise.reject("plain reason"));
			return { ok: await drain(ok), failed: await drain(failed), thrownString: await drain(thrownString) };
		},
		lazyApi: async () => {
			const impl = {
				stream: (model, context) => {
					const s = ai.createAssistantMessageEventStream();
					s.push({ type: "done", reason: "stop", message: message(`stream:${context.n}`) });
					return s;
				},
				streamSimple: (_model, context) => {
					const s = ai.createAssistantMessageEventStream();
					s.push({ type: "done", reason: "stop", message: message(`simple:${context.n}`) });
					return s;
				},
			};
			const api = ai.lazyApi(async () => impl, { fetchDeferred: true });
			const plain = ai.lazyApi(async () => impl);
			const noDeferred = await drain(api.fetchDeferred(MODEL, "h"));
			return {
				keys: Object.keys(api).sort(),
				plainKeys: Object.keys(plain).sort(),
				stream: await drain(api.stream(MODEL, { n: 1 })),
				simple: await drain(api.streamSimple(MODEL, { n: 2 })),
				noDeferred,
			};
		},

		apiRegistry: async () => {
			const builtins = ai.getApiProviders().map((p) => p.api);
			const respond = (label) => (model, context, options) => {
				const s = ai.createAssistantMessageEventStream();
				s.push({ type: "done", reason: "stop", message: message(`${label}:${model.id}:${context.n}:${options?.apiKey ?? "-"}`) });
				return s;
			};
			ai.registerApiProvider({ api: "test-api", stream: respond("s"), streamSimple: respond("ss") }, "source-1");
			const registered = ai.getApiProvider("test-api");
			const results = {
				builtins,
				registeredKeys: Object.keys(registered).sort(),
				complete: withoutTimestamps(await ai.complete(MODEL, { n: 1 }, { apiKey: "k" })),
				completeSimple: withoutTimestamps(await ai.completeSimple(MODEL, { n: 2 })),
				streamed: await drain(ai.stream(MODEL, { n: 3 }, { apiKey: "k2" })),
			};
			try {
				registered.stream({ ...MODEL, api: "other" }, {});
			} catch (error) {
				results.mismatch = error.message;
			}
			try {
				ai.stream({ ...MODEL, api: "unregistered-api" }, {});
			} catch (error) {
				results.unknownApi = error.message;
			}
			ai.registerApiProvider({ api: "anthropic-messages", stream: respond("o"), streamSimple: respond("o") }, "source-1");
			results.overrideKept = ai.getApiProviders().length;
			ai.registerBuiltInApiProviders();
			results.overrideAfterBuiltins = withoutTimestamps(
				await ai.complete({ ...MODEL, api: "anthropic-messages", provider: "anthropic-test" }, { n: 4 }),
			);
			ai.unregisterApiProviders("source-1");
			results.afterUnregister = ai.getApiProviders().map((p) => p.api);
			ai.resetApiProviders();
			results.afterReset = ai.getApiProviders().map((p) => p.api);
			return results;
		},

		envKeys: () => {
			const env = {
				OPENAI_API_KEY: "sk-openai",
				ANTHROPIC_AUTH_TOKEN: "auth-token",
				ANTHROPIC_API_KEY: "sk-ant",
				COPILOT_GITHUB_TOKEN: "gh",
				MOONSHOT_API_KEY: "moon",
			};
			const providers = ["openai", "anthropic", "github-copilot", "moonshotai-cn", "groq", "nonexistent", "toString"];
			return {
				constants: [ai.ANTHROPIC_API_KEY_ENV, ai.ANTHROPIC_AUTH_TOKEN_ENV, ai.ANTHROPIC_OAUTH_TOKEN_ENV],
				found: providers.map((p) => ai.findEnvKeys(p, env)),
				keys: providers.map((p) => ai.getEnvApiKey(p, env)),
				onlyAuthToken: ai.getEnvApiKey("anthropic", { ANTHROPIC_AUTH_TOKEN: "t" }),
				bedrock: [
					ai.getEnvApiKey("amazon-bedrock", { AWS_PROFILE: "dev" }),
					ai.getEnvApiKey("amazon-bedrock", { AWS_ACCESS_KEY_ID: "a" }),
					ai.getEnvApiKey("amazon-bedrock", { AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" }),
				],
			};
		},

		diagnostics: () => {
			const coded = Object.assign(new Error("boom"), { code: "E_X" });
			const message = { role: "assistant" };
			ai.appendAssistantMessageDiagnostic(message, { type: "one" });
			ai.appendAssistantMessageDiagnostic(message, { type: "two" });
			const diagnostic = ai.createAssistantMessageDiagnostic("retry", new TypeError("bad"), { n: 1 });
			const stripStack = ({ stack, ...rest }) => ({ ...rest, hasStack: typeof stack === "string" });
			return {
				thrown: [ai.formatThrownValue(new Error("m")), ai.formatThrownValue(new RangeError("")), ai.formatThrownValue("s"), ai.formatThrownValue(42)],
				extracted: [stripStack(ai.extractDiagnosticError(coded)), ai.extractDiagnosticError("str"), ai.extractDiagnosticError({ a: 1 })],
				diagnostic: { ...diagnostic, timestamp: typeof diagnostic.timestamp, error: stripStack(diagnostic.error) },
				appended: message,
			};
		},

		sessionResources: () => {
			const calls = [];
			const off = ai.registerSessionResourceCleanup((id) => calls.push(`a:${id}`));
			ai.registerSessionResourceCleanup((id) => {
				calls.push(`b:${id}`);
				throw new Error("cleanup failed");
			});
			let thrown;
			try {
				ai.cleanupSessionResources("s1");
			} catch (error) {
				thrown = { name: error.name, message: error.message, errors: error.errors.map((e) => e.message) };
			}
			off();
			return { calls, thrown };
		},

		modelsError: () => [
			new ai.ModelsError("auth", "Auth failed"),
			new ai.ModelsError("auth", "Auth failed", { cause: new Error("bad key") }),
			new ai.ModelsError("auth", "Auth failed: bad key", { cause: new Error("bad key") }),
			new ai.ModelsError("stream", "No stream", { cause: "text cause" }),
		].map((e) => ({ name: e.name, code: e.code, message: e.message, hasCause: "cause" in e })),

		...piAiModelsCases(ai),
		...piAiFauxCases(ai),

		faux: () => {
			const strip = (m) => ({ ...m, timestamp: typeof m.timestamp });
			return {
				text: ai.fauxText("t"),
				thinking: ai.fauxThinking("th"),
				toolCall: ai.fauxToolCall("read", { path: "a" }, { id: "call-1" }),
				toolCallId: /^tool:\d+:[0-9a-z]+$/.test(ai.fauxToolCall("x", {}).id),
				fromString: strip(ai.fauxAssistantMessage("hello")),
				fromBlocks: strip(ai.fauxAssistantMessage([ai.fauxText("a"), ai.fauxThinking("b")], { stopReason: "length", errorMessage: "e", responseId: "r", timestamp: 5 })),
				fromBlock: strip(ai.fauxAssistantMessage(ai.fauxText("one"))),
			};
		},

		images: async () => {
			ai.registerImagesApiProvider({ api: "img-test", generateImages: async (model, context) => ({ model: model.id, prompt: context.prompt }) }, "s");
			const out = {
				provider: Object.keys(ai.getImagesApiProvider("img-test")).sort(),
				builtin: Object.keys(ai.getImagesApiProvider("openrouter-images") ?? {}).sort(),
				generated: await ai.generateImages({ id: "i1", api: "img-test" }, { prompt: "cat" }),
			};
			try {
				await ai.generateImages({ id: "i1", api: "no-images-api" }, {});
			} catch (error) {
				out.unknown = error.message;
			}
			try {
				await ai.getImagesApiProvider("img-test").generateImages({ id: "i1", api: "other" }, {});
			} catch (error) {
				out.mismatch = error.message;
			}
			return out;
		},

		typeReexport: () => JSON.stringify(ai.Type.Object({ a: ai.Type.String() })),
		validateToolArguments: () =>
			ai.validateToolArguments(
				{ name: "t", parameters: ai.Type.Object({ n: ai.Type.Number(), mode: ai.StringEnum(["a", "b"]) }) },
				{ type: "toolCall", id: "1", name: "t", arguments: { n: "5", mode: "a" } },
			),
	};
	return runAll(cases);
}
