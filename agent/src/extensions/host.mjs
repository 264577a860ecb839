// pi-agent's extension host. pi-agent starts it with Node.js (>= 20.6 or 18.19; its module
// loader, host_loader.mjs, loads TypeScript as the agent transpiled it) only when extensions
// are given. It loads each extension, hands it a
// `pi` object with the part of pi's extension API that pi-agent supports, and bridges it to the
// agent: one JSON object per line on stdin (from the agent) and on stdout (to the agent).
// Running tools, interceptors, `user_bash` operations and `pi.exec` are in host_tools.mjs,
// `ctx.ui` in host_ui.mjs, the mirrored state and a command's `ctx` in host_session.mjs,
// `pi.registerProvider` in host_providers.mjs, `ctx.navigateTree` in host_tree.mjs,
// `ctx.sessionManager` in host_session_manager.mjs, providers' streamSimple and oauth in
// host_provider_streams.mjs, `pi.events` in host_events.mjs, the session calls and
// pi.getCommands in host_api.mjs, the event handlers' `ctx` and what it asks of the agent
// (ctx.compact, ctx.modelRegistry's calls) in host_context.mjs: the agent appends them to this
// file (one module).
//
// The agent takes the ids of all its requests (event, command, tool, intercept, bash_exec) from
// one counter; the replies (done, tool_*, intercepted, bash_*) carry them back to be routed.
//
// From the agent:
//   {type:"init", cwd, extensions:[path], flags:[[name, value]], loader}
//                                                load them, then give the command line's flags
//                                                (value: a text or null) to those that
//                                                registered them; answer "loaded"
//   {type:"reload", fresh?, extensions:[path], modules}   for a replaced session: drop the loaded
//                                                extensions, load these (factories run again;
//                                                modules stay imported unless fresh);
//                                                answer "loaded"
//   {type:"streaming", value}                    whether the agent runs now (for the input
//                                                event of pi.sendUserMessage)
//   {type:"tools", ...} / {type:"model_state", ...}   the state pi.getAllTools & co, ctx.model
//                                                & co answer from
//   {type:"session_entries", ...}                the session's entries, for ctx.sessionManager
//   {type:"reply", id, value}                    the answer to a call of the host, by its id
//   {type:"event", id, event}                    run the handlers of event.type; answer "done"
//   {type:"command", id, name, args}             run a registered command; answer "done"
//   {type:"ui_response", response}               an extension_ui_response from the client
//   {type:"tool", id, toolCallId, name, args}    run a registered tool; answer "tool_result"
//   {type:"tool_abort", id}                      abort the signal of that tool call
//   {type:"bash_exec", id, operations, command, cwd}
//                                                run a `bash` command with the user_bash
//                                                operations of event `operations`; answer
//                                                "bash_data"s, then "bash_exit"
//   {type:"bash_abort", id}                      abort the signal of that command
//   {type:"intercept", id, event}                run tool_call, tool_result, context,
//                                                session_before_compact or provider handlers,
//                                                whose answers change what follows; answer
//                                                "intercepted"
// To the agent:
//   {type:"loaded", commands:[{name, description, path}], tools:[{name, description,
//    parameters, promptSnippet, promptGuidelines, path}], events:[type], error?,
//    flags:[{usage, description}], providers:[{name, config, extensionPath}],
//    loadErrors?:[text], flagErrors?:[text]}
//                                                what the extensions that loaded registered;
//                                                flags: the registered flags as --help lists
//                                                them; providers: the pi.registerProvider
//                                                calls of the factories still queued (those of
//                                                a factory that threw too, as in pi), in
//                                                order, their config as JSON; at start-up,
//                                                loadErrors: the ones that
//                                                failed, flagErrors: command-line flags no
//                                                extension registered, or without their value;
//                                                on a reload, error: the failures in one text
//   {type:"registered", commands, tools, events}  as "loaded", when an extension registers a
//                                                command, tool or handler after loading
//   {type:"register_provider", name, config, extensionPath, origin:{extensionPath, event}}
//   {type:"unregister_provider", name}            pi.registerProvider / unregisterProvider
//                                                after loading (host_providers.mjs)
//   {type:"ui", request:{method, ...}}           an extension_ui_request, without type and id
//   {type:"extension_error", extensionPath, event, error}
//   {type:"append_entry", customType, data}
//   {type:"send_message", message:{customType, content, display, details}, deliverAs, triggerTurn}
//   {type:"send_user_message", text, images, deliverAs}   after its input handlers (which
//                                                may have rewritten it; handled ones are not sent)
//   {type:"done", id, result?}                   result: of "input" {action, text, images},
//                                                of "before_agent_start" {messages, systemPrompt},
//                                                of "session_before_switch" / "_fork" {cancel},
//                                                of "user_bash" {result} or {operations: id}
//   {type:"tool_update", id, partialResult}      a tool's onUpdate
//   {type:"bash_data", id, data}                 output of a command run by operations (base64)
//   {type:"bash_exit", id, exitCode?, error?}    its end: the exit code, or why exec threw
//   {type:"tool_result", id, result:{content, details}, isError}
//   {type:"intercepted", id, result}             tool_call: {block, reason, input} or {error};
//                                                tool_result: {content, details, isError};
//                                                session_before_compact: {cancel} or {compaction};
//                                                context: {messages};
//                                                before_provider_request: {payload};
//                                                after_provider_response: {}; before_provider_headers: {headers}

