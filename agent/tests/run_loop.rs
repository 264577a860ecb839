//! Prompts run against a real mock LLM on loopback: the event order of a run, tool calls in
//! parallel, abort during the stream and during a tool, steering and follow-up delivery, and
//! provider errors, as the reference emits them.

mod support;

use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};
use support::{TestEnv, first_of, is_type, mock, scenario, types};

const GATE_WAIT: Duration = Duration::from_secs(10);

fn user_texts(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| {
            m["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_prompt_streams_the_reply_in_the_reference_event_order() -> Result<()> {
    let (_server, _env, mut agent) = scenario("responses:\n  - text: [Hello, ' world']\n").await?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "hi"}))
        .await?;
    let records = agent.until_settled().await?;
    assert_eq!(
        types(&records),
        [
            "response:prompt",
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update:text_start",
            "message_update:text_delta",
            "message_update:text_delta",
            "message_update:text_end",
            "message_end:assistant",
            "turn_end",
            "agent_end",
            "agent_settled",
        ]
    );
    let end = &records[10]["message"];
    assert_eq!(
        end["content"],
        json!([{"type": "text", "text": "Hello world"}])
    );
    assert_eq!(end["stopReason"], "stop");
    assert_eq!(end["provider"], "mock");
    assert_eq!(end["model"], "mock-model-1");
    assert_eq!(records[12]["willRetry"], false);
    assert_eq!(records[12]["messages"].as_array().map(Vec::len), Some(2));
    let last = agent
        .request(json!({"type": "get_last_assistant_text"}))
        .await?;
    assert_eq!(last["data"], json!({"text": "Hello world"}));
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["data"]["messageCount"], 2);
    assert_eq!(state["data"]["isStreaming"], false);
    Ok(())
}

#[tokio::test]
async fn the_request_carries_the_system_prompt_ending_with_the_working_folder() -> Result<()> {
    let (server, env, mut agent) = scenario("responses:\n  - text: ok\n").await?;
    agent.prompt("hi").await?;
    agent.until_settled().await?;
    let journal = server.journal();
    assert_eq!(journal.len(), 1);
    let body = &journal[0].body;
    let system = serde_json::to_string(&body["system"])?;
    let cwd = env.work_dir().canonicalize()?;
    let ending = format!("\\nCurrent working directory: {}\"", cwd.display());
    assert!(system.contains(&ending), "{system}");
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(tools, ["read", "bash", "edit", "write"]);
    assert_eq!(body["model"], "mock-model-1");
    Ok(())
}

