// pi-agent's extension host. pi-agent starts it with Node.js (>= 22.6, which loads TypeScript
// by erasing its types) only when extensions are given. It loads each extension, hands it a
// `pi` object with the part of pi's extension API that pi-agent supports, and bridges it to the
// agent: one JSON object per line on stdin (from the agent) and on stdout (to the agent).
//
// From the agent:
//   {type:"init", cwd, extensions:[path]}        load them; answer "loaded"
//   {type:"reload"}                              for a replaced session: drop the loaded
//                                                extensions and call their factories again
//                                                (modules stay imported); answer "loaded"
//   {type:"streaming", value}                    whether the agent runs now (for the input
//                                                event of pi.sendUserMessage)
//   {type:"event", id, event}                    run the handlers of event.type; answer "done"
//   {type:"command", id, name, args}             run a registered command; answer "done"
//   {type:"ui_response", response}               an extension_ui_response from the client
//   {type:"tool", id, toolCallId, name, args}    run a registered tool; answer "tool_result"
//   {type:"tool_abort", id}                      abort the signal of that tool call
//   {type:"intercept", id, event}                run tool_call, tool_result, context or
//                                                session_before_compact handlers, whose answers
//                                                change what follows; answer "intercepted"
// To the agent:
//   {type:"loaded", commands:[{name, description, path}], tools:[{name, description,
//    parameters, path}], events:[type], error?}
//   {type:"ui", request:{method, ...}}           an extension_ui_request, without type and id
//   {type:"extension_error", extensionPath, event, error}
//   {type:"append_entry", customType, data}
//   {type:"send_message", message:{customType, content, display, details}, deliverAs, triggerTurn}
//   {type:"send_user_message", text, images, deliverAs}   after its input handlers (which
//                                                may have rewritten it; handled ones are not sent)
//   {type:"done", id, result?}                   result: of "input" {action, text, images},
//                                                of "before_agent_start" {messages, systemPrompt},
//                                                of "session_before_switch" / "_fork" {cancel},
//                                                of "user_bash" {result}
//   {type:"tool_update", id, partialResult}      a tool's onUpdate
//   {type:"tool_result", id, result:{content, details}, isError}
//   {type:"intercepted", id, result}             tool_call: {block, reason, input} or {error};
//                                                tool_result: {content, details, isError};
//                                                session_before_compact: {cancel} or {compaction};
//                                                context: {messages}

import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

// Only this script writes the protocol on stdout; whatever an extension prints goes to stderr.
const protocolOut = process.stdout;
const writeProtocol = protocolOut.write.bind(protocolOut);
protocolOut.write = process.stderr.write.bind(process.stderr);

function send(message) {
	writeProtocol(`${JSON.stringify(message)}\n`);
}

function errorText(error) {
	return error instanceof Error ? error.message : String(error);
}

/**
 * Loaded extensions, in load order:
 * { path, handlers: Map<type, fn[]>, commands: Map<name, def>, tools: Map<name, def> }.
 */
const extensions = [];
/** Abort controllers of the running tool calls, by the agent's id. */
const runningTools = new Map();
/** Dialogs waiting for the client, by request id. */
const pendingDialogs = new Map();
let cwd = process.cwd();
let turnIndex = 0;

function uiRequest(request) {
	send({ type: "ui", request: { id: randomUUID(), ...request } });
}

/** A dialog: resolves with the parsed answer, or `fallback` on timeout or when `signal` aborts. */
function dialog(request, opts, fallback, parse) {
	const signal = opts?.signal;
	if (signal?.aborted) return Promise.resolve(fallback);
	return new Promise((resolve) => {
		const id = randomUUID();
		let timer;
		const finish = (value) => {
			if (timer) clearTimeout(timer);
			signal?.removeEventListener("abort", onAbort);
			pendingDialogs.delete(id);
			resolve(value);
		};
		const onAbort = () => finish(fallback);
		signal?.addEventListener("abort", onAbort, { once: true });
		if (opts?.timeout) {
			timer = setTimeout(() => finish(fallback), opts.timeout);
		}
		pendingDialogs.set(id, (response) => finish(parse(response)));
		send({ type: "ui", request: { id, ...request } });
	});
}

const cancelled = (response) => response.cancelled === true;
const valueOf = (response) => (cancelled(response) ? undefined : "value" in response ? response.value : undefined);

