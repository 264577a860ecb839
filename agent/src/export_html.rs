//! `export_html`: the session as one self-contained HTML page. The active branch is rendered as
//! plain HTML (no script needed to read it); the whole session (header, every entry, the leaf,
//! the system prompt and the tools) travels base64-encoded inside the page for tools that want
//! the data. The page is written to the file as it is made, entry by entry, through a base64
//! encoder: a long session is not held as a page, nor as a JSON tree.

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::session::SessionEntry;
use serde_json::{Value, json};
use thiserror::Error;

use crate::paths::{PathError, create_regular_file};
use crate::store::SessionStore;
use crate::tools::ToolSet;

/// Why a session cannot be exported; the text is what the client sees.
#[derive(Debug, Error)]
pub enum ExportError {
    /// `--no-session`: there is no file to name the page after.
    #[error("Cannot export in-memory session to HTML")]
    InMemory,
    /// The session file is not written yet (no assistant answer so far).
    #[error("Nothing to export yet - start a conversation first")]
    NothingYet,
    /// The page could not be written; worded as Node words it.
    #[error("{0}")]
    Write(String),
}

/// Writes the page to `output_path` (`~` expanded), or to `pi-session-<file stem>.html` in the
/// working folder, and returns the path as given or made.
pub fn export(
    store: &SessionStore,
    system_prompt: &str,
    tools: &ToolSet,
    output_path: Option<&str>,
) -> Result<String, ExportError> {
    let file = store.session_file().ok_or(ExportError::InMemory)?;
    if !file.exists() {
        return Err(ExportError::NothingYet);
    }
    let path = match output_path.filter(|path| !path.is_empty()) {
        Some(path) => crate::paths::expand_tilde(path),
        None => {
            let stem = file
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            let stem = stem.strip_suffix(".jsonl").unwrap_or(&stem);
            format!("pi-session-{stem}.html")
        }
    };
    let node_error = |error: &io::Error, syscall: &str| {
        ExportError::Write(crate::tools::node_message(
            error,
            syscall,
            Some(Path::new(&path)),
        ))
    };
    // Only a regular file: a folder is refused as Node refuses it (`EISDIR`), a device, FIFO
    // or socket with a sentence saying what it is, before anything is opened.
    let page = create_regular_file(Path::new(&path)).map_err(|error| {
        match (error.folder_error(), error) {
            (Some(folder), _) => node_error(&folder, "open"),
            (None, PathError::NotARegularFile { kind, .. }) => ExportError::Write(format!(
                "Cannot export to {path}: it is {kind}, not a regular file"
            )),
            (None, PathError::Io { source, .. }) => node_error(&source, "open"),
        }
    })?;
    let mut page = BufWriter::new(page);
    write_page(&mut page, store, system_prompt, tools)
        .and_then(|()| page.flush())
        .map_err(|error| node_error(&error, "write"))?;
    Ok(path)
}

