// Writes pi_coding_agent.json: the pi_coding_agent cases run against the reference's
// `@earendil-works/pi-coding-agent` entry.
import { piCodingAgentCases } from "../pi_coding_agent_cases.mjs";
import { importReference, writeGolden } from "./reference.mjs";

const pi = await importReference("@earendil-works/pi-coding-agent/dist/index.js");
writeGolden("pi_coding_agent", { cases: await piCodingAgentCases(pi) });
