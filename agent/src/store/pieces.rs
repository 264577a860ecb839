//! Large JSON answers (`get_messages`, `get_entries`, `get_tree`, `get_fork_messages` of a long
//! session) written piece by piece, so that the writer can send each piece on while the next is
//! written: the answer is never held whole, nor built as a JSON tree first.

/// JSON text produced in pieces.
pub trait JsonPieces {
    /// Appends more of the text to `out`, stopping once `out` holds at least `limit` bytes;
    /// false once the text is complete.
    fn write_more(&mut self, out: &mut Vec<u8>, limit: usize) -> serde_json::Result<bool>;
}

/// The whole text at once (for tests and small answers).
pub fn write_all(mut pieces: impl JsonPieces) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::new();
    while pieces.write_more(&mut out, usize::MAX)? {}
    Ok(out)
}

/// `head`, then the items each `write_item` writes (it returns false for an item it leaves
/// out), separated by commas, then `tail`.
pub(crate) struct JsonArray<'a, T, F> {
    head: &'static str,
    items: &'a [T],
    next: usize,
    started: bool,
    wrote_any: bool,
    write_item: F,
    tail: Vec<u8>,
}

impl<'a, T, F> JsonArray<'a, T, F>
where
    F: FnMut(&T, &mut Vec<u8>) -> serde_json::Result<bool>,
{
    /// `head` must open the array (`{"entries":[`); `tail` closes it (`]}` and what follows).
    pub(crate) fn new(head: &'static str, items: &'a [T], write_item: F, tail: Vec<u8>) -> Self {
        Self {
            head,
            items,
            next: 0,
            started: false,
            wrote_any: false,
            write_item,
            tail,
        }
    }
}

impl<T, F> JsonPieces for JsonArray<'_, T, F>
where
    F: FnMut(&T, &mut Vec<u8>) -> serde_json::Result<bool>,
{
    fn write_more(&mut self, out: &mut Vec<u8>, limit: usize) -> serde_json::Result<bool> {
        if !self.started {
            out.extend_from_slice(self.head.as_bytes());
            self.started = true;
        }
        while let Some(item) = self.items.get(self.next) {
            self.next += 1;
            let mark = out.len();
            if self.wrote_any {
                out.push(b',');
            }
            if (self.write_item)(item, out)? {
                self.wrote_any = true;
            } else {
                out.truncate(mark);
            }
            if out.len() >= limit {
                return Ok(true);
            }
        }
        out.extend_from_slice(&self.tail);
        Ok(false)
    }
}
