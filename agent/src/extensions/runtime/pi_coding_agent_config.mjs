// pi's config names and paths, from the host when it runs under pi-agent.

import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { notSupportedError, piHost } from "./pi_runtime_host.mjs";

/** The pi release pi-agent's runtime modules follow (VERSION without a host). */
export const REFERENCE_VERSION = "0.84.1";

export const CONFIG_DIR_NAME = ".pi";

/** pi's version: the host's (read when this module loads, after the host is set). */
export const VERSION = piHost()?.version ?? REFERENCE_VERSION;

function expandTilde(path) {
	if (path === "~") return homedir();
	if (path.startsWith("~/")) return homedir() + path.slice(1);
	return path;
}

/** The agent's config directory: the host's, else $PI_CODING_AGENT_DIR, else ~/.pi/agent. */
export function getAgentDir() {
	const fromHost = piHost()?.agentDir;
	if (fromHost) return fromHost;
	const fromEnv = process.env.PI_CODING_AGENT_DIR;
	if (fromEnv) return expandTilde(fromEnv);
	return join(homedir(), CONFIG_DIR_NAME, "agent");
}

/**
 * pi's package directory (its README, docs, examples): the host's `packageDir`, else
 * $PI_PACKAGE_DIR. pi-agent ships no such directory of its own.
 */
export function getPackageDir() {
	const dir = piHost()?.packageDir ?? process.env.PI_PACKAGE_DIR;
	if (!dir) throw notSupportedError("getPackageDir");
	return expandTilde(dir);
}

export function getReadmePath() {
	return resolve(join(getPackageDir(), "README.md"));
}

export function getDocsPath() {
	return resolve(join(getPackageDir(), "docs"));
}

export function getExamplesPath() {
	return resolve(join(getPackageDir(), "examples"));
}
