//! Session entries serialise with the reference's key order (observed in session files and
//! `get_entries` responses of pi 0.84.1).

use pi_rpc_protocol::json;
use pi_rpc_protocol::session::{SessionEntry, SessionHeader};

const ENTRIES: &[&str] = &[
    r#"{"type":"model_change","id":"c54879e2","parentId":null,"timestamp":"2026-11-30T18:45:54.691Z","provider":"mock","modelId":"mock-model-1"}"#,
    r#"{"type":"thinking_level_change","id":"d0712ec1","parentId":"c54879e2","timestamp":"2026-11-30T18:45:54.691Z","thinkingLevel":"medium"}"#,
    r#"{"type":"message","id":"ec11f5e2","parentId":"d0712ec1","timestamp":"2026-11-30T18:45:54.711Z","message":{"role":"user","content":[{"type":"text","text":"go"}],"timestamp":1796064354709}}"#,
    r#"{"type":"session_info","id":"0a1b2c3d","parentId":"ec11f5e2","timestamp":"2026-11-30T18:45:55.000Z","name":"nm"}"#,
    r#"{"type":"custom","customType":"my-ext","data":{"n":1},"id":"1a2b3c4d","parentId":"0a1b2c3d","timestamp":"2026-11-30T18:45:56.000Z"}"#,
    r#"{"type":"custom_message","customType":"note","content":"hello","display":true,"details":{"k":2},"id":"2a2b3c4d","parentId":"1a2b3c4d","timestamp":"2026-11-30T18:45:57.000Z"}"#,
    r#"{"type":"label","id":"3a2b3c4d","parentId":"2a2b3c4d","timestamp":"2026-11-30T18:45:58.000Z","targetId":"ec11f5e2","label":"start"}"#,
];

#[test]
fn entries_round_trip_with_the_reference_key_order() {
    for line in ENTRIES {
        let entry: SessionEntry = serde_json::from_str(line).unwrap();
        assert_eq!(json::to_string(&entry).unwrap(), *line);
    }
}

#[test]
fn the_header_round_trips() {
    let line = r#"{"type":"session","version":3,"id":"01a22dc7-215b-7aa4-9f65-d11547343b81","timestamp":"2026-11-30T18:45:54.651Z","cwd":"/home/user/project"}"#;
    let header: SessionHeader = serde_json::from_str(line).unwrap();
    assert_eq!(json::to_string(&header).unwrap(), line);
}