/// Text with `&`, `<`, `>`, `"` and `'` escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;background:#fafafa;color:#222}\
h1{font-size:1.3rem}.meta{color:#666;font-size:.85rem}\
.msg{border-radius:6px;padding:.6rem .9rem;margin:.8rem 0;background:#fff;border:1px solid #ddd}\
.user{border-left:4px solid #3b82f6}.assistant{border-left:4px solid #10b981}\
.toolResult{border-left:4px solid #a855f7}.bashExecution{border-left:4px solid #f59e0b}\
.error{border-left:4px solid #ef4444}.role{font-weight:600;font-size:.8rem;text-transform:uppercase;color:#555}\
pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:.5rem;border-radius:4px}\
.thinking{color:#666;font-style:italic}details{margin:.5rem 0}";

fn blocks_html(blocks: &[UserContent], out: &mut String) {
    for block in blocks {
        match block {
            UserContent::Text(text) => {
                let _ = write!(out, "<pre>{}</pre>", escape(&text.text));
            }
            UserContent::Image(image) => {
                let _ = write!(
                    out,
                    "<img alt=\"image\" style=\"max-width:100%\" src=\"data:{};base64,{}\">",
                    escape(&image.mime_type),
                    escape(&image.data)
                );
            }
        }
    }
}

fn content_html(content: &MessageContent, out: &mut String) {
    match content {
        MessageContent::Text(text) => {
            let _ = write!(out, "<pre>{}</pre>", escape(text));
        }
        MessageContent::Blocks(blocks) => blocks_html(blocks, out),
    }
}

fn message_html(message: &AgentMessage, out: &mut String) {
    let (class, role) = match message {
        AgentMessage::User(_) => ("user", "User"),
        AgentMessage::Assistant(_) => ("assistant", "Assistant"),
        AgentMessage::ToolResult(result) if result.is_error => ("toolResult error", "Tool result"),
        AgentMessage::ToolResult(_) => ("toolResult", "Tool result"),
        AgentMessage::BashExecution(_) => ("bashExecution", "Bash"),
        AgentMessage::Custom(_) => ("user", "Extension message"),
        AgentMessage::CompactionSummary(_) => ("user", "Compaction summary"),
        AgentMessage::BranchSummary(_) => ("user", "Branch summary"),
        AgentMessage::System(_) => ("system", "System"),
    };
    let _ = write!(
        out,
        "<div class=\"msg {class}\"><div class=\"role\">{role}</div>"
    );
    match message {
        AgentMessage::User(user) => content_html(&user.content, out),
        AgentMessage::Assistant(assistant) => {
            for block in &assistant.content {
                match block {
                    AssistantContent::Text(text) => {
                        let _ = write!(out, "<pre>{}</pre>", escape(&text.text));
                    }
                    AssistantContent::Thinking(thinking) => {
                        let _ = write!(
                            out,
                            "<details><summary>Thinking</summary><pre class=\"thinking\">{}</pre></details>",
                            escape(&thinking.thinking)
                        );
                    }
                    AssistantContent::ToolCall(call) => {
                        let arguments =
                            serde_json::to_string_pretty(&call.arguments).unwrap_or_default();
                        let _ = write!(
                            out,
                            "<div class=\"meta\">Tool call: {}</div><pre>{}</pre>",
                            escape(&call.name),
                            escape(&arguments)
                        );
                    }
                }
            }
            if let Some(error) = &assistant.error_message {
                let _ = write!(out, "<div class=\"meta\">Error: {}</div>", escape(error));
            }
            let _ = write!(
                out,
                "<div class=\"meta\">{}/{}</div>",
                escape(&assistant.provider),
                escape(&assistant.model)
            );
        }
        AgentMessage::ToolResult(result) => {
            let _ = write!(
                out,
                "<div class=\"meta\">{}</div>",
                escape(&result.tool_name)
            );
            blocks_html(&result.content, out);
        }
        AgentMessage::BashExecution(bash) => {
            let _ = write!(
                out,
                "<pre>$ {}</pre><pre>{}</pre>",
                escape(&bash.command),
                escape(&bash.output)
            );
            if bash.cancelled {
                out.push_str("<div class=\"meta\">(cancelled)</div>");
            } else if let Some(code) = bash.exit_code {
                let _ = write!(out, "<div class=\"meta\">exit code {code}</div>");
            }
        }
        AgentMessage::Custom(custom) => content_html(&custom.content, out),
        AgentMessage::CompactionSummary(summary) => {
            let _ = write!(out, "<pre>{}</pre>", escape(&summary.summary));
        }
        AgentMessage::BranchSummary(summary) => {
            let _ = write!(out, "<pre>{}</pre>", escape(&summary.summary));
        }
        AgentMessage::System(system) => {
            let sections = system
                .sections
                .iter()
                .flat_map(|sections| sections.values());
            for text in sections.filter_map(serde_json::Value::as_str) {
                let _ = write!(out, "<pre>{}</pre>", escape(text));
            }
        }
    }
    out.push_str("</div>\n");
}

/// The whole page as text (see [`write_page`]).
pub fn render(store: &SessionStore, system_prompt: &str, tools: &ToolSet) -> String {
    let mut page = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_page(&mut page, store, system_prompt, tools);
    String::from_utf8_lossy(&page).into_owned()
}

/// Writes the whole page to `out`.
pub fn write_page(
    out: &mut impl Write,
    store: &SessionStore,
    system_prompt: &str,
    tools: &ToolSet,
) -> io::Result<()> {
    let header = store.header();
    let title = store
        .session_name()
        .unwrap_or_else(|| format!("Session {}", store.session_id()));
    let cwd = header.get("cwd").and_then(Value::as_str).unwrap_or("");
    let started = header
        .get("timestamp")
        .and_then(Value::as_str)
        .unwrap_or("");
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n\
<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n\
<div class=\"meta\">{cwd} &middot; {started}</div>\n\
<details><summary>System prompt</summary><pre>{prompt}</pre></details>\n",
        title = escape(&title),
        cwd = escape(cwd),
        started = escape(started),
        prompt = escape(system_prompt),
    )?;
    let mut html = String::new();
    for entry in store.branch(None) {
        html.clear();
        entry_html(entry, &mut html);
        out.write_all(html.as_bytes())?;
    }
    out.write_all(
        b"<script type=\"application/json\" id=\"session-data\" data-encoding=\"base64\">",
    )?;
    {
        let mut encoder = base64::write::EncoderWriter::new(
            &mut *out,
            &base64::engine::general_purpose::STANDARD,
        );
        write_data(&mut encoder, store, system_prompt, tools)?;
        encoder.finish()?;
    }
    out.write_all(b"</script>\n</body>\n</html>\n")
}

/// `{"header","entries","leafId","systemPrompt","tools"}`, one entry at a time.
fn write_data(
    out: &mut impl Write,
    store: &SessionStore,
    system_prompt: &str,
    tools: &ToolSet,
) -> io::Result<()> {
    let mut piece = Vec::with_capacity(64 * 1024);
    piece.extend_from_slice(b"{\"header\":");
    piece.extend_from_slice(&json(store.header())?);
    piece.extend_from_slice(b",\"entries\":[");
    for (index, entry) in store.entries().iter().enumerate() {
        if index > 0 {
            piece.push(b',');
        }
        entry.write_json(&mut piece).map_err(io::Error::other)?;
        if piece.len() >= 64 * 1024 {
            out.write_all(&piece)?;
            piece.clear();
        }
    }
    piece.extend_from_slice(b"],\"leafId\":");
    piece.extend_from_slice(&json(&store.leaf_id())?);
    piece.extend_from_slice(b",\"systemPrompt\":");
    piece.extend_from_slice(&json(&system_prompt)?);
    piece.extend_from_slice(b",\"tools\":");
    let tools: Vec<Value> = tools
        .definitions()
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            })
        })
        .collect();
    piece.extend_from_slice(&json(&tools)?);
    piece.push(b'}');
    out.write_all(&piece)
}

