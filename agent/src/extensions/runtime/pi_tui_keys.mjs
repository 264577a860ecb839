// Keyboard input: matching raw terminal input against key ids ("ctrl+c", "shift+enter", ...)
// and naming it, for legacy escape sequences, the Kitty keyboard protocol (CSI u) and xterm's
// modifyOtherKeys (CSI 27;mod;key ~).

export { Key } from "./pi_tui_key_names.mjs";

let kittyActive = false;

/** Record whether the Kitty keyboard protocol is on (changes how ambiguous input reads). */
export function setKittyProtocolActive(active) {
	kittyActive = active;
}

export function isKittyProtocolActive() {
	return kittyActive;
}

const SYMBOLS = new Set("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?");
const SHIFT = 1;
const ALT = 2;
const CTRL = 4;
const SUPER = 8;
const LOCKS = 64 + 128; // caps lock, num lock
const ESC = 27;
const TAB = 9;
const ENTER = 13;
const SPACE = 32;
const BACKSPACE = 127;
const KP_ENTER = 57414;
// Negative pseudo code points for keys that have none.
const UP = -1;
const DOWN = -2;
const RIGHT = -3;
const LEFT = -4;
const DELETE = -10;
const INSERT = -11;
const PAGE_UP = -12;
const PAGE_DOWN = -13;
const HOME = -14;
const END = -15;

// Kitty keypad keys and the keys they stand for.
const KEYPAD = new Map([
	...Array.from({ length: 10 }, (_, d) => [57399 + d, 48 + d]),
	[57409, 46],
	[57410, 47],
	[57411, 42],
	[57412, 45],
	[57413, 43],
	[57415, 61],
	[57416, 44],
	[57417, LEFT],
	[57418, RIGHT],
	[57419, UP],
	[57420, DOWN],
	[57421, PAGE_UP],
	[57422, PAGE_DOWN],
	[57423, HOME],
	[57424, END],
	[57425, INSERT],
	[57426, DELETE],
]);
const fromKeypad = (cp) => KEYPAD.get(cp) ?? cp;
// With shift held, an upper-case letter names the same key as its lower case.
const lowerIfShifted = (cp, mod) => ((mod & ~LOCKS & SHIFT) !== 0 && cp >= 65 && cp <= 90 ? cp + 32 : cp);

const E = "\x1b";
const PLAIN_SEQUENCES = {
	up: [`${E}[A`, `${E}OA`],
	down: [`${E}[B`, `${E}OB`],
	right: [`${E}[C`, `${E}OC`],
	left: [`${E}[D`, `${E}OD`],
	home: [`${E}[H`, `${E}OH`, `${E}[1~`, `${E}[7~`],
	end: [`${E}[F`, `${E}OF`, `${E}[4~`, `${E}[8~`],
	insert: [`${E}[2~`],
	delete: [`${E}[3~`],
	pageup: [`${E}[5~`, `${E}[[5~`],
	pagedown: [`${E}[6~`, `${E}[[6~`],
	clear: [`${E}[E`, `${E}OE`],
	f1: [`${E}OP`, `${E}[11~`, `${E}[[A`],
	f2: [`${E}OQ`, `${E}[12~`, `${E}[[B`],
	f3: [`${E}OR`, `${E}[13~`, `${E}[[C`],
	f4: [`${E}OS`, `${E}[14~`, `${E}[[D`],
	f5: [`${E}[15~`, `${E}[[E`],
	f6: [`${E}[17~`],
	f7: [`${E}[18~`],
	f8: [`${E}[19~`],
	f9: [`${E}[20~`],
	f10: [`${E}[21~`],
	f11: [`${E}[23~`],
	f12: [`${E}[24~`],
};
// rxvt-style shift and ctrl variants.
const SHIFT_SEQUENCES = {
	up: [`${E}[a`],
	down: [`${E}[b`],
	right: [`${E}[c`],
	left: [`${E}[d`],
	clear: [`${E}[e`],
	insert: [`${E}[2$`],
	delete: [`${E}[3$`],
	pageup: [`${E}[5$`],
	pagedown: [`${E}[6$`],
	home: [`${E}[7$`],
	end: [`${E}[8$`],
};
const CTRL_SEQUENCES = {
	up: [`${E}Oa`],
	down: [`${E}Ob`],
	right: [`${E}Oc`],
	left: [`${E}Od`],
	clear: [`${E}Oe`],
	insert: [`${E}[2^`],
	delete: [`${E}[3^`],
	pageup: [`${E}[5^`],
	pagedown: [`${E}[6^`],
	home: [`${E}[7^`],
	end: [`${E}[8^`],
};

