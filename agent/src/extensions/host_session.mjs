// pi-agent's extension host, part four: the state the agent mirrors into the host for pi's
// synchronous getters (tools, model, thinking level), and a command's `ctx` with its session
// actions (newSession, switchSession, fork, reload, waitForIdle; navigateTree is host_tree.mjs's).
// The agent runs this file appended to host.mjs, host_tools.mjs and host_ui.mjs, as one module:
// it uses host.mjs's `send`, `context` and `streaming` and host_tools.mjs's `tools`; host.mjs's
// `api` and `handle` use what is defined here.
//
// From the agent (besides host.mjs's list):
//   {type:"tools", all, active, builtins, registered, sources, flags}
//                                 the tools it may offer and offers (names), the built-in
//                                 definitions, the extension tools it knows, each extension
//                                 file's sourceInfo by path, the tool flags {tools, noTools,
//                                 exclude}
//   {type:"model_state", model, thinkingLevel, levels, contextUsage, models?, available?,
//    configured?}                 the model, its level and supported levels, the context
//                                 usage (ctx.getContextUsage, host_context.mjs); at start-up and
//                                 reloads also every model, the "provider/id" of those with
//                                 credentials and the providers that have them
//   {type:"reply", id, value}     the answer to one of the requests below
//   {type:"reload", fresh:true}   ctx.reload(): as "reload", with the modules evaluated afresh
// To the agent:
//   {type:"set_active_tools", names}          pi.setActiveTools (known names only)
//   {type:"set_model", id, provider, modelId} pi.setModel; reply true/false
//   {type:"run_tool", id, name, params, cwd?}  a runtime module runs a built-in tool (host.callTool);
//                                 reply {content, details} or {error}
//   {type:"set_thinking_level", level}        pi.setThinkingLevel (its thinking_level_select
//                                             handlers ran here)
//   {type:"wait_for_idle", id}                ctx.waitForIdle; reply once settled
//   {type:"new_session", id, parentSession, setup?}
//                                             ctx.newSession (setup: the token of its `setup`,
//                                             host_setup.mjs's); reply {cancelled}
//   {type:"replace", id, sessionPath}         ctx.switchSession; reply {cancelled} or {error}
//   {type:"replace", id, entryId, position}   ctx.fork; reply {cancelled} or {error}
//   {type:"reload_runtime", id}               ctx.reload; reply once the new versions started
//   (ctx.navigateTree's message is host_tree.mjs's)

/**
 * The agent's tools as it last told us: `all` the names it may offer, `active` those it offers,
 * `builtins` the built-in definitions. `pi.setActiveTools` changes `active` here at once.
 */
let toolState = { all: [], active: [], builtins: [], reported: new Set(), sources: {}, flags: undefined };

/**
 * The model's state as the agent last told us: the model, the thinking level, the levels the
 * model supports, every model, the `provider/id` of those with credentials and the providers
 * with credentials.
 * `pi.setThinkingLevel` changes the level here at once.
 */
let modelState = { model: undefined, thinkingLevel: "off", levels: ["off"], models: [], available: [], configured: [] };
/** Takes the agent's "tools" message. */
function setToolState(message) {
	toolState = {
		all: message.all ?? [],
		active: message.active ?? [],
		builtins: message.builtins ?? [],
		// Extension tools the agent knows of and does not offer (`--tools`, ...).
		reported: new Set(message.registered ?? []),
		// Where each extension file comes from, by path.
		sources: message.sources ?? {},
		flags: message.flags,
	};
}

/** Takes the agent's "model_state" message. */
function setModelState(message) {
	if ("contextUsage" in message) contextUsage = message.contextUsage ?? undefined;
	modelState = {
		model: message.model,
		thinkingLevel: message.thinkingLevel,
		levels: message.levels ?? ["off"],
		// The models come at start-up and reloads only.
		models: message.models ?? modelState.models,
		available: message.available ?? modelState.available,
		configured: message.configured ?? modelState.configured,
	};
}

/** `pi.setModel` calls waiting for the agent, by id. */
const pendingReplies = new Map();

/**
 * `pi.getAllTools`: the tools the agent may offer (built-in ones, replaced in place by an
 * extension tool of their name, then the extension tools), with where each comes from.
 */
