//! Agent profiles: how the runner starts one implementation of pi's RPC mode, as a small YAML
//! file (`conformance/agents/NAME.yaml`; the book's "Testing an agent or port" chapter documents
//! the keys). The files shipped in that folder are built in (`--agent oh-my-pi`); a port author
//! passes their own file's path (`--agent ./my-port.yaml`).
//!
//! Every agent gets the scenario's setup the same way: pi's flags (`--mode rpc --provider mock
//! ...` unless the scenario says otherwise), a HOME, and pi's agent folder (`models.json`,
//! `settings.json`) named by `PI_CODING_AGENT_DIR`. A profile adds what its agent needs beyond
//! that: leading arguments, environment variables (which may name the scratch folders:
//! `{{home}}`, `{{agent_dir}}`, `{{cwd}}`, `{{session_dir}}`, `{{mock_url}}`), and a handshake
//! record the agent writes before it reads a command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::release::Version;

/// The profiles of `conformance/agents/`, built in: file name (without `.yaml`) and text.
const SHIPPED: &[(&str, &str)] = &[
    ("ours", include_str!("../../agents/ours.yaml")),
    ("reference", include_str!("../../agents/reference.yaml")),
    ("oh-my-pi", include_str!("../../agents/oh-my-pi.yaml")),
    (
        "pi_agent_rust",
        include_str!("../../agents/pi_agent_rust.yaml"),
    ),
];

/// Why a profile cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("agent profile {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is not a profile.
    #[error("agent profile {name}: {message}")]
    Malformed {
        /// The profile's file or name.
        name: String,
        /// The parser's message.
        message: String,
    },
    /// The agent's program is not where the profile looks.
    #[error("{name} is not installed: no program at {looked}{hint}")]
    NotInstalled {
        /// The profile's name.
        name: String,
        /// Where the runner looked.
        looked: String,
        /// How to install it.
        hint: String,
    },
}

/// One agent profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The name reports, transcripts and baselines use (`NAME@RELEASE`).
    pub name: String,
    /// One line on what the agent is.
    #[serde(default)]
    pub about: String,
    /// The script that installs the agent (it prints the program's path).
    #[serde(default)]
    pub install: Option<String>,
    /// Where the program is.
    pub program: Program,
    /// The release of pi whose scenarios the agent is judged by (default: the release the
    /// workspace follows; `--agent NAME@RELEASE` and `--release` choose another).
    #[serde(default)]
    pub release: Option<Version>,
    /// Arguments before the scenario's.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables added to the agent's (after the runner's own, before the
    /// scenario's `setup.env`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// A record (a pattern, as in `expect`, matched partially) the agent writes at start before
    /// it reads a command: the first record, when it matches, is set aside and kept in the
    /// transcript only.
    #[serde(default)]
    pub handshake: Option<Value>,
}

/// Where a profile's program is.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    /// One of the runner's own: `ours` or `reference`, which it finds itself.
    #[serde(default)]
    pub builtin: Option<Builtin>,
    /// An environment variable that names the program, looked at first.
    #[serde(default)]
    pub env: Option<String>,
    /// The program's path, else (`{{ports}}` stands for `$PI_PORTS_HOME`, default
    /// `~/.cache/pi-ports`, where the port install scripts put them; `~/` for HOME).
    #[serde(default)]
    pub path: Option<String>,
}

/// The agents the runner finds without a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Builtin {
    /// pi-agent.
    Ours,
    /// The reference pi.
    Reference,
}

impl Profile {
    /// The profile `spec` names: a shipped one by name, or a `.yaml`/`.yml` file by path.
    /// `None` when `spec` is neither (a command line).
    pub fn find(spec: &str) -> Option<Result<Self, ProfileError>> {
        if let Some((name, text)) = SHIPPED.iter().find(|(name, _)| *name == spec) {
            return Some(Self::parse(name, text));
        }
        let path = Path::new(spec);
        let is_file = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) && path.is_file();
        is_file.then(|| {
            std::fs::read_to_string(path)
                .map_err(|source| ProfileError::Read {
                    path: path.to_owned(),
                    source,
                })
                .and_then(|text| Self::parse(spec, &text))
        })
    }

    /// Parses a profile's text (`name`: its file, for messages).
    pub fn parse(name: &str, text: &str) -> Result<Self, ProfileError> {
        serde_saphyr::from_str(text).map_err(|e| ProfileError::Malformed {
            name: name.to_owned(),
            message: e.to_string(),
        })
    }

    /// The names of the shipped profiles.
    pub fn shipped() -> impl Iterator<Item = &'static str> {
        SHIPPED.iter().map(|(name, _)| *name)
    }

    /// The program of a profile that is not built in: the environment variable's value, else
    /// the path, which must exist.
    pub fn locate(&self) -> Result<PathBuf, ProfileError> {
        let from_env = self
            .program
            .env
            .as_deref()
            .and_then(std::env::var_os)
            .filter(|value| !value.is_empty());
        if let Some(value) = from_env {
            return Ok(PathBuf::from(value));
        }
        let path = self.program.path.as_deref().map(expand);
        match path {
            Some(path) if path.is_file() => Ok(path),
            _ => {
                let mut looked =
                    path.map_or("(no path given)".to_owned(), |p| p.display().to_string());
                if let Some(env) = &self.program.env {
                    looked = format!("${env} or {looked}");
                }
                Err(ProfileError::NotInstalled {
                    name: self.name.clone(),
                    looked,
                    hint: self
                        .install
                        .as_ref()
                        .map(|script| format!(": run {script}"))
                        .unwrap_or_default(),
                })
            }
        }
    }
}

/// A profile path with `{{ports}}` and a leading `~/` expanded.
fn expand(path: &str) -> PathBuf {
    let home = std::env::var("HOME").unwrap_or_default();
    let ports = std::env::var("PI_PORTS_HOME")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| format!("{home}/.cache/pi-ports"));
    let path = path.replace("{{ports}}", &ports);
    match path.strip_prefix("~/") {
        Some(rest) => Path::new(&home).join(rest),
        None => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_profile_parses_and_names_itself() {
        for name in Profile::shipped() {
            let profile = Profile::find(name)
                .expect("shipped")
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(profile.name, name);
            assert!(!profile.about.is_empty(), "{name} says what it is");
            let program = &profile.program;
            assert!(
                program.builtin.is_some() != (program.path.is_some() || program.env.is_some()),
                "{name}: a program is built in or located, not both"
            );
        }
    }

    #[test]
    fn an_unknown_key_is_refused_with_the_file_named() {
        let error = Profile::parse("mine.yaml", "name: x\nprogram: {path: /x}\nflags: [a]\n")
            .expect_err("unknown key");
        let text = error.to_string();
        assert!(text.starts_with("agent profile mine.yaml:"), "{text}");
        assert!(text.contains("flags"), "{text}");
    }

    #[test]
    fn a_missing_program_names_where_it_looked_and_the_install_script() {
        let profile = Profile::parse(
            "p",
            "name: port\nprogram: {path: /nonexistent/port-bin}\ninstall: ports/port/install.sh\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let text = profile.locate().expect_err("missing").to_string();
        assert_eq!(
            text,
            "port is not installed: no program at /nonexistent/port-bin: run \
             ports/port/install.sh"
        );
    }

    #[test]
    fn a_command_line_is_no_profile() {
        assert!(Profile::find("sh -c 'exec cat'").is_none());
        assert!(Profile::find("/bin/cat").is_none());
    }
}