// Legacy sequences with one fixed name, checked by parseKey before anything ambiguous.
const NAMED_SEQUENCES = new Map([
	[`${E}OA`, "up"],
	[`${E}OB`, "down"],
	[`${E}OC`, "right"],
	[`${E}OD`, "left"],
	[`${E}OH`, "home"],
	[`${E}OF`, "end"],
	[`${E}[E`, "clear"],
	[`${E}OE`, "clear"],
	[`${E}Oe`, "ctrl+clear"],
	[`${E}[e`, "shift+clear"],
	[`${E}[2~`, "insert"],
	[`${E}[2$`, "shift+insert"],
	[`${E}[2^`, "ctrl+insert"],
	[`${E}[3$`, "shift+delete"],
	[`${E}[3^`, "ctrl+delete"],
	[`${E}[[5~`, "pageUp"],
	[`${E}[[6~`, "pageDown"],
	[`${E}[a`, "shift+up"],
	[`${E}[b`, "shift+down"],
	[`${E}[c`, "shift+right"],
	[`${E}[d`, "shift+left"],
	[`${E}Oa`, "ctrl+up"],
	[`${E}Ob`, "ctrl+down"],
	[`${E}Oc`, "ctrl+right"],
	[`${E}Od`, "ctrl+left"],
	[`${E}[5$`, "shift+pageUp"],
	[`${E}[6$`, "shift+pageDown"],
	[`${E}[7$`, "shift+home"],
	[`${E}[8$`, "shift+end"],
	[`${E}[5^`, "ctrl+pageUp"],
	[`${E}[6^`, "ctrl+pageDown"],
	[`${E}[7^`, "ctrl+home"],
	[`${E}[8^`, "ctrl+end"],
	...["P", "Q", "R", "S"].map((c, i) => [`${E}O${c}`, `f${i + 1}`]),
	...["11", "12", "13", "14"].map((n, i) => [`${E}[${n}~`, `f${i + 1}`]),
	...["A", "B", "C", "D", "E"].map((c, i) => [`${E}[[${c}`, `f${i + 1}`]),
	...[15, 17, 18, 19, 20, 21, 23, 24].map((n, i) => [`${E}[${n}~`, `f${i + 5}`]),
	[`${E}b`, "alt+left"],
	[`${E}f`, "alt+right"],
	[`${E}p`, "alt+up"],
	[`${E}n`, "alt+down"],
]);

function modifiedLegacy(data, key, mod) {
	if (mod === SHIFT) return SHIFT_SEQUENCES[key].includes(data);
	if (mod === CTRL) return CTRL_SEQUENCES[key].includes(data);
	return false;
}

// Kitty's flag 2 reports releases and repeats as ":3" / ":2" before the final byte; bracketed
// paste is never one (pasted text may contain such patterns).
function hasEventType(data, type) {
	if (data.includes(`${E}[200~`)) return false;
	return ["u", "~", "A", "B", "C", "D", "H", "F"].some((final) => data.includes(`:${type}${final}`));
}

/** Whether the input is a key release (Kitty protocol flag 2). */
export function isKeyRelease(data) {
	return hasEventType(data, 3);
}

/** Whether the input is a key repeat (Kitty protocol flag 2). */
export function isKeyRepeat(data) {
	return hasEventType(data, 2);
}

const eventTypeOf = (text) => {
	const n = text ? Number.parseInt(text, 10) : 1;
	return n === 2 ? "repeat" : n === 3 ? "release" : "press";
};

