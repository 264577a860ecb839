// pi-agent's `@earendil-works/pi-ai` for extensions: the names of pi-ai's `compat` entry, which
// pi gives extensions for the package root (and `/compat`).
//
// Provider calls go to the agent (`host.complete`, see pi_ai_stream.mjs); the model catalogue
// is the agent's (`host.models`, see pi_ai_models.mjs). Everything else runs here.

export { Type } from "./typebox.mjs";
export { validateToolArguments, validateToolCall } from "./typebox_tool_args.mjs";
export {
	ANTHROPIC_API_KEY_ENV,
	ANTHROPIC_AUTH_TOKEN_ENV,
	ANTHROPIC_OAUTH_TOKEN_ENV,
	findEnvKeys,
	getEnvApiKey,
} from "./pi_ai_env.mjs";
export {
	InMemoryCredentialStore,
	InMemoryModelsStore,
	ModelsError,
	defaultProviderAuthContext,
	envApiKeyAuth,
	lazyOAuth,
} from "./pi_ai_auth.mjs";
export {
	calculateCost,
	clampThinkingLevel,
	createModels,
	createProvider,
	getModel,
	getModels,
	getProviders,
	getSupportedThinkingLevels,
	hasApi,
	modelsAreEqual,
} from "./pi_ai_models.mjs";
export {
	AssistantMessageEventStream,
	EventStream,
	anthropicMessagesApi,
	azureOpenAIResponsesApi,
	bedrockConverseStreamApi,
	complete,
	completeSimple,
	createAssistantMessageEventStream,
	getApiProvider,
	getApiProviders,
	googleGenerativeAIApi,
	googleVertexApi,
	lazyApi,
	lazyStream,
	mistralConversationsApi,
	openAICodexResponsesApi,
	openAICompletionsApi,
	openAIResponsesApi,
	piMessagesApi,
	registerApiProvider,
	registerBuiltInApiProviders,
	resetApiProviders,
	setBedrockProviderModule,
	stream,
	streamAnthropic,
	streamAzureOpenAIResponses,
	streamGoogle,
	streamGoogleVertex,
	streamMistral,
	streamOpenAICodexResponses,
	streamOpenAICompletions,
	streamOpenAIResponses,
	streamSimple,
	streamSimpleAnthropic,
	streamSimpleAzureOpenAIResponses,
	streamSimpleGoogle,
	streamSimpleGoogleVertex,
	streamSimpleMistral,
	streamSimpleOpenAICodexResponses,
	streamSimpleOpenAICompletions,
	streamSimpleOpenAIResponses,
	unregisterApiProviders,
} from "./pi_ai_stream.mjs";
export { parseJsonWithRepair, parseStreamingJson, repairJson } from "./pi_ai_json.mjs";
export {
	StringEnum,
	appendAssistantMessageDiagnostic,
	cleanupSessionResources,
	contentText,
	createAssistantMessageDiagnostic,
	extractDiagnosticError,
	formatThrownValue,
	getOverflowPatterns,
	isContextOverflow,
	isRecoverableLength,
	isRetryableAssistantError,
	registerSessionResourceCleanup,
	retryAssistantCall,
	uuidv7,
} from "./pi_ai_util.mjs";
export {
	createImagesModels,
	createImagesProvider,
	generateImages,
	generateImagesOpenRouter,
	getImageModel,
	getImageModels,
	getImageProviders,
	getImagesApiProvider,
	registerBuiltInImagesApiProviders,
	registerImagesApiProvider,
} from "./pi_ai_images.mjs";
export {
	createFauxCore,
	fauxAssistantMessage,
	fauxProvider,
	fauxText,
	fauxThinking,
	fauxToolCall,
	registerFauxProvider,
} from "./pi_ai_faux.mjs";
