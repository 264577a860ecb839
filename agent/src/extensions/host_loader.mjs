// The extension host's module loader (appended to host.mjs). Node.js module hooks make the
// extensions' imports work as in the reference, wherever an extension lives and on any Node.js
// with the hooks:
// - pi's packages (`typebox`, `@earendil-works/pi-ai`, pi-tui, pi-coding-agent, pi-agent-core,
//   also under the old `@mariozechner/` scope) resolve to pi-agent's own runtime modules,
//   `pi-agent:/runtime/<file>`, read from the folder `init` names (or sent in `init`);
// - TypeScript files load as the JavaScript the agent made of them (sent in `init` and
//   `reload`; a file not sent is transpiled by running the agent binary with
//   PI_AGENT_TRANSPILE);
// - a relative import may name a `.ts` file as `.js`, or leave out the extension or
//   `/index.ts`, as TypeScript writes them;
// - an import of named values of a package (tagged `?pi-agent-names=a,b` by the transpiler)
//   evaluates only the runtime files that define them;
// - a module loaded afresh (`ctx.reload()`) loads its relative imports afresh too;
// - an import that cannot be found fails as the reference words it.
// Where Node.js has `module.registerHooks` (22.15, 23.5) the hooks run in this thread;
// elsewhere `module.register` runs them in Node's loader thread, told of new sources through a
// message port.

import * as loaderModule from "node:module";
import { MessageChannel as LoaderChannel } from "node:worker_threads";

// A Node.js without the hooks cannot load extensions: the host ends at once, without a word,
// and the agent asks that Node.js its version to say why.
if (typeof loaderModule.registerHooks !== "function" && typeof loaderModule.register !== "function") process.exit(3);

/**
 * The hooks, over `state` ({runtimeDir, runtime, modules, agent}). Self-contained (its text is the loader
 * thread's module too): it imports what it needs from `nodeApi` ({fs, url, childProcess}).
 */
