//! The JavaScript of the extensions' TypeScript files, made before the host loads them: each
//! extension file and, transitively, the TypeScript files its relative imports name, so the
//! host's module loader finds them ready. A file the walk did not reach (a dynamic import, a
//! path a JavaScript file names) the host has this same binary transpile on demand, started
//! with [`TRANSPILE_ENV`] naming the file.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::transpile::{is_typescript, transpile};

/// The environment variable that makes `pi-agent` print the JavaScript of the TypeScript file
/// it names, and nothing else (the host's loader runs it for a file not sent ahead).
pub const TRANSPILE_ENV: &str = "PI_AGENT_TRANSPILE";

/// How many files one load transpiles ahead at most (the rest on demand).
const MAX_FILES: usize = 2000;

/// One transpiled file, or why it could not be: the host throws the error where the module is
/// imported, so only that extension fails to load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ModuleSource {
    /// The module's JavaScript.
    Code {
        /// The JavaScript.
        code: String,
    },
    /// Why it has none.
    Error {
        /// The reason, naming the file.
        error: String,
    },
}

/// The JavaScript of every TypeScript file the extensions load, by canonical path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ModuleSources(BTreeMap<String, ModuleSource>);

impl ModuleSources {
    /// Transpiles `entries` (the extension files) and the TypeScript files their relative
    /// imports reach.
    pub fn of(entries: &[&Path]) -> Self {
        let mut sources = BTreeMap::new();
        let mut queue: VecDeque<PathBuf> = entries
            .iter()
            .filter_map(|entry| std::fs::canonicalize(entry).ok())
            .collect();
        while let Some(path) = queue.pop_front() {
            if sources.len() >= MAX_FILES {
                break;
            }
            let Some(key) = path.to_str().map(str::to_owned) else {
                continue;
            };
            if sources.contains_key(&key) || !is_typescript(&path) {
                continue;
            }
            let (source, imports) = match source_of(&path) {
                Ok((code, imports)) => (ModuleSource::Code { code }, imports),
                Err(error) => (ModuleSource::Error { error }, Vec::new()),
            };
            sources.insert(key, source);
            let folder = path.parent().unwrap_or(Path::new("/"));
            queue.extend(
                imports
                    .iter()
                    .filter_map(|specifier| resolve_relative(folder, specifier)),
            );
        }
        Self(sources)
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The JavaScript of `path`, if it was made.
    pub fn code(&self, path: &str) -> Option<&str> {
        match self.0.get(path)? {
            ModuleSource::Code { code } => Some(code),
            ModuleSource::Error { .. } => None,
        }
    }
}

/// The JavaScript of one file and its imports, or the error the host shows.
fn source_of(path: &Path) -> Result<(String, Vec<String>), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("Cannot read {}: {error}", path.display()))?;
    // A defect of the transform fails this file, not the agent.
    let transpiled = std::panic::catch_unwind(|| transpile(path, &text))
        .map_err(|_| format!("{}: pi-agent could not transpile this file", path.display()))?
        .map_err(|error| format!("{}: {error}", path.display()))?;
    Ok((transpiled.code, transpiled.imports))
}

/// The file a relative import names, as the host's loader finds it: the path itself, a
/// TypeScript file for a `.js` name (TypeScript's convention), or a name without extension
/// completed with `.ts`, `.tsx`, `.mts`, or an `index.ts` in that folder. `None` for a package
/// or a file that does not exist.
pub fn resolve_relative(folder: &Path, specifier: &str) -> Option<PathBuf> {
    let relative = specifier.starts_with("./") || specifier.starts_with("../");
    let absolute = specifier.starts_with('/');
    if !relative && !absolute {
        return None;
    }
    let specifier = specifier.split(['?', '#']).next().unwrap_or(specifier);
    // `%20` and the like decoded, as in a module URL's path.
    let named = folder.join(&*percent_encoding::percent_decode_str(specifier).decode_utf8_lossy());
    let mut candidates = vec![named.clone()];
    let text = named.to_string_lossy().into_owned();
    for (javascript, typescript) in [(".js", ".ts"), (".mjs", ".mts"), (".cjs", ".cts")] {
        if let Some(stem) = text.strip_suffix(javascript) {
            candidates.push(PathBuf::from(format!("{stem}{typescript}")));
            if javascript == ".js" {
                candidates.push(PathBuf::from(format!("{stem}.tsx")));
            }
        }
    }
    for extension in [".ts", ".tsx", ".mts", ".js", ".mjs"] {
        candidates.push(PathBuf::from(format!("{text}{extension}")));
    }
    candidates.push(named.join("index.ts"));
    candidates.push(named.join("index.js"));
    candidates
        .into_iter()
        .find(|candidate| candidate.is_file())
        .and_then(|found| std::fs::canonicalize(found).ok())
}

