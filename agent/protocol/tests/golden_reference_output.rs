//! Every line the reference pi 0.84.1 wrote in two recorded RPC sessions (against a mock
//! Anthropic provider; paths and ports rewritten) parses into this crate's types and serialises
//! back to the same bytes.

use pi_rpc_protocol::{OutputRecord, json, parse_output_line};
use similar::TextDiff;

const RECORDED: &str = include_str!("golden/reference-output.jsonl");

#[test]
fn recorded_reference_output_round_trips_byte_for_byte() {
    let mut failures = Vec::new();
    for (number, line) in RECORDED.lines().enumerate() {
        let record = parse_output_line(line)
            .unwrap_or_else(|error| panic!("line {}: {error}\n{line}", number + 1));
        if let OutputRecord::Unknown(value) = &record {
            failures.push(format!(
                "line {}: unknown record type {}",
                number + 1,
                value["type"]
            ));
            continue;
        }
        if let OutputRecord::Event(event) = &record {
            let wire: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(
                event.kind(),
                wire["type"],
                "line {}: Event::kind",
                number + 1
            );
        }
        let written = match &record {
            OutputRecord::Response(response) => json::to_string(response),
            OutputRecord::Event(event) => json::to_string(event),
            OutputRecord::ExtensionUiRequest(request) => json::to_string(request),
            OutputRecord::Unknown(value) => json::to_string(value),
        }
        .unwrap();
        if written != line {
            let diff = TextDiff::from_words(line, &written);
            failures.push(format!(
                "line {}:\n{}",
                number + 1,
                diff.unified_diff().header("reference", "ours")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn recorded_output_has_every_kind_of_record_it_claims_to_cover() {
    let types: std::collections::BTreeSet<String> = RECORDED
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["type"].as_str().unwrap().to_owned()
        })
        .collect();
    for expected in [
        "response",
        "agent_start",
        "agent_end",
        "agent_settled",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "bash_execution_update",
        "queue_update",
        "compaction_start",
        "thinking_level_changed",
        "session_info_changed",
    ] {
        assert!(
            types.contains(expected),
            "no {expected} record in the recording"
        );
    }
}
