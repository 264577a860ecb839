// Terminal image, capability and colour-report cases, plus StdinBuffer.
const png = (w, h) => {
	const b = Buffer.alloc(33);
	Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
	b.writeUInt32BE(13, 8);
	b.write("IHDR", 12, "ascii");
	b.writeUInt32BE(w, 16);
	b.writeUInt32BE(h, 20);
	return b.toString("base64");
};
const gif = (w, h) => {
	const b = Buffer.alloc(13);
	b.write("GIF89a", 0, "ascii");
	b.writeUInt16LE(w, 6);
	b.writeUInt16LE(h, 8);
	return b.toString("base64");
};
const jpeg = (w, h) => {
	// SOI, an APP0 segment, then SOF0 with height and width.
	const app0 = [0xff, 0xe0, 0x00, 0x04, 0x00, 0x00];
	const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 0x03, 0, 0, 0, 0, 0, 0];
	return Buffer.from([0xff, 0xd8, ...app0, ...sof]).toString("base64");
};
const webp = (kind, w, h) => {
	const b = Buffer.alloc(32);
	b.write("RIFF", 0, "ascii");
	b.write("WEBP", 8, "ascii");
	b.write(kind, 12, "ascii");
	if (kind === "VP8 ") {
		b.writeUInt16LE(w, 26);
		b.writeUInt16LE(h, 28);
	} else if (kind === "VP8L") {
		b.writeUInt32LE(((w - 1) & 0x3fff) | (((h - 1) & 0x3fff) << 14), 21);
	} else {
		b.writeUIntLE(w - 1, 24, 3);
		b.writeUIntLE(h - 1, 27, 3);
	}
	return b.toString("base64");
};

