// pi's example extensions load with pi-agent's runtime modules as with the reference's packages:
// each example's factory runs against a recording `pi`, and what it registers (tools with their
// parameter schemas, commands, flags, shortcuts, handlers, providers) must be the same; then
// each registered command runs headless (no UI, a recording ctx, a fresh cwd), and what it did
// and answered must be the same too.
// Needs Node >= 22.6 (TypeScript by type stripping) and the reference's examples; skipped
// otherwise (a missing reference fails when PI_REQUIRE_REFERENCE is set). Examples needing
// third-party packages are left out.

import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { register } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, test } from "node:test";
import { REF } from "./goldens/reference.mjs";
import { snapshot } from "./case_helpers.mjs";

const EXAMPLES = join(REF, "@earendil-works", "pi-coding-agent", "examples", "extensions");
const [major, minor] = process.versions.node.split(".").map(Number);
const canStripTypes = major > 22 || (major === 22 && minor >= 6);
if (!existsSync(EXAMPLES) && process.env.PI_REQUIRE_REFERENCE) throw new Error(`examples_load: no reference examples at ${EXAMPLES}`);
const missing = !existsSync(EXAMPLES) ? `no reference examples at ${EXAMPLES}` : !canStripTypes ? "Node < 22.6" : undefined;

// The example files: top-level .ts files and directories with an index.ts.
function exampleFiles(dir) {
	return readdirSync(dir)
		.sort()
		.flatMap((name) => {
			const path = join(dir, name);
			if (statSync(path).isDirectory()) return existsSync(join(path, "index.ts")) ? [`${name}/index.ts`] : [];
			return name.endsWith(".ts") ? [name] : [];
		});
}

// A `pi` that records every call (arguments as snapshots, functions by kind); `raw` keeps the
// arguments themselves.
function recordingPi() {
	const calls = [];
	const raw = [];
	const answers = { getAllTools: [], getActiveTools: [], getCommands: [], getThinkingLevel: "off", getFlag: undefined };
	const events = { on: (...args) => calls.push(["events.on", snapshot(args)]), emit: (...args) => calls.push(["events.emit", snapshot(args)]) };
	const pi = new Proxy(
		{},
		{
			get(_target, key) {
				if (key === "then" || typeof key === "symbol") return undefined;
				if (key === "events") return events;
				return (...args) => {
					calls.push([key, snapshot(args)]);
					raw.push([key, args]);
					return answers[key];
				};
			},
		},
	);
	return { pi, calls, raw };
}

// A headless command context: no UI; every other member records its use and answers undefined.
function recordingContext(cwd, calls) {
	const member = (path) =>
		new Proxy(function () {}, {
			get(_target, key) {
				if (key === "then" || typeof key === "symbol") return undefined;
				return member(`${path}.${String(key)}`);
			},
			apply(_target, _this, args) {
				calls.push([path, normalize(snapshot(args))]);
				return undefined;
			},
		});
	return new Proxy(
		{ hasUI: false, cwd },
		{
			get(target, key) {
				if (key in target) return target[key];
				if (key === "then" || typeof key === "symbol") return undefined;
				return member(`ctx.${String(key)}`);
			},
		},
	);
}

// Ids, times and the per-side directories differ from run to run.
function normalize(value) {
	if (typeof value === "number") return value > 1.7e12 && value < 2e12 ? "<epoch ms>" : value;
	if (typeof value === "string") {
		return value
			.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
			.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<iso time>")
			.replace(/[^"\s]*\/(ours|reference)-cwd-[A-Za-z0-9]+/g, "<cwd>");
	}
	if (Array.isArray(value)) return value.map(normalize);
	if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
	return value;
}

const COMMAND_TIMEOUT_MS = 2000;

// Runs each command the example registered, headless, in a fresh directory.
async function runCommands(raw, cwd) {
	const results = [];
	for (const [key, args] of raw) {
		if (key !== "registerCommand" || typeof args[1]?.handler !== "function") continue;
		const calls = [];
		let outcome;
		try {
			const run = Promise.resolve(args[1].handler("", recordingContext(cwd, calls)));
			const timeout = new Promise((resolve) => setTimeout(() => resolve({ timeout: true }), COMMAND_TIMEOUT_MS).unref());
			outcome = normalize(snapshot(await Promise.race([run, timeout])));
		} catch (error) {
			outcome = { error: String(error?.message ?? error).split("\n")[0] };
		}
		results.push({ command: args[0], outcome, calls });
	}
	return results;
}

async function load(url, cwd) {
	const { pi, calls, raw } = recordingPi();
	try {
		const module = await import(url);
		await module.default?.(pi);
	} catch (error) {
		return { error: String(error?.message ?? error).split("\n")[0], calls };
	}
	const loadCalls = calls.length;
	const commands = await runCommands(raw, cwd);
	return { calls: calls.slice(0, loadCalls), commands, commandPiCalls: normalize(calls.slice(loadCalls)) };
}

if (missing) {
	test("example extensions load as with the reference", { skip: missing }, () => {});
} else {
	const work = mkdtempSync(join(tmpdir(), "pi-examples-"));
	after(() => rmSync(work, { recursive: true, force: true }));
	// Type stripping refuses files under node_modules: load copies.
	cpSync(EXAMPLES, join(work, "ours"), { recursive: true });
	cpSync(EXAMPLES, join(work, "reference"), { recursive: true });
	register(new URL("./examples_hooks.mjs", import.meta.url), {
		data: {
			oursUrl: pathToFileURL(join(work, "ours")).href,
			referenceUrl: pathToFileURL(join(work, "reference")).href,
			runtimeUrl: new URL("../../src/extensions/runtime/", import.meta.url).href,
			referenceModules: REF,
		},
	});
	for (const file of exampleFiles(EXAMPLES)) {
		test(`example ${file} loads as with the reference`, async (t) => {
			const cwd = (side) => mkdtempSync(join(work, `${side}-cwd-`));
			const reference = await load(pathToFileURL(join(work, "reference", file)).href, cwd("reference"));
			if (/Cannot find (package|module)/.test(reference.error ?? "")) {
				t.skip(`needs a package pi does not ship: ${reference.error}`);
				return;
			}
			const ours = await load(pathToFileURL(join(work, "ours", file)).href, cwd("ours"));
			assert.equal(ours.error, reference.error);
			assert.deepStrictEqual(ours.calls, reference.calls);
			assert.deepStrictEqual(ours.commands, reference.commands);
			assert.deepStrictEqual(ours.commandPiCalls, reference.commandPiCalls);
		});
	}
}
