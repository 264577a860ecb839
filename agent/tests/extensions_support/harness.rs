//! A test's agent with its extensions: the extension files (corpus fixtures or inline text),
//! the agent spawned with them on the mock model, and checks of what the extensions send.

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use crate::support::{self, Agent, TestEnv, check_eq};

/// An extension file of a test: a fixture of the scenario corpus, or one written out here.
#[derive(Clone, Copy)]
pub enum Ext<'a> {
    /// `scenarios/extui/fixtures/NAME`, copied into the working folder.
    Fixture(&'a str),
    /// A file `name` with this text, written into the working folder.
    Inline(&'a str, &'a str),
}

impl Ext<'_> {
    pub fn name(&self) -> &str {
        match self {
            Self::Fixture(name) | Self::Inline(name, _) => name,
        }
    }

    pub fn write(&self, env: &TestEnv) -> Result<()> {
        match self {
            Self::Fixture(name) => {
                std::fs::copy(super::fixture(name), env.work_dir().join(name))?;
            }
            Self::Inline(name, text) => support::write_file(&env.work_dir(), name, text)?,
        }
        Ok(())
    }
}

/// A test's agent with its extensions, and the folders it runs in.
pub struct Harness {
    /// The folders it runs in.
    pub env: TestEnv,
    /// The agent.
    pub agent: Agent,
}

impl Harness {
    /// The agent with the extensions `exts` (given with `-e`) and `args`, on the mock model of
    /// `server` when there is one. `None` (the test is skipped, saying why) without a Node.js.
    pub async fn start(
        server: Option<&mock_llm::MockServer>,
        exts: &[Ext<'_>],
        args: &[&str],
    ) -> Result<Option<Self>> {
        let Some(node) = super::node() else {
            return Ok(None);
        };
        let env = match server {
            Some(server) => TestEnv::new(&server.uri())?,
            None => TestEnv::empty()?,
        };
        for ext in exts {
            ext.write(&env)?;
        }
        let names: Vec<&str> = exts.iter().map(Ext::name).collect();
        let mut all: Vec<&str> = Vec::new();
        if server.is_some() {
            all.extend(["--provider", "mock", "--model", "mock-model-1"]);
        }
        all.extend_from_slice(args);
        let agent = spawn(&env, &node, &names, &all)?;
        Ok(Some(Self { env, agent }))
    }

    /// The path of the working folder's file `name`, as the agent names it.
    pub fn path(&self, name: &str) -> String {
        self.env.work_dir().join(name).display().to_string()
    }

    /// Reads the next record: an extension UI request with the fields of `expected`; its id.
    pub async fn ui(&mut self, expected: Value) -> Result<String> {
        check_ui_request(&self.agent.next().await?, expected)
    }

    /// Starts a run (prompt `1`) that the mock holds at its gate `g`, then sends the prompt
    /// `2`, `message`; the records up to its answer.
    pub async fn prompt_during_run(
        &mut self,
        server: &mock_llm::MockServer,
        message: &str,
    ) -> Result<Vec<Value>> {
        self.agent
            .send(json!({"id": 1, "type": "prompt", "message": "hi"}))
            .await?;
        server.wait_for_gate("g", support::TIMEOUT).await?;
        self.agent
            .send(json!({"id": 2, "type": "prompt", "message": message}))
            .await?;
        self.agent.until(|r| r["id"] == 2).await
    }

    /// Reads the next record: the successful answer to the prompt `id`.
    pub async fn prompt_answered(&mut self, id: Value) -> Result<()> {
        check_eq(
            &self.agent.next().await?,
            &json!({"id": id, "type": "response", "command": "prompt", "success": true}),
        )
    }
}

/// Spawns the agent with the extensions `files` (names in the working folder) and `args`.
pub fn spawn(env: &TestEnv, node: &Path, files: &[&str], args: &[&str]) -> Result<Agent> {
    let paths: Vec<String> = files
        .iter()
        .map(|file| env.work_dir().join(file).display().to_string())
        .collect();
    let mut all: Vec<&str> = Vec::new();
    for path in &paths {
        all.extend(["-e", path.as_str()]);
    }
    all.extend_from_slice(args);
    env.spawn_with_env(&all, &[("PI_AGENT_NODE", node)])
}

/// The extension UI request with the fields of `expected`, its `id` checked to be a UUID and
/// then left out.
pub fn check_ui_request(record: &Value, expected: Value) -> Result<String> {
    let mut record = record.clone();
    let id = record
        .as_object_mut()
        .and_then(|map| map.shift_remove("id"))
        .and_then(|id| id.as_str().map(str::to_owned))
        .unwrap_or_default();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "id {id:?} of {record}");
    let mut full = json!({"type": "extension_ui_request"});
    if let (Some(full), Some(fields)) = (full.as_object_mut(), expected.as_object()) {
        full.extend(fields.clone());
    }
    check_eq(&record, &full)?;
    Ok(id)
}