import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { dirname } from "node:path";
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
/** Flag values by name (`pi.registerFlag` defaults, then the command line's), shared by all. */
const flagValues = new Map();
/** The extension flags of the command line: [name, text or null]. */
let cliFlags = [];
/** Abort controllers of the running tool calls, by the agent's id. */
const runningTools = new Map();
/** Dialogs waiting for the client, by request id. */
const pendingDialogs = new Map();
let cwd = process.cwd();
/** `ctx.mode`: "rpc", "print" or "json"; only RPC mode has a client to show the UI. */
let mode = "rpc";
let turnIndex = 0;
const warned = new Set();

/** Says once on stderr, for each `key`, that something an extension asked for is not done. */
function warnOnce(key, text) {
	if (warned.has(key)) return;
	warned.add(key);
	process.stderr.write(`pi-agent: ${text}\n`);
}

/** The `pi` object of one extension: the supported calls, and a warning for the others. */
function api(extension) {
	const supported = {
		...moreApi(extension),
		events: eventsApi(extension),
		on(type, handler) {
			const list = extension.handlers.get(type) ?? [];
			list.push(handler);
			extension.handlers.set(type, list);
			registeredLate(extension);
		},
		registerCommand(name, options) {
			extension.commands.set(name, {
				name,
				description: options?.description,
				handler: options?.handler,
			});
			registeredLate(extension);
		},
		registerTool(definition) {
			const known = allTools().some((tool) => tool.name === definition.name);
			extension.tools.set(definition.name, definition);
			// As in pi, a new tool is active at once (the agent confirms with its next "tools").
			if (!known && toolAllowed(definition.name)) toolState.active.push(definition.name);
			registeredLate(extension);
		},
		registerFlag(name, options) {
			extension.flags.set(name, { name, extensionPath: extension.path, ...options });
			if (options?.default !== undefined && !flagValues.has(name)) flagValues.set(name, options.default);
		},
		getFlag(name) {
			return extension.flags.has(name) ? flagValues.get(name) : undefined;
		},
		getActiveTools() {
			return [...toolState.active];
		},
		getAllTools() {
			return allTools();
		},
		setActiveTools(names) {
			// As pi does: names of no known tool are left out; the rest in the given order.
			const known = new Set(allTools().map((tool) => tool.name));
			const valid = (Array.isArray(names) ? names : []).filter((name) => known.has(name));
			toolState.active = valid;
			send({ type: "set_active_tools", names: valid });
		},
		setModel(model) {
			const id = randomUUID();
			return new Promise((resolve) => {
				pendingReplies.set(id, (value) => resolve(value === true));
				send({ type: "set_model", id, provider: model?.provider, modelId: model?.id });
			});
		},
		getThinkingLevel() {
			return modelState.thinkingLevel;
		},
		setThinkingLevel(level) {
			if (!THINKING_LEVELS.includes(level)) return;
			const previousLevel = modelState.thinkingLevel;
			modelState.thinkingLevel = clampedLevel(level);
			send({ type: "set_thinking_level", level });
			// As pi: the handlers start before the call returns; the agent does not send this one.
			if (modelState.thinkingLevel !== previousLevel)
				void emit({ type: "thinking_level_select", level: modelState.thinkingLevel, previousLevel });
		},
		// Shortcuts are keys of pi's terminal UI: accepted, and never pressed in RPC mode.
		registerShortcut() {},
		exec(command, args, options) {
			return runProcess(command, args ?? [], options?.cwd ?? cwd, options);
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
		registerProvider(nameOrProvider, config) {
			registerProvider(extension, nameOrProvider, config);
		},
		unregisterProvider(name) {
			unregisterProvider(name);
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
			if (extension.stale) throw new Error(STALE_CONTEXT);
			if (property in target) return target[property];
			if (typeof property !== "string" || property === "then") return undefined;
			return () => warnOnce(property, `pi.${property}() is not supported for extensions yet; ignored`);
		},
	});
}

