// Terminal capabilities and inline images (Kitty and iTerm2 protocols, with a text fallback),
// OSC 8 hyperlinks, and parsing of terminal colour reports.
import { execSync } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { truncateToWidth } from "./pi_tui_ansi.mjs";

let capabilities = null;
let cellDimensions = { widthPx: 9, heightPx: 18 };

export function getCellDimensions() {
	return cellDimensions;
}

export function setCellDimensions(dims) {
	cellDimensions = dims;
}

// tmux passes OSC 8 links on only when its client lists the "hyperlinks" feature.
function tmuxForwardsHyperlinks() {
	try {
		const features = execSync("tmux display-message -p '#{client_termfeatures}'", {
			encoding: "utf8",
			timeout: 250,
			stdio: ["ignore", "pipe", "ignore"],
		});
		return features
			.split(",")
			.map((f) => f.trim())
			.includes("hyperlinks");
	} catch {
		return false;
	}
}

const caps = (images, trueColor, hyperlinks) => ({ images, trueColor, hyperlinks });

/** What the terminal supports, judged from the environment. */
export function detectCapabilities(tmuxHyperlinks = tmuxForwardsHyperlinks) {
	const env = process.env;
	const program = env.TERM_PROGRAM?.toLowerCase() || "";
	const emulator = env.TERMINAL_EMULATOR?.toLowerCase() || "";
	const term = env.TERM?.toLowerCase() || "";
	const colorTerm = env.COLORTERM?.toLowerCase() || "";
	const trueColorHint = colorTerm === "truecolor" || colorTerm === "24bit";
	if (env.TMUX || term.startsWith("tmux")) return caps(null, trueColorHint, tmuxHyperlinks());
	if (term.startsWith("screen")) return caps(null, trueColorHint, false);
	if (env.KITTY_WINDOW_ID || program === "kitty") return caps("kitty", true, true);
	if (program === "ghostty" || term.includes("ghostty") || env.GHOSTTY_RESOURCES_DIR) return caps("kitty", true, true);
	if (env.WEZTERM_PANE || program === "wezterm") return caps("kitty", true, true);
	if (program === "warpterminal" || env.WARP_SESSION_ID || env.WARP_TERMINAL_SESSION_UUID) return caps("kitty", true, true);
	if (env.ITERM_SESSION_ID || program === "iterm.app") return caps("iterm2", true, true);
	if (env.WT_SESSION || program === "vscode" || program === "alacritty") return caps(null, true, true);
	if (emulator === "jetbrains-jediterm") return caps(null, true, false);
	if (process.platform === "win32") return caps(null, true, false);
	return caps(null, trueColorHint, false);
}

export function getCapabilities() {
	if (!capabilities) capabilities = detectCapabilities();
	return capabilities;
}

export function resetCapabilitiesCache() {
	capabilities = null;
}

export function setCapabilities(value) {
	capabilities = value;
}

const KITTY_START = "\x1b_G";
const ITERM2_START = "\x1b]1337;File=";

/** Whether a rendered line carries an inline image. */
export function isImageLine(line) {
	return line.includes(KITTY_START) || line.includes(ITERM2_START);
}

/** A random Kitty image id in [1, 0xffffffff]. */
export function allocateImageId() {
	return Math.floor(Math.random() * 0xfffffffe) + 1;
}

/** Kitty graphics: transmit and show PNG data (chunked at 4096 base64 characters). */
export function encodeKitty(base64Data, options = {}) {
	const params = ["a=T", "f=100", "q=2"];
	if (options.moveCursor === false) params.push("C=1");
	if (options.columns) params.push(`c=${options.columns}`);
	if (options.rows) params.push(`r=${options.rows}`);
	if (options.imageId) params.push(`i=${options.imageId}`);
	const CHUNK = 4096;
	if (base64Data.length <= CHUNK) return `${KITTY_START}${params.join(",")};${base64Data}\x1b\\`;
	let out = "";
	for (let offset = 0; offset < base64Data.length; offset += CHUNK) {
		const chunk = base64Data.slice(offset, offset + CHUNK);
		const last = offset + CHUNK >= base64Data.length;
		if (offset === 0) out += `${KITTY_START}${params.join(",")},m=1;${chunk}\x1b\\`;
		else out += `${KITTY_START}m=${last ? 0 : 1};${chunk}\x1b\\`;
	}
	return out;
}

export function deleteKittyImage(imageId) {
	return `${KITTY_START}a=d,d=I,i=${imageId},q=2\x1b\\`;
}

export function deleteAllKittyImages() {
	return `${KITTY_START}a=d,d=A,q=2\x1b\\`;
}

/** iTerm2 inline image (OSC 1337 File=). */
export function encodeITerm2(base64Data, options = {}) {
	const params = [`inline=${options.inline !== false ? 1 : 0}`, `size=${Buffer.byteLength(base64Data, "base64")}`];
	if (options.width !== undefined) params.push(`width=${options.width}`);
	if (options.height !== undefined) params.push(`height=${options.height}`);
	if (options.name) params.push(`name=${Buffer.from(options.name).toString("base64")}`);
	if (options.preserveAspectRatio === false) params.push("preserveAspectRatio=0");
	return `${ITERM2_START}${params.join(";")}:${base64Data}\x07`;
}