/// What `pi-agent` does when started with [`TRANSPILE_ENV`]: the JavaScript of that file, or
/// the error to print.
pub fn transpile_for_host(path: &Path) -> Result<String, String> {
    source_of(path).map(|(code, _)| code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(folder: &Path, name: &str, text: &str) -> PathBuf {
        let path = folder.join(name);
        std::fs::create_dir_all(path.parent().expect("has a folder")).expect("folder");
        std::fs::write(&path, text).expect("written");
        path
    }

    #[test]
    fn the_walk_follows_relative_typescript_imports_only() {
        let folder = tempfile::tempdir().expect("temp dir");
        let root = folder.path();
        let entry = write(
            root,
            "ext.ts",
            "import { a } from \"./lib/a.js\";\nimport b from \"./b\";\nimport { Type } from \"typebox\";\nimport type { T } from \"./types\";\nexport default () => [a, b, Type];\n",
        );
        write(
            root,
            "lib/a.ts",
            "import { c } from \"../c/index.js\";\nexport const a: number = c;\n",
        );
        write(root, "b/index.ts", "export default 2 as number;\n");
        write(root, "c/index.ts", "export const c = 3;\n");
        write(root, "types.ts", "export type T = number;\n");
        let sources = ModuleSources::of(&[entry.as_path()]);
        let canonical = |name: &str| {
            std::fs::canonicalize(root.join(name))
                .expect("exists")
                .display()
                .to_string()
        };
        for name in ["ext.ts", "lib/a.ts", "b/index.ts", "c/index.ts"] {
            assert!(
                sources.code(&canonical(name)).is_some(),
                "{name}: {sources:?}"
            );
        }
        assert_eq!(
            sources.len(),
            4,
            "the type-only import is not walked: {sources:?}"
        );
    }

    #[test]
    fn a_broken_file_carries_its_error_and_the_others_still_load() {
        let folder = tempfile::tempdir().expect("temp dir");
        let good = write(folder.path(), "good.ts", "export default () => 1;\n");
        let bad = write(folder.path(), "bad.ts", "export default ( => ;\n");
        let sources = ModuleSources::of(&[good.as_path(), bad.as_path()]);
        let bad_key = std::fs::canonicalize(&bad).expect("exists");
        match sources.0.get(bad_key.to_str().expect("utf-8")) {
            Some(ModuleSource::Error { error }) => assert!(error.contains("bad.ts"), "{error}"),
            other => panic!("expected an error, got {other:?}"),
        }
        let good_key = std::fs::canonicalize(&good).expect("exists");
        assert!(sources.code(good_key.to_str().expect("utf-8")).is_some());
    }

    #[test]
    fn relative_names_resolve_as_the_loader_resolves_them() {
        let folder = tempfile::tempdir().expect("temp dir");
        let root = folder.path();
        write(root, "x.ts", "");
        write(root, "my dir/y.mts", "");
        let found = |specifier: &str| {
            resolve_relative(root, specifier).map(|path| {
                path.file_name()
                    .expect("a file")
                    .to_string_lossy()
                    .into_owned()
            })
        };
        assert_eq!(found("./x.js").as_deref(), Some("x.ts"));
        assert_eq!(found("./x").as_deref(), Some("x.ts"));
        assert_eq!(found("./my%20dir/y.mjs").as_deref(), Some("y.mts"));
        assert_eq!(found("./missing"), None);
        assert_eq!(found("typebox"), None);
    }
}
