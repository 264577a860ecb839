// pi-agent's extension host, part two: what the handlers answer, and what runs for the agent's
// requests besides events: the events whose handlers decide (input, before_agent_start,
// session_before_switch / _fork, user_bash), registered tools ("tool", "tool_abort"), the
// interceptors whose answers change what follows ("intercept": tool_call, tool_result, context,
// session_before_compact, provider hooks), the `user_bash` operations that run a `bash` command
// ("bash_exec", "bash_abort"), and `pi.exec`. The agent runs this file appended to host.mjs, as
// one module: it uses that file's `send`, `context`, `extensions`, `eachHandler` and `errorText`.

import { spawn } from "node:child_process";

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
		// Checked already when the tool_call handlers ran (they may have changed the input since).
		const args = validatedCalls.delete(message.toolCallId)
			? message.args
			: await validatedArgs(found.tool, message.toolCallId, message.args);
		const result = await found.tool.execute(message.toolCallId, args, controller.signal, onUpdate, context());
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

/** The calls of extension tools whose arguments were checked before their tool_call handlers. */
const validatedCalls = new Set();

/**
 * The arguments of a call of an extension's tool as pi checks them before anything else sees
 * them: the tool's `prepareArguments`, then pi-ai's validation (TypeBox's conversion and
 * checks), which throws the reference's "Validation failed for tool" error.
 */
async function validatedArgs(tool, toolCallId, args) {
	const { validateToolArguments } = await import("pi-agent:/runtime/typebox_tool_args.mjs");
	const prepared = typeof tool.prepareArguments === "function" ? tool.prepareArguments(args) : args;
	return validateToolArguments(tool, { type: "toolCall", id: toolCallId, name: tool.name, arguments: prepared });
}

/**
 * `tool_call` handlers in load order: the first that blocks wins; `event.input` is theirs to
 * change. An extension tool's arguments are checked first, as in pi: arguments that fail
 * reach no handler (the call then fails with the validation error).
 */
async function interceptToolCall(event) {
	const own = tools().find((entry) => entry.tool.name === event.toolName);
	if (own) {
		try {
			event.input = await validatedArgs(own.tool, event.toolCallId, event.input);
			validatedCalls.add(event.toolCallId);
		} catch {
			return { block: false, reason: undefined, input: event.input };
		}
	}
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

/**
 * `before_provider_request`: each handler sees the payload as the previous ones left it; a
 * handler that returns something other than undefined replaces it.
 */
async function interceptProviderRequest(event) {
	let payload = event.payload;
	await eachHandler("before_provider_request", async (handler) => {
		const answer = await handler({ type: "before_provider_request", payload }, context());
		if (answer !== undefined) payload = answer;
	});
	return { payload };
}

/** `after_provider_response`: the handlers see the status and headers; nothing comes back. */
async function interceptProviderResponse(event) {
	await eachHandler("after_provider_response", (handler) => handler(event, context()));
	return {};
}

/** `before_provider_headers`: the handlers change one headers object in place (null drops). */
async function interceptProviderHeaders(event) {
	const headers = event.headers;
	await eachHandler("before_provider_headers", (handler) =>
		handler({ type: "before_provider_headers", headers }, context()),
	);
	return { headers };
}

const interceptors = {
	tool_call: interceptToolCall,
	tool_result: interceptToolResult,
	session_before_compact: interceptBeforeCompact,
	context: interceptContext,
	before_provider_request: interceptProviderRequest,
	after_provider_response: interceptProviderResponse,
	before_provider_headers: interceptProviderHeaders,
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

/** `user_bash` operations waiting for the agent to run its command with them, by event id. */
const bashOperations = new Map();
/** Abort controllers of the commands running through operations, by the agent's id. */
const runningBash = new Map();

/**
 * `user_bash` (event `id`): the first handler that answers decides. A `result` answers the
 * command; `operations` (functions, which cannot cross) stay here under the event's id, and the
 * agent asks to run the command with them ("bash_exec").
 */
async function emitUserBash(event, id) {
	let answer;
	await eachHandler("user_bash", async (handler) => {
		const result = await handler(event, context());
		if (result) {
			answer = result;
			return false;
		}
	});
	if (answer?.result !== undefined) return { result: answer.result };
	if (typeof answer?.operations?.exec === "function") {
		bashOperations.set(id, answer.operations);
		return { operations: id };
	}
	return {};
}

/** Runs a command with the operations of a `user_bash` event; its output goes to the agent. */
async function bashExec(message) {
	const operations = bashOperations.get(message.operations);
	bashOperations.delete(message.operations);
	const controller = new AbortController();
	runningBash.set(message.id, controller);
	const onData = (data) => {
		send({ type: "bash_data", id: message.id, data: Buffer.from(data).toString("base64") });
	};
	try {
		if (!operations) throw new Error("The user_bash operations are gone");
		const result = await operations.exec(message.command, message.cwd, { onData, signal: controller.signal });
		send({ type: "bash_exit", id: message.id, exitCode: result?.exitCode ?? null });
	} catch (error) {
		send({ type: "bash_exit", id: message.id, error: errorText(error) });
	} finally {
		runningBash.delete(message.id);
	}
}

/** How long a process's pipes may stay open after it exited (children holding them). */
const EXIT_PIPE_GRACE_MS = 100;

/**
 * `pi.exec`: runs `command` with `args` (no shell) in `dir`; resolves with its stdout, stderr,
 * exit code (0 when a signal ended it, 1 when it could not start) and whether it was killed (by
 * `options.signal` or after `options.timeout` ms: SIGTERM, then SIGKILL 5 s later).
 */
function runProcess(command, args, dir, options) {
	return new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		let killed = false;
		let settled = false;
		let exitCode = null;
		let open = 2;
		let graceTimer;
		let timeoutTimer;
		const child = spawn(command, args, { cwd: dir, shell: false, stdio: ["ignore", "pipe", "pipe"] });
		const kill = () => {
			if (killed) return;
			killed = true;
			child.kill("SIGTERM");
			setTimeout(() => {
				if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
			}, 5000).unref();
		};
		const finish = (code) => {
			if (settled) return;
			settled = true;
			clearTimeout(graceTimer);
			clearTimeout(timeoutTimer);
			options?.signal?.removeEventListener("abort", kill);
			child.stdout?.destroy();
			child.stderr?.destroy();
			resolve({ stdout, stderr, code, killed });
		};
		if (options?.signal?.aborted) kill();
		else options?.signal?.addEventListener("abort", kill, { once: true });
		if (options?.timeout > 0) timeoutTimer = setTimeout(kill, options.timeout);
		const ended = () => {
			open -= 1;
			if (open === 0 && exitCode !== null) finish(exitCode);
		};
		child.stdout.on("data", (data) => {
			stdout += data.toString();
		});
		child.stderr.on("data", (data) => {
			stderr += data.toString();
		});
		child.stdout.on("end", ended);
		child.stderr.on("end", ended);
		child.on("exit", (code) => {
			exitCode = code ?? 0;
			if (open === 0) finish(exitCode);
			else graceTimer = setTimeout(() => finish(exitCode), EXIT_PIPE_GRACE_MS);
		});
		child.on("error", () => finish(1));
	});
}
