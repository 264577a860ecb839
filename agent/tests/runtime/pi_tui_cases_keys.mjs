// Keyboard cases: Key, matchesKey over a grid of inputs and key ids, parseKey, event types,
// Kitty printable decoding, keybindings.
const E = "\x1b";

export const KEY_INPUTS = [
	"a", "A", "z", "0", "9", " ", "/", "-", "_", "[", "]", "\\", "?", "é", "😀",
	"\r", "\n", "\t", "\x7f", "\b", "\0", "\x01", "\x03", "\x04", "\x17", "\x1a", "\x1c", "\x1d", "\x1f",
	E, `${E}${E}`, `${E}a`, `${E}A`, `${E}1`, `${E}/`, `${E}\r`, `${E} `, `${E}\x7f`, `${E}\b`, `${E}\x01`, `${E}\x1c`,
	`${E}b`, `${E}f`, `${E}p`, `${E}n`, `${E}B`, `${E}F`,
	`${E}[A`, `${E}[B`, `${E}[C`, `${E}[D`, `${E}OA`, `${E}OD`, `${E}[H`, `${E}[F`, `${E}OH`, `${E}OF`, `${E}[1~`, `${E}[4~`, `${E}[7~`, `${E}[8~`,
	`${E}[2~`, `${E}[3~`, `${E}[5~`, `${E}[6~`, `${E}[[5~`, `${E}[E`, `${E}OE`, `${E}Oe`, `${E}[e`, `${E}OM`, `${E}[Z`,
	`${E}[a`, `${E}Oa`, `${E}Oc`, `${E}[5$`, `${E}[7^`, `${E}[3$`, `${E}[2^`,
	`${E}OP`, `${E}[11~`, `${E}[[A`, `${E}[15~`, `${E}[17~`, `${E}[24~`,
	`${E}[1;2A`, `${E}[1;3D`, `${E}[1;5C`, `${E}[1;5D`, `${E}[1;3C`, `${E}[1;6A`, `${E}[1;2H`, `${E}[1;5F`, `${E}[3;5~`, `${E}[5;3~`,
	`${E}[97u`, `${E}[97;5u`, `${E}[97;3u`, `${E}[97;2u`, `${E}[65;2u`, `${E}[97;9u`, `${E}[97;7u`, `${E}[97;6u`, `${E}[97;69u`,
	`${E}[13u`, `${E}[13;2u`, `${E}[13;3u`, `${E}[13;5u`, `${E}[57414u`, `${E}[57414;2u`, `${E}[27u`, `${E}[27;1:3u`, `${E}[9;2u`, `${E}[9u`,
	`${E}[32;5u`, `${E}[127u`, `${E}[127;5u`, `${E}[127;3u`, `${E}[99;5:2u`, `${E}[99;5:3u`, `${E}[1089::99;5u`, `${E}[1089;5u`,
	`${E}[107::118;5u`, `${E}[47::91;5u`, `${E}[57399u`, `${E}[57417;5u`, `${E}[57426u`, `${E}[97:65;2u`, `${E}[1;1:3A`, `${E}[3;1:2~`,
	`${E}[27;5;97~`, `${E}[27;2;13~`, `${E}[27;3;13~`, `${E}[27;5;13~`, `${E}[27;2;65~`, `${E}[27;6;97~`, `${E}[27;1;27~`, `${E}[27;5;127~`,
	`${E}[200~paste:3u${E}[201~`, "abc", "", `${E}[<0;10;5M`,
];

export const KEY_IDS = [
	"a", "z", "0", "9", "/", "-", "_", "[", "]", "\\", "?", "space", "tab", "enter", "return", "escape", "esc", "backspace",
	"delete", "insert", "home", "end", "pageUp", "pageDown", "up", "down", "left", "right", "clear", "f1", "f2", "f4", "f5", "f6", "f12",
	"ctrl+a", "ctrl+c", "ctrl+d", "ctrl+w", "ctrl+z", "ctrl+space", "ctrl+[", "ctrl+\\", "ctrl+]", "ctrl+-", "ctrl+_", "ctrl+/",
	"shift+a", "shift+tab", "shift+enter", "shift+up", "shift+home", "shift+delete", "shift+pageUp", "shift+clear", "shift+space",
	"alt+a", "alt+1", "alt+/", "alt+enter", "alt+space", "alt+backspace", "alt+left", "alt+right", "alt+up", "alt+down", "alt+b",
	"ctrl+left", "ctrl+right", "ctrl+up", "ctrl+home", "ctrl+delete", "ctrl+insert", "ctrl+pageDown", "ctrl+clear", "ctrl+enter",
	"ctrl+backspace", "ctrl+alt+a", "ctrl+alt+\\", "ctrl+alt+]", "ctrl+shift+a", "shift+ctrl+p", "ctrl+shift+up", "ctrl+alt+enter",
	"super+a", "super+k", "ctrl+super+k", "shift+alt+a", "ctrl+shift+alt+a", "ctrl+c+", "", "ctrl+f1", "unknownkey", "ctrl+k", "ctrl+v",
];

