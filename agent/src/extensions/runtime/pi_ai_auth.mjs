// pi-ai's provider auth: the error type of the Models api, in-memory credential and model
// stores, the default auth context, api-key and lazy OAuth auth, and resolving a provider's auth.

import { formatThrownValue } from "./pi_ai_util.mjs";

/** A Models-api failure; `code` names its kind ("auth", "provider", "stream", "oauth", …). */
export class ModelsError extends Error {
	code;
	constructor(code, message, options) {
		super(withCause(message, options?.cause), options);
		this.name = "ModelsError";
		this.code = code;
	}
}

// Callers show only the message, so the cause's text goes into it (once).
function withCause(message, cause) {
	if (cause === undefined || cause === null) return message;
	const detail = formatThrownValue(cause).trim();
	return !detail || message.includes(detail) ? message : `${message}: ${detail}`;
}

// ---- abort helpers (not exported by the entry) ----

export function operationSignal(signal) {
	return signal ?? new AbortController().signal;
}

function abortReason(signal) {
	if (signal.reason !== undefined) return signal.reason;
	const error = new Error("The operation was aborted");
	error.name = "AbortError";
	return error;
}

/** `operation`, or a rejection as soon as `signal` aborts (the operation is still observed). */
export function raceWithAbortSignal(operation, signal) {
	if (signal.aborted) {
		operation.catch(() => {});
		return Promise.reject(abortReason(signal));
	}
	return new Promise((resolve, reject) => {
		let settled = false;
		const settle = (fn, value) => {
			if (settled) return;
			settled = true;
			signal.removeEventListener("abort", onAbort);
			fn(value);
		};
		const onAbort = () => settle(reject, abortReason(signal));
		signal.addEventListener("abort", onAbort, { once: true });
		operation.then(
			(value) => settle(resolve, value),
			(error) => settle(reject, error),
		);
	});
}

/** A signal that aborts when any of `signals` does (AbortSignal.any, which Node 18 lacks). */
export function anySignal(signals) {
	if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
	const controller = new AbortController();
	for (const signal of signals) {
		if (signal.aborted) {
			controller.abort(signal.reason);
			break;
		}
		signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
	}
	return controller.signal;
}

export function mergeHeaders(base, override) {
	if (!base && !override) return undefined;
	const merged = { ...base };
	for (const [name, value] of Object.entries(override ?? {})) {
		for (const existing of Object.keys(merged)) {
			if (existing.toLowerCase() === name.toLowerCase()) delete merged[existing];
		}
		merged[name] = value;
	}
	return merged;
}

// ---- stores ----

/** Credentials in memory, one per provider id; changes to one provider run one at a time. */
export class InMemoryCredentialStore {
	credentials = new Map();
	chains = new Map();

	enqueue(providerId, task, options) {
		const signal = operationSignal(options?.signal);
		const previous = this.chains.get(providerId) ?? Promise.resolve();
		const queued = (async () => {
			await previous.catch(() => {});
			signal.throwIfAborted();
			return task();
		})();
		const tail = queued.catch(() => {});
		this.chains.set(providerId, tail);
		tail.then(() => {
			if (this.chains.get(providerId) === tail) this.chains.delete(providerId);
		});
		return raceWithAbortSignal(queued, signal);
	}

	async read(providerId, options) {
		options?.signal?.throwIfAborted();
		return this.credentials.get(providerId);
	}

	async list(options) {
		options?.signal?.throwIfAborted();
		return [...this.credentials].map(([providerId, credential]) => ({ providerId, type: credential.type }));
	}

	/** Stores what `fn(current)` returns (undefined keeps the current one) and returns it. */
	modify(providerId, fn, options) {
		return this.enqueue(
			providerId,
			async () => {
				const current = this.credentials.get(providerId);
				const next = await fn(current);
				options?.signal?.throwIfAborted();
				if (next !== undefined) this.credentials.set(providerId, next);
				return next ?? current;
			},
			options,
		);
	}

	delete(providerId, options) {
		return this.enqueue(providerId, async () => void this.credentials.delete(providerId), options);
	}
}

/** Fetched model lists in memory, by provider id (copies in and out). */
export class InMemoryModelsStore {
	entries = new Map();

	async read(providerId, options) {
		options?.signal?.throwIfAborted();
		const entry = this.entries.get(providerId);
		return entry ? structuredClone(entry) : undefined;
	}

	async write(providerId, entry, options) {
		options?.signal?.throwIfAborted();
		this.entries.set(providerId, structuredClone(entry));
	}

	async delete(providerId, options) {
		options?.signal?.throwIfAborted();
		this.entries.delete(providerId);
	}
}

// ---- auth ----

/** Environment variables from process.env (blank ones unset) and file existence (~ expanded). */
export function defaultProviderAuthContext() {
	return {
		async env(name) {
			const value = globalThis.process?.env?.[name];
			return typeof value === "string" && value.trim().length > 0 ? value : undefined;
		},
		async fileExists(path) {
			try {
				const fs = await import("node:fs/promises");
				const os = await import("node:os");
				await fs.access(path.startsWith("~") ? os.homedir() + path.slice(1) : path);
				return true;
			} catch {
				return false;
			}
		},
	};
}

