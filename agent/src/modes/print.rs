//! `-p` / `--mode text` and `--mode json`: run the messages one after another, then exit.
//!
//! The session actor does the work, as in RPC mode: this module is its client. It sends each
//! message as a `prompt` command, waits until the agent has settled, and passes on what the
//! session writes: in JSON mode every event line as it is (after the session's header line),
//! in text mode only the last assistant message's text at the end. Extension dialogs are
//! answered as cancelled, since there is no one to ask.

use std::io::Read;

use pi_rpc_protocol::content::{ImageContent, TaggedImage};
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::{Command, Request, RequestId, Response};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use super::Stop;
use super::report;
use crate::actor::{Actor, ActorInit};
use crate::cli::Cli;
use crate::config::Config;

/// What print mode sends: the first prompt (piped stdin, `@file` contents and the first
/// message, joined without separator, with the images of the files) and the other messages.
pub(super) struct Prompts {
    first: Option<(String, Vec<ImageContent>)>,
    rest: Vec<String>,
}

impl Prompts {
    /// Reads piped stdin (unless it is a terminal) and the `@file` arguments, as the reference
    /// does before it runs anything.
    pub(super) fn gather(cli: &Cli, config: &Config) -> Result<Self, Stop> {
        let stdin = read_piped_stdin();
        let cwd = std::env::current_dir().unwrap_or_else(|_| config.cwd.clone());
        let files = super::files::read(&cli.file_args, &cwd, config.settings.auto_resize_images())?;
        let mut messages = cli.messages.iter().cloned();
        let mut parts: Vec<String> = Vec::new();
        parts.extend(stdin);
        if !files.text.is_empty() {
            parts.push(files.text);
        }
        parts.extend(messages.next());
        let first = (!parts.is_empty()).then(|| (parts.concat(), files.images));
        let prompts = Self {
            first,
            rest: messages.collect(),
        };
        if prompts.first.is_none() {
            report(
                "pi-agent: no message to answer (give one as an argument, as an @file or on \
                 stdin; --mode rpc serves pi's RPC protocol; --help lists every option)",
            );
        }
        Ok(prompts)
    }
}

/// All of stdin when it is not a terminal, trimmed as JavaScript trims; `None` when empty.
fn read_piped_stdin() -> Option<String> {
    use std::io::IsTerminal;
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return None;
    }
    let mut bytes = Vec::new();
    // Unreadable input is no input.
    let _ = stdin.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let trimmed = crate::js::trim(&text);
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// Runs the prompts on a session and gives the exit code: 1 when a prompt is refused or, in
/// text mode, when the last answer ended in an error or an abort.
pub(super) async fn run(init: ActorInit, prompts: Prompts, json: bool) -> u8 {
    let header = json.then(|| pi_rpc_protocol::encode_record(init.store.header()).ok());
    let (line_tx, line_rx) = mpsc::channel(16);
    let (out_tx, out_rx) = crate::rpc::output_channel();
    let session = Actor::new(init, out_tx);
    let mut stdio = crate::rpc::stdio::Stdio::new();
    let mut client = Client {
        lines: line_tx,
        records: out_rx,
        stdout: stdio.output(),
        json,
        serial: 0,
        settled: false,
    };
    let drive = async move {
        if let Some(Some(header)) = header {
            client.write(&header).await;
        }
        let code = client.run_all(prompts).await;
        let _ = client.stdout.flush().await;
        // Dropping the client ends the session's input, and with it the session.
        code
    };
    let (code, ()) = tokio::join!(drive, session.run(line_rx));
    code
}

/// The session's client: sends commands, reads its records.
struct Client {
    lines: mpsc::Sender<crate::rpc::InputLine>,
    records: mpsc::Receiver<crate::rpc::Outgoing>,
    stdout: crate::rpc::stdio::Output,
    json: bool,
    serial: u64,
    /// Whether `agent_settled` came since the last prompt was sent.
    settled: bool,
}

/// The prefix of the ids this client gives its commands.
const ID_PREFIX: &str = "pi-agent-print-";

impl Client {
    async fn run_all(&mut self, prompts: Prompts) -> u8 {
        if let Some((text, images)) = prompts.first
            && let Err(code) = self.prompt(text, images).await
        {
            return code;
        }
        for message in prompts.rest {
            if let Err(code) = self.prompt(message, Vec::new()).await {
                return code;
            }
        }
        if self.json {
            return 0;
        }
        self.print_last_answer().await
    }

    /// Sends one prompt and waits until its run (if any) has settled.
    async fn prompt(&mut self, message: String, images: Vec<ImageContent>) -> Result<(), u8> {
        let images =
            (!images.is_empty()).then(|| images.into_iter().map(TaggedImage::Image).collect());
        let command = Command::Prompt(pi_rpc_protocol::command::PromptCommand {
            message,
            images,
            streaming_behavior: None,
        });
        self.settled = false;
        let response = self.call(command).await.ok_or(1u8)?;
        if !response.success {
            report(
                response
                    .error
                    .as_deref()
                    .unwrap_or("the prompt was refused"),
            );
            return Err(1);
        }
        let state = self
            .call(Command::GetState(Default::default()))
            .await
            .ok_or(1u8)?;
        let streaming = response_data(&state)
            .and_then(|data| data.get("isStreaming").and_then(Value::as_bool))
            .unwrap_or(false);
        if streaming {
            while !self.settled {
                if !self.next_records(None).await {
                    return Err(1);
                }
            }
        }
        Ok(())
    }

