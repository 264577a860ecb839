// pi-conformance adapter for pi's own TypeScript RpcClient (or a modified copy of it).
//
//   node adapter.mjs --client-module <path of rpc-client.js>
//
// Reads the runner's actions as JSON lines on stdin, drives the RpcClient through its public
// API, and writes what the client surfaced as JSON lines on stdout (the contract is in
// docs/src/testing-a-client.md, "Validating an RPC client"). Needs Node.js 22 (pi's own requirement).
//
// RpcClient always starts the agent as `node <cliPath> --mode rpc ...`; the agent the runner
// gives is a whole command line, so cliPath is a small script written here that starts it with
// the same stdin, stdout and stderr and passes signals on.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { pathToFileURL } from "node:url";

const moduleFlag = process.argv.indexOf("--client-module");
const modulePath = moduleFlag > 0 ? process.argv[moduleFlag + 1] : undefined;
if (!modulePath) {
	process.stderr.write("usage: node adapter.mjs --client-module <path of rpc-client.js>\n");
	process.exit(2);
}
const { RpcClient } = await import(pathToFileURL(resolve(modulePath)).href);

const LAUNCHER = `import { spawn } from "node:child_process";
const [program, ...args] = JSON.parse(process.env.PI_CONFORMANCE_AGENT);
const child = spawn(program, [...args, ...process.argv.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (error) => { process.stderr.write(error.message + "\\n"); process.exit(127); });
child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGTERM" ? 143 : 1)));
`;

/** Writes one observation line (synchronous on a pipe, so lines keep the order of the calls). */
function report(observation) {
	process.stdout.write(`${JSON.stringify(observation)}\n`);
}

let client;

/** Each RPC command the runner may ask for, as the RpcClient method that sends it. */
const commands = {
	prompt: (c, a) => c.prompt(a.message, a.images),
	steer: (c, a) => c.steer(a.message, a.images),
	follow_up: (c, a) => c.followUp(a.message, a.images),
	abort: (c) => c.abort(),
	new_session: (c, a) => c.newSession(a.parentSession),
	get_state: (c) => c.getState(),
	set_model: (c, a) => c.setModel(a.provider, a.modelId),
	cycle_model: (c) => c.cycleModel(),
	get_available_models: (c) => c.getAvailableModels(),
	set_thinking_level: (c, a) => c.setThinkingLevel(a.level),
	cycle_thinking_level: (c) => c.cycleThinkingLevel(),
	get_available_thinking_levels: (c) => c.getAvailableThinkingLevels(),
	set_steering_mode: (c, a) => c.setSteeringMode(a.mode),
	set_follow_up_mode: (c, a) => c.setFollowUpMode(a.mode),
	compact: (c, a) => c.compact(a.customInstructions),
	set_auto_compaction: (c, a) => c.setAutoCompaction(a.enabled),
	set_auto_retry: (c, a) => c.setAutoRetry(a.enabled),
	abort_retry: (c) => c.abortRetry(),
	bash: (c, a) => c.bash(a.command),
	abort_bash: (c) => c.abortBash(),
	get_session_stats: (c) => c.getSessionStats(),
	export_html: (c, a) => c.exportHtml(a.outputPath),
	switch_session: (c, a) => c.switchSession(a.sessionPath),
	fork: (c, a) => c.fork(a.entryId),
	clone: (c) => c.clone(),
	get_fork_messages: (c) => c.getForkMessages(),
	get_entries: (c, a) => c.getEntries(a.since),
	get_tree: (c) => c.getTree(),
	get_last_assistant_text: (c) => c.getLastAssistantText(),
	set_session_name: (c, a) => c.setSessionName(a.name),
	get_messages: (c) => c.getMessages(),
	get_commands: (c) => c.getCommands(),
	wait_idle: (c, a) => c.waitForIdle(a.timeoutMs),
};

async function start(action) {
	const folder = mkdtempSync(join(tmpdir(), "pi-conformance-rpc-client-"));
	const launcher = join(folder, "agent.mjs");
	writeFileSync(launcher, LAUNCHER);
	client = new RpcClient({
		cliPath: launcher,
		env: { PI_CONFORMANCE_AGENT: JSON.stringify(action.agent) },
	});
	// Listen before starting: an agent may write records before it reads any command.
	client.onEvent((event) => report({ type: "event", event }));
	await client.start();
}

async function perform(action) {
	if (action.action === "start") return start(action);
	if (action.action === "stop") return client?.stop();
	if (action.action === "ui_respond") {
		throw Object.assign(new Error("pi's RpcClient has no method to answer extension UI requests"), {
			unsupported: true,
		});
	}
	const command = commands[action.action];
	if (!command) {
		throw Object.assign(new Error(`no RpcClient method for ${action.action}`), { unsupported: true });
	}
	if (!client) throw new Error("the client was not started");
	return command(client, action);
}

function run(action) {
	perform(action).then(
		(value) => report({ type: "result", id: action.id, value: value ?? null }),
		(error) =>
			report({
				type: error?.unsupported ? "unsupported" : "error",
				id: action.id,
				message: error instanceof Error ? error.message : String(error),
			}),
	);
}

// Actions: JSON lines on stdin, split on LF only; each starts at once (they may overlap).
const decoder = new StringDecoder("utf8");
let pending = "";
process.stdin.on("data", (chunk) => {
	pending += decoder.write(chunk);
	let end = pending.indexOf("\n");
	while (end !== -1) {
		const line = pending.slice(0, end);
		pending = pending.slice(end + 1);
		if (line.trim() !== "") run(JSON.parse(line));
		end = pending.indexOf("\n");
	}
});
process.stdin.on("end", () => process.exit(0));
