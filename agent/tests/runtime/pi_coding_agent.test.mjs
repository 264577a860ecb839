// pi-agent's pi-coding-agent runtime modules against goldens from the reference
// (goldens/make_pi_coding_agent.mjs), and their host-backed parts against a fake host.

import assert from "node:assert/strict";
import { test } from "node:test";
import * as pi from "../../src/extensions/runtime/pi_coding_agent.mjs";
import { compareCases, readGolden } from "./golden_suite.mjs";
import { piCodingAgentCases } from "./pi_coding_agent_cases.mjs";

const golden = readGolden("pi_coding_agent");
compareCases("pi-coding-agent", golden.cases, piCodingAgentCases(pi));

test("VERSION without a host is the reference release the goldens come from", () => {
	assert.equal(pi.VERSION, golden.referenceVersion);
});

const HOST = Symbol.for("pi-agent.host");

async function withHost(host, fn) {
	globalThis[HOST] = host;
	try {
		return await fn();
	} finally {
		delete globalThis[HOST];
	}
}

test("getAgentDir prefers the host's agent dir", () =>
	withHost({ agentDir: "/host/agent" }, () => {
		const saved = process.env.PI_CODING_AGENT_DIR;
		process.env.PI_CODING_AGENT_DIR = "/env/agent";
		try {
			assert.equal(pi.getAgentDir(), "/host/agent");
		} finally {
			if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
			else process.env.PI_CODING_AGENT_DIR = saved;
		}
	}));

test("VERSION is the host's when the host is set before the module loads", async () => {
	globalThis[HOST] = { version: "9.9.9" };
	try {
		const fresh = await import(`../../src/extensions/runtime/pi_coding_agent_config.mjs?fresh=${Date.now()}`);
		assert.equal(fresh.VERSION, "9.9.9");
	} finally {
		delete globalThis[HOST];
	}
});

test("getPackageDir without a host or PI_PACKAGE_DIR is not supported", () => {
	const saved = process.env.PI_PACKAGE_DIR;
	delete process.env.PI_PACKAGE_DIR;
	try {
		assert.throws(() => pi.getDocsPath(), /getPackageDir is not supported by pi-agent yet/);
	} finally {
		if (saved !== undefined) process.env.PI_PACKAGE_DIR = saved;
	}
});

test("built-in tools run the agent's tool through host.callTool", () => {
	const calls = [];
	const host = {
		cwd: "/agent/cwd",
		callTool: async (name, params, signal, options) => {
			calls.push({ name, params, signal, options });
			return { content: [{ type: "text", text: `ran ${name}` }], details: { n: calls.length } };
		},
	};
	return withHost(host, async () => {
		const signal = new AbortController().signal;
		const read = pi.createReadTool("/agent/cwd");
		assert.deepStrictEqual(await read.execute("id1", { path: "a.txt", limit: 3 }, signal), {
			content: [{ type: "text", text: "ran read" }],
			details: { n: 1 },
		});
		assert.deepStrictEqual(calls[0], { name: "read", params: { path: "a.txt", limit: 3 }, signal, options: { cwd: "/agent/cwd", onUpdate: undefined } });

		// A tool made for another directory sends absolute paths.
		await pi.createEditToolDefinition("/other/dir").execute("id2", { path: "src/x.rs", edits: [{ oldText: "a", newText: "b" }] });
		assert.equal(calls[1].params.path, "/other/dir/src/x.rs");
		assert.deepStrictEqual(calls[1].options, { cwd: "/other/dir", onUpdate: undefined });
		await pi.createLsTool("/other/dir").execute("id3", {});
		assert.deepStrictEqual(calls[2].params, {});
		await pi.createFindTool("/other/dir").execute("id4", { pattern: "*.rs", path: "/abs" });
		assert.equal(calls[3].params.path, "/abs");

		const onUpdate = () => {};
		await pi.createBashTool("/agent/cwd", { commandPrefix: "source env.sh" }).execute("id5", { command: "make" }, signal, onUpdate);
		assert.deepStrictEqual(calls[4].params, { command: "source env.sh\nmake" });
		assert.equal(calls[4].options.onUpdate, onUpdate);

		for (const tool of [...pi.createCodingTools("/agent/cwd"), ...pi.createReadOnlyTools("/agent/cwd")]) {
			await tool.execute("id", { path: "p", command: "c", edits: [{ oldText: "o", newText: "n" }], pattern: "x", content: "" });
		}
		assert.deepStrictEqual(
			calls.slice(5).map((c) => c.name),
			["read", "bash", "edit", "write", "read", "grep", "find", "ls"],
		);
	});
});

test("the edit tool refuses an empty edit list before asking the host", () =>
	withHost({ callTool: async () => assert.fail("the host was asked") }, async () => {
		await assert.rejects(
			pi.createEditTool("/x").execute("id", { path: "a", edits: [] }),
			/edits must contain at least one replacement/,
		);
	}));

test("tools without host.callTool, or with custom operations, are not supported", async () => {
	await assert.rejects(pi.createReadTool("/x").execute("id", { path: "a" }), /the read tool outside pi-agent is not supported by pi-agent yet/);
	await withHost({ callTool: async () => ({ content: [] }) }, async () => {
		const ops = { readFile: async () => Buffer.from("x"), access: async () => {} };
		await assert.rejects(
			pi.createReadTool("/x", { operations: ops }).execute("id", { path: "a" }),
			/createReadTool with operations is not supported by pi-agent yet/,
		);
	});
});

test("pi's session and runtime machinery binds and throws not supported", () => {
	assert.throws(() => new pi.SessionManager(), /SessionManager is not supported by pi-agent yet/);
	assert.throws(() => new pi.AgentSession(), /AgentSession is not supported by pi-agent yet/);
	assert.throws(() => pi.createAgentSession(), /createAgentSession is not supported by pi-agent yet/);
	assert.throws(() => pi.main(), /main is not supported by pi-agent yet/);
});
