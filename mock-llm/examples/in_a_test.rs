//! mock-llm in a test, as the book shows it (docs/src/mock-llm.md includes the part between the
//! ANCHOR lines): a script with a gate, a client request held at the gate and then let through,
//! and the journal read afterwards. `cargo test -p mock-llm --example in_a_test` runs it (the
//! test below), so the book's example cannot stop compiling or working unnoticed.

use std::time::Duration;

use anyhow::Result;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let text = answer_through_a_gate().await?;
    println!("{text}");
    Ok(())
}

/// Answers one Anthropic request held at a gate; gives the streamed body.
async fn answer_through_a_gate() -> Result<String> {
    // ANCHOR: in_a_test
    use mock_llm::{MockServer, Script};

    let script = Script::from_yaml_str(
        r#"
responses:
  - gate: before_text          # the response waits here until the test releases it
    text: "Hello"
"#,
        "inline",
    )?;
    let server = MockServer::start(script).await?;
    let url = format!("{}/v1/messages", server.uri()); // http://127.0.0.1:PORT/v1/messages
    let request = reqwest::Client::new()
        .post(url)
        .header("x-api-key", "test-key") // checked as Anthropic does: present, any value
        .json(&serde_json::json!({
            "model": "claude-x",
            "max_tokens": 100,
            "stream": true,
            "messages": [{"role": "user", "content": "Hi"}],
        }))
        .send();
    let response = tokio::spawn(async move { request.await?.text().await });
    server
        .wait_for_gate("before_text", Duration::from_secs(5))
        .await?; // the stream is held
    server.release_gate("before_text")?; // an error if the script has no such gate
    let body = response.await??; // Anthropic's SSE events, "Hello" among them
    let journal = server.journal(); // every request: path, headers, body, outcome
    assert_eq!(journal[0].path, "/v1/messages");
    server.shutdown().await;
    // ANCHOR_END: in_a_test
    Ok(body)
}

#[tokio::test]
async fn the_books_example_streams_the_scripted_text_through_its_gate() -> Result<()> {
    let body = answer_through_a_gate().await?;
    assert!(body.contains("event: message_start"), "{body}");
    assert!(body.contains(r#""text":"Hello""#), "{body}");
    Ok(())
}