function loaderHooks(state, nodeApi) {
	const { fs, url, childProcess } = nodeApi;
	const RUNTIME = "pi-agent:/runtime/";
	const RELOAD = "pi-agent-reload";
	const PACKAGES = {
		typebox: "typebox.mjs",
		"typebox/value": "typebox_value.mjs",
		"typebox/compile": "typebox_compile.mjs",
		"@sinclair/typebox": "typebox.mjs",
		"@sinclair/typebox/value": "typebox_value.mjs",
		"@sinclair/typebox/compiler": "typebox_compile.mjs",
		"@sinclair/typebox/compile": "typebox_compile.mjs",
		"pi-agent-core": "pi_agent_core.mjs",
		"pi-tui": "pi_tui.mjs",
		"pi-ai": "pi_ai.mjs",
		"pi-ai/compat": "pi_ai.mjs",
		"pi-ai/oauth": "pi_ai_oauth.mjs",
		"pi-ai/providers/all": "pi_ai_providers.mjs",
		"pi-coding-agent": "pi_coding_agent.mjs",
	};
	const SCOPES = ["@earendil-works/", "@mariozechner/"];

	/** The runtime file a package specifier names, if it is one of pi's. */
	function runtimeFile(specifier) {
		if (Object.hasOwn(PACKAGES, specifier) && !specifier.startsWith("pi-")) return PACKAGES[specifier];
		const scope = SCOPES.find((prefix) => specifier.startsWith(prefix));
		if (scope === undefined) return undefined;
		const name = specifier.slice(scope.length);
		return name.startsWith("pi-") && Object.hasOwn(PACKAGES, name) ? PACKAGES[name] : undefined;
	}

	/** The text of runtime module `file`: sent, else read from the runtime folder (once). */
	function runtimeSource(file) {
		let source = state.runtime[file];
		if (source === undefined && state.runtimeDir && /^[\w-]+\.mjs$/.test(file)) {
			try {
				source = fs.readFileSync(`${state.runtimeDir}/${file}`, "utf8");
			} catch {
				return undefined;
			}
			state.runtime[file] = source;
		}
		return source;
	}

	function isFile(path) {
		try {
			return fs.statSync(path).isFile();
		} catch {
			return false;
		}
	}

	/** The file a relative import names, probed as TypeScript writes them (see the header). */
	function findFile(path) {
		const candidates = [path];
		for (const [javascript, typescript] of [[".js", ".ts"], [".mjs", ".mts"], [".cjs", ".cts"]]) {
			if (path.endsWith(javascript)) {
				const stem = path.slice(0, -javascript.length);
				candidates.push(stem + typescript);
				if (javascript === ".js") candidates.push(`${stem}.tsx`);
			}
		}
		for (const extension of [".ts", ".tsx", ".mts", ".js", ".mjs"]) candidates.push(path + extension);
		candidates.push(`${path}/index.ts`, `${path}/index.js`);
		const found = candidates.find(isFile);
		return found === undefined ? undefined : fs.realpathSync(found);
	}

	const TYPESCRIPT = /\.(ts|mts|cts|tsx)$/;

	/** The JavaScript of a TypeScript file: sent by the agent, else made by it now. */
	function javascriptOf(path) {
		const sent = state.modules[path];
		if (sent !== undefined) {
			if (typeof sent.code === "string") return sent.code;
			throw new Error(sent.error);
		}
		try {
			return childProcess.execFileSync(state.agent, [], {
				env: { ...process.env, PI_AGENT_TRANSPILE: path },
				encoding: "utf8",
				maxBuffer: 1 << 30,
				stdio: ["ignore", "pipe", "pipe"],
			});
		} catch (error) {
			const reason = typeof error.stderr === "string" ? error.stderr.trim() : "";
			throw new Error(reason || `${path}: ${error.message}`);
		}
	}

	const NAMES = "pi-agent-names";

	/**
	 * For each runtime entry, the file and local name each of its re-exported names comes from
	 * (`export { a, b as c } from "./x.mjs"`), read from its text once.
	 */
	const reexports = new Map();
	function reexportsOf(entry) {
		let index = reexports.get(entry);
		if (index !== undefined) return index;
		index = new Map();
		for (const [, list, from] of (runtimeSource(entry) ?? "").matchAll(/export\s*\{([^}]*)\}\s*from\s*"(\.\/[^"]+)"/g)) {
			for (const item of list.split(",")) {
				const [local, exported = local] = item.trim().split(/\s+as\s+/);
				if (local) index.set(exported, { local, from });
			}
		}
		reexports.set(entry, index);
		return index;
	}

	/**
	 * An entry that exports only `names` of runtime entry `entry`, each from the file that
	 * defines it, so that what an import does not take is not evaluated; a name the index
	 * does not know comes from the whole entry.
	 */
	function slimEntry(entry, names) {
		const index = reexportsOf(entry);
		return names
			.map((name) => {
				const found = index.get(name);
				if (found === undefined) return `export { ${name} } from "./${entry}";`;
				return `export { ${found.local === name ? name : `${found.local} as ${name}`} } from "${found.from}";`;
			})
			.join("\n");
	}

	function resolve(specifier, context, nextResolve) {
		const [bare, query] = specifier.split("?");
		const names = query === undefined ? null : new URLSearchParams(query).get(NAMES);
		const file = runtimeFile(bare);
		if (file !== undefined) {
			const only = names === null ? "" : `?${NAMES}=${names}`;
			return { url: RUNTIME + file + only, shortCircuit: true };
		}
		if (names !== null) specifier = bare;
		if (specifier.startsWith(RUNTIME)) return { url: specifier, shortCircuit: true };
		const parent = context.parentURL;
		if (parent?.startsWith(RUNTIME)) {
			if (specifier.startsWith("./")) return { url: new URL(specifier, parent).href, shortCircuit: true };
			return nextResolve(specifier, { ...context, parentURL: undefined });
		}
		const relative = specifier.startsWith("./") || specifier.startsWith("../");
		if (parent?.startsWith("file:") && (relative || specifier.startsWith("/"))) {
			const named = new URL(specifier, parent);
			const found = findFile(url.fileURLToPath(named));
			if (found !== undefined) {
				const resolved = url.pathToFileURL(found);
				const generation = new URL(parent).searchParams.get(RELOAD);
				if (generation !== null) resolved.searchParams.set(RELOAD, generation);
				return { url: resolved.href, shortCircuit: true };
			}
		}
		if (!parent?.startsWith("file:")) return nextResolve(specifier, context);
		const missing = (error) => {
			if (error?.code !== "ERR_MODULE_NOT_FOUND") return error;
			// In the reference's words (its loader requires modules the CommonJS way).
			const renamed = new Error(`Cannot find module '${specifier}'\nRequire stack:\n- ${url.fileURLToPath(parent)}`);
			renamed.code = "MODULE_NOT_FOUND";
			return renamed;
		};
		try {
			const resolved = nextResolve(specifier, context);
			if (typeof resolved?.then !== "function") return resolved;
			return resolved.catch((error) => {
				throw missing(error);
			});
		} catch (error) {
			throw missing(error);
		}
	}

	function load(address, context, nextLoad) {
		if (address.startsWith(RUNTIME)) {
			const [file, query] = address.slice(RUNTIME.length).split("?");
			const source = runtimeSource(file);
			if (source === undefined) throw new Error(`pi-agent has no runtime module ${address}`);
			const names = query === undefined ? null : new URLSearchParams(query).get(NAMES);
			if (names !== null) return { format: "module", source: slimEntry(file, names.split(",")), shortCircuit: true };
			return { format: "module", source, shortCircuit: true };
		}
		if (address.startsWith("file:")) {
			const path = url.fileURLToPath(address);
			if (TYPESCRIPT.test(path)) return { format: "module", source: javascriptOf(path), shortCircuit: true };
		}
		return nextLoad(address, context);
	}

	return { resolve, load };
}

