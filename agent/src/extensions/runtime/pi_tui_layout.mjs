// Layout containers: HStack and VStack (flex-like sizing with basis, grow, shrink and
// min/max sizes) and ScrollView (one child seen through a scrollable viewport).
import { compositeTuiLine, Container } from "./pi_tui_components.mjs";
import { visibleWidth } from "./pi_tui_width.mjs";

export const LAYOUT_NODE = Symbol.for("@earendil-works/pi-tui/layout-node");

const wholeOr = (value, fallback) => (value === undefined || !Number.isFinite(value) ? fallback : Math.max(0, Math.floor(value)));
const MAX = Number.MAX_SAFE_INTEGER;

class Stack extends Container {
	entries = [];

	constructor(children = [], options = {}) {
		super();
		this.gap = wholeOr(options.gap, 0);
		this.align = options.align ?? "stretch";
		for (const child of children) {
			// Plain components render; entries wrap one with sizing options.
			if ("render" in child) this.addChild(child);
			else this.addChild(child.component, child);
		}
	}

	addChild(component, options = {}) {
		super.addChild(component);
		const entry = { component };
		if (options.basis !== undefined) entry.basis = options.basis;
		if (options.grow !== undefined) entry.grow = wholeOr(options.grow, 0);
		if (options.shrink !== undefined) entry.shrink = wholeOr(options.shrink, 1);
		if (options.minSize !== undefined) entry.minSize = wholeOr(options.minSize, 0);
		if (options.maxSize !== undefined) entry.maxSize = wholeOr(options.maxSize, MAX);
		if (options.visible !== undefined) entry.visible = options.visible;
		this.entries.push(entry);
	}

	removeChild(component) {
		super.removeChild(component);
		const at = this.entries.findIndex((e) => e.component === component);
		if (at !== -1) this.entries.splice(at, 1);
	}

	clear() {
		super.clear();
		this.entries.length = 0;
	}

	[LAYOUT_NODE]() {
		return { type: this.layoutType, entries: this.entries, gap: this.gap, align: this.align };
	}
}

const shownEntries = (entries, viewport) => entries.filter((e) => e.visible?.(viewport) ?? true);

function clampToEntry(size, entry) {
	const min = Math.max(0, Math.floor(entry.minSize ?? 0));
	const max = Math.max(min, Math.floor(entry.maxSize ?? MAX));
	return Math.max(min, Math.min(max, Math.max(0, Math.floor(size))));
}

// Hand out (grow) or take back (shrink) `amount` cells in proportion to each entry's weight.
function distribute(sizes, entries, amount, grow) {
	let remaining = amount;
	const weightOf = (entry, i) => (grow ? (entry.grow ?? 0) : (entry.shrink ?? 1) * Math.max(1, sizes[i]));
	while (remaining > 0) {
		const open = [];
		entries.forEach((entry, i) => {
			const can = grow ? (entry.grow ?? 0) > 0 && sizes[i] < (entry.maxSize ?? MAX) : (entry.shrink ?? 1) > 0 && sizes[i] > (entry.minSize ?? 0);
			if (can) open.push(i);
		});
		if (open.length === 0) return;
		const total = open.reduce((sum, i) => sum + weightOf(entries[i], i), 0);
		let moved = 0;
		for (const i of open) {
			if (remaining <= 0) break;
			const entry = entries[i];
			const proposed = Math.max(1, Math.floor((remaining * weightOf(entry, i)) / total));
			const room = grow ? (entry.maxSize ?? MAX) - sizes[i] : sizes[i] - (entry.minSize ?? 0);
			const delta = Math.min(remaining, proposed, room);
			if (delta <= 0) continue;
			sizes[i] += grow ? delta : -delta;
			remaining -= delta;
			moved += delta;
		}
		if (moved === 0) return;
	}
}

function stackSizes(entries, intrinsic, available, gap) {
	const sizes = entries.map((entry, i) => clampToEntry(entry.basis === undefined || entry.basis === "auto" ? (intrinsic[i] ?? 0) : entry.basis, entry));
	if (available === undefined) return sizes;
	const content = Math.max(0, Math.floor(available) - Math.max(0, entries.length - 1) * gap);
	const total = sizes.reduce((a, b) => a + b, 0);
	if (total < content) distribute(sizes, entries, content - total, true);
	else if (total > content) distribute(sizes, entries, total - content, false);
	return sizes;
}

