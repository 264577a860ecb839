//! Moving the leaf inside a session, and new sessions made from a branch of this one
//! (`fork`, `clone`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pi_rpc_protocol::session::{BranchSummaryEntry, EntryBase, SESSION_VERSION, SessionEntry};
use pi_rpc_protocol::session::{LabelEntry, SessionHeader};
use pi_rpc_protocol::usage::Usage;
use serde_json::Value;

use super::context::user_message_text;
use super::entry::generate_id;
use super::{Entry, Error, Result, Role, SessionStore, header_map, paths, time};

impl SessionStore {
    /// Moves the leaf to an earlier entry; the next entry starts a new branch there.
    pub fn branch_to(&mut self, entry_id: &str) -> Result<()> {
        if !self.by_id.contains_key(entry_id) {
            return Err(Error::EntryNotFound(entry_id.into()));
        }
        self.leaf_id = Some(entry_id.into());
        Ok(())
    }

    /// Moves the leaf before the first entry; the next entry is a new root.
    pub fn reset_leaf(&mut self) {
        self.leaf_id = None;
    }

    /// What moving the leaf to `target` leaves behind: the entries from the leaf back to the
    /// deepest entry both branches share (oldest first, not including it), and that entry
    /// (`None` when they share none, or there is no leaf).
    pub fn abandoned_entries(&self, target: &str) -> (Vec<&Entry>, Option<String>) {
        let Some(leaf) = self.leaf_id.as_deref() else {
            return (Vec::new(), None);
        };
        let old_path: HashSet<&str> = self.branch(Some(leaf)).iter().map(|e| e.id()).collect();
        let common = self
            .branch(Some(target))
            .into_iter()
            .rev()
            .find(|entry| old_path.contains(entry.id()))
            .map(|entry| entry.id().to_owned());
        let mut entries = Vec::new();
        let mut current = Some(leaf);
        while let Some(id) = current
            && Some(id) != common.as_deref()
        {
            let Some(entry) = self.entry(id) else {
                break;
            };
            entries.push(entry);
            // A parent cycle in a hand-edited file must not hang the agent.
            if entries.len() > self.entries.len() {
                break;
            }
            current = entry.parent_id();
        }
        entries.reverse();
        (entries, common)
    }

    /// Moves the leaf to `from` (or before the first entry) and appends a `branch_summary` of
    /// the branch left behind there; `from_id` is what it records as where the branch was left
    /// (`"root"` for none).
    pub fn branch_with_summary(
        &mut self,
        from: Option<&str>,
        from_id: Option<&str>,
        summary: &str,
        details: Option<Value>,
        from_hook: Option<bool>,
        usage: Option<Usage>,
    ) -> Result<String> {
        if let Some(from) = from
            && !self.by_id.contains_key(from)
        {
            return Err(Error::EntryNotFound(from.into()));
        }
        self.leaf_id = from.map(str::to_owned);
        let base = EntryBase {
            id: generate_id(|id| self.by_id.contains_key(id)),
            parent_id: self.leaf_id.clone(),
            timestamp: time::now_iso(),
        };
        self.append_entry(Entry::from_typed(SessionEntry::BranchSummary(
            BranchSummaryEntry {
                base,
                from_id: from_id.unwrap_or("root").into(),
                summary: summary.into(),
                details,
                usage,
                from_hook,
            },
        ))?)
    }

    /// Replaces this session with a new one (new id and file) holding only the path from the
    /// root to `leaf_id`, labels of that path re-applied at its end. When persisting, the new
    /// header names this session's file as `parentSession`, and the file is written at once if
    /// the path holds an assistant message. Returns the new file when persisting.
    pub fn create_branched_session(&mut self, leaf_id: &str) -> Result<Option<PathBuf>> {
        let previous_file = self.session_file.clone();
        let path: Vec<Entry> = self.branch(Some(leaf_id)).into_iter().cloned().collect();
        if path.is_empty() {
            return Err(Error::EntryNotFound(leaf_id.into()));
        }
        let mut kept: Vec<Entry> = Vec::with_capacity(path.len());
        let mut parent: Option<String> = None;
        for entry in &path {
            if entry.kind() == "label" {
                continue;
            }
            kept.push(entry.with_parent(parent.as_deref()));
            parent = Some(entry.id().to_owned());
        }
        let session_id = uuid::Uuid::now_v7().to_string();
        let timestamp = time::now_iso();
        let file = paths::join(
            &self.session_dir,
            &paths::session_file_name(&timestamp, &session_id),
        );
        let header = header_map(SessionHeader {
            kind: "session".into(),
            version: Some(SESSION_VERSION),
            id: session_id.clone(),
            timestamp,
            cwd: self.cwd.clone(),
            parent_session: if self.persist { previous_file } else { None },
        });
        let mut taken: HashSet<String> = kept.iter().map(|entry| entry.id().to_owned()).collect();
        let labels: Vec<(String, String, String)> = self
            .labels
            .iter()
            .filter(|(target, _, _)| taken.contains(target.as_str()))
            .cloned()
            .collect();
        let mut label_parent = parent;
        for (target, label, at) in labels {
            let id = generate_id(|candidate| taken.contains(candidate));
            taken.insert(id.clone());
            let entry = Entry::from_typed(SessionEntry::Label(LabelEntry {
                base: EntryBase {
                    id: id.clone(),
                    parent_id: label_parent.take(),
                    timestamp: at,
                },
                target_id: target,
                label: Some(label),
            }))?;
            kept.push(entry);
            label_parent = Some(id);
        }
        self.header = header;
        self.entries = kept;
        self.session_id = session_id;
        self.rebuild_index();
        if !self.persist {
            return Ok(None);
        }
        self.session_file = Some(file.clone());
        if self.has_conversation() {
            self.rewrite_file()?;
            self.flushed = true;
        } else {
            self.flushed = false;
        }
        Ok(Some(PathBuf::from(file)))
    }

