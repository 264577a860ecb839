//! What the mock provider answers in each phase of the matrix (phases.rs): the held streams
//! and, for the client that sends more prompts, what comes once they are let go.

use super::phases::Phase;

/// The text of the prompts the client sends in the phase (`sends more prompts`).
pub const MORE: &str = "Another prompt";

/// The answer to [`MORE`], put first after the summary requests' answer in every script.
const MORE_ANSWER: &str =
    "  - { match: { last_message_text: Another prompt }, text: Another answer, repeat: true }\n";

/// The summary requests of a compaction (the reference's and pi-agent's summary prompts).
const SUMMARY_MATCH: &str = r#"match: { last_message_pattern: "<conversation>|# Conversation" }"#;

/// The opening of an Anthropic answer that calls `bash`, up to part of its arguments.
const TOOL_CALL_OPENING: [(&str, &str); 3] = [
    (
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_args","type":"message","role":"assistant","model":"mock-model-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#,
    ),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_args","name":"bash","input":{}}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"ec"}}"#,
    ),
];

/// The rest of that answer, past the gate: the arguments' end (`echo hi`) and the stop.
const TOOL_CALL_REST: [(&str, &str); 4] = [
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"ho hi\"}"}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    ),
    (
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}"#,
    ),
    ("message_stop", r#"{"type":"message_stop"}"#),
];

/// A whole Anthropic text answer (`Late answer`), sent after a stalled stream's gate.
const LATE_ANSWER: [(&str, &str); 6] = [
    (
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_late","type":"message","role":"assistant","model":"mock-model-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#,
    ),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Late answer"}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    ),
    (
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}"#,
    ),
    ("message_stop", r#"{"type":"message_stop"}"#),
];

/// SSE events as raw chunks of a script.
fn events(events: &[(&str, &str)]) -> String {
    events
        .iter()
        .map(|(event, data)| format!("        - {{ event: {event}, data: '{data}' }}\n"))
        .collect()
}

/// Two turns, the second near the context window (a threshold compaction follows it) or
/// overflowing it (an overflow compaction, then the turn again), the summary request held.
fn compaction(second: &str) -> String {
    format!(
        "  - {{ {SUMMARY_MATCH}, text: Held summary, gate: summary }}\n{MORE_ANSWER}  - match: {{ last_message_text: Hi }}\n    text: Answer one, with some words to take up room in the context.\n{second}"
    )
}

/// The mock's script for the phase.
pub fn script(phase: Phase) -> String {
    // Hyper sends the headers with the first write: an SSE comment, which no client reads as
    // an event. Let go, the stream goes on with a whole answer.
    let stalled = format!(
        "  - raw:\n      chunks:\n        - \": waiting\\n\\n\"\n        - {{ gate: first }}\n{}",
        events(&LATE_ANSWER)
    );
    let responses = match phase {
        Phase::Idle | Phase::ExtensionCommand => "  - text: Done\n".to_owned(),
        // The command returns at once; what it started in the background goes on.
        Phase::ToolsAnswered => {
            "  - content:\n      - tool_call: { id: toolu_b, name: bash, arguments: { command: \"sleep 30 > /dev/null 2>&1 & echo $! > tool.pid\" } }\n    stop: tool_use\n  - text: Done\n".to_owned()
        }
        Phase::ProviderError => {
            "  - { match: { last_message_text: Hi }, error: { status: 400, message: invalid request } }\n".to_owned()
        }
        Phase::FirstByte | Phase::IdleTimeout => stalled,
        Phase::MidText => {
            "  - content:\n      - text: before\n      - gate: mid\n      - text: after\n".to_owned()
        }
        Phase::MidToolArgs => format!(
            "  - raw:\n      chunks:\n{}        - {{ gate: args }}\n{}  - text: Done\n",
            events(&TOOL_CALL_OPENING),
            events(&TOOL_CALL_REST)
        ),
        Phase::Tool => {
            "  - content:\n      - tool_call: { id: toolu_t, name: bash, arguments: { command: \"echo $$ > tool.pid; exec sleep 30\" } }\n    stop: tool_use\n  - text: Done\n".to_owned()
        }
        Phase::RetryWait => "  - error: { status: 500 }\n  - text: Recovered\n".to_owned(),
        Phase::RetryExhausted => {
            "  - { match: { last_message_text: Hi }, error: { status: 500 }, times: 3 }\n".to_owned()
        }
        Phase::ThresholdCompaction => compaction(
            "  - match: { last_message_text: Turn two }\n    text: Answer two, near the limit.\n    usage: { input: 190000, output: 100 }\n",
        ),
        Phase::ManualCompaction => compaction(
            "  - match: { last_message_text: Turn two }\n    text: Answer two, with some words to take up room in the context.\n",
        ),
        Phase::Overflow => compaction(
            "  - match: { last_message_text: Turn two }\n    error: { status: 400, message: \"prompt is too long: 213462 tokens > 200000 maximum\" }\n  - { match: { last_message_text: Turn two }, text: Answer two after compaction. }\n",
        ),
    };
    let more = if responses.contains(SUMMARY_MATCH) {
        ""
    } else {
        MORE_ANSWER
    };
    format!("responses:\n{more}{responses}")
}
