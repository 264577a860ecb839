//! Start-up with TypeScript extensions, ours and the reference side by side in one run: spawn
//! to the first `get_state` response with one extension and with ten, each importing values
//! of pi's packages as pi's own examples do (`Type` of typebox, `StringEnum` of pi-ai,
//! `defineTool` and `truncateHead` of pi-coding-agent, `Text` of pi-tui) and registering a
//! command and a tool. pi-agent is measured on every Node.js here that runs extensions (`node`
//! on `PATH`, the reference install's Node 22), since its host's loader differs between them.
//!
//! Ignored by default. Run it with an optimised build:
//! `cargo test --release -p pi-agent --test bench_extensions_startup -- --ignored --nocapture`.

mod bench_support;
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use bench_support::{median, ms};
use serde_json::json;
use support::{DEFAULT_ARGS, TestEnv, mock};

const STARTS: usize = 7;

/// Extension number `n`, as pi's examples write them.
fn extension(n: usize) -> String {
    format!(
        r#"import type {{ ExtensionAPI }} from "@earendil-works/pi-coding-agent";
import {{ defineTool, truncateHead }} from "@earendil-works/pi-coding-agent";
import {{ StringEnum }} from "@earendil-works/pi-ai";
import {{ Text }} from "@earendil-works/pi-tui";
import {{ Type }} from "typebox";

const tool = defineTool({{
	name: "tool_{n}",
	label: "Tool {n}",
	description: "Echoes its text, cut to its limit",
	parameters: Type.Object({{
		text: Type.String({{ description: "What to echo" }}),
		mode: StringEnum(["plain", "loud"] as const),
		limit: Type.Optional(Type.Number()),
	}}),
	async execute(_id, params) {{
		const text = truncateHead(params.text, {{ maxLines: params.limit ?? 10 }}).content;
		return {{ content: [{{ type: "text", text: params.mode === "loud" ? text.toUpperCase() : text }}], details: {{}} }};
	}},
}});

export default function (pi: ExtensionAPI) {{
	pi.registerTool(tool);
	pi.registerCommand("ext-{n}", {{
		description: new Text("command {n}").render(40).join(""),
		handler: async () => {{}},
	}});
}}
"#
    )
}

/// The median time from spawn to the first `get_state` answer of `program` with `count`
/// extensions (`node`: the Node.js pi-agent runs them with).
async fn start_up(program: &Path, count: usize, node: Option<&Path>) -> Result<Duration> {
    let server = mock("responses:\n  - text: done\n").await?;
    let env = TestEnv::new(&server.uri())?;
    let mut args: Vec<String> = DEFAULT_ARGS.iter().map(|arg| (*arg).to_owned()).collect();
    for n in 0..count {
        let name = format!("ext_{n}.ts");
        support::write_file(&env.work_dir(), &name, &extension(n))?;
        args.extend([
            "-e".to_owned(),
            env.work_dir().join(name).display().to_string(),
        ]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let vars: Vec<(&str, &Path)> = node
        .map(|node| ("PI_AGENT_NODE", node))
        .into_iter()
        .collect();
    let mut times = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let started = Instant::now();
        let mut agent = env.spawn_program_with_env(program, &args, &vars)?;
        agent.timeout = Duration::from_secs(120);
        let state = agent.request(json!({"type": "get_state"})).await?;
        times.push(started.elapsed());
        anyhow::ensure!(state["success"] == true, "{state}");
        agent.close_stdin();
        agent.wait_exit().await?;
    }
    Ok(median(&times))
}

/// The Node.js executables here that run pi-agent's extensions, with their versions.
fn nodes() -> Vec<(PathBuf, String)> {
    let candidates = [
        Some(PathBuf::from("node")),
        pi_reference::launcher_path().and_then(|launcher| pi_reference::bundled_node(&launcher)),
    ];
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    for node in candidates.into_iter().flatten() {
        let Some(version) = pi_reference::node_version(&node) else {
            continue;
        };
        let label = format!("{}.{}", version.0, version.1);
        if pi_reference::runs_extensions(version) && !found.iter().any(|(_, seen)| *seen == label) {
            found.push((node, label));
        }
    }
    found
}

#[tokio::test]
#[ignore = "a benchmark: run with --ignored --nocapture on an optimised build"]
async fn start_up_with_typescript_extensions_side_by_side() -> Result<()> {
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_pi-agent"));
    println!("| implementation | 1 extension | 10 extensions |");
    println!("|---|---|---|");
    for (node, version) in nodes() {
        let one = start_up(&ours, 1, Some(&node)).await?;
        let ten = start_up(&ours, 10, Some(&node)).await?;
        println!("| pi-agent, Node {version} | {} | {} |", ms(one), ms(ten));
    }
    match pi_reference::launcher() {
        Some(reference) => {
            let one = start_up(&reference, 1, None).await?;
            let ten = start_up(&reference, 10, None).await?;
            println!("| reference | {} | {} |", ms(one), ms(ten));
        }
        None => println!("reference pi not found (set PI_REFERENCE); pi-agent only"),
    }
    Ok(())
}
