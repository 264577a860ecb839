// JSON Schema validator behind Value.Check / Value.Errors / Compile. One
// walker serves both modes: `collect` false stops at the first failure,
// `collect` true evaluates every keyword and reports errors the way
// typebox 1.x does (same keywords, paths, params and messages).
import {
  settings, isObject, isObjectNotArray, isArray, isString, isNumber, isBigInt, isBoolean, isInteger, isNull,
  isFunction, isSymbol, isConstructor, isUndefined, isValueLike, hasKey, keysOf, deepEqual, isMultipleOf,
  every, hashValue, graphemeCount,
} from "./typebox_core.mjs";
import { testFormat } from "./typebox_format.mjs";
import { Stack } from "./typebox_pointer.mjs";

// ---------------------------------------------------------------- keyword guards
const isSchema = (v) => isObjectNotArray(v) || isBoolean(v);
const has = (schema, key, test) => hasKey(schema, key) && test(schema[key]);
const isSchemaList = (v) => isArray(v) && v.every(isSchema);
const isSchemaMap = (v) => isObject(v) && Object.values(v).every(isSchema);
const isStringList = (v) => isArray(v) && v.every(isString);
const isNumeric = (v) => isNumber(v) || isBigInt(v);
const K = {
  type: (s) => has(s, "type", (v) => isString(v) || isStringList(v)),
  required: (s) => has(s, "required", isStringList),
  additionalProperties: (s) => has(s, "additionalProperties", isSchema),
  dependencies: (s) => has(s, "dependencies", (v) => isObject(v) && Object.values(v).every((d) => isSchema(d) || isStringList(d))),
  dependentRequired: (s) => has(s, "dependentRequired", (v) => isObject(v) && Object.values(v).every(isStringList)),
  dependentSchemas: (s) => has(s, "dependentSchemas", isSchemaMap),
  patternProperties: (s) => has(s, "patternProperties", isSchemaMap),
  properties: (s) => has(s, "properties", isSchemaMap),
  propertyNames: (s) => has(s, "propertyNames", (v) => isObject(v) || isSchema(v)),
  minProperties: (s) => has(s, "minProperties", isNumber),
  maxProperties: (s) => has(s, "maxProperties", isNumber),
  additionalItems: (s) => has(s, "additionalItems", isSchema),
  contains: (s) => has(s, "contains", isSchema),
  items: (s) => has(s, "items", (v) => isSchema(v) || isSchemaList(v)),
  maxContains: (s) => has(s, "maxContains", isNumber),
  maxItems: (s) => has(s, "maxItems", isNumber),
  minContains: (s) => has(s, "minContains", isNumber),
  minItems: (s) => has(s, "minItems", isNumber),
  prefixItems: (s) => has(s, "prefixItems", isSchemaList),
  uniqueItems: (s) => has(s, "uniqueItems", isBoolean),
  maxLength: (s) => has(s, "maxLength", isNumber),
  minLength: (s) => has(s, "minLength", isNumber),
  format: (s) => has(s, "format", isString),
  pattern: (s) => has(s, "pattern", (v) => isString(v) || v instanceof RegExp),
  exclusiveMaximum: (s) => has(s, "exclusiveMaximum", isNumeric),
  exclusiveMinimum: (s) => has(s, "exclusiveMinimum", isNumeric),
  maximum: (s) => has(s, "maximum", isNumeric),
  minimum: (s) => has(s, "minimum", isNumeric),
  multipleOf: (s) => has(s, "multipleOf", isNumeric),
  $ref: (s) => has(s, "$ref", isString),
  $recursiveRef: (s) => has(s, "$recursiveRef", isString),
  $dynamicRef: (s) => has(s, "$dynamicRef", isString),
  const: (s) => hasKey(s, "const"),
  enum: (s) => has(s, "enum", isArray),
  if: (s) => has(s, "if", isSchema),
  then: (s) => has(s, "then", isSchema),
  else: (s) => has(s, "else", isSchema),
  not: (s) => has(s, "not", isSchema),
  allOf: (s) => has(s, "allOf", isSchemaList),
  anyOf: (s) => has(s, "anyOf", isSchemaList),
  oneOf: (s) => has(s, "oneOf", isSchemaList),
  unevaluatedItems: (s) => has(s, "unevaluatedItems", isSchema),
  unevaluatedProperties: (s) => has(s, "unevaluatedProperties", isSchema),
  refine: (s) => hasKey(s, "~refine") && isArray(s["~refine"]) &&
    s["~refine"].every((r) => isObject(r) && hasKey(r, "check") && hasKey(r, "error") && isFunction(r.check) && isFunction(r.error)),
};
export const SchemaGuards = K;

