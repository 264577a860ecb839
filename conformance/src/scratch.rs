//! The scratch folders of one run: HOME, agent dir, working folder, session folder, the files a
//! scenario declares, and the agent's command line and environment.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::{AgentCommand, Launch};
use crate::pattern::{self, Vars};
use crate::scenario::{FileContent, Scenario};

/// The default agent arguments.
pub const DEFAULT_ARGS: [&str; 7] = pi_reference::MOCK_RPC_ARGS;

/// Creates the scratch folders and files; returns the run variables.
pub fn prepare(scenario: &Scenario, scratch: &Path, mock_uri: &str) -> std::io::Result<Vars> {
    let home = scratch.join("home");
    let agent_dir = scratch.join("agent");
    let cwd = scratch.join("work");
    let session_dir = scratch.join("sessions");
    for dir in [&home, &agent_dir, &cwd, &session_dir] {
        std::fs::create_dir_all(dir)?;
    }
    let mut vars = Vars::new();
    let text = |p: &Path| p.display().to_string();
    vars.insert("home".into(), text(&home));
    vars.insert("agent_dir".into(), text(&agent_dir));
    vars.insert("cwd".into(), text(&cwd));
    vars.insert("session_dir".into(), text(&session_dir));
    vars.insert("mock_url".into(), mock_uri.to_owned());
    let setup = &scenario.setup;
    let api = setup.api.as_deref().unwrap_or("anthropic-messages");
    let base_url = match api {
        "openai-completions" | "openai-responses" => format!("{mock_uri}/v1"),
        "mistral-conversations" => format!("{mock_uri}/mistral"),
        "azure-openai-responses" => format!("{mock_uri}/openai/v1"),
        _ => mock_uri.to_owned(),
    };
    let models_json = match &setup.models_json {
        Some(value) => substitute_value(value, &vars),
        None => {
            let models = setup.models.clone().unwrap_or_else(|| {
                vec![json!({"id": "mock-model-1", "reasoning": true, "contextWindow": 200000, "maxTokens": 8192})]
            });
            json!({"providers": {"mock": {"baseUrl": base_url, "api": api, "apiKey": "mock-key", "models": models}}})
        }
    };
    write_json(&agent_dir.join("models.json"), &models_json)?;
    if let Some(settings) = &setup.settings {
        write_json(
            &agent_dir.join("settings.json"),
            &substitute_value(settings, &vars),
        )?;
    }
    for (root, files) in [
        (&cwd, &setup.files),
        (&agent_dir, &setup.agent_files),
        (&session_dir, &setup.sessions),
    ] {
        for (name, content) in files {
            let path = root.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let bytes = match content {
                FileContent::Text(text) => pattern::substitute_vars(text, &vars),
                FileContent::Lines(lines) => lines
                    .iter()
                    .map(|v| substitute_value(v, &vars).to_string() + "\n")
                    .collect(),
            };
            std::fs::write(path, bytes)?;
        }
    }
    Ok(vars)
}

fn write_json(path: &Path, value: &Value) -> std::io::Result<()> {
    std::fs::write(
        path,
        serde_json::to_string_pretty(value).unwrap_or_default(),
    )
}

/// Substitutes run variables in every string of a value.
pub fn substitute_value(value: &Value, vars: &Vars) -> Value {
    match value {
        Value::String(s) => Value::String(pattern::substitute_vars(s, vars)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| substitute_value(v, vars)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute_value(v, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

pub fn launch(scenario: &Scenario, agent: &AgentCommand, vars: &Vars) -> Launch {
    let var = |name: &str| vars.get(name).cloned().unwrap_or_default();
    let setup = &scenario.setup;
    let mut args: Vec<String> = match &setup.args {
        Some(args) => args.clone(),
        None => DEFAULT_ARGS
            .iter()
            .flat_map(|arg| match *arg {
                "--no-session" if setup.persist_session => {
                    vec!["--session-dir".to_owned(), "{{session_dir}}".to_owned()]
                }
                other => vec![other.to_owned()],
            })
            .collect(),
    };
    args.extend(setup.extra_args.iter().cloned());
    let args = args
        .iter()
        .map(|a| pattern::substitute_vars(a, vars))
        .collect();
    let mut env = inherited_env(|name| match name {
        "PI_AGENT_NODE" => extension_node(),
        _ => std::env::var(name).ok(),
    });
    env.extend([
        ("HOME".to_owned(), var("home")),
        ("PI_CODING_AGENT_DIR".to_owned(), var("agent_dir")),
        ("PI_OFFLINE".to_owned(), "1".to_owned()),
        ("PI_SKIP_VERSION_CHECK".to_owned(), "1".to_owned()),
        ("PI_TELEMETRY".to_owned(), "0".to_owned()),
        ("TZ".to_owned(), "UTC".to_owned()),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ("TERM".to_owned(), "dumb".to_owned()),
    ]);
    let profile_env = agent.env.iter().map(|(k, v)| (k, v));
    for (key, value) in profile_env.chain(&setup.env) {
        env.retain(|(k, _)| k != key);
        env.push((key.clone(), pattern::substitute_vars(value, vars)));
    }
    Launch {
        command: agent.clone(),
        args,
        cwd: PathBuf::from(var("cwd")),
        env,
    }
}

/// The Node.js pi-agent runs extensions with, as `PI_AGENT_NODE` gives it to the agents: the
/// runner's own `PI_AGENT_NODE`, else, when `node` on `PATH` is too old for them (Debian's 20),
/// the Node.js of the installed reference ([`pi_reference::extension_node`]). Looked up once.
fn extension_node() -> Option<String> {
    static NODE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    NODE.get_or_init(|| {
        pi_reference::extension_node()
            .filter(|node| node.as_os_str() != "node")
            .map(|node| node.to_string_lossy().into_owned())
    })
    .clone()
}

/// Whether a Node.js able to run extensions is at hand for pi-agent: [`extension_node`], or
/// `node` on `PATH` when it is new enough.
pub fn extension_node_found() -> bool {
    static FOUND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| pi_reference::extension_node().is_some())
}

/// What an agent keeps of the runner's environment: `PATH`, and `PI_AGENT_NODE` when there is
/// one (the Node.js pi-agent runs extensions with, [`extension_node`]).
fn inherited_env(lookup: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    let mut env = vec![("PATH".to_owned(), lookup("PATH").unwrap_or_default())];
    if let Some(node) = lookup("PI_AGENT_NODE").filter(|node| !node.is_empty()) {
        env.push(("PI_AGENT_NODE".to_owned(), node));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_keep_path_and_the_extension_node_only() {
        let full = |name: &str| match name {
            "PATH" => Some("/bin".to_owned()),
            "PI_AGENT_NODE" => Some("/opt/node22/bin/node".to_owned()),
            _ => Some("leaked".to_owned()),
        };
        assert_eq!(
            inherited_env(full),
            vec![
                ("PATH".to_owned(), "/bin".to_owned()),
                (
                    "PI_AGENT_NODE".to_owned(),
                    "/opt/node22/bin/node".to_owned()
                ),
            ]
        );
        let bare = |name: &str| (name == "PATH").then(|| "/bin".to_owned());
        assert_eq!(
            inherited_env(bare),
            vec![("PATH".to_owned(), "/bin".to_owned())]
        );
    }
}
