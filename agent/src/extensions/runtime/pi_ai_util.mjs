// pi-ai's small helpers: ids, the string-enum schema, message text, diagnostics, session
// resource cleanups, and the classification of failed assistant messages (context overflow,
// retryable errors) with the bounded retry loop built on it.

import { Type } from "./typebox.mjs";

// ---- uuidv7 ----

let lastMillis = -Infinity;
let counter = 0;

function randomBytes(count) {
	const bytes = new Uint8Array(count);
	if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
	else for (let i = 0; i < count; i++) bytes[i] = Math.floor(Math.random() * 256);
	return bytes;
}

/**
 * A time-ordered UUID (version 7): 48 bits of Unix milliseconds, then a 32-bit counter that
 * starts at a random value each new millisecond (so ids made within one millisecond still
 * sort in creation order), then random bits.
 */
export function uuidv7() {
	const random = randomBytes(16);
	const now = Date.now();
	if (now > lastMillis) {
		lastMillis = now;
		counter = ((random[6] << 24) | (random[7] << 16) | (random[8] << 8) | random[9]) >>> 0;
	} else {
		counter = (counter + 1) >>> 0;
		if (counter === 0) lastMillis++;
	}
	const b = new Uint8Array(16);
	for (let i = 0; i < 6; i++) b[i] = Math.floor(lastMillis / 2 ** (8 * (5 - i))) & 0xff;
	b[6] = 0x70 | ((counter >>> 28) & 0x0f); // version 7
	b[7] = (counter >>> 20) & 0xff;
	b[8] = 0x80 | ((counter >>> 14) & 0x3f); // variant 10
	b[9] = (counter >>> 6) & 0xff;
	b[10] = ((counter & 0x3f) << 2) | (random[10] & 0x03);
	b.set(random.subarray(11, 16), 11);
	const hex = Array.from(b, (byte) => byte.toString(16).padStart(2, "0")).join("");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// ---- schemas and text ----

/**
 * A string schema restricted to `values`, written as `{type: "string", enum}` (which every
 * provider accepts, unlike anyOf of constants). Falsy description/default are left out.
 */
export function StringEnum(values, options) {
	const schema = { type: "string", enum: values };
	if (options?.description) schema.description = options.description;
	if (options?.default) schema.default = options.default;
	return Type.Unsafe(schema);
}

/** The text of message content: a string as is, else its text blocks joined. */
export function contentText(content, separator = "\n") {
	if (typeof content === "string") return content;
	return content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join(separator);
}

// ---- diagnostics ----

export function formatThrownValue(value) {
	if (value instanceof Error) return value.message || value.name;
	return typeof value === "string" ? value : String(value);
}

export function extractDiagnosticError(error) {
	if (!(error instanceof Error)) return { name: "ThrownValue", message: formatThrownValue(error) };
	const code = error.code;
	return {
		name: error.name || undefined,
		message: error.message || error.name,
		stack: error.stack,
		code: typeof code === "string" || typeof code === "number" ? code : undefined,
	};
}

export function createAssistantMessageDiagnostic(type, error, details) {
	return { type, timestamp: Date.now(), error: extractDiagnosticError(error), details };
}

export function appendAssistantMessageDiagnostic(message, diagnostic) {
	message.diagnostics = [...(message.diagnostics ?? []), diagnostic];
}

// ---- session resources ----

const cleanups = new Set();

/** Registers a cleanup run by cleanupSessionResources; returns its unregistration. */
export function registerSessionResourceCleanup(cleanup) {
	cleanups.add(cleanup);
	return () => {
		cleanups.delete(cleanup);
	};
}

export function cleanupSessionResources(sessionId) {
	const errors = [];
	for (const cleanup of cleanups) {
		try {
			cleanup(sessionId);
		} catch (error) {
			errors.push(error);
		}
	}
	if (errors.length > 0) throw new AggregateError(errors, "Failed to cleanup session resources");
}

// ---- context overflow ----

// Error texts by which providers say the request did not fit the context window.
const OVERFLOW_PATTERNS = [
	/prompt is too long/i, // Anthropic
	/request_too_large/i, // Anthropic, request bytes (413)
	/input is too long for requested model/i, // Amazon Bedrock
	/exceeds the context window/i, // OpenAI
	/exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))/i, // LiteLLM & co
	/input token count.*exceeds the maximum/i, // Google
	/maximum prompt length is \d+/i, // xAI
	/reduce the length of the messages/i, // Groq
	/maximum context length is \d+ tokens/i, // OpenRouter
	/exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?/i, // OpenRouter / Poolside
	/input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)/i, // Together AI
	/exceeds the limit of \d+/i, // GitHub Copilot
	/exceeds the available context size/i, // llama.cpp
	/greater than the context length/i, // LM Studio
	/context window exceeds limit/i, // MiniMax
	/exceeded model token limit/i, // Kimi For Coding
	/too large for model with \d+ maximum context length/i, // Mistral
	/prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?/i, // DS4
	/model_context_window_exceeded/i, // z.ai
	/prompt too long; exceeded (?:max )?context length/i, // Ollama
	/range of input length should be/i, // DashScope / Qwen
	/context[_ ]length[_ ]exceeded/i,
	/too many tokens/i,
	/token limit exceeded/i,
	/^4(?:00|13)\s*(?:status code)?\s*\(no body\)/i, // Cerebras
];

