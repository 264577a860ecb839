// pi-coding-agent's components that extensions build: borders, the bordered loader, the
// custom editor base class, message boxes, key hints and diff rendering.
import { Box, CancellableLoader, Container, Loader, Spacer, Text } from "./pi_tui_components.mjs";
import { Editor } from "./pi_tui_editor.mjs";
import { getKeybindings } from "./pi_tui_keybindings.mjs";
import { Markdown } from "./pi_tui_markdown.mjs";
import { getMarkdownTheme } from "./pi_coding_agent_tui_themes.mjs";
import { theme } from "./pi_coding_agent_theme.mjs";

/** A full-width horizontal rule in the given colour (the theme's border colour by default). */
export class DynamicBorder {
	constructor(color = (str) => theme.fg("border", str)) {
		this.color = color;
	}

	invalidate() {}

	render(width) {
		return [this.color("─".repeat(Math.max(1, width)))];
	}
}

// "alt" reads "option" on macOS; `capitalize` upper-cases each part's first letter.
function formatKeyText(key, options = {}) {
	const part = (p) => {
		const shown = process.platform === "darwin" && p.toLowerCase() === "alt" ? "option" : p;
		return options.capitalize ? shown.charAt(0).toUpperCase() + shown.slice(1) : shown;
	};
	return key
		.split("/")
		.map((k) => k.split("+").map(part).join("+"))
		.join("/");
}

/** The keys bound to a keybinding id, as "ctrl+c/escape". */
export function keyText(keybinding) {
	const keys = getKeybindings().getKeys(keybinding);
	return keys.length === 0 ? "" : formatKeyText(keys.join("/"));
}

/** A dim key and muted description, for hint lines. */
export function keyHint(keybinding, description) {
	return theme.fg("dim", keyText(keybinding)) + theme.fg("muted", ` ${description}`);
}

/** Like keyHint, for a key written out ("ctrl+x"). */
export function rawKeyHint(key, description) {
	return theme.fg("dim", formatKeyText(key)) + theme.fg("muted", ` ${description}`);
}

/** A loader between two borders, cancellable with Escape unless `cancellable: false`. */
export class BorderedLoader extends Container {
	constructor(tui, loaderTheme, message, options) {
		super();
		this.cancellable = options?.cancellable ?? true;
		const border = (s) => loaderTheme.fg("border", s);
		const accent = (s) => loaderTheme.fg("accent", s);
		const muted = (s) => loaderTheme.fg("muted", s);
		this.addChild(new DynamicBorder(border));
		if (this.cancellable) {
			this.loader = new CancellableLoader(tui, accent, muted, message);
		} else {
			this.signalController = new AbortController();
			this.loader = new Loader(tui, accent, muted, message);
		}
		this.addChild(this.loader);
		if (this.cancellable) {
			this.addChild(new Spacer(1));
			this.addChild(new Text(keyHint("tui.select.cancel", "cancel"), 1, 0));
		}
		this.addChild(new Spacer(1));
		this.addChild(new DynamicBorder(border));
	}

	get signal() {
		if (this.cancellable) return this.loader.signal;
		return this.signalController?.signal ?? new AbortController().signal;
	}

	set onAbort(fn) {
		if (this.cancellable) this.loader.onAbort = fn;
	}

	handleInput(data) {
		if (this.cancellable) this.loader.handleInput(data);
	}

	dispose() {
		if (typeof this.loader.dispose === "function") this.loader.dispose();
		else this.loader.stop?.();
	}
}

/** The editor pi uses for the prompt: app keybindings first, then the Editor's own. */
export class CustomEditor extends Editor {
	actionHandlers = new Map();
	onEscape;
	onCtrlD;
	onPasteImage;
	/** Extension shortcuts; returns true when it handled the input. */
	onExtensionShortcut;

	constructor(tui, editorTheme, keybindings, options) {
		super(tui, editorTheme, options);
		this.keybindings = keybindings;
	}

