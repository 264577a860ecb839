//! What the fuzz targets share: how an input becomes the pieces a reader sees, and the checks
//! that hold for every input. A target's input is one byte choosing the size of the pieces
//! (1 to 256 bytes: each piece is one read of a stream), then the bytes themselves; the seed
//! corpus (`seed/`) writes its inputs in that form.

use pi_agent::provider::replay::replay;
use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::framing::LineDecoder;
use pi_rpc_protocol::model::Model;

/// The longest command line the `commands` target accepts: small, so that inputs reach the
/// limit.
pub const MAX_LINE_BYTES: usize = 4096;

/// The piece size and the bytes of an input; `None` for an empty input.
pub fn split_input(data: &[u8]) -> Option<(usize, &[u8])> {
    let (&size, body) = data.split_first()?;
    Some((usize::from(size) + 1, body))
}

/// Command lines read in pieces, then each parsed as a command: the decoder never holds more
/// than the limit, and every line it gives is within it.
pub fn commands(data: &[u8]) {
    let Some((size, body)) = split_input(data) else {
        return;
    };
    let mut decoder = LineDecoder::with_max_line_bytes(MAX_LINE_BYTES);
    let mut lines = Vec::new();
    for piece in body.chunks(size) {
        decoder.decode_into(piece, &mut lines);
        // One byte of slack: a CR before the LF is not part of the line.
        assert!(decoder.buffered_bytes() <= MAX_LINE_BYTES + 1);
    }
    lines.extend(decoder.finish());
    for line in lines.into_iter().flatten() {
        assert!(line.len() <= MAX_LINE_BYTES);
        if let Ok(pi_rpc_protocol::Incoming::Request(request)) = pi_rpc_protocol::parse_line(&line)
        {
            // What parses must serialise again (the runner and clients echo commands).
            assert!(serde_json::to_string(&request.command).is_ok());
        }
    }
}

/// A model using the wire format `api`, made once per format.
fn cached_model(api: &'static str) -> &'static Model {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static MODELS: OnceLock<Mutex<HashMap<&'static str, &'static Model>>> = OnceLock::new();
    let mut models = match MODELS.get_or_init(Default::default).lock() {
        Ok(models) => models,
        Err(poisoned) => poisoned.into_inner(),
    };
    models
        .entry(api)
        .or_insert_with(|| Box::leak(Box::new(model(api))))
}

/// A model of a fuzz provider using the wire format `api`.
pub fn model(api: &str) -> Model {
    let model = serde_json::json!({
        "id": "fuzz-model", "name": "fuzz-model", "api": api, "provider": "fuzz",
        "baseUrl": "http://127.0.0.1:9", "reasoning": true, "input": ["text", "image"],
        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
        "contextWindow": 200000, "maxTokens": 8192
    });
    match serde_json::from_value(model) {
        Ok(model) => model,
        Err(error) => panic!("the fuzz model does not parse: {error}"),
    }
}

/// A response body of the wire format `api` read in pieces: the reader ends with one final
/// message whatever the bytes, every delta names a block of it, and it serialises.
pub fn stream(api: &'static str, data: &[u8]) {
    let Some((size, body)) = split_input(data) else {
        return;
    };
    let replayed = match replay(cached_model(api), body.chunks(size)) {
        Ok(replayed) => replayed,
        Err(error) => panic!("{error}"),
    };
    let blocks = replayed.message.content.len();
    for delta in &replayed.deltas {
        let index = content_index(delta);
        assert!(
            index < blocks,
            "delta for block {index} of {blocks}: {delta:?}"
        );
    }
    assert!(serde_json::to_string(&replayed.message).is_ok());
}

fn content_index(delta: &AssistantMessageEvent) -> usize {
    use AssistantMessageEvent as E;
    match delta {
        E::TextStart(start) | E::ThinkingStart(start) => start.content_index,
        E::ToolcallStart(start) => start.content_index,
        E::TextDelta(delta) | E::ThinkingDelta(delta) | E::ToolcallDelta(delta) => {
            delta.content_index
        }
        E::TextEnd(end) | E::ThinkingEnd(end) => end.content_index,
        E::ToolcallEnd(end) => end.content_index,
    }
}

/// A session file opened as `switch_session` opens it, then everything the commands read from
/// it built: the conversation, the tree, the entries, the fork points, the name.
pub fn session_file(data: &[u8]) {
    use pi_agent::store::SessionStore;
    static FOLDER: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let folder = FOLDER.get_or_init(|| {
        // In memory where the system has it: a write to disk per input would be most of the time.
        let shm = std::path::Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let folder = base.join(format!("pi-fuzz-session-{}", std::process::id()));
        if let Err(error) = std::fs::create_dir_all(&folder) {
            panic!("cannot make {}: {error}", folder.display());
        }
        folder
    });
    let file = folder.join("session.jsonl");
    if let Err(error) = std::fs::write(&file, data) {
        panic!("cannot write {}: {error}", file.display());
    }
    let Ok(store) = SessionStore::open(&file, Some(folder), Some(folder)) else {
        return;
    };
    let context = store.build_context();
    assert!(serde_json::to_string(&context.messages).is_ok());
    let _ = store.tree_json();
    let _ = store.entries_data(None);
    let _ = store.fork_messages();
    let _ = store.session_name();
}

/// A scenario file as the runner loads it (the text is taken as UTF-8, invalid bytes
/// replaced).
pub fn scenario_yaml(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let _ = pi_conformance::load::parse(std::path::Path::new("fuzz.yaml"), text);
}

/// A mock-llm script as the mock loads it.
pub fn mock_script_yaml(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(script) = mock_llm::Script::from_yaml_str(&text, "fuzz") {
        let _ = script.gate_names();
    }
}