const ui = {
	select(title, options, opts) {
		return dialog({ method: "select", title, options, timeout: opts?.timeout }, opts, undefined, valueOf);
	},
	confirm(title, message, opts) {
		return dialog({ method: "confirm", title, message, timeout: opts?.timeout }, opts, false, (r) =>
			cancelled(r) ? false : "confirmed" in r ? r.confirmed : false,
		);
	},
	input(title, placeholder, opts) {
		return dialog({ method: "input", title, placeholder, timeout: opts?.timeout }, opts, undefined, valueOf);
	},
	// As in pi's RPC mode, the editor takes no options: no timeout, it waits for an answer.
	editor(title, prefill) {
		return dialog({ method: "editor", title, prefill }, undefined, undefined, valueOf);
	},
	notify(message, type) {
		uiRequest({ method: "notify", message, notifyType: type });
	},
	setStatus(key, text) {
		uiRequest({ method: "setStatus", statusKey: key, statusText: text });
	},
	setWidget(key, content, options) {
		// Only lines of text can cross the protocol; component factories are ignored.
		if (content === undefined || Array.isArray(content)) {
			uiRequest({
				method: "setWidget",
				widgetKey: key,
				widgetLines: content,
				widgetPlacement: options?.placement,
			});
		}
	},
	setTitle(title) {
		uiRequest({ method: "setTitle", title });
	},
	setEditorText(text) {
		uiRequest({ method: "set_editor_text", text });
	},
	pasteToEditor(text) {
		this.setEditorText(text);
	},
	getEditorText() {
		return "";
	},
	async custom() {
		return undefined;
	},
	onTerminalInput() {
		return () => {};
	},
	setWorkingMessage() {},
	setWorkingVisible() {},
	setWorkingIndicator() {},
	setHiddenThinkingLabel() {},
	setFooter() {},
	setHeader() {},
	addAutocompleteProvider() {},
	setEditorComponent() {},
	getEditorComponent() {
		return undefined;
	},
	getToolsExpanded() {
		return false;
	},
	setToolsExpanded() {},
	// No terminal to style: every theme function (`fg(color, text)`, `bold(text)`, ...) gives
	// the text back unchanged.
	theme: new Proxy({}, { get: () => (...args) => args[args.length - 1] }),
	getAllThemes() {
		return [];
	},
	getTheme() {
		return undefined;
	},
	setTheme() {
		return { success: false, error: "pi-agent has no themes" };
	},
};

function context() {
	return {
		ui,
		mode: "rpc",
		hasUI: true,
		cwd,
		signal: undefined,
	};
}

const warned = new Set();

/** The `pi` object of one extension: the supported calls, and a warning for the others. */
function api(extension) {
	const supported = {
		on(type, handler) {
			const list = extension.handlers.get(type) ?? [];
			list.push(handler);
			extension.handlers.set(type, list);
		},
		registerCommand(name, options) {
			extension.commands.set(name, {
				name,
				description: options?.description,
				handler: options?.handler,
			});
		},
		registerTool(definition) {
			extension.tools.set(definition.name, definition);
		},
		appendEntry(customType, data) {
			send({ type: "append_entry", customType, data });
		},
		sendMessage(message, options) {
			send({
				type: "send_message",
				message: {
					customType: message?.customType,
					content: message?.content ?? [],
					display: message?.display,
					details: message?.details,
				},
				deliverAs: options?.deliverAs,
				triggerTurn: options?.triggerTurn === true,
			});
		},
		sendUserMessage(content, options) {
			// A text, or blocks: the texts joined by newlines, the rest are images.
			const blocks = typeof content === "string" ? [{ type: "text", text: content }] : (content ?? []);
			const text = blocks
				.filter((block) => block.type === "text")
				.map((block) => block.text)
				.join("\n");
			const images = blocks.filter((block) => block.type !== "text");
			// As pi does, the input handlers start at once (before this call returns) and the
			// caller is not told how it went: failures are reported as extension errors.
			const pipeline = userMessage(text, images.length > 0 ? images : undefined, options?.deliverAs);
			userMessages.add(pipeline);
			pipeline.finally(() => userMessages.delete(pipeline));
		},
	};
	return new Proxy(supported, {
		get(target, property) {
			if (property in target) return target[property];
			if (typeof property !== "string" || property === "then") return undefined;
			return () => {
				if (!warned.has(property)) {
					warned.add(property);
					process.stderr.write(`pi-agent: pi.${property}() is not supported for extensions yet; ignored\n`);
				}
			};
		},
	});
}

