//! The extension host's module loader on every Node.js this machine has that can run it (`node`
//! on `PATH`, the reference install's Node 22): the in-thread hooks where Node has
//! `module.registerHooks`, the loader thread elsewhere. An extension under `node_modules`
//! loads; its relative imports load afresh on `ctx.reload()`; a TypeScript file imported
//! dynamically, which was not sent ahead, is transpiled on demand.

mod extensions_support;
mod support;

use anyhow::Result;
use serde_json::{Value, json};
use support::TestEnv;

const PROBE: &str = r#"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { generation } from "./lib/counter.js";

export default function probe(pi: ExtensionAPI) {
	pi.registerCommand("probe", {
		description: "reports the generation of its imports",
		handler: async (_args, ctx) => ctx.ui.notify(`generation ${generation}`, "info"),
	});
	pi.registerCommand("fresh", {
		description: "loads the extensions afresh",
		handler: async (_args, ctx) => {
			await ctx.reload();
		},
	});
	pi.registerCommand("late", {
		description: "imports a TypeScript file at run time",
		handler: async (_args, ctx) => {
			const name = "./late";
			const late = await import(`${name}.ts`);
			ctx.ui.notify(late.describe(3), "info");
		},
	});
}
"#;

const COUNTER: &str = "const state = globalThis as { loads?: number };\n\
     state.loads = (state.loads ?? 0) + 1;\n\
     export const generation: number = state.loads;\n";

const LATE: &str = "enum Size { Small = 1, Large = 3 }\n\
     export function describe(size: number): string { return `late ${Size[size]}`; }\n";

/// Runs `/command` and returns the message of the first notice it gives.
async fn notice(agent: &mut support::Agent, id: u64, command: &str) -> Result<String> {
    agent
        .send(json!({"id": id, "type": "prompt", "message": command}))
        .await?;
    let records = agent
        .until(|record| record["method"] == "notify" || record["id"] == id)
        .await?;
    let last: &Value = records.last().unwrap_or(&Value::Null);
    Ok(last["message"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn typescript_loads_from_node_modules_afresh_and_on_demand_on_each_node() -> Result<()> {
    let nodes = extensions_support::all_nodes();
    let Some(_) = pi_reference::or_skip(nodes.first(), "no Node.js that runs extensions") else {
        return Ok(());
    };
    for node in &nodes {
        let env = TestEnv::empty()?;
        let folder = env.work_dir().join("node_modules/probe");
        std::fs::create_dir_all(folder.join("lib"))?;
        support::write_file(&folder, "index.ts", PROBE)?;
        support::write_file(&folder, "lib/counter.ts", COUNTER)?;
        support::write_file(&folder, "late.ts", LATE)?;
        let entry = folder.join("index.ts").display().to_string();
        let mut agent = env.spawn_with_env(&["-e", &entry], &[("PI_AGENT_NODE", node)])?;
        let on = node.display();
        assert_eq!(
            notice(&mut agent, 1, "/probe").await?,
            "generation 1",
            "{on}"
        );
        agent
            .send(json!({"id": 2, "type": "prompt", "message": "/fresh"}))
            .await?;
        agent.until(|record| record["id"] == 2).await?;
        assert_eq!(
            notice(&mut agent, 3, "/probe").await?,
            "generation 2",
            "{on}"
        );
        assert_eq!(notice(&mut agent, 4, "/late").await?, "late Large", "{on}");
    }
    Ok(())
}
