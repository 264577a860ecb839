//! `pi-conformance`: run YAML scenarios against any implementation of pi's RPC mode.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};
use pi_conformance::agent::AgentCommand;
use pi_conformance::baseline;
use pi_conformance::client::{ClientCommand, ClientOptions};
use pi_conformance::load::{self, Loaded};
use pi_conformance::output::{self, Emit, Format, Progress};
use pi_conformance::release::Version;
use pi_conformance::report::Judged;
use pi_conformance::run::{Mode, RunOptions};
use pi_conformance::{report, suite};

/// Runs YAML conformance scenarios against pi's RPC mode: ours, the reference, or any command.
#[derive(Debug, Parser)]
#[command(name = "pi-conformance", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run scenarios against an agent and report a verdict for each.
    Run(RunArgs),
    /// Run the same steps against two agents and compare their normalised streams.
    Diff {
        #[command(flatten)]
        select: Select,
        /// The first agent.
        #[arg(long, default_value = "ours")]
        agent: String,
        /// The second agent.
        #[arg(long, default_value = "reference")]
        against: String,
        /// Scenarios run at once.
        #[arg(long, short = 'j', default_value_t = suite::default_jobs())]
        jobs: usize,
    },
    /// Run against an agent (usually the reference) and write the records it sent as the
    /// scenario's expectations, volatile values replaced by placeholders, for review.
    Record {
        #[command(flatten)]
        select: Select,
        /// The agent to record.
        #[arg(long, default_value = "reference")]
        agent: String,
        /// Overwrite the scenario files instead of writing `<name>.recorded.yaml` beside them.
        #[arg(long)]
        write: bool,
    },
    /// Run the corpus against several agents in turn and report each one's wall time.
    Bench {
        #[command(flatten)]
        select: Select,
        /// Agents to time (repeatable; default: ours and reference).
        #[arg(long)]
        agent: Vec<String>,
        /// Scenarios run at once.
        #[arg(long, short = 'j', default_value_t = suite::default_jobs())]
        jobs: usize,
    },
    /// List the scenarios found.
    List {
        #[command(flatten)]
        select: Select,
    },
    /// Write the HTML and Markdown matrix (scenario by agent) from the results in an output folder.
    Report {
        /// The output folder of earlier runs.
        #[arg(long, default_value = "conformance-out")]
        out: PathBuf,
    },
    /// Print or write the protocol's JSON Schema of a release (`--scenario`: the scenario
    /// format's).
    Schema(pi_conformance::schema::cli::SchemaArgs),
    /// Check JSONL (commands, records or session lines) against a release's schema.
    Validate(pi_conformance::schema::cli::ValidateArgs),
    /// Stand in for an agent to validate an RPC client: run the scenario against an agent, then
    /// answer the client on stdin/stdout with that transcript, checking its commands.
    StandIn(StandInArgs),
    /// Validate RPC clients: for each client scenario, play the agent for the client's adapter
    /// and check what the client sends and what it surfaces.
    Client(ClientArgs),
    /// The agent process a client under test starts in `client` mode (internal).
    #[command(hide = true)]
    Relay {
        /// The runner's address.
        address: String,
        /// The session's token.
        token: String,
        /// pi's own flags, ignored.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        ignored: Vec<String>,
    },
}

#[derive(Debug, Args)]
struct ClientArgs {
    #[command(flatten)]
    select: Select,
    /// The adapter's command line, split like a shell does (repeatable: several clients are run
    /// against the same transcripts).
    #[arg(long = "client", required = true)]
    clients: Vec<String>,
    /// A name for each `--client`, in order, for reports, transcripts and baselines
    /// (`client-NAME.txt`); default `client`, `client-2`, ...
    #[arg(long = "name")]
    names: Vec<String>,
    /// Where the transcripts come from: `ours`, `reference`, or a whole command line.
    #[arg(long, default_value = "ours")]
    agent: String,
    #[command(flatten)]
    report: Reporting,
    /// Folder of the expected-failure baselines, `client-NAME.txt` each.
    #[arg(long, default_value = "conformance/baselines")]
    baselines: PathBuf,
}

#[derive(Debug, Args)]
struct StandInArgs {
    /// The scenario file.
    scenario: PathBuf,
    /// Where the transcript comes from: `ours`, `reference`, or a whole command line.
    #[arg(long, default_value = "ours")]
    agent: String,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// `none`: a step's lines all at once; `recorded`: each line as long after the client's
    /// command as it came after the runner's in the recorded run.
    #[arg(long, default_value = "none")]
    timing: pi_conformance::standin::Timing,
    /// After the last step, go on answering until stdin ends: a command equal to one of the
    /// scenario's `send` commands is answered again as that step was, anything else with
    /// `success: false`.
    #[arg(long)]
    keep_open: bool,
    /// pi's own flags (`--mode rpc` ...), accepted after `--` and ignored.
    #[arg(last = true)]
    ignored: Vec<String>,
}