    /// `fork`: a new session holding the branch up to (not including) the user message
    /// `entry_id`, whose text is returned for the editor. A persisted session is re-read from its
    /// file first; forking at the very first message starts an empty session whose
    /// `parentSession` is this one. On error, `self` is unchanged.
    pub fn fork(&mut self, entry_id: &str) -> Result<Option<String>> {
        self.check_fork(entry_id)?;
        let selected = self.entry(entry_id).ok_or(Error::InvalidForkEntry)?;
        let text = user_message_text(selected).unwrap_or_default();
        let target = selected.parent_id().map(str::to_owned);
        self.fork_to(target.as_deref())?;
        Ok(Some(text))
    }

    /// The checks [`SessionStore::fork`] makes before it changes anything: the entry is a user
    /// message of this session and, unless it is the first entry, a persisted session's file
    /// exists (the fork is made from it).
    pub fn check_fork(&self, entry_id: &str) -> Result<()> {
        let selected = self.entry(entry_id).ok_or(Error::InvalidForkEntry)?;
        if selected.message_role() != Some(Role::User) {
            return Err(Error::InvalidForkEntry);
        }
        match selected.parent_id() {
            Some(_) => self.check_saved(),
            None => Ok(()),
        }
    }

    /// The checks [`SessionStore::clone_at_leaf`] makes before it changes anything.
    pub fn check_clone(&self) -> Result<()> {
        self.leaf_id.as_ref().ok_or(Error::NothingToClone)?;
        self.check_saved()
    }

    /// A persisted session can be branched only once its file is written.
    fn check_saved(&self) -> Result<()> {
        match (self.persist, &self.session_file) {
            (false, _) => Ok(()),
            (true, Some(file)) if Path::new(file).exists() => Ok(()),
            (true, _) => Err(Error::NotSavedYet(self.saved_at)),
        }
    }

    /// The checks [`SessionStore::fork_at`] makes before it changes anything: the entry is one
    /// of this session (of any kind) and a persisted session's file exists.
    pub fn check_fork_at(&self, entry_id: &str) -> Result<()> {
        self.entry(entry_id).ok_or(Error::InvalidForkEntry)?;
        self.check_saved()
    }

    /// A command's `ctx.fork(entryId, {position: "at"})`: a new session holding the path from
    /// the root up to and including `entry_id` (whichever branch it is on).
    pub fn fork_at(&mut self, entry_id: &str) -> Result<()> {
        self.check_fork_at(entry_id)?;
        self.fork_to(Some(entry_id))
    }

    /// `clone`: a new session holding the active branch up to and including the leaf.
    pub fn clone_at_leaf(&mut self) -> Result<()> {
        self.check_clone()?;
        let leaf = self.leaf_id.clone().ok_or(Error::NothingToClone)?;
        self.fork_to(Some(&leaf))
    }