// Cells an image takes when scaled to fit the given columns (and rows, if limited).
function imageCellSize(dims, maxColumns, maxRows, cell = { widthPx: 9, heightPx: 18 }) {
	const maxW = Math.max(1, Math.floor(maxColumns));
	const maxH = maxRows === undefined ? undefined : Math.max(1, Math.floor(maxRows));
	const w = Math.max(1, dims.widthPx);
	const h = Math.max(1, dims.heightPx);
	const byWidth = (maxW * cell.widthPx) / w;
	const scale = Math.min(byWidth, maxH === undefined ? byWidth : (maxH * cell.heightPx) / h);
	const columns = Math.ceil((w * scale) / cell.widthPx);
	const rows = Math.ceil((h * scale) / cell.heightPx);
	return { columns: Math.max(1, Math.min(maxW, columns)), rows: Math.max(1, maxH === undefined ? rows : Math.min(maxH, rows)) };
}

/** Rows an image takes at `targetWidthCells` columns. */
export function calculateImageRows(imageDimensions, targetWidthCells, cell = { widthPx: 9, heightPx: 18 }) {
	return imageCellSize(imageDimensions, targetWidthCells, undefined, cell).rows;
}

const decode = (base64Data) => Buffer.from(base64Data, "base64");
const safely = (read) => {
	try {
		return read();
	} catch {
		return null;
	}
};

export function getPngDimensions(base64Data) {
	return safely(() => {
		const b = decode(base64Data);
		if (b.length < 24 || b[0] !== 0x89 || b[1] !== 0x50 || b[2] !== 0x4e || b[3] !== 0x47) return null;
		return { widthPx: b.readUInt32BE(16), heightPx: b.readUInt32BE(20) };
	});
}

export function getJpegDimensions(base64Data) {
	return safely(() => {
		const b = decode(base64Data);
		if (b.length < 2 || b[0] !== 0xff || b[1] !== 0xd8) return null;
		// Walk the segments to the first start-of-frame (SOF0..SOF2).
		let at = 2;
		while (at < b.length - 9) {
			if (b[at] !== 0xff) {
				at++;
				continue;
			}
			const marker = b[at + 1];
			if (marker >= 0xc0 && marker <= 0xc2) return { widthPx: b.readUInt16BE(at + 7), heightPx: b.readUInt16BE(at + 5) };
			if (at + 3 >= b.length) return null;
			const length = b.readUInt16BE(at + 2);
			if (length < 2) return null;
			at += 2 + length;
		}
		return null;
	});
}

export function getGifDimensions(base64Data) {
	return safely(() => {
		const b = decode(base64Data);
		if (b.length < 10) return null;
		const signature = b.subarray(0, 6).toString("ascii");
		if (signature !== "GIF87a" && signature !== "GIF89a") return null;
		return { widthPx: b.readUInt16LE(6), heightPx: b.readUInt16LE(8) };
	});
}

export function getWebpDimensions(base64Data) {
	return safely(() => {
		const b = decode(base64Data);
		if (b.length < 30) return null;
		if (b.subarray(0, 4).toString("ascii") !== "RIFF" || b.subarray(8, 12).toString("ascii") !== "WEBP") return null;
		const chunk = b.subarray(12, 16).toString("ascii");
		if (chunk === "VP8 ") return { widthPx: b.readUInt16LE(26) & 0x3fff, heightPx: b.readUInt16LE(28) & 0x3fff };
		if (chunk === "VP8L") {
			const bits = b.readUInt32LE(21);
			return { widthPx: (bits & 0x3fff) + 1, heightPx: ((bits >> 14) & 0x3fff) + 1 };
		}
		if (chunk === "VP8X") {
			return { widthPx: (b[24] | (b[25] << 8) | (b[26] << 16)) + 1, heightPx: (b[27] | (b[28] << 8) | (b[29] << 16)) + 1 };
		}
		return null;
	});
}

export function getImageDimensions(base64Data, mimeType) {
	const readers = {
		"image/png": getPngDimensions,
		"image/jpeg": getJpegDimensions,
		"image/gif": getGifDimensions,
		"image/webp": getWebpDimensions,
	};
	return readers[mimeType]?.(base64Data) ?? null;
}

/** The escape sequence drawing an image on this terminal, or null when it cannot. */
export function renderImage(base64Data, imageDimensions, options = {}) {
	const c = getCapabilities();
	if (!c.images) return null;
	const size = imageCellSize(imageDimensions, options.maxWidthCells ?? 80, options.maxHeightCells, getCellDimensions());
	if (c.images === "kitty") {
		const sequence = encodeKitty(base64Data, { columns: size.columns, rows: size.rows, imageId: options.imageId, moveCursor: options.moveCursor });
		return { sequence, columns: size.columns, rows: size.rows, imageId: options.imageId };
	}
	if (c.images === "iterm2") {
		const sequence = encodeITerm2(base64Data, { width: size.columns, height: "auto", preserveAspectRatio: options.preserveAspectRatio ?? true });
		return { sequence, columns: size.columns, rows: size.rows };
	}
	return null;
}

