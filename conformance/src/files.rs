//! Checks of files the agent wrote and of the raw bytes of its stdout.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::{Framer, parse_line};
use crate::expect::{self, Feed, Item, Matcher};
use crate::load::{HexError, decode_hex};
use crate::pattern::{self, Captures, Vars};
use crate::release::Adjustments;
use crate::scenario::{FileCheck, StdoutCheck};

/// A checked path with a `*` that matches several files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{count} files match {path}")]
pub struct AmbiguousPath {
    /// How many files match.
    pub count: usize,
    /// The path as written.
    pub path: String,
}

/// Why a `file` check failed: a sentence, and a detail (a diff, the file) where there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FileCheckError {
    /// The sentence.
    pub message: String,
    /// The diff or the file's text; empty when the sentence says it all.
    pub detail: String,
}

/// Why a `stdout` check failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StdoutError {
    /// A text that must occur does not.
    #[error("stdout does not contain {0:?}")]
    Missing(String),
    /// A text that must not occur does.
    #[error("stdout contains {0:?}")]
    Present(String),
    /// The bytes of `contains_hex` do not occur.
    #[error("stdout does not contain the bytes {0}")]
    MissingBytes(String),
    /// A `contains_hex` text is not hex.
    #[error(transparent)]
    Hex(#[from] HexError),
    /// A line ends with CR LF.
    #[error("stdout has a CR LF line ending")]
    CrLf,
    /// The last line has no LF.
    #[error("stdout does not end with LF")]
    NoFinalLf,
}

/// Resolves a checked path: variables substituted, relative to the working folder, and a `*` in
/// the last component matched against the folder's entries (exactly one must match).
pub fn resolve(path: &str, vars: &Vars) -> Result<Option<PathBuf>, AmbiguousPath> {
    let text = pattern::substitute_vars(path, vars);
    let cwd = vars.get("cwd").map(PathBuf::from).unwrap_or_default();
    let full = cwd.join(&text);
    let Some(name) = full.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Ok(Some(full));
    };
    if !name.contains('*') {
        return Ok(full.exists().then_some(full));
    }
    let dir = full.parent().unwrap_or(Path::new("."));
    let (prefix, suffix) = name.split_once('*').unwrap_or((&name, ""));
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().is_some_and(|n| {
                        let n = n.to_string_lossy();
                        n.len() >= prefix.len() + suffix.len()
                            && n.starts_with(prefix)
                            && n.ends_with(suffix)
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        count => Err(AmbiguousPath {
            count,
            path: path.to_owned(),
        }),
    }
}

/// A failed file check that the sentence says all of.
fn plain(message: impl std::fmt::Display) -> FileCheckError {
    FileCheckError {
        message: message.to_string(),
        detail: String::new(),
    }
}

/// Checks one file; the error is a message and a detail (a diff).
pub fn check(
    check: &FileCheck,
    vars: &Vars,
    captures: &mut Captures,
    adjustments: &Adjustments,
) -> Result<(), FileCheckError> {
    let with = |message: String, detail: String| FileCheckError { message, detail };
    let mut path_text = check.path.clone();
    for (name, value) in captures.iter() {
        if let Some(text) = value.as_str() {
            path_text = path_text.replace(&format!("{{{{${name}}}}}"), text);
        }
    }
    let found = resolve(&path_text, vars).map_err(plain)?;
    let want = check.exists.unwrap_or(true);
    let path = match (found, want) {
        (None, false) => return Ok(()),
        (Some(_), false) => return Err(plain(format!("{} exists but should not", check.path))),
        (None, true) => return Err(plain(format!("{} does not exist", check.path))),
        (Some(path), true) => path,
    };
    let bytes =
        std::fs::read(&path).map_err(|e| plain(format!("cannot read {}: {e}", check.path)))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if let Some(expected) = &check.text {
        let result = pattern::match_value(
            &Value::String(expected.clone()),
            &Value::String(text.clone()),
            vars,
            captures,
            Default::default(),
        );
        if !result.ok {
            let diff = similar::TextDiff::from_lines(expected.as_str(), text.as_str())
                .unified_diff()
                .header("expected", "actual")
                .to_string();
            return Err(with(format!("{} differs", check.path), diff));
        }
        *captures = result.captures;
    }
    for needle in &check.contains {
        let needle = pattern::substitute_vars(needle, vars);
        if !text.contains(&needle) {
            return Err(plain(format!("{} does not contain {needle:?}", check.path)));
        }
    }
    if let Some(lines) = &check.jsonl {
        let items: Vec<Item> = lines
            .iter()
            .map(Item::parse)
            .collect::<Result<_, _>>()
            .map_err(plain)?;
        let mut matcher = Matcher::new(items, Vec::new(), check.partial);
        let mut framer = Framer::default();
        let mut records: Vec<Vec<u8>> = framer.push(&bytes);
        records.extend(framer.finish());
        for (index, raw) in records.into_iter().enumerate() {
            let record = crate::agent::Record {
                index,
                json: parse_line(&raw),
                raw,
                lf: true,
                at_ms: 0,
            };
            let Some(record) = adjustments.apply(record) else {
                continue;
            };
            if matcher.is_done() {
                return Err(with(
                    format!("{}: unexpected line {}", check.path, index + 1),
                    format!("the file:\n{text}"),
                ));
            }
            if let Feed::Mismatch(m) = matcher.feed(&record, vars, captures) {
                return Err(with(
                    format!("{}: line {} does not match", check.path, index + 1),
                    format!(
                        "{}\n\n{}",
                        m.details.join("\n"),
                        expect::diff(&m.expected, &m.actual)
                    ),
                ));
            }
        }
        if !matcher.is_done() {
            let waiting = matcher.waiting_for().unwrap_or(Value::Null);
            return Err(with(
                format!("{}: lines missing at the end", check.path),
                serde_json::to_string_pretty(&waiting).unwrap_or_default(),
            ));
        }
    }
    Ok(())
}

/// Checks the raw bytes of stdout.
pub fn check_stdout(check: &StdoutCheck, stdout: &[u8]) -> Result<(), StdoutError> {
    let text = String::from_utf8_lossy(stdout);
    for needle in &check.contains {
        if !text.contains(needle.as_str()) {
            return Err(StdoutError::Missing(needle.clone()));
        }
    }
    for needle in &check.not_contains {
        if text.contains(needle.as_str()) {
            return Err(StdoutError::Present(needle.clone()));
        }
    }
    for hex in &check.contains_hex {
        let needle = decode_hex(hex)?;
        if !needle.is_empty() && !stdout.windows(needle.len()).any(|w| w == needle.as_slice()) {
            return Err(StdoutError::MissingBytes(hex.clone()));
        }
    }
    if check.lf_only.unwrap_or(false) {
        if stdout.windows(2).any(|w| w == b"\r\n") {
            return Err(StdoutError::CrLf);
        }
        if !stdout.is_empty() && !stdout.ends_with(b"\n") {
            return Err(StdoutError::NoFinalLf);
        }
    }
    Ok(())
}