/** The loader thread's module (`module.register`): the hooks, fed through a message port. */
const LOADER_THREAD_MODULE = `
import * as fs from "node:fs";
import * as url from "node:url";
import * as childProcess from "node:child_process";
const state = { runtimeDir: undefined, runtime: {}, modules: {}, agent: "" };
const hooks = (${loaderHooks.toString()})(state, { fs, url, childProcess });
export async function initialize({ port, runtimeDir, runtime, modules, agent }) {
	Object.assign(state, { runtimeDir, runtime, modules, agent });
	port.on("message", (message) => {
		Object.assign(state.modules, message.modules);
		port.postMessage("applied");
	});
	port.unref();
}
export async function resolve(specifier, context, nextResolve) {
	return hooks.resolve(specifier, context, nextResolve);
}
export async function load(address, context, nextLoad) {
	return hooks.load(address, context, nextLoad);
}
`;

/** Hands new module sources to the loader; resolves once it has them. */
let updateLoader = async () => {};

/** Installs the hooks for `loader` (`init`'s), before any extension is imported. */
async function installLoader(loader) {
	// What the runtime modules ask of pi-agent (runtime/pi_runtime_host.mjs describes it).
	globalThis[Symbol.for("pi-agent.host")] = {
		version: loader.version,
		agentDir: loader.agentDir,
		get cwd() {
			return cwd;
		},
		get models() {
			return modelState.models ?? [];
		},
		callTool(name, params, _signal, options) {
			const id = randomUUID();
			return new Promise((resolve, reject) => {
				pendingReplies.set(id, (value) => {
					if (typeof value?.error === "string") reject(new Error(value.error));
					else resolve({ content: value?.content ?? [], details: value?.details });
				});
				send({ type: "run_tool", id, name, params: params ?? {}, cwd: options?.cwd });
			});
		},
		complete(request, signal, onEvent) {
			return hostComplete(request, signal, typeof onEvent === "function" ? onEvent : () => {});
		},
	};
	const state = {
		runtimeDir: loader.runtimeDir,
		runtime: loader.runtime ?? {},
		modules: loader.modules ?? {},
		agent: loader.agent,
	};
	if (typeof loaderModule.registerHooks === "function") {
		const fs = await import("node:fs");
		const url = await import("node:url");
		const childProcess = await import("node:child_process");
		loaderModule.registerHooks(loaderHooks(state, { fs, url, childProcess }));
		updateLoader = async (modules) => Object.assign(state.modules, modules);
		return;
	}
	const { port1, port2 } = new LoaderChannel();
	loaderModule.register(`data:text/javascript,${encodeURIComponent(LOADER_THREAD_MODULE)}`, {
		data: { port: port2, ...state },
		transferList: [port2],
	});
	port1.unref();
	updateLoader = (modules) =>
		new Promise((applied) => {
			port1.once("message", () => applied());
			port1.postMessage({ modules });
		});
}
