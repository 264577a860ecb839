//! Running the reference pi in RPC mode against a mock server.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

/// A reference pi process in RPC mode with a scratch HOME and agent dir.
pub struct Pi {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    _scratch: tempfile::TempDir,
}

impl Pi {
    /// Starts pi with models.json pointing at `base_url` with `api`, retries off.
    pub async fn spawn(launcher: &PathBuf, api: &str, base_url: &str) -> Pi {
        let scratch = tempfile::tempdir().expect("scratch dir");
        let agent = scratch.path().join("agent");
        let work = scratch.path().join("work");
        std::fs::create_dir_all(&agent).expect("agent dir");
        std::fs::create_dir_all(&work).expect("work dir");
        std::fs::write(work.join("a.txt"), "hello\n").expect("a.txt");
        let models = json!({"providers": {"mock": {
            "baseUrl": base_url,
            "api": api,
            "apiKey": "mock-key",
            "models": [{"id": "mock-model-1", "reasoning": true, "contextWindow": 200000, "maxTokens": 8192}]
        }}});
        std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
        std::fs::write(
            agent.join("settings.json"),
            r#"{"retry":{"enabled":false}}"#,
        )
        .expect("settings");
        let mut child = Command::new(launcher)
            .args(pi_reference::MOCK_RPC_ARGS)
            .current_dir(&work)
            .env("HOME", scratch.path())
            .env("PI_CODING_AGENT_DIR", &agent)
            .env("TZ", "UTC")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            // The AWS SDK's default HTTP/2 handler cannot reach a cleartext HTTP/1.1 server.
            .env("AWS_BEDROCK_FORCE_HTTP1", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the reference starts");
        let stdout = child.stdout.take().expect("stdout");
        Pi {
            child,
            lines: BufReader::new(stdout).lines(),
            _scratch: scratch,
        }
    }

    /// Sends a prompt and returns the assistant `message_end` messages of the run.
    pub async fn prompt(&mut self, text: &str) -> Vec<Value> {
        let command = json!({"type": "prompt", "message": text}).to_string() + "\n";
        let stdin = self.child.stdin.as_mut().expect("stdin");
        stdin
            .write_all(command.as_bytes())
            .await
            .expect("writes the prompt");
        let mut messages = Vec::new();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("no agent_end within 30 s for {text}; got {messages:?}"))
                .expect("reads stdout")
                .unwrap_or_else(|| panic!("the reference exited during {text}"));
            let Ok(event) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            match event["type"].as_str() {
                Some("message_end") if event["message"]["role"] == "assistant" => {
                    messages.push(event["message"].clone());
                }
                Some("agent_end") => return messages,
                _ => {}
            }
        }
    }
}
