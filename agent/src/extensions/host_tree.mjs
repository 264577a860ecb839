// pi-agent's extension host, part six: a command's `ctx.navigateTree` and the
// `session_before_tree` handlers whose answers decide how it goes on. The agent runs this file
// appended to the others, as one module: it uses host.mjs's `eachHandler` and `context`,
// host_tools.mjs's `interceptors` and host_session.mjs's `ask`; host_session.mjs's command
// `ctx` uses `navigateTree`. `session_tree` is an ordinary event (host.mjs's `emit`).
//
// To the agent:
//   {type:"navigate_tree", id, targetId, summarize, customInstructions?, replaceInstructions?,
//    label?}                                 ctx.navigateTree; reply {cancelled} or {error}
// From the agent:
//   {type:"intercept", id, event:{type:"session_before_tree", preparation}}
//                                            answered "intercepted" with the last handler's
//                                            answer that was something (one that cancels ends
//                                            it): {cancel?, summary?, customInstructions?,
//                                            replaceInstructions?, label?}

/**
 * `ctx.navigateTree(targetId, options)`: the agent moves the leaf (after the
 * `session_before_tree` handlers, and a summary of the branch left if asked for) and runs the
 * `session_tree` handlers; resolves with `{cancelled}`, rejects with the agent's error.
 */
async function navigateTree(targetId, options) {
	const typed = (value, type) => (typeof value === type ? value : undefined);
	const result = await ask({
		type: "navigate_tree",
		targetId: String(targetId),
		summarize: Boolean(options?.summarize),
		customInstructions: typed(options?.customInstructions, "string"),
		replaceInstructions: typed(options?.replaceInstructions, "boolean"),
		label: typed(options?.label, "string"),
	});
	if (typeof result?.error === "string") throw new Error(result.error);
	return { cancelled: result?.cancelled !== false };
}

/**
 * `session_before_tree`: as pi, the last handler that answers something decides, and one that
 * cancels ends it. The handlers get a signal (nothing aborts it here).
 */
async function interceptBeforeTree(event) {
	const signal = new AbortController().signal;
	let answer;
	await eachHandler("session_before_tree", async (handler) => {
		const result = await handler({ ...event, signal }, context());
		if (!result) return;
		answer = result;
		if (result.cancel) return false;
	});
	if (!answer) return {};
	const summary = answer.summary
		? { summary: answer.summary.summary, details: answer.summary.details, usage: answer.summary.usage }
		: undefined;
	return {
		cancel: answer.cancel ? true : undefined,
		summary,
		customInstructions: answer.customInstructions,
		replaceInstructions: answer.replaceInstructions,
		label: answer.label,
	};
}

interceptors.session_before_tree = interceptBeforeTree;