// ---------------------------------------------------------------- contexts
/** Evaluated keys / indices per scope, for unevaluatedProperties / unevaluatedItems. */
export class CheckContext {
  constructor() {
    this.stack = [{ indices: new Set(), keys: new Set() }];
  }
  push() {
    this.stack.push({ indices: new Set(), keys: new Set() });
    return true;
  }
  pop() {
    this.stack.pop();
    return true;
  }
  top() {
    return this.stack[this.stack.length - 1];
  }
  addIndex(index) {
    this.top().indices.add(index);
    return true;
  }
  addKey(key) {
    this.top().keys.add(key);
    return true;
  }
  merge(contexts) {
    for (const context of contexts) {
      context.top().indices.forEach((v) => this.top().indices.add(v));
      context.top().keys.forEach((v) => this.top().keys.add(v));
    }
    return true;
  }
  addError() {
    return false;
  }
}
class ErrorContext extends CheckContext {
  constructor(callback) {
    super();
    this.callback = callback;
  }
  addError(error) {
    this.callback(error);
    return false;
  }
}
class CollectingContext extends CheckContext {
  constructor() {
    super();
    this.errors = [];
  }
  addError(error) {
    this.errors.push(error);
    return false;
  }
}
const fresh = (collect) => (collect ? new CollectingContext() : new CheckContext());
const report = (E, c, keyword, sp, ip, params) => E && c.addError({ keyword, schemaPath: sp, instancePath: ip, params });
const forward = (c, failed) => failed.forEach((ctx) => ctx.errors.forEach((error) => c.addError(error)));

// ---------------------------------------------------------------- walker
function validate(E, s, c, sp, ip, schema, value) {
  s.push(schema);
  let ok;
  if (isBoolean(schema)) ok = schema || (E && report(E, c, "boolean", sp, ip, {}));
  else ok = validateKeywords(E, s, c, sp, ip, schema, value);
  s.pop(schema);
  return ok;
}
function pushed(E, s, c, sp, ip, schema, value) {
  c.push();
  const ok = validate(E, s, c, sp, ip, schema, value);
  if (ok) c.pop();
  return ok;
}
function runGroup(E, list, s, c, sp, ip, schema, value) {
  let ok = true;
  for (const [applies, keyword] of list) {
    if (applies(schema) && !keyword(E, s, c, sp, ip, schema, value)) {
      ok = false;
      if (!E) return false;
    }
  }
  return ok;
}
function validateKeywords(E, s, c, sp, ip, schema, value) {
  let ok = true;
  const group = (list) => {
    if ((ok || E) && !runGroup(E, list, s, c, sp, ip, schema, value)) ok = false;
  };
  group(TYPE);
  if (isObjectNotArray(value)) group(OBJECT);
  if (isArray(value)) group(ARRAY);
  if (isString(value)) group(STRING);
  if (isNumber(value) || isBigInt(value)) group(NUMBER);
  group(GENERAL);
  if (ok && K.refine(schema)) ok = refine(E, c, sp, ip, schema, value);
  return ok;
}

// ---------------------------------------------------------------- type
const typeChecks = {
  object: isObjectNotArray, array: isArray, boolean: isBoolean, integer: isInteger, number: isNumber, null: isNull,
  string: isString, bigint: isBigInt, constructor: isConstructor, function: isFunction, symbol: isSymbol,
  undefined: isUndefined, void: isUndefined,
};
const isTypeName = (name, value) => (Object.prototype.hasOwnProperty.call(typeChecks, name) ? typeChecks[name](value) : true);
function type(E, s, c, sp, ip, schema, value) {
  const ok = isArray(schema.type) ? schema.type.some((name) => isTypeName(name, value)) : isTypeName(schema.type, value);
  return ok || report(E, c, "type", sp, ip, { type: schema.type });
}
const TYPE = [[K.type, type]];