async function load(path) {
	const extension = { path, handlers: new Map(), commands: new Map(), tools: new Map() };
	let module;
	try {
		module = await import(pathToFileURL(path).href);
	} catch (error) {
		throw new Error(`Failed to load extension "${path}": ${errorText(error)}`);
	}
	const factory = module.default;
	if (typeof factory !== "function") {
		throw new Error(`Failed to load extension "${path}": it has no default export function`);
	}
	try {
		await factory(api(extension));
	} catch (error) {
		throw new Error(`Failed to load extension "${path}": Failed to load extension: ${errorText(error)}`);
	}
	extensions.push(extension);
}

/** Every registered command, named as pi names them when two extensions use one name. */
function commands() {
	const all = extensions.flatMap((extension) =>
		[...extension.commands.values()].map((command) => ({ command, path: extension.path })),
	);
	const counts = new Map();
	for (const { command } of all) counts.set(command.name, (counts.get(command.name) ?? 0) + 1);
	const seen = new Map();
	const taken = new Set();
	return all.map(({ command, path }) => {
		const occurrence = (seen.get(command.name) ?? 0) + 1;
		seen.set(command.name, occurrence);
		let name = counts.get(command.name) > 1 ? `${command.name}:${occurrence}` : command.name;
		let suffix = occurrence;
		while (taken.has(name)) {
			suffix += 1;
			name = `${command.name}:${suffix}`;
		}
		taken.add(name);
		return { name, command, path };
	});
}

/** The event as extensions see it, from the agent's event record. */
function extensionEvent(event) {
	switch (event.type) {
		case "agent_start":
			turnIndex = 0;
			return { type: "agent_start" };
		case "agent_end":
			return { type: "agent_end", messages: event.messages };
		case "turn_start":
			return { type: "turn_start", turnIndex, timestamp: Date.now() };
		case "turn_end":
			return { type: "turn_end", turnIndex: turnIndex++, message: event.message, toolResults: event.toolResults };
		case "message_update":
			return { type: "message_update", message: event.message, assistantMessageEvent: event.assistantMessageEvent };
		case "tool_execution_update":
			return {
				type: "tool_execution_update",
				toolCallId: event.toolCallId,
				toolName: event.toolName,
				args: event.args,
				partialResult: event.partialResult,
			};
		default:
			return event;
	}
}

/** Runs `handler` for every handler of `type` in load order; a throw is reported and skipped. */
async function eachHandler(type, run) {
	for (const extension of extensions) {
		for (const handler of extension.handlers.get(type) ?? []) {
			try {
				if ((await run(handler)) === false) return;
			} catch (error) {
				send({ type: "extension_error", extensionPath: extension.path, event: type, error: errorText(error) });
			}
		}
	}
}

/** `input`: transforms chain; the first handler that handles the input ends it. */
async function emitInput(event) {
	const current = { ...event };
	let action = "continue";
	await eachHandler("input", async (handler) => {
		const answer = await handler({ ...current }, context());
		if (answer?.action === "handled") {
			action = "handled";
			return false;
		}
		if (answer?.action === "transform") {
			action = "transform";
			if (answer.text !== undefined) current.text = answer.text;
			if (answer.images !== undefined) current.images = answer.images;
		}
	});
	return action === "transform" ? { action, text: current.text, images: current.images } : { action };
}

/** `before_agent_start`: every handler may add a message; system prompt changes chain. */
async function emitBeforeAgentStart(event) {
	const messages = [];
	let systemPrompt = event.systemPrompt;
	let changed = false;
	await eachHandler("before_agent_start", async (handler) => {
		const answer = await handler({ ...event, systemPrompt }, context());
		if (answer?.message) messages.push(answer.message);
		if (answer?.systemPrompt !== undefined) {
			systemPrompt = answer.systemPrompt;
			changed = true;
		}
	});
	return changed ? { messages, systemPrompt } : { messages };
}

/** `session_before_switch` / `session_before_fork`: the first handler that cancels wins. */
async function emitCancellable(event) {
	let cancel = false;
	await eachHandler(event.type, async (handler) => {
		const answer = await handler(event, context());
		if (answer?.cancel === true) {
			cancel = true;
			return false;
		}
	});
	return cancel ? { cancel } : {};
}

