//! The quirk library: named fixtures reproducing providers' streaming quirks.
//!
//! Each fixture is a script in `mock-llm/quirks/<name>.yaml` whose leading comment says what it
//! reproduces. A script uses one with `- quirk: <name>`. This module holds only the fixtures'
//! text and descriptions; reading one as a script is the loader's work (`load.rs`), so the
//! script types stay below both.

/// One quirk fixture.
struct Quirk {
    name: &'static str,
    /// `any` when the fixture is neutral content that renders in every format, else the format.
    formats: &'static str,
    text: &'static str,
}

const QUIRKS: &[Quirk] = &[
    Quirk {
        name: "sse-split-mid-json",
        formats: "any",
        text: include_str!("../quirks/sse-split-mid-json.yaml"),
    },
    Quirk {
        name: "utf8-split-across-writes",
        formats: "any",
        text: include_str!("../quirks/utf8-split-across-writes.yaml"),
    },
    Quirk {
        name: "crlf-line-endings",
        formats: "any",
        text: include_str!("../quirks/crlf-line-endings.yaml"),
    },
    Quirk {
        name: "cr-line-endings",
        formats: "any",
        text: include_str!("../quirks/cr-line-endings.yaml"),
    },
    Quirk {
        name: "keepalive-comments",
        formats: "any",
        text: include_str!("../quirks/keepalive-comments.yaml"),
    },
    Quirk {
        name: "anthropic-ping-events",
        formats: "anthropic-messages",
        text: include_str!("../quirks/anthropic-ping-events.yaml"),
    },
    Quirk {
        name: "anthropic-no-event-lines",
        formats: "anthropic-messages",
        text: include_str!("../quirks/anthropic-no-event-lines.yaml"),
    },
    Quirk {
        name: "multiline-data",
        formats: "any",
        text: include_str!("../quirks/multiline-data.yaml"),
    },
    Quirk {
        name: "unicode-line-separators",
        formats: "any",
        text: include_str!("../quirks/unicode-line-separators.yaml"),
    },
    Quirk {
        name: "tool-args-control-chars",
        formats: "any",
        text: include_str!("../quirks/tool-args-control-chars.yaml"),
    },
    Quirk {
        name: "chat-no-done",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-no-done.yaml"),
    },
    Quirk {
        name: "chat-no-finish-reason",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-no-finish-reason.yaml"),
    },
    Quirk {
        name: "anthropic-no-message-stop",
        formats: "anthropic-messages",
        text: include_str!("../quirks/anthropic-no-message-stop.yaml"),
    },
    Quirk {
        name: "responses-no-terminal-event",
        formats: "openai-responses",
        text: include_str!("../quirks/responses-no-terminal-event.yaml"),
    },
    Quirk {
        name: "gemini-cut-mid-json",
        formats: "google-generative-ai",
        text: include_str!("../quirks/gemini-cut-mid-json.yaml"),
    },
    Quirk {
        name: "gemini-stop-without-parts",
        formats: "google-generative-ai",
        text: include_str!("../quirks/gemini-stop-without-parts.yaml"),
    },
    Quirk {
        name: "overloaded-mid-stream",
        formats: "any",
        text: include_str!("../quirks/overloaded-mid-stream.yaml"),
    },
    Quirk {
        name: "openrouter-error-chunk",
        formats: "openai-completions",
        text: include_str!("../quirks/openrouter-error-chunk.yaml"),
    },
    Quirk {
        name: "tool-args-single-chunk",
        formats: "any",
        text: include_str!("../quirks/tool-args-single-chunk.yaml"),
    },
    Quirk {
        name: "tool-args-char-by-char",
        formats: "any",
        text: include_str!("../quirks/tool-args-char-by-char.yaml"),
    },
    Quirk {
        name: "chat-tool-index-missing",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-tool-index-missing.yaml"),
    },
    Quirk {
        name: "chat-tool-index-gaps",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-tool-index-gaps.yaml"),
    },
    Quirk {
        name: "chat-tool-id-changes",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-tool-id-changes.yaml"),
    },
    Quirk {
        name: "chat-parallel-tools-same-index",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-parallel-tools-same-index.yaml"),
    },
    Quirk {
        name: "chat-reasoning-and-content-together",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-reasoning-and-content-together.yaml"),
    },
    Quirk {
        name: "chat-usage-variants",
        formats: "openai-completions",
        text: include_str!("../quirks/chat-usage-variants.yaml"),
    },
    Quirk {
        name: "anthropic-no-usage-in-message-delta",
        formats: "anthropic-messages",
        text: include_str!("../quirks/anthropic-no-usage-in-message-delta.yaml"),
    },
    Quirk {
        name: "truncated-length",
        formats: "any",
        text: include_str!("../quirks/truncated-length.yaml"),
    },
    Quirk {
        name: "rate-limited-retry-after",
        formats: "any",
        text: include_str!("../quirks/rate-limited-retry-after.yaml"),
    },
    Quirk {
        name: "overloaded-529",
        formats: "any",
        text: include_str!("../quirks/overloaded-529.yaml"),
    },
    Quirk {
        name: "overloaded-529-no-body",
        formats: "any",
        text: include_str!("../quirks/overloaded-529-no-body.yaml"),
    },
    Quirk {
        name: "slow-stream",
        formats: "any",
        text: include_str!("../quirks/slow-stream.yaml"),
    },
    Quirk {
        name: "stall-mid-stream",
        formats: "any",
        text: include_str!("../quirks/stall-mid-stream.yaml"),
    },
    Quirk {
        name: "connection-dropped",
        formats: "any",
        text: include_str!("../quirks/connection-dropped.yaml"),
    },
    Quirk {
        name: "connection-reset-before-headers",
        formats: "any",
        text: include_str!("../quirks/connection-reset-before-headers.yaml"),
    },
    Quirk {
        name: "bedrock-message-split-across-reads",
        formats: "bedrock-converse-stream",
        text: include_str!("../quirks/bedrock-message-split-across-reads.yaml"),
    },
    Quirk {
        name: "bedrock-bad-crc",
        formats: "bedrock-converse-stream",
        text: include_str!("../quirks/bedrock-bad-crc.yaml"),
    },
    Quirk {
        name: "bedrock-exception-frame",
        formats: "bedrock-converse-stream",
        text: include_str!("../quirks/bedrock-exception-frame.yaml"),
    },
    Quirk {
        name: "bedrock-error-frame",
        formats: "bedrock-converse-stream",
        text: include_str!("../quirks/bedrock-error-frame.yaml"),
    },
    Quirk {
        name: "bedrock-throttling",
        formats: "bedrock-converse-stream",
        text: include_str!("../quirks/bedrock-throttling.yaml"),
    },
];

/// The fixture's script text (YAML), or `None` if there is no quirk of that name.
pub(crate) fn quirk_text(name: &str) -> Option<&'static str> {
    QUIRKS.iter().find(|q| q.name == name).map(|q| q.text)
}

/// The names of all quirk fixtures, in the README's order.
pub fn quirk_names() -> Vec<&'static str> {
    QUIRKS.iter().map(|q| q.name).collect()
}

/// What a quirk reproduces (its fixture's leading comment) and the formats it is for.
pub fn quirk_info(name: &str) -> Option<(&'static str, String)> {
    let found = QUIRKS.iter().find(|q| q.name == name)?;
    let description = found
        .text
        .lines()
        .take_while(|line| line.starts_with('#'))
        .map(|line| line.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join(" ");
    Some((found.formats, description))
}
