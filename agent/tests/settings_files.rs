//! settings.json as files on disk: project settings only for a trusted project, nested
//! objects merged, legacy keys migrated, the trust decision (`--approve`, `trust.json`,
//! `defaultProjectTrust`), the values that change a model call, and the resource arrays.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use pi_agent::config::{Settings, project_trusted, resource_entries};
use pi_rpc_protocol::command::QueueMode;
use serde_json::{Value, json};

struct Dirs {
    _root: tempfile::TempDir,
    agent: std::path::PathBuf,
    cwd: std::path::PathBuf,
}

fn dirs(global: Option<Value>, project: Option<Value>) -> Result<Dirs> {
    let root = tempfile::tempdir()?;
    let agent = root.path().join("agent");
    let cwd = root.path().join("work/project");
    std::fs::create_dir_all(&agent)?;
    std::fs::create_dir_all(cwd.join(".pi"))?;
    if let Some(global) = global {
        std::fs::write(agent.join("settings.json"), global.to_string())?;
    }
    if let Some(project) = project {
        std::fs::write(cwd.join(".pi/settings.json"), project.to_string())?;
    }
    Ok(Dirs {
        _root: root,
        agent,
        cwd,
    })
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text)?;
    Ok(())
}

#[test]
fn an_untrusted_project_s_settings_are_not_read_at_all() -> Result<()> {
    let d = dirs(
        Some(json!({"steeringMode": "all"})),
        Some(json!({"steeringMode": "one-at-a-time", "followUpMode": "all"})),
    )?;
    let untrusted = Settings::load(&d.agent, &d.cwd, false);
    assert_eq!(untrusted.steering_mode(), QueueMode::All);
    assert_eq!(untrusted.follow_up_mode(), QueueMode::OneAtATime);
    let trusted = Settings::load(&d.agent, &d.cwd, true);
    assert_eq!(trusted.steering_mode(), QueueMode::OneAtATime);
    assert_eq!(trusted.follow_up_mode(), QueueMode::All);
    Ok(())
}

#[test]
fn project_settings_merge_into_nested_objects_and_replace_arrays() -> Result<()> {
    let d = dirs(
        Some(
            json!({"compaction": {"enabled": false, "reserveTokens": 1000}, "enabledModels": ["a", "b"]}),
        ),
        Some(json!({"compaction": {"reserveTokens": 2000}, "enabledModels": ["c"]})),
    )?;
    let settings = Settings::load(&d.agent, &d.cwd, true);
    assert!(!settings.compaction_enabled());
    assert_eq!(settings.compaction_tokens(), (2000, 20_000));
    assert_eq!(settings.enabled_models(), Some(vec!["c".to_owned()]));
    Ok(())
}

#[test]
fn a_broken_project_file_leaves_the_global_settings_and_warns() -> Result<()> {
    let d = dirs(Some(json!({"steeringMode": "all"})), None)?;
    write(&d.cwd.join(".pi/settings.json"), "{not json")?;
    let settings = Settings::load(&d.agent, &d.cwd, true);
    assert_eq!(settings.steering_mode(), QueueMode::All);
    assert_eq!(settings.warnings.len(), 1);
    assert!(settings.warnings[0].starts_with("(project settings)"));
    Ok(())
}

#[test]
fn legacy_keys_are_read_under_their_new_names() -> Result<()> {
    let d = dirs(
        Some(json!({
            "queueMode": "all",
            "websockets": true,
            "skills": {"enableSkillCommands": false, "customDirectories": ["extra"]},
            "retry": {"maxDelayMs": 5000, "provider": {"maxRetries": 2}}
        })),
        None,
    )?;
    let settings = Settings::load(&d.agent, &d.cwd, false);
    assert_eq!(settings.steering_mode(), QueueMode::All);
    assert_eq!(settings.get("transport"), Some(&json!("websocket")));
    assert_eq!(settings.get("enableSkillCommands"), Some(&json!(false)));
    assert_eq!(settings.get("skills"), Some(&json!(["extra"])));
    let options = settings.stream_options();
    assert_eq!(options.max_retry_delay, Duration::from_secs(5));
    assert_eq!(options.max_retries, 2);
    assert_eq!(
        resource_entries(&d.agent, &d.cwd, false, "skills")[0].entries,
        ["extra"]
    );
    // An explicit new key wins over the legacy one.
    let d = dirs(
        Some(json!({"queueMode": "all", "steeringMode": "one-at-a-time",
                    "retry": {"maxDelayMs": 5000, "provider": {"maxRetryDelayMs": 10}}})),
        None,
    )?;
    let settings = Settings::load(&d.agent, &d.cwd, false);
    assert_eq!(settings.steering_mode(), QueueMode::OneAtATime);
    assert_eq!(
        settings.stream_options().max_retry_delay,
        Duration::from_millis(10)
    );
    Ok(())
}

