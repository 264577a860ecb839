//! TypeScript to JavaScript for the extension host, with oxc: types are removed and
//! TypeScript-only syntax (`enum`, `namespace`, parameter properties) is turned into
//! JavaScript, so an extension loads on any Node.js the host supports and from anywhere
//! (Node's own type stripping refuses files under `node_modules`). The output is an ES module;
//! a file that uses CommonJS's `require`, `__filename` or `__dirname` without declaring them
//! gets them declared first, as the reference's loader provides them.

use std::path::Path;

use oxc::allocator::Allocator;
use oxc::ast::ast::{ImportDeclarationSpecifier, Program, Statement};
use oxc::codegen::Codegen;
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::str::Str;
use oxc::transformer::{TransformOptions, Transformer};

/// One file made JavaScript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transpiled {
    /// The module's JavaScript.
    pub code: String,
    /// The specifiers of its static imports and re-exports that stay in the JavaScript (not
    /// `import type`), in the order they are written.
    pub imports: Vec<String>,
}

/// Why a file could not be made JavaScript: the first error, where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({line}:{column})")]
pub struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// Its 1-based line.
    pub line: usize,
    /// Its 1-based column, in characters.
    pub column: usize,
}

/// Whether the host needs `path` transpiled: TypeScript (`.ts`, `.mts`, `.cts`, `.tsx`).
pub fn is_typescript(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|extension| extension.to_str()),
        Some("ts" | "mts" | "cts" | "tsx")
    )
}

/// The CommonJS names a module may use that ES modules lack, with how the host declares them.
const COMMONJS_GLOBALS: [(&str, &str); 3] = [
    (
        "require",
        "const require = __piAgentModule.createRequire(import.meta.url);",
    ),
    (
        "__filename",
        "const __filename = __piAgentUrl.fileURLToPath(import.meta.url);",
    ),
    (
        "__dirname",
        "const __dirname = __piAgentPath.dirname(__piAgentUrl.fileURLToPath(import.meta.url));",
    ),
];

/// The imports the CommonJS declarations use.
const COMMONJS_IMPORTS: &str = "import * as __piAgentModule from \"node:module\"; import * as __piAgentUrl from \"node:url\"; import * as __piAgentPath from \"node:path\";";

/// Makes the TypeScript `source` of `path` JavaScript (`path` names the dialect: `.tsx` also
/// allows JSX, `.cts` and `.mts` are TypeScript too).
pub fn transpile(path: &Path, source: &str) -> Result<Transpiled, SyntaxError> {
    let allocator = Allocator::default();
    let source_type = SourceType::from_path(path)
        .unwrap_or_else(|_| SourceType::ts())
        .with_module(true);
    let parsed = Parser::new(&allocator, source, source_type).parse();
    if let Some(error) = parsed.diagnostics.errors().next() {
        return Err(syntax_error(source, error));
    }
    let mut program = parsed.program;
    let imports = parsed
        .module_record
        .requested_modules
        .iter()
        .filter(|(_, requests)| requests.iter().any(|request| !request.is_type))
        .map(|(specifier, requests)| {
            let first = requests.iter().map(|request| request.span.start).min();
            (first, specifier.to_string())
        })
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_values()
        .collect();
    // Enum members' values are computed for the transform.
    let semantic = SemanticBuilder::new().with_enum_eval(true).build(&program);
    if let Some(error) = semantic.diagnostics.errors().next() {
        return Err(syntax_error(source, error));
    }
    let scoping = semantic.semantic.into_scoping();
    let undeclared: Vec<&str> = COMMONJS_GLOBALS
        .iter()
        .filter(|(name, _)| scoping.root_unresolved_references().contains_key(*name))
        .map(|(_, declaration)| *declaration)
        .collect();
    let options = TransformOptions::default();
    let transformed =
        Transformer::new(&allocator, path, &options).build_with_scoping(scoping, &mut program);
    if let Some(error) = transformed.diagnostics.errors().next() {
        return Err(syntax_error(source, error));
    }
    name_runtime_imports(&allocator, &mut program);
    let code = Codegen::new().build(&program).code;
    if undeclared.is_empty() {
        return Ok(Transpiled { code, imports });
    }
    // One line before the code, so that the module's own lines keep their numbers after it.
    let prelude = format!("{COMMONJS_IMPORTS} {}", undeclared.join(" "));
    Ok(Transpiled {
        code: format!("{prelude}\n{code}"),
        imports,
    })
}

/// The query that names what an import takes of one of pi's packages.
pub const NAMES_QUERY: &str = "pi-agent-names";

/// Whether `specifier` names one of pi's packages, which the host serves from its own modules.
fn is_pi_package(specifier: &str) -> bool {
    let package = |name: &str| {
        specifier == name
            || specifier
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    package("typebox")
        || package("@sinclair/typebox")
        || specifier.starts_with("@earendil-works/pi-")
        || specifier.starts_with("@mariozechner/pi-")
}

/// Tags each `import { a, b } from "<pi package>"` with the names it takes
/// (`?pi-agent-names=a,b`), so the host's loader evaluates only the runtime files that define
/// them rather than the whole package (the TUI half of pi-coding-agent, say). Default and
/// namespace imports take the whole package and stay as they are.
fn name_runtime_imports<'a>(allocator: &'a Allocator, program: &mut Program<'a>) {
    for statement in program.body.iter_mut() {
        let Statement::ImportDeclaration(import) = statement else {
            continue;
        };
        let source = import.source.value.as_str();
        if !is_pi_package(source) || source.contains('?') {
            continue;
        }
        let Some(specifiers) = &import.specifiers else {
            continue;
        };
        let names: Option<Vec<String>> = specifiers
            .iter()
            .map(|specifier| match specifier {
                ImportDeclarationSpecifier::ImportSpecifier(named) => named
                    .imported
                    .name()
                    .as_str()
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
                    .then(|| named.imported.name().to_string()),
                _ => None,
            })
            .collect();
        let Some(names) = names.filter(|names| !names.is_empty()) else {
            continue;
        };
        let tagged = format!("{source}?{NAMES_QUERY}={}", names.join(","));
        import.source.value = Str::from(allocator.alloc_str(&tagged));
        import.source.raw = None;
    }
}

