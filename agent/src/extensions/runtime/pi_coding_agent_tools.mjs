// pi's built-in tools as extensions get them (createReadTool & co and their *ToolDefinition
// forms): the real names, labels, descriptions, prompt texts and parameter schemas, with an
// execute that runs the agent's own tool through the host (`host.callTool`). A bash tool given
// operations, a spawn hook or a shell path runs its commands here instead, and a command
// prefix is applied here; custom operations of the other tools make execute throw
// "not supported".

import { isAbsolute, resolve } from "node:path";
import { bashWithOperations } from "./pi_coding_agent_bash.mjs";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, GREP_MAX_LINE_LENGTH } from "./pi_coding_agent_truncate.mjs";
import { notSupportedError, piHost } from "./pi_runtime_host.mjs";
import { Type } from "./typebox.mjs";

const KB = DEFAULT_MAX_BYTES / 1024;

// What each tool is: its schema (one object shared by every tool made, as in pi), texts and
// prompt parts.
const SPECS = {
	read: {
		description: `Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to ${DEFAULT_MAX_LINES} lines or ${KB}KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.`,
		snippet: "Read file contents",
		guidelines: ["Use read to examine files instead of cat or sed."],
		schema: Type.Object({
			path: Type.String({ description: "Path to the file to read (relative or absolute)" }),
			offset: Type.Optional(Type.Number({ description: "Line number to start reading from (1-indexed)" })),
			limit: Type.Optional(Type.Number({ description: "Maximum number of lines to read" })),
		}),
	},
	bash: {
		description: `Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last ${DEFAULT_MAX_LINES} lines or ${KB}KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.`,
		snippet: "Execute bash commands (ls, grep, find, etc.)",
		guidelines: ["You can inspect PI_* environment variables for current model and session details."],
		schema: Type.Object({
			command: Type.String({ description: "Bash command to execute" }),
			timeout: Type.Optional(Type.Number({ description: "Timeout in seconds (optional, no default timeout)" })),
		}),
	},
	edit: {
		description:
			"Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
		snippet:
			"Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
		guidelines: [
			"Use edit for precise changes (edits[].oldText must match exactly)",
			"When changing multiple separate locations in one file, use one edit call with multiple entries in edits[] instead of multiple edit calls",
			"Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do not emit overlapping or nested edits. Merge nearby changes into one edit.",
			"Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with large unchanged regions.",
		],
		schema: Type.Object({
			path: Type.String({ description: "Path to the file to edit (relative or absolute)" }),
			edits: Type.Array(
				Type.Object({
					oldText: Type.String({
						description:
							"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call.",
					}),
					newText: Type.String({ description: "Replacement text for this targeted edit." }),
				}),
				{
					description:
						"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
				},
			),
		}),
	},
	write: {
		description:
			"Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
		snippet: "Create or overwrite files",
		guidelines: ["Use write only for new files or complete rewrites."],
		schema: Type.Object({
			path: Type.String({ description: "Path to the file to write (relative or absolute)" }),
			content: Type.String({ description: "Content to write to the file" }),
		}),
	},
	grep: {
		description: `Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or ${KB}KB (whichever is hit first). Long lines are truncated to ${GREP_MAX_LINE_LENGTH} chars.`,
		snippet: "Search file contents for patterns (respects .gitignore)",
		schema: Type.Object({
			pattern: Type.String({ description: "Search pattern (regex or literal string)" }),
			path: Type.Optional(Type.String({ description: "Directory or file to search (default: current directory)" })),
			glob: Type.Optional(Type.String({ description: "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'" })),
			ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search (default: false)" })),
			literal: Type.Optional(
				Type.Boolean({ description: "Treat pattern as literal string instead of regex (default: false)" }),
			),
			context: Type.Optional(
				Type.Number({ description: "Number of lines to show before and after each match (default: 0)" }),
			),
			limit: Type.Optional(Type.Number({ description: "Maximum number of matches to return (default: 100)" })),
		}),
	},
	find: {
		description: `Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to 1000 results or ${KB}KB (whichever is hit first).`,
		snippet: "Find files by glob pattern (respects .gitignore)",
		schema: Type.Object({
			pattern: Type.String({
				description: "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'",
			}),
			path: Type.Optional(Type.String({ description: "Directory to search in (default: current directory)" })),
			limit: Type.Optional(Type.Number({ description: "Maximum number of results (default: 1000)" })),
		}),
	},
	ls: {
		description: `List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or ${KB}KB (whichever is hit first).`,
		snippet: "List directory contents",
		schema: Type.Object({
			path: Type.Optional(Type.String({ description: "Directory to list (default: current directory)" })),
			limit: Type.Optional(Type.Number({ description: "Maximum number of entries to return (default: 500)" })),
		}),
	},
};

const CREATOR = {
	read: "createReadTool",
	bash: "createBashTool",
	edit: "createEditTool",
	write: "createWriteTool",
	grep: "createGrepTool",
	find: "createFindTool",
	ls: "createLsTool",
};

