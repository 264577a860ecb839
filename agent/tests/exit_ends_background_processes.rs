//! What a shell command leaves running in the background ends with the agent: the client's
//! `bash` command and the `bash` tool alike, when the agent ends on stdin's end and on SIGTERM;
//! a child started in a session of its own (`setsid`) is left alone. (The reference leaves the
//! background children of commands that returned running.)

mod support;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;
use support::{Agent, TestEnv, process_running as running, scenario};

/// The command: a sleeper in the background, whose pid it prints.
const BACKGROUND: &str = "sleep 300 >/dev/null 2>&1 & echo $!";

/// Waits until `pid` no longer runs; false if it still runs after a few seconds.
async fn ends(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if !running(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// Runs `command` with the client's `bash` command; gives the pid it printed.
async fn background_pid(agent: &mut Agent, command: &str) -> Result<i32> {
    let response = agent
        .request(json!({"id": "b", "type": "bash", "command": command}))
        .await?;
    let output = response["data"]["output"].as_str().context("no output")?;
    let pid: i32 = output
        .trim()
        .parse()
        .with_context(|| format!("{response}"))?;
    if !running(pid) {
        bail!("the background process {pid} is not running");
    }
    Ok(pid)
}

#[tokio::test]
async fn stdin_closing_ends_what_a_bash_command_left_running() -> Result<()> {
    let env = TestEnv::empty()?;
    let mut agent = env.spawn(&["--mode", "rpc", "--no-session"])?;
    let pid = background_pid(&mut agent, BACKGROUND).await?;
    agent.close_stdin();
    assert_eq!(agent.wait_exit().await?, 0);
    assert!(ends(pid).await, "process {pid} outlived the agent");
    Ok(())
}

#[tokio::test]
async fn sigterm_ends_what_a_bash_command_left_running() -> Result<()> {
    let env = TestEnv::empty()?;
    let mut agent = env.spawn(&["--mode", "rpc", "--no-session"])?;
    let pid = background_pid(&mut agent, BACKGROUND).await?;
    let agent_pid = agent.child.id().context("the agent's pid")?;
    let agent_pid = rustix::process::Pid::from_raw(agent_pid as i32).context("pid")?;
    rustix::process::kill_process(agent_pid, rustix::process::Signal::TERM)?;
    assert_eq!(agent.wait_exit().await?, 143);
    assert!(ends(pid).await, "process {pid} outlived the agent");
    Ok(())
}

#[tokio::test]
async fn what_the_bash_tool_left_running_ends_with_the_agent() -> Result<()> {
    let script = format!(
        "responses:\n  - content:\n      - tool_call: {{ id: toolu_bg, name: bash, arguments: {{ command: {BACKGROUND:?} }} }}\n    stop: tool_use\n  - text: started\n"
    );
    let (_server, _env, mut agent) = scenario(&script).await?;
    agent.prompt("Start it").await?;
    let records = agent.until_settled().await?;
    let result = records
        .iter()
        .find(|record| record["type"] == "tool_execution_end")
        .context("no tool_execution_end")?;
    let text = result["result"]["content"][0]["text"]
        .as_str()
        .context("no text")?;
    let pid: i32 = text.trim().parse().with_context(|| format!("{result}"))?;
    assert!(
        running(pid),
        "the tool's background process {pid} is not running"
    );
    agent.close_stdin();
    assert_eq!(agent.wait_exit().await?, 0);
    assert!(ends(pid).await, "process {pid} outlived the agent");
    Ok(())
}

#[tokio::test]
async fn a_child_in_a_session_of_its_own_is_left_alone() -> Result<()> {
    let env = TestEnv::empty()?;
    let mut agent = env.spawn(&["--mode", "rpc", "--no-session"])?;
    // The child writes its pid to a file (it holds none of the command's pipes).
    let pid = background_pid(
        &mut agent,
        "setsid sh -c 'echo $$ > own.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & \
         while [ ! -s own.pid ]; do sleep 0.05; done; cat own.pid",
    )
    .await?;
    agent.close_stdin();
    assert_eq!(agent.wait_exit().await?, 0);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let alive = running(pid);
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).context("pid")?,
        rustix::process::Signal::KILL,
    );
    assert!(alive, "the setsid child {pid} was ended too");
    Ok(())
}