/// Which scenarios.
#[derive(Debug, Args)]
struct Select {
    /// Scenario files or folders.
    #[arg(default_value = "scenarios")]
    paths: Vec<PathBuf>,
    /// Keep scenarios whose id or title contains this text, `tag:NAME`, or `area:PREFIX`.
    #[arg(long, short = 'f')]
    filter: Vec<String>,
    /// Run only shard K of N (1-based), for CI matrices.
    #[arg(long)]
    shard: Option<String>,
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    select: Select,
    /// `ours`, `reference`, `ours@RELEASE`, `reference@RELEASE` (such as `reference@1.6.0`), or
    /// a whole command line.
    #[arg(long, default_value = "ours")]
    agent: String,
    /// The release of pi's RPC protocol the agent speaks, for a command line (or for `ours` and
    /// `reference` without `@RELEASE`); default: the release the workspace follows.
    #[arg(long, value_name = "RELEASE")]
    release: Option<Version>,
    /// Also run the scenarios whose `releases` exclude the agent's release: they must fail there
    /// (one that passes has too narrow a range, and fails the run).
    #[arg(long)]
    outside: bool,
    /// Only the scenarios that change at the agent's release or at the next known release (a
    /// bound of their `releases`, a `$since` variant, or a change they name): with `--outside`,
    /// what proves each change's boundary on the two releases around it.
    #[arg(long)]
    at_bounds: bool,
    /// Do not check the records and commands against the release's JSON Schema (for an agent
    /// that is not a pi implementation, such as an echo; a port should keep the check).
    #[arg(long)]
    no_schema: bool,
    #[command(flatten)]
    report: Reporting,
    /// Expected-failure baseline (default: conformance/baselines/<agent>@<release>.txt, else
    /// <agent>.txt, when it exists).
    #[arg(long)]
    baseline: Option<PathBuf>,
}

/// How a judging run (`run`, `client`) works and reports.
#[derive(Debug, Args)]
struct Reporting {
    /// Scenarios run at once.
    #[arg(long, short = 'j', default_value_t = suite::default_jobs())]
    jobs: usize,
    /// Output on stdout (json and junit with several clients: one document each, in order).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Folder for transcripts and results.
    #[arg(long, default_value = "conformance-out")]
    out: PathBuf,
    /// Rewrite the baseline(s) from this run's failures (keeping existing reasons).
    #[arg(long)]
    update_baseline: bool,
}