#[test]
fn a_setter_rewrites_legacy_keys_of_the_file_it_updates() -> Result<()> {
    let d = dirs(Some(json!({"queueMode": "all", "theme": "dark"})), None)?;
    let mut settings = Settings::load(&d.agent, &d.cwd, false);
    settings.set_follow_up_mode(QueueMode::All);
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(d.agent.join("settings.json"))?)?;
    assert_eq!(
        file,
        json!({"theme": "dark", "steeringMode": "all", "followUpMode": "all"})
    );
    Ok(())
}

#[test]
fn timeouts_budgets_and_image_blocking_shape_the_model_call() -> Result<()> {
    let cases = [
        (json!(1500), Some(Duration::from_millis(1500))),
        (json!(1500.9), Some(Duration::from_millis(1500))),
        (json!(" 2500 "), Some(Duration::from_millis(2500))),
        (json!("disabled"), None),
        (json!(0), None),
        // Not a timeout: the default stays.
        (json!(-1), Some(Duration::from_secs(300))),
        (json!("soon"), Some(Duration::from_secs(300))),
        (json!(true), Some(Duration::from_secs(300))),
    ];
    for (value, expected) in cases {
        let d = dirs(Some(json!({"httpIdleTimeoutMs": value})), None)?;
        let options = Settings::load(&d.agent, &d.cwd, false).stream_options();
        assert_eq!(options.idle_timeout, expected, "httpIdleTimeoutMs {value}");
        assert_eq!(options.request_timeout, None);
    }
    let d = dirs(
        Some(json!({
            "retry": {"provider": {"timeoutMs": 700}},
            "thinkingBudgets": {"minimal": 100, "low": "2000", "medium": 1.5, "high": 9000},
            "images": {"blockImages": true, "autoResize": false}
        })),
        None,
    )?;
    let settings = Settings::load(&d.agent, &d.cwd, false);
    let options = settings.stream_options();
    assert_eq!(options.request_timeout, Some(Duration::from_millis(700)));
    // Only whole numbers count as budgets.
    assert_eq!(
        options.thinking_budgets.levels,
        [Some(100), None, None, Some(9000)]
    );
    assert!(options.block_images);
    assert!(!settings.auto_resize_images());
    let empty = dirs(None, None)?;
    let defaults = Settings::load(&empty.agent, &empty.cwd, false);
    assert!(!defaults.stream_options().block_images);
    assert!(defaults.auto_resize_images());
    Ok(())
}

#[test]
fn trust_comes_from_the_nearest_saved_decision_then_the_global_default() -> Result<()> {
    let d = dirs(None, None)?;
    let trusted = |d: &Dirs| project_trusted(&d.agent, &d.cwd).map_err(anyhow::Error::from);
    // Nothing in .pi needs trust: trusted, and trust.json is not even read.
    write(&d.agent.join("trust.json"), "[")?;
    assert!(trusted(&d)?);
    std::fs::remove_file(d.agent.join("trust.json"))?;
    write(
        &d.cwd.join(".pi/settings.json"),
        r#"{"defaultProjectTrust": "always"}"#,
    )?;
    // The project cannot trust itself.
    assert!(!trusted(&d)?);
    write(
        &d.agent.join("settings.json"),
        r#"{"defaultProjectTrust": "always"}"#,
    )?;
    assert!(trusted(&d)?);
    let parent = std::fs::canonicalize(d.cwd.parent().unwrap_or(&d.cwd))?;
    write(
        &d.agent.join("trust.json"),
        &json!({parent.to_string_lossy(): false}).to_string(),
    )?;
    assert!(!trusted(&d)?);
    let own = std::fs::canonicalize(&d.cwd)?;
    write(
        &d.agent.join("trust.json"),
        &json!({parent.to_string_lossy(): false, own.to_string_lossy(): true}).to_string(),
    )?;
    assert!(trusted(&d)?);
    Ok(())
}

