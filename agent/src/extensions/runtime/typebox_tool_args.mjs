// Tool-call argument validation as pi-ai does it: clone the arguments, run
// Value.Convert, coerce primitives along a plain JSON schema, then check with
// a compiled validator. Failures throw one Error listing `path: message`
// lines followed by the arguments as received.
import { Compile } from "./typebox_compile.mjs";
import { Convert } from "./typebox_value_ops.mjs";

const validators = new WeakMap();
// pi-ai looks for TypeBox 0.x's kind symbol, which TypeBox 1.x schemas never
// carry, so the JSON-schema coercion step runs for every schema.
const LEGACY_TYPEBOX_KIND = Symbol.for("TypeBox.Kind");

function validatorFor(schema) {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  return validator;
}
function tryValidator(schema) {
  try {
    return validatorFor(schema);
  } catch {
    return undefined;
  }
}

function schemaTypes(schema) {
  if (typeof schema.type === "string") return [schema.type];
  return Array.isArray(schema.type) ? schema.type.filter((type) => typeof type === "string") : [];
}
function isJsonType(value, type) {
  switch (type) {
    case "number": return typeof value === "number";
    case "integer": return typeof value === "number" && Number.isInteger(value);
    case "boolean": return typeof value === "boolean";
    case "string": return typeof value === "string";
    case "null": return value === null;
    case "array": return Array.isArray(value);
    case "object": return typeof value === "object" && value !== null && !Array.isArray(value);
    default: return false;
  }
}

/** Loose conversion of one primitive toward a JSON type; returns `value` when none applies. */
function coercePrimitive(value, type) {
  const fromText = (accept) => {
    if (typeof value !== "string" || value.trim() === "") return undefined;
    const parsed = Number(value);
    return accept(parsed) ? parsed : undefined;
  };
  switch (type) {
    case "number":
    case "integer": {
      if (value === null) return 0;
      const parsed = fromText(type === "number" ? Number.isFinite : Number.isInteger);
      if (parsed !== undefined) return parsed;
      return typeof value === "boolean" ? (value ? 1 : 0) : value;
    }
    case "boolean":
      if (value === null) return false;
      if (value === "true" || value === 1) return true;
      if (value === "false" || value === 0) return false;
      return value;
    case "string":
      if (value === null) return "";
      return typeof value === "number" || typeof value === "boolean" ? String(value) : value;
    case "null":
      return value === "" || value === 0 || value === false ? null : value;
    default:
      return value;
  }
}

function coerceObject(value, schema) {
  const properties = schema.properties;
  const declared = new Set(properties ? Object.keys(properties) : []);
  if (properties) {
    for (const [key, propertySchema] of Object.entries(properties)) {
      if (key in value) value[key] = coerce(value[key], propertySchema);
    }
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (!declared.has(key)) value[key] = coerce(item, schema.additionalProperties);
    }
  }
}
function coerceArray(value, schema) {
  if (Array.isArray(schema.items)) {
    for (let i = 0; i < value.length; i++) if (schema.items[i]) value[i] = coerce(value[i], schema.items[i]);
  } else if (schema.items && typeof schema.items === "object") {
    for (let i = 0; i < value.length; i++) value[i] = coerce(value[i], schema.items);
  }
}
/** Keep a value some member accepts; otherwise the first member a coerced copy satisfies. */
function coerceUnion(value, schemas) {
  for (const schema of schemas) if (tryValidator(schema)?.Check(value)) return value;
  for (const schema of schemas) {
    const candidate = coerce(structuredClone(value), schema);
    if (tryValidator(schema)?.Check(candidate)) return candidate;
  }
  return value;
}
function coerce(value, schema) {
  let next = value;
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) next = coerce(next, part);
  if (Array.isArray(schema.anyOf)) next = coerceUnion(next, schema.anyOf);
  if (Array.isArray(schema.oneOf)) next = coerceUnion(next, schema.oneOf);
  const types = schemaTypes(schema);
  const matchesMember = types.length > 1 && types.some((type) => isJsonType(next, type));
  if (types.length > 0 && !matchesMember) {
    for (const type of types) {
      const candidate = coercePrimitive(next, type);
      if (candidate !== next) {
        next = candidate;
        break;
      }
    }
  }
  if (types.includes("object") && typeof next === "object" && next !== null && !Array.isArray(next)) coerceObject(next, schema);
  if (types.includes("array") && Array.isArray(next)) coerceArray(next, schema);
  return next;
}

/** `a.b.c` from an instance path; required errors name the missing property. */
function errorPath(error) {
  const base = error.instancePath.replace(/^\//, "").replace(/\//g, ".");
  if (error.keyword === "required") {
    const missing = error.params.requiredProperties?.[0];
    if (missing) return base ? `${base}.${missing}` : missing;
  }
  return base || "root";
}

/** Validated (possibly coerced) arguments for `toolCall`, or a thrown Error describing every problem. */
export function validateToolArguments(tool, toolCall) {
  const args = structuredClone(toolCall.arguments);
  Convert(tool.parameters, args);
  const validator = validatorFor(tool.parameters);
  if (!Object.getOwnPropertySymbols(tool.parameters).includes(LEGACY_TYPEBOX_KIND)) {
    const coerced = coerce(args, tool.parameters);
    if (coerced !== args) {
      const bothObjects = typeof args === "object" && args !== null && typeof coerced === "object" && coerced !== null;
      if (!bothObjects) return validator.Check(coerced) ? coerced : args;
      for (const key of Object.keys(args)) delete args[key];
      Object.assign(args, coerced);
    }
  }
  if (validator.Check(args)) return args;
  const lines = validator.Errors(args).map((error) => `  - ${errorPath(error)}: ${error.message}`).join("\n") || "Unknown validation error";
  throw new Error(`Validation failed for tool "${toolCall.name}":\n${lines}\n\nReceived arguments:\n${JSON.stringify(toolCall.arguments, null, 2)}`);
}

/** Find the tool named by the call and validate its arguments. */
export function validateToolCall(tools, toolCall) {
  const tool = tools.find((t) => t.name === toolCall.name);
  if (!tool) throw new Error(`Tool "${toolCall.name}" not found`);
  return validateToolArguments(tool, toolCall);
}
