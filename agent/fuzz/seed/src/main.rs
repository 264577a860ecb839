//! Writes the seed corpus of the fuzz targets from the scenario corpus:
//! `pi-fuzz-seed SCENARIOS OUT` makes `OUT/<target>/<name>` for every target:
//! - `commands`: what each scenario sends the agent (`send`, `send_raw`, `send_hex`), in one
//!   input;
//! - `stream_<format>`: each response of each scenario's mock script (and of the mock's quirk
//!   fixtures), rendered by the mock in that wire format, as the body bytes;
//! - `session_file`: the session files scenarios set up;
//! - `scenario_yaml`: the scenario files; `mock_script_yaml`: their mock scripts.
//!
//! Inputs start with the byte that chooses the size of the pieces the targets read them in
//! (`pi_fuzz::split_input`): 63, pieces of 64 bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use mock_llm::{MockServer, Script};
use pi_conformance::scenario::{FileContent, Scenario, Step};
use serde_json::{Value, json};

/// The piece-size byte written first in every input.
const PIECES_OF_64: u8 = 63;

/// A wire format as the seeds ask the mock for it.
struct WireRequest {
    /// The fuzz target reading this format.
    target: &'static str,
    /// The request path (and query).
    path: String,
    /// The header that carries the key.
    auth: (&'static str, &'static str),
    /// A minimal streaming request.
    body: Value,
}

/// The wire formats, each with a minimal streaming request for `model`.
fn formats(model: &str) -> [WireRequest; 4] {
    let messages = json!([{"role": "user", "content": "hi"}]);
    [
        WireRequest {
            target: "stream_anthropic",
            path: "/v1/messages".to_owned(),
            auth: ("x-api-key", "seed"),
            body: json!({"model": model, "max_tokens": 1024, "stream": true, "messages": messages}),
        },
        WireRequest {
            target: "stream_openai_completions",
            path: "/v1/chat/completions".to_owned(),
            auth: ("authorization", "Bearer seed"),
            body: json!({"model": model, "stream": true, "messages": messages}),
        },
        WireRequest {
            target: "stream_openai_responses",
            path: "/v1/responses".to_owned(),
            auth: ("authorization", "Bearer seed"),
            body: json!({"model": model, "stream": true, "input": messages}),
        },
        WireRequest {
            target: "stream_google",
            path: format!("/v1beta/models/{model}:streamGenerateContent?alt=sse"),
            auth: ("x-goog-api-key", "seed"),
            body: json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
        },
    ]
}

struct Seeds {
    out: PathBuf,
    written: BTreeMap<&'static str, usize>,
}

impl Seeds {
    fn write(&mut self, target: &'static str, name: &str, body: &[u8]) -> Result<()> {
        let folder = self.out.join(target);
        std::fs::create_dir_all(&folder)?;
        let mut input = Vec::with_capacity(body.len() + 1);
        input.push(PIECES_OF_64);
        input.extend_from_slice(body);
        let file = folder.join(name.replace(['/', ' '], "_"));
        std::fs::write(&file, input).with_context(|| file.display().to_string())?;
        *self.written.entry(target).or_default() += 1;
        Ok(())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [scenarios, out] = args.as_slice() else {
        bail!("usage: pi-fuzz-seed SCENARIOS OUT");
    };
    let files = pi_conformance::load::discover(&[PathBuf::from(scenarios)])?;
    let (loaded, _) = pi_conformance::load::load_all(&files);
    let mut seeds = Seeds {
        out: PathBuf::from(out),
        written: BTreeMap::new(),
    };
    let server = MockServer::start(Script::default()).await?;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()?;
    for file in &loaded {
        let scenario = &file.scenario;
        let id = scenario.id.as_str();
        seeds.write("scenario_yaml", id, file.source.as_bytes())?;
        seeds.write("commands", id, &sent_bytes(scenario))?;
        for (name, content) in &scenario.setup.sessions {
            seeds.write(
                "session_file",
                &format!("{id}-{name}"),
                &file_bytes(content),
            )?;
        }
        let Some(mock) = &scenario.mock else {
            continue;
        };
        seeds.write(
            "mock_script_yaml",
            id,
            serde_json::to_string_pretty(mock)?.as_bytes(),
        )?;
        let base = file.file.parent().unwrap_or(Path::new("."));
        if let Ok(script) = pi_conformance::mock::script(Some(mock), base, id) {
            render(&mut seeds, &server, &http, id, &script).await?;
        }
    }
    for name in mock_llm::quirk_names() {
        if let Some(script) = mock_llm::quirk(name) {
            let text = serde_json::to_string_pretty(&script)?;
            seeds.write(
                "mock_script_yaml",
                &format!("quirk-{name}"),
                text.as_bytes(),
            )?;
            render(
                &mut seeds,
                &server,
                &http,
                &format!("quirk-{name}"),
                &script,
            )
            .await?;
        }
    }
    for (target, count) in &seeds.written {
        println!("{target}: {count} seeds");
    }
    Ok(())
}

/// The bytes a scenario sends the agent, in order.
fn sent_bytes(scenario: &Scenario) -> Vec<u8> {
    let mut bytes = Vec::new();
    for step in &scenario.steps {
        match step {
            Step::Send(command) => {
                bytes.extend_from_slice(command.to_string().as_bytes());
                bytes.push(b'\n');
            }
            Step::SendRaw(text) => bytes.extend_from_slice(text.as_bytes()),
            Step::SendHex(hex) => {
                bytes.extend(pi_conformance::load::decode_hex(hex).unwrap_or_default());
            }
            _ => {}
        }
    }
    bytes
}

fn file_bytes(content: &FileContent) -> Vec<u8> {
    match content {
        FileContent::Text(text) => text.clone().into_bytes(),
        FileContent::Lines(lines) => lines
            .iter()
            .map(|line| format!("{line}\n"))
            .collect::<String>()
            .into_bytes(),
    }
}

/// Each response of `script`, without what makes it wait or fail to start, rendered in every
/// wire format; a response the mock cannot render in a format is left out.
async fn render(
    seeds: &mut Seeds,
    server: &MockServer,
    http: &reqwest::Client,
    name: &str,
    script: &Script,
) -> Result<()> {
    let responses = serde_json::to_value(script)?["responses"].take();
    for (index, response) in responses.as_array().into_iter().flatten().enumerate() {
        let Some(response) = runnable(response) else {
            continue;
        };
        let Ok(one) = Script::from_json_value(json!({"responses": [response]}), name) else {
            continue;
        };
        for wire in formats("mock-model-1") {
            server.load_script(one.clone());
            let (header, key) = wire.auth;
            let request = http
                .post(format!("{}{}", server.uri(), wire.path))
                .header(header, key)
                .json(&wire.body);
            let Ok(response) = request.send().await else {
                continue;
            };
            if !response.status().is_success() {
                continue;
            }
            if let Ok(bytes) = response.bytes().await {
                seeds.write(wire.target, &format!("{name}-{index}"), &bytes)?;
            }
        }
    }
    Ok(())
}

/// A response answered at once: no matcher, uses, gates, delays or faults.
fn runnable(response: &Value) -> Option<Value> {
    let mut response = response.as_object()?.clone();
    for key in [
        "match",
        "times",
        "repeat",
        "gate",
        "delay_ms",
        "chunk_delay_ms",
        "tokens_per_second",
        "fault",
        "quirk",
    ] {
        response.remove(key);
    }
    if let Some(Value::Array(items)) = response.get_mut("content") {
        items.retain(|item| item.get("gate").is_none() && item.get("pause_ms").is_none());
    }
    Some(Value::Object(response))
}
