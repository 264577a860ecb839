// The pi-coding-agent exports pi-agent does not implement for extensions (pi's own session,
// runtime, resource loading, CLI and image tooling): they bind, and throw when used.

import { notSupported, notSupportedClass } from "./pi_runtime_host.mjs";

export const AgentSession = notSupportedClass("AgentSession");
export const AgentSessionRuntime = notSupportedClass("AgentSessionRuntime");
export const DefaultPackageManager = notSupportedClass("DefaultPackageManager");
export const DefaultResourceLoader = notSupportedClass("DefaultResourceLoader");
export const ExtensionRunner = notSupportedClass("ExtensionRunner");
export const InteractiveMode = notSupportedClass("InteractiveMode");
export const ModelRegistry = notSupportedClass("ModelRegistry");
export const ModelRuntime = notSupportedClass("ModelRuntime");
export const ProjectTrustStore = notSupportedClass("ProjectTrustStore");
export const RpcClient = notSupportedClass("RpcClient");
export const SessionManager = notSupportedClass("SessionManager");
export const SettingsManager = notSupportedClass("SettingsManager");

export const compact = notSupported("compact");
export const convertToPng = notSupported("convertToPng");
export const copyToClipboard = notSupported("copyToClipboard");
export const createAgentSession = notSupported("createAgentSession");
export const createAgentSessionFromServices = notSupported("createAgentSessionFromServices");
export const createAgentSessionRuntime = notSupported("createAgentSessionRuntime");
export const createAgentSessionServices = notSupported("createAgentSessionServices");
export const createExtensionRuntime = notSupported("createExtensionRuntime");
export const discoverAndLoadExtensions = notSupported("discoverAndLoadExtensions");
export const generateBranchSummary = notSupported("generateBranchSummary");
export const generateSummary = notSupported("generateSummary");
export const generateSummaryWithUsage = notSupported("generateSummaryWithUsage");
export const hasTrustRequiringProjectResources = notSupported("hasTrustRequiringProjectResources");
export const loadProjectContextFiles = notSupported("loadProjectContextFiles");
export const loadSkills = notSupported("loadSkills");
export const loadSkillsFromDir = notSupported("loadSkillsFromDir");
export const main = notSupported("main");
export const parseArgs = notSupported("parseArgs");
export const resizeImage = notSupported("resizeImage");
export const resolveCliModel = notSupported("resolveCliModel");
export const resolveModelScopeWithDiagnostics = notSupported("resolveModelScopeWithDiagnostics");
export const runPrintMode = notSupported("runPrintMode");
export const runRpcMode = notSupported("runRpcMode");
