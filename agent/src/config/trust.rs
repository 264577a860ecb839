//! Project trust without `--approve` / `--no-approve`: whether the project has anything that
//! needs trust, the saved decisions of the agent folder's `trust.json`, and the global setting
//! `defaultProjectTrust`, in the reference's order.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::settings::read_object;

/// Why the saved trust decisions cannot be used (the reference's words; start-up stops).
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// `trust.json` cannot be read.
    #[error("Failed to read trust store {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `trust.json` is not JSON.
    #[error("Failed to read trust store {}: {source}", .path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// `trust.json` is JSON but not an object.
    #[error("Invalid trust store {}: expected an object", .path.display())]
    NotAnObject {
        /// The file.
        path: PathBuf,
    },
    /// A decision is neither `true`, `false` nor `null`.
    #[error(
        "Invalid trust store {}: value for {} must be true, false, or null",
        .path.display(),
        Value::from(.key.as_str())
    )]
    InvalidDecision {
        /// The file.
        path: PathBuf,
        /// The folder whose decision it is.
        key: String,
    },
}

/// Whether the project in `cwd` is trusted when the command line says nothing (`--approve` /
/// `--no-approve`). A project without anything that needs trust (see
/// [`needs_trust`]) is trusted. Otherwise the saved decision of `<agent_dir>/trust.json` for
/// `cwd` or its nearest ancestor folder counts (keys are canonical paths, values `true` /
/// `false`), else the global setting `defaultProjectTrust` (`always` trusts; `ask`, the
/// default, and `never` do not in RPC mode, which cannot ask). The project's own settings
/// cannot trust themselves. A `trust.json` that cannot be read is an error, as in the reference
/// (which stops at start-up).
pub fn project_trusted(agent_dir: &Path, cwd: &Path) -> Result<bool, TrustError> {
    if !needs_trust(cwd) {
        return Ok(true);
    }
    if let Some(decision) = saved_trust(agent_dir, cwd)? {
        return Ok(decision);
    }
    let mut ignored = Vec::new();
    let (global, _) = read_object(&agent_dir.join("settings.json"), "global", &mut ignored);
    Ok(global.get("defaultProjectTrust").and_then(Value::as_str) == Some("always"))
}

/// Whether `cwd` has project resources that only a trusted project may use: one of
/// `.pi/settings.json`, `extensions`, `skills`, `prompts`, `themes`, `SYSTEM.md`,
/// `APPEND_SYSTEM.md`, or an `.agents/skills` folder in `cwd` or an ancestor (other than the
/// home folder's).
pub fn needs_trust(cwd: &Path) -> bool {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let config = cwd.join(".pi");
    let gated = [
        "settings.json",
        "extensions",
        "skills",
        "prompts",
        "themes",
        "SYSTEM.md",
        "APPEND_SYSTEM.md",
    ];
    if gated.iter().any(|entry| config.join(entry).exists()) {
        return true;
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let user_skills = home.map(|home| {
        std::fs::canonicalize(&home)
            .unwrap_or(home)
            .join(".agents")
            .join("skills")
    });
    cwd.ancestors().any(|folder| {
        let skills = folder.join(".agents").join("skills");
        Some(&skills) != user_skills.as_ref() && skills.exists()
    })
}

/// The saved decision for `cwd` or its nearest ancestor; an error names a `trust.json` that is
/// not JSON, not an object, or holds a value other than `true`, `false` or `null`.
fn saved_trust(agent_dir: &Path, cwd: &Path) -> Result<Option<bool>, TrustError> {
    let path = agent_dir.join("trust.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(TrustError::Read { path, source }),
    };
    let decisions = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(decisions)) => decisions,
        Ok(_) => return Err(TrustError::NotAnObject { path }),
        Err(source) => return Err(TrustError::Parse { path, source }),
    };
    if let Some((key, _)) = decisions
        .iter()
        .find(|(_, value)| !matches!(value, Value::Bool(_) | Value::Null))
    {
        return Err(TrustError::InvalidDecision {
            path,
            key: key.clone(),
        });
    }
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    Ok(cwd.ancestors().find_map(|folder| {
        decisions
            .get(folder.to_string_lossy().as_ref())
            .and_then(Value::as_bool)
    }))
}