function allTools() {
	const registered = new Map(tools().map((entry) => [entry.tool.name, entry]));
	const names = [...toolState.all];
	for (const name of registered.keys()) {
		// Registered since the agent last told us: pi lists it at once.
		if (!names.includes(name) && !toolState.reported.has(name) && toolAllowed(name)) names.push(name);
	}
	const result = [];
	for (const name of names) {
		const entry = registered.get(name);
		if (entry) {
			result.push({
				name,
				description: entry.tool.description,
				parameters: entry.tool.parameters,
				promptGuidelines: entry.tool.promptGuidelines,
				sourceInfo: extensionSourceInfo(entry.path),
			});
			continue;
		}
		const builtin = toolState.builtins.find((tool) => tool.name === name);
		if (builtin) {
			result.push({
				name,
				description: builtin.description,
				parameters: builtin.parameters,
				promptGuidelines: builtin.promptGuidelines,
				sourceInfo: { path: `<builtin:${name}>`, source: "builtin", scope: "temporary", origin: "top-level" },
			});
		}
	}
	return result;
}

/** Whether the tool flags (as the agent gave them) let a tool of this name be offered. */
function toolAllowed(name) {
	const flags = toolState.flags;
	if (!flags) return true;
	const allowed = Array.isArray(flags.tools) ? flags.tools.includes(name) : !flags.noTools;
	return allowed && !(flags.exclude ?? []).includes(name);
}

function extensionSourceInfo(path) {
	return toolState.sources[path] ?? { path, source: "local", scope: "temporary", origin: "top-level", baseDir: dirname(path) };
}

/** What pi says when a command's `ctx` or an old `pi` is used after a session replacement. */
const STALE_CONTEXT =
	"This extension ctx is stale after session replacement or reload. Do not use a captured pi or command ctx after ctx.newSession(), ctx.fork(), ctx.switchSession(), or ctx.reload(). For newSession, fork, and switchSession, move post-replacement work into withSession and use the ctx passed to withSession. For reload, do not use the old ctx after await ctx.reload().";

/** Asks the agent `message` (with a fresh `id`) and resolves with its reply's value. */
function ask(message) {
	return new Promise((resolve) => {
		const id = randomUUID();
		pendingReplies.set(id, resolve);
		send({ ...message, id });
	});
}

/**
 * A command handler's `ctx`: the event handlers' one and the session actions. After a session
 * replacement it asked for, it is stale (any use throws), as in pi; `withSession` gets a fresh
 * one.
 */
function commandContext() {
	let stale = false;
	/** A replacement: `{cancelled}` once the new session's extensions started, or an error. */
	async function replace(message, options) {
		const result = await ask(message);
		const setup = setupCalls.get(message.setup);
		setupCalls.delete(message.setup);
		if (typeof result?.error === "string") throw new Error(result.error);
		if (result?.cancelled !== false) return { cancelled: true };
		stale = true;
		// A `setup` that threw: the call rejects (its entries stay), withSession does not run.
		if (setup?.error) throw setup.error;
		if (typeof options?.withSession === "function") await options.withSession(commandContext());
		return { cancelled: false };
	}
	const ctx = Object.assign(context(), {
		newSession(options) {
			let setup;
			if (typeof options?.setup === "function") {
				setup = randomUUID();
				setupCalls.set(setup, { setup: options.setup });
			}
			return replace({ type: "new_session", parentSession: options?.parentSession, setup }, options);
		},
		switchSession(sessionPath, options) {
			return replace({ type: "replace", sessionPath }, options);
		},
		fork(entryId, options) {
			return replace({ type: "replace", entryId, position: options?.position }, options);
		},
		navigateTree(targetId, options) {
			return navigateTree(targetId, options);
		},
		async reload() {
			await ask({ type: "reload_runtime" });
			stale = true;
		},
		async waitForIdle() {
			await ask({ type: "wait_for_idle" });
		},
	});
	return new Proxy(ctx, {
		get(target, property) {
			if (stale) throw new Error(STALE_CONTEXT);
			return target[property];
		},
	});
}

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/** The level the agent will use for `level`: itself if the model supports it, else the nearest
 * supported one above it, else below it. */
function clampedLevel(level) {
	const levels = modelState.levels;
	if (levels.includes(level)) return level;
	const index = Math.max(THINKING_LEVELS.indexOf(level), 0);
	const higher = THINKING_LEVELS.slice(index).find((candidate) => levels.includes(candidate));
	const lower = THINKING_LEVELS.slice(0, index)
		.reverse()
		.find((candidate) => levels.includes(candidate));
	return higher ?? lower ?? levels[0] ?? "off";
}
