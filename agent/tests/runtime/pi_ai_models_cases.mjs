// The Models-api cases of pi_ai_cases.mjs: credential and model stores, api-key and OAuth
// auth, a Models collection with providers made by createProvider, and refreshing models.

import { assistantText as message, withoutTimestamps } from "./case_helpers.mjs";

export function piAiModelsCases(ai) {
	return {
		credentialStore: async () => {
			const store = new ai.InMemoryCredentialStore();
			const order = [];
			const slow = store.modify("p", async () => {
				await new Promise((r) => setTimeout(r, 5));
				order.push("first");
				return { type: "api_key", key: "one" };
			});
			const second = store.modify("p", async (current) => {
				order.push(`second saw ${current?.key}`);
				return undefined;
			});
			const results = [await slow, await second];
			await store.modify("q", async () => ({ type: "oauth", access: "x", expires: 1 }));
			const listed = await store.list();
			await store.delete("p");
			const models = new ai.InMemoryModelsStore();
			const entry = { models: [{ id: "m" }], checkedAt: 1 };
			await models.write("p", entry);
			entry.models.push({ id: "mutated" });
			const read = await models.read("p");
			await models.delete("p");
			return { order, results, listed, afterDelete: await store.read("p"), read, readDeleted: await models.read("p") };
		},

		envApiKeyAuth: async () => {
			const auth = ai.envApiKeyAuth("Test Key", ["TEST_KEY_A", "TEST_KEY_B"]);
			const ctx = { env: async (name) => ({ TEST_KEY_B: "from-b" })[name], fileExists: async () => false };
			const signal = new AbortController().signal;
			const login = await auth.login({ signal, prompt: async (q) => `typed for ${q.message} (${q.type})` });
			return {
				name: auth.name,
				stored: await auth.resolve({ ctx, credential: { key: "stored", env: { X: "1" } }, signal }),
				fromEnv: await auth.resolve({ ctx, signal }),
				none: await auth.resolve({ ctx: { env: async () => undefined }, signal }),
				login,
			};
		},

		lazyOAuth: async () => {
			let loads = 0;
			const oauth = ai.lazyOAuth({
				name: "Lazy",
				isSubscription: true,
				loginLabel: "Sign in",
				load: async () => {
					loads++;
					return { login: async () => "logged in", refresh: async (c) => ({ ...c, refreshed: true }), toAuth: async (c) => ({ apiKey: c.access }) };
				},
			});
			return {
				fields: [oauth.name, oauth.isSubscription, oauth.loginLabel],
				login: await oauth.login({}),
				refresh: await oauth.refresh({ access: "a" }),
				toAuth: await oauth.toAuth({ access: "a" }),
				loads,
			};
		},

		modelsCollection: async () => {
			const seen = [];
			const impl = {
				stream: (model, context, options) => {
					seen.push({ model: model.baseUrl ?? null, apiKey: options.apiKey, headers: options.headers, env: options.env ?? null });
					const s = ai.createAssistantMessageEventStream();
					s.push({ type: "done", reason: "stop", message: message(`via ${model.id}`) });
					return s;
				},
				streamSimple: (model) => {
					const s = ai.createAssistantMessageEventStream();
					s.push({ type: "done", reason: "stop", message: message(`simple via ${model.id}`) });
					return s;
				},
			};
			const models = [{ id: "m1", api: "x-api", provider: "prov", headers: { "X-Model": "1" } }, { id: "m2", api: "y-api", provider: "prov" }];
			const provider = ai.createProvider({
				id: "prov",
				models,
				api: { "x-api": impl },
				headers: { a: "b" },
				auth: { apiKey: ai.envApiKeyAuth("Prov", ["PROV_KEY"]) },
			});
			const authContext = { env: async (name) => ({ PROV_KEY: "env-key" })[name], fileExists: async () => false };
			const collection = ai.createModels({ authContext });
			collection.setProvider(provider);
			collection.setProvider(ai.createProvider({ id: "bare", models: [{ id: "b1", api: "x-api", provider: "bare" }], api: impl, auth: {} }));
			const out = {
				providerKeys: Object.keys(provider).sort(),
				providerName: provider.name,
				providers: collection.getProviders().map((p) => p.id),
				all: collection.getModels().map((m) => m.id),
				ofProv: collection.getModels("prov").map((m) => m.id),
				unknown: collection.getModels("nope"),
				one: collection.getModel("prov", "m2")?.id ?? null,
				checkAuth: [await collection.checkAuth("prov"), await collection.checkAuth("bare"), await collection.checkAuth("nope")],
				available: (await collection.getAvailable()).map((m) => m.id),
				auth: await collection.getAuth(models[0]),
				completed: withoutTimestamps(await collection.complete(models[0], { messages: [] }, { headers: { "x-model": "override" } })),
				noApi: withoutTimestamps(await collection.complete(models[1], { messages: [] })),
				unconfigured: withoutTimestamps(await collection.complete({ id: "b1", api: "x-api", provider: "bare" }, { messages: [] })),
				unknownProvider: withoutTimestamps(await collection.complete({ id: "z", api: "x-api", provider: "ghost" }, { messages: [] })),
			};
			const signal = new AbortController().signal;
			out.login = await collection.login("prov", "api_key", { signal, prompt: async () => "typed-key" });
			out.authAfterLogin = await collection.getAuth("prov");
			await collection.logout("prov");
			out.authAfterLogout = await collection.getAuth("prov");
			try {
				await collection.login("bare", "oauth", { signal, prompt: async () => "" });
			} catch (error) {
				out.loginUnsupported = { name: error.name, code: error.code, message: error.message };
			}
			out.seen = seen;
			collection.deleteProvider("bare");
			out.afterDelete = collection.getProviders().map((p) => p.id);
			collection.clearProviders();
			out.afterClear = collection.getProviders().length;
			return out;
		},

		modelsRefresh: async () => {
			let fetches = 0;
			const provider = ai.createProvider({
				id: "dyn",
				models: [{ id: "base", provider: "dyn", api: "x" }],
				api: { stream: () => {}, streamSimple: () => {} },
				auth: { apiKey: ai.envApiKeyAuth("Dyn", ["DYN_KEY"]) },
				fetchModels: async () => {
					fetches++;
					return [{ id: "base", provider: "dyn", api: "x", name: "refetched" }, { id: "extra", provider: "dyn", api: "x" }];
				},
			});
			const store = new ai.InMemoryModelsStore();
			const collection = ai.createModels({ modelsStore: store, authContext: { env: async (n) => (n === "DYN_KEY" ? "k" : undefined), fileExists: async () => false } });
			collection.setProvider(provider);
			const offline = await collection.refresh({ allowNetwork: false });
			const beforeNetwork = collection.getModels("dyn").map((m) => m.id);
			const online = await collection.refresh();
			const stored = await store.read("dyn");
			return {
				offline: { aborted: offline.aborted, errors: offline.errors.size },
				beforeNetwork,
				online: { aborted: online.aborted, errors: online.errors.size },
				after: collection.getModels("dyn").map((m) => [m.id, m.name ?? null]),
				storedIds: stored.models.map((m) => m.id),
				fetches,
			};
		},
	};
}
