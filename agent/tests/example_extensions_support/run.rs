//! One agent on one example: start-up, commands, the tools of a model request, the flags of
//! `--help`, and each of the example's commands run headless.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::normalise::Normaliser;
use super::session::Session;
use crate::support::TestEnv;

/// How long start-up may take (to the answer of `get_commands`).
const STARTUP: Duration = Duration::from_secs(30);
/// How long the prompt that shows the tools may take, to `agent_settled`.
const PROMPT: Duration = Duration::from_secs(20);
/// How long a command may take to be answered; past it, it counts as taking long.
const COMMAND: Duration = Duration::from_secs(5);
/// The records of a command are collected until none has come for this long...
const QUIET: Duration = Duration::from_millis(300);
/// ...for this long at most.
const QUIET_CAP: Duration = Duration::from_secs(3);
/// How long `--help` may take.
const HELP: Duration = Duration::from_secs(30);

/// Which agent, and how it is started.
#[derive(Clone)]
pub struct Program {
    pub path: PathBuf,
    /// Extra environment (`PI_AGENT_NODE` for pi-agent).
    pub vars: Vec<(String, PathBuf)>,
    /// Paths that appear in its messages and are not the example's business (its install).
    pub own_paths: Vec<(String, &'static str)>,
}

/// What became of one headless command.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandOutcome {
    /// It ran: the records from the prompt's answer on, normalised.
    Ran(Vec<Value>),
    /// It started a model run (the records are not compared).
    ModelRun,
    /// It was not answered within [`COMMAND`].
    TookLong,
    /// It was not run: an earlier command did not finish, or the agent had exited.
    NotRun(String),
}

/// Everything one agent showed with one example.
#[derive(Clone, Debug, Default)]
pub struct AgentRun {
    /// Whether it answered `get_commands` (the extension loaded).
    pub loaded: bool,
    /// The exit code: of the failed start-up, or after stdin closed at the end.
    pub exit_code: Option<i32>,
    /// Its stderr until stdin closes at the end (all of it when it did not load), normalised.
    pub stderr: String,
    /// Its stderr after that, to its exit, normalised (not compared: an exit races with the
    /// extension host's).
    pub later_stderr: String,
    /// The commands of `get_commands`, normalised.
    pub commands: Option<Value>,
    /// The tools of the first model request (name, description, schema), normalised.
    pub tools: Option<Value>,
    /// The `Extension CLI Flags:` section of `--help` (empty without flags).
    pub flags: String,
    /// Each command run headless, by name.
    pub headless: Vec<(String, CommandOutcome)>,
}

/// Runs `program` with the example at `source` (a file or folder; `None`: no extension, the
/// baseline) copied into a scratch folder of its own, and runs headless the commands it lists
/// for the example. `--help` runs at the same time, in a scratch folder of its own.
pub async fn run(program: &Program, source: Option<&Path>) -> Result<AgentRun> {
    let server = mock_llm::MockServer::start(mock_llm::Script::reply("done")).await?;
    let env = TestEnv::new(&server.uri())?;
    let help_env = TestEnv::empty()?;
    let rpc_args = extension_args(&env, source)?;
    let help_args = extension_args(&help_env, source)?;
    let help_args: Vec<&str> = help_args.iter().map(String::as_str).collect();
    let (flags, out) = tokio::join!(
        help_flags(program, &help_env, &help_args),
        rpc_run(program, &env, &rpc_args, &server)
    );
    Ok(AgentRun { flags, ..out? })
}

/// `-e <copy>` for the example at `source` copied into `env`'s scratch folder (nothing for
/// `None`).
fn extension_args(env: &TestEnv, source: Option<&Path>) -> Result<Vec<String>> {
    let Some(source) = source else {
        return Ok(Vec::new());
    };
    let copy = env
        .root
        .path()
        .join("extensions")
        .join(source.file_name().unwrap_or_default());
    copy_all(source, &copy)?;
    Ok(vec!["-e".to_owned(), copy.display().to_string()])
}

/// Everything but the flags: the agent in RPC mode with `extension_args` against `server`.
async fn rpc_run(
    program: &Program,
    env: &TestEnv,
    extension_args: &[String],
    server: &mock_llm::MockServer,
) -> Result<AgentRun> {
    let mut others = program.own_paths.clone();
    others.push((env.root.path().join("home").display().to_string(), "<home>"));
    let normaliser = Normaliser::new(env.root.path(), &others);
    let mut out = AgentRun::default();
    let mut args: Vec<&str> = pi_reference::MOCK_RPC_ARGS.to_vec();
    args.extend(extension_args.iter().map(String::as_str));
    let mut command = env.command_for(&program.path, &args);
    command.envs(program.vars.iter().map(|(k, v)| (k, v)));
    let mut session = Session::spawn(command)?;

    session
        .send(&json!({"id": "commands", "type": "get_commands"}))
        .await;
    let mut startup = Vec::new();
    let answered = session
        .until(&mut startup, Instant::now() + STARTUP, |r| {
            r["id"] == "commands"
        })
        .await;
    if answered {
        out.loaded = true;
        let listed = startup.last().map(|r| r["data"]["commands"].clone());
        out.commands = listed.map(|c| normaliser.value(&c));
        out.tools = tools(&mut session, server, &normaliser).await;
        let names = example_commands(out.commands.as_ref());
        out.headless = headless(&mut session, server, &normaliser, &names).await;
        out.stderr = normaliser.text(&session.stderr());
    }
    let (code, stderr) = session.finish(Duration::from_secs(10)).await;
    out.exit_code = code;
    let stderr = normaliser.text(&stderr);
    match stderr.strip_prefix(out.stderr.as_str()) {
        Some(later) if out.loaded => out.later_stderr = later.to_owned(),
        _ => out.stderr = stderr,
    }
    Ok(out)
}

