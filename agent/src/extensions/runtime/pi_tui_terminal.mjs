// The terminal side of pi-tui. pi-agent has no terminal (RPC, print and JSON modes only), so
// the terminal and TUI classes exist for imports to bind but cannot be constructed. The input
// splitter StdinBuffer is pure and works.
import { EventEmitter } from "node:events";

/** The error a terminal-only API raises in pi-agent. */
export function notSupported(name) {
	return new Error(`${name} is not supported by pi-agent yet`);
}

export class ProcessTerminal {
	constructor() {
		throw notSupported("ProcessTerminal");
	}
}

export class TuiAltScreen {
	constructor() {
		throw notSupported("TuiAltScreen");
	}
}

export class TuiMainScreen {
	constructor() {
		throw notSupported("TuiMainScreen");
	}
}

const ESC = "\x1b";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

// "complete", "incomplete" or "not-escape" for a candidate escape sequence.
function sequenceStatus(data) {
	if (!data.startsWith(ESC)) return "not-escape";
	if (data.length === 1) return "incomplete";
	const kind = data[1];
	const endsWithSt = data.endsWith(`${ESC}\\`);
	if (kind === "[") {
		// Legacy X10 mouse report: ESC [ M and three bytes.
		if (data[2] === "M") return data.length >= 6 ? "complete" : "incomplete";
		if (data.length < 3) return "incomplete";
		const payload = data.slice(2);
		const last = payload.charCodeAt(payload.length - 1);
		if (last < 0x40 || last > 0x7e) return "incomplete";
		// SGR mouse reports end in M/m too, but only after three numbers.
		if (payload.startsWith("<")) return /^<\d+;\d+;\d+[Mm]$/.test(payload) ? "complete" : "incomplete";
		return "complete";
	}
	if (kind === "]") return endsWithSt || data.endsWith("\x07") ? "complete" : "incomplete";
	if (kind === "P" || kind === "_") return endsWithSt ? "complete" : "incomplete";
	if (kind === "O") return data.length >= 3 ? "complete" : "incomplete";
	return "complete";
}

// Split `buffer` into whole sequences and single characters; an unfinished escape sequence at
// the end is returned as the remainder.
function splitSequences(buffer) {
	const sequences = [];
	let pos = 0;
	while (pos < buffer.length) {
		if (buffer[pos] !== ESC) {
			sequences.push(buffer[pos]);
			pos++;
			continue;
		}
		const rest = buffer.slice(pos);
		let end = 1;
		while (end <= rest.length && sequenceStatus(rest.slice(0, end)) === "incomplete") end++;
		if (end > rest.length) return { sequences, remainder: rest };
		const candidate = rest.slice(0, end);
		// ESC ESC followed by a sequence introducer is a lone Escape then that sequence
		// (WezTerm sends a raw Escape press before its Kitty release report).
		if (candidate === `${ESC}${ESC}` && "[]OP_".includes(rest[end] ?? "\0")) {
			sequences.push(ESC);
			pos += 1;
			continue;
		}
		sequences.push(candidate);
		pos += end;
	}
	return { sequences, remainder: "" };
}

const plainKittyPrintable = (sequence) => {
	const m = /^\x1b\[(\d+)(?::\d*)?(?::\d+)?u$/.exec(sequence);
	if (!m) return undefined;
	const cp = Number.parseInt(m[1], 10);
	return cp >= 32 ? cp : undefined;
};

/**
 * Buffers raw stdin chunks and emits whole key sequences ("data") and bracketed pastes
 * ("paste"); an unfinished escape sequence is flushed as is after `timeout` ms.
 */
export class StdinBuffer extends EventEmitter {
	buffer = "";
	timeout = null;
	pasteMode = false;
	pasteBuffer = "";
	pendingKittyPrintableCodepoint;

	constructor(options = {}) {
		super();
		this.timeoutMs = options.timeout ?? 10;
	}

	process(data) {
		this.cancelTimer();
		let str = data;
		if (Buffer.isBuffer(data)) {
			// A lone high byte is the old 8-bit meta encoding: ESC + (byte - 128).
			str = data.length === 1 && data[0] > 127 ? `${ESC}${String.fromCharCode(data[0] - 128)}` : data.toString();
		}
		if (str.length === 0 && this.buffer.length === 0) {
			this.emitDataSequence("");
			return;
		}
		this.buffer += str;
		if (this.pasteMode) {
			this.pasteBuffer += this.buffer;
			this.buffer = "";
			this.finishPasteIfEnded();
			return;
		}
		const start = this.buffer.indexOf(PASTE_START);
		if (start !== -1) {
			if (start > 0) for (const seq of splitSequences(this.buffer.slice(0, start)).sequences) this.emitDataSequence(seq);
			this.pendingKittyPrintableCodepoint = undefined;
			this.pasteMode = true;
			this.pasteBuffer = this.buffer.slice(start + PASTE_START.length);
			this.buffer = "";
			this.finishPasteIfEnded();
			return;
		}
		const { sequences, remainder } = splitSequences(this.buffer);
		this.buffer = remainder;
		for (const seq of sequences) this.emitDataSequence(seq);
		if (this.buffer.length > 0) {
			this.timeout = setTimeout(() => {
				for (const seq of this.flush()) this.emitDataSequence(seq);
			}, this.timeoutMs);
		}
	}

	finishPasteIfEnded() {
		const end = this.pasteBuffer.indexOf(PASTE_END);
		if (end === -1) return;
		const pasted = this.pasteBuffer.slice(0, end);
		const rest = this.pasteBuffer.slice(end + PASTE_END.length);
		this.pasteMode = false;
		this.pasteBuffer = "";
		this.pendingKittyPrintableCodepoint = undefined;
		this.emit("paste", pasted);
		if (rest.length > 0) this.process(rest);
	}

	// A terminal that reports a printable key as CSI u may also send the raw character: drop
	// the duplicate.
	emitDataSequence(sequence) {
		const raw = sequence.length === 1 ? sequence.codePointAt(0) : undefined;
		if (raw !== undefined && raw === this.pendingKittyPrintableCodepoint) {
			this.pendingKittyPrintableCodepoint = undefined;
			return;
		}
		this.pendingKittyPrintableCodepoint = plainKittyPrintable(sequence);
		this.emit("data", sequence);
	}

	cancelTimer() {
		if (this.timeout) {
			clearTimeout(this.timeout);
			this.timeout = null;
		}
	}

	flush() {
		this.cancelTimer();
		if (this.buffer.length === 0) return [];
		const out = [this.buffer];
		this.buffer = "";
		this.pendingKittyPrintableCodepoint = undefined;
		return out;
	}

	clear() {
		this.cancelTimer();
		this.buffer = "";
		this.pasteMode = false;
		this.pasteBuffer = "";
		this.pendingKittyPrintableCodepoint = undefined;
	}

	getBuffer() {
		return this.buffer;
	}

	destroy() {
		this.clear();
	}
}
