// Text decorations as pi applies them (the `chalk` rules): off when stdout is no colour
// terminal (as for pi-agent's RPC pipe) unless FORCE_COLOR or --color says otherwise; nested
// closes re-open the style; a style is closed and reopened around line breaks.

const hasFlag = (flag) => {
	const at = process.argv.indexOf(flag);
	const end = process.argv.indexOf("--");
	return at !== -1 && (end === -1 || at < end);
};

function forcedLevel() {
	const env = process.env;
	if ("FORCE_COLOR" in env) {
		if (env.FORCE_COLOR === "true") return 1;
		if (env.FORCE_COLOR === "false") return 0;
		return env.FORCE_COLOR.length === 0 ? 1 : Math.min(Number.parseInt(env.FORCE_COLOR, 10), 3);
	}
	if (["--no-color", "--no-colors", "--color=false", "--color=never"].some(hasFlag)) return 0;
	if (["--color", "--colors", "--color=true", "--color=always"].some(hasFlag)) return 1;
	return undefined;
}

// Whether decorations are emitted at all (colour level above 0).
function decorationsOn() {
	const env = process.env;
	const forced = forcedLevel();
	if (forced === 0) return false;
	if (["--color=16m", "--color=full", "--color=truecolor", "--color=256"].some(hasFlag)) return true;
	if ("TF_BUILD" in env && "AGENT_NAME" in env) return true;
	if (!process.stdout?.isTTY && forced === undefined) return false;
	const min = forced || 0;
	if (env.TERM === "dumb") return min > 0;
	if (process.platform === "win32") return true;
	if ("CI" in env) {
		if (["GITHUB_ACTIONS", "GITEA_ACTIONS", "CIRCLECI", "TRAVIS", "APPVEYOR", "GITLAB_CI", "BUILDKITE", "DRONE"].some((k) => k in env) || env.CI_NAME === "codeship") return true;
		return min > 0;
	}
	if ("TEAMCITY_VERSION" in env) return /^(9\.(0*[1-9]\d*)\.|\d{2,}\.)/.test(env.TEAMCITY_VERSION);
	if (env.COLORTERM === "truecolor" || ["xterm-kitty", "xterm-ghostty", "wezterm"].includes(env.TERM)) return true;
	if ("TERM_PROGRAM" in env && ["iTerm.app", "Apple_Terminal"].includes(env.TERM_PROGRAM)) return true;
	if (/-256(color)?$/i.test(env.TERM ?? "")) return true;
	if (/^screen|^xterm|^vt100|^vt220|^rxvt|color|ansi|cygwin|linux/i.test(env.TERM ?? "")) return true;
	if ("COLORTERM" in env) return true;
	return min > 0;
}

let enabled;

function decorate(open, close) {
	const on = `\x1b[${open}m`;
	const off = `\x1b[${close}m`;
	return (input) => {
		const text = String(input);
		enabled ??= decorationsOn();
		if (!enabled || !text) return text;
		let out = text.includes("\x1b") ? text.split(off).join(off + on) : text;
		if (out.includes("\n")) out = out.replace(/\r?\n/g, (br) => off + br + on);
		return on + out + off;
	};
}

export const textStyles = {
	bold: decorate(1, 22),
	dim: decorate(2, 22),
	italic: decorate(3, 23),
	underline: decorate(4, 24),
	inverse: decorate(7, 27),
	strikethrough: decorate(9, 29),
};
