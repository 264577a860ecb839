//! The result of the listing tools (`grep`, `find`, `ls`): rows cut to the byte limit, then the
//! notices the reference appends in one bracketed line, each with its key in `details`.

use serde_json::{Map, Value};

use super::truncate::{DEFAULT_MAX_BYTES, Truncation, UNLIMITED_LINES, format_size};
use super::{ToolOutcome, js, text_block};

/// A listing's result under construction. Notices come out in the order they are added; the
/// byte-limit notice, when due, follows the first one (a tool's count limit), as the
/// reference orders them.
pub(crate) struct Listing {
    truncation: Truncation,
    details: Map<String, Value>,
    notices: Vec<String>,
}

impl Listing {
    /// The rows joined by newlines, cut to the default byte limit.
    pub(crate) fn new(rows: &[String]) -> Self {
        Self {
            truncation: super::truncate::truncate_head_lines(&rows.join("\n"), UNLIMITED_LINES),
            details: Map::new(),
            notices: Vec::new(),
        }
    }

    /// The tool's count limit was reached: `"{limit} {what} limit reached. Use limit={2 x limit}
    /// for more{advice}"`, and `key: limit` in details.
    pub(crate) fn limit_reached(&mut self, what: &str, key: &str, limit: f64, advice: &str) {
        self.notices.push(format!(
            "{} {what} limit reached. Use limit={} for more{advice}",
            js::number_to_string(limit),
            js::number_to_string(limit * 2.0)
        ));
        self.details.insert(key.into(), js::number_value(limit));
    }

    /// Adds the byte-limit notice when the rows were cut (call after [`Self::limit_reached`]).
    pub(crate) fn note_truncation(&mut self) {
        if self.truncation.truncated {
            self.notices
                .push(format!("{} limit reached", format_size(DEFAULT_MAX_BYTES)));
            self.details.insert(
                "truncation".into(),
                serde_json::to_value(&self.truncation).unwrap_or_default(),
            );
        }
    }

    /// Any other notice, with its details entry.
    pub(crate) fn notice(&mut self, text: String, key: &str, value: Value) {
        self.notices.push(text);
        self.details.insert(key.into(), value);
    }

    /// The tool's success: the text with the notices, and details only when there are some.
    pub(crate) fn finish(self) -> ToolOutcome {
        let mut output = self.truncation.content;
        if !self.notices.is_empty() {
            output.push_str(&format!("\n\n[{}]", self.notices.join(". ")));
        }
        let details = (!self.details.is_empty()).then_some(Value::Object(self.details));
        ToolOutcome::success(vec![text_block(output)], details)
    }
}
