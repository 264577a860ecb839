// Front matter: a YAML block between a first line "---" and the next line starting "---".

import { parseYaml } from "./pi_coding_agent_yaml.mjs";

const unifyNewlines = (text) => text.replace(/\r\n/g, "\n").replace(/\r/g, "\n");

function split(content) {
	const text = unifyNewlines(content);
	if (!text.startsWith("---")) return { yaml: null, body: text };
	const end = text.indexOf("\n---", 3);
	if (end === -1) return { yaml: null, body: text };
	return { yaml: text.slice(4, end), body: text.slice(end + 4).trim() };
}

/** {frontmatter, body}: the YAML's value ({} without front matter) and the trimmed rest. */
export function parseFrontmatter(content) {
	const { yaml, body } = split(content);
	if (!yaml) return { frontmatter: {}, body };
	return { frontmatter: parseYaml(yaml) ?? {}, body };
}

export function stripFrontmatter(content) {
	return parseFrontmatter(content).body;
}