#[tokio::test]
async fn tool_calls_start_together_and_their_results_follow_in_call_order() -> Result<()> {
    let server = mock(
        "responses:\n  - content:\n      - tool_call: {id: toolu_1, name: bash, arguments: {command: 'sleep 0.3; echo slow'}}\n      - tool_call: {id: toolu_2, name: read, arguments: {path: a.txt}}\n  - text: done\n",
    )
    .await?;
    let env = TestEnv::new(&server.uri())?;
    support::write_file(&env.work_dir(), "a.txt", "line one\n")?;
    let mut agent = env.spawn_default(&[])?;
    agent.prompt("go").await?;
    let records = agent.until_settled().await?;
    let tool_events: Vec<(String, String)> = records
        .iter()
        .filter(|r| {
            matches!(
                r["type"].as_str(),
                Some("tool_execution_start" | "tool_execution_end")
            ) || (r["type"] == "message_start" && r["message"]["role"] == "toolResult")
        })
        .map(|r| {
            let id = r["toolCallId"]
                .as_str()
                .or(r["message"]["toolCallId"].as_str())
                .unwrap_or_default();
            (
                r["type"].as_str().unwrap_or_default().to_owned(),
                id.to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("tool_execution_start", "toolu_1"),
        ("tool_execution_start", "toolu_2"),
        ("tool_execution_end", "toolu_2"),
        ("tool_execution_end", "toolu_1"),
        ("message_start", "toolu_1"),
        ("message_start", "toolu_2"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(tool_events, expected);
    let turn_ends: Vec<&Value> = records.iter().filter(|r| is_type(r, "turn_end")).collect();
    assert_eq!(turn_ends.len(), 2);
    let results = &turn_ends[0]["toolResults"];
    assert_eq!(results[0]["role"], "toolResult");
    assert_eq!(results[0]["content"][0]["text"], "slow\n");
    assert_eq!(results[1]["content"][0]["text"], "line one\n");
    let journal = server.journal();
    assert_eq!(journal.len(), 2);
    let second = serde_json::to_string(&journal[1].body["messages"])?;
    assert!(second.contains("\"tool_use_id\":\"toolu_2\""), "{second}");
    Ok(())
}

#[tokio::test]
async fn abort_during_the_stream_ends_the_message_as_aborted_and_answers_after_settling()
-> Result<()> {
    let (server, _env, mut agent) =
        scenario("responses:\n  - content: [{text: partial}, {gate: g}, {text: late}]\n").await?;
    agent.prompt("go").await?;
    server.wait_for_gate("g", GATE_WAIT).await?;
    agent
        .until(|r| r["assistantMessageEvent"]["type"] == "text_delta")
        .await?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["data"]["isStreaming"], true);
    agent.send(json!({"id": "x", "type": "abort"})).await?;
    let records = agent
        .until(|r| is_type(r, "response") && r["command"] == "abort")
        .await?;
    let tail: Vec<String> = types(&records);
    let tail = &tail[tail.len() - 5..];
    assert_eq!(
        tail,
        [
            "message_end:assistant",
            "turn_end",
            "agent_end",
            "agent_settled",
            "response:abort"
        ]
    );
    let end = first_of(&records, "message_end")["message"].clone();
    assert_eq!(end["stopReason"], "aborted");
    assert_eq!(end["errorMessage"], "This operation was aborted");
    assert_eq!(end["content"][0]["text"], "partial");
    let last = records.last().cloned().unwrap_or_default();
    assert_eq!(last["id"], "x");
    Ok(())
}

#[tokio::test]
async fn abort_during_a_tool_reports_command_aborted_and_makes_no_further_request() -> Result<()> {
    let (server, _env, mut agent) = scenario(
        "responses:\n  - content:\n      - tool_call: {id: toolu_1, name: bash, arguments: {command: 'sleep 30'}}\n  - text: never\n",
    )
    .await?;
    agent.prompt("go").await?;
    agent.until(|r| is_type(r, "tool_execution_update")).await?;
    agent.send(json!({"type": "abort"})).await?;
    let records = agent
        .until(|r| is_type(r, "response") && r["command"] == "abort")
        .await?;
    let end = first_of(&records, "tool_execution_end");
    assert_eq!(end["result"]["content"][0]["text"], "Command aborted");
    assert_eq!(end["isError"], true);
    let final_message = records
        .iter()
        .rev()
        .find(|r| is_type(r, "message_end"))
        .map(|r| r["message"].clone())
        .unwrap_or_default();
    assert_eq!(final_message["role"], "assistant");
    assert_eq!(final_message["stopReason"], "error");
    assert_eq!(final_message["errorMessage"], "This operation was aborted");
    assert_eq!(final_message["content"], json!([]));
    assert_eq!(server.request_count(), 1);
    Ok(())
}

#[tokio::test]
async fn steering_and_follow_up_sent_during_a_run_are_delivered_one_per_turn() -> Result<()> {
    let (server, _env, mut agent) = scenario(
        "responses:\n  - content: [{text: one}, {gate: g}]\n  - text: two\n  - text: three\n",
    )
    .await?;
    agent
        .request(json!({"type": "prompt", "message": "go"}))
        .await?;
    server.wait_for_gate("g", GATE_WAIT).await?;
    agent
        .send(json!({"type": "follow_up", "message": "f1"}))
        .await?;
    agent
        .send(json!({"type": "steer", "message": "s1"}))
        .await?;
    let busy = agent
        .request(json!({"id": 9, "type": "prompt", "message": "p"}))
        .await?;
    assert_eq!(
        serde_json::to_string(&busy)?,
        r#"{"id":9,"type":"response","command":"prompt","success":false,"error":"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."}"#
    );
    server.release_gate("g")?;
    let records = agent.until_settled().await?;
    let queue_updates: Vec<Value> = records
        .iter()
        .filter(|r| is_type(r, "queue_update"))
        .cloned()
        .collect();
    assert_eq!(
        queue_updates,
        [
            json!({"type": "queue_update", "steering": [], "followUp": ["f1"]}),
            json!({"type": "queue_update", "steering": [], "followUp": []}),
        ]
    );
    let agent_end = first_of(&records, "agent_end");
    let messages = agent_end["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(user_texts(&messages), ["go", "s1", "f1"]);
    assert_eq!(
        records.iter().filter(|r| is_type(r, "agent_end")).count(),
        1
    );
    assert_eq!(server.request_count(), 3);
    Ok(())
}

#[tokio::test]
async fn messages_queued_while_idle_arrive_with_the_next_prompt() -> Result<()> {
    let (server, _env, mut agent) = scenario("responses:\n  - text: a\n  - text: b\n").await?;
    agent
        .request(json!({"type": "follow_up", "message": "f1"}))
        .await?;
    agent
        .request(json!({"type": "steer", "message": "s1"}))
        .await?;
    agent.prompt("go").await?;
    let records = agent.until_settled().await?;
    let order: Vec<String> = types(&records)
        .into_iter()
        .filter(|t| t.starts_with("message_start") || t == "turn_start" || t == "queue_update")
        .collect();
    assert_eq!(
        order,
        [
            "turn_start",
            "message_start:user",
            "queue_update",
            "message_start:user",
            "message_start:assistant",
            "turn_start",
            "queue_update",
            "message_start:user",
            "message_start:assistant",
        ]
    );
    let journal = server.journal();
    let first = serde_json::to_string(&journal[0].body["messages"])?;
    assert!(first.contains("\"go\"") && first.contains("\"s1\"") && !first.contains("\"f1\""));
    Ok(())
}

#[tokio::test]
async fn a_provider_error_ends_the_run_with_an_error_message() -> Result<()> {
    let (_server, _env, mut agent) =
        scenario("responses:\n  - error: {status: 400, message: bad request}\n").await?;
    agent.prompt("go").await?;
    let records = agent.until_settled().await?;
    assert_eq!(
        types(&records)[5..],
        [
            "message_start:assistant",
            "message_end:assistant",
            "turn_end",
            "agent_end",
            "agent_settled"
        ]
    );
    let end = &records[6]["message"];
    assert_eq!(end["stopReason"], "error");
    let error = end["errorMessage"].as_str().unwrap_or_default();
    assert!(error.starts_with("400 "), "{error}");
    assert_eq!(records[8]["willRetry"], false);
    Ok(())
}

#[tokio::test]
async fn end_of_input_during_a_run_exits_at_once_with_code_zero() -> Result<()> {
    let (server, _env, mut agent) =
        scenario("responses:\n  - content: [{text: a}, {gate: g}]\n").await?;
    agent.prompt("go").await?;
    server.wait_for_gate("g", GATE_WAIT).await?;
    agent.close_stdin();
    assert_eq!(agent.wait_exit().await?, 0);
    Ok(())
}

#[tokio::test]
async fn in_all_mode_every_queued_steering_message_arrives_in_one_turn() -> Result<()> {
    let (server, _env, mut agent) =
        scenario("responses:\n  - content: [{text: one}, {gate: g}]\n  - text: two\n").await?;
    agent
        .request(json!({"type": "set_steering_mode", "mode": "all"}))
        .await?;
    agent
        .request(json!({"type": "prompt", "message": "go"}))
        .await?;
    server.wait_for_gate("g", GATE_WAIT).await?;
    agent
        .request(json!({"type": "steer", "message": "s1"}))
        .await?;
    agent
        .request(json!({"type": "prompt", "message": "s2", "streamingBehavior": "steer"}))
        .await?;
    server.release_gate("g")?;
    let records = agent.until_settled().await?;
    let turn_starts = records.iter().filter(|r| is_type(r, "turn_start")).count();
    assert_eq!(turn_starts, 1, "one more turn after the first");
    let agent_end = first_of(&records, "agent_end");
    let messages = agent_end["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(user_texts(&messages), ["go", "s1", "s2"]);
    assert_eq!(server.request_count(), 2);
    Ok(())
}

#[tokio::test]
async fn tool_calls_of_a_truncated_reply_are_not_executed() -> Result<()> {
    let (server, env, mut agent) = scenario(
        "responses:\n  - content:\n      - tool_call: {id: toolu_1, name: write, arguments: {path: out.txt, content: x}}\n    stop: length\n  - text: ok\n",
    )
    .await?;
    agent.prompt("go").await?;
    let records = agent.until_settled().await?;
    let end = first_of(&records, "tool_execution_end");
    assert_eq!(
        end["result"],
        json!({"content": [{"type": "text", "text": "Tool call \"write\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments."}], "details": {}})
    );
    assert_eq!(end["isError"], true);
    assert!(!env.work_dir().join("out.txt").exists());
    assert_eq!(
        server.request_count(),
        2,
        "the loop goes on with the error result"
    );
    Ok(())
}

#[tokio::test]
async fn long_deltas_and_block_ends_are_written_exactly_whatever_their_characters() -> Result<()> {
    // Long enough to be written in pieces as they are encoded: one text read in place from
    // the provider's data, one with escapes, raw line separators and astral characters.
    let plain = "lorem ipsum ".repeat(20_000);
    let mixed = "a\u{2028}b\u{2029} \"q\" \\ \n\t\u{1}é😀 ".repeat(10_000);
    let script = json!({"responses": [{"content": [{"text": [plain, mixed]}]}]});
    let server =
        mock_llm::MockServer::start(mock_llm::Script::from_json_value(script, "long")?).await?;
    let env = TestEnv::new(&server.uri())?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .send(json!({"type": "prompt", "message": "long"}))
        .await?;
    let mut lines = Vec::new();
    loop {
        let line = agent.next_line().await?;
        let settled = line.starts_with(r#"{"type":"agent_settled""#);
        lines.push(line);
        if settled {
            break;
        }
    }
    let mut texts = Vec::new();
    for line in &lines {
        let record: Value = serde_json::from_str(line)?;
        // Each line is its record as JSON.stringify writes it: nothing lost or escaped twice.
        assert_eq!(
            format!("{line}\n").into_bytes(),
            pi_rpc_protocol::encode_record(&record)?
        );
        let event = &record["assistantMessageEvent"];
        match event["type"].as_str() {
            Some("text_delta") => texts.push(event["delta"].clone()),
            Some("text_end") => texts.push(event["content"].clone()),
            _ => {}
        }
        if record["type"] == "message_end" && record["message"]["role"] == "assistant" {
            texts.push(record["message"]["content"][0]["text"].clone());
        }
    }
    let whole = format!("{plain}{mixed}");
    assert_eq!(
        texts,
        [json!(plain), json!(mixed), json!(whole), json!(whole)]
    );
    Ok(())
}
