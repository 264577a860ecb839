// pi-ai's image generation for extensions: the image-model catalogue (read from the host's
// `imageModels` list, empty without a host), the images api registry and generateImages.
// pi-agent has no image-generation backend: the built-in OpenRouter api answers with an error
// result, and createImagesModels/createImagesProvider throw "not supported".

import { notSupported, notSupportedError, piHost } from "./pi_runtime_host.mjs";

function imageCatalogue() {
	const models = piHost()?.imageModels;
	return Array.isArray(models) ? models : [];
}

export function getImageModel(provider, modelId) {
	return imageCatalogue().find((model) => model.provider === provider && model.id === modelId);
}

export function getImageProviders() {
	return [...new Set(imageCatalogue().map((model) => model.provider))];
}

export function getImageModels(provider) {
	return imageCatalogue().filter((model) => model.provider === provider);
}

const imagesRegistry = new Map(); // api -> {api, generateImages}

export function registerImagesApiProvider(provider, _sourceId) {
	const api = provider.api;
	imagesRegistry.set(api, {
		api,
		generateImages: (model, context, options) => {
			if (model.api !== api) throw new Error(`Mismatched api: ${model.api} expected ${api}`);
			return provider.generateImages(model, context, options);
		},
	});
}

export function getImagesApiProvider(api) {
	return imagesRegistry.get(api);
}

export async function generateImages(model, context, options) {
	const provider = getImagesApiProvider(model.api);
	if (!provider) throw new Error(`No API provider registered for api: ${model.api}`);
	return provider.generateImages(model, context, options);
}

/** The built-in OpenRouter images api: an error result, as pi gives when its module fails. */
export const generateImagesOpenRouter = async (model, _context, _options) => ({
	api: model.api,
	provider: model.provider,
	model: model.id,
	output: [],
	stopReason: "error",
	errorMessage: notSupportedError("generateImagesOpenRouter").message,
	timestamp: Date.now(),
});

export function registerBuiltInImagesApiProviders() {
	registerImagesApiProvider({ api: "openrouter-images", generateImages: generateImagesOpenRouter });
}

registerBuiltInImagesApiProviders();

export const createImagesModels = notSupported("createImagesModels");
export const createImagesProvider = notSupported("createImagesProvider");