/// JSON text of a small value.
fn json<T: serde::Serialize + ?Sized>(value: &T) -> io::Result<Vec<u8>> {
    pi_rpc_protocol::json::to_vec(value).map_err(io::Error::other)
}

/// One entry of the active branch as HTML (entries without a rendering add nothing). A message
/// read from the file is parsed for this and not kept.
fn entry_html(entry: &crate::store::Entry, out: &mut String) {
    if let Some(message) = entry.message() {
        message.with_typed(|message| message_html(message, out));
        return;
    }
    match entry.parsed() {
        Some(SessionEntry::ModelChange(change)) => {
            let _ = writeln!(
                out,
                "<div class=\"meta\">Model: {}/{}</div>",
                escape(&change.provider),
                escape(&change.model_id)
            );
        }
        Some(SessionEntry::ThinkingLevelChange(change)) => {
            let _ = writeln!(
                out,
                "<div class=\"meta\">Thinking level: {}</div>",
                escape(&change.thinking_level)
            );
        }
        Some(SessionEntry::Compaction(compaction)) => {
            let _ = writeln!(
                out,
                "<div class=\"msg user\"><div class=\"role\">Compaction</div><pre>{}</pre></div>",
                escape(&compaction.summary)
            );
        }
        Some(SessionEntry::BranchSummary(summary)) => {
            let _ = writeln!(
                out,
                "<div class=\"msg user\"><div class=\"role\">Branch summary</div><pre>{}</pre></div>",
                escape(&summary.summary)
            );
        }
        _ => {}
    }
}
