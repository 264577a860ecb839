// Truncation of tool output, as pi's tools do it: by lines and by UTF-8 bytes, whichever limit
// is reached first, never cutting a line (except the one line the tail of a too-long last
// line keeps).

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
export const GREP_MAX_LINE_LENGTH = 500;

const byteLength = (text) => Buffer.byteLength(text, "utf-8");

// The lines of `content`; a final newline does not start another line.
function linesOf(content) {
	if (content.length === 0) return [];
	const lines = content.split("\n");
	if (content.endsWith("\n")) lines.pop();
	return lines;
}

/** 512B, 1.5KB, 2.0MB: bytes below 1 KiB, else KiB or MiB with one decimal. */
export function formatSize(bytes) {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function result(content, fields) {
	return {
		content,
		truncated: true,
		truncatedBy: fields.truncatedBy,
		totalLines: fields.totalLines,
		totalBytes: fields.totalBytes,
		outputLines: fields.outputLines,
		outputBytes: byteLength(content),
		lastLinePartial: fields.lastLinePartial ?? false,
		firstLineExceedsLimit: fields.firstLineExceedsLimit ?? false,
		maxLines: fields.maxLines,
		maxBytes: fields.maxBytes,
	};
}

function untouched(content, totalLines, totalBytes, maxLines, maxBytes) {
	return {
		content,
		truncated: false,
		truncatedBy: null,
		totalLines,
		totalBytes,
		outputLines: totalLines,
		outputBytes: totalBytes,
		lastLinePartial: false,
		firstLineExceedsLimit: false,
		maxLines,
		maxBytes,
	};
}

/**
 * Keeps the first whole lines that fit both limits (for file reads). When the first line alone
 * is over the byte limit, nothing is kept and firstLineExceedsLimit is set.
 */
export function truncateHead(content, options = {}) {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const totalBytes = byteLength(content);
	const lines = linesOf(content);
	const totalLines = lines.length;
	if (totalLines <= maxLines && totalBytes <= maxBytes) {
		return untouched(content, totalLines, totalBytes, maxLines, maxBytes);
	}
	const fields = { totalLines, totalBytes, maxLines, maxBytes };
	if (byteLength(lines[0]) > maxBytes) {
		return result("", { ...fields, truncatedBy: "bytes", outputLines: 0, firstLineExceedsLimit: true });
	}
	const kept = [];
	let bytes = 0;
	let truncatedBy = "lines";
	for (const line of lines) {
		if (kept.length >= maxLines) break;
		const cost = byteLength(line) + (kept.length > 0 ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			break;
		}
		kept.push(line);
		bytes += cost;
	}
	if (kept.length >= maxLines && bytes <= maxBytes) truncatedBy = "lines";
	return result(kept.join("\n"), { ...fields, truncatedBy, outputLines: kept.length });
}

// The longest end of `text` within `maxBytes` that starts on a character boundary.
function tailBytes(text, maxBytes) {
	const buffer = Buffer.from(text, "utf-8");
	if (buffer.length <= maxBytes) return text;
	let start = buffer.length - maxBytes;
	while (start < buffer.length && (buffer[start] & 0xc0) === 0x80) start++;
	return buffer.subarray(start).toString("utf-8");
}

/**
 * Keeps the last whole lines that fit both limits (for command output). When the last line
 * alone is over the byte limit, its end is kept (lastLinePartial).
 */
export function truncateTail(content, options = {}) {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const totalBytes = byteLength(content);
	const lines = linesOf(content);
	const totalLines = lines.length;
	if (totalLines <= maxLines && totalBytes <= maxBytes) {
		return untouched(content, totalLines, totalBytes, maxLines, maxBytes);
	}
	const kept = [];
	let bytes = 0;
	let truncatedBy = "lines";
	let lastLinePartial = false;
	for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
		const cost = byteLength(lines[i]) + (kept.length > 0 ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			if (kept.length === 0) {
				const end = tailBytes(lines[i], maxBytes);
				kept.unshift(end);
				bytes = byteLength(end);
				lastLinePartial = true;
			}
			break;
		}
		kept.unshift(lines[i]);
		bytes += cost;
	}
	if (kept.length >= maxLines && bytes <= maxBytes) truncatedBy = "lines";
	return result(kept.join("\n"), {
		totalLines,
		totalBytes,
		maxLines,
		maxBytes,
		truncatedBy,
		outputLines: kept.length,
		lastLinePartial,
	});
}

/** Cuts a line to `maxChars` UTF-16 units, marking the cut with "... [truncated]". */
export function truncateLine(line, maxChars = GREP_MAX_LINE_LENGTH) {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
