//! The scenario format: what a YAML scenario file holds.
//!
//! The types here are the single source of the format: serde reads them, and schemars turns them
//! into `conformance/scenario.schema.json` for editors. Expected records stay
//! [`serde_json::Value`]s: they are matched by [`crate::pattern`].

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod client;

pub use client::{
    ClientSpec, ClientSpecError, ClientStep, Departure, DepartureKind, OutcomeCheck, StderrText,
    action_name,
};

/// One scenario: a fresh agent process, its own mock LLM, and a list of steps.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Stable unique id, `<area>.<number>`, such as `steer.003`. Baselines refer to it.
    pub id: String,
    /// One line saying what the scenario checks.
    pub title: String,
    /// The section of rpc.md (or of the reference's observed behaviour) that the scenario checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// Free-form tags, usable with `--filter tag:NAME`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The releases of pi the scenario holds for (default: every known release): comparisons
    /// joined by spaces, all of which must hold, such as `">=0.84.4"` or `">=0.84.4 <1.0.3"`, or a
    /// bare release for exactly it. On other releases the scenario is not run (`n/a`); `run
    /// --outside` runs it there and expects it to fail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub releases: Option<String>,
    /// Ids of the protocol changes (`conformance/releases.yaml`) this scenario proves; they link
    /// it from `scenarios/CHANGES.md`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
    /// How the agent is started: arguments, models, settings, files, environment.
    #[serde(default, skip_serializing_if = "Setup::is_empty")]
    pub setup: Setup,
    /// The mock LLM's script: inline (the mock-llm format), `{file: PATH}` relative to the
    /// scenario file, or `{quirk: NAME}`. Without it the mock answers nothing useful.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<MockSpecSchema>")]
    pub mock: Option<Value>,
    /// Whether records left unread when the agent exits fail the scenario (`fail`, the default)
    /// or are ignored (`ignore`).
    #[serde(default, skip_serializing_if = "Trailing::is_fail")]
    pub trailing: Trailing,
    /// Time limit of the whole scenario in milliseconds (default 60000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Programs the reference pi runs in this scenario, looked up on `PATH` (`fd|fdfind`: any
    /// of them). When one is missing the scenario is not run against the reference: it is an
    /// error saying what to install (`cargo test` skips it with that note). pi-agent runs none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_needs: Vec<String>,
    /// The steps, run in order.
    pub steps: Vec<Step>,
    /// Makes the scenario a client scenario too (`pi-conformance client`): the user's actions,
    /// what the client must surface, and where the stand-in departs from the transcript. `run`
    /// ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientSpec>,
}

impl Scenario {
    /// Whether the agent is given an extension to load: `-e`/`--extension` among its
    /// arguments, an extension file in the project's `.pi/extensions/` or the agent dir's
    /// `extensions/`, or `extensions`/`packages` in the settings. pi-agent runs extensions
    /// with Node.js 20.6 or newer (or 18.19 or a later 18).
    pub fn loads_extensions(&self) -> bool {
        let setup = &self.setup;
        let flag =
            |arg: &String| arg == "-e" || arg == "--extension" || arg.starts_with("--extension=");
        let in_args = setup
            .args
            .iter()
            .flatten()
            .chain(&setup.extra_args)
            .any(flag);
        let script = |path: &String| {
            [".ts", ".js", ".mjs", ".mts"]
                .iter()
                .any(|ext| path.ends_with(ext))
        };
        // `--no-extensions` turns discovery off; the `-e` ones still load.
        let discovers = !setup
            .args
            .iter()
            .flatten()
            .chain(&setup.extra_args)
            .any(|arg| arg == "--no-extensions" || arg == "-ne");
        let in_files = setup
            .files
            .keys()
            .any(|path| path.contains(".pi/extensions/") && script(path))
            || setup
                .agent_files
                .keys()
                .any(|path| path.starts_with("extensions/") && script(path));
        let in_settings = setup.settings.as_ref().is_some_and(|settings| {
            ["extensions", "packages"].iter().any(|key| {
                settings
                    .get(key)
                    .is_some_and(|v| v.as_array().is_some_and(|a| !a.is_empty()))
            })
        });
        in_args || (discovers && (in_files || in_settings))
    }

    /// The entries of [`Scenario::reference_needs`] with no program on `PATH`.
    pub fn missing_reference_programs(&self) -> Vec<&str> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let found =
            |program: &str| std::env::split_paths(&path).any(|dir| dir.join(program).is_file());
        self.reference_needs
            .iter()
            .filter(|need| !need.split('|').any(found))
            .map(String::as_str)
            .collect()
    }
}