    /// In text mode: the last message's text, or its error on stderr.
    async fn print_last_answer(&mut self) -> u8 {
        let Some(response) = self.call(Command::GetMessages(Default::default())).await else {
            return 1;
        };
        let messages: Vec<AgentMessage> = response_data(&response)
            .and_then(|data| data.get("messages").cloned())
            .and_then(|messages| serde_json::from_value(messages).ok())
            .unwrap_or_default();
        let Some(AgentMessage::Assistant(last)) = messages.last() else {
            return 0;
        };
        if matches!(last.stop_reason, StopReason::Error | StopReason::Aborted) {
            let reason = match last.stop_reason {
                StopReason::Error => "error",
                _ => "aborted",
            };
            let message = last
                .error_message
                .clone()
                .filter(|message| !message.is_empty())
                .unwrap_or_else(|| format!("Request {reason}"));
            report(&message);
            return 1;
        }
        let mut text = Vec::new();
        for block in &last.content {
            if let pi_rpc_protocol::content::AssistantContent::Text(block) = block {
                // A lone surrogate comes out as JavaScript writes it to a stream: U+FFFD.
                text.extend_from_slice(
                    pi_rpc_protocol::surrogates::to_utf8_lossy(&block.text).as_bytes(),
                );
                text.push(b'\n');
            }
        }
        self.write(&text).await;
        0
    }

    /// Sends a command and reads records up to its response.
    async fn call(&mut self, command: Command) -> Option<Response> {
        self.serial += 1;
        let id = format!("{ID_PREFIX}{}", self.serial);
        let request = Request {
            id: Some(RequestId::String(id.clone())),
            command,
        };
        let line = pi_rpc_protocol::json::to_string(&request).ok()?;
        self.send(line).await?;
        let mut response = None;
        while response.is_none() {
            if !self.next_records(Some((&id, &mut response))).await {
                return None;
            }
        }
        response
    }

    async fn send(&mut self, line: String) -> Option<()> {
        self.lines
            .send(crate::rpc::InputLine::single(line))
            .await
            .ok()
    }

    /// Handles the next piece of output; `wanted` receives the response with that id. False
    /// when the session has ended.
    async fn next_records(&mut self, mut wanted: Option<(&str, &mut Option<Response>)>) -> bool {
        // The budget share is given back once the records are handled.
        let Some((batch, _handled)) = self.records.recv().await else {
            return false;
        };
        let mut passed = Vec::with_capacity(batch.len());
        for line in batch.split_inclusive(|byte| *byte == b'\n') {
            let text = String::from_utf8_lossy(line);
            if text.starts_with(&format!("{{\"id\":\"{ID_PREFIX}")) {
                let response: Option<Response> =
                    pi_rpc_protocol::surrogates::from_str(text.trim_end()).ok();
                if let (Some((id, slot)), Some(response)) = (wanted.as_mut(), response)
                    && response.id == Some(RequestId::String((*id).to_owned()))
                {
                    **slot = Some(response);
                }
                continue;
            }
            match record_type(&text) {
                Some("agent_settled") => self.settled = true,
                Some("extension_ui_request") => {
                    self.cancel_dialog(&text).await;
                    continue;
                }
                Some("extension_error") => {
                    report_extension_error(&text);
                    continue;
                }
                _ => {}
            }
            if self.json {
                passed.extend_from_slice(line);
            }
        }
        if !passed.is_empty() {
            self.write(&passed).await;
        }
        true
    }

    /// Answers an extension's question as cancelled: nobody is there to answer it.
    async fn cancel_dialog(&mut self, line: &str) {
        let Ok(request) = pi_rpc_protocol::surrogates::from_str::<Value>(line.trim_end()) else {
            return;
        };
        let method = request.get("method").and_then(Value::as_str);
        if !matches!(method, Some("select" | "confirm" | "input" | "editor")) {
            return;
        }
        let answer = serde_json::json!({
            "type": "extension_ui_response",
            "id": request.get("id").cloned().unwrap_or(Value::Null),
            "cancelled": true,
        });
        if let Ok(answer) = pi_rpc_protocol::json::to_string(&answer) {
            let _ = self.send(answer).await;
        }
    }

    async fn write(&mut self, bytes: &[u8]) {
        // A closed stdout leaves nothing to do but finish.
        let _ = self.stdout.write_all(bytes).await;
    }
}

/// The `type` of a record line, read without parsing the whole line.
fn record_type(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"type\":\"")?;
    rest.split('"').next()
}

fn response_data(response: &Response) -> Option<&Value> {
    response.data.as_ref()
}

/// `Extension error (<path>): <error>` on stderr, as the reference's print mode reports it.
fn report_extension_error(line: &str) {
    let Ok(record) = pi_rpc_protocol::surrogates::from_str::<Value>(line.trim_end()) else {
        return;
    };
    let text = |key: &str| {
        record
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    report(&format!(
        "Extension error ({}): {}",
        text("extensionPath"),
        text("error")
    ));
}
