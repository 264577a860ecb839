//! Finding and reading scenario files, with every error located as `file:line:column`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use crate::expect::{Item, ItemError};
use serde_json::Value;

use crate::pattern::{self, LintError};
use crate::release;
use crate::scenario::{ClientStep, Expect, JournalSpec, Scenario, Step};

/// A scenario file that could not be read, with where and why.
#[derive(Debug, Clone, thiserror::Error)]
pub struct LoadError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
    /// A sentence.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

/// A scenario read from a file.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The file.
    pub file: PathBuf,
    /// Its contents.
    pub scenario: Scenario,
    /// The source text.
    pub source: String,
}

/// The raw file form: steps carry their locations.
#[derive(serde::Deserialize)]
struct Located {
    steps: Vec<Spanned<Step>>,
}

/// Scenario files under the given files and folders (`*.yaml`, `*.yml`), sorted, deduplicated.
pub fn discover(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut files)?;
        } else if path.exists() {
            files.push(path.clone());
        } else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{}: no such file or folder", path.display()),
            ));
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml")
            && !path.to_string_lossy().ends_with(".recorded.yaml")
        {
            files.push(path);
        }
    }
    Ok(())
}

/// Reads and checks one scenario file.
pub fn load(file: &Path) -> Result<Loaded, LoadError> {
    let source = std::fs::read_to_string(file).map_err(|err| LoadError {
        file: file.to_owned(),
        line: None,
        column: None,
        message: format!("cannot read the file: {err}"),
    })?;
    parse(file, source)
}

/// Parses and checks scenario text; `file` names it in errors.
pub fn parse(file: &Path, source: String) -> Result<Loaded, LoadError> {
    let located_error = |err: serde_saphyr::Error| {
        let location = err.location();
        LoadError {
            file: file.to_owned(),
            line: location.map(|l| l.line()),
            column: location.map(|l| l.column()),
            message: first_sentence(&err),
        }
    };
    let scenario: Scenario = serde_saphyr::from_str(&source).map_err(located_error)?;
    let located: Located = serde_saphyr::from_str(&source).map_err(located_error)?;
    let at = |index: usize, message: String| {
        let location = located.steps.get(index).map(|s| s.referenced);
        LoadError {
            file: file.to_owned(),
            line: location.map(|l| l.line()),
            column: location.map(|l| l.column()),
            message,
        }
    };
    if scenario.id.trim().is_empty() || scenario.id.contains(char::is_whitespace) {
        return Err(LoadError {
            file: file.to_owned(),
            line: Some(1),
            column: None,
            message: format!(
                "the id {:?} must be non-empty and without spaces",
                scenario.id
            ),
        });
    }
    if scenario.steps.is_empty() {
        return Err(at(0, "the scenario has no steps".into()));
    }
    let registry = release::registry().map_err(|err| at(0, err.to_string()))?;
    let line_of = |key: &str| {
        source
            .lines()
            .position(|l| l.starts_with(key))
            .map(|i| i as u64 + 1)
    };
    let top_level = |key: &str, message: String| LoadError {
        file: file.to_owned(),
        line: line_of(key),
        column: line_of(key).map(|_| 1),
        message,
    };
    if let Some(range) = &scenario.releases {
        range
            .parse::<release::Range>()
            .map_err(|err| top_level("releases:", err.to_string()))?;
    }
    if let Some(unknown) = scenario
        .changes
        .iter()
        .find(|id| registry.change(id).is_none())
    {
        return Err(top_level(
            "changes:",
            format!("`{unknown}` is not a change listed in conformance/releases.yaml"),
        ));
    }
    for (index, step) in scenario.steps.iter().enumerate() {
        let step_error = |message: String| at(index, format!("step {}: {message}", index + 1));
        if !release::resolve::has_since(step) {
            check_step(step).map_err(|err| step_error(err.to_string()))?;
            continue;
        }
        for version in registry.versions() {
            let on = |err: StepError| step_error(format!("on release {version}: {err}"));
            if let Some(resolved) =
                release::resolve::step(step, version).map_err(|e| on(e.into()))?
            {
                check_step(&resolved).map_err(on)?;
            }
        }
    }
    if let Some(client) = &scenario.client {
        let sends: Vec<usize> = (1..=scenario.steps.len())
            .filter(|n| {
                matches!(
                    scenario.steps[n - 1],
                    Step::Send(_) | Step::SendRaw(_) | Step::SendHex(_)
                )
            })
            .collect();
        let line = source
            .lines()
            .position(|l| l.starts_with("client:"))
            .map(|i| i as u64 + 1);
        let expects = client
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, step)| match step {
                ClientStep::Expect(expect) => Some((i, Step::Expect(expect.clone()))),
                _ => None,
            });
        let client_error = |message: String| LoadError {
            file: file.to_owned(),
            line,
            column: line.map(|_| 1),
            message,
        };
        client
            .check(&sends)
            .map_err(|err| client_error(err.to_string()))?;
        for (i, step) in expects {
            check_step(&step)
                .map_err(|err| client_error(format!("client step {}: {err}", i + 1)))?;
        }
    }
    let base = file.parent().unwrap_or(Path::new("."));
    if let Err(err) = crate::mock::script(scenario.mock.as_ref(), base, &file.display().to_string())
    {
        let line = source
            .lines()
            .position(|l| l.starts_with("mock:"))
            .map(|i| i as u64 + 1);
        return Err(LoadError {
            file: file.to_owned(),
            line,
            column: line.map(|_| 1),
            message: format!("the mock script is invalid: {err}"),
        });
    }
    Ok(Loaded {
        file: file.to_owned(),
        scenario,
        source,
    })
}

