//! JSON as providers send it: repair of malformed string literals, best-effort parsing of
//! incomplete tool-call arguments, and JavaScript's view of parsed objects.
//!
//! The reference parses stream events with `JSON.parse`, retrying once on a repaired text
//! ([`parse_with_repair`]), and parses streamed tool-call arguments after every delta with a
//! forgiving parser for incomplete JSON ([`parse_streaming`]). Objects it parses order their
//! array-index keys (`"0"`, `"17"`) first, ascending, as JavaScript objects do ([`js_key_order`]).

use serde_json::{Map, Value};

/// A text `JSON.parse` refuses; the message is V8's (`Unexpected end of JSON input`, ...).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct JsonError {
    message: String,
}

impl JsonError {
    /// An error worded as `message` (V8's words for a case the parser words differently).
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// Repairs string literals of a JSON text: raw control characters inside strings are escaped
/// and a backslash before a character that cannot follow it is doubled. Text outside strings is
/// left alone. Returns the text unchanged when nothing needed repair.
pub fn repair(json: &str) -> String {
    let mut repaired = String::with_capacity(json.len() + 8);
    let mut in_string = false;
    let mut chars = json.chars().peekable();
    while let Some(ch) = chars.next() {
        if !in_string {
            repaired.push(ch);
            in_string = ch == '"';
            continue;
        }
        match ch {
            '"' => {
                repaired.push('"');
                in_string = false;
            }
            '\\' => match chars.peek().copied() {
                None => repaired.push_str("\\\\"),
                Some('u') => {
                    let digits: String = chars.clone().skip(1).take(4).collect();
                    if digits.len() == 4 && digits.chars().all(|c| c.is_ascii_hexdigit()) {
                        repaired.push_str("\\u");
                        repaired.push_str(&digits);
                        for _ in 0..5 {
                            chars.next();
                        }
                    } else {
                        repaired.push_str("\\\\");
                    }
                }
                Some(next @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't')) => {
                    repaired.push('\\');
                    repaired.push(next);
                    chars.next();
                }
                Some(_) => repaired.push_str("\\\\"),
            },
            '\u{8}' => repaired.push_str("\\b"),
            '\u{c}' => repaired.push_str("\\f"),
            '\n' => repaired.push_str("\\n"),
            '\r' => repaired.push_str("\\r"),
            '\t' => repaired.push_str("\\t"),
            c if (c as u32) < 0x20 => repaired.push_str(&format!("\\u{:04x}", c as u32)),
            c => repaired.push(c),
        }
    }
    repaired
}

/// Parses JSON; when that fails, parses the [`repair`]ed text once. The error is worded as
/// JavaScript's `JSON.parse` words the common cases.
pub fn parse_with_repair(json: &str) -> Result<Value, JsonError> {
    // Lone surrogate escapes are kept, as `JSON.parse` keeps them (see `surrogates`).
    let json: &str = &pi_rpc_protocol::surrogates::decode_json(json);
    match serde_json::from_str::<Value>(json) {
        Ok(mut value) => {
            js_key_order(&mut value);
            Ok(value)
        }
        Err(error) => {
            let repaired = repair(json);
            if repaired == json {
                return Err(describe_error(json, &error));
            }
            match serde_json::from_str::<Value>(&repaired) {
                Ok(mut value) => {
                    js_key_order(&mut value);
                    Ok(value)
                }
                Err(error) => Err(describe_error(&repaired, &error)),
            }
        }
    }
}

/// Parses JSON as JavaScript's `JSON.parse` does, without repair (keys in JavaScript's order,
/// errors worded as V8 words them).
pub(crate) fn parse_strict(json: &str) -> Result<Value, JsonError> {
    let json: &str = &pi_rpc_protocol::surrogates::decode_json(json);
    match serde_json::from_str::<Value>(json) {
        Ok(mut value) => {
            js_key_order(&mut value);
            Ok(value)
        }
        Err(error) => Err(describe_error(json, &error)),
    }
}

