// Basic components: each has render(width) -> string[] (lines no wider than width) and
// invalidate(); interactive ones also handleInput(data).
import { applyBackgroundToLine, extractSegments, sliceByColumn, sliceWithWidth, truncateToWidth, wrapTextWithAnsi } from "./pi_tui_ansi.mjs";
import { getKeybindings } from "./pi_tui_keybindings.mjs";
import { visibleWidth } from "./pi_tui_width.mjs";

/** Zero-width APC marker a focused component puts where the hardware cursor belongs. */
export const CURSOR_MARKER = "\x1b_pi:c\x07";

/** Whether the component takes focus (has a `focused` field). */
export function isFocusable(component) {
	return component !== null && "focused" in component;
}

const VIEWPORT_TUI = Symbol.for("@earendil-works/pi-tui/viewport");

/** Whether a TUI is the full-screen (viewport) kind. */
export function isViewportTUI(tui) {
	return tui[VIEWPORT_TUI] === true;
}

const padRight = (line, width) => line + " ".repeat(Math.max(0, width - visibleWidth(line)));

/** Renders its children one after another. */
export class Container {
	children = [];

	addChild(component) {
		this.children.push(component);
	}

	removeChild(component) {
		const at = this.children.indexOf(component);
		if (at !== -1) this.children.splice(at, 1);
	}

	clear() {
		this.children = [];
	}

	invalidate() {
		for (const child of this.children) child.invalidate?.();
	}

	render(width) {
		const lines = [];
		for (const child of this.children) lines.push(...child.render(width));
		return lines;
	}
}

/** Word-wrapped text with padding, optionally on a background. */
export class Text {
	constructor(text = "", paddingX = 1, paddingY = 1, customBgFn) {
		this.text = text;
		this.paddingX = paddingX;
		this.paddingY = paddingY;
		this.customBgFn = customBgFn;
	}

	setText(text) {
		this.text = text;
		this.invalidate();
	}

	setCustomBgFn(customBgFn) {
		this.customBgFn = customBgFn;
		this.invalidate();
	}

	invalidate() {
		this.cachedText = undefined;
		this.cachedWidth = undefined;
		this.cachedLines = undefined;
	}

	render(width) {
		if (this.cachedLines && this.cachedText === this.text && this.cachedWidth === width) return this.cachedLines;
		let lines = [];
		if (this.text && this.text.trim() !== "") {
			const contentWidth = Math.max(1, width - this.paddingX * 2);
			const margin = " ".repeat(this.paddingX);
			const finish = (line) => (this.customBgFn ? applyBackgroundToLine(line, width, this.customBgFn) : padRight(line, width));
			const body = [];
			for (const line of wrapTextWithAnsi(this.text.replace(/\t/g, "   "), contentWidth)) body.push(finish(margin + line + margin));
			const blank = this.customBgFn ? applyBackgroundToLine(" ".repeat(width), width, this.customBgFn) : " ".repeat(width);
			const vertical = Array(this.paddingY).fill(blank);
			lines = [...vertical, ...body, ...vertical];
		}
		this.cachedText = this.text;
		this.cachedWidth = width;
		this.cachedLines = lines;
		return lines;
	}
}

/** Renders its children inside padding, every line filled to the width (optional background). */
export class Box {
	children = [];

	constructor(paddingX = 1, paddingY = 1, bgFn) {
		this.paddingX = paddingX;
		this.paddingY = paddingY;
		this.bgFn = bgFn;
		this.cache = undefined;
	}

	addChild(component) {
		this.children.push(component);
		this.invalidateCache();
	}

	removeChild(component) {
		const at = this.children.indexOf(component);
		if (at !== -1) {
			this.children.splice(at, 1);
			this.invalidateCache();
		}
	}

	clear() {
		this.children = [];
		this.invalidateCache();
	}

	setBgFn(bgFn) {
		// The cache notices a changed background by sampling it on each render.
		this.bgFn = bgFn;
	}

	invalidateCache() {
		this.cache = undefined;
	}

	invalidate() {
		this.invalidateCache();
		for (const child of this.children) child.invalidate?.();
	}

	render(width) {
		if (this.children.length === 0) return [];
		const contentWidth = Math.max(1, width - this.paddingX * 2);
		const indent = " ".repeat(this.paddingX);
		const childLines = [];
		for (const child of this.children) for (const line of child.render(contentWidth)) childLines.push(indent + line);
		if (childLines.length === 0) return [];
		const bgSample = this.bgFn ? this.bgFn("test") : undefined;
		const c = this.cache;
		if (c && c.width === width && c.bgSample === bgSample && c.childLines.length === childLines.length && c.childLines.every((l, i) => l === childLines[i])) {
			return c.lines;
		}
		const fill = (line) => {
			const padded = padRight(line, width);
			return this.bgFn ? applyBackgroundToLine(padded, width, this.bgFn) : padded;
		};
		const vertical = Array.from({ length: this.paddingY }, () => fill(""));
		const lines = [...vertical, ...childLines.map(fill), ...vertical];
		this.cache = { childLines, width, bgSample, lines };
		return lines;
	}
}

