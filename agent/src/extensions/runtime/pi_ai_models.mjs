// pi-ai's models: the built-in catalogue reads (getModel & co), cost and thinking-level helpers,
// and the pieces of the Models api that extensions build on (createProvider, stores, auth).
//
// The catalogue: pi ships a generated model list; pi-agent's lives in Rust. These functions read
// the models the host lists (`host.models`, an array of pi Model objects) and see no models
// when there is no host.

import { ModelsError } from "./pi_ai_auth.mjs";
import { lazyStream } from "./pi_ai_stream.mjs";
import { piHost } from "./pi_runtime_host.mjs";

function catalogue() {
	const models = piHost()?.models;
	return Array.isArray(models) ? models : [];
}

/** The catalogue model `modelId` of `provider`, or undefined. */
export function getModel(provider, modelId) {
	return catalogue().find((model) => model.provider === provider && model.id === modelId);
}

/** The catalogue's models of `provider` ([] for an unknown one). */
export function getModels(provider) {
	return catalogue().filter((model) => model.provider === provider);
}

/** The catalogue's provider ids, in the order their first model appears. */
export function getProviders() {
	return [...new Set(catalogue().map((model) => model.provider))];
}

export function hasApi(model, api) {
	return model.api === api;
}

export function modelsAreEqual(a, b) {
	if (!a || !b) return false;
	return a.id === b.id && a.provider === b.provider;
}

/**
 * Fills `usage.cost` from the model's prices (per million tokens) and returns it. A price tier
 * applies once the input (with cache reads and writes) exceeds its threshold; one-hour cache
 * writes cost twice the input price.
 */
export function calculateCost(model, usage) {
	const inputTokens = usage.input + usage.cacheRead + usage.cacheWrite;
	let rates = model.cost;
	let threshold = -1;
	for (const tier of model.cost.tiers ?? []) {
		if (inputTokens > tier.inputTokensAbove && tier.inputTokensAbove > threshold) {
			rates = tier;
			threshold = tier.inputTokensAbove;
		}
	}
	const hourWrites = usage.cacheWrite1h ?? 0;
	const cost = usage.cost;
	cost.input = (rates.input / 1000000) * usage.input;
	cost.output = (rates.output / 1000000) * usage.output;
	cost.cacheRead = (rates.cacheRead / 1000000) * usage.cacheRead;
	cost.cacheWrite = (rates.cacheWrite * (usage.cacheWrite - hourWrites) + rates.input * 2 * hourWrites) / 1000000;
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return cost;
}

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/** The thinking levels a model takes: "off" only without reasoning; xhigh/max only if mapped. */
export function getSupportedThinkingLevels(model) {
	if (!model.reasoning) return ["off"];
	return THINKING_LEVELS.filter((level) => {
		const mapped = model.thinkingLevelMap?.[level];
		if (mapped === null) return false;
		return level === "xhigh" || level === "max" ? mapped !== undefined : true;
	});
}

/** `level` if supported, else the nearest supported one above it, else below it. */
export function clampThinkingLevel(model, level) {
	const supported = getSupportedThinkingLevels(model);
	if (supported.includes(level)) return level;
	const index = THINKING_LEVELS.indexOf(level);
	if (index !== -1) {
		const above = THINKING_LEVELS.slice(index + 1).find((l) => supported.includes(l));
		if (above) return above;
		const below = THINKING_LEVELS.slice(0, index)
			.reverse()
			.find((l) => supported.includes(l));
		if (below) return below;
	}
	return supported[0] ?? "off";
}

// ---- providers ----

/**
 * A provider from parts: `api` is one stream implementation for all its models, or a map from
 * api name to one; `fetchModels` (optional) lists models at refresh, merged over `models`.
 */
export function createProvider(input) {
	let fetched = [];
	const currentModels = () => {
		const merged = [...input.models];
		for (const model of fetched) {
			const index = merged.findIndex((entry) => entry.id === model.id);
			if (index >= 0) merged[index] = model;
			else merged.push(model);
		}
		return merged;
	};
	const single = typeof input.api.stream === "function" ? input.api : undefined;
	const implFor = (model) => single ?? input.api[model.api];
	const dispatch = (model, run) => {
		const impl = implFor(model);
		if (impl) return run(impl);
		return lazyStream(model, async () => {
			throw new ModelsError("stream", `Provider ${input.id} has no API implementation for "${model.api}"`);
		});
	};
	const provider = {
		id: input.id,
		name: input.name ?? input.id,
		baseUrl: input.baseUrl,
		headers: input.headers,
		auth: input.auth,
		getModels: currentModels,
		refreshModels: input.fetchModels
			? async (context) => {
					if (context.stored) {
						const restored = context.stored.models.filter((model) => model.provider === input.id);
						if (!(await context.publish({ update: () => (fetched = restored) }))) return;
					}
					if (!context.allowNetwork || context.signal.aborted) return;
					const refreshed = await input.fetchModels(context);
					if (context.signal.aborted) return;
					await context.publish({
						persist: { models: refreshed, checkedAt: Date.now() },
						update: () => (fetched = refreshed),
					});
				}
			: undefined,
		filterModels: input.filterModels,
		stream: (model, context, options) => dispatch(model, (impl) => impl.stream(model, context, options)),
		streamSimple: (model, context, options) =>
			dispatch(model, (impl) => impl.streamSimple(model, context, options)),
	};
	const impls = single ? [single] : Object.values(input.api).filter(Boolean);
	if (impls.some((impl) => impl.fetchDeferred)) {
		provider.fetchDeferred = (model, handle, options) =>
			lazyStream(model, async () => {
				const impl = implFor(model);
				if (!impl?.fetchDeferred) {
					throw new ModelsError(
						"provider",
						`Provider ${input.id} does not support deferred responses for "${model.api}"`,
					);
				}
				return impl.fetchDeferred(model, handle, options);
			});
	}
	if (impls.some((impl) => impl.cancelDeferred)) {
		provider.cancelDeferred = async (model, handle, options) => {
			const impl = implFor(model);
			if (!impl?.cancelDeferred) {
				throw new ModelsError(
					"provider",
					`Provider ${input.id} cannot cancel deferred responses for "${model.api}"`,
				);
			}
			await impl.cancelDeferred(model, handle, options);
		};
	}
	return provider;
}

export { createModels } from "./pi_ai_models_collection.mjs";
