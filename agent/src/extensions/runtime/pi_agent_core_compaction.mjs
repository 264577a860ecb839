// pi-agent-core's compaction preparation (no model call): where to cut a branch's entries, and
// what a compaction summarizes and keeps. Its entries differ from the coding agent's: only
// message and branch_summary entries are messages here, and a compaction keeps its retained
// tail of messages.

import { ok } from "./pi_agent_core_errors.mjs";
import {
	buildSessionContext,
	createBranchSummaryMessage,
	estimateContextTokens,
	estimateTokens,
} from "./pi_agent_core_harness.mjs";

const CUT_ROLES = new Set(["bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"]);

function cutPoints(entries, startIndex, endIndex) {
	const points = [];
	for (let i = startIndex; i < endIndex; i++) {
		const entry = entries[i];
		if ((entry.type === "message" && CUT_ROLES.has(entry.message.role)) || entry.type === "branch_summary") points.push(i);
	}
	return points;
}

/** The entry that starts the turn holding `entryIndex` (a branch summary, user or bash message), or -1. */
export function findTurnStartIndex(entries, entryIndex, startIndex) {
	for (let i = entryIndex; i >= startIndex; i--) {
		const entry = entries[i];
		if (entry.type === "branch_summary") return i;
		if (entry.type === "message" && (entry.message.role === "user" || entry.message.role === "bashExecution")) return i;
	}
	return -1;
}

/**
 * Where to cut entries[startIndex, endIndex) to keep about `keepRecentTokens` (message entries
 * count): the first cut point at or after the entry where the kept tokens reach the budget,
 * moved back over non-message entries up to a compaction.
 */
export function findCutPoint(entries, startIndex, endIndex, keepRecentTokens) {
	const points = cutPoints(entries, startIndex, endIndex);
	if (points.length === 0) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };
	let cut = points[0];
	let kept = 0;
	for (let i = endIndex - 1; i >= startIndex; i--) {
		if (entries[i].type !== "message") continue;
		kept += estimateTokens(entries[i].message);
		if (kept >= keepRecentTokens) {
			cut = points.find((point) => point >= i) ?? cut;
			break;
		}
	}
	while (cut > startIndex && entries[cut - 1].type !== "compaction" && entries[cut - 1].type !== "message") cut--;
	const entry = entries[cut];
	const isUser = entry.type === "message" && entry.message.role === "user";
	const turnStartIndex = isUser ? -1 : findTurnStartIndex(entries, cut, startIndex);
	return { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: !isUser && turnStartIndex !== -1 };
}

// The message an entry contributes to compaction (compactions themselves contribute none).
function compactionMessage(entry) {
	if (entry.type === "message") return entry.message;
	if (entry.type === "branch_summary") return createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
	return undefined;
}

function addFileOps(message, fileOps) {
	if (message?.role !== "assistant" || !Array.isArray(message.content)) return;
	for (const block of message.content) {
		if (typeof block !== "object" || block === null || block.type !== "toolCall" || !block.arguments) continue;
		const path = typeof block.arguments.path === "string" ? block.arguments.path : undefined;
		if (!path) continue;
		if (block.name === "read") fileOps.read.add(path);
		else if (block.name === "write") fileOps.written.add(path);
		else if (block.name === "edit") fileOps.edited.add(path);
	}
}

/**
 * What compacting a branch's entries involves: the messages to summarize (and a split turn's
 * prefix), the retained tail, the tokens before, the previous summary and the files touched.
 * ok(undefined) when there is nothing to compact (no entries, or a compaction last).
 */
export function prepareCompaction(pathEntries, settings) {
	if (pathEntries.length === 0 || pathEntries[pathEntries.length - 1].type === "compaction") return ok(undefined);
	const previousIndex = pathEntries.findLastIndex((entry) => entry.type === "compaction");
	const previous = previousIndex >= 0 ? pathEntries[previousIndex] : undefined;
	let compactable = pathEntries;
	if (previous) {
		// The previous compaction's retained messages stand in as entries before the newer ones.
		const retained = previous.retainedTail.map((message, index) => ({
			type: "message",
			id: `${previous.id}:retained:${index}`,
			parentId: index === 0 ? previous.id : `${previous.id}:retained:${index - 1}`,
			seq: previous.seq,
			timestamp: message.timestamp,
			message,
		}));
		compactable = [...retained, ...pathEntries.slice(previousIndex + 1)];
	}
	const end = compactable.length;
	const tokensBefore = estimateContextTokens(buildSessionContext(pathEntries).messages).tokens;
	const cut = findCutPoint(compactable, 0, end, settings.keepRecentTokens);
	const messagesIn = (from, to) => compactable.slice(from, to).map(compactionMessage).filter(Boolean);
	const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
	const messagesToSummarize = messagesIn(0, historyEnd);
	const turnPrefixMessages = cut.isSplitTurn ? messagesIn(cut.turnStartIndex, cut.firstKeptEntryIndex) : [];
	const retainedTail = messagesIn(cut.firstKeptEntryIndex, end);
	const fileOps = { read: new Set(), written: new Set(), edited: new Set() };
	if (previous?.details) {
		if (Array.isArray(previous.details.readFiles)) for (const f of previous.details.readFiles) fileOps.read.add(f);
		if (Array.isArray(previous.details.modifiedFiles)) for (const f of previous.details.modifiedFiles) fileOps.edited.add(f);
	}
	for (const message of [...messagesToSummarize, ...turnPrefixMessages]) addFileOps(message, fileOps);
	return ok({
		messagesToSummarize,
		turnPrefixMessages,
		retainedTail,
		isSplitTurn: cut.isSplitTurn,
		tokensBefore,
		previousSummary: previous?.summary,
		fileOps,
		settings,
	});
}
