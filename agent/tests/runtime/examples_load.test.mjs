// pi's example extensions load with pi-agent's runtime modules as with the reference's packages:
// each example's factory runs against a recording `pi`, and what it registers (tools with their
// parameter schemas, commands, flags, shortcuts, handlers, providers) must be the same.
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

// A `pi` that records every call (arguments as snapshots, functions by kind).
function recordingPi() {
	const calls = [];
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
					return answers[key];
				};
			},
		},
	);
	return { pi, calls };
}

async function load(url) {
	const { pi, calls } = recordingPi();
	try {
		const module = await import(url);
		await module.default?.(pi);
		return { calls };
	} catch (error) {
		return { error: String(error?.message ?? error).split("\n")[0], calls };
	}
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
			const reference = await load(pathToFileURL(join(work, "reference", file)).href);
			if (/Cannot find (package|module)/.test(reference.error ?? "")) {
				t.skip(`needs a package pi does not ship: ${reference.error}`);
				return;
			}
			const ours = await load(pathToFileURL(join(work, "ours", file)).href);
			assert.equal(ours.error, reference.error);
			assert.deepStrictEqual(ours.calls, reference.calls);
		});
	}
}