/** Children side by side; widths from their natural widths and the sizing options. */
export class HStack extends Stack {
	layoutType = "hstack";

	constructor(children = [], options = {}) {
		super(children, options);
	}

	render(width) {
		const total = Math.max(1, width);
		const entries = shownEntries(this.entries, { width: total, height: MAX });
		if (entries.length === 0) return [];
		const natural = entries.map((e) => e.component.render(total).reduce((w, line) => Math.max(w, visibleWidth(line)), 0));
		const widths = stackSizes(entries, natural, total, this.gap);
		const rendered = entries.map((e, i) => (widths[i] === 0 ? [] : e.component.render(widths[i])));
		const height = rendered.reduce((h, lines) => Math.max(h, lines.length), 0);
		const out = Array.from({ length: height }, () => "");
		let x = 0;
		rendered.forEach((lines, i) => {
			let offset = 0;
			if (this.align === "center") offset = Math.floor((height - lines.length) / 2);
			else if (this.align === "end") offset = height - lines.length;
			lines.forEach((line, row) => {
				const y = row + offset;
				if (y >= 0 && y < out.length) out[y] = compositeTuiLine(out[y], line, x, widths[i], total);
			});
			x += widths[i] + this.gap;
		});
		return out;
	}
}

/** Children stacked vertically, with gaps and per-child heights. */
export class VStack extends Stack {
	layoutType = "vstack";

	constructor(children = [], options = {}) {
		super(children, options);
	}

	render(width) {
		const viewport = { width: Math.max(1, width), height: MAX };
		const entries = shownEntries(this.entries, viewport);
		const rendered = entries.map((e) => e.component.render(viewport.width));
		const heights = stackSizes(
			entries,
			rendered.map((l) => l.length),
			undefined,
			this.gap,
		);
		const out = [];
		entries.forEach((_, i) => {
			if (i > 0) for (let g = 0; g < this.gap; g++) out.push("");
			const lines = rendered[i].slice(0, heights[i]);
			out.push(...lines);
			for (let pad = lines.length; pad < heights[i]; pad++) out.push("");
		});
		return out;
	}
}

/** One child in a scrollable viewport (the TUI sets the viewport height). */
export class ScrollView extends Container {
	currentScrollTop = 0;
	contentHeight = 0;
	currentViewportHeight = 0;
	transientScrollbarVisible = false;
	scrollbarActive = false;

	constructor(component, options = {}) {
		super();
		if (options.axis !== undefined && options.axis !== "vertical") throw new Error(`Unsupported ScrollView axis: ${options.axis}`);
		this.child = component;
		this.children.push(component);
		this.followEnd = (options.follow ?? "none") === "end";
		this.followingEnd = this.followEnd;
		this.primary = options.primary ?? false;
		this.overscroll = options.overscroll ?? "chain";
		this.currentScrollbar = options.scrollbar ?? "hidden";
		this.scrollbarStyle = options.scrollbarStyle ?? ((text) => `\x1b[100m${text}\x1b[49m`);
		this.scrollbarHideDelayMs = Math.max(0, Math.floor(options.scrollbarHideDelayMs ?? 1000));
	}

	get scrollTop() {
		return this.currentScrollTop;
	}

	get isFollowingEnd() {
		return this.followingEnd;
	}

	get viewportHeight() {
		return this.currentViewportHeight;
	}

	get scrollbar() {
		return this.currentScrollbar;
	}

	get isScrollbarVisible() {
		if (this.scrollbar === "always") return this.currentViewportHeight > 0;
		return this.scrollbar === "auto" && this.contentHeight > this.currentViewportHeight && this.transientScrollbarVisible;
	}

	get maxScrollTop() {
		return Math.max(0, this.contentHeight - this.currentViewportHeight);
	}

	setScrollbar(scrollbar) {
		if (scrollbar === this.currentScrollbar) return;
		this.currentScrollbar = scrollbar;
		if (scrollbar !== "auto") this.hideTransientScrollbar();
		else if (this.scrollbarActive) this.markScrollbarActivity();
		this.requestRenderCallback?.();
	}