/// Parses streamed tool-call arguments, complete or not, always giving an object: the complete
/// text when it parses (after repair), else the longest sensible prefix of the incomplete text,
/// else `{}`.
pub fn parse_streaming(partial: &str) -> Map<String, Value> {
    if js_trim(partial).is_empty() {
        return Map::new();
    }
    let value = parse_with_repair(partial)
        .ok()
        .or_else(|| parse_partial(partial))
        .or_else(|| parse_partial(&repair(partial)));
    match value {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

pub use crate::js::key_order as js_key_order;
pub(crate) use crate::js::trim as js_trim;

/// Words a `serde_json` syntax error as V8's `JSON.parse` does for the common cases.
fn describe_error(json: &str, error: &serde_json::Error) -> JsonError {
    JsonError::new(describe(json, error))
}

fn describe(json: &str, error: &serde_json::Error) -> String {
    if js_trim(json).is_empty() || error.is_eof() {
        return "Unexpected end of JSON input".to_owned();
    }
    let position = position_of(json, error.line(), error.column());
    let found = json[position.min(json.len())..].chars().next();
    let message = error.to_string();
    if message.starts_with("trailing characters") {
        return format!(
            "Unexpected non-whitespace character after JSON at position {} (line {} column {})",
            crate::js::utf16_len(&json[..position]),
            error.line(),
            error.column()
        );
    }
    match found {
        Some(ch) if json.chars().count() <= 40 => {
            format!("Unexpected token '{ch}', \"{json}\" is not valid JSON")
        }
        Some(ch) => {
            let start = floor_char_boundary(json, position.saturating_sub(10));
            let end = floor_char_boundary(json, (position + 10).min(json.len()));
            format!(
                "Unexpected token '{ch}', ...\"{}\"... is not valid JSON",
                &json[start..end]
            )
        }
        None => "Unexpected end of JSON input".to_owned(),
    }
}

fn position_of(json: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (number, text) in json.split_inclusive('\n').enumerate() {
        if number + 1 == line {
            return floor_char_boundary(json, offset + column.saturating_sub(1));
        }
        offset += text.len();
    }
    json.len()
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The forgiving parser for incomplete JSON: strings, objects, arrays, numbers and literals may
/// be cut anywhere. Returns `None` where the reference's parser throws.
fn parse_partial(text: &str) -> Option<Value> {
    let trimmed = js_trim(text);
    if trimmed.is_empty() {
        return None;
    }
    let mut parser = Partial {
        text: trimmed,
        bytes: trimmed.as_bytes(),
        at: 0,
    };
    parser.any().ok().map(|mut value| {
        js_key_order(&mut value);
        value
    })
}

/// Why the partial parser stopped.
#[derive(Debug)]
enum Stop {
    /// The text ends where more was needed.
    Incomplete,
    /// The text cannot be JSON.
    Malformed,
}

struct Partial<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl Partial<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn rest(&self) -> &str {
        self.text.get(self.at..).unwrap_or("")
    }

    /// Moves past the character at the cursor (all of its bytes).
    fn skip_char(&mut self) {
        self.at += self.rest().chars().next().map_or(1, char::len_utf8);
    }

    fn skip_blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    fn any(&mut self) -> Result<Value, Stop> {
        self.skip_blank();
        let Some(first) = self.peek() else {
            return Err(Stop::Incomplete);
        };
        match first {
            b'"' => return self.string(),
            b'{' => return Ok(self.object()),
            b'[' => return Ok(self.array()),
            _ => {}
        }
        let rest = self.rest();
        for (word, value) in [
            ("null", Value::Null),
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("Infinity", Value::Null),
            ("NaN", Value::Null),
        ] {
            if rest.starts_with(word) || (rest.len() < word.len() && word.starts_with(rest)) {
                self.at += word.len();
                return Ok(value);
            }
        }
        let word = "-Infinity";
        if rest.starts_with(word) || (rest.len() > 1 && rest.len() < 9 && word.starts_with(rest)) {
            self.at += word.len();
            return Ok(Value::Null);
        }
        self.number()
    }

    fn string(&mut self) -> Result<Value, Stop> {
        let start = self.at;
        let mut escape = false;
        self.at += 1;
        while let Some(byte) = self.peek() {
            if byte == b'"' && !(escape && self.bytes[self.at - 1] == b'\\') {
                break;
            }
            escape = if byte == b'\\' { !escape } else { false };
            self.at += 1;
        }
        if self.peek() == Some(b'"') {
            self.at += 1;
            return json_value(&self.text[start..self.at]).ok_or(Stop::Malformed);
        }
        let end = self.at - usize::from(escape);
        let mut closed = String::from(self.text.get(start..end).ok_or(Stop::Malformed)?);
        closed.push('"');
        if let Some(value) = json_value(&closed) {
            return Ok(value);
        }
        // An escape cut short: drop everything from the last backslash.
        let cut = self.text.rfind('\\').unwrap_or(0);
        let (from, to) = if cut < start {
            (cut, start)
        } else {
            (start, cut)
        };
        let mut closed = String::from(self.text.get(from..to).ok_or(Stop::Malformed)?);
        closed.push('"');
        json_value(&closed).ok_or(Stop::Malformed)
    }

    fn object(&mut self) -> Value {
        self.at += 1;
        self.skip_blank();
        let mut map = Map::new();
        while self.peek() != Some(b'}') {
            self.skip_blank();
            if self.at >= self.bytes.len() {
                return Value::Object(map);
            }
            let before = self.at;
            let key = match self.string() {
                Ok(Value::String(key)) => key,
                _ => return Value::Object(map),
            };
            self.skip_blank();
            // The separator after the key (normally `:`), skipped whatever it is, whole.
            self.skip_char();
            match self.any() {
                Ok(value) => {
                    map.insert(key, value);
                }
                Err(_) => return Value::Object(map),
            }
            self.skip_blank();
            if self.peek() == Some(b',') {
                self.at += 1;
            }
            if self.at == before {
                return Value::Object(map);
            }
        }
        self.at += 1;
        Value::Object(map)
    }

    fn array(&mut self) -> Value {
        self.at += 1;
        let mut items = Vec::new();
        while self.peek() != Some(b']') {
            let before = self.at;
            match self.any() {
                Ok(value) => items.push(value),
                Err(_) => return Value::Array(items),
            }
            self.skip_blank();
            if self.peek() == Some(b',') {
                self.at += 1;
            }
            if self.at == before {
                // No progress: the reference's parser would loop here for ever.
                return Value::Array(items);
            }
        }
        self.at += 1;
        Value::Array(items)
    }

    fn number(&mut self) -> Result<Value, Stop> {
        if self.at == 0 {
            if self.text == "-" {
                return Err(Stop::Malformed);
            }
            return json_value(self.text)
                .or_else(|| self.before_last_e(0))
                .ok_or(Stop::Malformed);
        }
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        while matches!(self.peek(), Some(byte) if !matches!(byte, b',' | b']' | b'}')) {
            self.at += 1;
        }
        let literal = self.text.get(start..self.at).unwrap_or("");
        if let Some(value) = json_value(literal) {
            return Ok(value);
        }
        if literal == "-" {
            return Err(Stop::Incomplete);
        }
        self.before_last_e(start).ok_or(Stop::Malformed)
    }

    /// The text from `start` up to the last `e` of the whole input (JavaScript's `substring`
    /// swaps its bounds when the `e` comes first), parsed as JSON.
    fn before_last_e(&self, start: usize) -> Option<Value> {
        let cut = self.text.rfind('e').unwrap_or(0);
        let (from, to) = if cut < start {
            (cut, start)
        } else {
            (start, cut)
        };
        json_value(self.text.get(from..to)?)
    }
}

fn json_value(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn streaming(text: &str) -> Value {
        Value::Object(parse_streaming(text))
    }

    #[test]
    fn complete_arguments_parse_whole() {
        assert_eq!(
            streaming(r#"{"path": "a.txt", "limit": 3}"#),
            json!({"path":"a.txt","limit":3})
        );
    }

    #[test]
    fn empty_or_blank_arguments_are_an_empty_object() {
        assert_eq!(streaming(""), json!({}));
        assert_eq!(streaming("  \n"), json!({}));
    }

    #[test]
    fn incomplete_arguments_keep_what_is_complete_enough() {
        assert_eq!(streaming(r#"{"path": "a.t"#), json!({"path":"a.t"}));
        assert_eq!(
            streaming(r#"{"path": "a.txt", "li"#),
            json!({"path":"a.txt"})
        );
        assert_eq!(
            streaming(r#"{"path": "a.txt", "limit": 1"#),
            json!({"path":"a.txt","limit":1})
        );
        assert_eq!(streaming(r#"{"a": tr"#), json!({"a":true}));
        assert_eq!(streaming(r#"{"a": [1, 2"#), json!({"a":[1,2]}));
        assert_eq!(streaming(r#"{"a": {"b": "c"#), json!({"a":{"b":"c"}}));
        assert_eq!(streaming(r#"{"a": "x\"#), json!({"a":"x"}));
        assert_eq!(streaming(r#"{"a": "x\u00"#), json!({"a":"x"}));
        assert_eq!(streaming(r#"{"a": -"#), json!({}));
        assert_eq!(streaming("{"), json!({}));
    }

    #[test]
    fn non_object_arguments_become_an_empty_object() {
        assert_eq!(streaming("[1,2]"), json!({}));
        assert_eq!(streaming("\"text"), json!({}));
    }

    #[test]
    fn control_characters_and_bad_escapes_are_repaired() {
        assert_eq!(
            streaming("{\"command\": \"echo a\tb\nc\", \"p\": \"C:\\dir\"}"),
            json!({"command":"echo a\tb\nc","p":"C:\\dir"})
        );
        assert_eq!(
            repair("{\"a\":\"x\u{1}y\\q\\u12\"}"),
            "{\"a\":\"x\\u0001y\\\\q\\\\u12\"}"
        );
        assert_eq!(repair(r#"{"a":"\u00e9\n"}"#), r#"{"a":"\u00e9\n"}"#);
    }

    #[test]
    fn incomplete_arguments_with_raw_control_characters_stay_empty_as_in_the_reference() {
        // The forgiving parser gives up on the raw newline but still answers `{}`, so the
        // reference never tries the repaired text.
        assert_eq!(streaming("{\"a\": \"x\ny"), json!({}));
        assert_eq!(streaming("{\"b\": 1, \"a\": \"x\ny"), json!({"b":1}));
    }

    #[test]
    fn array_index_keys_come_first_as_in_javascript() {
        let value = parse_with_repair(r#"{"b":1,"10":2,"a":{"z":0,"2":1},"1":3,"01":4}"#);
        assert_eq!(
            serde_json::to_string(&value.unwrap()).unwrap(),
            r#"{"1":3,"10":2,"b":1,"a":{"2":1,"z":0},"01":4}"#
        );
    }

    #[test]
    fn parse_errors_are_worded_like_json_parse() {
        assert_eq!(
            parse_with_repair("").unwrap_err().to_string(),
            "Unexpected end of JSON input"
        );
        assert_eq!(
            parse_with_repair("{\"a\":").unwrap_err().to_string(),
            "Unexpected end of JSON input"
        );
        assert_eq!(
            parse_with_repair("nope").unwrap_err().to_string(),
            "Unexpected token 'o', \"nope\" is not valid JSON"
        );
        assert_eq!(
            parse_with_repair("{} x").unwrap_err().to_string(),
            "Unexpected non-whitespace character after JSON at position 3 (line 1 column 4)"
        );
    }

    #[test]
    fn a_multibyte_character_where_the_colon_belongs_is_skipped_whole() {
        // Found by the `stream_openai_responses` fuzz target: the cursor stopped inside the
        // character and the next key was cut at a byte that is not a character boundary.
        assert_eq!(
            parse_streaming(r#"{"a"é1,"b"é2"#),
            json!({"a": 1, "b": 2})
                .as_object()
                .cloned()
                .unwrap_or_default()
        );
        assert_eq!(
            parse_streaming("{\"a\"\u{1F600}[\"x"),
            json!({"a": ["x"]}).as_object().cloned().unwrap_or_default()
        );
    }
}
