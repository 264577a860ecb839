// pi-agent's extension host, part seven: `ctx.sessionManager`, pi's read-only view of the
// session, answered from a mirror of the session's entries that the agent keeps up to date.
// The agent runs this file appended to the others, as one module: host.mjs's `context` hands
// out `sessionManager` and its `handle` gives `mirrorSession` the messages below.
//
// From the agent:
//   {type:"session_entries", reset?:{header, sessionId, cwd, sessionDir, sessionFile?}, entries,
//    leafId}
//                                 with `reset`: another session (or the first): the mirror
//                                 starts again from its header; `entries`: those appended since
//                                 the last message (with `reset`, a long session's come in
//                                 several messages, the later ones without `reset`); `leafId`:
//                                 the session's leaf now (null before its first entry)

/**
 * The session as the agent last told us: its header and places, its entries in append order
 * (the objects an extension gets), by id, the labels set on entries (with the time of the
 * label entry that set them), the leaf, and the name pi.setSessionName gave last while its
 * entry is still to come ({name}).
 */
const sessionMirror = {
	header: null,
	sessionId: "",
	cwd: "",
	sessionDir: "",
	sessionFile: undefined,
	entries: [],
	byId: new Map(),
	labels: new Map(),
	leafId: null,
	pendingName: undefined,
};

/** Takes a `session_entries` message into the mirror. */
function mirrorSession(message) {
	const mirror = sessionMirror;
	if (message.reset) {
		mirror.header = message.reset.header ?? null;
		mirror.sessionId = message.reset.sessionId ?? "";
		mirror.cwd = message.reset.cwd ?? "";
		mirror.sessionDir = message.reset.sessionDir ?? "";
		mirror.sessionFile = message.reset.sessionFile ?? undefined;
		mirror.entries = [];
		mirror.byId = new Map();
		mirror.labels = new Map();
		mirror.pendingName = undefined;
	}
	for (const entry of message.entries ?? []) {
		mirror.entries.push(entry);
		mirror.byId.set(entry.id, entry);
		if (entry.type === "session_info") mirror.pendingName = undefined;
		if (entry.type !== "label") continue;
		if (entry.label) mirror.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp });
		else mirror.labels.delete(entry.targetId);
	}
	mirror.leafId = message.leafId ?? null;
}

/** The entries from the root to `id` (the leaf when not given) in `session`, as pi walks them. */
function branchTo(session, id) {
	const path = [];
	let current = id ? session.byId.get(id) : undefined;
	while (current) {
		path.push(current);
		current = current.parentId ? session.byId.get(current.parentId) : undefined;
	}
	return path.reverse();
}

/**
 * The leaf's branch as the model sees it: from the latest compaction on it, the compaction,
 * the entries it kept (from `firstKeptEntryId`) and those after it.
 */
function contextEntries(session) {
	const path = session.leafId === null ? [] : branchTo(session, session.leafId ?? undefined);
	const at = path.findLastIndex((entry) => entry.type === "compaction");
	if (at < 0) return path;
	const compaction = path[at];
	const kept = path.findIndex((entry, index) => index < at && entry.id === compaction.firstKeptEntryId);
	return [compaction, ...(kept < 0 ? [] : path.slice(kept, at)), ...path.slice(at + 1)];
}

/** `session` as a tree: roots (entries without a parent here), children oldest first. */
function sessionTree(session) {
	const nodes = new Map();
	for (const entry of session.entries) {
		const label = session.labels.get(entry.id);
		nodes.set(entry.id, { entry, children: [], label: label?.label, labelTimestamp: label?.timestamp });
	}
	const roots = [];
	for (const entry of session.entries) {
		const node = nodes.get(entry.id);
		const parent = entry.parentId === null || entry.parentId === entry.id ? undefined : nodes.get(entry.parentId);
		if (parent) parent.children.push(node);
		else roots.push(node);
	}
	const time = (node) => new Date(node.entry.timestamp).getTime();
	const stack = [...roots];
	while (stack.length > 0) {
		const node = stack.pop();
		node.children.sort((a, b) => time(a) - time(b));
		stack.push(...node.children);
	}
	return roots;
}

/**
 * The getters of pi's `ReadonlySessionManager` over `session` (shaped as `sessionMirror`): the
 * one view of a session an extension gets, from `ctx.sessionManager` and from a
 * `ctx.newSession` `setup` (host_setup.mjs, which adds the `append...` methods).
 */
function readonlySessionManager(session) {
	return {
		getCwd: () => session.cwd,
		getSessionDir: () => session.sessionDir,
		getSessionId: () => session.sessionId,
		getSessionFile: () => session.sessionFile,
		getLeafId: () => session.leafId,
		getLeafEntry: () => (session.leafId ? session.byId.get(session.leafId) : undefined),
		getEntry: (id) => session.byId.get(id),
		getLabel: (id) => session.labels.get(id)?.label,
		getBranch: (fromId) => branchTo(session, fromId ?? session.leafId ?? undefined),
		buildContextEntries: () => contextEntries(session),
		getHeader: () => session.header,
		getEntries: () => [...session.entries],
		getTree: () => sessionTree(session),
		getSessionName() {
			// A pi.setSessionName whose entry the agent has not sent back yet (host_api.mjs).
			if (session.pendingName) return session.pendingName.name;
			const info = session.entries.findLast((entry) => entry.type === "session_info");
			return info ? info.name?.trim() || undefined : undefined;
		},
	};
}

/** `ctx.sessionManager`: the session as the agent last told us. */
const sessionManager = readonlySessionManager(sessionMirror);
