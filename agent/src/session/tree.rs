//! The session as a tree (`get_tree`): every entry under its parent, children oldest first.
//!
//! A long session is a deep tree (one level per entry), so nothing here recurses: nodes are
//! built from the leaves up and the JSON text is written with an explicit stack. (Serialising a
//! deep [`TreeNode`] or `serde_json::Value` with serde does recurse; see [`SessionStore::tree_json`].)

use serde::Serialize;
use serde_json::{Map, Value};

use super::context::leaf_value;
use super::{Entry, Result, SessionStore, time};

/// A node of the session tree. Serialises as the reference's `get_tree` nodes:
/// `{"entry","children","label"?,"labelTimestamp"?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode<'a> {
    /// The entry.
    pub entry: &'a Entry,
    /// Entries whose parent is this one, oldest first.
    pub children: Vec<TreeNode<'a>>,
    /// The entry's label, when one is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<&'a str>,
    /// When the label was set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_timestamp: Option<&'a str>,
}

impl Drop for TreeNode<'_> {
    fn drop(&mut self) {
        // Unlink the subtree first so that dropping a deep tree does not recurse.
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut node) = pending.pop() {
            pending.append(&mut node.children);
        }
    }
}

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

    /// Entries reachable from the roots, parents before children.
    fn pre_order(shape: &Shape) -> Vec<usize> {
        let mut order = Vec::new();
        let mut stack: Vec<usize> = shape.roots.iter().rev().copied().collect();
        while let Some(index) = stack.pop() {
            order.push(index);
            stack.extend(shape.children[index].iter().rev());
        }
        order
    }

    /// The entries as a tree. A well-formed session has one root; entries whose parent is
    /// missing are roots too.
    pub fn tree(&self) -> Vec<TreeNode<'_>> {
        let shape = self.shape();
        let mut built: Vec<Option<TreeNode<'_>>> = vec![None; self.entries.len()];
        for index in Self::pre_order(&shape).into_iter().rev() {
            let children = shape.children[index]
                .iter()
                .filter_map(|kid| built[*kid].take())
                .collect();
            let entry = &self.entries[index];
            let label = self.labels.get(entry.id());
            built[index] = Some(TreeNode {
                entry,
                children,
                label: label.map(|(text, _)| text),
                label_timestamp: label.map(|(_, at)| at),
            });
        }
        shape
            .roots
            .iter()
            .filter_map(|root| built[*root].take())
            .collect()
    }

    /// The `data` of a `get_tree` response as a JSON value: `{"tree":[...],"leafId":...}`.
    /// Serialising it recurses once per level: for long sessions prefer [`Self::tree_json`].
    pub fn tree_data(&self) -> Result<Value> {
        let shape = self.shape();
        let mut built: Vec<Option<Value>> = vec![None; self.entries.len()];
        for index in Self::pre_order(&shape).into_iter().rev() {
            let children = shape.children[index]
                .iter()
                .filter_map(|kid| built[*kid].take())
                .collect();
            let entry = &self.entries[index];
            let mut node = Map::new();
            node.insert("entry".into(), Value::Object(entry.raw().clone()));
            node.insert("children".into(), Value::Array(children));
            if let Some((label, at)) = self.labels.get(entry.id()) {
                node.insert("label".into(), label.into());
                node.insert("labelTimestamp".into(), at.into());
            }
            built[index] = Some(Value::Object(node));
        }
        let roots = shape
            .roots
            .iter()
            .filter_map(|root| built[*root].take())
            .collect();
        let mut data = Map::new();
        data.insert("tree".into(), Value::Array(roots));
        data.insert("leafId".into(), leaf_value(self.leaf_id()));
        Ok(Value::Object(data))
    }

    /// The `data` of a `get_tree` response as JSON text, byte for byte as the reference writes
    /// it, for sessions of any length (nothing recurses).
    pub fn tree_json(&self) -> Result<String> {
        let shape = self.shape();
        let mut out = String::from("{\"tree\":[");
        // Work items: open a node, or close one (with its label fields).
        enum Step {
            Open(usize, bool),
            Close(usize),
        }
        let mut stack: Vec<Step> = Vec::new();
        for (position, root) in shape.roots.iter().enumerate().rev() {
            stack.push(Step::Open(*root, position > 0));
        }
        while let Some(step) = stack.pop() {
            match step {
                Step::Open(index, comma) => {
                    if comma {
                        out.push(',');
                    }
                    out.push_str("{\"entry\":");
                    out.push_str(&pi_rpc_protocol::json::to_string(&self.entries[index])?);
                    out.push_str(",\"children\":[");
                    stack.push(Step::Close(index));
                    for (position, kid) in shape.children[index].iter().enumerate().rev() {
                        stack.push(Step::Open(*kid, position > 0));
                    }
                }
                Step::Close(index) => {
                    out.push(']');
                    if let Some((label, at)) = self.labels.get(self.entries[index].id()) {
                        out.push_str(",\"label\":");
                        out.push_str(&pi_rpc_protocol::json::to_string(label)?);
                        out.push_str(",\"labelTimestamp\":");
                        out.push_str(&pi_rpc_protocol::json::to_string(at)?);
                    }
                    out.push('}');
                }
            }
        }
        out.push_str("],\"leafId\":");
        out.push_str(&pi_rpc_protocol::json::to_string(&leaf_value(
            self.leaf_id(),
        ))?);
        out.push('}');
        Ok(out)
    }
}
