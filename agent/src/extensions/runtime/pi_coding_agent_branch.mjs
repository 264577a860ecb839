// pi's coding-agent helpers around branches and stored state: the entries a branch summary
// covers and the messages (within a token budget) it is made from, an image's dimension note,
// and reading a stored credential.

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { getAgentDir } from "./pi_coding_agent_config.mjs";
import {
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
} from "./pi_coding_agent_messages.mjs";
import { estimateTokens } from "./pi_coding_agent_session.mjs";

/**
 * The entries from `oldLeafId` back to (not including) its deepest common ancestor with
 * `targetId`, oldest first. `session` answers getBranch(id) (root first) and getEntry(id).
 */
export function collectEntriesForBranchSummary(session, oldLeafId, targetId) {
	if (!oldLeafId) return { entries: [], commonAncestorId: null };
	const onOldPath = new Set(session.getBranch(oldLeafId).map((entry) => entry.id));
	const targetPath = session.getBranch(targetId);
	let commonAncestorId = null;
	for (let i = targetPath.length - 1; i >= 0; i--) {
		if (onOldPath.has(targetPath[i].id)) {
			commonAncestorId = targetPath[i].id;
			break;
		}
	}
	const entries = [];
	for (let id = oldLeafId; id && id !== commonAncestorId; ) {
		const entry = session.getEntry(id);
		if (!entry) break;
		entries.push(entry);
		id = entry.parentId;
	}
	return { entries: entries.reverse(), commonAncestorId };
}

// The message an entry adds to a branch summary's input (tool results are left out: the tool
// calls carry the context).
function summaryMessage(entry) {
	switch (entry.type) {
		case "message":
			return entry.message.role === "toolResult" ? undefined : entry.message;
		case "custom_message":
			return createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
		case "branch_summary":
			return createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
		case "compaction":
			return createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp);
	}
	return undefined;
}

// Files the assistant's read / write / edit tool calls named.
function addFileOps(message, fileOps) {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return;
	for (const block of message.content) {
		if (block?.type !== "toolCall" || !block.arguments || typeof block.arguments.path !== "string") continue;
		const path = block.arguments.path;
		if (block.name === "read") fileOps.read.add(path);
		else if (block.name === "write") fileOps.written.add(path);
		else if (block.name === "edit") fileOps.edited.add(path);
	}
}

/**
 * The newest messages of `entries` within `tokenBudget` (0: no limit; a summary entry still
 * fits while under 90% of it), and the files touched: by the tool calls seen, and by earlier
 * branch summaries pi made (their details).
 */
export function prepareBranchEntries(entries, tokenBudget = 0) {
	const fileOps = { read: new Set(), written: new Set(), edited: new Set() };
	for (const entry of entries) {
		if (entry.type !== "branch_summary" || entry.fromHook || !entry.details) continue;
		if (Array.isArray(entry.details.readFiles)) for (const file of entry.details.readFiles) fileOps.read.add(file);
		if (Array.isArray(entry.details.modifiedFiles)) for (const file of entry.details.modifiedFiles) fileOps.edited.add(file);
	}
	const messages = [];
	let totalTokens = 0;
	for (let i = entries.length - 1; i >= 0; i--) {
		const message = summaryMessage(entries[i]);
		if (!message) continue;
		addFileOps(message, fileOps);
		const tokens = estimateTokens(message);
		if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
			const isSummary = entries[i].type === "compaction" || entries[i].type === "branch_summary";
			if (isSummary && totalTokens < tokenBudget * 0.9) {
				messages.unshift(message);
				totalTokens += tokens;
			}
			break;
		}
		messages.unshift(message);
		totalTokens += tokens;
	}
	return { messages, fileOps, totalTokens };
}

/** The note telling the model how a resized image's coordinates map to the original. */
export function formatDimensionNote(result) {
	if (!result.wasResized) return undefined;
	const scale = result.originalWidth / result.width;
	return `[Image: original ${result.originalWidth}x${result.originalHeight}, displayed at ${result.width}x${result.height}. Multiply coordinates by ${scale.toFixed(2)} to map to original image.]`;
}

/** The credential auth.json (default: the agent dir's) stores for `providerId`, if any. */
export function readStoredCredential(providerId, authPath = join(getAgentDir(), "auth.json")) {
	try {
		const path = authPath === "~" || authPath.startsWith("~/") ? homedir() + authPath.slice(1) : authPath;
		return JSON.parse(readFileSync(path, "utf-8"))[providerId];
	} catch {
		return undefined;
	}
}
