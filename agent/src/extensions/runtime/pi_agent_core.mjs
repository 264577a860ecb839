// pi-agent-core for extensions: every name of pi's entry. Results, errors, messages, the session
// context, token estimates, truncation, prompt and skill formatting are real; the agent itself
// (Agent, the loops, the harness, session stores, summaries by a model, tools over an
// execution environment, telemetry recording) is pi-agent's Rust agent and not supported here.

import { notSupported, notSupportedClass, notSupportedObject } from "./pi_runtime_host.mjs";

export { uuidv7 } from "./pi_ai_util.mjs";
export { findCutPoint, findTurnStartIndex, prepareCompaction } from "./pi_agent_core_compaction.mjs";
export {
	assertJsonSerializable,
	createScanningSessionSearch,
	getFileSystemResultOrThrow,
} from "./pi_agent_core_session.mjs";
export {
	BranchSummaryError,
	Closed,
	CompactionError,
	ExecutionError,
	FileError,
	HarnessClosed,
	HarnessFault,
	HarnessNotImplemented,
	InvalidLane,
	InvalidMessage,
	LaneBusy,
	LaneExists,
	MissingIdentities,
	NoActiveOperation,
	NoActiveRun,
	NothingToCompact,
	NothingToResume,
	Result,
	SessionError,
	TaggedError,
	UnknownQueueItem,
	UnknownSkill,
	UnknownTarget,
	UnknownTemplate,
	err,
	getOrThrow,
	getOrUndefined,
	matchError,
	ok,
	toError,
} from "./pi_agent_core_errors.mjs";
export {
	NOOP_TELEMETRY_CONTEXT,
	buildContextEntries,
	buildSessionContext,
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
	createTypedSpanStarter,
	defaultContextEntryTransform,
	defineTelemetrySchema,
	estimateContextTokens,
	estimateTokens,
	formatPromptTemplateInvocation,
	formatSkillInvocation,
	formatSkillsForSystemPrompt,
	parseCommandArgs,
	sanitizeBinaryOutput,
	sessionEntryToContextMessages,
	substituteArgs,
} from "./pi_agent_core_harness.mjs";
export {
	BRANCH_SUMMARY_PREFIX,
	BRANCH_SUMMARY_SUFFIX,
	COMPACTION_SUMMARY_PREFIX,
	COMPACTION_SUMMARY_SUFFIX,
	bashExecutionToText,
	convertToLlm,
	serializeConversation,
} from "./pi_coding_agent_messages.mjs";
export {
	DEFAULT_COMPACTION_SETTINGS,
	calculateContextTokens,
	getLastAssistantUsage,
	shouldCompact,
} from "./pi_coding_agent_session.mjs";
export {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	GREP_MAX_LINE_LENGTH,
	formatSize,
	truncateHead,
	truncateLine,
	truncateTail,
} from "./pi_coding_agent_truncate.mjs";

export const AGENT_TELEMETRY_SCHEMAS = notSupportedObject("AGENT_TELEMETRY_SCHEMAS");
export const AI_TELEMETRY_SCHEMA = notSupportedObject("AI_TELEMETRY_SCHEMA");
export const HARNESS_TELEMETRY_SCHEMA = notSupportedObject("HARNESS_TELEMETRY_SCHEMA");

export const Agent = notSupportedClass("Agent");
export const AgentHarness = notSupportedClass("AgentHarness");
export const InMemorySessionRepo = notSupportedClass("InMemorySessionRepo");
export const InMemorySessionStorage = notSupportedClass("InMemorySessionStorage");
export const InMemoryTelemetryContext = notSupportedClass("InMemoryTelemetryContext");
export const JsonlSessionRepo = notSupportedClass("JsonlSessionRepo");
export const Session = notSupportedClass("Session");

export const agentLoop = notSupported("agentLoop");
export const agentLoopContinue = notSupported("agentLoopContinue");
export const collectEntriesForBranchSummary = notSupported("collectEntriesForBranchSummary");
export const compact = notSupported("compact");
export const createBashTool = notSupported("createBashTool");
export const createEditTool = notSupported("createEditTool");
export const createReadTool = notSupported("createReadTool");
export const createWriteTool = notSupported("createWriteTool");
export const executeShellWithCapture = notSupported("executeShellWithCapture");
export const generateBranchSummary = notSupported("generateBranchSummary");
export const generateSummary = notSupported("generateSummary");
export const generateSummaryWithUsage = notSupported("generateSummaryWithUsage");
export const loadPromptTemplates = notSupported("loadPromptTemplates");
export const loadSkills = notSupported("loadSkills");
export const loadSourcedPromptTemplates = notSupported("loadSourcedPromptTemplates");
export const loadSourcedSkills = notSupported("loadSourcedSkills");
export const prepareBranchEntries = notSupported("prepareBranchEntries");
export const runAgentLoop = notSupported("runAgentLoop");
export const runAgentLoopContinue = notSupported("runAgentLoopContinue");
export const setDefaultStreamFn = notSupported("setDefaultStreamFn");
export const startAiSpan = notSupported("startAiSpan");
export const startHarnessSpan = notSupported("startHarnessSpan");
export const streamProxy = notSupported("streamProxy");
