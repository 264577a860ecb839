// pi's coding-agent helpers for extensions: defineTool and the tool-result type guards, tool
// wrapping, the event bus, source infos, skill blocks and the skills prompt, the file
// mutation queue.

import { EventEmitter } from "node:events";
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { skillsListing } from "./pi_agent_core_harness.mjs";
import { agentTool } from "./pi_coding_agent_tools.mjs";

/** Returns the tool as given (it exists for its type). */
export function defineTool(tool) {
	return tool;
}

export const isBashToolResult = (event) => event.toolName === "bash";
export const isReadToolResult = (event) => event.toolName === "read";
export const isEditToolResult = (event) => event.toolName === "edit";
export const isWriteToolResult = (event) => event.toolName === "write";
export const isGrepToolResult = (event) => event.toolName === "grep";
export const isFindToolResult = (event) => event.toolName === "find";
export const isLsToolResult = (event) => event.toolName === "ls";
export const isToolCallEventType = (toolName, event) => event.toolName === toolName;

/**
 * A registered tool ({definition}) as an agent tool whose execute gets the runner's context,
 * and whose result names the tools the call activated (addedToolNames).
 */
export function wrapRegisteredTool(registeredTool, runner) {
	const def = registeredTool.definition;
	return {
		...agentTool(def),
		execute: async (toolCallId, params, signal, onUpdate) => {
			const before = runner.getActiveTools();
			const result = await def.execute(toolCallId, params, signal, onUpdate, runner.createContext());
			const after = runner.getActiveTools();
			if (!before.every((name) => after.includes(name))) return result;
			const added = after.filter((name) => !before.includes(name));
			if (added.length === 0) return result;
			return { ...result, addedToolNames: [...new Set([...(result.addedToolNames ?? []), ...added])] };
		},
	};
}

export function wrapRegisteredTools(registeredTools, runner) {
	return registeredTools.map((tool) => wrapRegisteredTool(tool, runner));
}

/** Channels of events; a handler's failure is logged, not thrown to the emitter. */
export function createEventBus() {
	const emitter = new EventEmitter();
	return {
		emit: (channel, data) => void emitter.emit(channel, data),
		on: (channel, handler) => {
			const guarded = async (data) => {
				try {
					await handler(data);
				} catch (error) {
					console.error(`Event handler error (${channel}):`, error);
				}
			};
			emitter.on(channel, guarded);
			return () => emitter.off(channel, guarded);
		},
		clear: () => void emitter.removeAllListeners(),
	};
}

export function createSyntheticSourceInfo(path, options) {
	return {
		path,
		source: options.source,
		scope: options.scope ?? "temporary",
		origin: options.origin ?? "top-level",
		baseDir: options.baseDir,
	};
}

/** A `<skill name location>` block (and the user's text after it), or null. */
export function parseSkillBlock(text) {
	const match = /^<skill name="([^"]+)" location="([^"]+)">\n([\s\S]*?)\n<\/skill>(?:\n\n([\s\S]+))?$/.exec(text);
	if (!match) return null;
	return { name: match[1], location: match[2], content: match[3], userMessage: match[4]?.trim() || undefined };
}

/** The system prompt's list of the skills the model may load ("" when none is visible). */
export function formatSkillsForPrompt(skills) {
	return skillsListing(skills, [
		"\n\nThe following skills provide specialized instructions for specific tasks.",
		"Use the read tool to load a skill's file when the task matches its description.",
	]);
}

export class CredentialSynchronizationError extends Error {
	providerId;
	operation;
	credential;
	constructor(providerId, operation, credential, options) {
		super(`Credential ${operation} committed for ${providerId}, but local synchronization failed`, options);
		this.name = "CredentialSynchronizationError";
		this.providerId = providerId;
		this.operation = operation;
		this.credential = credential;
	}
}

// ---- file mutation queue ----

const queues = new Map(); // real path -> tail of its queue
let registration = Promise.resolve();

async function queueKey(filePath) {
	const path = resolve(filePath);
	try {
		return await realpath(path);
	} catch (error) {
		if (error?.code === "ENOENT" || error?.code === "ENOTDIR") return path;
		throw error;
	}
}

/**
 * Runs `fn` once every earlier queued mutation of the same file (same real path) has finished;
 * mutations of different files run in parallel.
 */
export async function withFileMutationQueue(filePath, fn) {
	// Joining queues happens one call at a time, so two calls cannot both find a file idle.
	const joined = registration.then(async () => {
		const key = await queueKey(filePath);
		const ahead = queues.get(key) ?? Promise.resolve();
		let release;
		const mine = new Promise((done) => (release = done));
		const tail = ahead.then(() => mine);
		queues.set(key, tail);
		return { key, ahead, tail, release };
	});
	registration = joined.then(
		() => undefined,
		() => undefined,
	);
	const { key, ahead, tail, release } = await joined;
	await ahead;
	try {
		return await fn();
	} finally {
		release();
		if (queues.get(key) === tail) queues.delete(key);
	}
}
