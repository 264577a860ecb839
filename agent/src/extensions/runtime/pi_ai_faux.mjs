// pi-ai's faux provider (canned responses for tests): the message builders are real; the
// provider itself (createFauxCore, fauxProvider, registerFauxProvider) is not supported yet.

import { notSupported } from "./pi_runtime_host.mjs";

export function fauxText(text) {
	return { type: "text", text };
}

export function fauxThinking(thinking) {
	return { type: "thinking", thinking };
}

export function fauxToolCall(name, args, options = {}) {
	const id = options.id ?? `tool:${Date.now()}:${Math.random().toString(36).slice(2)}`;
	return { type: "toolCall", id, name, arguments: args };
}

/** An assistant message of the faux model ("faux"/"faux-1"); a string is one text block. */
export function fauxAssistantMessage(content, options = {}) {
	return {
		role: "assistant",
		content: typeof content === "string" ? [fauxText(content)] : Array.isArray(content) ? content : [content],
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: options.stopReason ?? "stop",
		deferred: options.deferred,
		errorMessage: options.errorMessage,
		responseId: options.responseId,
		timestamp: options.timestamp ?? Date.now(),
	};
}

export const createFauxCore = notSupported("createFauxCore");
export const fauxProvider = notSupported("fauxProvider");
export const registerFauxProvider = notSupported("registerFauxProvider");