#[test]
fn a_broken_trust_store_is_an_error_naming_the_file() -> Result<()> {
    let d = dirs(None, Some(json!({"steeringMode": "all"})))?;
    let store = d.agent.join("trust.json");
    let cases = [
        ("[1]", "expected an object".to_owned()),
        (
            r#"{"/x": "yes"}"#,
            r#"value for "/x" must be true, false, or null"#.to_owned(),
        ),
    ];
    for (text, reason) in cases {
        write(&store, text)?;
        assert_eq!(
            project_trusted(&d.agent, &d.cwd).map_err(|error| error.to_string()),
            Err(format!("Invalid trust store {}: {reason}", store.display()))
        );
    }
    write(&store, "{")?;
    let error = project_trusted(&d.agent, &d.cwd)
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(error.starts_with(&format!("Failed to read trust store {}: ", store.display())));
    // A null entry is no decision.
    write(
        &store,
        &json!({std::fs::canonicalize(&d.cwd)?.to_string_lossy(): null}).to_string(),
    )?;
    assert!(!project_trusted(&d.agent, &d.cwd)?);
    Ok(())
}

#[test]
fn resource_arrays_come_per_file_project_first_and_only_when_trusted() -> Result<()> {
    let d = dirs(
        Some(json!({"prompts": ["mine", "!x.md", 3]})),
        Some(json!({"prompts": ["../team"]})),
    )?;
    let untrusted = resource_entries(&d.agent, &d.cwd, false, "prompts");
    assert_eq!(untrusted.len(), 1);
    assert_eq!(untrusted[0].scope, "user");
    assert_eq!(untrusted[0].base, d.agent);
    assert_eq!(untrusted[0].entries, ["mine", "!x.md"]);
    let trusted = resource_entries(&d.agent, &d.cwd, true, "prompts");
    let scopes: Vec<&str> = trusted.iter().map(|group| group.scope).collect();
    assert_eq!(scopes, ["project", "user"]);
    assert_eq!(trusted[0].base, d.cwd.join(".pi"));
    assert_eq!(trusted[0].entries, ["../team"]);
    Ok(())
}

#[test]
fn extension_paths_of_the_settings_come_between_cli_paths_and_discovered_ones() -> Result<()> {
    let d = dirs(
        Some(json!({"extensions": ["one.ts", "pack", "!pack/off/*", "~/home-ext.ts"]})),
        Some(json!({"extensions": ["../proj.ts"]})),
    )?;
    for file in [
        "one.ts",
        "pack/on/index.ts",
        "pack/off/index.ts",
        "extensions/auto.ts",
    ] {
        let path = d.agent.join(file);
        std::fs::create_dir_all(path.parent().unwrap_or(&d.agent))?;
        write(&path, "export default function () {}\n")?;
    }
    write(&d.cwd.join("proj.ts"), "export default function () {}\n")?;
    let found = |trusted: bool| -> Result<Vec<(String, String)>> {
        let files = pi_agent::extensions::discover(pi_agent::extensions::Discovery {
            cli_paths: &[],
            cwd: &d.cwd,
            agent_dir: &d.agent,
            project_trusted: trusted,
            no_discovery: false,
        });
        Ok(files
            .into_iter()
            .map(|file| (file.path.display().to_string(), file.source_info.source))
            .collect())
    };
    let agent = |file: &str| d.agent.join(file).display().to_string();
    // `~/home-ext.ts` does not exist (HOME is not this folder): nothing, and no error.
    assert_eq!(
        found(false)?,
        [
            (agent("one.ts"), "local".to_owned()),
            (agent("pack/on/index.ts"), "local".to_owned()),
            (agent("extensions/auto.ts"), "auto".to_owned()),
        ]
    );
    let trusted = found(true)?;
    assert_eq!(
        trusted[0],
        (
            d.cwd.join("proj.ts").display().to_string(),
            "local".to_owned()
        )
    );
    assert_eq!(trusted.len(), 4);
    Ok(())
}

#[test]
fn http_proxy_comes_from_the_global_file_only_and_yields_to_the_environment() -> Result<()> {
    let d = dirs(
        Some(json!({"httpProxy": " http://127.0.0.1:9 "})),
        Some(json!({"httpProxy": "http://project:1"})),
    )?;
    let settings = Settings::load(&d.agent, &d.cwd, true);
    let expected: Vec<(String, String)> = ["HTTP_PROXY", "HTTPS_PROXY"]
        .into_iter()
        .filter(|name| std::env::var_os(name).is_none())
        .map(|name| (name.to_owned(), "http://127.0.0.1:9".to_owned()))
        .collect();
    assert_eq!(settings.proxy_env(), expected);
    let d = dirs(None, Some(json!({"httpProxy": "http://project:1"})))?;
    assert!(
        Settings::load(&d.agent, &d.cwd, true)
            .proxy_env()
            .is_empty()
    );
    Ok(())
}
