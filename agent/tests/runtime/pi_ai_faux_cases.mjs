// The faux-provider cases of pi_ai_cases.mjs: queued responses streamed in fixed-size chunks
// (tokenSize 2..2 keeps chunking deterministic), usage estimates with prompt caching, the
// registry and Models forms, deferred responses, aborts.

import { withoutTimestamps } from "./case_helpers.mjs";

// Events as [type, contentIndex, delta] and the final message, without timestamps or ids.
async function collect(stream) {
	const events = [];
	for await (const event of stream) events.push([event.type, event.contentIndex ?? null, event.delta ?? null]);
	return normalize({ events, result: await stream.result() });
}

function normalize(value) {
	const text = JSON.stringify(withoutTimestamps(value));
	return JSON.parse(text.replace(/deferred:\d+:[0-9a-z]+/g, "<deferred-id>").replace(/"faux:\d+:[0-9a-z]+"/g, '"<random api>"'));
}

const context = (text, extra = {}) => ({
	systemPrompt: "You are terse.",
	messages: [
		{ role: "user", content: text, timestamp: 1 },
		{ role: "assistant", content: [{ type: "text", text: "earlier" }, { type: "toolCall", id: "x", name: "ls", arguments: { path: "." } }], timestamp: 2 },
		{ role: "toolResult", toolName: "ls", toolCallId: "x", content: [{ type: "text", text: "a b" }, { type: "image", mimeType: "image/png", data: "AAAA" }], timestamp: 3 },
	],
	...extra,
});

export function piAiFauxCases(ai) {
	return {
		fauxRegistered: async () => {
			const faux = ai.registerFauxProvider({ api: "faux-test", provider: "faux-p", tokenSize: { min: 2, max: 2 }, models: [{ id: "fm", name: "Faux M", reasoning: true }, { id: "fn" }] });
			const model = faux.getModel();
			faux.setResponses([
				ai.fauxAssistantMessage("A fairly long answer that is cut into several chunks."),
				(ctx, options, state, requestModel) => ai.fauxAssistantMessage(`step saw ${ctx.messages.length} messages, call ${state.callCount}, model ${requestModel.id}, session ${options?.sessionId}`),
			]);
			faux.appendResponses([
				ai.fauxAssistantMessage([ai.fauxThinking("Let me think about it."), ai.fauxText("Calling."), ai.fauxToolCall("read", { path: "src/main.rs", limit: 20 }, { id: "c1" })], { stopReason: "toolUse" }),
				ai.fauxAssistantMessage("boom", { stopReason: "error", errorMessage: "scripted failure" }),
			]);
			const out = { keys: Object.keys(faux), models: faux.models, other: faux.getModel("fn"), missing: faux.getModel("nope") ?? null, pending: faux.getPendingResponseCount() };
			out.first = await collect(ai.stream(model, context("first"), { sessionId: "s1" }));
			out.second = await collect(ai.streamSimple(model, context("first, then more"), { sessionId: "s1" }));
			out.third = await collect(ai.stream(model, context("third"), { sessionId: "s1", cacheRetention: "none" }));
			out.fourth = await collect(ai.stream(model, context("fourth")));
			out.exhausted = await collect(ai.stream(model, context("none left", { tools: [{ name: "t", description: "d", parameters: {} }] })));
			out.state = faux.state;
			faux.unregister();
			out.afterUnregister = ai.getApiProvider("faux-test") ?? null;
			return out;
		},
		fauxModels: async () => {
			const faux = ai.fauxProvider({ tokenSize: { min: 2, max: 2 } });
			const models = ai.createModels();
			models.setProvider(faux.provider);
			faux.setResponses([ai.fauxAssistantMessage("via models")]);
			return {
				keys: Object.keys(faux),
				provider: [faux.provider.id, faux.provider.name, Object.keys(faux.provider).sort()],
				models: normalize(faux.models),
				result: await collect(models.streamSimple(faux.getModel(), context("hi"))),
				available: (await models.getAvailable()).map((m) => m.id),
			};
		},
		fauxDeferred: async () => {
			const core = ai.createFauxCore({ api: "faux-d", tokenSize: { min: 2, max: 2 }, deferred: { pendingFetches: 1, pollAfterMs: 25 } });
			const model = core.getModel();
			const responses = [];
			core.setResponses([ai.fauxAssistantMessage("finally done")]);
			const submitted = await collect(core.stream(model, context("defer me"), { deferred: true, onResponse: (r) => responses.push(r.status) }));
			const noneLeft = await collect(core.stream(model, context("x"), { deferred: true }));
			return {
				submitted,
				noneLeft,
				responses,
				handleKeys: Object.keys(submitted.result.deferred),
				state: core.state,
			};
		},
		fauxDeferredFetches: async () => {
			const core = ai.createFauxCore({ api: "faux-f", tokenSize: { min: 2, max: 2 }, deferred: { pendingFetches: 1 } });
			const model = core.getModel();
			core.setResponses([ai.fauxAssistantMessage("deferred answer"), ai.fauxAssistantMessage("second answer")]);
			const first = await core.stream(model, context("a"), { deferred: true }).result();
			const second = await core.stream(model, context("b"), { deferred: true }).result();
			const out = {
				pending: await collect(core.fetchDeferred(model, first.deferred)),
				ready: await collect(core.fetchDeferred(model, first.deferred)),
				again: await collect(core.fetchDeferred(model, first.deferred)),
				unknown: await collect(core.fetchDeferred(model, { ...first.deferred, id: "nope" })),
				mismatch: await collect(core.fetchDeferred(model, { ...first.deferred, modelId: "other" })),
			};
			await core.cancelDeferred(model, second.deferred);
			out.cancelled = await collect(core.fetchDeferred(model, second.deferred));
			out.state = normalize(core.state);
			return out;
		},
		fauxAborted: async () => {
			const core = ai.createFauxCore({ api: "faux-a", tokenSize: { min: 2, max: 2 } });
			core.setResponses([ai.fauxAssistantMessage("never sent"), ai.fauxAssistantMessage("cut short, after some chunks of text")]);
			const controller = new AbortController();
			controller.abort();
			const before = await collect(core.stream(core.getModel(), context("a"), { signal: controller.signal }));
			const midway = new AbortController();
			const stream = core.stream(core.getModel(), context("b"), { signal: midway.signal });
			const events = [];
			for await (const event of stream) {
				events.push(event.type);
				if (event.type === "text_delta" && events.filter((t) => t === "text_delta").length === 2) midway.abort();
			}
			return { before, midway: { events, result: normalize(await stream.result()) } };
		},
		fauxThrowingStep: async () => {
			const core = ai.createFauxCore({ api: "faux-t" });
			core.setResponses([
				() => {
					throw new Error("step failed");
				},
				{ role: "assistant", content: [], stopReason: "pending" },
			]);
			return [await collect(core.stream(core.getModel(), context("a"))), await collect(core.stream(core.getModel(), context("b")))];
		},
	};
}
