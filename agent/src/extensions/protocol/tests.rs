//! Reading the host's lines: replies routed by id, messages told apart.

use super::*;

#[test]
fn replies_are_routed_by_id_and_told_apart_from_messages() {
    let line = r#"{"type":"tool_update","id":4,"partialResult":{"content":[]}}"#;
    let parsed: FromHost = serde_json::from_str(line).unwrap();
    assert!(matches!(
        parsed,
        FromHost::Reply { id: 4, ref reply } if !reply.is_final()
    ));
    let line = r#"{"type":"done","id":7}"#;
    let parsed: FromHost = serde_json::from_str(line).unwrap();
    assert!(matches!(
        parsed,
        FromHost::Reply {
            id: 7,
            reply: HostReply::Done { result: None }
        }
    ));
    let line = r#"{"type":"wait_for_idle","id":"a-b"}"#;
    let parsed: FromHost = serde_json::from_str(line).unwrap();
    assert!(matches!(
        parsed,
        FromHost::Message(HostMessage::WaitForIdle { .. })
    ));
}

#[test]
fn a_new_session_names_its_setup_and_the_setup_answers_its_entries() {
    let line = r#"{"type":"new_session","id":"r","parentSession":"/p.jsonl","setup":"t-1"}"#;
    let parsed: FromHost = serde_json::from_str(line).unwrap();
    assert!(matches!(
        parsed,
        FromHost::Message(HostMessage::NewSession { setup: Some(ref token), .. }) if token == "t-1"
    ));
    let line = r#"{"type":"new_session","id":"r"}"#;
    let parsed: FromHost = serde_json::from_str(line).unwrap();
    assert!(matches!(
        parsed,
        FromHost::Message(HostMessage::NewSession { setup: None, .. })
    ));
    let reply = HostReply::Intercepted {
        result: serde_json::json!({"entries": [{"type": "custom", "id": "a"}, 3]}),
    };
    let result: SetupResult = reply.decision().unwrap();
    assert_eq!(result.entries.len(), 1, "what is not an object is left out");
}
