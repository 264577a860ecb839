// pi-agent's extension host, part ten: more calls of `pi`: those on the session itself
// (setSessionName, getSessionName, setLabel), getCommands, the renderers of pi's terminal UI;
// and a context's `shutdown()`. The agent runs this file appended to the others, as one
// module: host.mjs's `api` spreads `moreApi(extension)` into each extension's `pi`, its
// `context` adds `shutdown`; it uses host.mjs's
// `send` and `commands`, host_session.mjs's `extensionSourceInfo`, host_providers.mjs's
// `loadingFactories` and host_session_manager.mjs's `sessionMirror` / `sessionManager`.
//
// As in pi, these calls are synchronous. The agent writes the entries they make (each as a
// child of the leaf, with its own id), and they reach the mirror with the next update; until
// then the mirror answers getSessionName / getLabel with what was asked, as pi's session
// manager would at once.
//
// From the agent:
//   {type:"slash_commands", commands}  the commands pi.getCommands lists after the extensions'
//                                      own: those of the built-in extensions, prompt templates
//                                      and skills, as `get_commands` lists them
// To the agent:
//   {type:"set_session_name", name}    pi.setSessionName (name sanitised as pi does; "" clears
//                                      it): a `session_info` entry, `session_info_changed` (its
//                                      handlers run here)
//   {type:"set_label", targetId, label?}   pi.setLabel (no label: cleared): a `label` entry
//   {type:"shutdown", duringCommand}   ctx.shutdown() (RPC mode only, as in pi): the agent
//                                      exits after the command in hand (duringCommand: the
//                                      synchronous part of a command's handler made the call),
//                                      else after the next command

/** What pi says when an action method is called while the factories run. */
const RUNTIME_NOT_BOUND =
	"Extension runtime not initialized. Action methods cannot be called during extension loading.";

/** The agent's commands for pi.getCommands, after the extensions' own. */
let agentCommands = [];

/** Takes the agent's "slash_commands" message. */
function setAgentCommands(message) {
	agentCommands = Array.isArray(message.commands) ? message.commands : [];
}

function assertBound() {
	if (loadingFactories) throw new Error(RUNTIME_NOT_BOUND);
}

/** These calls of one extension's `pi`. */
function moreApi(extension) {
	return {
		// Renderers draw messages and entries in pi's terminal UI: kept, never called in RPC,
		// print or JSON mode (as in pi).
		registerMessageRenderer(customType, renderer) {
			(extension.messageRenderers ??= new Map()).set(customType, renderer);
		},
		registerEntryRenderer(customType, renderer) {
			(extension.entryRenderers ??= new Map()).set(customType, renderer);
		},
		registerMarkdownTransformer(transformer) {
			extension.markdownTransformer = transformer;
		},
		setSessionName(name) {
			assertBound();
			// As pi's session manager: a name that is not a text throws here.
			const sanitized = name.replace(/[\r\n]+/g, " ").trim();
			sessionMirror.pendingName = { name: sanitized || undefined };
			send({ type: "set_session_name", name: sanitized });
			// As pi, the handlers start before the call returns; the agent does not send this one.
			void emit({ type: "session_info_changed", name: sanitized || undefined });
		},
		getSessionName() {
			assertBound();
			return sessionManager.getSessionName();
		},
		setLabel(entryId, label) {
			assertBound();
			if (!sessionMirror.byId.has(entryId)) throw new Error(`Entry ${entryId} not found`);
			const text = typeof label === "string" ? label : undefined;
			if (text) sessionMirror.labels.set(entryId, { label: text, timestamp: new Date().toISOString() });
			else sessionMirror.labels.delete(entryId);
			send({ type: "set_label", targetId: entryId, label: text });
		},
		getCommands() {
			assertBound();
			const own = commands().map(({ name, command, path }) => ({
				name,
				description: command.description,
				source: "extension",
				sourceInfo: extensionSourceInfo(path),
			}));
			// Copies: what a caller changes stays its own.
			return [...own, ...structuredClone(agentCommands)];
		},
	};
}

/**
 * Whether the synchronous part of a command's handler runs now: pi looks at a shutdown request
 * right after it, so one made then ends the agent with that command.
 */
let commandStarting = false;
function startCommand(run) {
	commandStarting = true;
	try {
		return run();
	} finally {
		commandStarting = false;
	}
}

/** `ctx.shutdown()`: a request to the agent; nothing to do where no client waits (print mode). */
function requestShutdown() {
	if (mode === "rpc") send({ type: "shutdown", duringCommand: commandStarting });
}
