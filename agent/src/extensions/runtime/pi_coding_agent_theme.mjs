// pi's colour themes: the Theme class (fg/bg colours by token name, bold/italic/...), the
// built-in dark and light themes plus custom ones from <agentDir>/themes, the process-wide
// current theme, and the Markdown/select/settings themes built from it.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { getCapabilities } from "./pi_tui_image.mjs";
import { BUILTIN_THEMES } from "./pi_coding_agent_themes.mjs";
import { textStyles } from "./pi_coding_agent_styles.mjs";

function hexToRgb(hex) {
	const clean = hex.replace("#", "");
	if (clean.length !== 6) throw new Error(`Invalid hex color: ${hex}`);
	const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(clean.substring(i, i + 2), 16));
	if ([r, g, b].some(Number.isNaN)) throw new Error(`Invalid hex color: ${hex}`);
	return { r, g, b };
}

// Nearest xterm-256 colour: the 6x6x6 cube, or the grey ramp for nearly neutral colours.
const CUBE = [0, 95, 135, 175, 215, 255];
const GREYS = Array.from({ length: 24 }, (_, i) => 8 + i * 10);
const nearest = (values, v) => values.reduce((best, x, i) => (Math.abs(v - x) < Math.abs(v - values[best]) ? i : best), 0);
const distance = (r1, g1, b1, r2, g2, b2) => (r1 - r2) ** 2 * 0.299 + (g1 - g2) ** 2 * 0.587 + (b1 - b2) ** 2 * 0.114;

function rgbTo256(r, g, b) {
	const [ri, gi, bi] = [r, g, b].map((v) => nearest(CUBE, v));
	const cubeDistance = distance(r, g, b, CUBE[ri], CUBE[gi], CUBE[bi]);
	const grey = nearest(GREYS, Math.round(0.299 * r + 0.587 * g + 0.114 * b));
	const greyDistance = distance(r, g, b, GREYS[grey], GREYS[grey], GREYS[grey]);
	if (Math.max(r, g, b) - Math.min(r, g, b) < 10 && greyDistance < cubeDistance) return 232 + grey;
	return 16 + 36 * ri + 6 * gi + bi;
}

function colourCode(color, mode, layer) {
	const [reset, base] = layer === "fg" ? ["\x1b[39m", 38] : ["\x1b[49m", 48];
	if (color === "") return reset;
	if (typeof color === "number") return `\x1b[${base};5;${color}m`;
	if (color.startsWith("#")) {
		const { r, g, b } = hexToRgb(color);
		return mode === "truecolor" ? `\x1b[${base};2;${r};${g};${b}m` : `\x1b[${base};5;${rgbTo256(r, g, b)}m`;
	}
	throw new Error(`Invalid color value: ${color}`);
}

function resolveVar(value, vars, seen = new Set()) {
	if (typeof value === "number" || value === "" || value.startsWith("#")) return value;
	if (seen.has(value)) throw new Error(`Circular variable reference detected: ${value}`);
	if (!(value in vars)) throw new Error(`Variable reference not found: ${value}`);
	seen.add(value);
	return resolveVar(vars[value], vars, seen);
}

