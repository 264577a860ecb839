// Seeded pseudo-random YAML front matter for the front-matter cases: block mappings and
// sequences (compact and nested), flow collections, plain / quoted / block scalars, comments.

export function randomYamlDocs(count, seed) {
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
	const pick = (items) => items[Math.floor(next() * items.length)];
	const keys = ["name", "description", "tools", "model", "allowed-tools", "x_1", "version", "tags", "disable-model-invocation", "'quoted key'", '"dq key"'];
	const scalar = () =>
		pick([
			"plain text",
			"with: colon inside quotes?",
			"true",
			"False",
			"~",
			"null",
			"42",
			"-7",
			"0x1F",
			"0o17",
			"3.5",
			".5",
			"1e3",
			".inf",
			"-.Inf",
			".nan",
			"2024-05-01",
			"C#",
			"a #comment",
			"http://example.com/a#b",
			"'single ''quoted'''",
			'"double \\"quoted\\" \\t tab \\u00e9"',
			'"line\\nbreak"',
			"''",
			'""',
			"read, bash, edit",
			"[a, b, 'c d']",
			"{k: v, n: 1}",
			"[]",
			"{}",
			"[1, [2, 3], {x: y}]",
		]);
	const block = (indent) => {
		const pad = " ".repeat(indent);
		const style = pick(["|", "|-", "|+", ">", ">-", ">+"]);
		const lines = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(["first line", "second", "", "  more indented", "last: line"]));
		return `${style}\n${lines.map((l) => (l === "" ? "" : `${pad}  ${l}`)).join("\n")}`;
	};
	const node = (indent, depth) => {
		const pad = " ".repeat(indent);
		const kind = depth > 1 ? pick(["scalar", "scalar", "block"]) : pick(["scalar", "scalar", "map", "seq", "seq-same", "block"]);
		if (kind === "scalar") return ` ${scalar()}${pick(["", "", " # trailing comment"])}`;
		if (kind === "block") return ` ${block(indent)}`;
		const size = 1 + Math.floor(next() * 3);
		if (kind === "map") {
			const used = new Set();
			const entries = [];
			for (let i = 0; i < size; i++) {
				const key = `${pick(keys)}${i}`;
				if (used.has(key)) continue;
				used.add(key);
				entries.push(`${pad}  ${key}:${node(indent + 2, depth + 1)}`);
			}
			return `\n${entries.join("\n")}`;
		}
		const itemPad = kind === "seq-same" ? pad : `${pad}  `;
		return `\n${Array.from({ length: size }, () => `${itemPad}-${node(itemPad.length + 2 - 2, depth + 1)}`).join("\n")}`;
	};
	return Array.from({ length: count }, () => {
		const used = new Set();
		const lines = [];
		for (let i = 0; i < 2 + Math.floor(next() * 4); i++) {
			const key = pick(keys);
			if (used.has(key)) continue;
			used.add(key);
			if (next() < 0.15) lines.push(pick(["# a comment line", "", "   "]));
			lines.push(`${key}:${node(0, 0)}`);
		}
		return `---\n${lines.join("\n")}\n---\nBody text\n`;
	});
}
