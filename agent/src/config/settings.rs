//! `settings.json`: the global file in the agent folder and the project file `.pi/settings.json`,
//! merged key by key (nested objects merge, the project wins), as the reference merges them.
//!
//! Setters change the global file only: they rewrite the keys changed during this process into
//! the file's current content, leaving other keys as they are on disk.

use std::path::{Path, PathBuf};

use pi_rpc_protocol::command::QueueMode;
use pi_rpc_protocol::model::ThinkingLevel;
use serde_json::{Map, Value};

mod files;

pub(super) use files::read_object;
pub use files::{
    ResourceEntries, SettingsFile, deep_merge, migrate, resource_entries, settings_files,
};

/// Automatic retry settings (`retry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySettings {
    /// `retry.enabled`, default true.
    pub enabled: bool,
    /// `retry.maxRetries`, default 3.
    pub max_retries: u32,
    /// `retry.baseDelayMs`, default 2000.
    pub base_delay_ms: u64,
}

impl RetrySettings {
    /// The wait before retry number `attempt` (from 1): `baseDelayMs`, doubled for each
    /// attempt after the first, as the reference waits before retrying a failed answer.
    pub fn delay_ms(&self, attempt: u32) -> u64 {
        self.base_delay_ms
            .saturating_mul(1u64 << attempt.saturating_sub(1).min(32))
    }
}

/// The merged settings, with the paths they came from.
#[derive(Debug, Clone)]
pub struct Settings {
    global_path: PathBuf,
    global: Map<String, Value>,
    project: Map<String, Value>,
    merged: Map<String, Value>,
    /// Whether the global file exists but could not be read as a JSON object (then it is never
    /// written, so a broken file is not overwritten).
    global_broken: bool,
    /// Problems met while loading, as warnings for stderr.
    pub warnings: Vec<String>,
}

impl Settings {
    /// Loads `<agent_dir>/settings.json` and, when `project_trusted`, `<cwd>/.pi/settings.json`
    /// (an untrusted project's settings are not read at all, as in the reference). Missing files
    /// are empty; unreadable ones are reported in [`Settings::warnings`] and treated as empty.
    /// Legacy keys are migrated as the reference migrates them (see [`migrate`]).
    pub fn load(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> Self {
        let global_path = agent_dir.join("settings.json");
        let project_path = cwd.join(".pi").join("settings.json");
        let mut warnings = Vec::new();
        let (mut global, global_broken) = read_object(&global_path, "global", &mut warnings);
        migrate(&mut global);
        let mut project = Map::new();
        if project_trusted {
            project = read_object(&project_path, "project", &mut warnings).0;
            migrate(&mut project);
        }
        let merged = deep_merge(&global, &project);
        Self {
            global_path,
            global,
            project,
            merged,
            global_broken,
            warnings,
        }
    }

    /// Settings with no files behind them (tests).
    pub fn empty(agent_dir: &Path) -> Self {
        Self {
            global_path: agent_dir.join("settings.json"),
            global: Map::new(),
            project: Map::new(),
            merged: Map::new(),
            global_broken: false,
            warnings: Vec::new(),
        }
    }

    /// The merged value of a top-level key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.merged.get(key)
    }

    pub(super) fn get_nested(&self, key: &str, field: &str) -> Option<&Value> {
        self.merged.get(key).and_then(|value| value.get(field))
    }

    /// `defaultProvider`.
    pub fn default_provider(&self) -> Option<&str> {
        self.get("defaultProvider").and_then(Value::as_str)
    }

    /// `defaultModel`.
    pub fn default_model(&self) -> Option<&str> {
        self.get("defaultModel").and_then(Value::as_str)
    }

    /// `defaultThinkingLevel`, when it names a level.
    pub fn default_thinking_level(&self) -> Option<ThinkingLevel> {
        self.get("defaultThinkingLevel")
            .and_then(Value::as_str)
            .and_then(ThinkingLevel::parse)
    }

