//! A cell's session file loaded back: an agent started on it (`--session <file>` in RPC mode)
//! answers `get_messages` with success, and the messages hold the user message of every
//! acknowledged prompt the file keeps in its context (one a compaction summarised is not sent).
//!
//! Many cells write the same file but for its ids, timestamps and folder (the cells of one
//! phase ended by stdin's end or a signal): each agent loads each distinct file once, the
//! [`Loads`] cache remembering what came of it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::TestEnv;

/// How long a load may take (the reference starts in about a second).
const LOAD_WAIT: Duration = Duration::from_secs(20);

/// What a cell left behind: its environment (kept for the loads) and session files.
pub struct Written {
    pub env: TestEnv,
    pub files: Vec<PathBuf>,
    /// The acknowledged prompts' texts.
    pub acknowledged: Vec<String>,
}

/// What came of the loads so far: by program and the file's form (the file without its ids,
/// timestamps and folder) with the prompts looked for.
#[derive(Default)]
pub struct Loads(Mutex<HashMap<(PathBuf, String), bool>>);

impl Loads {
    /// Whether `program` loads every session file `written` left (`None`: there is none).
    pub async fn of(&self, program: &Path, written: &Written) -> Result<Option<bool>> {
        if written.files.is_empty() {
            return Ok(None);
        }
        for file in &written.files {
            let expected = in_context(file, &written.acknowledged)?;
            let key = (program.to_path_buf(), form(file, &expected)?);
            let known = self.0.lock().ok().and_then(|seen| seen.get(&key).copied());
            let loads = match known {
                Some(loads) => loads,
                None => {
                    let loads = load(&written.env, program, file)
                        .await?
                        .is_some_and(|messages| {
                            let texts: Vec<String> =
                                messages.iter().filter_map(user_text).collect();
                            expected.iter().all(|text| texts.contains(text))
                        });
                    if let Ok(mut seen) = self.0.lock() {
                        seen.insert(key, loads);
                    }
                    loads
                }
            };
            if !loads {
                return Ok(Some(false));
            }
        }
        Ok(Some(true))
    }
}

/// A session file without what differs between two runs of one cell (ids, timestamps, the
/// folders), and the prompts looked for in it.
fn form(file: &Path, expected: &[String]) -> Result<String> {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    match key.as_str() {
                        "id" | "parentId" | "firstKeptEntryId" | "timestamp" | "cwd"
                        | "responseId" => *item = Value::Null,
                        _ => strip(item),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(file)?;
    let mut form: Vec<String> = text
        .lines()
        .map(|line| {
            let mut entry = serde_json::from_str(line).unwrap_or(Value::String(line.to_owned()));
            strip(&mut entry);
            entry.to_string()
        })
        .collect();
    form.push(expected.join("\n"));
    Ok(form.join("\n"))
}

/// Which agents load a cell's files, in a table's cell: `ours` from pi-agent (`None`: there
/// is no file), `theirs` from the reference (`None`: not run).
pub fn loaded_by(ours: Option<bool>, theirs: Option<Option<bool>>) -> String {
    match (ours, theirs.flatten()) {
        (None, _) => "no file",
        (Some(true), None) => "pi-agent",
        (Some(false), None) => "not pi-agent",
        (Some(true), Some(true)) => "both",
        (Some(true), Some(false)) => "pi-agent only",
        (Some(false), Some(true)) => "reference only",
        (Some(false), Some(false)) => "neither",
    }
    .to_owned()
}

/// The messages `program` holds once started on `file`, or `None` when it answers
/// `get_messages` with no success or not at all.
async fn load(env: &TestEnv, program: &Path, file: &Path) -> Result<Option<Vec<Value>>> {
    let file = file.display().to_string();
    let args = [
        "--mode",
        "rpc",
        "--provider",
        "mock",
        "--model",
        "mock-model-1",
        "--session",
        &file,
    ];
    let mut child = spawn(env, program, &args)?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut lines = BufReader::new(child.stdout.take().context("stdout")?).lines();
    let command = json!({"id": "load", "type": "get_messages"}).to_string() + "\n";
    stdin.write_all(command.as_bytes()).await?;
    let answer = tokio::time::timeout(LOAD_WAIT, async {
        while let Some(line) = lines.next_line().await? {
            let Ok(record) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if record["type"] == "response" && record["id"] == "load" {
                return Ok::<_, anyhow::Error>(Some(record));
            }
        }
        Ok(None)
    })
    .await;
    drop(stdin);
    if tokio::time::timeout(Duration::from_secs(5), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
    let Ok(Ok(Some(answer))) = answer else {
        return Ok(None);
    };
    if answer["success"] != true {
        return Ok(None);
    }
    Ok(answer["data"]["messages"].as_array().cloned())
}

/// `program` with `args` in `env`, its stdin and stdout piped to the test (killed if dropped).
pub fn spawn(env: &TestEnv, program: &Path, args: &[&str]) -> Result<tokio::process::Child> {
    Ok(env
        .command_for(program, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?)
}

/// A user message's text (a string content or its first text part).
fn user_text(message: &Value) -> Option<String> {
    if message["role"] != "user" {
        return None;
    }
    let content = &message["content"];
    content
        .as_str()
        .or_else(|| content[0]["text"].as_str())
        .map(str::to_owned)
}

/// The acknowledged prompts whose user messages `file` holds in its context: from the last
/// compaction's first kept entry on (all of them without a compaction).
fn in_context(file: &Path, acknowledged: &[String]) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(file)?;
    let entries: Vec<Value> = text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let first_kept = entries
        .iter()
        .rev()
        .find(|entry| entry["type"] == "compaction")
        .and_then(|compaction| {
            let id = &compaction["firstKeptEntryId"];
            entries.iter().position(|entry| entry["id"] == *id)
        })
        .unwrap_or(0);
    let kept: Vec<String> = entries[first_kept..]
        .iter()
        .filter(|entry| entry["type"] == "message")
        .filter_map(|entry| user_text(&entry["message"]))
        .collect();
    Ok(acknowledged
        .iter()
        .filter(|text| kept.contains(text))
        .cloned()
        .collect())
}