/// The message of a YAML error without the rendered snippet.
fn first_sentence(err: &serde_saphyr::Error) -> String {
    let text = err.to_string();
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid scenario")
        .trim();
    // Drop a leading "error:" and the location, which we print ourselves.
    let mut line = line.strip_prefix("error:").unwrap_or(line).trim();
    if line.starts_with("line ")
        && let Some((_, rest)) = line.split_once(": ")
    {
        line = rest;
    }
    for (name, sentence) in UNTAGGED_HINTS {
        if line.ends_with(&format!("untagged enum {name}")) {
            return sentence.to_owned();
        }
    }
    line.to_owned()
}

/// Sentences for the shapes serde can only call "no variant matched".
const UNTAGGED_HINTS: [(&str, &str); 6] = [
    (
        "Expect",
        "`expect` takes a list of record patterns or {records, ignore, partial, until, timeout_ms}",
    ),
    (
        "WaitRequests",
        "`wait_requests` takes a count or {count, timeout_ms}",
    ),
    (
        "JournalSpec",
        "`journal` takes a list of entry patterns or {entries, exact}",
    ),
    (
        "ExitSpec",
        "`exit` takes an exit code or {code, timeout_ms}",
    ),
    (
        "FileContent",
        "a file's content is a text or a list of JSON values (written as JSONL)",
    ),
    (
        "MockSpecSchema",
        "`mock` takes a script, {file: PATH}, {quirk: NAME} or {reply: TEXT}",
    ),
];

/// Why one step is malformed (the loader prefixes where it is).
#[derive(Debug, thiserror::Error)]
enum StepError {
    #[error("`expect` needs records or `until`")]
    NothingExpected,
    #[error("item {number}: {source}")]
    Item {
        number: usize,
        source: Box<StepError>,
    },
    #[error("`$exit` alternatives apply to `expect` steps only")]
    ExitOutsideExpect,
    #[error(transparent)]
    Shape(#[from] ItemError),
    #[error(transparent)]
    Pattern(#[from] LintError),
    #[error(transparent)]
    Hex(#[from] HexError),
    #[error(transparent)]
    Release(#[from] release::ResolveError),
}

/// Lints the patterns inside one expectation item (the `$` item keys themselves are checked by
/// [`Item::parse`]).
fn lint_item(item: &Value) -> Result<(), StepError> {
    match Item::parse(item)? {
        Item::Record(p) | Item::SkipUntil(p) => pattern::lint(&p),
        Item::Unordered(group) => group.iter().try_for_each(pattern::lint),
        Item::Either { strict, allow, .. } => std::iter::once(&strict)
            .chain(&allow)
            .try_for_each(pattern::lint),
        Item::Raw(text) => pattern::lint(&Value::String(text)),
    }
    .map_err(StepError::from)
}

fn check_step(step: &Step) -> Result<(), StepError> {
    match step {
        Step::Expect(expect) => {
            let full = match expect {
                Expect::List(_) => expect.full(),
                Expect::Full(full) => full.clone(),
            };
            if full.records.is_empty() && full.until.is_none() {
                return Err(StepError::NothingExpected);
            }
            for (i, item) in full.records.iter().enumerate() {
                let numbered = |source: StepError| StepError::Item {
                    number: i + 1,
                    source: Box::new(source),
                };
                Item::parse(item).map_err(|e| numbered(e.into()))?;
                lint_item(item).map_err(numbered)?;
            }
            for pattern in full.ignore.iter().chain(&full.until) {
                pattern::lint(pattern)?;
            }
            Ok(())
        }
        Step::SendHex(hex) => Ok(decode_hex(hex).map(|_| ())?),
        Step::Journal(JournalSpec::List(entries) | JournalSpec::Full { entries, .. }) => {
            Ok(entries.iter().try_for_each(pattern::lint)?)
        }
        Step::File(check) => check.jsonl.iter().flatten().try_for_each(|item| {
            if let Item::Either { exits, .. } = Item::parse(item)?
                && !exits.is_empty()
            {
                return Err(StepError::ExitOutsideExpect);
            }
            lint_item(item)
        }),
        _ => Ok(()),
    }
}

/// Why a `send_hex` or `contains_hex` text is not hex.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    /// The digits do not pair up.
    #[error("hex {0:?} has an odd number of digits")]
    OddDigits(String),
    /// A character is not a hex digit.
    #[error("hex {0:?} has a non-hex digit")]
    NotHex(String),
}

/// Decodes hex with optional spaces: `"ff fe 0a"`.
pub fn decode_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let digits: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(HexError::OddDigits(text.to_owned()));
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&digits[i..i + 2], 16).map_err(|_| HexError::NotHex(text.to_owned()))
        })
        .collect()
}

