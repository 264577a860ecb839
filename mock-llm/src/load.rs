//! Reading a script: YAML or JSON into a [`Script`], its `quirk` responses replaced by the named
//! fixtures, then checked.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::quirks::{quirk_names, quirk_text};
use crate::script::Script;

/// The named quirk fixture as a script, or `None` if there is no quirk of that name.
pub fn quirk(name: &str) -> Option<Script> {
    let text = quirk_text(name)?;
    Script::from_yaml_str(text, &format!("quirk {name}")).ok()
}

impl Script {
    /// Parses a YAML (or JSON) script; `origin` names it in errors.
    pub fn from_yaml_str(text: &str, origin: &str) -> Result<Script> {
        let value: Value = serde_saphyr::from_str(text)
            .map_err(|err| Error::Script(format!("{origin}: invalid YAML: {err}")))?;
        Script::from_json_value(value, origin)
    }

    /// Builds a script from a JSON value (as embedded in a scenario); `origin` names it in errors.
    pub fn from_json_value(value: Value, origin: &str) -> Result<Script> {
        let mut script: Script = serde_path_to_error::deserialize(value).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner();
            if path == "." {
                Error::Script(format!("{origin}: {inner}"))
            } else {
                Error::Script(format!("{origin}: at {path}: {inner}"))
            }
        })?;
        script.origin = origin.to_owned();
        script.expand_quirks()?;
        script.validate()?;
        Ok(script)
    }

    /// Reads a script file (`.yaml`, `.yml` or `.json`).
    pub fn from_file(path: &Path) -> Result<Script> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|err| Error::Script(format!("{origin}: cannot read: {err}")))?;
        match path.extension().and_then(|ext| ext.to_str()) {
            Some("json") => {
                let value: Value = serde_json::from_str(&text)
                    .map_err(|err| Error::Script(format!("{origin}: invalid JSON: {err}")))?;
                Script::from_json_value(value, &origin)
            }
            _ => Script::from_yaml_str(&text, &origin),
        }
    }

    fn expand_quirks(&mut self) -> Result<()> {
        if self.responses.iter().all(|r| r.quirk.is_none()) {
            return Ok(());
        }
        let mut expanded = Vec::with_capacity(self.responses.len());
        for (index, response) in std::mem::take(&mut self.responses).into_iter().enumerate() {
            let Some(name) = &response.quirk else {
                expanded.push(response);
                continue;
            };
            let fixture = quirk(name).ok_or_else(|| {
                Error::Script(format!(
                    "{}: responses[{index}]: unknown quirk `{name}` (known: {})",
                    self.origin,
                    quirk_names().join(", ")
                ))
            })?;
            let others_set = response.text.is_some()
                || response.content.is_some()
                || response.error.is_some()
                || response.raw.is_some();
            if others_set {
                return Err(Error::Script(format!(
                    "{}: responses[{index}]: `quirk` cannot be combined with text, content, error or raw",
                    self.origin
                )));
            }
            for mut inner in fixture.responses {
                if inner.matcher.is_none() {
                    inner.matcher.clone_from(&response.matcher);
                }
                if response.times.is_some() {
                    inner.times = response.times;
                }
                inner.repeat |= response.repeat;
                expanded.push(inner);
            }
        }
        self.responses = expanded;
        Ok(())
    }
}