	getContentWidth(width) {
		return this.scrollbar === "always" && width > 1 ? width - 1 : width;
	}

	// An "auto" scrollbar shows while scrolling and hides after a delay.
	markScrollbarActivity() {
		if (this.scrollbar !== "auto" || this.contentHeight <= this.currentViewportHeight) return;
		this.transientScrollbarVisible = true;
		if (this.scrollbarHideTimer) {
			clearTimeout(this.scrollbarHideTimer);
			this.scrollbarHideTimer = undefined;
		}
		if (this.scrollbarActive) return;
		this.scrollbarHideTimer = setTimeout(() => {
			this.scrollbarHideTimer = undefined;
			this.transientScrollbarVisible = false;
			this.requestRenderCallback?.();
		}, this.scrollbarHideDelayMs);
		this.scrollbarHideTimer.unref?.();
	}

	hideTransientScrollbar() {
		this.transientScrollbarVisible = false;
		if (!this.scrollbarHideTimer) return;
		clearTimeout(this.scrollbarHideTimer);
		this.scrollbarHideTimer = undefined;
	}

	setScrollbarActive(active) {
		if (active === this.scrollbarActive) return;
		this.scrollbarActive = active;
		this.markScrollbarActivity();
	}

	scrollTo(scrollTop) {
		const requested = Number.isFinite(scrollTop) ? Math.trunc(scrollTop) : this.currentScrollTop;
		const next = Math.max(0, Math.min(this.maxScrollTop, requested));
		if (next === this.currentScrollTop) return;
		this.currentScrollTop = next;
		this.followingEnd = this.followEnd && next === this.maxScrollTop;
		this.markScrollbarActivity();
		this.requestRenderCallback?.();
	}

	/** Scroll by `lines`; returns the part that could not be scrolled. */
	scrollBy(lines) {
		const requested = Number.isFinite(lines) ? Math.trunc(lines) : 0;
		if (requested === 0) return 0;
		const max = this.maxScrollTop;
		const from = this.followingEnd ? max : this.currentScrollTop;
		const next = Math.max(0, Math.min(max, from + requested));
		this.currentScrollTop = next;
		this.followingEnd = this.followEnd && next === max;
		if (next !== from) {
			this.markScrollbarActivity();
			this.requestRenderCallback?.();
		}
		return requested - (next - from);
	}

	scrollToStart() {
		const follow = this.followEnd && this.contentHeight <= this.currentViewportHeight;
		const changed = this.currentScrollTop !== 0 || this.followingEnd !== follow;
		this.currentScrollTop = 0;
		this.followingEnd = follow;
		if (changed) {
			this.markScrollbarActivity();
			this.requestRenderCallback?.();
		}
	}

	scrollToEnd() {
		const next = this.maxScrollTop;
		const changed = this.currentScrollTop !== next || this.followingEnd !== this.followEnd;
		this.currentScrollTop = next;
		this.followingEnd = this.followEnd;
		if (changed) {
			this.markScrollbarActivity();
			this.requestRenderCallback?.();
		}
	}

	updateLayout(contentHeight, viewportHeight, requestRender) {
		this.contentHeight = Math.max(0, Math.floor(contentHeight));
		this.currentViewportHeight = Math.max(0, Math.floor(viewportHeight));
		this.requestRenderCallback = requestRender;
		const max = this.maxScrollTop;
		this.currentScrollTop = this.followingEnd ? max : Math.max(0, Math.min(this.currentScrollTop, max));
		if (this.followEnd && this.currentScrollTop === max) this.followingEnd = true;
		if (this.contentHeight <= this.currentViewportHeight) this.hideTransientScrollbar();
	}

	addChild(_component) {
		throw new Error("ScrollView has exactly one child");
	}

	removeChild(_component) {
		throw new Error("ScrollView child cannot be removed");
	}

	clear() {
		throw new Error("ScrollView child cannot be cleared");
	}

	render(width) {
		const contentWidth = this.getContentWidth(width);
		const lines = this.child.render(contentWidth);
		return contentWidth === width ? lines : lines.map((line) => `${line} `);
	}

	[LAYOUT_NODE]() {
		return { type: "scroll", component: this.child, state: this };
	}
}