// ---------------------------------------------------------------- objects
function required(E, s, c, sp, ip, schema, value) {
  const missing = [];
  const ok = every(schema.required, 0, E, (key) => hasKey(value, key) || (missing.push(key), false));
  return ok || report(E, c, "required", sp, ip, { requiredProperties: missing });
}
const escapeKey = (key) => `^${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
function knownKeysPattern(schema) {
  const patterns = [];
  if (K.patternProperties(schema)) patterns.push(...keysOf(schema.patternProperties));
  if (K.properties(schema)) patterns.push(...keysOf(schema.properties).map(escapeKey));
  return patterns.length === 0 ? "(?!)" : `(${patterns.join("|")})`;
}
function additionalProperties(E, s, c, sp, ip, schema, value) {
  const known = new RegExp(knownKeysPattern(schema));
  const rejected = [];
  const ok = every(keysOf(value), 0, E, (key) => {
    if (known.test(key)) return true;
    const passed = pushed(E, s, E ? new CollectingContext() : c, `${sp}/additionalProperties`, `${ip}/${key}`, schema.additionalProperties, value[key]) && c.addKey(key);
    if (!passed) rejected.push(key);
    return passed;
  });
  return ok || report(E, c, "additionalProperties", sp, ip, { additionalProperties: rejected });
}
function dependencies(E, s, c, sp, ip, schema, value) {
  const empty = keysOf(value).length === 0;
  const ok = every(Object.entries(schema.dependencies), 0, E, ([key, dependency]) => {
    if (!hasKey(value, key)) return true;
    if (!isArray(dependency)) return validate(E, s, c, `${sp}/dependencies/${key}`, ip, dependency, value);
    return dependency.every((name) => hasKey(value, name) || report(E, c, "dependencies", sp, ip, { property: key, dependencies: dependency }));
  });
  return empty || ok;
}
function dependentRequired(E, s, c, sp, ip, schema, value) {
  const empty = keysOf(value).length === 0;
  const ok = every(Object.entries(schema.dependentRequired), 0, E, ([key, names]) =>
    !hasKey(value, key) || every(names, 0, E, (name) => hasKey(value, name) || report(E, c, "dependentRequired", sp, ip, { property: key, dependencies: names })));
  return empty || ok;
}
function dependentSchemas(E, s, c, sp, ip, schema, value) {
  const empty = keysOf(value).length === 0;
  const ok = every(Object.entries(schema.dependentSchemas), 0, E, ([key, dependent]) =>
    !hasKey(value, key) || validate(E, s, c, `${sp}/dependentSchemas/${key}`, ip, dependent, value));
  return empty || ok;
}
function patternProperties(E, s, c, sp, ip, schema, value) {
  return every(Object.entries(schema.patternProperties), 0, E, ([pattern, sub]) => {
    const regexp = new RegExp(pattern, "u");
    return every(Object.entries(value), 0, E, ([key, item]) =>
      !regexp.test(key) || (pushed(E, s, c, `${sp}/patternProperties/${pattern}`, `${ip}/${key}`, sub, item) && c.addKey(key)));
  });
}
function properties(E, s, c, sp, ip, schema, value) {
  const requiredKeys = K.required(schema) ? schema.required : [];
  return every(Object.entries(schema.properties), 0, E, ([key, sub]) => {
    const exact = requiredKeys.includes(key) || settings.exactOptionalPropertyTypes;
    if (!exact && value[key] === undefined) return true;
    return !hasKey(value, key) || (pushed(E, s, c, `${sp}/properties/${key}`, `${ip}/${key}`, sub, value[key]) && c.addKey(key));
  });
}
function propertyNames(E, s, c, sp, ip, schema, value) {
  const invalid = [];
  const ok = every(keysOf(value), 0, E, (key) => {
    const passed = validate(E, s, E ? new CollectingContext() : c, `${sp}/propertyNames`, `${ip}/${key}`, schema.propertyNames, key);
    if (!passed) invalid.push(key);
    return passed;
  });
  return ok || report(E, c, "propertyNames", sp, ip, { propertyNames: invalid });
}
const limit = (keyword, measure, compare) => (E, s, c, sp, ip, schema, value) =>
  compare(measure(value, schema[keyword]), schema[keyword]) || report(E, c, keyword, sp, ip, { limit: schema[keyword] });
const countKeys = (value) => keysOf(value).length;
const OBJECT = [
  [K.required, required], [K.additionalProperties, additionalProperties], [K.dependencies, dependencies],
  [K.dependentRequired, dependentRequired], [K.dependentSchemas, dependentSchemas], [K.patternProperties, patternProperties],
  [K.properties, properties], [K.propertyNames, propertyNames],
  [K.minProperties, limit("minProperties", countKeys, (n, l) => n >= l)],
  [K.maxProperties, limit("maxProperties", countKeys, (n, l) => n <= l)],
];

// ---------------------------------------------------------------- arrays
function additionalItems(E, s, c, sp, ip, schema, value) {
  if (!(K.items(schema) && isArray(schema.items))) return true;
  return value.every((item, index) =>
    index < schema.items.length || (pushed(E, s, c, `${sp}/additionalItems`, `${ip}/${index}`, schema.additionalItems, item) && c.addIndex(index)));
}
const matches = (s, c, schema, item) => validate(false, s, c, "", "", schema, item);
function contains(E, s, c, sp, ip, schema, value) {
  if (K.minContains(schema) && schema.minContains === 0) return true;
  const ok = value.length !== 0 && value.some((item) => matches(s, c, schema.contains, item));
  return ok || report(E, c, "contains", sp, ip, { minContains: 1 });
}
const containsCount = (s, c, schema, value) => value.reduce((n, item) => (matches(s, c, schema.contains, item) ? n + 1 : n), 0);
function maxContains(E, s, c, sp, ip, schema, value) {
  if (!K.contains(schema)) return true;
  const minContains = K.minContains(schema) ? schema.minContains : 1;
  return containsCount(s, c, schema, value) <= schema.maxContains || report(E, c, "contains", sp, ip, { minContains, maxContains: schema.maxContains });
}
function minContains(E, s, c, sp, ip, schema, value) {
  if (!K.contains(schema)) return true;
  return containsCount(s, c, schema, value) >= schema.minContains || report(E, c, "contains", sp, ip, { minContains: schema.minContains });
}
function items(E, s, c, sp, ip, schema, value) {
  if (isArray(schema.items)) {
    return every(schema.items, 0, E, (sub, index) =>
      value.length <= index || (pushed(E, s, c, `${sp}/items/${index}`, `${ip}/${index}`, sub, value[index]) && c.addIndex(index)));
  }
  const offset = K.prefixItems(schema) ? schema.prefixItems.length : 0;
  return every(value, offset, E, (item, index) => pushed(E, s, c, `${sp}/items`, `${ip}/${index}`, schema.items, item) && c.addIndex(index));
}
function prefixItems(E, s, c, sp, ip, schema, value) {
  return value.length === 0 || every(schema.prefixItems, 0, E, (sub, index) =>
    value.length <= index || (pushed(E, s, c, `${sp}/prefixItems/${index}`, `${ip}/${index}`, sub, value[index]) && c.addIndex(index)));
}
function uniqueItems(E, s, c, sp, ip, schema, value) {
  if (schema.uniqueItems === false) return true;
  const seen = new Set();
  const duplicateItems = [];
  value.forEach((item, index) => {
    const hash = hashValue(item);
    if (seen.has(hash)) duplicateItems.push(index);
    else seen.add(hash);
  });
  return duplicateItems.length === 0 || report(E, c, "uniqueItems", sp, ip, { duplicateItems });
}
const length = (value) => value.length;
const ARRAY = [
  [K.additionalItems, additionalItems], [K.contains, contains], [K.items, items], [K.maxContains, maxContains],
  [K.maxItems, limit("maxItems", length, (n, l) => n <= l)], [K.minContains, minContains],
  [K.minItems, limit("minItems", length, (n, l) => n >= l)], [K.prefixItems, prefixItems], [K.uniqueItems, uniqueItems],
];

// ---------------------------------------------------------------- strings / numbers
function pattern(E, s, c, sp, ip, schema, value) {
  const regexp = isString(schema.pattern) ? new RegExp(schema.pattern, "u") : schema.pattern;
  return regexp.test(value) || report(E, c, "pattern", sp, ip, { pattern: schema.pattern });
}
const format = (E, s, c, sp, ip, schema, value) => testFormat(schema.format, value) || report(E, c, "format", sp, ip, { format: schema.format });
const STRING = [
  [K.maxLength, limit("maxLength", (v, l) => graphemeCount(v, l), (n, l) => n <= l)],
  [K.minLength, limit("minLength", (v, l) => graphemeCount(v, l), (n, l) => n >= l)],
  [K.format, format], [K.pattern, pattern],
];
const bound = (keyword, comparison, test) => (E, s, c, sp, ip, schema, value) =>
  test(value, schema[keyword]) || report(E, c, keyword, sp, ip, { comparison, limit: schema[keyword] });
const multipleOf = (E, s, c, sp, ip, schema, value) =>
  isMultipleOf(value, schema.multipleOf) || report(E, c, "multipleOf", sp, ip, { multipleOf: schema.multipleOf });
const NUMBER = [
  [K.exclusiveMaximum, bound("exclusiveMaximum", "<", (v, l) => v < l)],
  [K.exclusiveMinimum, bound("exclusiveMinimum", ">", (v, l) => v > l)],
  [K.maximum, bound("maximum", "<=", (v, l) => v <= l)],
  [K.minimum, bound("minimum", ">=", (v, l) => v >= l)],
  [K.multipleOf, multipleOf],
];

// ---------------------------------------------------------------- general
function ref(E, s, c, sp, ip, schema, value) {
  const target = s.ref(schema) ?? false;
  const next = fresh(E);
  const ok = isSchema(target) && validate(E, s, next, "#", ip, target, value);
  if (ok) c.merge([next]);
  else if (E) forward(c, [next]);
  return ok;
}
function recursiveRef(E, s, c, sp, ip, schema, value) {
  const target = s.recursiveRef(schema) ?? false;
  return isSchema(target) && validate(E, s, c, "#", ip, target, value);
}
function dynamicRef(E, s, c, sp, ip, schema, value) {
  const target = s.dynamicRef(schema) ?? false;
  return isSchema(target) && validate(E, s, c, "#", ip, target, value);
}
const sameValue = (expected, value) => (isValueLike(expected) ? value === expected : deepEqual(value, expected));
const constant = (E, s, c, sp, ip, schema, value) => sameValue(schema.const, value) || report(E, c, "const", sp, ip, { allowedValue: schema.const });
const enumeration = (E, s, c, sp, ip, schema, value) =>
  schema.enum.some((option) => sameValue(option, value)) || report(E, c, "enum", sp, ip, { allowedValues: schema.enum });
function conditional(E, s, c, sp, ip, schema, value) {
  const thenSchema = K.then(schema) ? schema.then : true;
  const elseSchema = K.else(schema) ? schema.else : true;
  if (!E) return validate(E, s, c, sp, ip, schema.if, value) ? validate(E, s, c, sp, ip, thenSchema, value) : validate(E, s, c, sp, ip, elseSchema, value);
  const branch = new CollectingContext();
  const ok = validate(E, s, branch, `${sp}/if`, ip, schema.if, value)
    ? validate(E, s, branch, `${sp}/then`, ip, thenSchema, value) || report(E, c, "if", sp, ip, { failingKeyword: "then" })
    : validate(E, s, c, `${sp}/else`, ip, elseSchema, value) || report(E, c, "if", sp, ip, { failingKeyword: "else" });
  if (ok) c.merge([branch]);
  return ok;
}
function not(E, s, c, sp, ip, schema, value) {
  const next = new CheckContext();
  const ok = !validate(false, s, next, sp, ip, schema.not, value) && c.merge([next]);
  return ok || report(E, c, "not", sp, ip, {});
}
/** Run each sub-schema in its own context; returns passing and failing contexts. */
function branches(E, s, sp, ip, schemas, keyword, value) {
  const passed = [];
  const failed = [];
  const passing = [];
  schemas.forEach((sub, index) => {
    const next = fresh(E);
    if (validate(E, s, next, `${sp}/${keyword}/${index}`, ip, sub, value)) {
      passed.push(next);
      passing.push(index);
    } else failed.push(next);
  });
  return { passed, failed, passing };
}
function allOf(E, s, c, sp, ip, schema, value) {
  const { passed, failed } = branches(E, s, sp, ip, schema.allOf, "allOf", value);
  const ok = passed.length === schema.allOf.length && c.merge(passed);
  if (!ok && E) forward(c, failed);
  return ok;
}
function anyOf(E, s, c, sp, ip, schema, value) {
  const { passed, failed } = branches(E, s, sp, ip, schema.anyOf, "anyOf", value);
  const ok = passed.length > 0 && c.merge(passed);
  if (ok || !E) return ok;
  forward(c, failed);
  return report(E, c, "anyOf", sp, ip, {});
}
function oneOf(E, s, c, sp, ip, schema, value) {
  const { passed, failed, passing } = branches(E, s, sp, ip, schema.oneOf, "oneOf", value);
  const ok = passed.length === 1 && c.merge(passed);
  if (ok || !E) return ok;
  if (passing.length === 0) forward(c, failed);
  return report(E, c, "oneOf", sp, ip, { passingSchemas: passing });
}
function unevaluatedItems(E, s, c, sp, ip, schema, value) {
  if (!isArray(value)) return true;
  const evaluated = c.top().indices;
  const rejected = [];
  const ok = every(value, 0, E, (item, index) => {
    const passed = (evaluated.has(index) || validate(E, s, E ? new CollectingContext() : c, sp, ip, schema.unevaluatedItems, item)) && c.addIndex(index);
    if (!passed) rejected.push(index);
    return passed;
  });
  return ok || report(E, c, "unevaluatedItems", sp, ip, { unevaluatedItems: rejected });
}
function unevaluatedProperties(E, s, c, sp, ip, schema, value) {
  if (!isObject(value)) return true;
  const evaluated = c.top().keys;
  const rejected = [];
  const ok = every(Object.entries(value), 0, E, ([key, item]) => {
    const passed = evaluated.has(key) || (validate(E, s, E ? new CollectingContext() : c, sp, ip, schema.unevaluatedProperties, item) && c.addKey(key));
    if (!passed) rejected.push(key);
    return passed;
  });
  return ok || report(E, c, "unevaluatedProperties", sp, ip, { unevaluatedProperties: rejected });
}
function refine(E, c, sp, ip, schema, value) {
  return every(schema["~refine"], 0, E, (refinement, index) =>
    refinement.check(value) || (E && report(E, c, "~refine", sp, ip, { index, message: refinement.error(value) })));
}
const GENERAL = [
  [K.$ref, ref], [K.$recursiveRef, recursiveRef], [K.$dynamicRef, dynamicRef], [K.const, constant], [K.enum, enumeration],
  [K.if, conditional], [K.not, not], [K.allOf, allOf], [K.anyOf, anyOf], [K.oneOf, oneOf],
  [K.unevaluatedItems, unevaluatedItems], [K.unevaluatedProperties, unevaluatedProperties],
];

// ---------------------------------------------------------------- messages
function message(error) {
  const p = error.params;
  switch (error.keyword) {
    case "additionalProperties": return "must not have additional properties";
    case "anyOf": return "must match a schema in anyOf";
    case "boolean": return "schema is false";
    case "const": return "must be equal to constant";
    case "contains": return "must contain at least 1 valid item";
    case "dependencies":
    case "dependentRequired": return `must have properties ${p.dependencies.join(", ")} when property ${p.property} is present`;
    case "enum": return "must be equal to one of the allowed values";
    case "exclusiveMaximum":
    case "exclusiveMinimum":
    case "maximum":
    case "minimum": return `must be ${p.comparison} ${p.limit}`;
    case "format": return `must match format "${p.format}"`;
    case "if": return `must match "${p.failingKeyword}" schema`;
    case "maxItems": return `must not have more than ${p.limit} items`;
    case "maxLength": return `must not have more than ${p.limit} characters`;
    case "maxProperties": return `must not have more than ${p.limit} properties`;
    case "minItems": return `must not have fewer than ${p.limit} items`;
    case "minLength": return `must not have fewer than ${p.limit} characters`;
    case "minProperties": return `must not have fewer than ${p.limit} properties`;
    case "multipleOf": return `must be multiple of ${p.multipleOf}`;
    case "not": return "must not be valid";
    case "oneOf": return "must match exactly one schema in oneOf";
    case "pattern": return `must match pattern "${p.pattern}"`;
    case "propertyNames": return `property names ${p.propertyNames.join(", ")} are invalid`;
    case "required": return `must have required properties ${p.requiredProperties.join(", ")}`;
    case "type": return typeof p.type === "string" ? `must be ${p.type}` : `must be either ${p.type.join(" or ")}`;
    case "unevaluatedItems": return "must not have unevaluated items";
    case "unevaluatedProperties": return "must not have unevaluated properties";
    case "uniqueItems": return "must not have duplicate items";
    case "~refine": return p.message;
    default: return "an unknown validation error occurred";
  }
}

// ---------------------------------------------------------------- api
export function checkSchema(context, schema, value) {
  return validate(false, new Stack(context, schema), new CheckContext(), "", "", schema, value);
}
/** [valid, errors] with at most settings.maxErrors errors, each with a message. */
export function schemaErrors(context, schema, value) {
  const errors = [];
  const collector = new ErrorContext((error) => {
    if (errors.length >= settings.maxErrors) return;
    errors.push({ ...error, message: message(error) });
  });
  const ok = validate(true, new Stack(context, schema), collector, "#", "", schema, value);
  return [ok, errors];
}
