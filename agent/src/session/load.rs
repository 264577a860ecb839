//! Reading session files and migrating older format versions (1: a flat list without ids,
//! 2: `hookMessage` instead of `custom`) to version 3.

use std::collections::HashSet;
use std::io::ErrorKind;

use pi_rpc_protocol::session::SESSION_VERSION;
use serde_json::{Map, Value};

use super::entry::generate_id;
use super::{Result, io_error};

/// Reads the JSON objects of a session file, one per line, skipping blank and malformed lines.
/// `None` when the file does not exist; an empty list when its first object is not a session
/// header (`type: "session"` with a string `id`).
pub fn read_entries(path: &str) -> Result<Option<Vec<Map<String, Value>>>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(io_error(path)(error)),
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<Map<String, Value>> = text
        .split('\n')
        .filter(|line| !line.trim().is_empty())
        .filter_map(
            |line| match pi_rpc_protocol::surrogates::from_str::<Value>(line) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            },
        )
        .collect();
    let valid = lines.first().is_some_and(|header| {
        header.get("type").and_then(Value::as_str) == Some("session")
            && header.get("id").is_some_and(Value::is_string)
    });
    Ok(Some(if valid { lines } else { Vec::new() }))
}

/// Brings the lines (header first) to the current version, in place and keeping key order as
/// the reference does (new keys go last). Returns whether anything was migrated.
pub fn migrate(lines: &mut [Map<String, Value>]) -> bool {
    let version = lines
        .iter()
        .find(|line| line.get("type").and_then(Value::as_str) == Some("session"))
        .and_then(|header| header.get("version"))
        .and_then(Value::as_f64)
        .unwrap_or(1.0);
    if version >= SESSION_VERSION as f64 {
        return false;
    }
    if version < 2.0 {
        migrate_v1_to_v2(lines);
    }
    migrate_v2_to_v3(lines);
    true
}

fn is_header(line: &Map<String, Value>) -> bool {
    line.get("type").and_then(Value::as_str) == Some("session")
}

fn migrate_v1_to_v2(lines: &mut [Map<String, Value>]) {
    // The reference checks ids against a set it never fills: ids are merely random.
    let taken: HashSet<String> = HashSet::new();
    let mut previous: Option<String> = None;
    for index in 0..lines.len() {
        if is_header(&lines[index]) {
            lines[index].insert("version".into(), 2.into());
            continue;
        }
        let id = generate_id(|candidate| taken.contains(candidate));
        lines[index].insert("id".into(), id.clone().into());
        lines[index].insert(
            "parentId".into(),
            previous.take().map_or(Value::Null, Value::String),
        );
        previous = Some(id);
        if lines[index].get("type").and_then(Value::as_str) != Some("compaction") {
            continue;
        }
        let Some(kept_index) = lines[index]
            .get("firstKeptEntryIndex")
            .and_then(Value::as_f64)
        else {
            continue;
        };
        let target_id = (kept_index >= 0.0 && kept_index.fract() == 0.0)
            .then(|| lines.get(kept_index as usize))
            .flatten()
            .filter(|target| !is_header(target))
            .and_then(|target| target.get("id").cloned());
        if let Some(target_id) = target_id {
            lines[index].insert("firstKeptEntryId".into(), target_id);
        }
        lines[index].shift_remove("firstKeptEntryIndex");
    }
}

fn migrate_v2_to_v3(lines: &mut [Map<String, Value>]) {
    for line in lines.iter_mut() {
        if is_header(line) {
            line.insert("version".into(), 3.into());
            continue;
        }
        if line.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        if let Some(Value::Object(message)) = line.get_mut("message")
            && message.get("role").and_then(Value::as_str) == Some("hookMessage")
        {
            message.insert("role".into(), "custom".into());
        }
    }
}