/// The commands of `commands` (a `get_commands` list) that the example registered: those of an
/// extension whose source is a file in the scratch folder (not the built-in `llama`).
pub fn example_commands(commands: Option<&Value>) -> Vec<String> {
    let Some(list) = commands.and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter(|c| c["source"] == "extension")
        .filter(|c| {
            c["sourceInfo"]["path"]
                .as_str()
                .is_some_and(|path| path.starts_with("<root>/"))
        })
        .filter_map(|c| c["name"].as_str().map(str::to_owned))
        .collect()
}

/// Sends one prompt and returns the tools of the model request it made (`null` when it made
/// none).
async fn tools(
    session: &mut Session,
    server: &mock_llm::MockServer,
    n: &Normaliser,
) -> Option<Value> {
    session
        .send(&json!({"id": "tools", "type": "prompt", "message": "Say done."}))
        .await;
    let mut records = Vec::new();
    session
        .until(&mut records, Instant::now() + PROMPT, |r| {
            r["type"] == "agent_settled"
        })
        .await;
    // What the run's last handlers still write comes before the commands' records.
    session.until_quiet(&mut records, QUIET, QUIET_CAP).await;
    let journal = server.journal();
    let tools = journal.first().map(|entry| entry.body["tools"].clone())?;
    Some(n.value(&tools))
}

/// Runs each of `names` as `/name` and collects what it shows.
async fn headless(
    session: &mut Session,
    server: &mock_llm::MockServer,
    n: &Normaliser,
    names: &[String],
) -> Vec<(String, CommandOutcome)> {
    let mut outcomes = Vec::new();
    let mut stopped: Option<String> = None;
    for (index, name) in names.iter().enumerate() {
        if let Some(why) = &stopped {
            outcomes.push((name.clone(), CommandOutcome::NotRun(why.clone())));
            continue;
        }
        let requests = server.request_count();
        let id = format!("command-{index}");
        session
            .send(&json!({"id": id, "type": "prompt", "message": format!("/{name}")}))
            .await;
        let mut records = Vec::new();
        let answered = session
            .until(&mut records, Instant::now() + COMMAND, |r| {
                r["id"] == id.as_str()
            })
            .await;
        if !answered && !session.closed() {
            stopped = Some(format!("/{name} did not finish"));
            outcomes.push((name.clone(), CommandOutcome::TookLong));
            continue;
        }
        session.until_quiet(&mut records, QUIET, QUIET_CAP).await;
        let model_run =
            server.request_count() > requests || records.iter().any(|r| r["type"] == "agent_start");
        if model_run {
            if !records.iter().any(|r| r["type"] == "agent_settled") {
                session
                    .until(&mut records, Instant::now() + PROMPT, |r| {
                        r["type"] == "agent_settled"
                    })
                    .await;
            }
            outcomes.push((name.clone(), CommandOutcome::ModelRun));
            continue;
        }
        if session.closed() {
            records.push(json!({"exited": true}));
            stopped = Some(format!("the agent exited after /{name}"));
        }
        let records = records.iter().map(|r| n.value(r)).collect();
        outcomes.push((name.clone(), CommandOutcome::Ran(records)));
    }
    outcomes
}

/// The `Extension CLI Flags:` section of `--help` with the example loaded: its lines up to the
/// next empty one, or what went wrong.
async fn help_flags(program: &Program, env: &TestEnv, extension_args: &[&str]) -> String {
    let args = [extension_args, &["--help"]].concat();
    let mut command = env.command_for(&program.path, &args);
    command.envs(program.vars.iter().map(|(k, v)| (k, v)));
    command
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = match tokio::time::timeout(HELP, command.output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(error)) => return format!("<--help did not start: {error}>"),
        Err(_) => return "<--help did not end>".to_owned(),
    };
    if !output.status.success() {
        return format!("<--help exited with {:?}>", output.status.code());
    }
    flags_section(&String::from_utf8_lossy(&output.stdout))
}

/// The lines after `Extension CLI Flags:` up to the next empty line.
pub fn flags_section(help: &str) -> String {
    let mut lines = help
        .lines()
        .skip_while(|line| line.trim() != "Extension CLI Flags:");
    if lines.next().is_none() {
        return String::new();
    }
    let section: Vec<&str> = lines.take_while(|line| !line.trim().is_empty()).collect();
    section.join("\n")
}

/// Copies a file or a folder (recursively) to `to`.
fn copy_all(from: &Path, to: &Path) -> Result<()> {
    if from.is_dir() {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_all(&entry.path(), &to.join(entry.file_name()))?;
        }
    } else {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(from, to)?;
    }
    Ok(())
}
