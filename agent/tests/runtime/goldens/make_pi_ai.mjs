// Writes pi_ai.json: the pi_ai cases run against the reference's pi-ai compat entry (what
// extensions get for `@earendil-works/pi-ai`), plus the names of its oauth and providers/all
// entries.
import { exportShape } from "../case_helpers.mjs";
import { piAiCases } from "../pi_ai_cases.mjs";
import { importReference, writeGolden } from "./reference.mjs";

const compat = await importReference("@earendil-works/pi-ai/dist/compat.js");
const oauth = await importReference("@earendil-works/pi-ai/dist/oauth.js");
const providers = await importReference("@earendil-works/pi-ai/dist/providers/all.js");
writeGolden("pi_ai", {
	cases: await piAiCases(compat),
	oauthExports: exportShape(oauth),
	providersExports: exportShape(providers),
});
