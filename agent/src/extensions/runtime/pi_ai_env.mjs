// pi-ai's environment api keys: which variables hold a provider's key, and reading them.

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const ANTHROPIC_AUTH_TOKEN_ENV = "ANTHROPIC_AUTH_TOKEN";
export const ANTHROPIC_OAUTH_TOKEN_ENV = "ANTHROPIC_OAUTH_TOKEN";
export const ANTHROPIC_API_KEY_ENV = "ANTHROPIC_API_KEY";

/** What getEnvApiKey answers for providers authenticated by ambient credentials. */
const AMBIENT = "<authenticated>";

// One variable per provider, except the two listed in keyVariables().
const KEY_VARIABLE = {
	"ant-ling": "ANT_LING_API_KEY",
	"qwen-token-plan": "QWEN_TOKEN_PLAN_API_KEY",
	"qwen-token-plan-cn": "QWEN_TOKEN_PLAN_CN_API_KEY",
	"qwen-token-plan-individual": "QWEN_TOKEN_PLAN_API_KEY",
	openai: "OPENAI_API_KEY",
	"azure-openai-responses": "AZURE_OPENAI_API_KEY",
	nvidia: "NVIDIA_API_KEY",
	deepseek: "DEEPSEEK_API_KEY",
	google: "GEMINI_API_KEY",
	"google-vertex": "GOOGLE_CLOUD_API_KEY",
	groq: "GROQ_API_KEY",
	cerebras: "CEREBRAS_API_KEY",
	xai: "XAI_API_KEY",
	radius: "RADIUS_API_KEY",
	openrouter: "OPENROUTER_API_KEY",
	"vercel-ai-gateway": "AI_GATEWAY_API_KEY",
	zai: "ZAI_API_KEY",
	"zai-coding-cn": "ZAI_CODING_CN_API_KEY",
	mistral: "MISTRAL_API_KEY",
	minimax: "MINIMAX_API_KEY",
	"minimax-cn": "MINIMAX_CN_API_KEY",
	moonshotai: "MOONSHOT_API_KEY",
	"moonshotai-cn": "MOONSHOT_API_KEY",
	huggingface: "HF_TOKEN",
	fireworks: "FIREWORKS_API_KEY",
	together: "TOGETHER_API_KEY",
	baseten: "BASETEN_API_KEY",
	opencode: "OPENCODE_API_KEY",
	"opencode-go": "OPENCODE_API_KEY",
	"kimi-coding": "KIMI_API_KEY",
	"cloudflare-workers-ai": "CLOUDFLARE_API_KEY",
	"cloudflare-ai-gateway": "CLOUDFLARE_API_KEY",
	xiaomi: "XIAOMI_API_KEY",
	"xiaomi-token-plan-cn": "XIAOMI_TOKEN_PLAN_CN_API_KEY",
	"xiaomi-token-plan-ams": "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
	"xiaomi-token-plan-sgp": "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
};

/** The variables that may hold `provider`'s key, or undefined (not exported by the entry). */
export function keyVariables(provider) {
	if (provider === "github-copilot") return ["COPILOT_GITHUB_TOKEN"];
	// The auth token counts as configured, but is sent as a bearer header, not as the key.
	if (provider === "anthropic") return [ANTHROPIC_AUTH_TOKEN_ENV, ANTHROPIC_OAUTH_TOKEN_ENV, ANTHROPIC_API_KEY_ENV];
	const name = Object.hasOwn(KEY_VARIABLE, provider) ? KEY_VARIABLE[provider] : undefined;
	return name ? [name] : undefined;
}

/** A variable's value: the scoped overrides first, then the process environment. */
function envValue(name, env) {
	return env?.[name] || process.env[name] || undefined;
}

/** The key variables of `provider` that are set, or undefined. */
export function findEnvKeys(provider, env) {
	const names = keyVariables(provider);
	if (!names) return undefined;
	const set = names.filter((name) => !!envValue(name, env));
	return set.length > 0 ? set : undefined;
}

let defaultAdcFileExists = null;
function vertexCredentialsFileExists(env) {
	const explicit = env?.GOOGLE_APPLICATION_CREDENTIALS;
	if (explicit) return existsSync(explicit);
	if (defaultAdcFileExists === null) {
		const path = envValue("GOOGLE_APPLICATION_CREDENTIALS", env);
		defaultAdcFileExists = path
			? existsSync(path)
			: existsSync(join(homedir(), ".config", "gcloud", "application_default_credentials.json"));
	}
	return defaultAdcFileExists;
}

const BEDROCK_CREDENTIAL_SOURCES = [
	["AWS_PROFILE"],
	["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
	["AWS_BEARER_TOKEN_BEDROCK"],
	["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"],
	["AWS_CONTAINER_CREDENTIALS_FULL_URI"],
	["AWS_WEB_IDENTITY_TOKEN_FILE"],
];

/** The api key for `provider` from the environment ("<authenticated>" for ambient credentials). */
export function getEnvApiKey(provider, env) {
	const found = findEnvKeys(provider, env);
	if (found) {
		const name = provider === "anthropic" ? found.find((n) => n !== ANTHROPIC_AUTH_TOKEN_ENV) : found[0];
		if (name) return envValue(name, env);
	}
	if (provider === "google-vertex") {
		const project = envValue("GOOGLE_CLOUD_PROJECT", env) || envValue("GCLOUD_PROJECT", env);
		if (vertexCredentialsFileExists(env) && project && envValue("GOOGLE_CLOUD_LOCATION", env)) return AMBIENT;
	}
	if (provider === "amazon-bedrock") {
		if (BEDROCK_CREDENTIAL_SOURCES.some((names) => names.every((name) => envValue(name, env)))) return AMBIENT;
	}
	return undefined;
}
