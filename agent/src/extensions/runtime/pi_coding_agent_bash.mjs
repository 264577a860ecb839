// pi's bash tool when an extension supplies how commands run (custom `operations`, a
// `spawnHook`, a `shellPath`): the command runs through those operations here, in the
// extension host, and the output is truncated and reported as pi's bash tool does. Also the
// local operations (createLocalBashOperations) and the shell lookup (getShellConfig).

import { spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { DEFAULT_MAX_BYTES, formatSize, truncateTail } from "./pi_coding_agent_truncate.mjs";

const MAX_TIMEOUT_MS = 2_147_483_647;
const UPDATE_INTERVAL_MS = 100;

function bashConfig(shell) {
	const legacyWsl = /^[a-z]:\\windows\\(?:system32|sysnative)\\bash\.exe$/.test(shell.replace(/\//g, "\\").toLowerCase());
	return legacyWsl ? { shell, args: ["-s"], commandTransport: "stdin" } : { shell, args: ["-c"] };
}

function bashOnPath() {
	const [finder, name] = process.platform === "win32" ? ["where", "bash.exe"] : ["which", "bash"];
	try {
		const found = spawnSync(finder, [name], { encoding: "utf-8", timeout: 5000, windowsHide: true });
		const first = found.status === 0 ? found.stdout?.trim().split(/\r?\n/)[0] : undefined;
		if (first && (process.platform !== "win32" || existsSync(first))) return first;
	} catch {}
	return null;
}

/** The shell commands run with: `customShellPath`, else bash (/bin/bash, PATH), else sh. */
export function getShellConfig(customShellPath) {
	if (customShellPath) {
		if (existsSync(customShellPath)) return bashConfig(customShellPath);
		throw new Error(`Custom shell path not found: ${customShellPath}`);
	}
	if (process.platform === "win32") {
		const candidates = [process.env.ProgramFiles, process.env["ProgramFiles(x86)"]]
			.filter(Boolean)
			.map((dir) => `${dir}\\Git\\bin\\bash.exe`);
		const found = candidates.find((path) => existsSync(path)) ?? bashOnPath();
		if (found) return bashConfig(found);
		throw new Error(`No bash shell found. Install Git for Windows, add bash to PATH, or set shellPath in settings.json`);
	}
	if (existsSync("/bin/bash")) return bashConfig("/bin/bash");
	const found = bashOnPath();
	return found ? bashConfig(found) : { shell: "sh", args: ["-c"] };
}

function timeoutMs(timeout) {
	if (timeout === undefined) return undefined;
	if (!Number.isFinite(timeout) || timeout <= 0) throw new Error("Invalid timeout: must be a finite number of seconds");
	if (timeout * 1000 > MAX_TIMEOUT_MS) {
		throw new Error(`Invalid timeout: maximum is ${MAX_TIMEOUT_MS / 1000} seconds`);
	}
	return timeout * 1000;
}

function killTree(pid) {
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		try {
			process.kill(pid, "SIGKILL");
		} catch {}
	}
}

/**
 * Operations that run a command with the local shell: exec(command, cwd, {onData, signal,
 * timeout, env}) resolves {exitCode}, or throws "aborted" / "timeout:<seconds>".
 */
export function createLocalBashOperations(options) {
	return {
		exec: async (command, cwd, { onData, signal, timeout, env } = {}) => {
			const limitMs = timeoutMs(timeout);
			if (signal?.aborted) throw new Error("aborted");
			const shell = getShellConfig(options?.shellPath);
			try {
				await access(cwd);
			} catch {
				throw new Error(`Working directory does not exist: ${cwd}\nCannot execute bash commands.`);
			}
			const viaStdin = shell.commandTransport === "stdin";
			const child = spawn(shell.shell, viaStdin ? shell.args : [...shell.args, command], {
				cwd,
				detached: process.platform !== "win32",
				env: env ?? process.env,
				stdio: [viaStdin ? "pipe" : "ignore", "pipe", "pipe"],
				windowsHide: true,
			});
			if (viaStdin) child.stdin?.end(command);
			let timedOut = false;
			const kill = () => child.pid && killTree(child.pid);
			const timer = limitMs === undefined ? undefined : setTimeout(() => ((timedOut = true), kill()), limitMs);
			signal?.addEventListener("abort", kill, { once: true });
			try {
				child.stdout?.on("data", (data) => onData?.(data));
				child.stderr?.on("data", (data) => onData?.(data));
				const exitCode = await new Promise((resolve, reject) => {
					child.once("error", reject);
					child.once("close", (code) => resolve(code));
				});
				if (signal?.aborted) throw new Error("aborted");
				if (timedOut) throw new Error(`timeout:${timeout}`);
				return { exitCode };
			} finally {
				if (timer) clearTimeout(timer);
				signal?.removeEventListener("abort", kill);
			}
		},
	};
}

function saveFullOutput(text) {
	const path = join(tmpdir(), `pi-bash-${randomBytes(8).toString("hex")}.log`);
	writeFileSync(path, text);
	return path;
}

// Output text and details as pi's bash tool reports them: the tail, with a notice of what was
// left out and where the whole output was saved.
function report(fullText, emptyText) {
	const truncation = truncateTail(fullText);
	if (!truncation.truncated) return { text: fullText || emptyText, details: undefined };
	const fullOutputPath = saveFullOutput(fullText);
	let text = truncation.content || emptyText;
	const first = truncation.totalLines - truncation.outputLines + 1;
	const last = truncation.totalLines;
	if (truncation.lastLinePartial) {
		const lines = fullText.endsWith("\n") ? fullText.slice(0, -1).split("\n") : fullText.split("\n");
		const lastLineSize = formatSize(Buffer.byteLength(lines[lines.length - 1] ?? "", "utf-8"));
		text += `\n\n[Showing last ${formatSize(truncation.outputBytes)} of line ${last} (line is ${lastLineSize}). Full output: ${fullOutputPath}]`;
	} else if (truncation.truncatedBy === "lines") {
		text += `\n\n[Showing lines ${first}-${last} of ${truncation.totalLines}. Full output: ${fullOutputPath}]`;
	} else {
		text += `\n\n[Showing lines ${first}-${last} of ${truncation.totalLines} (${formatSize(DEFAULT_MAX_BYTES)} limit). Full output: ${fullOutputPath}]`;
	}
	return { text, details: { truncation, fullOutputPath } };
}

const withStatus = (text, status) => `${text ? `${text}\n\n` : ""}${status}`;

/**
 * Runs the bash tool's command through `options.operations` (default: the local shell), after
 * `options.spawnHook` may change command, cwd and env.
 */
export async function bashWithOperations(toolOptions, params, cwd, signal, onUpdate) {
	const ops = toolOptions.operations ?? createLocalBashOperations({ shellPath: toolOptions.shellPath });
	// pi sets the PI_* session variables from the tool's context; pi-agent's tools get none.
	const env = { ...process.env };
	for (const name of ["PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL"]) delete env[name];
	let spawn = { command: params.command, cwd, env };
	if (toolOptions.spawnHook) spawn = toolOptions.spawnHook(spawn);
	const decoder = new TextDecoder();
	let text = "";
	let lastUpdate = 0;
	onUpdate?.({ content: [], details: undefined });
	const onData = (data) => {
		text += decoder.decode(data, { stream: true });
		if (onUpdate && Date.now() - lastUpdate >= UPDATE_INTERVAL_MS) {
			lastUpdate = Date.now();
			const tail = truncateTail(text);
			onUpdate({ content: [{ type: "text", text: tail.content }], details: { truncation: tail.truncated ? tail : undefined } });
		}
	};
	let exitCode;
	try {
		({ exitCode } = await ops.exec(spawn.command, spawn.cwd, { onData, signal, timeout: params.timeout, env: spawn.env }));
	} catch (error) {
		text += decoder.decode();
		const { text: output } = report(text, "");
		if (error instanceof Error && error.message === "aborted") throw new Error(withStatus(output, "Command aborted"));
		if (error instanceof Error && error.message.startsWith("timeout:")) {
			throw new Error(withStatus(output, `Command timed out after ${error.message.split(":")[1]} seconds`));
		}
		throw error;
	}
	text += decoder.decode();
	const { text: output, details } = report(text, "(no output)");
	if (exitCode !== 0 && exitCode !== null) throw new Error(withStatus(output, `Command exited with code ${exitCode}`));
	return { content: [{ type: "text", text: output }], details };
}