/**
 * `user_bash`: the first handler that answers decides. Only a `result` can cross to the agent;
 * `operations` (functions) cannot, so the agent then runs the command itself.
 */
async function emitUserBash(event) {
	let answer;
	await eachHandler("user_bash", async (handler) => {
		const result = await handler(event, context());
		if (result) {
			answer = result;
			return false;
		}
	});
	if (answer?.operations !== undefined && answer.result === undefined) {
		process.stderr.write("pi-agent: user_bash operations are not supported for extensions yet; ignored\n");
	}
	return answer?.result !== undefined ? { result: answer.result } : {};
}

async function emit(event) {
	if (event.type === "user_bash") return emitUserBash(event);
	if (event.type === "session_before_switch" || event.type === "session_before_fork") return emitCancellable(event);
	if (event.type === "input") return emitInput(event);
	if (event.type === "before_agent_start") return emitBeforeAgentStart(event);
	const forExtensions = extensionEvent(event);
	await eachHandler(event.type, (handler) => handler(forExtensions, context()));
}

/** Whether the agent is running (the agent says so with "streaming" messages). */
let streaming = false;
/** The `sendUserMessage` calls whose input handlers still run. */
const userMessages = new Set();

/** A user message from an extension: its input handlers (source "extension"), then the agent. */
async function userMessage(text, images, deliverAs) {
	let current = { text, images };
	if (extensions.some((extension) => (extension.handlers.get("input") ?? []).length > 0)) {
		const result = await emitInput({
			type: "input",
			text,
			images,
			source: "extension",
			streamingBehavior: streaming ? deliverAs : undefined,
		});
		if (result.action === "handled") return;
		if (result.action === "transform") current = { text: result.text, images: result.images ?? images };
	}
	send({ type: "send_user_message", text: current.text, images: current.images, deliverAs });
}

async function runCommand(name, args) {
	const found = commands().find((entry) => entry.name === name);
	if (!found) return;
	try {
		await found.command.handler(args, context());
	} catch (error) {
		send({ type: "extension_error", extensionPath: `command:${name}`, event: "command", error: errorText(error) });
	}
	// The user messages the command sent reach the agent before the command is done.
	await Promise.allSettled([...userMessages]);
}

/** Every registered tool; where two extensions register one name, the first keeps it. */
function tools() {
	const byName = new Map();
	for (const extension of extensions) {
		for (const tool of extension.tools.values()) {
			if (!byName.has(tool.name)) byName.set(tool.name, { tool, path: extension.path });
		}
	}
	return [...byName.values()];
}

/** A tool's (partial) result as the agent reports it: its content blocks, and details if any. */
function toolResult(result) {
	const out = { content: Array.isArray(result?.content) ? result.content : [] };
	if (result?.details !== undefined) out.details = result.details;
	return out;
}

async function runTool(message) {
	const found = tools().find((entry) => entry.tool.name === message.name);
	const controller = new AbortController();
	runningTools.set(message.id, controller);
	const onUpdate = (partial) => send({ type: "tool_update", id: message.id, partialResult: toolResult(partial) });
	try {
		if (!found) throw new Error(`Tool ${message.name} not found`);
		const result = await found.tool.execute(message.toolCallId, message.args, controller.signal, onUpdate, context());
		send({ type: "tool_result", id: message.id, result: toolResult(result), isError: false });
	} catch (error) {
		send({
			type: "tool_result",
			id: message.id,
			result: { content: [{ type: "text", text: errorText(error) }], details: {} },
			isError: true,
		});
	} finally {
		runningTools.delete(message.id);
	}
}

/** `tool_call` handlers in load order: the first that blocks wins; `event.input` is theirs to change. */
async function interceptToolCall(event) {
	let result;
	for (const extension of extensions) {
		for (const handler of extension.handlers.get("tool_call") ?? []) {
			const answer = await handler(event, context());
			if (answer) {
				result = answer;
				if (answer.block) return { block: true, reason: answer.reason, input: event.input };
			}
		}
	}
	return { block: false, reason: result?.reason, input: event.input };
}