/**
 * Loads one extension and keeps it; gives why it could not be loaded (pi's words), else nothing.
 * What a failing factory registered before it threw is dropped with it, as in pi.
 */
async function load(path) {
	const extension = { path, handlers: new Map(), commands: new Map(), tools: new Map(), flags: new Map() };
	try {
		const url = pathToFileURL(path);
		if (evaluation > 0) url.searchParams.set("pi-agent-reload", String(evaluation));
		const module = await import(url.href);
		if (typeof module.default !== "function") {
			return `Failed to load extension "${path}": Extension does not export a valid factory function: ${path}`;
		}
		await module.default(api(extension));
	} catch (error) {
		return `Failed to load extension "${path}": Failed to load extension: ${errorText(error)}`;
	}
	extensions.push(extension);
	return undefined;
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
				if ((await handlerCall({ extensionPath: extension.path, event: type }, () => run(handler))) === false) return;
			} catch (error) {
				send({ type: "extension_error", extensionPath: extension.path, event: type, error: errorText(error) });
			}
		}
	}
}

async function emit(event, id) {
	if (event.type === "user_bash") return emitUserBash(event, id);
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
		await handlerCall({ extensionPath: `command:${name}`, event: "command" }, () => startCommand(() => found.command.handler(args, commandContext())));
	} catch (error) {
		send({ type: "extension_error", extensionPath: `command:${name}`, event: "command", error: errorText(error) });
	}
	// The user messages the command sent reach the agent before the command is done.
	await Promise.allSettled([...userMessages]);
}

/** The files of the loaded extensions, for a reload. */
let loadedPaths = [];

async function init(message) {
	cwd = message.cwd ?? cwd;
	mode = message.mode ?? mode;
	loadedPaths = message.extensions;
	cliFlags = message.flags ?? [];
	await installLoader(message.loader ?? {}).then(loadThemeModule); // for ctx.ui.theme
	await loadAll(true);
}

/**
 * Gives the command line's flags to the extensions that registered them, as pi does: a boolean
 * flag is true whatever its value; another needs a text. Returns the errors (pi's words).
 */
function applyFlags() {
	const registered = new Map();
	for (const extension of extensions) {
		for (const [name, flag] of extension.flags) registered.set(name, flag.type);
	}
	const errors = [];
	const unknown = [];
	for (const [name, value] of cliFlags) {
		if (!registered.has(name)) {
			unknown.push(`--${name}`);
		} else if (registered.get(name) === "boolean") {
			flagValues.set(name, true);
		} else if (typeof value === "string") {
			flagValues.set(name, value);
		} else {
			errors.push(`Extension flag "--${name}" requires a value`);
		}
	}
	if (unknown.length > 0) errors.push(`Unknown option${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ")}`);
	return errors;
}

/**
 * A replaced session gets new extension instances, as in pi: each factory of `paths` (found
 * again by the agent) runs with a new `pi`; a module is not evaluated again (its top-level
 * state stays), except for `ctx.reload()` (`fresh`), which evaluates them afresh.
 */
