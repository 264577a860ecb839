//! JSON text as JavaScript makes it: `JSON.stringify(value)` of a parsed value (whose object
//! keys JavaScript reorders) and `JSON.stringify(value, null, 2)`.

use std::io;

use pi_rpc_protocol::json::JsFormatter;
use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter};

/// `JSON.stringify(value)` of a value JavaScript parsed: its keys in JavaScript's order (see
/// [`key_order`]), numbers as JavaScript writes them.
pub(crate) fn stringify(value: &Value) -> String {
    let mut value = value.clone();
    key_order(&mut value);
    pi_rpc_protocol::json::to_string(&value).unwrap_or_default()
}

/// Reorders the keys of every object in `value` as a JavaScript object holds them: keys that are
/// array indices first, in ascending numeric order, then the others in insertion order.
pub fn key_order(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for item in map.values_mut() {
                key_order(item);
            }
            if map.keys().any(|key| array_index(key).is_some()) {
                let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                // A stable sort keeps the other keys in insertion order.
                entries.sort_by_key(|(key, _)| array_index(key).map_or(u64::MAX, u64::from));
                map.extend(entries);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(key_order),
        _ => {}
    }
}

fn array_index(key: &str) -> Option<u32> {
    if key == "0" {
        return Some(0);
    }
    if key.starts_with('0') || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u32>().ok().filter(|index| *index != u32::MAX)
}

/// `JSON.stringify(value, null, 2)`.
pub(crate) fn stringify_pretty(value: &Value) -> String {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, JsPretty(PrettyFormatter::new()));
    if value.serialize(&mut serializer).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Two-space pretty printing with JavaScript's number text (the wire's [`JsFormatter`]).
struct JsPretty<'a>(PrettyFormatter<'a>);

impl Formatter for JsPretty<'_> {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        JsFormatter.write_f64(writer, value)
    }
    fn write_u64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u64) -> io::Result<()> {
        JsFormatter.write_u64(writer, value)
    }
    fn write_i64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i64) -> io::Result<()> {
        JsFormatter.write_i64(writer, value)
    }
    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_json_matches_json_stringify() {
        let value: Value = serde_json::from_str(r#"{"a":[1.0,{}],"b":[],"c":"x"}"#).unwrap();
        assert_eq!(
            stringify_pretty(&value),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": [],\n  \"c\": \"x\"\n}"
        );
    }

    #[test]
    fn array_index_keys_come_first_as_in_a_javascript_object() {
        let value: Value =
            serde_json::from_str(r#"{"b":1,"10":2,"a":{"z":0,"2":1.5},"1":3}"#).unwrap();
        assert_eq!(
            stringify(&value),
            r#"{"1":3,"10":2,"b":1,"a":{"2":1.5,"z":0}}"#
        );
    }
}