    /// `steeringMode`, default one-at-a-time.
    pub fn steering_mode(&self) -> QueueMode {
        queue_mode(self.get("steeringMode"))
    }

    /// `followUpMode`, default one-at-a-time.
    pub fn follow_up_mode(&self) -> QueueMode {
        queue_mode(self.get("followUpMode"))
    }

    /// `compaction.enabled`, default true.
    pub fn compaction_enabled(&self) -> bool {
        self.get_nested("compaction", "enabled")
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }

    /// `compaction.reserveTokens` and `compaction.keepRecentTokens` with the reference's
    /// defaults (16384 and 20000).
    pub fn compaction_tokens(&self) -> (u64, u64) {
        let number = |field: &str, default: u64| {
            self.get_nested("compaction", field)
                .and_then(Value::as_u64)
                .unwrap_or(default)
        };
        (
            number("reserveTokens", 16_384),
            number("keepRecentTokens", 20_000),
        )
    }

    /// `branchSummary.reserveTokens` (default 16384): what a branch summary keeps free of the
    /// model's context window when it picks the messages to summarise.
    pub fn branch_summary_reserve_tokens(&self) -> u64 {
        self.get_nested("branchSummary", "reserveTokens")
            .and_then(Value::as_u64)
            .unwrap_or(16_384)
    }

    /// `retry.*` with the reference's defaults.
    pub fn retry(&self) -> RetrySettings {
        RetrySettings {
            enabled: self
                .get_nested("retry", "enabled")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            max_retries: self
                .get_nested("retry", "maxRetries")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(3),
            base_delay_ms: self
                .get_nested("retry", "baseDelayMs")
                .and_then(Value::as_u64)
                .unwrap_or(2000),
        }
    }

    /// `images.blockImages`, default false.
    pub fn block_images(&self) -> bool {
        self.get_nested("images", "blockImages")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// `images.autoResize`, default true.
    pub fn auto_resize_images(&self) -> bool {
        self.get_nested("images", "autoResize")
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }

    /// `httpProxy` of the global file (a project cannot set it), trimmed, as the variables
    /// `HTTP_PROXY` and `HTTPS_PROXY` it stands for: each only when the environment does not
    /// set it already (the environment wins, as in the reference).
    pub fn proxy_env(&self) -> Vec<(String, String)> {
        let Some(proxy) = self
            .global
            .get("httpProxy")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|proxy| !proxy.is_empty())
        else {
            return Vec::new();
        };
        ["HTTP_PROXY", "HTTPS_PROXY"]
            .into_iter()
            .filter(|name| std::env::var_os(name).is_none())
            .map(|name| (name.to_owned(), proxy.to_owned()))
            .collect()
    }

    /// The HTTP client of model calls (made on first use): the environment's proxies, with
    /// `httpProxy` filling in `HTTP_PROXY` / `HTTPS_PROXY` where the environment leaves them
    /// unset.
    pub fn http_client(&self) -> super::HttpClient {
        super::HttpClient::new(self.proxy_env())
    }

    /// `enabledModels`: the model patterns `cycle_model` walks when `--models` is not given.
    pub fn enabled_models(&self) -> Option<Vec<String>> {
        let patterns = self.get("enabledModels")?.as_array()?;
        Some(
            patterns
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        )
    }

    /// `sessionDir`.
    pub fn session_dir(&self) -> Option<String> {
        self.get("sessionDir")
            .and_then(Value::as_str)
            .filter(|dir| !dir.is_empty())
            .map(str::to_owned)
    }

    /// `shellPath`.
    pub fn shell_path(&self) -> Option<PathBuf> {
        self.get("shellPath")
            .and_then(Value::as_str)
            .map(PathBuf::from)
    }

