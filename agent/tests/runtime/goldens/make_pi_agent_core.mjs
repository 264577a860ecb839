// Writes pi_agent_core.json: the pi_agent_core cases run against the reference's
// `@earendil-works/pi-agent-core` entry.
import { piAgentCoreCases } from "../pi_agent_core_cases.mjs";
import { importReference, writeGolden } from "./reference.mjs";

const core = await importReference("@earendil-works/pi-agent-core/dist/index.js");
writeGolden("pi_agent_core", { cases: await piAgentCoreCases(core) });