const CSI_U = /^\x1b\[(\d+)(?::(\d*))?(?::(\d+))?(?:;(\d+))?(?::(\d+))?u$/;
const CSI_ARROW = /^\x1b\[1;(\d+)(?::(\d+))?([ABCD])$/;
const CSI_TILDE = /^\x1b\[(\d+)(?:;(\d+))?(?::(\d+))?~$/;
const CSI_HOME_END = /^\x1b\[1;(\d+)(?::(\d+))?([HF])$/;
const TILDE_KEYS = { 2: INSERT, 3: DELETE, 5: PAGE_UP, 6: PAGE_DOWN, 7: HOME, 8: END };
const ARROW_FINALS = { A: UP, B: DOWN, C: RIGHT, D: LEFT };

// Kitty-protocol forms: { codepoint, shiftedKey?, baseLayoutKey?, modifier, eventType } or null.
function parseKitty(data) {
	let m = CSI_U.exec(data);
	if (m) {
		return {
			codepoint: Number.parseInt(m[1], 10),
			shiftedKey: m[2] ? Number.parseInt(m[2], 10) : undefined,
			baseLayoutKey: m[3] ? Number.parseInt(m[3], 10) : undefined,
			modifier: (m[4] ? Number.parseInt(m[4], 10) : 1) - 1,
			eventType: eventTypeOf(m[5]),
		};
	}
	m = CSI_ARROW.exec(data);
	if (m) return { codepoint: ARROW_FINALS[m[3]], modifier: Number.parseInt(m[1], 10) - 1, eventType: eventTypeOf(m[2]) };
	m = CSI_TILDE.exec(data);
	if (m && TILDE_KEYS[Number.parseInt(m[1], 10)] !== undefined) {
		return {
			codepoint: TILDE_KEYS[Number.parseInt(m[1], 10)],
			modifier: (m[2] ? Number.parseInt(m[2], 10) : 1) - 1,
			eventType: eventTypeOf(m[3]),
		};
	}
	m = CSI_HOME_END.exec(data);
	if (m) return { codepoint: m[3] === "H" ? HOME : END, modifier: Number.parseInt(m[1], 10) - 1, eventType: eventTypeOf(m[2]) };
	return null;
}

const isLatinLower = (cp) => cp >= 97 && cp <= 122;
const isSymbolCp = (cp) => SYMBOLS.has(String.fromCharCode(cp));

function kittyMatches(data, expectedCp, expectedMod) {
	const parsed = parseKitty(data);
	if (!parsed || (parsed.modifier & ~LOCKS) !== (expectedMod & ~LOCKS)) return false;
	const actual = lowerIfShifted(fromKeypad(parsed.codepoint), parsed.modifier);
	if (actual === lowerIfShifted(fromKeypad(expectedCp), expectedMod)) return true;
	// Non-Latin layouts: the base-layout key decides, unless the reported key is itself a
	// Latin letter or known symbol (remapped layouts must not match by physical position).
	return parsed.baseLayoutKey !== undefined && parsed.baseLayoutKey === expectedCp && !isLatinLower(actual) && !isSymbolCp(actual);
}

function parseModifyOtherKeys(data) {
	const m = /^\x1b\[27;(\d+);(\d+)~$/.exec(data);
	return m ? { codepoint: Number.parseInt(m[2], 10), modifier: Number.parseInt(m[1], 10) - 1 } : null;
}

function mokMatches(data, cp, mod) {
	const parsed = parseModifyOtherKeys(data);
	return !!parsed && parsed.codepoint === cp && parsed.modifier === mod;
}

function printableMokMatches(data, cp, mod) {
	if (mod === 0) return false;
	const parsed = parseModifyOtherKeys(data);
	if (!parsed || parsed.modifier !== mod) return false;
	return lowerIfShifted(parsed.codepoint, parsed.modifier) === lowerIfShifted(cp, mod);
}

const either = (data, cp, mod) => kittyMatches(data, cp, mod) || mokMatches(data, cp, mod);

function inWindowsTerminal() {
	const env = process.env;
	return Boolean(env.WT_SESSION) && !env.SSH_CONNECTION && !env.SSH_CLIENT && !env.SSH_TTY;
}

// Raw BS (0x08) is Ctrl+Backspace in Windows Terminal and plain Backspace elsewhere.
function rawBackspaceMatches(data, mod) {
	if (data === "\x7f") return mod === 0;
	if (data !== "\b") return false;
	return inWindowsTerminal() ? mod === CTRL : mod === 0;
}

function controlCharFor(key) {
	const ch = key.toLowerCase();
	const code = ch.charCodeAt(0);
	if (isLatinLower(code) || ch === "[" || ch === "\\" || ch === "]" || ch === "_") return String.fromCharCode(code & 0x1f);
	if (ch === "-") return "\x1f";
	return null;
}

const NAVIGATION = {
	insert: INSERT,
	delete: DELETE,
	home: HOME,
	end: END,
	pageup: PAGE_UP,
	pagedown: PAGE_DOWN,
};
const ARROWS = { up: UP, down: DOWN, left: LEFT, right: RIGHT };

function matchesArrow(data, key, mod) {
	const cp = ARROWS[key];
	if (mod === ALT) {
		if (key === "up") return data === `${E}p` || kittyMatches(data, cp, ALT);
		if (key === "down") return data === `${E}n` || kittyMatches(data, cp, ALT);
		const [csi, upper, lower] = key === "left" ? ["D", "B", "b"] : ["C", "F", "f"];
		return data === `${E}[1;3${csi}` || (!kittyActive && data === `${E}${upper}`) || data === `${E}${lower}` || kittyMatches(data, cp, ALT);
	}
	if (mod === CTRL && (key === "left" || key === "right")) {
		const csi = key === "left" ? "D" : "C";
		return data === `${E}[1;5${csi}` || modifiedLegacy(data, key, CTRL) || kittyMatches(data, cp, CTRL);
	}
	if (mod === 0) return PLAIN_SEQUENCES[key].includes(data) || kittyMatches(data, cp, 0);
	return modifiedLegacy(data, key, mod) || kittyMatches(data, cp, mod);
}

function matchesEnter(data, mod) {
	const kitty = (m) => kittyMatches(data, ENTER, m) || kittyMatches(data, KP_ENTER, m);
	if (mod === SHIFT) {
		if (kitty(SHIFT) || mokMatches(data, ENTER, SHIFT)) return true;
		// With Kitty on, these are terminal mappings for shift+enter (Kitty, Ghostty).
		return kittyActive && (data === `${E}\r` || data === "\n");
	}
	if (mod === ALT) {
		if (kitty(ALT) || mokMatches(data, ENTER, ALT)) return true;
		return !kittyActive && data === `${E}\r`;
	}
	if (mod === 0) return data === "\r" || (!kittyActive && data === "\n") || data === `${E}OM` || kitty(0);
	return kitty(mod) || mokMatches(data, ENTER, mod);
}

function matchesPrintable(data, key, mod) {
	const cp = key.charCodeAt(0);
	const control = controlCharFor(key);
	const isLetter = key >= "a" && key <= "z";
	if (mod === CTRL + ALT && !kittyActive && control && data === `${E}${control}`) return true;
	if (mod === ALT && !kittyActive && data === `${E}${key}`) return true;
	if (mod === CTRL) {
		if (control && data === control) return true;
	} else if (mod === SHIFT) {
		if (isLetter && data === key.toUpperCase()) return true;
	} else if (mod === 0) {
		return data === key || kittyMatches(data, cp, 0);
	}
	return kittyMatches(data, cp, mod) || printableMokMatches(data, cp, mod);
}

/** Whether raw input `data` is the key `keyId` ("ctrl+c", "shift+tab", Key.escape, ...). */
export function matchesKey(data, keyId) {
	const parts = keyId.toLowerCase().split("+");
	const key = parts[parts.length - 1];
	if (!key) return false;
	let mod = 0;
	if (parts.includes("shift")) mod |= SHIFT;
	if (parts.includes("alt")) mod |= ALT;
	if (parts.includes("ctrl")) mod |= CTRL;
	if (parts.includes("super")) mod |= SUPER;
	switch (key) {
		case "escape":
		case "esc":
			return mod === 0 && (data === E || either(data, ESC, 0));
		case "space":
			if (!kittyActive && ((mod === CTRL && data === "\0") || (mod === ALT && data === `${E} `))) return true;
			return (mod === 0 && data === " ") || either(data, SPACE, mod);
		case "tab":
			if (mod === SHIFT) return data === `${E}[Z` || either(data, TAB, SHIFT);
			if (mod === 0) return data === "\t" || kittyMatches(data, TAB, 0);
			return either(data, TAB, mod);
		case "enter":
		case "return":
			return matchesEnter(data, mod);
		case "backspace":
			if (mod === ALT && (data === `${E}\x7f` || data === `${E}\b`)) return true;
			if ((mod === CTRL || mod === 0) && rawBackspaceMatches(data, mod)) return true;
			return either(data, BACKSPACE, mod);
		case "insert":
		case "delete":
		case "home":
		case "end":
		case "pageup":
		case "pagedown":
			if (mod === 0) return PLAIN_SEQUENCES[key].includes(data) || kittyMatches(data, NAVIGATION[key], 0);
			return modifiedLegacy(data, key, mod) || kittyMatches(data, NAVIGATION[key], mod);
		case "clear":
			return mod === 0 ? PLAIN_SEQUENCES.clear.includes(data) : modifiedLegacy(data, key, mod);
		case "up":
		case "down":
		case "left":
		case "right":
			return matchesArrow(data, key, mod);
	}
	if (/^f(?:[1-9]|1[0-2])$/.test(key)) return mod === 0 && PLAIN_SEQUENCES[key].includes(data);
	if (key.length === 1 && ((key >= "a" && key <= "z") || (key >= "0" && key <= "9") || SYMBOLS.has(key))) {
		return matchesPrintable(data, key, mod);
	}
	return false;
}

const CODEPOINT_NAMES = new Map([
	[ESC, "escape"],
	[TAB, "tab"],
	[ENTER, "enter"],
	[KP_ENTER, "enter"],
	[SPACE, "space"],
	[BACKSPACE, "backspace"],
	[DELETE, "delete"],
	[INSERT, "insert"],
	[HOME, "home"],
	[END, "end"],
	[PAGE_UP, "pageUp"],
	[PAGE_DOWN, "pageDown"],
	[UP, "up"],
	[DOWN, "down"],
	[LEFT, "left"],
	[RIGHT, "right"],
]);

function nameWithModifiers(keyName, modifier) {
	const mod = modifier & ~LOCKS;
	if ((mod & ~(SHIFT | CTRL | ALT | SUPER)) !== 0) return undefined;
	const mods = [];
	if (mod & SHIFT) mods.push("shift");
	if (mod & CTRL) mods.push("ctrl");
	if (mod & ALT) mods.push("alt");
	if (mod & SUPER) mods.push("super");
	return mods.length > 0 ? `${mods.join("+")}+${keyName}` : keyName;
}

function nameParsed(codepoint, modifier, baseLayoutKey) {
	const identity = lowerIfShifted(fromKeypad(codepoint), modifier);
	// The reported key wins for Latin letters, digits and symbols; otherwise (non-Latin
	// layouts) the base-layout key names it.
	const known = isLatinLower(identity) || (identity >= 48 && identity <= 57) || isSymbolCp(identity);
	const cp = known ? identity : (baseLayoutKey ?? identity);
	let name = CODEPOINT_NAMES.get(cp);
	if (!name && ((cp >= 48 && cp <= 57) || isLatinLower(cp) || isSymbolCp(cp))) name = String.fromCharCode(cp);
	return name ? nameWithModifiers(name, modifier) : undefined;
}

// Legacy input that parseKey names after the fixed table, in order (some depend on Kitty).
const LEGACY_NAMES = [
	[E, "escape"],
	["\x1c", "ctrl+\\"],
	["\x1d", "ctrl+]"],
	["\x1f", "ctrl+-"],
	[`${E}${E}`, "ctrl+alt+["],
	[`${E}\x1c`, "ctrl+alt+\\"],
	[`${E}\x1d`, "ctrl+alt+]"],
	[`${E}\x1f`, "ctrl+alt+-"],
	["\t", "tab"],
	["\r", "enter"],
	["\n", "enter", false],
	[`${E}OM`, "enter"],
	["\0", "ctrl+space"],
	[" ", "space"],
	["\x7f", "backspace"],
	["\b", () => (inWindowsTerminal() ? "ctrl+backspace" : "backspace")],
	[`${E}[Z`, "shift+tab"],
	[`${E}\r`, "alt+enter", false],
	[`${E} `, "alt+space", false],
	[`${E}\x7f`, "alt+backspace"],
	[`${E}\b`, "alt+backspace"],
	[`${E}B`, "alt+left", false],
	[`${E}F`, "alt+right", false],
];
const LEGACY_NAMES_LATE = new Map([
	[`${E}[A`, "up"],
	[`${E}[B`, "down"],
	[`${E}[C`, "right"],
	[`${E}[D`, "left"],
	[`${E}[H`, "home"],
	[`${E}[F`, "end"],
	[`${E}[3~`, "delete"],
	[`${E}[5~`, "pageUp"],
	[`${E}[6~`, "pageDown"],
]);

/** The key id for raw input `data` ("ctrl+c", "shift+enter", "a", ...), or undefined. */
export function parseKey(data) {
	const kitty = parseKitty(data);
	if (kitty) return nameParsed(kitty.codepoint, kitty.modifier, kitty.baseLayoutKey);
	const mok = parseModifyOtherKeys(data);
	if (mok) return nameParsed(mok.codepoint, mok.modifier);
	if (kittyActive && (data === `${E}\r` || data === "\n")) return "shift+enter";
	const named = NAMED_SEQUENCES.get(data);
	if (named) return named;
	for (const [input, name, whenKitty] of LEGACY_NAMES) {
		if (data !== input || (whenKitty === false && kittyActive)) continue;
		return typeof name === "function" ? name() : name;
	}
	if (!kittyActive && data.length === 2 && data[0] === E) {
		const code = data.charCodeAt(1);
		if (code >= 1 && code <= 26) return `ctrl+alt+${String.fromCharCode(code + 96)}`;
		if (isLatinLower(code) || (code >= 48 && code <= 57) || SYMBOLS.has(data[1])) return `alt+${data[1]}`;
	}
	const late = LEGACY_NAMES_LATE.get(data);
	if (late) return late;
	if (data.length === 1) {
		const code = data.charCodeAt(0);
		if (code >= 1 && code <= 26) return `ctrl+${String.fromCharCode(code + 96)}`;
		if (code >= 32 && code <= 126) return data;
	}
	return undefined;
}

const toChar = (cp) => {
	try {
		return String.fromCodePoint(cp);
	} catch {
		return undefined;
	}
};

/**
 * The character typed, for a Kitty CSI u sequence of a plain or shifted printable key
 * (terminals send those for every key with the protocol's disambiguate flag); else undefined.
 */
export function decodeKittyPrintable(data) {
	const m = CSI_U.exec(data);
	if (!m) return undefined;
	const codepoint = Number.parseInt(m[1] ?? "", 10);
	if (!Number.isFinite(codepoint)) return undefined;
	const shifted = m[2] ? Number.parseInt(m[2], 10) : undefined;
	const modValue = m[4] ? Number.parseInt(m[4], 10) : 1;
	const mod = Number.isFinite(modValue) ? modValue - 1 : 0;
	if ((mod & ~(SHIFT | LOCKS)) !== 0) return undefined;
	let cp = mod & SHIFT && typeof shifted === "number" ? shifted : codepoint;
	cp = fromKeypad(cp);
	if (!Number.isFinite(cp) || cp < 32) return undefined;
	return toChar(cp);
}

/** The printable character for Kitty or modifyOtherKeys input, if it is one. */
export function decodePrintableKey(data) {
	const kitty = decodeKittyPrintable(data);
	if (kitty !== undefined) return kitty;
	const mok = parseModifyOtherKeys(data);
	if (!mok || ((mok.modifier & ~LOCKS) & ~SHIFT) !== 0) return undefined;
	if (!Number.isFinite(mok.codepoint) || mok.codepoint < 32) return undefined;
	return toChar(mok.codepoint);
}
