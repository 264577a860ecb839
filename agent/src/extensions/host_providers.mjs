// pi-agent's extension host, its providers part (appended to host.mjs): `pi.registerProvider`
// and `pi.unregisterProvider`. As in pi, the calls the factories make are queued and applied
// once the extensions are loaded, before the start-up model is chosen: the host hands the queue
// to the agent with "loaded", and the agent adds the providers to its model registry. Calls
// made later (from a handler or a command) need the agent to change its registry while it
// runs, which it cannot do yet: they are ignored with a warning.

/**
 * `pi.registerProvider(name, config)` calls made while the factories run, in order (pi queues
 * them and applies them once loading is done: the agent does, from "loaded").
 */
let pendingProviders = [];
/** Whether the factories run now (start-up or a reload). */
let loadingFactories = false;
const LATE_PROVIDER =
	"pi.registerProvider() / pi.unregisterProvider() take effect only while the extensions load (from their factories) for now; ignored";

/**
 * A provider config as the agent takes it (JSON): pi's config-object form. What only runs in
 * JavaScript (a custom stream, OAuth login, a model refresh) is left out, with a warning.
 */
function providerConfig(name, config) {
	const { oauth, streamSimple, refreshModels, ...rest } = config;
	const dropped = Object.entries({ oauth, streamSimple, refreshModels })
		.filter(([, value]) => value !== undefined)
		.map(([key]) => key);
	if (dropped.length > 0) {
		warnOnce(
			`registerProvider ${name}`,
			`pi.registerProvider("${name}"): ${dropped.join(", ")} not supported yet; the provider is registered without`,
		);
	}
	return JSON.parse(JSON.stringify(rest));
}

/** `pi.registerProvider(name, config)` of `extension`. */
function registerProvider(extension, nameOrProvider, config) {
	if (typeof nameOrProvider !== "string") {
		warnOnce("registerProvider(provider)", "pi.registerProvider() with a pi-ai Provider object is not supported yet; ignored");
		return;
	}
	if (!config) throw new Error("Provider config is required when registering by name");
	if (!loadingFactories) {
		warnOnce("registerProvider", LATE_PROVIDER);
		return;
	}
	pendingProviders.push({ name: nameOrProvider, config: providerConfig(nameOrProvider, config), extensionPath: extension.path });
}

/** `pi.unregisterProvider(name)`: while the factories run, it drops the calls queued so far, as in pi. */
function unregisterProvider(name) {
	if (!loadingFactories) {
		warnOnce("unregisterProvider", LATE_PROVIDER);
		return;
	}
	pendingProviders = pendingProviders.filter((registration) => registration.name !== name);
}
