// pi-agent's `@earendil-works/pi-ai/providers/all` for extensions: the built-in catalogue and
// providers. pi generates its catalogue; pi-agent's is the agent's (`host.models`, empty without
// a host). A built-in provider's streams are the agent's calls (`host.complete`), its auth the
// provider's api-key environment variables. Image providers and the Radius provider are not
// supported yet.

import { envApiKeyAuth } from "./pi_ai_auth.mjs";
import { keyVariables } from "./pi_ai_env.mjs";
import { createModels, createProvider, getModel, getModels, getProviders } from "./pi_ai_models.mjs";
import { openAICompletionsApi } from "./pi_ai_stream.mjs";
import { notSupported, piHost } from "./pi_runtime_host.mjs";

export const getBuiltinModel = (provider, modelId) => getModel(provider, modelId);
export const getBuiltinModels = (provider) => getModels(provider);
export const getBuiltinProviders = () => getProviders();

/** When the host's catalogue was generated (`host.modelDataGeneratedAt`), as epoch ms. */
export function getBuiltinModelDataGeneratedAt() {
	const generatedAt = Date.parse(piHost()?.modelDataGeneratedAt ?? "");
	return Number.isNaN(generatedAt) ? undefined : generatedAt;
}

/** One provider per provider of the catalogue, freshly constructed. */
export function builtinProviders() {
	return getProviders().map((id) =>
		createProvider({
			id,
			models: getModels(id),
			// Any api of the host: each one's calls go to host.complete with the model as is.
			api: openAICompletionsApi(),
			auth: { apiKey: envApiKeyAuth(id, keyVariables(id) ?? []) },
		}),
	);
}

export function builtinModels(options) {
	const models = createModels(options);
	for (const provider of builtinProviders()) models.setProvider(provider);
	return models;
}

export const builtinImagesProviders = notSupported("builtinImagesProviders");
export const builtinImagesModels = notSupported("builtinImagesModels");
export const radiusProvider = notSupported("radiusProvider");