/// The mock script as the schema describes it (the runner keeps it as raw JSON).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum MockSpecSchema {
    /// A script in a file, relative to the scenario file.
    File {
        /// Path of a mock-llm script file.
        file: String,
    },
    /// A named quirk fixture of the mock.
    Quirk {
        /// Name of the quirk (see `mock-llm quirks`).
        quirk: String,
    },
    /// An inline mock-llm script.
    Inline(Value),
}

/// What to do with records the scenario did not read before the agent exited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Trailing {
    /// Unread records fail the scenario.
    #[default]
    Fail,
    /// Unread records are kept in the transcript only.
    Ignore,
}

impl Trailing {
    /// Whether this is the default, `fail`.
    pub fn is_fail(&self) -> bool {
        *self == Trailing::Fail
    }
}

/// How the agent is started.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Replaces the default arguments
    /// (`--mode rpc --no-session --provider mock --model mock-model-1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Persist the session: the default arguments get `--session-dir {{session_dir}}` instead of
    /// `--no-session`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub persist_session: bool,
    /// Appended to the arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
    /// Wire format the mock provider is declared with in models.json:
    /// `anthropic-messages` (default), `openai-completions`, `openai-responses`,
    /// `google-generative-ai`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// The models of the `mock` provider (models.json entries). Default: one model
    /// `mock-model-1`, reasoning, contextWindow 200000, maxTokens 8192.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<Value>>,
    /// A whole models.json, replacing the generated one. `{{mock_url}}` is substituted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models_json: Option<Value>,
    /// The agent dir's settings.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Value>,
    /// Files created in the working folder before the start: path -> content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, FileContent>,
    /// Files created in the agent dir (prompts, skills, extensions): path -> content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agent_files: BTreeMap<String, FileContent>,
    /// Session fixtures created in the session folder (`{{session_dir}}`): name -> content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sessions: BTreeMap<String, FileContent>,
    /// Extra environment variables (the environment is otherwise cleared but for PATH).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

impl Setup {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.args.is_none()
            && !self.persist_session
            && self.extra_args.is_empty()
            && self.api.is_none()
            && self.models.is_none()
            && self.models_json.is_none()
            && self.settings.is_none()
            && self.files.is_empty()
            && self.agent_files.is_empty()
            && self.sessions.is_empty()
            && self.env.is_empty()
    }
}

/// Content of a file: text, or a list of JSON values written one per line (JSONL).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FileContent {
    /// Text written as is (`{{cwd}}` and the other variables substituted).
    Text(String),
    /// JSON values written one per line.
    Lines(Vec<Value>),
}

/// One step of a scenario. Each is a one-key map such as `- send: {type: get_state}`, or a bare
/// word for the steps without arguments (`- close_stdin`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Send one command, written as YAML, serialised as one compact JSON line plus LF.
    Send(Value),
    /// Send text exactly as given (no LF added): for framing and bad-input scenarios.
    SendRaw(String),
    /// Send bytes given in hex (spaces allowed), such as `"ff fe 0a"`: for invalid UTF-8.
    SendHex(String),
    /// Read records and match them against the expectation.
    Expect(Expect),
    /// Listen this many milliseconds and fail if a record arrives.
    ExpectQuiet(u64),
    /// Release a named gate of the mock script.
    ReleaseGate(String),
    /// Wait until the mock has received this many requests in total.
    WaitRequests(WaitRequests),
    /// Match the mock's journal (every request received so far).
    Journal(JournalSpec),
    /// Check a file the agent wrote.
    File(FileCheck),
    /// Check the raw bytes of stdout received so far.
    Stdout(StdoutCheck),
    /// Close the agent's stdin (EOF).
    CloseStdin,
    /// Wait for the agent to exit and check its exit code.
    Exit(ExitSpec),
}

/// An expectation: a list of record patterns, or the full form with options.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Expect {
    /// Exact, ordered list of items (as `records` of the full form).
    List(Vec<Value>),
    /// The full form.
    Full(ExpectFull),
}

