// Session-entry cases for pi_coding_agent_cases.mjs: context building on a branched session
// with a compaction, migration, token estimates and compaction cut points.

const ts = (n) => `2026-01-01T00:00:${String(n).padStart(2, "0")}.000Z`;
const usage = (input, output, cacheRead = 0, cacheWrite = 0, totalTokens = 0) => ({ input, output, cacheRead, cacheWrite, totalTokens });

const user = (id, parentId, text, n) => ({ type: "message", id, parentId, timestamp: ts(n), message: { role: "user", content: text, timestamp: n } });
const assistant = (id, parentId, text, n, extra = {}) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(n),
	message: { role: "assistant", content: [{ type: "text", text }], provider: "prov", model: `model-${n}`, stopReason: "stop", usage: usage(100 * n, 10), timestamp: n, ...extra },
});
const toolResult = (id, parentId, text, n) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(n),
	message: { role: "toolResult", toolCallId: "t", toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: n },
});

// A branched session: root -> … -> e7 (compaction) -> e8 -> e9 (leaf, the last entry), and a
// side branch e4b off e3.
const ENTRIES = [
	{ type: "session", version: 3, id: "hdr", cwd: "/w", timestamp: ts(0) },
	user("e1", null, "first question ".repeat(40), 1),
	assistant("e2", "e1", "first answer ".repeat(60), 2),
	{ type: "model_change", id: "e3", parentId: "e2", timestamp: ts(3), provider: "other", modelId: "switched" },
	{ type: "thinking_level_change", id: "e3t", parentId: "e3", timestamp: ts(3), thinkingLevel: "high" },
	user("e4", "e3t", "second question", 4),
	assistant("e5", "e4", "calling a tool", 5, { content: [{ type: "toolCall", id: "t", name: "read", arguments: { path: "x" } }], stopReason: "toolUse" }),
	toolResult("e6", "e5", "tool output ".repeat(100), 6),
	{ type: "custom", id: "e6c", parentId: "e6", timestamp: ts(6), customType: "state", data: { k: 1 } },
	{ type: "compaction", id: "e7", parentId: "e6c", timestamp: ts(7), summary: "summary of e1-e3", firstKeptEntryId: "e4", tokensBefore: 1234 },
	{ type: "custom_message", id: "e8", parentId: "e7", timestamp: ts(8), customType: "note", content: "injected note", display: true, details: { d: 1 } },
	{ type: "branch_summary", id: "e8b", parentId: "e8", timestamp: ts(8), summary: "side trip", fromId: "e4b" },
	{ type: "branch_summary", id: "e8e", parentId: "e8b", timestamp: ts(8), summary: "" },
	{ type: "label", id: "e8l", parentId: "e8e", timestamp: ts(8), targetId: "e4", label: "mark" },
	user("e9a", "e8l", "third question", 9),
	assistant("e9", "e9a", "third answer", 9, { usage: usage(0, 0) }),
	user("e4b", "e3", "side question", 10),
	{ type: "message", id: "e4c", parentId: "e4b", timestamp: ts(11), message: { role: "assistant", content: null, provider: "p", model: "m", stopReason: "aborted", usage: usage(5, 5) } },
	assistant("e9", "e9a", "third answer", 9, { usage: usage(0, 0) }),
];

// Session entries without the tree fields, as in version 1 files.
function versionOneFile() {
	return [
		{ type: "session", version: 1, cwd: "/w", timestamp: ts(0) },
		{ type: "message", timestamp: ts(1), message: { role: "user", content: "hi", timestamp: 1 } },
		{ type: "message", timestamp: ts(2), message: { role: "hookMessage", customType: "h", content: "hook", timestamp: 2 } },
		{ type: "compaction", timestamp: ts(3), summary: "s", firstKeptEntryIndex: 2, tokensBefore: 9 },
		{ type: "compaction", timestamp: ts(4), summary: "s2", firstKeptEntryIndex: 0, tokensBefore: 9 },
	];
}

// Ids made by migration are random: keep their shape and the parent links between them.
function linkShape(entries) {
	const index = new Map(entries.map((entry, i) => [entry.id, i]));
	return entries.map((entry) => {
		const { id, parentId, firstKeptEntryId, ...rest } = entry;
		return {
			...rest,
			id: id === undefined ? null : /^[0-9a-f]{8}$/.test(id) ? "<8 hex>" : id,
			parent: parentId === undefined ? "absent" : parentId === null ? null : index.get(parentId),
			firstKept: firstKeptEntryId === undefined ? "absent" : index.get(firstKeptEntryId),
		};
	});
}

const entriesOf = (ids) => ids.map((id) => ENTRIES.find((entry) => entry.id === id));