/// Loads every file; errors are collected, and duplicate ids are errors too.
pub fn load_all(files: &[PathBuf]) -> (Vec<Loaded>, Vec<LoadError>) {
    let mut loaded = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        match load(file) {
            Ok(l) => loaded.push(l),
            Err(e) => errors.push(e),
        }
    }
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for l in &loaded {
        if let Some(first) = seen.insert(l.scenario.id.clone(), l.file.clone()) {
            errors.push(LoadError {
                file: l.file.clone(),
                line: Some(1),
                column: None,
                message: format!(
                    "the id `{}` is also used by {}",
                    l.scenario.id,
                    first.display()
                ),
            });
        }
    }
    (loaded, errors)
}

/// Whether a scenario passes a `--filter`: a substring of the id or title, `tag:NAME`,
/// `area:PREFIX` (id prefix), or `change:ID` (it proves that change; `change:*` any change).
/// Several filters: any may match.
pub fn matches_filter(scenario: &Scenario, filters: &[String]) -> bool {
    filters.is_empty()
        || filters.iter().any(|f| {
            if let Some(tag) = f.strip_prefix("tag:") {
                scenario.tags.iter().any(|t| t == tag)
            } else if let Some(change) = f.strip_prefix("change:") {
                scenario
                    .changes
                    .iter()
                    .any(|c| c == change || change == "*")
            } else if let Some(prefix) = f.strip_prefix("area:") {
                scenario.id.starts_with(prefix)
            } else {
                scenario.id.contains(f.as_str()) || scenario.title.contains(f.as_str())
            }
        })
}

/// Why a `--shard` value is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not two numbers around a `/`.
    #[error("shard {0:?} is not K/N")]
    NotKOfN(String),
    /// K is 0 or above N, or N is 0.
    #[error("shard {0:?}: K must be between 1 and N")]
    OutOfRange(String),
}

/// Parses `K/N` (1-based K).
pub fn parse_shard(text: &str) -> Result<(usize, usize), ShardError> {
    let not_k_of_n = || ShardError::NotKOfN(text.to_owned());
    let (k, n) = text.split_once('/').ok_or_else(not_k_of_n)?;
    let k: usize = k.parse().map_err(|_| not_k_of_n())?;
    let n: usize = n.parse().map_err(|_| not_k_of_n())?;
    if n == 0 || k == 0 || k > n {
        return Err(ShardError::OutOfRange(text.to_owned()));
    }
    Ok((k, n))
}

/// Whether the scenario at `index` (in sorted order) belongs to shard `K/N`.
pub fn in_shard(index: usize, shard: Option<(usize, usize)>) -> bool {
    shard.is_none_or(|(k, n)| index % n == k - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_key_is_reported_with_line_and_column() {
        let text =
            "id: a.001\ntitle: t\nsteps:\n  - send: {type: get_state}\n  - sned: {type: x}\n";
        let err = parse(Path::new("x.yaml"), text.into()).unwrap_err();
        assert_eq!(err.line, Some(5), "{err}");
        assert!(
            err.to_string()
                .starts_with("x.yaml:5:5: unknown variant `sned`"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_expect_item_is_reported_at_its_step() {
        let text = "id: a.001\ntitle: t\nsteps:\n  - send: {type: get_state}\n  - expect:\n      - $unordered: []\n";
        let err = parse(Path::new("x.yaml"), text.into()).unwrap_err();
        assert_eq!(err.line, Some(5), "{err}");
        assert!(err.message.contains("step 2: item 1"), "{err}");
    }

    #[test]
    fn a_wrong_shape_gets_a_sentence() {
        let text = "id: a.001\ntitle: t\nsteps:\n  - exit: {code: x}\n";
        let err = parse(Path::new("x.yaml"), text.into()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.yaml:4:11: `exit` takes an exit code or {code, timeout_ms}"
        );
    }

    #[test]
    fn shards_partition_the_list() {
        let picked: Vec<usize> = (0..7).filter(|&i| in_shard(i, Some((2, 3)))).collect();
        assert_eq!(picked, vec![1, 4]);
        assert!(parse_shard("0/3").is_err());
    }

    #[test]
    fn hex_decodes_with_spaces() {
        assert_eq!(decode_hex("ff fe 0a").unwrap(), vec![0xff, 0xfe, 0x0a]);
        assert!(decode_hex("f").is_err());
    }
}
