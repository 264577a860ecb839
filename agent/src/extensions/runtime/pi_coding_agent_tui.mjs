// The TUI-related values of @earendil-works/pi-coding-agent (components, key hints, themes),
// for the pi-coding-agent module to re-export. Components of pi's own interactive screens
// (selectors, footer, tool and message views of the session) need the interactive app and are
// not supported by pi-agent: constructing one throws.
import { notSupported } from "./pi_tui_terminal.mjs";

export {
	BorderedLoader,
	BranchSummaryMessageComponent,
	CompactionSummaryMessageComponent,
	CustomEditor,
	CustomMessageComponent,
	DynamicBorder,
	keyHint,
	keyText,
	rawKeyHint,
	SkillInvocationMessageComponent,
	truncateToVisualLines,
	UserMessageComponent,
} from "./pi_coding_agent_components.mjs";
export { renderDiff } from "./pi_coding_agent_render_diff.mjs";
export { initTheme, Theme } from "./pi_coding_agent_theme.mjs";
export { getLanguageFromPath, getMarkdownTheme, getSelectListTheme, getSettingsListTheme, highlightCode } from "./pi_coding_agent_tui_themes.mjs";

const unsupportedComponent = (name) =>
	({
		[name]: class {
			constructor() {
				throw notSupported(name);
			}
		},
	})[name];

export const ArminComponent = unsupportedComponent("ArminComponent");
export const AssistantMessageComponent = unsupportedComponent("AssistantMessageComponent");
export const BashExecutionComponent = unsupportedComponent("BashExecutionComponent");
export const ExtensionEditorComponent = unsupportedComponent("ExtensionEditorComponent");
export const ExtensionInputComponent = unsupportedComponent("ExtensionInputComponent");
export const ExtensionSelectorComponent = unsupportedComponent("ExtensionSelectorComponent");
export const FooterComponent = unsupportedComponent("FooterComponent");
export const LoginDialogComponent = unsupportedComponent("LoginDialogComponent");
export const ModelSelectorComponent = unsupportedComponent("ModelSelectorComponent");
export const OAuthSelectorComponent = unsupportedComponent("OAuthSelectorComponent");
export const SessionSelectorComponent = unsupportedComponent("SessionSelectorComponent");
export const SettingsSelectorComponent = unsupportedComponent("SettingsSelectorComponent");
export const ShowImagesSelectorComponent = unsupportedComponent("ShowImagesSelectorComponent");
export const ThemeSelectorComponent = unsupportedComponent("ThemeSelectorComponent");
export const ThinkingSelectorComponent = unsupportedComponent("ThinkingSelectorComponent");
export const ToolExecutionComponent = unsupportedComponent("ToolExecutionComponent");
export const TreeSelectorComponent = unsupportedComponent("TreeSelectorComponent");
export const UserMessageSelectorComponent = unsupportedComponent("UserMessageSelectorComponent");