export function sessionCases(pi) {
	return {
		sessionContextDefault: () => pi.buildSessionContext(ENTRIES),
		sessionContextLeaf: () => ["e9", "e6", "e4b", "e4c", "e1", "unknown"].map((leaf) => pi.buildSessionContext(ENTRIES, leaf)),
		sessionContextNullLeaf: () => pi.buildSessionContext(ENTRIES, null),
		sessionContextById: () => pi.buildSessionContext(ENTRIES, "e8", new Map(ENTRIES.map((entry) => [entry.id, entry]))),
		contextEntries: () => ["e9", "e6", "e4c"].map((leaf) => pi.buildContextEntries(ENTRIES, leaf).map((entry) => entry.id)),
		contextEntriesNoKept: () =>
			pi
				.buildContextEntries([...ENTRIES, { type: "compaction", id: "c2", parentId: "e9", timestamp: ts(20), summary: "all", firstKeptEntryId: "gone", tokensBefore: 1 }], "c2")
				.map((entry) => entry.id),
		entryMessages: () => ENTRIES.map((entry) => pi.sessionEntryToContextMessages(entry)),
		latestCompaction: () => [pi.getLatestCompactionEntry(ENTRIES)?.id, pi.getLatestCompactionEntry(ENTRIES.slice(0, 5))],
		parseSessionEntries: () => pi.parseSessionEntries('\n{"type":"session","version":3}\nnot json\n\n{"type":"message","id":"a"}\n  \n{"broken":\n'),
		migrateV1: () => {
			const entries = versionOneFile();
			pi.migrateSessionEntries(entries);
			return linkShape(entries);
		},
		migrateV2: () => {
			const entries = [
				{ type: "session", version: 2 },
				{ type: "message", id: "a", parentId: null, message: { role: "hookMessage", content: "x" } },
				{ type: "message", id: "b", parentId: "a", message: { role: "user", content: "y" } },
			];
			pi.migrateSessionEntries(entries);
			return entries;
		},
		migrateCurrent: () => {
			const entries = [{ type: "session", version: 3 }, { type: "message", id: "a", parentId: null, message: { role: "hookMessage" } }];
			pi.migrateSessionEntries(entries);
			return entries;
		},
		contextTokens: () => [usage(10, 5, 3, 2), usage(10, 5, 3, 2, 99), usage(0, 0)].map((u) => pi.calculateContextTokens(u)),
		lastAssistantUsage: () => [
			pi.getLastAssistantUsage(ENTRIES),
			pi.getLastAssistantUsage(entriesOf(["e1", "e2", "e4"])),
			pi.getLastAssistantUsage(entriesOf(["e4b", "e4c"])),
			pi.getLastAssistantUsage([]),
		],
		shouldCompact: () => [
			pi.shouldCompact(90000, 100000, { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 }),
			pi.shouldCompact(80000, 100000, { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 }),
			pi.shouldCompact(83616, 100000, { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 }),
			pi.shouldCompact(99999, 100000, { enabled: false, reserveTokens: 16384, keepRecentTokens: 1 }),
		],
		cutPoints: () => {
			const branch = entriesOf(["e1", "e2", "e3", "e3t", "e4", "e5", "e6", "e6c"]);
			return [0, 1, 50, 200, 400, 10000].flatMap((keep) => [
				pi.findCutPoint(branch, 0, branch.length, keep),
				pi.findCutPoint(branch, 2, branch.length, keep),
				pi.findCutPoint(branch, 5, 7, keep),
			]);
		},
		cutPointNone: () => pi.findCutPoint(entriesOf(["e3", "e3t", "e6"]), 0, 3, 10),
		cutPointAfterCompaction: () => {
			const branch = entriesOf(["e7", "e8", "e8b", "e8l", "e9a", "e9"]);
			return [1, 5, 50].map((keep) => pi.findCutPoint(branch, 0, branch.length, keep));
		},
		branchSummaryEntries: () => {
			const byId = new Map(ENTRIES.map((entry) => [entry.id, entry]));
			const branch = (id) => {
				const path = [];
				for (let e = byId.get(id); e; e = e.parentId ? byId.get(e.parentId) : undefined) path.unshift(e);
				return path;
			};
			const session = { getBranch: branch, getEntry: (id) => byId.get(id) };
			return [
				["e9", "e4c"],
				["e4c", "e9"],
				["e6", "e6"],
				[undefined, "e9"],
				["e9", "e1"],
			].map(([from, to]) => {
				const { entries, commonAncestorId } = pi.collectEntriesForBranchSummary(session, from, to);
				return { ids: entries.map((e) => e.id), commonAncestorId };
			});
		},
		prepareBranchEntries: () => {
			const withFiles = [
				...entriesOf(["e1", "e2", "e4", "e5", "e6", "e7", "e8", "e8b", "e9a", "e9"]),
				{ type: "branch_summary", id: "bs", parentId: "e9", timestamp: ts(30), summary: "s", details: { readFiles: ["r.txt"], modifiedFiles: ["m.txt"] } },
				{ type: "branch_summary", id: "bh", parentId: "bs", timestamp: ts(31), summary: "s", fromHook: true, details: { readFiles: ["hook.txt"] } },
				{ type: "message", id: "w", parentId: "bh", timestamp: ts(32), message: { role: "assistant", content: [{ type: "toolCall", id: "1", name: "write", arguments: { path: "w.txt" } }, { type: "toolCall", id: "2", name: "edit", arguments: { path: "e.txt" } }, { type: "toolCall", id: "3", name: "read", arguments: { path: 5 } }], stopReason: "toolUse" } },
			];
			return [0, 5, 60, 200, 100000].map((budget) => {
				const { messages, fileOps, totalTokens } = pi.prepareBranchEntries(withFiles, budget);
				return { messages, totalTokens, read: [...fileOps.read], written: [...fileOps.written], edited: [...fileOps.edited] };
			});
		},
		turnStart: () => {
			const branch = entriesOf(["e1", "e2", "e3", "e3t", "e4", "e5", "e6", "e6c", "e7", "e8"]);
			return [0, 1, 3, 5, 6, 7, 8, 9].map((index) => [pi.findTurnStartIndex(branch, index, 0), pi.findTurnStartIndex(branch, index, 5)]);
		},
	};
}
