// pi-ai's `Models` collection (createModels): providers by id, their models, auth through a
// credential store, refreshing fetched model lists, and streaming through a model's provider.

import {
	InMemoryCredentialStore,
	InMemoryModelsStore,
	ModelsError,
	anySignal,
	defaultProviderAuthContext,
	mergeHeaders,
	operationSignal,
	raceWithAbortSignal,
	resolveProviderAuth,
} from "./pi_ai_auth.mjs";
import { lazyStream } from "./pi_ai_stream.mjs";

class Models {
	providers = new Map();
	refreshes = new Map(); // provider id -> {generation, controller?}

	constructor(options) {
		this.credentials = options?.credentials ?? new InMemoryCredentialStore();
		this.modelsStore = options?.modelsStore ?? new InMemoryModelsStore();
		this.authContext = options?.authContext ?? defaultProviderAuthContext();
	}

	setProvider(provider) {
		this.supersede(provider.id);
		this.providers.set(provider.id, provider);
	}

	deleteProvider(id) {
		this.supersede(id);
		this.providers.delete(id);
	}

	clearProviders() {
		for (const id of new Set([...this.providers.keys(), ...this.refreshes.keys()])) this.supersede(id);
		this.providers.clear();
	}

	getProviders() {
		return [...this.providers.values()];
	}

	getProvider(id) {
		return this.providers.get(id);
	}

	/** A provider's models, or all of them; a provider whose getModels throws has none. */
	getModels(providerId) {
		const entries = providerId !== undefined ? [this.providers.get(providerId)] : [...this.providers.values()];
		return entries.flatMap((entry) => {
			try {
				return entry ? entry.getModels() : [];
			} catch {
				return [];
			}
		});
	}

	getModel(providerId, id) {
		return this.getModels(providerId).find((model) => model.id === id);
	}

	// Ends a provider's refresh under way; its results are no longer published.
	supersede(providerId) {
		const previous = this.refreshes.get(providerId);
		const generation = (previous?.generation ?? 0) + 1;
		this.refreshes.set(providerId, { generation });
		previous?.controller?.abort();
		return generation;
	}

	async readCredential(providerId, signal) {
		try {
			return await this.credentials.read(providerId, { signal });
		} catch (error) {
			throw new ModelsError("auth", `Credential store read failed for ${providerId}`, { cause: error });
		}
	}

	/** Restores stored model lists, then (allowNetwork, default true) fetches fresh ones. */
	async refresh(options = {}) {
		const allowNetwork = options.allowNetwork ?? true;
		const callerSignal = operationSignal(options.signal);
		const errors = new Map();
		if (callerSignal.aborted) return { aborted: true, errors };
		const selected = options.providers ? new Set(options.providers) : undefined;
		const refreshable = this.getProviders().filter((p) => p.refreshModels && (!selected || selected.has(p.id)));
		const all = Promise.all(
			refreshable.map(async (provider) => {
				const generation = this.supersede(provider.id);
				const controller = new AbortController();
				this.refreshes.set(provider.id, { generation, controller });
				const signal = anySignal([callerSignal, controller.signal]);
				const current = () => !signal.aborted && this.refreshes.get(provider.id)?.generation === generation;
				const phase = async (credential, network) => {
					const stored = await this.modelsStore.read(provider.id, { signal });
					await provider.refreshModels({
						credential,
						stored,
						allowNetwork: network,
						force: network ? options.force : undefined,
						signal,
						publish: async (publication) => {
							if (!current()) return false;
							if (publication.persist === null) await this.modelsStore.delete(provider.id, { signal });
							else if (publication.persist !== undefined) {
								await this.modelsStore.write(provider.id, structuredClone(publication.persist), { signal });
							}
							if (!current()) return false;
							publication.update?.();
							return true;
						},
					});
				};
				try {
					await raceWithAbortSignal(
						(async () => {
							const stored = await this.readCredential(provider.id, signal);
							await phase(stored, false);
							if (!allowNetwork || signal.aborted) return;
							const credential = await this.refreshCredential(provider, stored, signal);
							if (credential) await phase(credential, true);
						})(),
						signal,
					);
				} catch (error) {
					if (!signal.aborted) {
						errors.set(
							provider.id,
							error instanceof Error
								? error
								: new ModelsError("model_source", `Model refresh failed for ${provider.id}`, { cause: error }),
						);
					}
				} finally {
					if (this.refreshes.get(provider.id)?.controller === controller) {
						this.refreshes.set(provider.id, { generation });
					}
				}
			}),
		);
		try {
			await raceWithAbortSignal(all, callerSignal);
		} catch (error) {
			if (!callerSignal.aborted) throw error;
		}
		return { aborted: callerSignal.aborted, errors: new Map(errors) };
	}