// Some models send edits as a JSON text, or one edit as top-level oldText/newText.
function prepareEditArguments(input) {
	if (!input || typeof input !== "object") return input;
	const args = input;
	if (typeof args.edits === "string") {
		try {
			const parsed = JSON.parse(args.edits);
			if (Array.isArray(parsed)) args.edits = parsed;
		} catch {}
	}
	if (typeof args.oldText !== "string" || typeof args.newText !== "string") return args;
	const { oldText, newText, ...rest } = args;
	const edits = Array.isArray(args.edits) ? [...args.edits] : [];
	edits.push({ oldText, newText });
	return { ...rest, edits };
}

// The parameters for the agent's tool: a relative path is the tool's cwd's, when that is not
// the agent's; bash gets its command prefix.
function hostParams(name, params, cwd, options) {
	const out = { ...params };
	const agentCwd = piHost()?.cwd;
	if (typeof out.path === "string" && !isAbsolute(out.path) && cwd && agentCwd && resolve(cwd) !== resolve(agentCwd)) {
		out.path = resolve(cwd, out.path);
	}
	if (name === "bash" && options?.commandPrefix) out.command = `${options.commandPrefix}\n${out.command}`;
	return out;
}

// Bash options that say how commands run make the command run here (pi_coding_agent_bash.mjs).
const runsLocally = (name, options) =>
	name === "bash" && !!(options?.operations || options?.spawnHook || options?.shellPath);

function executorFor(name, cwd, options) {
	return async (_toolCallId, params, signal, onUpdate, _ctx) => {
		if (name !== "bash" && options?.operations) throw notSupportedError(`${CREATOR[name]} with operations`);
		if (name === "edit" && (!Array.isArray(params?.edits) || params.edits.length === 0)) {
			throw new Error("Edit tool input is invalid. edits must contain at least one replacement.");
		}
		if (runsLocally(name, options)) {
			return bashWithOperations(options, hostParams(name, params, cwd, options), cwd, signal, onUpdate);
		}
		const host = piHost();
		if (typeof host?.callTool !== "function") throw notSupportedError(`the ${name} tool outside pi-agent`);
		return host.callTool(name, hostParams(name, params, cwd, options), signal, { cwd, onUpdate });
	};
}

function definition(name, cwd, options) {
	const spec = SPECS[name];
	const def = { name, label: name, description: spec.description, promptSnippet: spec.snippet };
	if (spec.guidelines) {
		def.promptGuidelines =
			name === "bash" && options?.exposeSessionEnvironment === false ? undefined : [...spec.guidelines];
	}
	def.parameters = spec.schema;
	if (name === "edit") {
		def.renderShell = "self";
		def.prepareArguments = prepareEditArguments;
	}
	def.execute = executorFor(name, cwd, options);
	return def;
}

/** A tool definition as the agent runs it (pi's wrapToolDefinition). */
export function agentTool(def) {
	return {
		name: def.name,
		label: def.label,
		description: def.description,
		parameters: def.parameters,
		constrainedSampling: def.constrainedSampling,
		prepareArguments: def.prepareArguments,
		executionMode: def.executionMode,
		execute: (toolCallId, params, signal, onUpdate, ctx) => def.execute(toolCallId, params, signal, onUpdate, ctx),
	};
}

export const createReadToolDefinition = (cwd, options) => definition("read", cwd, options);
export const createBashToolDefinition = (cwd, options) => definition("bash", cwd, options);
export const createEditToolDefinition = (cwd, options) => definition("edit", cwd, options);
export const createWriteToolDefinition = (cwd, options) => definition("write", cwd, options);
export const createGrepToolDefinition = (cwd, options) => definition("grep", cwd, options);
export const createFindToolDefinition = (cwd, options) => definition("find", cwd, options);
export const createLsToolDefinition = (cwd, options) => definition("ls", cwd, options);

export const createReadTool = (cwd, options) => agentTool(createReadToolDefinition(cwd, options));
export const createEditTool = (cwd, options) => agentTool(createEditToolDefinition(cwd, options));
export const createWriteTool = (cwd, options) => agentTool(createWriteToolDefinition(cwd, options));
export const createGrepTool = (cwd, options) => agentTool(createGrepToolDefinition(cwd, options));
export const createFindTool = (cwd, options) => agentTool(createFindToolDefinition(cwd, options));
export const createLsTool = (cwd, options) => agentTool(createLsToolDefinition(cwd, options));

/** The bash tool also carries its prompt snippet and guidelines, as pi's does. */
export function createBashTool(cwd, options) {
	const def = createBashToolDefinition(cwd, options);
	return Object.assign(agentTool(def), { promptSnippet: def.promptSnippet, promptGuidelines: def.promptGuidelines });
}

/** read, bash, edit, write. Options by tool name: {read: {...}, bash: {...}, ...}. */
export function createCodingTools(cwd, options) {
	return [
		createReadTool(cwd, options?.read),
		createBashTool(cwd, options?.bash),
		createEditTool(cwd, options?.edit),
		createWriteTool(cwd, options?.write),
	];
}

/** read, grep, find, ls. */
export function createReadOnlyTools(cwd, options) {
	return [
		createReadTool(cwd, options?.read),
		createGrepTool(cwd, options?.grep),
		createFindTool(cwd, options?.find),
		createLsTool(cwd, options?.ls),
	];
}
