//! Helpers shared by the session store's tests (`session_store.rs`, `session_files.rs`):
//! messages, the lines of a file, the texts of a context, a started store.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use pi_agent::store::SessionStore;
use pi_rpc_protocol::message::AgentMessage;
use serde_json::{Value, json};

pub fn user(text: &str) -> AgentMessage {
    serde_json::from_value(json!({
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "timestamp": 1_700_000_000_000u64
    }))
    .unwrap()
}

pub fn assistant(text: &str) -> AgentMessage {
    serde_json::from_value(json!({
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages",
        "provider": "mock",
        "model": "mock-model-1",
        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "stop",
        "timestamp": 1_700_000_000_001u64
    }))
    .unwrap()
}

pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read.map(|entry| entry.unwrap().path()).collect();
    files.sort();
    files
}

pub fn file_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

pub fn texts(messages: &[AgentMessage]) -> Vec<String> {
    messages
        .iter()
        .map(|message| {
            let value = serde_json::to_value(message).unwrap();
            match value["role"].as_str().unwrap() {
                "user" | "assistant" => value["content"][0]["text"].as_str().unwrap().to_owned(),
                role => format!("{role}:{}", value["summary"].as_str().unwrap_or("")),
            }
        })
        .collect()
}

/// A persisted store in `<tmp>/sessions` with a model, a thinking level, a prompt and its answer.
pub fn started(dir: &Path) -> SessionStore {
    let mut store = SessionStore::new(Path::new("/project"), &dir.join("sessions"), true).unwrap();
    store.append_model_change("mock", "mock-model-1").unwrap();
    store.append_thinking_level_change("off").unwrap();
    store.append_message(user("hello")).unwrap();
    store.append_message(assistant("hi")).unwrap();
    store
}
