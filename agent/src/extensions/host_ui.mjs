// pi-agent's extension host, part three: `ctx.ui`, the extension UI that crosses to the client as
// extension_ui_request records (dialogs wait for the client's extension_ui_response). The agent
// runs this file appended to host.mjs, as one module: it uses that file's `send` and
// `pendingDialogs`.

/**
 * The runtime module of pi's themes, the one the extensions' imports of pi-coding-agent get
 * (`initTheme` & co act on the theme shown here); `init` loads it once the loader is in place.
 */
let themeModule;
async function loadThemeModule() {
	themeModule = await import("pi-agent:/runtime/pi_coding_agent_theme.mjs");
}

/**
 * `ctx.ui.theme`: pi's current theme, chosen as pi chooses it (the `theme` setting, else the
 * terminal's background from COLORFGBG; truecolor or 256 colours by what the environment
 * says of the terminal), read anew on every use.
 */
const uiTheme = new Proxy({}, { get: (_target, property) => themeModule?.theme[property] });

function uiRequest(request) {
	send({ type: "ui", request: { id: randomUUID(), ...request } });
}

/** A dialog: resolves with the parsed answer, or `fallback` on timeout or when `signal` aborts. */
function dialog(request, opts, fallback, parse) {
	const signal = opts?.signal;
	if (signal?.aborted) return Promise.resolve(fallback);
	return new Promise((resolve) => {
		const id = randomUUID();
		let timer;
		const finish = (value) => {
			if (timer) clearTimeout(timer);
			signal?.removeEventListener("abort", onAbort);
			pendingDialogs.delete(id);
			resolve(value);
		};
		const onAbort = () => finish(fallback);
		signal?.addEventListener("abort", onAbort, { once: true });
		if (opts?.timeout) {
			timer = setTimeout(() => finish(fallback), opts.timeout);
		}
		pendingDialogs.set(id, (response) => finish(parse(response)));
		send({ type: "ui", request: { id, ...request } });
	});
}

/**
 * From pi 0.84.4 extensions hear `ui_prompt_start` / `ui_prompt_end` around the outermost
 * dialog (the agent says whether its release has them).
 */
const uiPromptEvents = process.env.PI_AGENT_UI_PROMPT_EVENTS === "1";
let uiPromptDepth = 0;
let activeUiPrompt;

function emitUiPrompt(event) {
	queueMicrotask(() => {
		void eachHandler(event.type, (handler) => handler(event, context()));
	});
}

function withUiPrompt(kind, title, run) {
	if (!uiPromptEvents) return run();
	if (uiPromptDepth++ === 0) {
		activeUiPrompt = { kind, title };
		emitUiPrompt({ type: "ui_prompt_start", reason: "ui_prompt", kind, ...(title ? { title } : {}) });
	}
	const finish = () => {
		if (--uiPromptDepth > 0) return;
		uiPromptDepth = 0;
		const prompt = activeUiPrompt ?? { kind, title };
		activeUiPrompt = undefined;
		emitUiPrompt({ type: "ui_prompt_end", reason: "ui_prompt", kind: prompt.kind, ...(prompt.title ? { title: prompt.title } : {}) });
	};
	return run().finally(finish);
}

const cancelled = (response) => response.cancelled === true;
const valueOf = (response) => (cancelled(response) ? undefined : "value" in response ? response.value : undefined);

const ui = {
	select(title, options, opts) {
		return withUiPrompt("select", title, () =>
			dialog({ method: "select", title, options, timeout: opts?.timeout }, opts, undefined, valueOf),
		);
	},
	confirm(title, message, opts) {
		return withUiPrompt("confirm", title, () =>
			dialog({ method: "confirm", title, message, timeout: opts?.timeout }, opts, false, (r) =>
				cancelled(r) ? false : "confirmed" in r ? r.confirmed : false,
			),
		);
	},
	input(title, placeholder, opts) {
		return withUiPrompt("input", title, () =>
			dialog({ method: "input", title, placeholder, timeout: opts?.timeout }, opts, undefined, valueOf),
		);
	},
	// As in pi's RPC mode, the editor takes no options: no timeout, it waits for an answer.
	editor(title, prefill) {
		return withUiPrompt("editor", title, () =>
			dialog({ method: "editor", title, prefill }, undefined, undefined, valueOf),
		);
	},
	notify(message, type) {
		uiRequest({ method: "notify", message, notifyType: type });
	},
	setStatus(key, text) {
		uiRequest({ method: "setStatus", statusKey: key, statusText: text });
	},
	setWidget(key, content, options) {
		// Only lines of text can cross the protocol; component factories are ignored.
		if (content === undefined || Array.isArray(content)) {
			uiRequest({
				method: "setWidget",
				widgetKey: key,
				widgetLines: content,
				widgetPlacement: options?.placement,
			});
		}
	},
	setTitle(title) {
		uiRequest({ method: "setTitle", title });
	},
	setEditorText(text) {
		uiRequest({ method: "set_editor_text", text });
	},
	pasteToEditor(text) {
		this.setEditorText(text);
	},
	getEditorText() {
		return "";
	},
	async custom() {
		return undefined;
	},
	onTerminalInput() {
		return () => {};
	},
	setWorkingMessage() {},
	setWorkingVisible() {},
	setWorkingIndicator() {},
	setHiddenThinkingLabel() {},
	setFooter() {},
	setHeader() {},
	addAutocompleteProvider() {},
	setEditorComponent() {},
	getEditorComponent() {
		return undefined;
	},
	getToolsExpanded() {
		return false;
	},
	setToolsExpanded() {},
	// pi's current theme, as in pi's RPC mode: no other theme to list, get or switch to.
	theme: uiTheme,
	getAllThemes() {
		return [];
	},
	getTheme() {
		return undefined;
	},
	setTheme() {
		return { success: false, error: "Theme switching not supported in RPC mode" };
	},
};

/**
 * `ctx.ui` in print and JSON modes, where no client can answer: nothing crosses to stdout, and
 * every dialog gives its default at once (`confirm` false, the others undefined).
 */
const silentUi = {
	...ui,
	async select() {
		return undefined;
	},
	async confirm() {
		return false;
	},
	async input() {
		return undefined;
	},
	async editor() {
		return undefined;
	},
	notify() {},
	setStatus() {},
	setWidget() {},
	setTitle() {},
	setEditorText() {},
	pasteToEditor() {},
	setTheme() {
		return { success: false, error: "UI not available" };
	},
};
