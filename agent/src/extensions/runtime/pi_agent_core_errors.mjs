// pi-agent-core's results and errors: Result values, tagged errors (one class per tag, with
// `_tag`, toJSON and is()), and the error classes of the harness, files, execution,
// compaction, branch summaries and sessions.

export const Result = {
	ok: (value) => ({ ok: true, value }),
	err: (error) => ({ ok: false, error }),
	isOk: (result) => result.ok,
	isErr: (result) => !result.ok,
};

export function ok(value) {
	return { ok: true, value };
}

export function err(error) {
	return { ok: false, error };
}

export function getOrThrow(result) {
	if (!result.ok) throw result.error;
	return result.value;
}

export function getOrUndefined(result) {
	return result.ok ? result.value : undefined;
}

/** An Error for any thrown value: strings as the message, other values as their JSON. */
export function toError(error) {
	if (error instanceof Error) return error;
	if (typeof error === "string") return new Error(error);
	try {
		return new Error(JSON.stringify(error));
	} catch {
		return new Error(String(error));
	}
}

/** A base class for errors of one tag: new (Class)({message, ...fields}). */
export function TaggedError(tag) {
	class Tagged extends Error {
		_tag = tag;
		constructor(props) {
			super(props.message);
			this.name = tag;
			Object.assign(this, props);
		}
		toJSON() {
			const fields = {};
			for (const key of Object.keys(this)) if (key !== "_tag") fields[key] = this[key];
			return { _tag: tag, message: this.message, ...fields };
		}
		static is(value) {
			return value instanceof Tagged;
		}
	}
	return Tagged;
}

/** Calls the matcher named by the error's tag. */
export function matchError(error, matchers) {
	return matchers[error._tag](error);
}

export class LaneBusy extends TaggedError("LaneBusy") {}
export class MissingIdentities extends TaggedError("MissingIdentities") {}
export class NoActiveRun extends TaggedError("NoActiveRun") {}
export class NoActiveOperation extends TaggedError("NoActiveOperation") {}
export class NothingToResume extends TaggedError("NothingToResume") {}
export class InvalidMessage extends TaggedError("InvalidMessage") {}
export class UnknownSkill extends TaggedError("UnknownSkill") {}
export class UnknownTemplate extends TaggedError("UnknownTemplate") {}
export class UnknownTarget extends TaggedError("UnknownTarget") {}
export class UnknownQueueItem extends TaggedError("UnknownQueueItem") {}
export class LaneExists extends TaggedError("LaneExists") {}
export class InvalidLane extends TaggedError("InvalidLane") {}
export class NothingToCompact extends TaggedError("NothingToCompact") {}
export class Closed extends TaggedError("Closed") {}

export class HarnessFault extends Error {
	cause;
	constructor(message, cause) {
		super(message);
		this.name = "HarnessFault";
		this.cause = cause;
	}
}

export class HarnessClosed extends Error {
	constructor() {
		super("AgentHarness was closed while the operation was active");
		this.name = "HarnessClosed";
	}
}

export class HarnessNotImplemented extends Error {
	operation;
	constructor(operation) {
		super(`AgentHarness.${operation} is not implemented yet`);
		this.name = "HarnessNotImplemented";
		this.operation = operation;
	}
}

// Errors with a backend-independent `code` (and an optional cause).
function codedError(name) {
	const cls = class extends Error {
		code;
		constructor(code, message, cause) {
			super(message, cause === undefined ? undefined : { cause });
			this.name = name;
			this.code = code;
		}
	};
	Object.defineProperty(cls, "name", { value: name });
	return cls;
}

export const ExecutionError = codedError("ExecutionError");
export const CompactionError = codedError("CompactionError");
export const BranchSummaryError = codedError("BranchSummaryError");
export const SessionError = codedError("SessionError");

/** A file operation's failure; `path` is the absolute path it addressed, when known. */
export class FileError extends Error {
	code;
	path;
	constructor(code, message, path, cause) {
		super(message, cause === undefined ? undefined : { cause });
		this.name = "FileError";
		this.code = code;
		this.path = path;
	}
}
