// Plays an ACP editor driving pi-acp (the ACP adapter for pi) through a session, and prints
// everything the editor saw as one JSON array: its calls, pi-acp's responses, notifications and
// requests, in order. pi-acp starts the agent named by PI_ACP_PI_COMMAND; run once per agent
// and compare (conformance/tests/third_party_clients.rs).
//
//   node drive.mjs PI_ACP_ENTRY WORKING_FOLDER
//
// The session: a prompt answered with a `read` tool call and then text, a plain prompt, the
// thinking level and then the model changed, the session listed; then pi-acp is started again
// (an editor restarting) and the session loaded (pi-acp starts the agent with `--session FILE`)
// and prompted once more.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [entry, cwd] = process.argv.slice(2);
const CALL_TIMEOUT_MS = 30_000;
const seen = [];

/** One pi-acp process and the editor's side of its JSON-RPC connection. */
function startAdapter() {
	const child = spawn(process.execPath, [entry], { cwd, stdio: ["pipe", "pipe", "inherit"], env: process.env });
	const waiting = new Map();
	let nextId = 1;
	createInterface({ input: child.stdout }).on("line", (line) => {
		let message;
		try {
			message = JSON.parse(line);
		} catch {
			seen.push({ notJson: line });
			return;
		}
		if (message.method === undefined && waiting.has(message.id)) {
			const resolve = waiting.get(message.id);
			waiting.delete(message.id);
			seen.push(message.error ? { error: message.error } : { response: message.result ?? null });
			resolve(message);
		} else if (message.method !== undefined && message.id !== undefined) {
			// A request from the agent's side (a permission, a file): the editor declines.
			seen.push({ request: message.method, params: message.params });
			const result = { outcome: { outcome: "cancelled" } };
			child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
		} else {
			seen.push({ notification: message.method, params: message.params });
		}
	});
	return {
		call(method, params) {
			const id = nextId++;
			seen.push({ call: method, params });
			child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
			return new Promise((resolve) => {
				const timer = setTimeout(() => {
					waiting.delete(id);
					seen.push({ timeout: method });
					resolve({});
				}, CALL_TIMEOUT_MS);
				waiting.set(id, (message) => {
					clearTimeout(timer);
					resolve(message);
				});
			});
		},
		async stop() {
			// Notifications sent after the last response still count.
			await new Promise((resolve) => setTimeout(resolve, 300));
			child.stdin.end();
			child.kill();
		},
	};
}

const initialize = {
	protocolVersion: 1,
	clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
};
const text = (words) => [{ type: "text", text: words }];
// pi-acp reports some things from background tasks after a session is made or loaded (its
// commands, the context usage); a person starts typing later than that, and so does this.
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

let editor = startAdapter();
await editor.call("initialize", initialize);
const created = await editor.call("session/new", { cwd, mcpServers: [] });
const sessionId = created.result?.sessionId;
await settle();
await editor.call("session/set_config_option", { sessionId, configId: "thought_level", value: "high" });
await editor.call("session/prompt", { sessionId, prompt: text("Read the notes") });
await editor.call("session/prompt", { sessionId, prompt: text("Say hi") });
await editor.call("session/set_config_option", { sessionId, configId: "model", value: "mock/mock-model-2" });
await editor.call("session/prompt", { sessionId, prompt: text("Once more") });
await editor.call("session/list", { cwd });
await editor.stop();

editor = startAdapter();
await editor.call("initialize", initialize);
await editor.call("session/load", { sessionId, cwd, mcpServers: [] });
await settle();
await editor.call("session/prompt", { sessionId, prompt: text("After the restart") });
await editor.stop();

process.stdout.write(`${JSON.stringify(seen, null, 1)}\n`);
process.exit(0);
