//! Session paths that are not regular files (devices, FIFOs, sockets, folders) are refused at
//! once, before anything is opened for reading, and a session line longer than the framing limit
//! is reported instead of buffered: the agent answers, keeps serving, and still ends at the end
//! of its input.

mod support;

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use support::{Agent, TestEnv, check_eq};

fn switch(path: &Path) -> Value {
    json!({"id": "w", "type": "switch_session", "sessionPath": path.to_string_lossy()})
}

fn refused(error: &str) -> Value {
    json!({"id": "w", "type": "response", "command": "switch_session", "success": false, "error": error})
}

/// The agent still serves, its session unchanged, and the end of input ends it.
async fn still_serving(agent: &mut Agent, session_id: &Value) -> Result<()> {
    let state = agent.request(json!({"type": "get_state"})).await?;
    check_eq(&state["data"]["sessionId"], session_id)?;
    agent.close_stdin();
    assert_eq!(agent.wait_exit().await?, 0);
    Ok(())
}

fn peak_rss_kib(agent: &Agent) -> Result<u64> {
    let pid = agent.child.id().context("no pid")?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .context("no VmHWM")?;
    Ok(line
        .split_whitespace()
        .nth(1)
        .context("no value")?
        .parse()?)
}

#[tokio::test]
async fn switch_session_to_a_fifo_answers_at_once_and_end_of_input_still_ends_the_agent()
-> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let fifo = env.work_dir().join("pipe.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()?
            .success()
    );
    let mut agent = env.spawn_default(&[])?;
    let before = agent.request(json!({"type": "get_state"})).await?;
    let answer = agent.request(switch(&fifo)).await?;
    let error = format!(
        "{} is a named pipe (FIFO), not a regular file",
        fifo.display()
    );
    check_eq(&answer, &refused(&error))?;
    still_serving(&mut agent, &before["data"]["sessionId"]).await
}

#[tokio::test]
async fn switch_session_to_dev_zero_is_refused_without_reading_it() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    let before = agent.request(json!({"type": "get_state"})).await?;
    for device in ["/dev/zero", "/dev/urandom", "/dev/null"] {
        let answer = agent.request(switch(Path::new(device))).await?;
        let error = format!("{device} is a character device, not a regular file");
        check_eq(&answer, &refused(&error))?;
    }
    // Reading /dev/zero would have grown the agent by gigabytes.
    assert!(peak_rss_kib(&agent)? < 200 * 1024);
    still_serving(&mut agent, &before["data"]["sessionId"]).await
}

#[tokio::test]
async fn switch_session_to_a_socket_or_a_folder_is_refused() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let socket = env.work_dir().join("agent.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket)?;
    let mut agent = env.spawn_default(&[])?;
    let before = agent.request(json!({"type": "get_state"})).await?;
    let answer = agent.request(switch(&socket)).await?;
    let error = format!("{} is a socket, not a regular file", socket.display());
    check_eq(&answer, &refused(&error))?;
    // A folder gets the reference's own words.
    let answer = agent.request(switch(&env.work_dir())).await?;
    check_eq(
        &answer,
        &refused("EISDIR: illegal operation on a directory, read"),
    )?;
    still_serving(&mut agent, &before["data"]["sessionId"]).await
}

#[tokio::test]
async fn a_session_line_longer_than_the_framing_limit_is_reported() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    // 65 MiB without a line feed (a sparse file: no disk is used).
    let file = env.work_dir().join("long.jsonl");
    std::fs::File::create(&file)?.set_len(65 << 20)?;
    let mut agent = env.spawn_default(&[])?;
    let before = agent.request(json!({"type": "get_state"})).await?;
    let answer = agent.request(switch(&file)).await?;
    let error = format!(
        "Session file {}: line 1 is longer than the limit of 67108864 bytes",
        file.display()
    );
    check_eq(&answer, &refused(&error))?;
    still_serving(&mut agent, &before["data"]["sessionId"]).await
}

#[tokio::test]
async fn a_session_symlinked_to_a_regular_file_loads() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let file = env.work_dir().join("real.jsonl");
    let header = json!({"type": "session", "version": 3, "id": "0197a000-0000-7000-8000-00000000000a",
        "timestamp": "2026-01-01T10:00:00.000Z", "cwd": env.work_dir()});
    std::fs::write(&file, format!("{header}\n"))?;
    let link = env.work_dir().join("link.jsonl");
    std::os::unix::fs::symlink(&file, &link)?;
    let mut agent = env.spawn_default(&[])?;
    let answer = agent.request(switch(&link)).await?;
    check_eq(&answer["success"], &json!(true))?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    check_eq(&state["data"]["sessionId"], &header["id"])?;
    Ok(())
}

#[test]
fn a_fork_source_replaced_by_a_fifo_is_refused() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let mut store = pi_agent::store::SessionStore::new(dir.path(), dir.path(), true)?;
    let user = |text: &str| json!({"role": "user", "content": text, "timestamp": 1});
    store.append_message(serde_json::from_value(user("hi"))?)?;
    let answer = serde_json::from_value(json!({"role": "assistant",
        "content": [{"type": "text", "text": "hello"}], "api": "anthropic-messages",
        "provider": "mock", "model": "m", "usage": {"input": 1, "output": 1, "cacheRead": 0,
        "cacheWrite": 0, "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0,
        "cacheWrite": 0, "total": 0}}, "stopReason": "stop", "timestamp": 2}))?;
    store.append_message(answer)?;
    let question = store.append_message(serde_json::from_value(user("again"))?)?;
    // A fork reads the session's file again: a FIFO put in its place must not block it.
    let file = store.session_file().context("no file")?;
    std::fs::remove_file(&file)?;
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&file)
            .status()?
            .success()
    );
    let error = store.fork(&question).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{} is a named pipe (FIFO), not a regular file",
            file.display()
        )
    );
    Ok(())
}