/** `text` as an OSC 8 hyperlink to `url`. */
export function hyperlink(text, url) {
	return `\x1b]8;;${url}\x1b\\${text}\x1b]8;;\x1b\\`;
}

function shortenHome(filename) {
	const home = homedir();
	if (home && (filename === home || filename.startsWith(`${home}/`) || filename.startsWith(`${home}\\`))) return `~${filename.slice(home.length)}`;
	return filename;
}

/** "[Image: name [mime] WxH]" for terminals without inline images. */
export function imageFallback(mimeType, dimensions, filename) {
	const parts = [];
	if (filename) {
		const shown = shortenHome(filename);
		parts.push(getCapabilities().hyperlinks && isAbsolute(filename) ? hyperlink(shown, pathToFileURL(filename).href) : shown);
	}
	parts.push(`[${mimeType}]`);
	if (dimensions) parts.push(`${dimensions.widthPx}x${dimensions.heightPx}`);
	return `[Image: ${parts.join(" ")}]`;
}

/** An image component: the inline image when the terminal has one, else the fallback text. */
export class Image {
	constructor(base64Data, mimeType, theme, options = {}, dimensions) {
		this.base64Data = base64Data;
		this.mimeType = mimeType;
		this.theme = theme;
		this.options = options;
		this.dimensions = dimensions || getImageDimensions(base64Data, mimeType) || { widthPx: 800, heightPx: 600 };
		this.imageId = options.imageId;
	}

	getImageId() {
		return this.imageId;
	}

	invalidate() {
		this.cachedLines = undefined;
		this.cachedWidth = undefined;
	}

	render(width) {
		if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
		const maxWidth = Math.max(1, Math.min(width - 2, this.options.maxWidthCells ?? 60));
		const cell = getCellDimensions();
		const maxHeight = this.options.maxHeightCells ?? Math.max(1, Math.ceil((maxWidth * cell.widthPx) / cell.heightPx));
		const c = getCapabilities();
		let lines;
		let result = null;
		if (c.images) {
			if (c.images === "kitty" && this.imageId === undefined) this.imageId = allocateImageId();
			result = renderImage(this.base64Data, this.dimensions, { maxWidthCells: maxWidth, maxHeightCells: maxHeight, imageId: this.imageId, moveCursor: false });
		}
		if (result) {
			if (result.imageId) this.imageId = result.imageId;
			const blanks = Array(result.rows - 1).fill("");
			if (c.images === "kitty") {
				lines = [result.sequence, ...blanks];
			} else {
				// iTerm2 draws from the last row: move up, draw, and let the cursor come back.
				const up = result.rows - 1 > 0 ? `\x1b[${result.rows - 1}A` : "";
				lines = [...blanks, up + result.sequence];
			}
		} else {
			lines = [truncateToWidth(this.theme.fallbackColor(imageFallback(this.mimeType, this.dimensions, this.options.filename)), width)];
		}
		this.cachedLines = lines;
		this.cachedWidth = width;
		return lines;
	}
}

const OSC11_REPLY = /^\x1b\]11;([^\x07\x1b]*)(?:\x07|\x1b\\)$/i;

// A hex colour channel of any length scaled to 0..255.
function channel(hex) {
	if (!/^[0-9a-f]+$/i.test(hex)) return undefined;
	const max = 16 ** hex.length - 1;
	return max <= 0 ? undefined : Math.round((Number.parseInt(hex, 16) / max) * 255);
}

const rgbOf = (r, g, b) => (r !== undefined && g !== undefined && b !== undefined ? { r, g, b } : undefined);

/** The background colour in a terminal's OSC 11 reply ({ r, g, b }), or undefined. */
export function parseOsc11BackgroundColor(data) {
	const m = OSC11_REPLY.exec(data);
	if (!m) return undefined;
	const value = m[1].trim();
	if (value.startsWith("#")) {
		const hex = value.slice(1);
		if (/^[0-9a-f]{6}$/i.test(hex)) return { r: Number.parseInt(hex.slice(0, 2), 16), g: Number.parseInt(hex.slice(2, 4), 16), b: Number.parseInt(hex.slice(4, 6), 16) };
		if (/^[0-9a-f]{12}$/i.test(hex)) return rgbOf(channel(hex.slice(0, 4)), channel(hex.slice(4, 8)), channel(hex.slice(8, 12)));
		return undefined;
	}
	const [r, g, b] = value.replace(/^rgba?:/i, "").split("/");
	if (r === undefined || g === undefined || b === undefined) return undefined;
	return rgbOf(channel(r), channel(g), channel(b));
}

/** "light" or "dark" from a terminal's colour-scheme report (CSI ? 997 ; 1|2 n). */
export function parseTerminalColorSchemeReport(data) {
	const m = /^(?:\x1b\[\?997;(1|2)n)+$/.exec(data);
	if (!m) return undefined;
	return m[1] === "2" ? "light" : "dark";
}
