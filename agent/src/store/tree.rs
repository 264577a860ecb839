//! The session as a tree (`get_tree`): every entry under its parent, children oldest first.
//!
//! A long session is a deep tree (one level per entry), so nothing here recurses, and nothing
//! builds the tree as nodes or JSON values: the JSON text is written with an explicit stack,
//! piece by piece (serialising a deep `serde_json::Value` with serde would recurse).

use super::context::leaf_tail;
use super::pieces::JsonPieces;
use super::{Result, SessionStore, time};

/// Roots and the children of each entry (by index), children sorted oldest first.
struct Shape {
    roots: Vec<usize>,
    children: Vec<Vec<usize>>,
}

impl SessionStore {
    fn shape(&self) -> Shape {
        let mut roots = Vec::new();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.entries.len()];
        for (index, entry) in self.entries.iter().enumerate() {
            let parent = match entry.parent_id() {
                Some(parent) if parent != entry.id() => self.by_id.get(parent).copied(),
                _ => None,
            };
            match parent {
                Some(parent) => children[parent].push(index),
                None => roots.push(index),
            }
        }
        for kids in &mut children {
            // Oldest first. JavaScript's sort treats a NaN comparison as "equal", which leaves
            // such entries where they are, so sort only when every time parses.
            let times: Option<Vec<i64>> = kids
                .iter()
                .map(|kid| time::parse_iso(self.entries[*kid].timestamp()))
                .collect();
            if let Some(times) = times {
                let mut paired: Vec<(i64, usize)> = times.into_iter().zip(kids.drain(..)).collect();
                paired.sort_by_key(|(millis, _)| *millis);
                kids.extend(paired.into_iter().map(|(_, kid)| kid));
            }
        }
        Shape { roots, children }
    }

    /// The `data` of a `get_tree` response, `{"tree":[...],"leafId":...}`, in pieces: each
    /// node `{"entry","children","label"?,"labelTimestamp"?}`, children oldest first, byte for
    /// byte as the reference writes it, for sessions of any depth (nothing recurses).
    pub fn tree_pieces(&self) -> Result<TreeJson<'_>> {
        let shape = self.shape();
        let stack = shape
            .roots
            .iter()
            .enumerate()
            .rev()
            .map(|(position, root)| Step::Open(*root, position > 0))
            .collect();
        Ok(TreeJson {
            store: self,
            shape,
            stack,
            started: false,
            tail: leaf_tail(self.leaf_id())?,
        })
    }

    /// The `data` of a `get_tree` response as a JSON value (for tests and small sessions: a
    /// value nests once per entry).
    pub fn tree_data(&self) -> Result<serde_json::Value> {
        Ok(pi_rpc_protocol::surrogates::from_str(&self.tree_json()?)?)
    }

    /// The `data` of a `get_tree` response as JSON text (see [`Self::tree_pieces`]).
    pub fn tree_json(&self) -> Result<String> {
        let bytes = super::write_all(self.tree_pieces()?)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Work items of [`TreeJson`]: open a node (after a comma or not), or close one.
#[derive(Debug, Clone, Copy)]
enum Step {
    Open(usize, bool),
    Close(usize),
}

/// The session tree as JSON, written in pieces with an explicit stack.
pub struct TreeJson<'a> {
    store: &'a SessionStore,
    shape: Shape,
    stack: Vec<Step>,
    started: bool,
    tail: Vec<u8>,
}

impl JsonPieces for TreeJson<'_> {
    fn write_more(&mut self, out: &mut Vec<u8>, limit: usize) -> serde_json::Result<bool> {
        if !self.started {
            out.extend_from_slice(b"{\"tree\":[");
            self.started = true;
        }
        let json = pi_rpc_protocol::json::write_to;
        while let Some(step) = self.stack.pop() {
            match step {
                Step::Open(index, comma) => {
                    if comma {
                        out.push(b',');
                    }
                    out.extend_from_slice(b"{\"entry\":");
                    self.store.entries[index].write_json(out)?;
                    out.extend_from_slice(b",\"children\":[");
                    self.stack.push(Step::Close(index));
                    for (position, kid) in self.shape.children[index].iter().enumerate().rev() {
                        self.stack.push(Step::Open(*kid, position > 0));
                    }
                }
                Step::Close(index) => {
                    out.push(b']');
                    let id = self.store.entries[index].id();
                    if let Some((label, at)) = self.store.labels.get(id) {
                        out.extend_from_slice(b",\"label\":");
                        json(out, label)?;
                        out.extend_from_slice(b",\"labelTimestamp\":");
                        json(out, at)?;
                    }
                    out.push(b'}');
                }
            }
            if out.len() >= limit {
                return Ok(true);
            }
        }
        out.extend_from_slice(&self.tail);
        Ok(false)
    }
}