/** `tool_result` handlers in load order, each seeing the result as the previous ones left it. */
async function interceptToolResult(event) {
	const current = { ...event };
	for (const extension of extensions) {
		for (const handler of extension.handlers.get("tool_result") ?? []) {
			try {
				const answer = await handler(current, context());
				if (!answer) continue;
				for (const key of ["content", "details", "isError"]) {
					if (answer[key] !== undefined) current[key] = answer[key];
				}
			} catch (error) {
				send({ type: "extension_error", extensionPath: extension.path, event: "tool_result", error: errorText(error) });
			}
		}
	}
	return { content: current.content, details: current.details, isError: current.isError };
}

/** `session_before_compact`: the first handler that cancels or gives a compaction decides. */
async function interceptBeforeCompact(event) {
	let result = {};
	await eachHandler("session_before_compact", async (handler) => {
		const answer = await handler(event, context());
		if (answer?.cancel === true) {
			result = { cancel: true };
			return false;
		}
		if (answer?.compaction) {
			result = { compaction: answer.compaction };
			return false;
		}
	});
	return result;
}

/** `context`: each handler may replace the messages the next one (and the model) sees. */
async function interceptContext(event) {
	let messages = event.messages;
	await eachHandler("context", async (handler) => {
		const answer = await handler({ type: "context", messages }, context());
		if (answer?.messages) messages = answer.messages;
	});
	return { messages };
}

const interceptors = {
	tool_call: interceptToolCall,
	tool_result: interceptToolResult,
	session_before_compact: interceptBeforeCompact,
	context: interceptContext,
};

async function intercept(message) {
	let result;
	try {
		result = await interceptors[message.event.type](message.event);
	} catch (error) {
		result = { error: errorText(error) };
	}
	send({ type: "intercepted", id: message.id, result });
}

/** The files of the loaded extensions, for a reload. */
let loadedPaths = [];

async function init(message) {
	cwd = message.cwd ?? cwd;
	loadedPaths = message.extensions;
	await loadAll();
}

/**
 * A replaced session gets new extension instances, as in pi: each factory runs again with a
 * new `pi`; the modules themselves are not evaluated again (their top-level state stays).
 */
async function reload() {
	extensions.length = 0;
	for (const finish of pendingDialogs.values()) finish({ cancelled: true });
	await loadAll();
}

async function loadAll() {
	try {
		for (const path of loadedPaths) {
			await load(path);
		}
	} catch (error) {
		send({ type: "loaded", commands: [], tools: [], events: [], error: errorText(error) });
		return;
	}
	const events = new Set();
	for (const extension of extensions) {
		for (const [type, list] of extension.handlers) {
			if (list.length > 0) events.add(type);
		}
	}
	send({
		type: "loaded",
		commands: commands().map(({ name, command, path }) => ({ name, description: command.description, path })),
		tools: tools().map(({ tool, path }) => ({
			name: tool.name,
			description: tool.description ?? "",
			parameters: tool.parameters ?? { type: "object", properties: {} },
			path,
		})),
		events: [...events],
	});
}

async function handle(message) {
	switch (message.type) {
		case "init":
			await init(message);
			break;
		case "reload":
			await reload();
			break;
		case "streaming":
			streaming = message.value === true;
			break;
		case "event": {
			const result = await emit(message.event);
			send({ type: "done", id: message.id, result });
			break;
		}
		case "command":
			await runCommand(message.name, message.args);
			send({ type: "done", id: message.id });
			break;
		case "tool":
			await runTool(message);
			break;
		case "intercept":
			await intercept(message);
			break;
		case "tool_abort":
			runningTools.get(message.id)?.abort();
			break;
		case "ui_response":
			pendingDialogs.get(message.response.id)?.(message.response);
			break;
		default:
			process.stderr.write(`pi-agent extension host: unknown message ${JSON.stringify(message.type)}\n`);
	}
}

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on("line", (line) => {
	if (line.trim() === "") return;
	let message;
	try {
		message = JSON.parse(line);
	} catch (error) {
		process.stderr.write(`pi-agent extension host: bad line from the agent: ${errorText(error)}\n`);
		return;
	}
	// Each message is handled concurrently, as a dialog must not stop the agent's other requests.
	handle(message).catch((error) => {
		process.stderr.write(`pi-agent extension host: ${errorText(error)}\n`);
	});
});
// The agent closing our stdin means it is gone: end, whatever is still waiting.
lines.on("close", () => process.exit(0));
