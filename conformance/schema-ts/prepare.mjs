// Rewrites a pi-rpc schema document into the form that TypeScript generators read as unions.
//
// The schema tags its unions with one `if`/`then` per tag value (so that a validator names the
// failing field); json-schema-to-typescript, like most generators, ignores `if`/`then`/`else`
// and would make each union an empty object. This keeps every constraint a generator can use and
// turns each tagged union into an `anyOf` of its variants, each variant the `then` schema with
// its tag's `const`. `$ref` beside other keywords becomes an `allOf` (generators and
// json-schema-ref-parser otherwise drop one side), and each definition gets its name as `title`
// so the generated types carry the definitions' names.
//
//   prepare(schema) -> the rewritten document (the input is not changed)

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

// `{properties: {K: {const: V}}, required?: [K]}`: the tag `[K, V]`, else null.
function tagOf(condition) {
  if (!isObject(condition) || !isObject(condition.properties)) return null;
  const keys = Object.keys(condition.properties);
  if (keys.length !== 1) return null;
  const property = condition.properties[keys[0]];
  if (!isObject(property) || !("const" in property)) return null;
  return [keys[0], property.const];
}

const tagged = (schema, [key, value]) => ({
  allOf: [schema, { type: "object", properties: { [key]: { const: value } }, required: [key] }],
});

// The variants of an `if`/`then`/`else` chain, each with its tag; null when it is not one.
function chain(node) {
  const tag = tagOf(node.if);
  if (!tag || !("then" in node)) return null;
  const variants = [tagged(node.then, tag)];
  if ("else" in node) {
    // `success: false` then ..., else ...: the other boolean is the else branch's tag.
    variants.push(typeof tag[1] === "boolean" ? tagged(node.else, [tag[0], !tag[1]]) : node.else);
  }
  return variants;
}

function rewrite(node) {
  if (Array.isArray(node)) return node.map(rewrite);
  if (!isObject(node)) return node;
  // The variants, taken from the node as given (each part of a tagged `allOf` is itself an
  // `if`/`then`, which must not be rewritten on its own first).
  const variants = [];
  const rest = { ...node };
  const chained = chain(node);
  if (chained) {
    variants.push(...chained);
    delete rest.if;
    delete rest.then;
    delete rest.else;
  }
  if (Array.isArray(node.allOf) && node.allOf.every((part) => tagOf(part.if) && part.then)) {
    for (const part of node.allOf) variants.push(tagged(part.then, tagOf(part.if)));
    delete rest.allOf;
  }
  // A union beside the object's own fields: both, as an intersection.
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(rest[key]) && rest.properties) {
      variants.push(...rest[key]);
      delete rest[key];
    }
  }
  let out = {};
  for (const [key, value] of Object.entries(rest)) {
    // A map of names to schemas is no schema itself: its values are.
    out[key] = ["properties", "patternProperties", "$defs"].includes(key) && isObject(value)
      ? Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, rewrite(schema)]))
      : rewrite(value);
  }
  if (variants.length > 0) {
    const { description, title, $anchor, ...base } = out;
    out = { allOf: [base, { anyOf: variants.map(rewrite) }] };
    if (description !== undefined) out.description = description;
    if (title !== undefined) out.title = title;
  }
  if (typeof out.$ref === "string" && Object.keys(out).some((k) => !["$ref", "description"].includes(k))) {
    const { $ref, description, ...others } = out;
    out = { allOf: [{ $ref }, others] };
    if (description !== undefined) out.description = description;
  }
  delete out.$anchor;
  // Any JSON value (a schema of only a description): json-schema-to-typescript would make it an
  // object with an index signature.
  const shaping = ["type", "$ref", "enum", "const", "anyOf", "allOf", "oneOf", "properties", "items", "not"];
  if (!shaping.some((key) => key in out)) out.tsType = "unknown";
  return out;
}

export function prepare(schema) {
  const $defs = {};
  for (const [name, definition] of Object.entries(schema.$defs)) {
    $defs[name] = { ...rewrite(definition), title: name };
  }
  return { $schema: schema.$schema, title: schema.title, $defs };
}
