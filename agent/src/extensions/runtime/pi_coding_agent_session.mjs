// pi's session entries as context: the entries of the current branch (compaction-aware), their
// messages, version migration, and the token estimates and cut points compaction works with.

import { randomUUID } from "node:crypto";
import {
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
} from "./pi_coding_agent_messages.mjs";

export const CURRENT_SESSION_VERSION = 3;

export const DEFAULT_COMPACTION_SETTINGS = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 };

function newId(taken) {
	for (let i = 0; i < 100; i++) {
		const id = randomUUID().slice(0, 8);
		if (!taken.has(id)) {
			taken.add(id);
			return id;
		}
	}
	return randomUUID();
}

/** Brings entries of an older session version to the current one, in place. */
export function migrateSessionEntries(entries) {
	const version = entries.find((e) => e.type === "session")?.version ?? 1;
	if (version >= CURRENT_SESSION_VERSION) return;
	if (version < 2) {
		// v2: entries form a tree by id/parentId; compactions name their first kept entry by id.
		const ids = new Set();
		let previous = null;
		for (const entry of entries) {
			if (entry.type === "session") {
				entry.version = 2;
				continue;
			}
			entry.id = newId(ids);
			entry.parentId = previous;
			previous = entry.id;
			if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
				const kept = entries[entry.firstKeptEntryIndex];
				if (kept && kept.type !== "session") entry.firstKeptEntryId = kept.id;
				delete entry.firstKeptEntryIndex;
			}
		}
	}
	// v3: the hookMessage role is called custom.
	for (const entry of entries) {
		if (entry.type === "session") entry.version = 3;
		else if (entry.type === "message" && entry.message?.role === "hookMessage") entry.message.role = "custom";
	}
}

/** The JSON lines of a session file; malformed lines are skipped. */
export function parseSessionEntries(content) {
	const entries = [];
	for (const line of content.trim().split("\n")) {
		if (!line.trim()) continue;
		try {
			entries.push(JSON.parse(line));
		} catch {}
	}
	return entries;
}

export function getLatestCompactionEntry(entries) {
	for (let i = entries.length - 1; i >= 0; i--) if (entries[i].type === "compaction") return entries[i];
	return null;
}

// The entries from the root to `leafId` (default: the last entry; null: none).
function branchPath(entries, leafId, byId) {
	if (leafId === null) return [];
	const index = byId ?? new Map(entries.map((entry) => [entry.id, entry]));
	const leaf = (leafId ? index.get(leafId) : undefined) ?? entries[entries.length - 1];
	const path = [];
	for (let entry = leaf; entry; entry = entry.parentId ? index.get(entry.parentId) : undefined) path.push(entry);
	return path.reverse();
}

/** The messages one entry contributes to the context (plain custom entries contribute none). */
export function sessionEntryToContextMessages(entry) {
	if (entry.type === "message") {
		const message = entry.message;
		const needsContent = message.role === "user" || message.role === "assistant" || message.role === "toolResult";
		return [needsContent && message.content == null ? { ...message, content: [] } : message];
	}
	if (entry.type === "custom_message") {
		return [
			createCustomMessage(entry.customType, entry.content ?? [], entry.display, entry.details, entry.timestamp),
		];
	}
	if (entry.type === "branch_summary" && entry.summary) {
		return [createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp)];
	}
	if (entry.type === "compaction") {
		return [createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp)];
	}
	return [];
}

/**
 * The branch's entries as context: after the latest compaction on it, that compaction, then the
 * entries it kept (from firstKeptEntryId), then those after it.
 */
export function buildContextEntries(entries, leafId, byId) {
	const path = branchPath(entries, leafId, byId);
	const compaction = path.findLast((entry) => entry.type === "compaction");
	if (!compaction) return path;
	const at = path.indexOf(compaction);
	const kept = path.slice(0, at);
	const firstKept = kept.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
	return [compaction, ...(firstKept === -1 ? [] : kept.slice(firstKept)), ...path.slice(at + 1)];
}

/** {messages, thinkingLevel, model} of the branch ending at `leafId`. */
export function buildSessionContext(entries, leafId, byId) {
	let thinkingLevel = "off";
	let model = null;
	for (const entry of branchPath(entries, leafId, byId)) {
		if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
		else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
		else if (entry.type === "message" && entry.message.role === "assistant") {
			model = { provider: entry.message.provider, modelId: entry.message.model };
		}
	}
	const messages = buildContextEntries(entries, leafId, byId).flatMap((entry) => sessionEntryToContextMessages(entry));
	return { messages, thinkingLevel, model };
}

// ---- token estimates ----

