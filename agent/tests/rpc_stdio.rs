//! The RPC mode on every kind of stdin and stdout a client gives it: pipes (Rust's and Python's
//! clients), UNIX sockets (Node's `child_process`), and files (a shell's redirections). Each
//! serves commands (through pipes and sockets a streamed answer too), ends on stdin's end, and leaves the descriptors'
//! flags as they were.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::process::Stdio;

use anyhow::Result;
use serde_json::Value;
use support::{DEFAULT_ARGS, TestEnv, mock};

const SCRIPT: &str = "responses:\n  - content: [{text: hello there, chunks: 4}]\n";
const COMMANDS: &str = "{\"id\":\"1\",\"type\":\"get_state\"}\n{\"id\":\"2\",\"type\":\"prompt\",\"message\":\"hi\"}\n";

/// The types of the records, and the streamed text.
fn summary(output: &str) -> (Vec<String>, String) {
    let records: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_default())
        .collect();
    let types = records
        .iter()
        .map(|r| r["type"].as_str().unwrap_or_default().to_owned())
        .filter(|kind| kind == "response" || kind == "message_end" || kind == "agent_settled")
        .collect();
    let text = records
        .iter()
        .filter_map(|r| r["assistantMessageEvent"]["delta"].as_str())
        .collect();
    (types, text)
}

fn expected() -> (Vec<String>, String) {
    let kinds = [
        "response",
        "response",
        "message_end",
        "message_end",
        "agent_settled",
    ];
    (
        kinds.iter().map(|kind| (*kind).to_owned()).collect(),
        "hello there".to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unix_sockets_serve_and_end_like_pipes() -> Result<()> {
    let server = mock(SCRIPT).await?;
    let env = TestEnv::new(&server.uri())?;
    let (mut client_in, agent_in) = UnixStream::pair()?;
    let (client_out, agent_out) = UnixStream::pair()?;
    let mut child = env
        .command_for(env!("CARGO_BIN_EXE_pi-agent").as_ref(), &DEFAULT_ARGS)
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(agent_in)))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(agent_out)))
        .spawn()?;
    client_in.write_all(COMMANDS.as_bytes())?;
    let mut lines = BufReader::new(client_out);
    let mut output = String::new();
    while !output.contains("\"agent_settled\"") {
        let mut line = String::new();
        if lines.read_line(&mut line)? == 0 {
            break;
        }
        output.push_str(&line);
    }
    drop(client_in);
    let status = child.wait().await?;
    assert!(status.success(), "{status}");
    lines.read_to_string(&mut output)?;
    assert_eq!(summary(&output), expected(), "{output}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_serve_through_blocking_reads_and_writes() -> Result<()> {
    let server = mock(SCRIPT).await?;
    let env = TestEnv::new(&server.uri())?;
    let input = env.root.path().join("commands.jsonl");
    let output = env.root.path().join("records.jsonl");
    // stdin ends after the last line: the agent answers and exits (a run would end with it).
    std::fs::write(
        &input,
        "{\"type\":\"get_state\"}\n{\"type\":\"get_messages\"}\n",
    )?;
    let status = env
        .command_for(env!("CARGO_BIN_EXE_pi-agent").as_ref(), &DEFAULT_ARGS)
        .stdin(std::fs::File::open(&input)?)
        .stdout(std::fs::File::create(&output)?)
        .status()
        .await?;
    assert!(status.success(), "{status}");
    let written = std::fs::read_to_string(&output)?;
    let commands: Vec<String> = written
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap_or_default()["command"].to_string())
        .collect();
    assert_eq!(commands, ["\"get_state\"", "\"get_messages\""], "{written}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pipes_flags_are_given_back() -> Result<()> {
    let server = mock(SCRIPT).await?;
    let env = TestEnv::new(&server.uri())?;
    let (reader, mut writer) = std::io::pipe()?;
    let (mut out_reader, out_writer) = std::io::pipe()?;
    let stdout_copy = out_writer.try_clone()?;
    let mut child = env
        .command_for(env!("CARGO_BIN_EXE_pi-agent").as_ref(), &DEFAULT_ARGS)
        .stdin(reader)
        .stdout(out_writer)
        .spawn()?;
    writer.write_all(b"{\"type\":\"get_state\"}\n")?;
    drop(writer);
    let status = child.wait().await?;
    assert!(status.success());
    // The open file the agent wrote to is shared with this copy: it is blocking again.
    let flags = rustix::fs::fcntl_getfl(stdout_copy.as_fd())?;
    assert!(!flags.contains(rustix::fs::OFlags::NONBLOCK), "{flags:?}");
    drop(stdout_copy);
    let mut output = String::new();
    out_reader.read_to_string(&mut output)?;
    assert!(
        output.starts_with("{\"type\":\"response\",\"command\":\"get_state\""),
        "{output}"
    );
    Ok(())
}