export function imageCases(tui) {
	const cases = [];
	const samples = [
		[png(640, 480), "image/png"],
		[gif(32, 16), "image/gif"],
		[jpeg(1920, 1080), "image/jpeg"],
		[webp("VP8 ", 300, 200), "image/webp"],
		[webp("VP8L", 1000, 10), "image/webp"],
		[webp("VP8X", 4000, 3000), "image/webp"],
		["bm90IGFuIGltYWdl", "image/png"],
		["", "image/gif"],
		[png(1, 1), "image/bmp"],
	];
	cases.push(["getImageDimensions", () => samples.map(([data, mime]) => tui.getImageDimensions(data, mime))]);
	cases.push([
		"dimension readers",
		() => samples.map(([data]) => [tui.getPngDimensions(data), tui.getGifDimensions(data), tui.getJpegDimensions(data), tui.getWebpDimensions(data)]),
	]);
	cases.push([
		"calculateImageRows",
		() => [
			tui.calculateImageRows({ widthPx: 640, heightPx: 480 }, 40),
			tui.calculateImageRows({ widthPx: 10, heightPx: 1000 }, 80),
			tui.calculateImageRows({ widthPx: 0, heightPx: 0 }, 0),
			tui.calculateImageRows({ widthPx: 640, heightPx: 480 }, 40, { widthPx: 10, heightPx: 20 }),
		],
	]);
	const big = "A".repeat(9000);
	cases.push([
		"encoders",
		() => [
			tui.encodeKitty("abcd"),
			tui.encodeKitty("abcd", { columns: 10, rows: 5, imageId: 7, moveCursor: false }),
			tui.encodeKitty(big, { columns: 3 }),
			tui.encodeITerm2("aGVsbG8="),
			tui.encodeITerm2("aGVsbG8=", { inline: false, width: 10, height: "auto", name: "pic.png", preserveAspectRatio: false }),
			tui.deleteKittyImage(42),
			tui.deleteAllKittyImages(),
			tui.hyperlink("text", "https://x.example"),
		],
	]);
	const withCaps = (caps, fn) => () => {
		tui.setCapabilities(caps);
		try {
			return fn();
		} finally {
			tui.resetCapabilitiesCache();
		}
	};
	const fallbackTheme = { fallbackColor: (s) => `\x1b[33m${s}\x1b[39m` };
	cases.push([
		"Image.fallback",
		withCaps({ images: null, trueColor: false, hyperlinks: false }, () => {
			const a = new tui.Image(samples[0][0], "image/png", fallbackTheme, { filename: "/tmp/shot.png" });
			const b = new tui.Image("xx", "image/png", fallbackTheme);
			const c = new tui.Image("xx", "image/jpeg", fallbackTheme, {}, { widthPx: 5, heightPx: 6 });
			return [a.render(80), a.render(20), b.render(80), c.render(80), a.getImageId()];
		}),
	]);
	cases.push([
		"Image.fallback.hyperlinks",
		withCaps({ images: null, trueColor: true, hyperlinks: true }, () => [
			tui.imageFallback("image/png", { widthPx: 2, heightPx: 3 }, "/abs/pic.png"),
			tui.imageFallback("image/png", undefined, "rel/pic.png"),
			tui.imageFallback("image/gif"),
		]),
	]);
	cases.push([
		"Image.kitty",
		withCaps({ images: "kitty", trueColor: true, hyperlinks: true }, () => {
			tui.setCellDimensions({ widthPx: 9, heightPx: 18 });
			const img = new tui.Image(samples[0][0], "image/png", fallbackTheme, { imageId: 99, maxWidthCells: 20 });
			return [img.render(80), img.render(10), img.getImageId(), tui.renderImage(samples[0][0], { widthPx: 640, heightPx: 480 }, { maxWidthCells: 30, imageId: 5 })];
		}),
	]);
	cases.push([
		"Image.iterm2",
		withCaps({ images: "iterm2", trueColor: true, hyperlinks: true }, () => {
			const img = new tui.Image(samples[1][0], "image/gif", fallbackTheme, { maxHeightCells: 4 });
			return [img.render(40), tui.renderImage(samples[1][0], { widthPx: 32, heightPx: 16 }, { preserveAspectRatio: false })];
		}),
	]);
	cases.push([
		"cellDimensions",
		() => {
			const before = tui.getCellDimensions();
			tui.setCellDimensions({ widthPx: 10, heightPx: 20 });
			const after = tui.getCellDimensions();
			tui.setCellDimensions({ widthPx: 9, heightPx: 18 });
			return [before, after];
		},
	]);
	cases.push([
		"detectCapabilities.env",
		() => {
			const keys = ["TERM_PROGRAM", "TERMINAL_EMULATOR", "TERM", "COLORTERM", "TMUX", "KITTY_WINDOW_ID", "GHOSTTY_RESOURCES_DIR", "WEZTERM_PANE", "WARP_SESSION_ID", "WARP_TERMINAL_SESSION_UUID", "ITERM_SESSION_ID", "WT_SESSION"];
			const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
			const envs = [{}, { COLORTERM: "truecolor" }, { TERM_PROGRAM: "kitty" }, { TERM: "xterm-ghostty" }, { WEZTERM_PANE: "1" }, { TERM_PROGRAM: "iTerm.app" }, { WT_SESSION: "x" }, { TERM_PROGRAM: "vscode" }, { TERM: "screen-256color", COLORTERM: "24bit" }, { TMUX: "1" }, { TERMINAL_EMULATOR: "JetBrains-JediTerm" }, { WARP_SESSION_ID: "w" }];
			try {
				return envs.map((env) => {
					for (const k of keys) delete process.env[k];
					Object.assign(process.env, env);
					return tui.detectCapabilities(() => true);
				});
			} finally {
				for (const k of keys) {
					if (saved[k] === undefined) delete process.env[k];
					else process.env[k] = saved[k];
				}
			}
		},
	]);
	cases.push([
		"terminal colours",
		() => [
			tui.parseOsc11BackgroundColor("\x1b]11;rgb:ffff/8080/0000\x07"),
			tui.parseOsc11BackgroundColor("\x1b]11;rgba:ff/80/00/ff\x1b\\"),
			tui.parseOsc11BackgroundColor("\x1b]11;#1e1e2e\x07"),
			tui.parseOsc11BackgroundColor("\x1b]11;#123456789abc\x07"),
			tui.parseOsc11BackgroundColor("\x1b]11;#12\x07"),
			tui.parseOsc11BackgroundColor("\x1b]11;rgb:zz/00/00\x07"),
			tui.parseOsc11BackgroundColor("garbage"),
			tui.parseTerminalColorSchemeReport("\x1b[?997;1n"),
			tui.parseTerminalColorSchemeReport("\x1b[?997;1n\x1b[?997;2n"),
			tui.parseTerminalColorSchemeReport("\x1b[?997;3n"),
		],
	]);
	cases.push([
		"allocateImageId.range",
		() => Array.from({ length: 50 }, () => tui.allocateImageId()).every((id) => Number.isInteger(id) && id >= 1 && id <= 0xffffffff),
	]);
	cases.push([
		"StdinBuffer",
		() => {
			const buf = new tui.StdinBuffer({ timeout: 5 });
			const events = [];
			buf.on("data", (d) => events.push(["data", d]));
			buf.on("paste", (d) => events.push(["paste", d]));
			for (const chunk of ["ab", "\x1b", "[A", "\x1b[<35;20", ";5m", "x\x1b[200~pasted", " text\x1b[201~y", "\x1b\x1b[27;1:3u", "\x1b]11;rgb:0/0/0\x07", "\x1bOP\x1bx", "\x1b[97u", "a", "b", Buffer.from([0xe1]), "😀", ""]) {
				buf.process(chunk);
			}
			buf.process("\x1b[1;5");
			const pending = buf.getBuffer();
			const flushed = buf.flush();
			buf.process("\x1b[");
			buf.clear();
			const afterClear = buf.getBuffer();
			buf.destroy();
			return { events, pending, flushed, afterClear };
		},
	]);
	return cases;
}
