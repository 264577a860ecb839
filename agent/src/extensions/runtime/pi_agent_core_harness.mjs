// pi-agent-core's pure harness helpers: its message constructors (numeric timestamps kept),
// its session context (compaction entries carry their retained tail; custom entries are
// projected by the caller), token estimates, prompt template arguments, skill prompts, output
// sanitizing and the no-op telemetry context.

import {
	createBranchSummaryMessage as branchSummary,
	createCompactionSummaryMessage as compactionSummary,
	createCustomMessage as customMessage,
} from "./pi_coding_agent_messages.mjs";
import { estimateContextTokensWith, estimateMessageTokens } from "./pi_coding_agent_session.mjs";

export const createBranchSummaryMessage = (summary, fromId, timestamp) => branchSummary(summary, fromId, timestamp, true);
export const createCompactionSummaryMessage = (summary, tokensBefore, timestamp) =>
	compactionSummary(summary, tokensBefore, timestamp, true);
export const createCustomMessage = (customType, content, display, details, timestamp) =>
	customMessage(customType, content, display, details, timestamp, true);

// ---- session context ----

/** The entries after (and including) the latest compaction, or all of them. */
export function defaultContextEntryTransform(pathEntries) {
	const at = pathEntries.findLastIndex((entry) => entry.type === "compaction");
	return at === -1 ? [...pathEntries] : [pathEntries[at], ...pathEntries.slice(at + 1)];
}

export function buildContextEntries(pathEntries, options = {}) {
	let entries = defaultContextEntryTransform(pathEntries);
	for (const transform of options.entryTransforms ?? []) entries = [...transform(entries)];
	return entries;
}

/** One entry's context messages; a deferred assistant message has none. */
export function sessionEntryToContextMessages(entry, index, entries, options = {}) {
	if (entry.type === "message") {
		return entry.message.role === "assistant" && entry.message.stopReason === "deferred" ? [] : [entry.message];
	}
	if (entry.type === "compaction") {
		return [createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp), ...entry.retainedTail];
	}
	if (entry.type === "branch_summary" && entry.summary) {
		return [createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp)];
	}
	if (entry.type === "custom") return [...(options.entryProjectors?.[entry.customType]?.(entry, index, entries) ?? [])];
	return [];
}

/** {thinkingLevel, model, activeToolNames, messages} of a branch's entries. */
export function buildSessionContext(pathEntries, options = {}) {
	let thinkingLevel = "off";
	let model = null;
	let activeToolNames = null;
	for (const entry of pathEntries) {
		if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
		else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
		else if (entry.type === "message" && entry.message.role === "assistant") {
			model = { provider: entry.message.provider, modelId: entry.message.model };
		} else if (entry.type === "active_tools_change") activeToolNames = [...entry.activeToolNames];
	}
	const contextEntries = buildContextEntries(pathEntries, options);
	const messages = contextEntries.flatMap((entry, index) =>
		sessionEntryToContextMessages(entry, index, contextEntries, options),
	);
	return { thinkingLevel, model, activeToolNames, messages };
}

// ---- tokens ----

function tolerantStringify(value) {
	try {
		return JSON.stringify(value) ?? "undefined";
	} catch {
		return "[unserializable]";
	}
}

export function estimateTokens(message) {
	return estimateMessageTokens(message, tolerantStringify);
}

export function estimateContextTokens(messages) {
	return estimateContextTokensWith(messages, estimateTokens);
}

// ---- prompt templates and skills ----

/** Arguments split at spaces and tabs; single or double quotes group (and are dropped). */
export function parseCommandArgs(argsString) {
	const args = [];
	let current = "";
	let quote = null;
	for (const char of argsString) {
		if (quote) {
			if (char === quote) quote = null;
			else current += char;
		} else if (char === '"' || char === "'") {
			quote = char;
		} else if (char === " " || char === "\t") {
			if (current) args.push(current);
			current = "";
		} else {
			current += char;
		}
	}
	if (current) args.push(current);
	return args;
}