	onAction(action, handler) {
		this.actionHandlers.set(action, handler);
	}

	handleInput(data) {
		const kb = this.keybindings;
		if (this.onExtensionShortcut?.(data)) return;
		if (kb.matches(data, "app.clipboard.pasteImage")) {
			this.onPasteImage?.();
			return;
		}
		if (kb.matches(data, "app.interrupt")) {
			// Escape closes autocomplete first; otherwise it interrupts.
			const handler = this.isShowingAutocomplete() ? undefined : (this.onEscape ?? this.actionHandlers.get("app.interrupt"));
			if (handler) return void handler();
			return void super.handleInput(data);
		}
		if (kb.matches(data, "app.exit") && this.getText().length === 0) {
			const handler = this.onCtrlD ?? this.actionHandlers.get("app.exit");
			if (handler) handler();
			return;
		}
		if (kb.matches(data, "tui.editor.historyPrevious") || kb.matches(data, "tui.editor.historyNext")) return void super.handleInput(data);
		for (const [action, handler] of this.actionHandlers) {
			if (action !== "app.interrupt" && action !== "app.exit" && kb.matches(data, action)) return void handler();
		}
		super.handleInput(data);
	}
}

/** The last `maxVisualLines` lines of `text` as wrapped at `width`, and how many were cut. */
export function truncateToVisualLines(text, maxVisualLines, width, paddingX = 0) {
	if (!text) return { visualLines: [], skippedCount: 0 };
	const all = new Text(text, paddingX, 0).render(width);
	if (all.length <= maxVisualLines) return { visualLines: all, skippedCount: 0 };
	return { visualLines: all.slice(-maxVisualLines), skippedCount: all.length - maxVisualLines };
}

const OSC133_START = "\x1b]133;A\x07";
const OSC133_END = "\x1b]133;B\x07\x1b]133;C\x07";

function applyTransformers(markdown, context, transformers) {
	let out = markdown;
	for (const transform of transformers) {
		try {
			const next = transform(out, context);
			if (typeof next === "string") out = next;
		} catch {
			// keep the Markdown as it was
		}
	}
	return out;
}

/** A user prompt on the user-message background, marked as a prompt zone (OSC 133). */
export class UserMessageComponent extends Container {
	constructor(text, markdownTheme = getMarkdownTheme(), outputPad = 1, markdownTransformers = []) {
		super();
		this.text = text;
		this.markdownTheme = markdownTheme;
		this.outputPad = outputPad;
		this.markdownTransformers = markdownTransformers;
		this.rebuild();
	}

	setOutputPad(padding) {
		this.outputPad = padding;
		this.rebuild();
	}

	rebuild() {
		this.clear();
		const box = new Box(this.outputPad, 1, (c) => theme.bg("userMessageBg", c));
		const transform = (markdown, availableWidth) => applyTransformers(markdown, { messageType: "user", isStreaming: false, availableWidth }, this.markdownTransformers);
		box.addChild(new Markdown(this.text, 0, 0, this.markdownTheme, { color: (c) => theme.fg("userMessageText", c) }, { preserveOrderedListMarkers: true, preserveBackslashEscapes: true, transform }));
		this.addChild(box);
	}

	render(width) {
		const lines = super.render(width);
		if (lines.length === 0) return lines;
		lines[0] = OSC133_START + lines[0];
		lines[lines.length - 1] = OSC133_END + lines[lines.length - 1];
		return lines;
	}
}

const label = (name) => theme.fg("customMessageLabel", `\x1b[1m[${name}]\x1b[22m`);
const messageText = (text) => theme.fg("customMessageText", text);
const markdownIn = (text, markdownTheme) => new Markdown(text, 0, 0, markdownTheme, { color: messageText });

/** An extension's custom message: its renderer's component, or a labelled Markdown box. */
export class CustomMessageComponent extends Container {
	_expanded = false;

