// Shared by pi-agent's runtime modules: the host object pi-agent's extension host sets before
// extensions load, and the "not supported yet" failure of exports pi-agent does not implement.
//
// The host object (all fields optional; read at call time, never cached):
//   version: string                 pi's version the agent reports
//   agentDir: string                the agent's config directory
//   cwd: string                     the session's working directory
//   models: Model[]                 the agent's model catalogue (getModel & co read it)
//   imageModels: ImageModel[]       image-generation models, likewise
//   callTool(name, params, signal, options?) -> Promise<{content, details}>
//                                   runs one of the agent's built-in tools (the built-in one,
//                                   even when an extension overrides that name); options.cwd is
//                                   the directory the tool object was created for,
//                                   options.onUpdate(partialResult) the caller's update callback
//                                   (may be undefined)
//   complete(request, signal, onEvent?) -> Promise<AssistantMessage>
//                                   one provider call by the agent; request is
//                                   {model, context, options, simple}; onEvent(event) gets
//                                   pi-ai's events (start, *_start/_delta/_end, with partial)
//                                   as the provider streams, not the final done/error

const HOST_KEY = Symbol.for("pi-agent.host");

/** The host object, or undefined when a module runs on its own (tests, plain Node). */
export function piHost() {
	const host = globalThis[HOST_KEY];
	return host && typeof host === "object" ? host : undefined;
}

/** The error an unimplemented export throws. */
export function notSupportedError(name) {
	return new Error(`${name} is not supported by pi-agent yet`);
}

/** A function export pi-agent does not implement: it binds, and throws when called. */
export function notSupported(name) {
	const fn = function () {
		throw notSupportedError(name);
	};
	Object.defineProperty(fn, "name", { value: name });
	return fn;
}

/** A class export pi-agent does not implement: `new` (or a call) throws. */
export function notSupportedClass(name) {
	const cls = class {
		constructor() {
			throw notSupportedError(name);
		}
	};
	Object.defineProperty(cls, "name", { value: name });
	return cls;
}

/**
 * A data export pi-agent does not provide: reading any of its properties throws (awaiting it,
 * or asking whether it is a thenable, does not).
 */
export function notSupportedObject(name) {
	return new Proxy(
		{},
		{
			get(_target, key) {
				if (typeof key === "symbol" || key === "then") return undefined;
				throw notSupportedError(name);
			},
			has() {
				throw notSupportedError(name);
			},
			ownKeys() {
				throw notSupportedError(name);
			},
		},
	);
}