	async refreshCredential(provider, stored, signal) {
		if (stored?.type === "oauth") {
			const oauth = provider.auth?.oauth;
			if (!oauth) return undefined;
			if (Date.now() < stored.expires) return stored;
			const post = await this.credentials.modify(
				provider.id,
				async (current) =>
					current?.type !== "oauth" || Date.now() < current.expires ? undefined : oauth.refresh(current, signal),
				{ signal },
			);
			return post?.type === "oauth" ? post : undefined;
		}
		const apiKey = provider.auth?.apiKey;
		if (!apiKey) return undefined;
		const credential = stored?.type === "api_key" ? stored : undefined;
		const result = await apiKey.resolve({ ctx: this.authContext, credential, signal });
		return result ? { type: "api_key", key: result.auth.apiKey, env: result.env } : undefined;
	}

	async providerAuthStatus(provider, credential, signal) {
		if (credential?.type === "oauth") return provider.auth?.oauth ? { source: "OAuth", type: "oauth" } : undefined;
		const apiKey = provider.auth?.apiKey;
		if (!apiKey) return undefined;
		if (apiKey.check) {
			try {
				const stored = credential?.type === "api_key" ? credential : undefined;
				return await apiKey.check({ ctx: this.authContext, credential: stored, signal });
			} catch (error) {
				throw new ModelsError("auth", `API key auth check failed for provider ${provider.id}`, { cause: error });
			}
		}
		const resolved = await resolveProviderAuth(provider, this.credentials, this.authContext, { signal });
		return resolved ? { source: resolved.source, type: "api_key" } : undefined;
	}

	checkAuth(providerId, options) {
		const signal = operationSignal(options?.signal);
		const run = async () => {
			signal.throwIfAborted();
			const provider = this.providers.get(providerId);
			if (!provider) return undefined;
			return this.providerAuthStatus(provider, await this.readCredential(providerId, signal), signal);
		};
		return raceWithAbortSignal(run(), signal);
	}

	/** The models of the providers (all, or `providerId`) that have auth. */
	getAvailable(providerId, options) {
		const signal = operationSignal(options?.signal);
		const run = async () => {
			signal.throwIfAborted();
			const providers = providerId ? [this.providers.get(providerId)].filter(Boolean) : this.getProviders();
			const checked = await Promise.all(
				providers.map(async (provider) => {
					const credential = await this.readCredential(provider.id, signal);
					return { provider, credential, auth: await this.providerAuthStatus(provider, credential, signal) };
				}),
			);
			return checked.flatMap(({ provider, credential, auth }) => {
				if (!auth) return [];
				const models = provider.getModels();
				return provider.filterModels?.(models, credential) ?? models;
			});
		};
		return raceWithAbortSignal(run(), signal);
	}

	async getAuth(providerOrModel, overrides) {
		const signal = operationSignal(overrides?.signal);
		const byId = typeof providerOrModel === "string";
		const provider = this.providers.get(byId ? providerOrModel : providerOrModel.provider);
		if (!provider) return undefined;
		const result = await resolveProviderAuth(provider, this.credentials, this.authContext, { ...overrides, signal });
		if (!result || byId || !providerOrModel.headers) return result;
		return { ...result, auth: { ...result.auth, headers: mergeHeaders(result.auth.headers, providerOrModel.headers) } };
	}

