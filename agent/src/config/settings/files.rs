//! The settings files themselves: reading one (its problems as warnings), migrating its legacy
//! keys, merging the global and project files, and reading the resource arrays (`skills`,
//! `prompts`, `extensions`) of each file on its own.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// One settings file's entries of a resource array (`skills`, `prompts`, `extensions`): plain
/// paths and patterns (`!x`, `+x`, `-x`, globs) as written, resolved against `base`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceEntries {
    /// The folder relative paths resolve against: `<cwd>/.pi` or the agent folder.
    pub base: PathBuf,
    /// `project` or `user`.
    pub scope: &'static str,
    /// The array's strings, in order (other values are skipped).
    pub entries: Vec<String>,
}

/// One settings file read on its own (not merged) and migrated: the project's `.pi/settings.json`
/// or the global one in the agent folder.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsFile {
    /// The folder relative paths in it resolve against: `<cwd>/.pi` or the agent folder.
    pub base: PathBuf,
    /// `project` or `user`.
    pub scope: &'static str,
    /// Its keys (empty when the file is missing or broken).
    pub values: Map<String, Value>,
}

/// The project settings (only when `project_trusted`) and the global settings, in that order,
/// each read on its own and migrated, as the reference resolves resources and packages.
pub fn settings_files(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> Vec<SettingsFile> {
    let mut files: Vec<(PathBuf, &'static str)> = Vec::new();
    if project_trusted {
        files.push((cwd.join(".pi"), "project"));
    }
    files.push((agent_dir.to_path_buf(), "user"));
    let mut ignored = Vec::new();
    files
        .into_iter()
        .map(|(base, scope)| {
            let (mut values, _) = read_object(&base.join("settings.json"), scope, &mut ignored);
            migrate(&mut values);
            SettingsFile {
                base,
                scope,
                values,
            }
        })
        .collect()
}

/// The `key` arrays of [`settings_files`]. A missing or broken file gives an empty list.
pub fn resource_entries(
    agent_dir: &Path,
    cwd: &Path,
    project_trusted: bool,
    key: &str,
) -> Vec<ResourceEntries> {
    settings_files(agent_dir, cwd, project_trusted)
        .into_iter()
        .map(|file| {
            let entries = file
                .values
                .get(key)
                .and_then(Value::as_array)
                .map(|entries| {
                    entries
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            ResourceEntries {
                base: file.base,
                scope: file.scope,
                entries,
            }
        })
        .collect()
}

pub(in crate::config) fn read_object(
    path: &Path,
    scope: &str,
    warnings: &mut Vec<String>,
) -> (Map<String, Value>, bool) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return (Map::new(), false),
        Err(error) => {
            warnings.push(format!(
                "({scope} settings) cannot read {}: {error}",
                path.display()
            ));
            return (Map::new(), true);
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(object)) => (object, false),
        Ok(_) => {
            warnings.push(format!(
                "({scope} settings) {} is not a JSON object",
                path.display()
            ));
            (Map::new(), true)
        }
        Err(error) => {
            warnings.push(format!("({scope} settings) {}: {error}", path.display()));
            (Map::new(), true)
        }
    }
}

/// Rewrites legacy keys in one settings file's object as the reference does on load:
/// `queueMode` becomes `steeringMode` (unless that is set), a boolean `websockets` becomes
/// `transport` (`websocket` / `sse`), the old `skills` object (`customDirectories`,
/// `enableSkillCommands`) becomes the `skills` array and `enableSkillCommands`, and
/// `retry.maxDelayMs` becomes `retry.provider.maxRetryDelayMs` (unless that is set).
pub fn migrate(settings: &mut Map<String, Value>) {
    if !settings.contains_key("steeringMode")
        && let Some(mode) = settings.remove("queueMode")
    {
        settings.insert("steeringMode".into(), mode);
    }
    if !settings.contains_key("transport")
        && let Some(Value::Bool(websockets)) = settings.get("websockets").cloned()
    {
        settings.remove("websockets");
        let transport = if websockets { "websocket" } else { "sse" };
        settings.insert("transport".into(), Value::from(transport));
    }
    if let Some(Value::Object(old)) = settings.get("skills").cloned() {
        if let Some(enable) = old.get("enableSkillCommands")
            && !settings.contains_key("enableSkillCommands")
        {
            settings.insert("enableSkillCommands".into(), enable.clone());
        }
        match old.get("customDirectories") {
            Some(Value::Array(dirs)) if !dirs.is_empty() => {
                settings.insert("skills".into(), Value::Array(dirs.clone()));
            }
            _ => {
                settings.remove("skills");
            }
        }
    }
    if let Some(Value::Object(retry)) = settings.get_mut("retry") {
        let max_delay = retry.remove("maxDelayMs");
        if let Some(delay @ Value::Number(_)) = max_delay {
            let provider = retry
                .entry("provider")
                .or_insert_with(|| Value::Object(Map::new()));
            if !provider.is_object() {
                *provider = Value::Object(Map::new());
            }
            if let Value::Object(provider) = provider
                && provider.get("maxRetryDelayMs").is_none_or(Value::is_null)
            {
                provider.insert("maxRetryDelayMs".into(), delay);
            }
        }
    }
}

/// Merges `overrides` into `base`: nested objects merge recursively, anything else replaces.
pub fn deep_merge(base: &Map<String, Value>, overrides: &Map<String, Value>) -> Map<String, Value> {
    let mut result = base.clone();
    for (key, value) in overrides {
        let merged = match (base.get(key), value) {
            (Some(Value::Object(base_object)), Value::Object(override_object)) => {
                Value::Object(deep_merge(base_object, override_object))
            }
            _ => value.clone(),
        };
        result.insert(key.clone(), merged);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn project_settings_merge_into_nested_global_objects() {
        let global = json!({"retry": {"enabled": false, "maxRetries": 5}, "steeringMode": "all"});
        let project = json!({"retry": {"maxRetries": 1}});
        let merged = deep_merge(global.as_object().unwrap(), project.as_object().unwrap());
        assert_eq!(
            Value::Object(merged),
            json!({"retry": {"enabled": false, "maxRetries": 1}, "steeringMode": "all"})
        );
    }
}
