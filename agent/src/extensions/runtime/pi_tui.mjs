// pi-agent's @earendil-works/pi-tui: what extensions get when they import pi-tui. pi-agent
// has no terminal UI, but extensions build components and use the text helpers (in custom UI
// callbacks, renderers and commands), so those behave as in pi; the terminal classes exist
// for imports to bind and throw when constructed.
export { getOsc8LinkAtColumn, sliceByColumn, truncateToWidth, wrapTextWithAnsi } from "./pi_tui_ansi.mjs";
export { CombinedAutocompleteProvider } from "./pi_tui_autocomplete.mjs";
export { Box, CancellableLoader, Container, CURSOR_MARKER, compositeTuiLine, isFocusable, isViewportTUI, Loader, Spacer, Text, TruncatedText } from "./pi_tui_components.mjs";
export { Editor } from "./pi_tui_editor.mjs";
export {
	allocateImageId,
	calculateImageRows,
	deleteAllKittyImages,
	deleteKittyImage,
	detectCapabilities,
	encodeITerm2,
	encodeKitty,
	getCapabilities,
	getCellDimensions,
	getGifDimensions,
	getImageDimensions,
	getJpegDimensions,
	getPngDimensions,
	getWebpDimensions,
	hyperlink,
	Image,
	imageFallback,
	parseOsc11BackgroundColor,
	parseTerminalColorSchemeReport,
	renderImage,
	resetCapabilitiesCache,
	setCapabilities,
	setCellDimensions,
} from "./pi_tui_image.mjs";
export { Input } from "./pi_tui_input.mjs";
export { fuzzyFilter, fuzzyMatch, getKeybindings, KeybindingsManager, setKeybindings, TUI_KEYBINDINGS } from "./pi_tui_keybindings.mjs";
export { decodeKittyPrintable, isKeyRelease, isKeyRepeat, isKittyProtocolActive, Key, matchesKey, parseKey, setKittyProtocolActive } from "./pi_tui_keys.mjs";
export { renderLatex } from "./pi_tui_latex.mjs";
export { HStack, ScrollView, VStack } from "./pi_tui_layout.mjs";
export { SelectList, SettingsList } from "./pi_tui_lists.mjs";
export { Markdown, Marked } from "./pi_tui_markdown.mjs";
export { ProcessTerminal, StdinBuffer, TuiAltScreen, TuiMainScreen } from "./pi_tui_terminal.mjs";
export { stripTerminalSequences, visibleWidth } from "./pi_tui_width.mjs";
