//! The entries of a session file, made block by block as the loader reads it.
//!
//! A line in `JSON.stringify`'s exact form (the scanner proves it, [`super::scan`]) is kept as
//! a range of the block it was read in. Any other valid line is normalised once
//! ([`super::normal`]) into a buffer of canonical text beside the block, and its entry quotes
//! that instead, so that every later answer is byte for byte what the reference writes after
//! `JSON.parse`. When a block holds any such line, its canonical lines are copied into the
//! buffer too and the block itself is let go: a file is held once, in canonical form, whatever
//! form it was written in. Lines neither pass can take (invalid JSON, lone surrogates, duplicate
//! keys...) go the slow path of a full parse ([`Entry::from_slice`]).
//!
//! (Reading a block's two halves on two threads was measured slower on a busy 2-core machine:
//! 340 against 270 ms for 100 MB of Python-form lines.)

use std::sync::Arc;

use super::entry::Entry;
use super::message::Slice;
use super::normal::normalise;
use super::scan::{Scanned, scan};

/// Where an entry's canonical text is.
enum Item {
    /// A range of the block.
    Quoted {
        start: usize,
        end: usize,
        scanned: Scanned,
    },
    /// A range of the normalised text.
    Normal {
        start: usize,
        end: usize,
        scanned: Scanned,
    },
    /// An entry the slow path made (it owns its text).
    Ready(Entry),
}

/// Collects the entries of a file's lines, in order, a block at a time (see the module docs).
#[derive(Default)]
pub(crate) struct Assembler {
    entries: Vec<Entry>,
}

impl Assembler {
    /// Adds the lines `lines` (ranges on character boundaries, in order) of `block`; blocks
    /// come in file order. No entry holds `block` when any of its lines was normalised.
    pub(crate) fn add_block(&mut self, block: &Arc<String>, lines: &[(usize, usize)]) {
        let mut part = Part::read(block, lines);
        // When any line was normalised, every line is held as normalised text and the block
        // can go.
        if !part.normal.is_empty() {
            part.copy_quoted(block);
        }
        part.into_entries(&mut self.entries);
    }

    /// The entries of all lines added, in order.
    pub(crate) fn finish(self) -> Vec<Entry> {
        self.entries
    }
}

/// The lines of a block, read.
struct Part {
    block: Arc<String>,
    items: Vec<Item>,
    /// Canonical text of the lines that were not canonical as written.
    normal: String,
}

impl Part {
    /// Reads the lines `lines` of `block`.
    fn read(block: &Arc<String>, lines: &[(usize, usize)]) -> Self {
        let mut part = Self {
            block: block.clone(),
            items: Vec::with_capacity(lines.len()),
            normal: String::new(),
        };
        for &(start, end) in lines {
            part.push(start, end);
        }
        part
    }

    fn push(&mut self, start: usize, end: usize) {
        let Some(text) = self.block.get(start..end) else {
            return;
        };
        if let Some(scanned) = scan(text).filter(|scanned| Entry::is_quotable(text, scanned)) {
            self.items.push(Item::Quoted {
                start,
                end,
                scanned,
            });
            return;
        }
        if self.normal.capacity() == 0 {
            // Normalised text is about as long as the text it comes from.
            self.normal.reserve_exact(self.block.len());
        }
        let mark = self.normal.len();
        if let Some(normalised) = normalise(text, &mut self.normal) {
            let text = &self.normal[mark..];
            if let Some(scanned) = normalised
                .scanned
                .filter(|scanned| Entry::is_quotable(text, scanned))
            {
                self.items.push(Item::Normal {
                    start: mark,
                    end: self.normal.len(),
                    scanned,
                });
                return;
            }
            self.normal.truncate(mark);
        }
        let line = Slice::new(self.block.clone(), start, end);
        if let Some(entry) = line.and_then(Entry::from_slice) {
            self.items.push(Item::Ready(entry));
        }
    }

    /// Copies the lines quoted from the block into the normalised text, and lets the block go.
    fn copy_quoted(&mut self, block: &str) {
        for item in &mut self.items {
            if let Item::Quoted {
                start,
                end,
                scanned,
            } = item
            {
                let from = self.normal.len();
                self.normal.push_str(&block[*start..*end]);
                *item = Item::Normal {
                    start: from,
                    end: self.normal.len(),
                    scanned: std::mem::take(scanned),
                };
            }
        }
        self.block = Arc::new(String::new());
    }

