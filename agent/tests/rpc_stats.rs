//! `get_session_stats` and `get_commands` against the real binary.

mod support;

use anyhow::Result;
use serde_json::json;
use support::{TestEnv, mock, write_file};

#[tokio::test]
async fn a_fresh_session_has_zero_totals_and_an_empty_context() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    let mut stats = agent
        .request(json!({"id": "s", "type": "get_session_stats"}))
        .await?;
    stats["data"]["sessionId"] = json!("<id>");
    assert_eq!(
        stats,
        json!({"id": "s", "type": "response", "command": "get_session_stats", "success": true,
               "data": {"sessionId": "<id>", "userMessages": 0, "assistantMessages": 0, "toolCalls": 0,
                        "toolResults": 0, "totalMessages": 0,
                        "tokens": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                        "cost": 0, "contextUsage": {"tokens": 0, "contextWindow": 200000, "percent": 0}}})
    );
    Ok(())
}

#[tokio::test]
async fn tool_calls_results_and_bash_messages_are_counted_and_estimated() -> Result<()> {
    let server = mock(
        "responses:\n  - content:\n      - tool_call: {id: toolu_1, name: read, arguments: {path: a.txt}}\n  - text: done\n",
    )
    .await?;
    let env = TestEnv::new(&server.uri())?;
    write_file(&env.work_dir(), "a.txt", "line one\n")?;
    let mut agent = env.spawn_default(&[])?;
    agent.prompt("go").await?;
    agent.until_settled().await?;
    // 16 characters of command and output (`echo 12345`, `12345\n`): 4 tokens on top of the
    // last usage.
    agent
        .request(json!({"type": "bash", "command": "echo 12345"}))
        .await?;
    let stats = agent.request(json!({"type": "get_session_stats"})).await?;
    let data = &stats["data"];
    assert_eq!(data["userMessages"], 1);
    assert_eq!(data["assistantMessages"], 2);
    assert_eq!(data["toolCalls"], 1);
    assert_eq!(data["toolResults"], 1);
    assert_eq!(data["totalMessages"], 5, "the bash execution is a message");
    let last_usage = data["tokens"]["total"].as_u64().unwrap_or_default() / 2;
    assert_eq!(data["contextUsage"]["tokens"], last_usage + 4);
    Ok(())
}

#[tokio::test]
async fn get_commands_lists_templates_and_skills_of_the_agent_folder() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let agent_dir = env.agent_dir();
    for dir in ["prompts", "skills/tidy", "skills/nodesc"] {
        std::fs::create_dir_all(agent_dir.join(dir))?;
    }
    write_file(
        &agent_dir.join("prompts"),
        "fix.md",
        "---\ndescription: Fix it\n---\nFix $1 now.\n",
    )?;
    write_file(
        &agent_dir.join("skills/tidy"),
        "SKILL.md",
        "---\ndescription: Tidy up.\n---\nTidy.\n",
    )?;
    write_file(
        &agent_dir.join("skills/nodesc"),
        "SKILL.md",
        "No front matter.\n",
    )?;
    let mut agent = env.spawn_default(&[])?;
    let commands = agent.request(json!({"type": "get_commands"})).await?;
    let listed: Vec<(String, String)> = commands["data"]["commands"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_owned(),
                c["source"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("llama", "extension"),
        ("fix", "prompt"),
        ("skill:tidy", "skill"),
    ]
    .map(|(name, source)| (name.to_owned(), source.to_owned()));
    assert_eq!(listed, expected);
    let skill = &commands["data"]["commands"][2]["sourceInfo"];
    assert_eq!(
        skill,
        &json!({"path": agent_dir.join("skills/tidy/SKILL.md"), "source": "auto", "scope": "user",
                "origin": "top-level", "baseDir": agent_dir})
    );
    Ok(())
}
