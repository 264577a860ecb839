// CombinedAutocompleteProvider cases over a scratch directory (paths relative to it).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function scratchTree() {
	const root = mkdtempSync(join(tmpdir(), "pi-tui-ac-"));
	for (const dir of ["src", "src/lib", "docs", "My Files", ".hidden"]) mkdirSync(join(root, dir), { recursive: true });
	for (const file of ["README.md", "readme-old.txt", "src/main.rs", "src/mod.rs", "src/lib/util.rs", "docs/guide.md", "My Files/note one.txt", ".env"]) writeFileSync(join(root, file), "x");
	symlinkSync(join(root, "docs"), join(root, "docs-link"));
	symlinkSync(join(root, "missing"), join(root, "broken-link"));
	return root;
}

export function autocompleteCases(tui) {
	const { CombinedAutocompleteProvider } = tui;
	const commands = [
		{ name: "model", description: "Switch model", argumentHint: "<id>", getArgumentCompletions: (arg) => (arg === "none" ? [] : [{ value: `${arg}-a`, label: "a" }]) },
		{ name: "mode", description: "" },
		{ name: "help", argumentHint: "[topic]" },
		{ value: "legacy", label: "legacy", description: "old style" },
	];
	const signal = new AbortController().signal;
	return [
		[
			"CombinedAutocompleteProvider.suggestions",
			async () => {
				const root = scratchTree();
				try {
					const p = new CombinedAutocompleteProvider(commands, root);
					const ask = async (text, force = false) => p.getSuggestions([text], 0, text.length, { signal, force });
					const texts = ["/", "/mo", "/zz", "/model gp", "/model none", "/help x", "/unknown x", "look at ./", "see src/", "see src/m", "cat REA", "open ./sr", "x ", "", "@src", '"My Files/', 'edit "My', "src/lib/", "docs-link/", "/tmp/zzz-nothing/", "a=src/"];
					const out = [];
					// Forced lookups of "/..." would list the machine's root: only unforced ones there.
					for (const t of texts) out.push([t, await ask(t), t.startsWith("/") ? null : await ask(t, true)]);
					return out;
				} finally {
					rmSync(root, { recursive: true, force: true });
				}
			},
		],
		[
			"CombinedAutocompleteProvider.applyCompletion",
			() => {
				const p = new CombinedAutocompleteProvider(commands, "/nonexistent");
				const apply = (line, col, item, prefix) => p.applyCompletion([line, "other"], 0, col, item, prefix);
				return [
					apply("/mo", 3, { value: "model", label: "model" }, "/mo"),
					apply("  /mo rest", 5, { value: "model", label: "model" }, "/mo"),
					apply("see @sr", 7, { value: "@src/", label: "src/" }, "@sr"),
					apply("see @RE", 7, { value: "@README.md", label: "README.md" }, "@RE"),
					apply('see @"My', 8, { value: '@"My Files/"', label: "My Files/" }, '@"My'),
					apply('see @"My"', 8, { value: '@"My Files/note one.txt"', label: "note one.txt" }, '@"My'),
					apply("/model gp", 9, { value: "gpt-4", label: "gpt-4" }, "gp"),
					apply("open src/m tail", 10, { value: "src/main.rs", label: "main.rs" }, "src/m"),
					apply("open src/l", 10, { value: "src/lib/", label: "lib/" }, "src/l"),
				];
			},
		],
		[
			"CombinedAutocompleteProvider.helpers",
			() => {
				const p = new CombinedAutocompleteProvider([], "/base");
				return [
					["/mo", "/model x", "text", "  /x"].map((t) => p.shouldTriggerFileCompletion([t], 0, t.length)),
					["a @b", 'a @"b c', "a b", "@", "x=@y"].map((t) => p.extractAtPrefix(t)),
					["a ./x", "a b", "a ", "", "~/d", "q/", '"a b'].map((t) => [p.extractPathPrefix(t), p.extractPathPrefix(t, true)]),
					[p.scoreEntry("src/main.rs", "main.rs", false), p.scoreEntry("src/main.rs", "main", true), p.scoreEntry("src/main.rs", "ain", false), p.scoreEntry("src/main.rs", "src", false), p.scoreEntry("a/b", "zz", true)],
					[p.scopedPathForDisplay("/", "x/y"), p.scopedPathForDisplay("a/", "b\\c")],
				];
			},
		],
		[
			"CombinedAutocompleteProvider.atWithoutFd",
			async () => {
				const p = new CombinedAutocompleteProvider([], "/nonexistent");
				return [await p.getSuggestions(["@foo"], 0, 4, { signal }), await p.getFuzzyFileSuggestions("x", { signal, isQuotedPrefix: false })];
			},
		],
	];
}