const BACKGROUND_TOKENS = new Set(["selectedBg", "scrollbarThumb", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg"]);
const THINKING_TOKENS = { off: "thinkingOff", minimal: "thinkingMinimal", low: "thinkingLow", medium: "thinkingMedium", high: "thinkingHigh", xhigh: "thinkingXhigh", max: "thinkingMax" };

export class Theme {
	constructor(fgColors, bgColors, mode, options = {}) {
		this.name = options.name;
		this.sourcePath = options.sourcePath;
		this.sourceInfo = options.sourceInfo;
		this.mode = mode;
		this.fgColors = new Map();
		for (const [key, value] of Object.entries({ ...fgColors, thinkingMax: fgColors.thinkingMax ?? fgColors.thinkingXhigh })) this.fgColors.set(key, colourCode(value, mode, "fg"));
		this.bgColors = new Map();
		for (const [key, value] of Object.entries({ ...bgColors, scrollbarThumb: bgColors.scrollbarThumb ?? bgColors.selectedBg })) this.bgColors.set(key, colourCode(value, mode, "bg"));
	}

	fg(color, text) {
		return `${this.getFgAnsi(color)}${text}\x1b[39m`;
	}

	bg(color, text) {
		return `${this.getBgAnsi(color)}${text}\x1b[49m`;
	}

	bold(text) {
		return textStyles.bold(text);
	}

	italic(text) {
		return textStyles.italic(text);
	}

	underline(text) {
		return textStyles.underline(text);
	}

	inverse(text) {
		return textStyles.inverse(text);
	}

	strikethrough(text) {
		return textStyles.strikethrough(text);
	}

	getFgAnsi(color) {
		const ansi = this.fgColors.get(color);
		if (!ansi) throw new Error(`Unknown theme color: ${color}`);
		return ansi;
	}

	getBgAnsi(color) {
		const ansi = this.bgColors.get(color);
		if (!ansi) throw new Error(`Unknown theme background color: ${color}`);
		return ansi;
	}

	getColorMode() {
		return this.mode;
	}

	getThinkingBorderColor(level) {
		const token = THINKING_TOKENS[level] ?? "thinkingOff";
		return (str) => this.fg(token, str);
	}

	getBashModeBorderColor() {
		return (str) => this.fg("bashMode", str);
	}
}

function agentDir() {
	const host = globalThis[Symbol.for("pi-agent.host")];
	return host?.agentDir ?? process.env.PI_CODING_AGENT_DIR ?? join(homedir(), ".pi", "agent");
}

function createTheme(json, mode, sourcePath) {
	const colorMode = mode ?? (getCapabilities().trueColor ? "truecolor" : "256color");
	const colors = { ...json.colors, thinkingMax: json.colors.thinkingMax ?? json.colors.thinkingXhigh, scrollbarThumb: json.colors.scrollbarThumb ?? json.colors.selectedBg };
	const fg = {};
	const bg = {};
	for (const [key, value] of Object.entries(colors)) (BACKGROUND_TOKENS.has(key) ? bg : fg)[key] = resolveVar(value, json.vars ?? {});
	return new Theme(fg, bg, colorMode, { name: json.name, sourcePath });
}

const REQUIRED_TOKENS = Object.keys(BUILTIN_THEMES.dark.colors).filter((k) => k !== "scrollbarThumb" && k !== "thinkingMax");

function parseThemeFile(path) {
	let json;
	try {
		json = JSON.parse(readFileSync(path, "utf-8"));
	} catch (error) {
		throw new Error(`Failed to parse theme ${path}: ${error}`);
	}
	const missing = REQUIRED_TOKENS.filter((k) => !(k in (json?.colors ?? {})));
	if (typeof json?.name !== "string" || missing.length > 0) {
		throw new Error(`Invalid theme "${path}":\n\nMissing required color tokens:\n${missing.sort().map((c) => `  - ${c}`).join("\n")}`);
	}
	if (json.name.includes("/")) throw new Error(`Invalid theme name "${json.name}": theme names cannot contain "/" because it is reserved for automatic light/dark theme settings.`);
	return json;
}

/** A theme loaded from a theme JSON file. */
export function loadThemeFromPath(themePath, mode) {
	return createTheme(parseThemeFile(themePath), mode, themePath);
}

function loadTheme(name, mode) {
	if (BUILTIN_THEMES[name]) return createTheme(BUILTIN_THEMES[name], mode);
	const path = join(agentDir(), "themes", `${name}.json`);
	if (!existsSync(path)) throw new Error(`Theme not found: ${name}`);
	return createTheme(parseThemeFile(path), mode);
}

// A light terminal background (COLORFGBG) picks the light theme.
function defaultThemeName() {
	const parts = (process.env.COLORFGBG || "").split(";");
	for (let i = parts.length - 1; i >= 0; i--) {
		const bg = Number.parseInt(parts[i].trim(), 10);
		if (Number.isInteger(bg) && bg >= 0 && bg <= 255) return ansiLuminance(bg) >= 0.5 ? "light" : "dark";
	}
	return "dark";
}

const BASIC_16 = ["000000", "800000", "008000", "808000", "000080", "800080", "008080", "c0c0c0", "808080", "ff0000", "00ff00", "ffff00", "0000ff", "ff00ff", "00ffff", "ffffff"];
function ansiLuminance(index) {
	let rgb;
	if (index < 16) rgb = hexToRgb(BASIC_16[index]);
	else if (index < 232) {
		const c = index - 16;
		const level = (n) => (n === 0 ? 0 : 55 + n * 40);
		rgb = { r: level(Math.floor(c / 36)), g: level(Math.floor((c % 36) / 6)), b: level(c % 6) };
	} else {
		const grey = 8 + (index - 232) * 10;
		rgb = { r: grey, g: grey, b: grey };
	}
	const linear = (v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
	return 0.2126 * linear(rgb.r) + 0.7152 * linear(rgb.g) + 0.0722 * linear(rgb.b);
}

const THEME_KEYS = [Symbol.for("@earendil-works/pi-coding-agent:theme"), Symbol.for("@mariozechner/pi-coding-agent:theme")];
const setCurrent = (t) => {
	for (const key of THEME_KEYS) globalThis[key] = t;
};

/** Load the named theme (or the default for the terminal) as the current theme; bad names fall back to dark. */
export function initTheme(themeName, _enableWatcher = false) {
	try {
		setCurrent(loadTheme(themeName ?? defaultThemeName()));
	} catch {
		setCurrent(loadTheme("dark"));
	}
}

// The theme setting pi would start with: project .pi/settings.json over the global one.
function settingsTheme() {
	const host = globalThis[Symbol.for("pi-agent.host")];
	let name;
	for (const file of [join(agentDir(), "settings.json"), join(host?.cwd ?? process.cwd(), ".pi", "settings.json")]) {
		try {
			const value = JSON.parse(readFileSync(file, "utf-8")).theme;
			if (typeof value === "string") name = value;
		} catch {
			// no such settings
		}
	}
	if (name?.includes("/")) {
		// "light/dark" pairs follow the terminal background.
		const [light, dark] = name.split("/").map((s) => s.trim());
		name = defaultThemeName() === "light" ? light : dark;
	}
	return name;
}

/** The current theme; pi initialises it at start-up, pi-agent on first use from the settings. */
export function currentTheme() {
	if (!globalThis[THEME_KEYS[0]]) initTheme(settingsTheme());
	return globalThis[THEME_KEYS[0]];
}

/** The current theme as an object whose properties are always read from the live theme. */
export const theme = new Proxy({}, { get: (_target, prop) => currentTheme()[prop] });