async function reload(fresh, paths, modules) {
	if (Array.isArray(paths)) loadedPaths = paths;
	await updateLoader(modules ?? {});
	for (const extension of extensions) extension.stale = true;
	dropBusSubscriptions();
	extensions.length = 0;
	flagValues.clear();
	for (const finish of pendingDialogs.values()) finish({ cancelled: true });
	if (fresh) evaluation += 1;
	await loadAll(false);
}

/** How often `ctx.reload()` asked for the modules afresh (a new module URL each time). */
let evaluation = 0;

/**
 * Loads every extension (one that fails does not stop the others, as in pi) and applies the
 * flags; `first`: at start-up (load and flag errors are listed), else a reload (`error`).
 */
async function loadAll(first) {
	const loadErrors = [];
	pendingProviders = [];
	loadingFactories = true;
	for (const path of loadedPaths) {
		const error = await load(path);
		if (error !== undefined) loadErrors.push(error);
	}
	loadingFactories = false;
	const flagErrors = applyFlags();
	const failed = loadErrors.length > 0;
	send({
		type: "loaded",
		...registrations(),
		flags: helpFlags(),
		providers: pendingProviders,
		error: !first && failed ? loadErrors.join("\n") : undefined,
		loadErrors: first && failed ? loadErrors : undefined,
		flagErrors: first && flagErrors.length > 0 ? flagErrors : undefined,
	});
}

/**
 * The registered flags as `--help` lists them, in pi's words: `--name`, with ` <value>` when it
 * takes a text, and its description (else the extension that registered it).
 */
function helpFlags() {
	return extensions.flatMap((extension) =>
		[...extension.flags.values()].map((flag) => ({
			usage: `--${flag.name}${flag.type === "string" ? " <value>" : ""}`,
			description: `${flag.description ?? `Registered by ${flag.extensionPath}`}`,
		})),
	);
}

/** What the loaded extensions registered, as the agent needs it. */
function registrations() {
	const events = new Set();
	for (const extension of extensions) {
		for (const [type, list] of extension.handlers) {
			if (list.length > 0) events.add(type);
		}
	}
	return {
		commands: commands().map(({ name, command, path }) => ({ name, description: command.description, path })),
		tools: tools().map(({ tool, path }) => ({
			name: tool.name,
			description: tool.description ?? "",
			parameters: tool.parameters ?? { type: "object", properties: {} },
			promptSnippet: typeof tool.promptSnippet === "string" ? tool.promptSnippet : undefined,
			promptGuidelines: Array.isArray(tool.promptGuidelines)
				? tool.promptGuidelines.filter((line) => typeof line === "string")
				: [],
			path,
		})),
		events: [...events],
	};
}

/**
 * A registration by a loaded extension (from a handler or a command, as pi allows): the agent
 * is told at once, so that the next model request offers the tool, as in pi. Registrations
 * while the factories run are reported by "loaded".
 */
function registeredLate(extension) {
	if (extensions.includes(extension)) send({ type: "registered", ...registrations() });
}

async function handle(message) {
	switch (message.type) {
		case "init":
			// A host that cannot load the extensions is of no use: it ends (the agent says so).
			await init(message).catch((error) => {
				process.stderr.write(`pi-agent extension host: ${errorText(error)}\n`);
				process.exit(1);
			});
			break;
		case "reload":
			await reload(message.fresh === true, message.extensions, message.modules);
			break;
		case "tools":
			setToolState(message);
			break;
		case "model_state":
			setModelState(message);
			break;
		case "session_entries":
			mirrorSession(message);
			break;
		case "slash_commands":
			setAgentCommands(message);
			break;
		case "reply": {
			const finish = pendingReplies.get(message.id);
			pendingReplies.delete(message.id);
			finish?.(message.value);
			break;
		}
		case "streaming":
			streaming = message.value === true;
			break;
		case "model_stream":
		case "context_usage":
			modelCallProgress(message);
			break;
		case "event": {
			const result = await emit(message.event, message.id);
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
		case "bash_exec":
			await bashExec(message);
			break;
		case "bash_abort":
			runningBash.get(message.id)?.abort();
			break;
		case "provider_stream":
			await runProviderStream(message);
			break;
		case "provider_stream_abort":
			return abortProviderStream(message.id);
		case "provider_auth":
			await providerKey(message);
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