/// The first error of a file, with its line and column.
fn syntax_error(source: &str, error: &oxc::diagnostics::OxcDiagnostic) -> SyntaxError {
    let offset = error
        .labels
        .first()
        .map_or(0, |label| label.offset() as usize)
        .min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |start| start.chars().count())
        + 1;
    SyntaxError {
        message: error.message.to_string(),
        line,
        column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(source: &str) -> Transpiled {
        transpile(Path::new("extension.ts"), source).expect("transpiles")
    }

    #[test]
    fn types_go_and_values_stay() {
        let out = js(
            "import type { ExtensionAPI } from \"@earendil-works/pi-coding-agent\";\n\
             import { Type } from \"typebox\";\n\
             export default function (pi: ExtensionAPI): void { const n: number = 1; pi.x(Type, n as number); }\n",
        );
        assert!(!out.code.contains("ExtensionAPI"), "{}", out.code);
        assert!(!out.code.contains(": number"), "{}", out.code);
        assert!(
            out.code.contains("from \"typebox?pi-agent-names=Type\""),
            "{}",
            out.code
        );
        assert_eq!(out.imports, vec!["typebox".to_owned()]);
    }

    #[test]
    fn enums_and_parameter_properties_become_javascript() {
        let out = js(
            "enum Mode { A, B = 5 }\nclass C { constructor(private readonly x: number) {} }\nexport default Mode;\n",
        );
        assert!(
            out.code.contains("Mode[Mode[\"B\"] = 5] = \"B\""),
            "{}",
            out.code
        );
        assert!(out.code.contains("this.x = x"), "{}", out.code);
    }

    #[test]
    fn imports_keep_their_written_order_and_skip_type_only_ones() {
        let out = js(
            "import { b } from \"./b.js\";\nimport type { T } from \"./types\";\n\
             export { c } from \"./c\";\nimport a from \"./a.ts\";\nexport default [a, b];\n",
        );
        assert_eq!(out.imports, vec!["./b.js", "./c", "./a.ts"]);
    }

    #[test]
    fn commonjs_names_are_declared_only_where_used_and_undeclared() {
        let uses = js("export default () => [require(\"node:os\"), __dirname];\n");
        let first = uses.code.lines().next().unwrap_or_default();
        assert!(first.contains("const require ="), "{}", uses.code);
        assert!(first.contains("const __dirname ="), "{}", uses.code);
        assert!(!first.contains("const __filename ="), "{}", uses.code);
        let declares = js("const __dirname = \"/x\";\nexport default () => __dirname;\n");
        assert!(!declares.code.contains("__piAgent"), "{}", declares.code);
        let plain = js("export default () => 1;\n");
        assert!(!plain.code.contains("__piAgent"), "{}", plain.code);
    }

    #[test]
    fn named_imports_of_pi_packages_say_what_they_take() {
        let out = js("import { Type } from \"typebox\";\n\
             import { defineTool, truncateHead as cut } from \"@earendil-works/pi-coding-agent\";\n\
             import * as tui from \"@earendil-works/pi-tui\";\n\
             import ai from \"@mariozechner/pi-ai\";\n\
             import { join } from \"node:path\";\n\
             import { thing } from \"typeboxer\";\n\
             export default () => [Type, defineTool, cut, tui, ai, join, thing];\n");
        assert!(
            out.code.contains("\"typebox?pi-agent-names=Type\""),
            "{}",
            out.code
        );
        assert!(
            out.code.contains(
                "\"@earendil-works/pi-coding-agent?pi-agent-names=defineTool,truncateHead\""
            ),
            "{}",
            out.code
        );
        for untouched in [
            "\"@earendil-works/pi-tui\"",
            "\"@mariozechner/pi-ai\"",
            "\"node:path\"",
            "\"typeboxer\"",
        ] {
            assert!(out.code.contains(untouched), "{untouched}: {}", out.code);
        }
        assert_eq!(out.imports[0], "typebox", "the walk sees the written names");
    }

    #[test]
    fn a_syntax_error_says_where() {
        let error = transpile(Path::new("broken.ts"), "const a = 1;\nconst = ;\n")
            .expect_err("does not parse");
        assert_eq!(error.line, 2, "{error}");
        assert!(!error.message.is_empty());
    }

    #[test]
    fn only_typescript_files_are_transpiled() {
        for typescript in [
            "a.ts",
            "a.mts",
            "a.cts",
            "a.tsx",
            "/x/node_modules/p/index.ts",
        ] {
            assert!(is_typescript(Path::new(typescript)), "{typescript}");
        }
        for javascript in ["a.js", "a.mjs", "a.cjs", "a", "a.d"] {
            assert!(!is_typescript(Path::new(javascript)), "{javascript}");
        }
    }
}