/** The usage's total tokens, else the sum of its parts. */
export function calculateContextTokens(usage) {
	return usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

// An assistant message's usage if it is meaningful (not aborted, not failed, not all zero).
function meaningfulUsage(msg) {
	if (msg.role !== "assistant" || !("usage" in msg)) return undefined;
	if (msg.stopReason === "aborted" || msg.stopReason === "error" || !msg.usage) return undefined;
	return calculateContextTokens(msg.usage) > 0 ? msg.usage : undefined;
}

export function getLastAssistantUsage(entries) {
	for (let i = entries.length - 1; i >= 0; i--) {
		const usage = entries[i].type === "message" ? meaningfulUsage(entries[i].message) : undefined;
		if (usage) return usage;
	}
	return undefined;
}

const IMAGE_CHARS = 4800;

function contentChars(content) {
	if (typeof content === "string") return content.length;
	let chars = 0;
	for (const block of content) {
		if (block.type === "text" && block.text) chars += block.text.length;
		else if (block.type === "image") chars += IMAGE_CHARS;
	}
	return chars;
}

/** A message's tokens, estimated as a quarter of its characters (an image counts 4800). */
export function estimateTokens(message) {
	return estimateMessageTokens(message, JSON.stringify);
}

/** estimateTokens measuring tool call arguments with `stringify` (not exported by entries). */
export function estimateMessageTokens(message, stringify) {
	switch (message.role) {
		case "user":
		case "custom":
		case "toolResult":
			return Math.ceil(contentChars(message.content) / 4);
		case "assistant": {
			let chars = 0;
			for (const block of message.content) {
				if (block.type === "text") chars += block.text.length;
				else if (block.type === "thinking") chars += block.thinking.length;
				else if (block.type === "toolCall") chars += block.name.length + stringify(block.arguments).length;
			}
			return Math.ceil(chars / 4);
		}
		case "bashExecution":
			return Math.ceil((message.command.length + message.output.length) / 4);
		case "branchSummary":
		case "compactionSummary":
			return Math.ceil(message.summary.length / 4);
	}
	return 0;
}

/** The last meaningful usage plus estimates of the messages after it. */
export function estimateContextTokens(messages) {
	return estimateContextTokensWith(messages, estimateTokens);
}

/** estimateContextTokens estimating messages with `estimate` (not exported by entries). */
export function estimateContextTokensWith(messages, estimate) {
	let index = messages.length - 1;
	while (index >= 0 && !meaningfulUsage(messages[index])) index--;
	const after = (from) => messages.slice(from).reduce((sum, message) => sum + estimate(message), 0);
	if (index < 0) {
		const estimated = after(0);
		return { tokens: estimated, usageTokens: 0, trailingTokens: estimated, lastUsageIndex: null };
	}
	const usageTokens = calculateContextTokens(meaningfulUsage(messages[index]));
	const trailingTokens = after(index + 1);
	return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex: index };
}

export function shouldCompact(contextTokens, contextWindow, settings) {
	return settings.enabled ? contextTokens > contextWindow - settings.reserveTokens : false;
}

// ---- cut points ----

const CUT_ROLES = new Set(["user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"]);
const TURN_START_ROLES = new Set(["user", "bashExecution", "custom", "branchSummary", "compactionSummary"]);

const hasRole = (entry, roles) => sessionEntryToContextMessages(entry).some((message) => roles.has(message.role));
const startsTurn = (entry) => entry.type !== "compaction" && hasRole(entry, TURN_START_ROLES);

/** The index of the entry that starts the turn holding `entryIndex`, or -1. */
export function findTurnStartIndex(entries, entryIndex, startIndex) {
	for (let i = entryIndex; i >= startIndex; i--) if (startsTurn(entries[i])) return i;
	return -1;
}

/**
 * Where to cut entries[startIndex, endIndex) so that about `keepRecentTokens` stay: walking
 * back from the newest, at the first entry the kept tokens reach the budget, the next cut
 * point at or after it (a user-like or assistant message; never a tool result), moved back
 * over metadata entries. isSplitTurn: the cut falls inside a turn starting at turnStartIndex.
 */
export function findCutPoint(entries, startIndex, endIndex, keepRecentTokens) {
	const cutPoints = [];
	for (let i = startIndex; i < endIndex; i++) {
		if (entries[i].type !== "compaction" && hasRole(entries[i], CUT_ROLES)) cutPoints.push(i);
	}
	if (cutPoints.length === 0) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };
	let cut = cutPoints[0];
	let kept = 0;
	for (let i = endIndex - 1; i >= startIndex; i--) {
		const tokens = sessionEntryToContextMessages(entries[i]).reduce((sum, m) => sum + estimateTokens(m), 0);
		if (tokens === 0) continue;
		kept += tokens;
		if (kept >= keepRecentTokens) {
			cut = cutPoints.find((point) => point >= i) ?? cut;
			break;
		}
	}
	while (cut > startIndex) {
		const previous = entries[cut - 1];
		if (previous.type === "compaction" || sessionEntryToContextMessages(previous).length > 0) break;
		cut--;
	}
	const turnStart = startsTurn(entries[cut]) ? -1 : findTurnStartIndex(entries, cut, startIndex);
	return { firstKeptEntryIndex: cut, turnStartIndex: turnStart, isSplitTurn: turnStart !== -1 };
}
