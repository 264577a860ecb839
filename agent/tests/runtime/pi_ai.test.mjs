// pi-agent's pi-ai runtime modules against goldens from the reference (goldens/make_pi_ai.mjs),
// and their host-backed parts (model catalogue, provider calls) against a fake host.

import assert from "node:assert/strict";
import { test } from "node:test";
import * as ai from "../../src/extensions/runtime/pi_ai.mjs";
import * as oauth from "../../src/extensions/runtime/pi_ai_oauth.mjs";
import * as providers from "../../src/extensions/runtime/pi_ai_providers.mjs";
import { exportShape } from "./case_helpers.mjs";
import { compareCases, readGolden } from "./golden_suite.mjs";
import { piAiCases } from "./pi_ai_cases.mjs";

const golden = readGolden("pi_ai");
compareCases("pi-ai", golden.cases, piAiCases(ai));

test("pi-ai/oauth and pi-ai/providers/all export the reference's names", () => {
	assert.deepStrictEqual(exportShape(oauth), golden.oauthExports);
	assert.deepStrictEqual(exportShape(providers), golden.providersExports);
});

const HOST = Symbol.for("pi-agent.host");

async function withHost(host, fn) {
	globalThis[HOST] = host;
	try {
		return await fn();
	} finally {
		delete globalThis[HOST];
	}
}

const catalogue = [
	{ id: "a1", provider: "alpha", api: "anthropic-messages", name: "A1" },
	{ id: "a2", provider: "alpha", api: "anthropic-messages", name: "A2" },
	{ id: "b1", provider: "beta", api: "openai-completions", name: "B1" },
];

test("the catalogue is empty without a host", () => {
	assert.deepStrictEqual(ai.getProviders(), []);
	assert.deepStrictEqual(ai.getModels("alpha"), []);
	assert.equal(ai.getModel("alpha", "a1"), undefined);
	assert.deepStrictEqual(providers.getBuiltinProviders(), []);
	assert.equal(providers.getBuiltinModelDataGeneratedAt(), undefined);
});

test("the catalogue is the host's models", () =>
	withHost({ models: catalogue, modelDataGeneratedAt: "2026-01-02T03:04:05Z" }, () => {
		assert.deepStrictEqual(ai.getProviders(), ["alpha", "beta"]);
		assert.deepStrictEqual(
			ai.getModels("alpha").map((m) => m.id),
			["a1", "a2"],
		);
		assert.equal(ai.getModel("beta", "b1").name, "B1");
		assert.equal(ai.getModel("beta", "a1"), undefined);
		assert.deepStrictEqual(ai.getModels("gamma"), []);
		assert.equal(providers.getBuiltinModel("alpha", "a2").name, "A2");
		assert.equal(providers.getBuiltinModelDataGeneratedAt(), Date.parse("2026-01-02T03:04:05Z"));
		const built = providers.builtinModels();
		assert.deepStrictEqual(
			built.getProviders().map((p) => p.id),
			["alpha", "beta"],
		);
		assert.deepStrictEqual(
			built.getModels("alpha").map((m) => m.id),
			["a1", "a2"],
		);
	}));

test("provider calls without host.complete throw not supported", () => {
	const model = catalogue[0];
	assert.throws(() => ai.stream(model, { messages: [] }), /is not supported by pi-agent yet/);
	assert.throws(() => ai.streamSimple(model, { messages: [] }), /is not supported by pi-agent yet/);
	assert.throws(() => ai.anthropicMessagesApi().streamSimple(model, {}), /anthropicMessagesApi\(\)\.streamSimple is not supported/);
	assert.throws(() => ai.streamOpenAIResponses(model, {}), /streamOpenAIResponses is not supported/);
	assert.rejects(ai.complete(model, { messages: [] }), /is not supported by pi-agent yet/);
	assert.throws(() => providers.radiusProvider(), /radiusProvider is not supported by pi-agent yet/);
});

test("provider calls go to host.complete and replay its message as events", () => {
	const requests = [];
	const answer = {
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "hmm" },
			{ type: "text", text: "hello" },
			{ type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } },
		],
		stopReason: "toolUse",
	};
	return withHost(
		{
			complete: async (request, signal) => {
				requests.push({ ...request, signal });
				return answer;
			},
		},
		async () => {
			const signal = new AbortController().signal;
			const stream = ai.streamSimple(catalogue[0], { messages: [] }, { signal, reasoning: "low" });
			const types = [];
			for await (const event of stream) types.push(event.type);
			assert.deepStrictEqual(types, [
				"start",
				"thinking_start",
				"thinking_delta",
				"thinking_end",
				"text_start",
				"text_delta",
				"text_end",
				"toolcall_start",
				"toolcall_delta",
				"toolcall_end",
				"done",
			]);
			assert.deepStrictEqual(await stream.result(), answer);
			assert.equal(requests[0].simple, true);
			assert.equal(requests[0].signal, signal);
			assert.equal(requests[0].options.reasoning, "low");
			assert.deepStrictEqual(await ai.complete(catalogue[2], { messages: [] }), answer);
			assert.equal(requests[1].simple, false);
			const viaApi = await ai.openAIResponsesApi().stream(catalogue[2], { messages: [] }).result();
			assert.deepStrictEqual(viaApi, answer);
		},
	);
});

test("events the host streams come as they are made, then the final message's", () =>
	withHost(
		{
			complete: async (_request, _signal, onEvent) => {
				const partial = { role: "assistant", content: [], stopReason: "stop" };
				onEvent({ type: "start", partial });
				partial.content.push({ type: "text", text: "" });
				onEvent({ type: "text_start", contentIndex: 0, partial });
				partial.content[0].text = "hi";
				onEvent({ type: "text_delta", contentIndex: 0, delta: "hi", partial });
				return { ...partial, content: [{ type: "text", text: "hi" }] };
			},
		},
		async () => {
			const stream = ai.streamSimple(catalogue[0], { messages: [] });
			const types = [];
			for await (const event of stream) types.push(event.type);
			assert.deepStrictEqual(types, ["start", "text_start", "text_delta", "done"]);
			assert.deepStrictEqual((await stream.result()).content, [{ type: "text", text: "hi" }]);
		},
	));

test("a call that failed before it started ends with its error alone", () =>
	withHost({ complete: async () => ({ role: "assistant", content: [], stopReason: "error", errorMessage: "no key" }) }, async () => {
		const stream = ai.stream(catalogue[0], { messages: [] });
		const events = [];
		for await (const event of stream) events.push(event.type);
		assert.deepStrictEqual(events, ["error"]);
		assert.equal((await stream.result()).errorMessage, "no key");
	}));

test("a failing host call ends the stream with an error message", () =>
	withHost({ complete: async () => Promise.reject(new Error("provider down")) }, async () => {
		const stream = ai.stream(catalogue[0], { messages: [] });
		const events = [];
		for await (const event of stream) events.push(event);
		assert.equal(events.length, 1);
		assert.equal(events[0].type, "error");
		const result = await stream.result();
		assert.equal(result.stopReason, "error");
		assert.equal(result.errorMessage, "provider down");
		assert.equal(result.provider, "alpha");
	}));

test("an error message from the host ends the stream with an error event", () =>
	withHost({ complete: async () => ({ role: "assistant", content: [], stopReason: "aborted" }) }, async () => {
		const stream = ai.stream(catalogue[0], { messages: [] });
		const events = [];
		for await (const event of stream) events.push(event);
		assert.deepStrictEqual(
			events.map((e) => [e.type, e.reason]),
			[
				["start", undefined],
				["error", "aborted"],
			],
		);
	}));
