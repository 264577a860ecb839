// Environment both the golden generator and the test run under: no terminal hints, so key
// parsing and capability detection do not depend on where they run.
const TERMINAL_VARS = ["WT_SESSION", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY", "TMUX", "TERM_PROGRAM", "TERMINAL_EMULATOR", "KITTY_WINDOW_ID", "GHOSTTY_RESOURCES_DIR", "WEZTERM_PANE", "WARP_SESSION_ID", "WARP_TERMINAL_SESSION_UUID", "ITERM_SESSION_ID", "COLORTERM", "FORCE_COLOR", "NO_COLOR"];

export function prepareEnvironment() {
	for (const name of TERMINAL_VARS) delete process.env[name];
	process.env.TERM = "xterm-256color";
}

/**
 * For the pi-coding-agent cases as well: decorations forced on (as in a colour terminal) and
 * an empty agent directory, so no user theme or settings apply.
 */
export function prepareCodingAgentEnvironment() {
	prepareEnvironment();
	process.env.FORCE_COLOR = "1";
	process.env.PI_CODING_AGENT_DIR = "/nonexistent/pi-agent-test-dir";
	delete process.env.COLORFGBG;
}
