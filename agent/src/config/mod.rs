//! Configuration as the reference finds it: the agent folder (`PI_CODING_AGENT_DIR`, else
//! `~/.pi/agent`), its `settings.json` merged with the project's `.pi/settings.json`, its
//! `models.json` and `auth.json`.

pub(crate) mod ambient;
pub mod builtin;
mod env_keys;
mod http_client;
mod models;
mod settings;
mod stored;
mod stream;
mod trust;
pub mod values;

use std::path::{Path, PathBuf};

pub use http_client::HttpClient;
pub use models::{ModelRegistry, RequestAuth, RequestAuthError, RequestModel};
pub use settings::{
    ResourceEntries, RetrySettings, Settings, SettingsFile, deep_merge, migrate, resource_entries,
    settings_files,
};
pub use stream::{DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_RETRY_DELAY, StreamOptions, ThinkingBudgets};
pub use trust::{TrustError, needs_trust, project_trusted};

/// The environment variable naming the agent folder.
pub const AGENT_DIR_ENV: &str = "PI_CODING_AGENT_DIR";

/// The agent folder: `$PI_CODING_AGENT_DIR` (a leading `~` is the home folder), else
/// `~/.pi/agent`.
pub fn agent_dir() -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    match std::env::var(AGENT_DIR_ENV) {
        Ok(dir) if !dir.is_empty() => expand_home(&dir, &home),
        _ => home.join(".pi").join("agent"),
    }
}

fn expand_home(path: &str, home: &Path) -> PathBuf {
    if path == "~" {
        return home.to_path_buf();
    }
    match path.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => PathBuf::from(path),
    }
}

/// Everything loaded from files at start-up.
#[derive(Debug, Clone)]
pub struct Config {
    /// The agent folder.
    pub agent_dir: PathBuf,
    /// The working folder.
    pub cwd: PathBuf,
    /// Merged settings.
    pub settings: Settings,
    /// Models and credentials.
    pub registry: ModelRegistry,
    /// Problems met while loading, printed as warnings.
    pub warnings: Vec<String>,
}

impl Config {
    /// Loads the configuration of `agent_dir` for the working folder `cwd`; the project's
    /// settings count only when `project_trusted`.
    pub fn load(agent_dir: PathBuf, cwd: PathBuf, project_trusted: bool) -> Self {
        let settings = Settings::load(&agent_dir, &cwd, project_trusted);
        let (registry, mut warnings) = ModelRegistry::load(&agent_dir);
        warnings.extend(settings.warnings.iter().cloned());
        Self {
            agent_dir,
            cwd,
            settings,
            registry,
            warnings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_tilde_is_the_home_folder() {
        let home = Path::new("/home/u");
        assert_eq!(
            expand_home("~/x/agent", home),
            PathBuf::from("/home/u/x/agent")
        );
        assert_eq!(expand_home("/abs", home), PathBuf::from("/abs"));
    }
}