/** Empty lines. */
export class Spacer {
	constructor(lines = 1) {
		this.lines = lines;
	}

	setLines(lines) {
		this.lines = lines;
	}

	invalidate() {}

	render(_width) {
		const out = [];
		for (let i = 0; i < this.lines; i++) out.push("");
		return out;
	}
}

/** The first line of its text, cut to fit, padded to the width. */
export class TruncatedText {
	constructor(text, paddingX = 0, paddingY = 0) {
		this.text = text;
		this.paddingX = paddingX;
		this.paddingY = paddingY;
	}

	invalidate() {}

	render(width) {
		const blank = " ".repeat(width);
		const available = Math.max(1, width - this.paddingX * 2);
		const newline = this.text.indexOf("\n");
		const firstLine = newline === -1 ? this.text : this.text.substring(0, newline);
		const margin = " ".repeat(this.paddingX);
		const line = padRight(margin + truncateToWidth(firstLine, available) + margin, width);
		const vertical = Array(this.paddingY).fill(blank);
		return [...vertical, line, ...vertical];
	}
}

const DEFAULT_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const DEFAULT_FRAME_MS = 80;

/** A spinner frame and a message, animated on a timer (asks `ui` to re-render). */
export class Loader extends Text {
	constructor(ui, spinnerColorFn, messageColorFn, message = "Loading...", indicator) {
		super("", 1, 0);
		this.frames = [...DEFAULT_FRAMES];
		this.intervalMs = DEFAULT_FRAME_MS;
		this.currentFrame = 0;
		this.intervalId = null;
		this.renderIndicatorVerbatim = false;
		this.ui = ui;
		this.spinnerColorFn = spinnerColorFn;
		this.messageColorFn = messageColorFn;
		this.message = message;
		this.setIndicator(indicator);
	}

	render(width) {
		return ["", ...super.render(width)];
	}

	start() {
		this.updateDisplay();
		this.restartAnimation();
	}

	stop() {
		if (this.intervalId) {
			clearInterval(this.intervalId);
			this.intervalId = null;
		}
	}

	setMessage(message) {
		this.message = message;
		this.updateDisplay();
	}

	/** Custom frames ({ frames, intervalMs }) are shown as given, without the spinner colour. */
	setIndicator(indicator) {
		this.renderIndicatorVerbatim = indicator !== undefined;
		this.frames = indicator?.frames !== undefined ? [...indicator.frames] : [...DEFAULT_FRAMES];
		this.intervalMs = indicator?.intervalMs && indicator.intervalMs > 0 ? indicator.intervalMs : DEFAULT_FRAME_MS;
		this.currentFrame = 0;
		this.start();
	}

	restartAnimation() {
		this.stop();
		if (this.frames.length <= 1) return;
		this.intervalId = setInterval(() => {
			this.currentFrame = (this.currentFrame + 1) % this.frames.length;
			this.updateDisplay();
		}, this.intervalMs);
	}

	updateDisplay() {
		const frame = this.frames[this.currentFrame] ?? "";
		const shown = this.renderIndicatorVerbatim ? frame : this.spinnerColorFn(frame);
		this.setText(`${frame.length > 0 ? `${shown} ` : ""}${this.messageColorFn(this.message)}`);
		this.ui?.requestRender?.();
	}
}

/** A Loader that Escape (tui.select.cancel) aborts: see `signal` and `onAbort`. */
export class CancellableLoader extends Loader {
	abortController = new AbortController();
	onAbort;

	get signal() {
		return this.abortController.signal;
	}

	get aborted() {
		return this.abortController.signal.aborted;
	}

	handleInput(data) {
		if (getKeybindings().matches(data, "tui.select.cancel")) {
			this.abortController.abort();
			this.onAbort?.();
		}
	}

	dispose() {
		this.stop();
	}
}

// Resets styles and closes any link around an overlay so neither side bleeds into the other.
const SEGMENT_RESET = "\x1b[0m\x1b]8;;\x07";

/** `baseLine` with `overlayLine` drawn over columns [startCol, startCol + overlayWidth). */
export function compositeTuiLine(baseLine, overlayLine, startCol, overlayWidth, totalWidth) {
	if (baseLine.includes("\x1b_G") || baseLine.includes("\x1b]1337;File=")) return baseLine; // image rows
	const afterStart = startCol + overlayWidth;
	const base = extractSegments(baseLine, startCol, afterStart, totalWidth - afterStart, true);
	const overlay = sliceWithWidth(overlayLine, 0, overlayWidth, true);
	const beforeWidth = Math.max(startCol, base.beforeWidth);
	const overlayShown = Math.max(overlayWidth, overlay.width);
	const afterTarget = Math.max(0, totalWidth - beforeWidth - overlayShown);
	const result =
		base.before +
		" ".repeat(Math.max(0, startCol - base.beforeWidth)) +
		SEGMENT_RESET +
		overlay.text +
		" ".repeat(Math.max(0, overlayWidth - overlay.width)) +
		SEGMENT_RESET +
		base.after +
		" ".repeat(Math.max(0, afterTarget - base.afterWidth));
	return visibleWidth(result) <= totalWidth ? result : sliceByColumn(result, 0, totalWidth, true);
}