/** Api-key auth: a stored key first, else the first of `envVars` that is set. */
export function envApiKeyAuth(name, envVars) {
	return {
		name,
		login: async (interaction) => {
			interaction.signal.throwIfAborted();
			const key = await interaction.prompt({ type: "secret", message: `Enter ${name}` });
			interaction.signal.throwIfAborted();
			return { type: "api_key", key };
		},
		resolve: async ({ ctx, credential, signal }) => {
			signal.throwIfAborted();
			if (credential?.key) return { auth: { apiKey: credential.key }, env: credential.env, source: "stored credential" };
			for (const envVar of envVars) {
				const value = await ctx.env(envVar);
				signal.throwIfAborted();
				if (value) return { auth: { apiKey: value }, source: envVar };
			}
			return undefined;
		},
	};
}

/** OAuth auth whose implementation `input.load()` is imported on first use. */
export function lazyOAuth(input) {
	let loading;
	const loaded = () => (loading ??= input.load());
	return {
		name: input.name,
		isSubscription: input.isSubscription,
		loginLabel: input.loginLabel,
		login: async (interaction) => (await loaded()).login(interaction),
		refresh: async (credential, signal) => (await loaded()).refresh(credential, signal),
		toAuth: async (credential) => (await loaded()).toAuth(credential),
	};
}

const OAUTH_MIN_VALIDITY_MS = 5 * 60 * 1000;
const OAUTH_REFRESH_TIMEOUT_MS = 15_000;

async function readCredential(credentials, providerId, signal) {
	try {
		return await credentials.read(providerId, { signal });
	} catch (error) {
		throw new ModelsError("auth", `Credential store read failed for ${providerId}`, { cause: error });
	}
}

async function resolveApiKey(ctx, apiKey, providerId, credential, signal) {
	try {
		return await apiKey.resolve({ ctx, credential, signal });
	} catch (error) {
		throw new ModelsError("auth", `API key auth failed for provider ${providerId}`, { cause: error });
	}
}

// A stored OAuth token that expires within five minutes (or the caller's minimum) is refreshed
// under the store's lock, checked again there, and persisted.
async function resolveStoredOAuth(credentials, providerId, oauth, stored, signal, minValidityMs) {
	const minimum = Math.max(OAUTH_MIN_VALIDITY_MS, minValidityMs ?? 0);
	const expiresSoon = (credential) => Date.now() + minimum >= credential.expires;
	let credential = stored;
	if (expiresSoon(credential)) {
		let refreshed;
		try {
			refreshed = await credentials.modify(
				providerId,
				async (current) => {
					if (current?.type !== "oauth" || !expiresSoon(current)) return undefined;
					try {
						return await oauth.refresh(current, anySignal([signal, AbortSignal.timeout(OAUTH_REFRESH_TIMEOUT_MS)]));
					} catch (error) {
						throw new ModelsError("oauth", `OAuth refresh failed for ${providerId}`, { cause: error });
					}
				},
				{ signal },
			);
		} catch (error) {
			if (error instanceof ModelsError) throw error;
			throw new ModelsError("auth", `Credential store modify failed for ${providerId}`, { cause: error });
		}
		if (refreshed?.type !== "oauth") return undefined;
		credential = refreshed;
		if (minValidityMs !== undefined && expiresSoon(credential)) {
			throw new ModelsError("oauth", `OAuth refresh returned a token that expires too soon for ${providerId}`);
		}
	}
	try {
		return { auth: await oauth.toAuth(credential), source: "OAuth" };
	} catch (error) {
		throw new ModelsError("oauth", `OAuth auth derivation failed for ${providerId}`, { cause: error });
	}
}

/**
 * A provider's auth: an explicit api key override, else its stored credential (which owns the
 * provider: no environment fallback), else ambient credentials (environment variables).
 */
export function resolveProviderAuth(provider, credentials, authContext, overrides) {
	const signal = operationSignal(overrides?.signal);
	const run = async () => {
		signal.throwIfAborted();
		const ctx = overrides?.env
			? {
					env: async (name) => overrides.env[name] || (await authContext.env(name)),
					fileExists: (path) => authContext.fileExists(path),
				}
			: authContext;
		const apiKey = provider.auth?.apiKey;
		if (overrides?.apiKey !== undefined && apiKey) {
			const credential = { type: "api_key", key: overrides.apiKey, env: overrides.env };
			return resolveApiKey(ctx, apiKey, provider.id, credential, signal);
		}
		const stored = await readCredential(credentials, provider.id, signal);
		if (stored) {
			if (stored.type === "oauth" && provider.auth?.oauth) {
				return resolveStoredOAuth(credentials, provider.id, provider.auth.oauth, stored, signal, overrides?.minOAuthValidityMs);
			}
			if (stored.type === "api_key" && apiKey) {
				const credential = overrides?.env ? { ...stored, env: { ...stored.env, ...overrides.env } } : stored;
				return resolveApiKey(ctx, apiKey, provider.id, credential, signal);
			}
			return undefined;
		}
		return apiKey ? resolveApiKey(ctx, apiKey, provider.id, undefined, signal) : undefined;
	};
	return raceWithAbortSignal(run(), signal);
}