    fn fork_to(&mut self, target: Option<&str>) -> Result<()> {
        if !self.persist {
            match target {
                None => {
                    let parent = self.session_file.clone();
                    self.new_session(parent.as_deref());
                }
                Some(target) => {
                    self.create_branched_session(target)?;
                }
            }
            return Ok(());
        }
        let current = self
            .session_file
            .clone()
            .ok_or(Error::NotSavedYet(self.saved_at))?;
        let Some(target) = target else {
            let mut fresh = SessionStore::new(self.cwd.as_ref(), self.session_dir.as_ref(), true)?;
            fresh.set_saved_at(self.saved_at);
            fresh.new_session(Some(&current));
            *self = fresh;
            return Ok(());
        };
        if !Path::new(&current).exists() {
            return Err(Error::NotSavedYet(self.saved_at));
        }
        let mut reopened = SessionStore::open(
            Path::new(&current),
            Some(Path::new(&self.session_dir)),
            None,
        )?;
        reopened.set_saved_at(self.saved_at);
        reopened.create_branched_session(target)?;
        *self = reopened;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn message(store: &mut SessionStore, role: &str, text: &str) -> String {
        let message = match role {
            "user" => format!(
                r#"{{"role":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":1}}"#
            ),
            _ => format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"api":"a","provider":"p","model":"m","usage":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":2}}"#
            ),
        };
        store
            .append_message(serde_json::from_str(&message).unwrap())
            .unwrap()
    }

    #[test]
    fn what_a_move_of_the_leaf_leaves_behind() {
        let mut store = SessionStore::in_memory(Path::new("/project"));
        let q1 = message(&mut store, "user", "q1");
        let a1 = message(&mut store, "assistant", "a1");
        let q2 = message(&mut store, "user", "q2");
        let a2 = message(&mut store, "assistant", "a2");
        let ids = |entries: Vec<&Entry>| {
            entries
                .iter()
                .map(|e| e.id().to_owned())
                .collect::<Vec<_>>()
        };
        let (left, common) = store.abandoned_entries(&a1);
        assert_eq!(ids(left), [q2.clone(), a2.clone()]);
        assert_eq!(common.as_deref(), Some(a1.as_str()));
        // Forward along the branch: nothing is left behind.
        store.branch_to(&a1).unwrap();
        let (left, common) = store.abandoned_entries(&a2);
        assert!(left.is_empty());
        assert_eq!(common.as_deref(), Some(a1.as_str()));
        // Onto another branch: back to where they meet.
        let other = message(&mut store, "user", "other");
        let (left, common) = store.abandoned_entries(&q2);
        assert_eq!(ids(left), [other]);
        assert_eq!(common.as_deref(), Some(a1.as_str()));
        let (left, common) = store.abandoned_entries(&q1);
        assert_eq!(left.len(), 2);
        assert_eq!(common.as_deref(), Some(q1.as_str()));
        store.reset_leaf();
        let (left, common) = store.abandoned_entries(&q1);
        assert!(left.is_empty() && common.is_none());
    }

    #[test]
    fn a_branch_summary_records_where_it_was_left() {
        let mut store = SessionStore::in_memory(Path::new("/project"));
        let q1 = message(&mut store, "user", "q1");
        let a1 = message(&mut store, "assistant", "a1");
        let id = store
            .branch_with_summary(Some(&q1), Some(&a1), "Summary", None, Some(true), None)
            .unwrap();
        let entry = store.entry(&id).unwrap();
        assert_eq!(entry.parent_id(), Some(q1.as_str()));
        assert_eq!(entry.field("fromId"), Some(Value::from(a1.as_str())));
        assert_eq!(store.leaf_id(), Some(id.as_str()));
        let id = store
            .branch_with_summary(None, None, "Root", None, None, None)
            .unwrap();
        assert_eq!(
            store.entry(&id).unwrap().field("fromId"),
            Some(Value::from("root"))
        );
        let error = store.branch_with_summary(Some("zz"), None, "x", None, None, None);
        assert_eq!(error.unwrap_err().to_string(), "Entry zz not found");
    }

    #[test]
    fn a_fork_at_an_entry_keeps_the_path_up_to_it_on_any_branch() {
        let mut store = SessionStore::in_memory(Path::new("/project"));
        let q1 = message(&mut store, "user", "q1");
        let a1 = message(&mut store, "assistant", "a1");
        let q2 = message(&mut store, "user", "q2");
        store.append_label_change(&q1, Some("first")).unwrap();
        store.branch_to(&a1).unwrap();
        message(&mut store, "user", "other");
        let before = store.session_id().to_owned();
        assert!(matches!(store.fork_at("zz"), Err(Error::InvalidForkEntry)));
        assert_eq!(
            store.session_id(),
            before,
            "an unknown entry changes nothing"
        );
        store.fork_at(&q2).unwrap();
        assert_ne!(store.session_id(), before);
        let kinds: Vec<&str> = store.entries().iter().map(Entry::kind).collect();
        assert_eq!(kinds, ["message", "message", "message", "label"]);
        assert_eq!(store.entries()[2].id(), q2);
        assert_eq!(store.label(&q1), Some("first"));
        assert_eq!(store.leaf_id(), Some(store.entries()[3].id()));
    }
}
