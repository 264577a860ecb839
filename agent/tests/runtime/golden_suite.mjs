// Compares case results with a checked-in golden file, one test per case.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

export function readGolden(name) {
	return JSON.parse(readFileSync(new URL(`./goldens/${name}.json`, import.meta.url), "utf-8"));
}

/** One test per golden case; `ours` is a promise of our case results. */
export function compareCases(label, goldenCases, ours) {
	for (const name of Object.keys(goldenCases)) {
		test(`${label}: ${name} equals the reference`, async () => {
			const results = await ours;
			assert.ok(name in results, `case ${name} did not run`);
			assert.deepStrictEqual(results[name], goldenCases[name]);
		});
	}
	test(`${label}: runs no case the golden lacks`, async () => {
		assert.deepStrictEqual(Object.keys(await ours).sort(), Object.keys(goldenCases).sort());
	});
}