    /// `shellCommandPrefix`.
    pub fn shell_command_prefix(&self) -> Option<String> {
        self.get("shellCommandPrefix")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// Sets `steeringMode` in the global file.
    pub fn set_steering_mode(&mut self, mode: QueueMode) {
        self.set_global(&[("steeringMode", queue_mode_value(mode))]);
    }

    /// Sets `followUpMode` in the global file.
    pub fn set_follow_up_mode(&mut self, mode: QueueMode) {
        self.set_global(&[("followUpMode", queue_mode_value(mode))]);
    }

    /// Sets `defaultThinkingLevel` in the global file.
    pub fn set_default_thinking_level(&mut self, level: ThinkingLevel) {
        self.set_global(&[("defaultThinkingLevel", Value::from(level.as_str()))]);
    }

    /// Sets `defaultProvider` and `defaultModel` in the global file.
    pub fn set_default_model(&mut self, provider: &str, model_id: &str) {
        self.set_global(&[
            ("defaultProvider", Value::from(provider)),
            ("defaultModel", Value::from(model_id)),
        ]);
    }

    /// Sets `retry.enabled` in the global file.
    pub fn set_retry_enabled(&mut self, enabled: bool) {
        self.set_enabled("retry", enabled);
    }

    /// Sets `compaction.enabled` (`set_auto_compaction`).
    pub fn set_compaction_enabled(&mut self, enabled: bool) {
        self.set_enabled("compaction", enabled);
    }

    /// Sets `<section>.enabled` in the global file.
    fn set_enabled(&mut self, section: &'static str, enabled: bool) {
        let set_enabled = |settings: &mut Map<String, Value>| {
            let object = settings
                .entry(section)
                .or_insert_with(|| Value::Object(Map::new()));
            if !object.is_object() {
                *object = Value::Object(Map::new());
            }
            if let Value::Object(object) = object {
                object.insert("enabled".into(), Value::Bool(enabled));
            }
        };
        set_enabled(&mut self.global);
        self.merged = deep_merge(&self.global, &self.project);
        self.save(set_enabled);
    }

    fn set_global(&mut self, fields: &[(&str, Value)]) {
        for (key, value) in fields {
            self.global.insert((*key).to_owned(), value.clone());
        }
        self.merged = deep_merge(&self.global, &self.project);
        self.save(|settings| {
            for (key, value) in fields {
                settings.insert((*key).to_owned(), value.clone());
            }
        });
    }

    fn save(&self, update: impl FnOnce(&mut Map<String, Value>)) {
        if self.global_broken {
            return;
        }
        if let Err(error) = self.persist(update) {
            tracing::warn!(path = %self.global_path.display(), %error, "cannot save settings");
        }
    }

    /// Applies `update` to the global file's current content and writes it back (2-space JSON,
    /// as the reference), so keys changed by others meanwhile are kept.
    fn persist(&self, update: impl FnOnce(&mut Map<String, Value>)) -> std::io::Result<()> {
        let mut current = match std::fs::read_to_string(&self.global_path) {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(object)) => object,
                _ => return Ok(()),
            },
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(error) => return Err(error),
        };
        migrate(&mut current);
        update(&mut current);
        if let Some(parent) = self.global_path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let text = serde_json::to_string_pretty(&Value::Object(current))
            .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidData, error))?;
        std::fs::write(&self.global_path, text)
    }
}

fn queue_mode(value: Option<&Value>) -> QueueMode {
    match value.and_then(Value::as_str) {
        Some("all") => QueueMode::All,
        _ => QueueMode::OneAtATime,
    }
}

fn queue_mode_value(mode: QueueMode) -> Value {
    Value::from(match mode {
        QueueMode::All => "all",
        QueueMode::OneAtATime => "one-at-a-time",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setters_keep_unrelated_keys_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.json"), r#"{"theme":"dark"}"#).unwrap();
        let mut settings = Settings::load(dir.path(), dir.path(), true);
        settings.set_steering_mode(QueueMode::All);
        assert_eq!(settings.steering_mode(), QueueMode::All);
        let text = std::fs::read_to_string(dir.path().join("settings.json")).unwrap();
        assert_eq!(
            text,
            "{\n  \"theme\": \"dark\",\n  \"steeringMode\": \"all\"\n}"
        );
    }
}
