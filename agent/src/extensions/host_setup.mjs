// pi-agent's extension host, part eight: `ctx.newSession({setup})`. The agent runs this file
// appended to the others, as one module: it uses host.mjs's `errorText`, host_tools.mjs's
// `interceptors` and host_session_manager.mjs's `readonlySessionManager`; host_session.mjs's
// command `ctx` uses `setupCalls`.
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

/**
 * The session manager `setup` gets: the new session's entries, pi's getters on them
 * (host_session_manager.mjs's `readonlySessionManager`) and its `append...` methods.
 */
function setupSessionManager(event, appended) {
	const entries = [...(event.entries ?? [])];
	const session = {
		header: event.header ?? null,
		sessionId: event.header?.id,
		cwd: event.cwd,
		sessionDir: event.sessionDir,
		sessionFile: event.sessionFile ?? undefined,
		entries,
		byId: new Map(entries.map((entry) => [entry.id, entry])),
		labels: new Map(),
		leafId: entries.at(-1)?.id ?? null,
	};
	const append = (fields) => {
		const entry = {
			...fields,
			id: setupEntryId(session.byId),
			parentId: session.leafId,
			timestamp: new Date().toISOString(),
		};
		entries.push(entry);
		session.byId.set(entry.id, entry);
		appended.push(entry);
		session.leafId = entry.id;
		return entry;
	};
	return {
		...readonlySessionManager(session),
		isPersisted: () => event.persisted === true,
		getChildren: (parentId) => entries.filter((entry) => entry.parentId === parentId),
		appendMessage: (message) => append({ type: "message", message }).id,
		appendThinkingLevelChange: (thinkingLevel) => append({ type: "thinking_level_change", thinkingLevel }).id,
		appendModelChange: (provider, modelId) => append({ type: "model_change", provider, modelId }).id,
		appendCustomEntry: (customType, data) => append({ type: "custom", customType, data }).id,
		appendSessionInfo: (name) =>
			append({ type: "session_info", name: String(name).replace(/[\r\n]+/g, " ").trim() }).id,
		appendCustomMessageEntry: (customType, content, display, details) =>
			append({ type: "custom_message", customType, content, display, details }).id,
		appendLabelChange(targetId, label) {
			if (!session.byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
			const entry = append({ type: "label", targetId, label });
			if (label) session.labels.set(targetId, { label, timestamp: entry.timestamp });
			else session.labels.delete(targetId);
			return entry.id;
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