    fn into_entries(self, entries: &mut Vec<Entry>) {
        let mut normal = self.normal;
        normal.shrink_to_fit();
        let normal = Arc::new(normal);
        for item in self.items {
            let entry = match item {
                Item::Quoted {
                    start,
                    end,
                    scanned,
                } => Slice::new(self.block.clone(), start, end)
                    .and_then(|line| Entry::from_scanned(line, &scanned)),
                Item::Normal {
                    start,
                    end,
                    scanned,
                } => Slice::new(normal.clone(), start, end)
                    .and_then(|line| Entry::from_scanned(line, &scanned)),
                Item::Ready(entry) => Some(entry),
            };
            entries.extend(entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// Adds the lines of `blocks` (each a block of LF-separated lines) in order.
    fn assemble(blocks: &[&str]) -> Vec<Entry> {
        let mut assembler = Assembler::default();
        for text in blocks {
            let block = Arc::new((*text).to_owned());
            assembler.add_block(&block, &lines_of(&block));
        }
        assembler.finish()
    }

    /// The ranges of the LF-separated lines of `block`.
    fn lines_of(block: &str) -> Vec<(usize, usize)> {
        let mut start = 0;
        let mut lines = Vec::new();
        for line in block.split('\n') {
            lines.push((start, start + line.len()));
            start += line.len() + 1;
        }
        lines
    }

    fn json(entry: &Entry) -> String {
        String::from_utf8(entry.to_json()).unwrap()
    }

    #[test]
    fn every_line_is_quoted_in_canonical_form_and_in_order() {
        let canonical = r#"{"type":"custom","id":"a","parentId":null}"#;
        let python = r#"{"type": "message", "id": "b", "parentId": "a", "message": {"role": "user", "content": "caf\u00e9", "timestamp": 1.0}}"#;
        let lone = r#"{"type": "custom", "id": "c", "data": "\ud800"}"#;
        let invalid = r#"{"type": "custom", "id": "x""#;
        let entries = assemble(&[
            &format!("{canonical}\n{python}"),
            &format!("{lone}\n{invalid}\n{canonical}"),
            canonical,
        ]);
        let ids: Vec<&str> = entries.iter().map(Entry::id).collect();
        assert_eq!(ids, ["a", "b", "c", "a", "a"]);
        assert_eq!(json(&entries[0]), canonical);
        assert_eq!(
            json(&entries[1]),
            r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"café","timestamp":1}}"#
        );
        let message = entries[1].message().unwrap();
        assert_eq!(
            message.text(),
            Some(r#"{"role":"user","content":"café","timestamp":1}"#)
        );
        assert_eq!(entries[1].parent_id(), Some("a"));
        // The slow path keeps the lone surrogate as JavaScript writes it.
        assert_eq!(
            json(&entries[2]),
            r#"{"type":"custom","id":"c","data":"\ud800"}"#
        );
        assert_eq!(
            entries[3].raw(),
            serde_json::from_str::<Value>(canonical)
                .unwrap()
                .as_object()
                .cloned()
                .unwrap()
        );
    }

    #[test]
    fn a_block_with_a_normalised_line_is_let_go() {
        let canonical = r#"{"type":"custom","id":"a"}"#;
        let spaced = r#"{"type": "custom", "id": "b"}"#;
        let block = Arc::new(format!("{canonical}\n{spaced}"));
        let mut assembler = Assembler::default();
        assembler.add_block(&block, &lines_of(&block));
        let entries = assembler.finish();
        assert_eq!(Arc::strong_count(&block), 1, "no entry holds the block");
        assert_eq!(json(&entries[0]), canonical);
        assert_eq!(json(&entries[1]), r#"{"type":"custom","id":"b"}"#);
        // A block of canonical lines is quoted where it is.
        let block = Arc::new(canonical.to_owned());
        let mut assembler = Assembler::default();
        assembler.add_block(&block, &[(0, block.len())]);
        let entries = assembler.finish();
        assert_eq!(Arc::strong_count(&block), 2);
        assert_eq!(json(&entries[0]), canonical);
    }

    #[test]
    fn a_long_mixed_block_is_held_once_in_order() {
        let mut text = String::new();
        for n in 0..301 {
            if n % 7 == 3 {
                text.push_str(&format!(
                    "{{\"type\": \"custom\", \"id\": \"{n}\", \"data\": \"\\u00e9\"}}\n"
                ));
            } else {
                text.push_str(&format!(
                    "{{\"type\":\"custom\",\"id\":\"{n}\",\"data\":\"é\"}}\n"
                ));
            }
        }
        text.pop();
        let block = Arc::new(text);
        let entries = assemble_block(&block);
        assert_eq!(Arc::strong_count(&block), 1, "no entry holds the block");
        assert_eq!(entries.len(), 301);
        for (n, entry) in entries.iter().enumerate() {
            assert_eq!(
                json(entry),
                format!("{{\"type\":\"custom\",\"id\":\"{n}\",\"data\":\"é\"}}")
            );
        }
        // All canonical: quoted from the block, in order.
        let canonical: Vec<String> = (0..100)
            .map(|n| format!("{{\"type\":\"custom\",\"id\":\"{n}\"}}"))
            .collect();
        let block = Arc::new(canonical.join("\n"));
        let entries = assemble_block(&block);
        assert_eq!(Arc::strong_count(&block), 101);
        let written: Vec<String> = entries.iter().map(json).collect();
        assert_eq!(written, canonical);
    }

    fn assemble_block(block: &Arc<String>) -> Vec<Entry> {
        let mut assembler = Assembler::default();
        assembler.add_block(block, &lines_of(block));
        assembler.finish()
    }
}