	constructor(message, customRenderer, markdownTheme = getMarkdownTheme(), outputPad = 1) {
		super();
		this.message = message;
		this.customRenderer = customRenderer;
		this.markdownTheme = markdownTheme;
		this.outputPad = outputPad;
		this.addChild(new Spacer(1));
		this.box = new Box(1, 1, (t) => theme.bg("customMessageBg", t));
		this.rebuild();
	}

	setExpanded(expanded) {
		if (this._expanded !== expanded) {
			this._expanded = expanded;
			this.rebuild();
		}
	}

	setOutputPad(outputPad) {
		if (this.outputPad !== outputPad) {
			this.outputPad = outputPad;
			this.rebuild();
		}
	}

	invalidate() {
		super.invalidate();
		this.rebuild();
	}

	rebuild() {
		if (this.customComponent) {
			this.removeChild(this.customComponent);
			this.customComponent = undefined;
		}
		this.removeChild(this.box);
		if (this.customRenderer) {
			try {
				const component = this.customRenderer(this.message, { expanded: this._expanded, outputPad: this.outputPad }, theme);
				if (component) {
					this.customComponent = component;
					this.addChild(component);
					return;
				}
			} catch {
				// fall back to the default box
			}
		}
		this.addChild(this.box);
		this.box.clear();
		this.box.addChild(new Text(label(this.message.customType), 0, 0));
		this.box.addChild(new Spacer(1));
		const content = this.message.content;
		const text = typeof content === "string" ? content : content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
		this.box.addChild(markdownIn(text, this.markdownTheme));
	}
}

// A collapsible summary box: a label, then the Markdown body or a one-line "expand" hint.
class SummaryBox extends Box {
	expanded = false;

	constructor(markdownTheme) {
		super(1, 1, (t) => theme.bg("customMessageBg", t));
		this.markdownTheme = markdownTheme;
	}

	setExpanded(expanded) {
		this.expanded = expanded;
		this.updateDisplay();
	}

	invalidate() {
		super.invalidate();
		this.updateDisplay();
	}

	labelled(name, body, collapsedText) {
		this.clear();
		this.addChild(new Text(label(name), 0, 0));
		this.addChild(new Spacer(1));
		if (this.expanded) this.addChild(markdownIn(body, this.markdownTheme));
		else this.addChild(new Text(messageText(`${collapsedText} (`) + theme.fg("dim", keyText("app.tools.expand")) + messageText(" to expand)"), 0, 0));
	}
}

export class BranchSummaryMessageComponent extends SummaryBox {
	constructor(message, markdownTheme = getMarkdownTheme()) {
		super(markdownTheme);
		this.message = message;
		this.updateDisplay();
	}

	updateDisplay() {
		this.labelled("branch", `**Branch Summary**\n\n${this.message.summary}`, "Branch summary");
	}
}

export class CompactionSummaryMessageComponent extends SummaryBox {
	constructor(message, markdownTheme = getMarkdownTheme()) {
		super(markdownTheme);
		this.message = message;
		this.updateDisplay();
	}

	updateDisplay() {
		const tokens = this.message.tokensBefore.toLocaleString();
		this.labelled("compaction", `**Compacted from ${tokens} tokens**\n\n${this.message.summary}`, `Compacted from ${tokens} tokens`);
	}
}

export class SkillInvocationMessageComponent extends SummaryBox {
	constructor(skillBlock, markdownTheme = getMarkdownTheme()) {
		super(markdownTheme);
		this.skillBlock = skillBlock;
		this.updateDisplay();
	}

	updateDisplay() {
		this.clear();
		if (this.expanded) {
			this.addChild(new Text(label("skill"), 0, 0));
			this.addChild(markdownIn(`**${this.skillBlock.name}**\n\n${this.skillBlock.content}`, this.markdownTheme));
		} else {
			const line = theme.fg("customMessageLabel", "\x1b[1m[skill]\x1b[22m ") + messageText(this.skillBlock.name) + theme.fg("dim", ` (${keyText("app.tools.expand")} to expand)`);
			this.addChild(new Text(line, 0, 0));
		}
	}
}