impl Reporting {
    /// Where and how the results of a run that took `wall` go, compared with `baseline_path`.
    fn emit<'a>(&'a self, baseline_path: &'a Path, wall: std::time::Duration) -> Emit<'a> {
        Emit {
            out: &self.out,
            format: self.format,
            baseline_path,
            update_baseline: self.update_baseline,
            rewrite_path: None,
            wall,
            jobs: self.jobs,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Relay { address, token, .. } = &cli.command {
        std::process::exit(pi_conformance::client::relay::main(address, token));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

async fn dispatch(command: Command) -> anyhow::Result<bool> {
    match command {
        Command::Run(args) => run(args).await,
        Command::Diff {
            select,
            agent,
            against,
            jobs,
        } => diff(&select, &agent, &against, jobs).await,
        Command::Record {
            select,
            agent,
            write,
        } => record(&select, &agent, write).await,
        Command::Bench {
            select,
            agent,
            jobs,
        } => bench(&select, agent, jobs).await,
        Command::List { select } => {
            for loaded in select_scenarios(&select)? {
                println!(
                    "{}\t{}\t{}",
                    loaded.scenario.id,
                    loaded.file.display(),
                    loaded.scenario.title
                );
            }
            Ok(true)
        }
        Command::Report { out } => write_report(&out),
        Command::StandIn(args) => stand_in(args).await,
        Command::Client(args) => client(args).await,
        Command::Relay { .. } => Ok(true),
        Command::Schema(args) => Ok(pi_conformance::schema::cli::schema(&args)?),
        Command::Validate(args) => Ok(pi_conformance::schema::cli::validate(&args)?),
    }
}

/// Loads and selects scenarios; any malformed file stops everything before anything runs.
fn select_scenarios(select: &Select) -> anyhow::Result<Vec<Loaded>> {
    let files = load::discover(&select.paths)?;
    let (loaded, errors) = load::load_all(&files);
    if !errors.is_empty() {
        for err in &errors {
            eprintln!("{err}");
        }
        bail!(
            "{} malformed scenario file(s); nothing was run",
            errors.len()
        );
    }
    let shard = select
        .shard
        .as_deref()
        .map(load::parse_shard)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut selected: Vec<Loaded> = loaded
        .into_iter()
        .filter(|l| load::matches_filter(&l.scenario, &select.filter))
        .collect();
    selected.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
    Ok(selected
        .into_iter()
        .enumerate()
        .filter(|(i, _)| load::in_shard(*i, shard))
        .map(|(_, l)| l)
        .collect())
}

async fn run(args: RunArgs) -> anyhow::Result<bool> {
    let mut scenarios = select_scenarios(&args.select)?;
    let agent = AgentCommand::resolve_at(&args.agent, args.release)?;
    if args.at_bounds {
        let registry = pi_conformance::release::registry().map_err(anyhow::Error::msg)?;
        let next = registry
            .versions()
            .into_iter()
            .find(|version| *version > agent.release);
        scenarios.retain(|loaded| {
            pi_conformance::release::bounds(&loaded.scenario, registry)
                .iter()
                .any(|bound| *bound == agent.release || Some(*bound) == next)
        });
    }
    let baseline_path = args
        .baseline
        .clone()
        .unwrap_or_else(|| baseline::default_path(Path::new("conformance/baselines"), &agent));
    let started = std::time::Instant::now();
    let mut progress = Progress::new();
    let defaults = RunOptions::new(Mode::Judge);
    let options = RunOptions {
        outside: args.outside,
        check_schema: defaults.check_schema && !args.no_schema,
        ..defaults
    };
    let outcomes = suite::run_all(&scenarios, &agent, options, args.report.jobs, |o, d, t| {
        progress.update(o, d, t)
    })
    .await;
    let mut emit = args.report.emit(&baseline_path, started.elapsed());
    // A release's own failures go to its own file, not to the agent's shared one.
    let default = pi_conformance::release::registry().map(|r| r.default).ok();
    if args.baseline.is_none() && default != Some(agent.release) {
        emit.rewrite_path =
            Some(Path::new("conformance/baselines").join(format!("{}.txt", agent.label())));
    }
    Ok(output::emit(&emit, &Judged::agent(&agent), &outcomes)?)
}

async fn client(args: ClientArgs) -> anyhow::Result<bool> {
    let scenarios: Vec<Loaded> = select_scenarios(&args.select)?
        .into_iter()
        .filter(|l| l.scenario.client.is_some())
        .collect();
    if scenarios.is_empty() {
        bail!("no client scenario (a scenario with a `client` block) was selected");
    }
    let agent = AgentCommand::resolve(&args.agent)?;
    let mut clients = Vec::new();
    for (i, line) in args.clients.iter().enumerate() {
        let name = args.names.get(i).cloned().unwrap_or_else(|| match i {
            0 => "client".to_owned(),
            _ => format!("client-{}", i + 1),
        });
        if clients.iter().any(|c: &ClientCommand| c.name == name) {
            bail!("two clients are named {name:?}: give each --client its own --name");
        }
        clients.push(ClientCommand::parse(&name, line)?);
    }
    let options = ClientOptions {
        relay: std::env::current_exe().context("finding the runner's own executable")?,
        run: RunOptions::new(Mode::Judge),
    };
    let started = std::time::Instant::now();
    let mut progress = Progress::new();
    let results = pi_conformance::client::run_all(
        &scenarios,
        &agent,
        &clients,
        &options,
        args.report.jobs,
        |o, d, t| progress.update(o, d, t),
    )
    .await;
    let mut ok = true;
    for (client, outcomes) in clients.iter().zip(&results) {
        if clients.len() > 1 && args.report.format == Format::Text {
            println!("\n=== client {}", client.name);
        }
        let baseline_path = args.baselines.join(format!("client-{}.txt", client.name));
        let emit = args.report.emit(&baseline_path, started.elapsed());
        let judged = Judged::client(&client.name, agent.release);
        ok &= output::emit(&emit, &judged, outcomes)?;
    }
    Ok(ok)
}

async fn diff(select: &Select, left: &str, right: &str, jobs: usize) -> anyhow::Result<bool> {
    let scenarios = select_scenarios(select)?;
    let a = AgentCommand::resolve(left)?;
    let mut b = AgentCommand::resolve(right)?;
    if a.name == b.name {
        b.name = format!("{}-2", b.name);
    }
    let first = suite::run_all(
        &scenarios,
        &a,
        RunOptions::new(Mode::Collect),
        jobs,
        |_, _, _| {},
    )
    .await;
    let second = suite::run_all(
        &scenarios,
        &b,
        RunOptions::new(Mode::Collect),
        jobs,
        |_, _, _| {},
    )
    .await;
    let mut same = true;
    for (x, y) in first.iter().zip(&second) {
        let left = serde_json::to_string_pretty(&x.collected).unwrap_or_default() + "\n";
        let right = serde_json::to_string_pretty(&y.collected).unwrap_or_default() + "\n";
        if left == right && x.verdict == y.verdict {
            println!("{}: same", x.id);
            continue;
        }
        same = false;
        println!("{}: differs", x.id);
        if x.verdict != y.verdict {
            println!("  {}: {} {}", a.name, x.verdict.word(), x.message);
            println!("  {}: {} {}", b.name, y.verdict.word(), y.message);
        }
        let text = similar::TextDiff::from_lines(&left, &right)
            .unified_diff()
            .header(&a.name, &b.name)
            .to_string();
        println!("{text}");
    }
    Ok(same)
}

async fn record(select: &Select, agent: &str, write: bool) -> anyhow::Result<bool> {
    let scenarios = select_scenarios(select)?;
    let agent = AgentCommand::resolve(agent)?;
    let outcomes = suite::run_all(
        &scenarios,
        &agent,
        RunOptions::new(Mode::Collect),
        1,
        |_, _, _| {},
    )
    .await;
    for (loaded, outcome) in scenarios.iter().zip(&outcomes) {
        let text = pi_conformance::record::rewrite(loaded, &outcome.collected)?;
        let target = if write {
            loaded.file.clone()
        } else {
            loaded.file.with_extension("recorded.yaml")
        };
        std::fs::write(&target, text).with_context(|| format!("writing {}", target.display()))?;
        eprintln!(
            "{}: {} -> {} (review before committing)",
            outcome.id,
            outcome.verdict.word(),
            target.display()
        );
    }
    Ok(true)
}

fn write_report(out: &Path) -> anyhow::Result<bool> {
    let mut cells = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("reading {}", out.display()))? {
        let results = entry?.path().join("results.json");
        if results.is_file() {
            let text = std::fs::read_to_string(&results)?;
            cells.extend(
                report::cells_from_json(&text)
                    .with_context(|| format!("reading {}", results.display()))?,
            );
        }
    }
    if cells.is_empty() {
        bail!(
            "no results.json under {}: run `pi-conformance run` first",
            out.display()
        );
    }
    std::fs::write(
        out.join("compatibility.md"),
        report::compatibility::markdown(&cells),
    )?;
    let matrix = report::Matrix::new(cells);
    std::fs::write(out.join("index.html"), matrix.html())?;
    std::fs::write(out.join("report.md"), matrix.markdown())?;
    println!("{}", out.join("index.html").display());
    println!("{}", out.join("report.md").display());
    println!("{}", out.join("compatibility.md").display());
    Ok(true)
}

async fn bench(select: &Select, agents: Vec<String>, jobs: usize) -> anyhow::Result<bool> {
    let scenarios = select_scenarios(select)?;
    let agents = if agents.is_empty() {
        vec!["ours".to_owned(), "reference".to_owned()]
    } else {
        agents
    };
    println!(
        "{:12}  {:>9}  {:>8}  {:>8}  verdicts",
        "agent", "scenarios", "wall", "mean"
    );
    for spec in agents {
        let agent = match AgentCommand::resolve(&spec) {
            Ok(agent) => agent,
            Err(err) => {
                println!("{spec:12}  skipped: {err}");
                continue;
            }
        };
        let started = std::time::Instant::now();
        let outcomes = suite::run_all(
            &scenarios,
            &agent,
            RunOptions::new(Mode::Judge),
            jobs,
            |_, _, _| {},
        )
        .await;
        let wall = started.elapsed().as_secs_f64();
        let mean = outcomes
            .iter()
            .map(|o| o.duration.as_secs_f64())
            .sum::<f64>()
            / outcomes.len().max(1) as f64;
        println!(
            "{:12}  {:>9}  {:>7.1}s  {:>7.2}s  {}",
            agent.name,
            outcomes.len(),
            wall,
            mean,
            report::counts(&outcomes)
        );
    }
    println!("jobs: {jobs}");
    Ok(true)
}

async fn stand_in(args: StandInArgs) -> anyhow::Result<bool> {
    let loaded = load::load(&args.scenario).map_err(|e| anyhow::anyhow!("{e}"))?;
    pi_conformance::standin::Script::check(&loaded.scenario)?;
    let agent = AgentCommand::resolve(&args.agent)?;
    let outcome =
        pi_conformance::run::run_scenario(&loaded, &agent, RunOptions::new(Mode::Judge)).await;
    let script = pi_conformance::standin::Script::from_outcome(&loaded.scenario, &outcome)?;
    let input = tokio::io::BufReader::new(tokio::io::stdin());
    let options = pi_conformance::standin::ServeOptions {
        timing: args.timing,
        keep_open: args.keep_open,
    };
    let report = pi_conformance::standin::serve(&script, input, tokio::io::stdout(), options)
        .await
        .context("talking to the client")?;
    eprint!("{}", report.text());
    if let Some(path) = &args.report {
        let text = serde_json::to_string_pretty(&report)? + "\n";
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(report.passed)
}