/** $1…, ${@:N} and ${@:N:L} (from the Nth, L of them), $ARGUMENTS and $@ (all). */
export function substituteArgs(content, args) {
	const all = args.join(" ");
	return content
		.replace(/\$(\d+)/g, (_, n) => args[Number.parseInt(n, 10) - 1] ?? "")
		.replace(/\$\{@:(\d+)(?::(\d+))?\}/g, (_, from, count) => {
			const start = Math.max(Number.parseInt(from, 10) - 1, 0);
			return (count ? args.slice(start, start + Number.parseInt(count, 10)) : args.slice(start)).join(" ");
		})
		.replace(/\$ARGUMENTS/g, all)
		.replace(/\$@/g, all);
}

export function formatPromptTemplateInvocation(template, args = []) {
	return substituteArgs(template.content, args);
}

// The directory of a path, by either separator ("/" at the root, "C:\" on a drive root).
function parentDir(path) {
	const trimmed = path.replace(/[\\/]+$/, "");
	const at = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
	if (at === 2 && trimmed[1] === ":") return trimmed.slice(0, 3);
	return at <= 0 ? "/" : trimmed.slice(0, at);
}

/** A skill's content as the user message that invokes it, with optional further instructions. */
export function formatSkillInvocation(skill, additionalInstructions) {
	const block = `<skill name="${skill.name}" location="${skill.filePath}">\nReferences are relative to ${parentDir(skill.filePath)}.\n\n${skill.content}\n</skill>`;
	return additionalInstructions ? `${block}\n\n${additionalInstructions}` : block;
}

const escapeXml = (text) =>
	text
		.replace(/&/g, "&amp;")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.replace(/"/g, "&quot;")
		.replace(/'/g, "&apos;");

/**
 * The `<available_skills>` list of the skills the model may invoke after the `header` lines
 * ("" when none is visible): pi-agent-core and pi-coding-agent word the header each their way.
 */
export function skillsListing(skills, header) {
	const visible = skills.filter((skill) => !skill.disableModelInvocation);
	if (visible.length === 0) return "";
	const lines = [
		...header,
		"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
		"",
		"<available_skills>",
	];
	for (const skill of visible) {
		lines.push(
			"  <skill>",
			`    <name>${escapeXml(skill.name)}</name>`,
			`    <description>${escapeXml(skill.description)}</description>`,
			`    <location>${escapeXml(skill.filePath)}</location>`,
			"  </skill>",
		);
	}
	lines.push("</available_skills>");
	return lines.join("\n");
}

/** The system prompt's list of the skills the model may read ("" when none is visible). */
export function formatSkillsForSystemPrompt(skills) {
	return skillsListing(skills, [
		"The following skills provide specialized instructions for specific tasks.",
		"Read the full skill file when the task matches its description.",
	]);
}

/** Output without control characters (but tab, newline, CR) and U+FFF9–U+FFFB. */
export function sanitizeBinaryOutput(text) {
	return Array.from(text)
		.filter((char) => {
			const code = char.codePointAt(0);
			if (code === 0x09 || code === 0x0a || code === 0x0d) return true;
			return code > 0x1f && !(code >= 0xfff9 && code <= 0xfffb);
		})
		.join("");
}

// ---- telemetry ----

const noopSpan = Object.freeze({
	startSpan: (_options, callback) => {
		try {
			return Promise.resolve(callback(noopSpan));
		} catch (error) {
			return Promise.reject(error);
		}
	},
	addEvent: () => {},
	setAttributes: () => {},
	setStatus: () => {},
});

/** The telemetry context that records nothing. */
export const NOOP_TELEMETRY_CONTEXT = noopSpan;

export function defineTelemetrySchema(schema) {
	return schema;
}

/** startSpan(name, attributes, (span, startChild) => …) over a telemetry context. */
export function createTypedSpanStarter(telemetryContext, _schemas) {
	const bind = (context) => (name, attributes, callback) =>
		context.startSpan({ name, attributes }, (span) => callback(span, bind(span)));
	return bind(telemetryContext);
}
