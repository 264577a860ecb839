// pi's coding-agent messages: the custom message kinds (bash executions, custom messages,
// branch and compaction summaries), turning them into LLM messages (convertToLlm), and the
// plain-text transcript summaries are made from (serializeConversation).

import { contentText } from "./pi_ai_util.mjs";

export const COMPACTION_SUMMARY_PREFIX =
	"The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
export const BRANCH_SUMMARY_PREFIX =
	"The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "</summary>";

/** A `!command` the user ran, as the user message text the model sees. */
export function bashExecutionToText(msg) {
	let text = `Ran \`${msg.command}\`\n`;
	text += msg.output ? `\`\`\`\n${msg.output}\n\`\`\`` : "(no output)";
	if (msg.cancelled) text += "\n\n(command cancelled)";
	else if (msg.exitCode !== null && msg.exitCode !== undefined && msg.exitCode !== 0) {
		text += `\n\nCommand exited with code ${msg.exitCode}`;
	}
	if (msg.truncated && msg.fullOutputPath) text += `\n\n[Output truncated. Full output: ${msg.fullOutputPath}]`;
	return text;
}

// Session entries keep ISO timestamps; messages keep epoch milliseconds.
const epochMs = (timestamp, numbersAsIs) =>
	numbersAsIs && typeof timestamp === "number" ? timestamp : new Date(timestamp).getTime();

export function createBranchSummaryMessage(summary, fromId, timestamp, numbersAsIs = false) {
	return { role: "branchSummary", summary, fromId, timestamp: epochMs(timestamp, numbersAsIs) };
}

export function createCompactionSummaryMessage(summary, tokensBefore, timestamp, numbersAsIs = false) {
	return { role: "compactionSummary", summary, tokensBefore, timestamp: epochMs(timestamp, numbersAsIs) };
}

export function createCustomMessage(customType, content, display, details, timestamp, numbersAsIs = false) {
	return { role: "custom", customType, content, display, details, timestamp: epochMs(timestamp, numbersAsIs) };
}

const userText = (text, timestamp) => ({ role: "user", content: [{ type: "text", text }], timestamp });

/**
 * The LLM messages of agent messages: the coding agent's own kinds become user messages
 * (a bash execution excluded from context is dropped), user / assistant / tool result
 * messages pass unchanged, unknown kinds are dropped.
 */
export function convertToLlm(messages) {
	const out = [];
	for (const m of messages) {
		switch (m.role) {
			case "bashExecution":
				if (!m.excludeFromContext) out.push(userText(bashExecutionToText(m), m.timestamp));
				break;
			case "custom":
				out.push({
					role: "user",
					content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
					timestamp: m.timestamp,
				});
				break;
			case "branchSummary":
				out.push(userText(BRANCH_SUMMARY_PREFIX + m.summary + BRANCH_SUMMARY_SUFFIX, m.timestamp));
				break;
			case "compactionSummary":
				out.push(userText(COMPACTION_SUMMARY_PREFIX + m.summary + COMPACTION_SUMMARY_SUFFIX, m.timestamp));
				break;
			case "user":
			case "assistant":
			case "toolResult":
				out.push(m);
				break;
		}
	}
	return out;
}

const TOOL_RESULT_MAX_CHARS = 2000;

function clip(text, maxChars) {
	if (text.length <= maxChars) return text;
	return `${text.slice(0, maxChars)}\n\n[... ${text.length - maxChars} more characters truncated]`;
}

/**
 * LLM messages as a labelled transcript ("[User]: …", "[Assistant]: …", "[Assistant thinking]:
 * …", "[Assistant tool calls]: name(arg=json, …)", "[Tool result]: …" clipped to 2000 chars),
 * so that a summarizing model reads it rather than continuing it.
 */
export function serializeConversation(messages) {
	const parts = [];
	for (const msg of messages) {
		if (msg.role === "user") {
			const text = contentText(msg.content, "");
			if (text) parts.push(`[User]: ${text}`);
		} else if (msg.role === "assistant") {
			const thinking = [];
			const calls = [];
			for (const block of msg.content) {
				if (block.type === "thinking") thinking.push(block.thinking);
				else if (block.type === "toolCall") {
					const args = Object.entries(block.arguments).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
					calls.push(`${block.name}(${args.join(", ")})`);
				}
			}
			if (thinking.length > 0) parts.push(`[Assistant thinking]: ${thinking.join("\n")}`);
			if (msg.content.some((block) => block.type === "text")) parts.push(`[Assistant]: ${contentText(msg.content)}`);
			if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
		} else if (msg.role === "toolResult") {
			const text = contentText(msg.content, "");
			if (text) parts.push(`[Tool result]: ${clip(text, TOOL_RESULT_MAX_CHARS)}`);
		}
	}
	return parts.join("\n\n");
}