// Texts that look like overflow but are throttling or outages.
const NOT_OVERFLOW_PATTERNS = [/^(Throttling error|Service unavailable):/i, /rate limit/i, /too many requests/i];

/**
 * Whether an assistant message says the context overflowed: by its error text, or (given the
 * context window) by usage beyond the window on success, or a window-filling input with no
 * output on a length stop.
 */
export function isContextOverflow(message, contextWindow) {
	const text = message.errorMessage;
	if (message.stopReason === "error" && text) {
		if (!NOT_OVERFLOW_PATTERNS.some((p) => p.test(text)) && OVERFLOW_PATTERNS.some((p) => p.test(text))) {
			return true;
		}
	}
	if (!contextWindow) return false;
	const input = message.usage.input + message.usage.cacheRead;
	if (message.stopReason === "stop" && input > contextWindow) return true;
	return message.stopReason === "length" && message.usage.output === 0 && input >= contextWindow * 0.99;
}

/** A length stop below the output limit the caller wanted (worth one compact-and-retry). */
export function isRecoverableLength(message, desiredMaxOutput) {
	return message.stopReason === "length" && desiredMaxOutput > 0 && message.usage.output < desiredMaxOutput;
}

export function getOverflowPatterns() {
	return [...OVERFLOW_PATTERNS];
}

// ---- retry ----

const anyOf = (parts) => new RegExp(parts.join("|"), "i");

// Account limits: retrying does not help.
const LIMIT_ERROR = anyOf([
	"GoUsageLimitError",
	"FreeUsageLimitError",
	"Monthly usage limit reached",
	"available balance",
	"insufficient_quota",
	"out of budget",
	"quota exceeded",
	"billing",
]);

// Load, server and transport failures that a new attempt may get past.
const TRANSIENT_ERROR = anyOf([
	"overloaded",
	"rate.?limit",
	"too many requests",
	"429",
	"500",
	"502",
	"503",
	"504",
	"524",
	"service.?unavailable",
	"server.?error",
	"internal.?error",
	"provider.?returned.?error",
	"network.?error",
	"connection.?error",
	"connection.?refused",
	"connection.?lost",
	"other side closed",
	"fetch failed",
	"getaddrinfo",
	"ENOTFOUND",
	"EAI_AGAIN",
	"upstream.?connect",
	"reset before headers",
	"socket hang up",
	"socket connection was closed",
	"timed? out",
	"timeout",
	"terminated",
	"websocket.?closed",
	"websocket.?error",
	"ended without",
	"stream ended before message_stop",
	"stream ended before a terminal response event",
	"http2 request did not get a response",
	"retry delay",
	"you can retry your request",
	"try your request again",
	"please retry your request",
	"ResourceExhausted",
]);

/** Whether a failed assistant message looks transient (worth restarting the turn). */
export function isRetryableAssistantError(message) {
	if (message.stopReason !== "error" || !message.errorMessage) return false;
	return !LIMIT_ERROR.test(message.errorMessage) && TRANSIENT_ERROR.test(message.errorMessage);
}

class BackoffAborted extends Error {}

function backoff(ms, signal) {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new BackoffAborted("Aborted"));
		const timer = setTimeout(resolve, ms);
		signal?.addEventListener(
			"abort",
			() => {
				clearTimeout(timer);
				reject(new BackoffAborted("Aborted"));
			},
			{ once: true },
		);
	});
}

/**
 * Runs `produce` (one assistant call) and, while it fails transiently and the policy allows,
 * again after an exponential backoff (baseDelayMs, doubled each time). An abort, during the
 * call or the backoff, ends it with an aborted message. Callbacks: onRetryScheduled(attempt,
 * max, delayMs, error) before each backoff, onRetryAttemptStart() after it, and once at the
 * end, if a retry was scheduled, onRetryFinished(succeeded, attempt, error?).
 */
export async function retryAssistantCall(produce, policy, signal, callbacks) {
	const maxRetries = policy?.enabled ? policy.maxRetries : 0;
	let attempt = 0;
	let retried = false;
	for (;;) {
		const response = await produce();
		if (response.stopReason === "aborted") {
			if (retried) await callbacks?.onRetryFinished?.(false, attempt);
			return response;
		}
		if (response.stopReason !== "error") {
			if (retried) await callbacks?.onRetryFinished?.(true, attempt);
			return response;
		}
		if (attempt >= maxRetries || !isRetryableAssistantError(response)) {
			if (retried) await callbacks?.onRetryFinished?.(false, attempt, response.errorMessage);
			return response;
		}
		attempt++;
		retried = true;
		const errorText = response.errorMessage || "Unknown error";
		const delayMs = policy.baseDelayMs * 2 ** (attempt - 1);
		await callbacks?.onRetryScheduled?.(attempt, maxRetries, delayMs, errorText);
		try {
			await backoff(delayMs, signal);
		} catch (error) {
			await callbacks?.onRetryFinished?.(false, attempt, errorText);
			if (error instanceof BackoffAborted) return { ...response, stopReason: "aborted", errorMessage: undefined };
			throw error;
		}
		await callbacks?.onRetryAttemptStart?.();
	}
}