	async login(providerId, type, interaction) {
		const signal = operationSignal(interaction.signal);
		signal.throwIfAborted();
		const provider = this.providers.get(providerId);
		if (!provider) throw new ModelsError("provider", `Unknown provider: ${providerId}`);
		const method = type === "oauth" ? provider.auth?.oauth : provider.auth?.apiKey;
		if (!method?.login) throw new ModelsError("auth", `${provider.name} does not support ${type} login`);
		const credential = await raceWithAbortSignal(method.login({ ...interaction, signal }), signal);
		try {
			await this.credentials.modify(providerId, async () => credential, { signal });
		} catch (error) {
			signal.throwIfAborted();
			throw new ModelsError("auth", `Credential store modify failed for ${providerId}`, { cause: error });
		}
		return credential;
	}

	async logout(providerId, options) {
		const signal = operationSignal(options?.signal);
		signal.throwIfAborted();
		try {
			await this.credentials.delete(providerId, { signal });
		} catch (error) {
			signal.throwIfAborted();
			throw new ModelsError("auth", `Credential store delete failed for ${providerId}`, { cause: error });
		}
	}

	requireProvider(model) {
		const provider = this.providers.get(model.provider);
		if (!provider) throw new ModelsError("provider", `Unknown provider: ${model.provider}`);
		return provider;
	}

	// The request's model and options with the provider's auth applied (explicit options win).
	async withAuth(model, options) {
		this.requireProvider(model);
		const resolved = await this.getAuth(model, { apiKey: options?.apiKey, env: options?.env, signal: options?.signal });
		if (!resolved) throw new ModelsError("auth", `Provider is not configured: ${model.provider}`);
		const { auth } = resolved;
		let headers = mergeHeaders(auth.headers, options?.headers);
		if (options?.transformHeaders) headers = await options.transformHeaders(headers ?? {});
		const env = resolved.env || options?.env ? { ...resolved.env, ...options?.env } : undefined;
		const { transformHeaders: _dropped, ...rest } = options ?? {};
		return {
			requestModel: auth.baseUrl ? { ...model, baseUrl: auth.baseUrl } : model,
			requestOptions: { ...rest, apiKey: options?.apiKey ?? auth.apiKey, headers, env },
		};
	}

	stream(model, context, options) {
		return lazyStream(model, async () => {
			const provider = this.requireProvider(model);
			const { requestModel, requestOptions } = await this.withAuth(model, options);
			return provider.stream(requestModel, context, requestOptions);
		});
	}

	async complete(model, context, options) {
		return this.stream(model, context, options).result();
	}

	streamSimple(model, context, options) {
		return lazyStream(model, async () => {
			const provider = this.requireProvider(model);
			const { requestModel, requestOptions } = await this.withAuth(model, options);
			return provider.streamSimple(requestModel, context, requestOptions);
		});
	}

	async completeSimple(model, context, options) {
		return this.streamSimple(model, context, options).result();
	}

	async fetchDeferred(model, handle, options) {
		return lazyStream(model, async () => {
			const provider = this.requireProvider(model);
			if (!provider.fetchDeferred) {
				throw new ModelsError("provider", `Provider ${model.provider} does not support deferred responses`);
			}
			const { requestModel, requestOptions } = await this.withAuth(model, options);
			return provider.fetchDeferred(requestModel, handle, requestOptions);
		}).result();
	}

	async cancelDeferred(model, handle, options) {
		const provider = this.requireProvider(model);
		if (!provider.cancelDeferred) {
			throw new ModelsError("provider", `Provider ${model.provider} does not support deferred responses`);
		}
		const { requestModel, requestOptions } = await this.withAuth(model, options);
		await provider.cancelDeferred(requestModel, handle, requestOptions);
	}
}

/** A Models collection (no providers); options: credentials, modelsStore, authContext. */
export function createModels(options) {
	return new Models(options);
}