/// The full form of an expectation.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectFull {
    /// Items matched in order. A plain item is a record pattern; `{$unordered: [...]}` is a group
    /// matched in any order; `{$skip_until: PATTERN}` skips records up to one that matches;
    /// `{$either: {strict, allow, reason}}` accepts alternatives with a non-strict verdict (an
    /// alternative `{$exit: CODE}` or `{$exit: {code, stderr_contains}}` accepts the agent exiting
    /// there instead, and ends the scenario); `{$raw: "TEXT"}` matches the raw line (placeholders
    /// allowed). Anywhere in a pattern, `{$since: {RELEASE: PATTERN, ...}}` is the pattern of the
    /// newest listed release not after the agent's; before the first, nothing (the key, element
    /// or item is left out).
    #[serde(default)]
    pub records: Vec<Value>,
    /// Records matching any of these patterns are dropped before matching (noise such as
    /// `message_update`). Patterns here are partial.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<Value>,
    /// Every object pattern in `records` matches partially (extra keys allowed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Read records until one matches this pattern (partial); with `records` empty, this is
    /// how `record` and `diff` know where a step ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Value>,
    /// Time limit of this step in milliseconds (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl Expect {
    /// The full form of this expectation.
    pub fn full(&self) -> ExpectFull {
        match self {
            Expect::List(records) => ExpectFull {
                records: records.clone(),
                ..ExpectFull::default()
            },
            Expect::Full(full) => full.clone(),
        }
    }
}

/// How many requests `wait_requests` waits for.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum WaitRequests {
    /// The count, with the default time limit.
    Count(usize),
    /// The count and a time limit.
    Full {
        /// Total number of requests the mock must have received.
        count: usize,
        /// Time limit in milliseconds (default 10000).
        #[serde(default)]
        timeout_ms: Option<u64>,
    },
}

/// An assertion on the mock's journal.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum JournalSpec {
    /// The list of entry patterns (partial by default: headers are noisy).
    List(Vec<Value>),
    /// The full form.
    Full {
        /// Entry patterns, exact and ordered as a list, objects partial unless `exact`.
        entries: Vec<Value>,
        /// Objects must match exactly (no extra keys).
        #[serde(default)]
        exact: bool,
    },
}

/// A check of a file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileCheck {
    /// Path relative to the working folder, or starting with `{{home}}`, `{{agent_dir}}`,
    /// `{{session_dir}}`. A `*` in the last component matches; exactly one file must match.
    pub path: String,
    /// Whether the file must exist (default true). With `false`, nothing else is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// The whole text, placeholders allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Substrings the text must contain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<String>,
    /// The file as JSONL: an expectation list as in `expect` (partial objects with `partial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jsonl: Option<Vec<Value>>,
    /// Object patterns in `jsonl` match partially.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Time in milliseconds the file has to come to pass the check: for a file the agent writes
    /// on its own time after the step before. The check is retried until it passes or the time
    /// is up (scaled like every time limit), then fails with the last attempt's message.
    /// Absent: checked once, at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_ms: Option<u64>,
}

/// A check of the raw bytes of stdout received so far.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StdoutCheck {
    /// Texts that must occur in stdout.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<String>,
    /// Texts that must not occur in stdout.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_contains: Vec<String>,
    /// Byte sequences (hex) that must occur in stdout.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains_hex: Vec<String>,
    /// Every line must end with LF and none with CR LF (default true when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lf_only: Option<bool>,
}

/// The expected exit.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ExitSpec {
    /// The exit code.
    Code(i32),
    /// The full form.
    Full {
        /// The exit code; absent: any exit is fine.
        #[serde(default)]
        code: Option<i32>,
        /// Time limit in milliseconds (default 10000).
        #[serde(default)]
        timeout_ms: Option<u64>,
        /// The whole of stderr, matched as a text pattern (run variables and placeholders such
        /// as `{{any}}` allowed): for start-up errors worded exactly.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stderr: Option<String>,
        /// Texts stderr must contain.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        stderr_contains: Vec<String>,
    },
}

/// The JSON Schema of the scenario format, pretty-printed with a trailing newline.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(Scenario);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(setup: &str) -> Scenario {
        let text = format!("id: x.001\ntitle: t\nsetup: {setup}\nsteps: []\n");
        serde_saphyr::from_str(&text).expect("a scenario")
    }

    #[test]
    fn extensions_are_seen_in_arguments_files_and_settings() {
        assert!(scenario("{extra_args: [-e, a.ts]}").loads_extensions());
        assert!(scenario("{args: [--extension=a.ts]}").loads_extensions());
        assert!(scenario("{files: {.pi/extensions/a.ts: x}}").loads_extensions());
        assert!(scenario("{agent_files: {extensions/b/index.ts: x}}").loads_extensions());
        assert!(scenario("{settings: {extensions: [./a.ts]}}").loads_extensions());
        assert!(!scenario("{files: {notes.ts: x}}").loads_extensions());
        assert!(!scenario("{settings: {extensions: []}}").loads_extensions());
        assert!(
            !scenario("{extra_args: [--no-extensions], files: {.pi/extensions/a.ts: x}}")
                .loads_extensions()
        );
    }
}
