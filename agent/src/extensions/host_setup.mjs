// pi-agent's extension host, part seven: `ctx.newSession({setup})`. The agent runs this file
// appended to the others, as one module: it uses host.mjs's `errorText` and host_tools.mjs's
// `interceptors`; host_session.mjs's command `ctx` uses `setupCalls`.
//
// As in pi, `setup` runs once the new session is made and its extensions are loaded, before
// their `session_start` handlers: it gets a session manager of the new session (holding the
// model and thinking level entries the agent started it with), whose `append...` methods add
// entries as pi's do (as a child of the leaf, which moves to them; ids returned at once). The
// agent adds those entries to the session and rebuilds the conversation from it.
//
// From the agent:
//   {type:"intercept", id, event:{type:"session_setup", token, header, entries, sessionFile?,
//    sessionDir, cwd, persisted}}
//                                 answered "intercepted" with {entries} (those the setup
//                                 appended, also when it threw)

/** The `setup` callbacks of `ctx.newSession` calls in flight, by token: {setup, error?}. */
const setupCalls = new Map();

/** An entry id as pi makes them: 8 hex digits, unique in the session. */
function setupEntryId(taken) {
	for (let attempt = 0; attempt < 100; attempt++) {
		const id = randomUUID().slice(0, 8);
		if (!taken.has(id)) return id;
	}
	return randomUUID();
}

/** The session manager `setup` gets: the new session's entries, and pi's methods on them. */
function setupSessionManager(event, appended) {
	const entries = [...(event.entries ?? [])];
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	const labels = new Map();
	let leafId = entries.at(-1)?.id ?? null;
	const append = (fields) => {
		const entry = { ...fields, id: setupEntryId(byId), parentId: leafId, timestamp: new Date().toISOString() };
		entries.push(entry);
		byId.set(entry.id, entry);
		appended.push(entry);
		leafId = entry.id;
		return entry.id;
	};
	const branch = (fromId) => {
		const path = [];
		let current = byId.get(fromId ?? leafId);
		while (current) {
			path.unshift(current);
			current = current.parentId ? byId.get(current.parentId) : undefined;
		}
		return path;
	};
	return {
		isPersisted: () => event.persisted === true,
		getCwd: () => event.cwd,
		getSessionDir: () => event.sessionDir,
		getSessionId: () => event.header?.id,
		getSessionFile: () => event.sessionFile ?? undefined,
		getHeader: () => event.header ?? null,
		getEntries: () => [...entries],
		getEntry: (id) => byId.get(id),
		getLeafId: () => leafId,
		getLeafEntry: () => (leafId ? byId.get(leafId) : undefined),
		getChildren: (parentId) => entries.filter((entry) => entry.parentId === parentId),
		getBranch: branch,
		getLabel: (id) => labels.get(id),
		getSessionName() {
			const info = entries.findLast((entry) => entry.type === "session_info");
			return info?.name?.trim() || undefined;
		},
		appendMessage: (message) => append({ type: "message", message }),
		appendThinkingLevelChange: (thinkingLevel) => append({ type: "thinking_level_change", thinkingLevel }),
		appendModelChange: (provider, modelId) => append({ type: "model_change", provider, modelId }),
		appendCustomEntry: (customType, data) => append({ type: "custom", customType, data }),
		appendSessionInfo: (name) => append({ type: "session_info", name: String(name).replace(/[\r\n]+/g, " ").trim() }),
		appendCustomMessageEntry: (customType, content, display, details) =>
			append({ type: "custom_message", customType, content, display, details }),
		appendLabelChange(targetId, label) {
			if (!byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
			const id = append({ type: "label", targetId, label });
			if (label) labels.set(targetId, label);
			else labels.delete(targetId);
			return id;
		},
	};
}

/** Runs the `setup` of the call `event.token` names; its error is kept for the call to throw. */
async function runSetup(event) {
	const call = setupCalls.get(event.token);
	const appended = [];
	if (!call) return { entries: appended };
	try {
		await call.setup(setupSessionManager(event, appended));
	} catch (error) {
		call.error = error instanceof Error ? error : new Error(errorText(error));
	}
	// As pi writes them: what JSON leaves out of an entry is not in the session.
	return { entries: JSON.parse(JSON.stringify(appended)) };
}

interceptors.session_setup = runSetup;
