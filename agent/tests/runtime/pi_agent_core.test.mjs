// pi-agent's pi-agent-core runtime module against goldens from the reference
// (goldens/make_pi_agent_core.mjs), and its unsupported parts.

import assert from "node:assert/strict";
import { test } from "node:test";
import * as core from "../../src/extensions/runtime/pi_agent_core.mjs";
import { compareCases, readGolden } from "./golden_suite.mjs";
import { piAgentCoreCases } from "./pi_agent_core_cases.mjs";

compareCases("pi-agent-core", readGolden("pi_agent_core").cases, piAgentCoreCases(core));

test("the agent, its loops and stores bind and throw not supported", () => {
	assert.throws(() => new core.Agent({}), /Agent is not supported by pi-agent yet/);
	assert.throws(() => new core.AgentHarness({}), /AgentHarness is not supported by pi-agent yet/);
	assert.throws(() => core.agentLoop([], {}, {}), /agentLoop is not supported by pi-agent yet/);
	assert.throws(() => core.compact({}, {}, {}), /compact is not supported by pi-agent yet/);
});

test("telemetry schemas are data pi-agent does not provide: reading them throws", async () => {
	assert.throws(() => core.AI_TELEMETRY_SCHEMA.version, /AI_TELEMETRY_SCHEMA is not supported by pi-agent yet/);
	assert.throws(() => Object.keys(core.AGENT_TELEMETRY_SCHEMAS), /AGENT_TELEMETRY_SCHEMAS is not supported/);
	// Awaiting one (or a namespace holding it) does not throw.
	assert.equal(core.HARNESS_TELEMETRY_SCHEMA.then, undefined);
});