export function keyCases(tui) {
	const { Key, matchesKey, parseKey, isKeyRelease, isKeyRepeat, decodeKittyPrintable, setKittyProtocolActive, isKittyProtocolActive } = tui;
	const cases = [];
	cases.push([
		"Key",
		() => Object.fromEntries(Object.entries(Key).map(([k, v]) => [k, typeof v === "function" ? `fn:${v.name}:${v("x")}` : v])),
	]);
	// One string of 0/1 per input (a character per key id), with Kitty off and on.
	const grid = () => KEY_INPUTS.map((data) => KEY_IDS.map((id) => (matchesKey(data, id) ? "1" : "0")).join(""));
	const withKitty = (active, fn) => () => {
		setKittyProtocolActive(active);
		try {
			return fn();
		} finally {
			setKittyProtocolActive(false);
		}
	};
	cases.push(["matchesKey.grid.legacy", withKitty(false, grid)]);
	cases.push(["matchesKey.grid.kitty", withKitty(true, grid)]);
	cases.push(["isKittyProtocolActive", withKitty(true, () => [isKittyProtocolActive()])]);
	cases.push(["parseKey.legacy", withKitty(false, () => KEY_INPUTS.map((d) => parseKey(d) ?? null))]);
	cases.push(["parseKey.kitty", withKitty(true, () => KEY_INPUTS.map((d) => parseKey(d) ?? null))]);
	cases.push(["isKeyRelease", () => KEY_INPUTS.map((d) => isKeyRelease(d))]);
	cases.push(["isKeyRepeat", () => KEY_INPUTS.map((d) => isKeyRepeat(d))]);
	cases.push(["decodeKittyPrintable", () => KEY_INPUTS.map((d) => decodeKittyPrintable(d) ?? null)]);
	cases.push([
		"Key.helpers.match",
		() => [
			matchesKey("\x03", Key.ctrl("c")),
			matchesKey(`${E}[112;6u`, Key.ctrlShift("p")),
			matchesKey(`${E}[112;6u`, Key.shiftCtrl("p")),
			matchesKey(`${E}[107;9u`, Key.super("k")),
			matchesKey(`${E}[Z`, Key.shift(Key.tab)),
			matchesKey("\r", Key.enter),
		],
	]);
	cases.push(["TUI_KEYBINDINGS", () => tui.TUI_KEYBINDINGS]);
	cases.push([
		"KeybindingsManager",
		() => {
			const kb = new tui.KeybindingsManager(tui.TUI_KEYBINDINGS, {
				"tui.select.up": ["k", "up", "k"],
				"tui.select.down": "j",
				"tui.select.confirm": "k",
				"not.a.binding": "k",
			});
			return {
				upKeys: kb.getKeys("tui.select.up"),
				downKeys: kb.getKeys("tui.select.down"),
				missing: kb.getKeys("nope"),
				matchesK: kb.matches("k", "tui.select.up"),
				matchesDown: kb.matches(`${E}[B`, "tui.select.down"),
				conflicts: kb.getConflicts(),
				def: kb.getDefinition("tui.editor.undo"),
				resolved: kb.getResolvedBindings(),
				user: kb.getUserBindings(),
			};
		},
	]);
	cases.push([
		"getKeybindings.default",
		() => {
			const kb = tui.getKeybindings();
			return [kb.getKeys("tui.select.cancel"), kb.matches("\x03", "tui.select.cancel"), kb.matches("\x1b", "tui.input.submit")];
		},
	]);
	return cases;
}
