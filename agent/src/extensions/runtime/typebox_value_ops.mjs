// Value operations on TypeBox types: Check, Errors, Convert, Default, Clean,
// Create, Parse, Assert. Conversions follow the type kinds (`~kind`), so plain
// JSON schemas pass through Convert / Default / Clean unchanged unless they
// carry `default` annotations.
import {
  isArray, isObject, isObjectNotArray, isString, isNumber, isBigInt, isBoolean, isFunction, isUndefined,
  hasKey, keysOf, cloneValue, deepEqual, hashValue,
} from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import { checkSchema, schemaErrors } from "./typebox_schema.mjs";
import { Evaluate, Record, With } from "./typebox_actions.mjs";
import { Instantiate } from "./typebox_instantiate.mjs";
import { Priority } from "./typebox_evaluate.mjs";
import { RecordKey, TemplateLiteralDecode } from "./typebox_template.mjs";

/** (context, type, value) or (type, value), like TypeBox's overloads. */
export function contextTypeValue(args) {
  if (args.length === 3) return args;
  if (args.length === 2) return [{}, args[0], args[1]];
  throw Error("Invalid Arguments");
}
export function contextType(args) {
  if (args.length === 2) return args;
  if (args.length === 1) return [{}, args[0]];
  throw Error("Invalid Arguments");
}

export const Check = (...args) => checkSchema(...contextTypeValue(args));
export const Errors = (...args) => schemaErrors(...contextTypeValue(args))[1];
export const Clone = (value) => cloneValue(value);
export const Equal = (left, right) => deepEqual(left, right);
export const Hash = (value) => hashValue(value);
export const IsOptionalUndefined = (property, key, value) => T.IsOptional(property) && isUndefined(value[key]);
const hasDefault = (schema) => hasKey(schema, "default");
const isAdditionalSchema = (type) => hasKey(type, "additionalProperties") && (isObjectNotArray(type.additionalProperties) || isBoolean(type.additionalProperties));
const evaluated = (context, type) => Evaluate(Instantiate(context, type));

// ---------------------------------------------------------------- errors
export class AssertError extends Error {
  constructor(source, value, errors) {
    super(source);
    Object.defineProperty(this, "cause", { value: { source, errors, value }, writable: false, configurable: false, enumerable: false });
  }
}
export class ParseError extends AssertError {
  constructor(value, errors) {
    super("Parse", value, errors);
  }
}
export class CreateError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}

// ---------------------------------------------------------------- convert
const ok = (value) => ({ value });
const bigintText = /^-?(0|[1-9]\d*)n$/;
const decimalText = /^-?(0|[1-9]\d*)\.\d+$/;
const integerText = /^-?(0|[1-9]\d*)$/;
const MAX_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_BIG = BigInt(Number.MIN_SAFE_INTEGER);

function tryBigInt(v) {
  if (isBigInt(v)) return ok(v);
  if (isBoolean(v)) return ok(v ? 1n : 0n);
  if (isNumber(v)) return ok(BigInt(Math.trunc(v)));
  if (v === null || v === undefined) return ok(0n);
  if (!isString(v)) return undefined;
  const lower = v.toLowerCase();
  if (bigintText.test(v)) return ok(BigInt(v.slice(0, -1)));
  if (decimalText.test(v)) return ok(BigInt(v.split(".")[0]));
  if (integerText.test(v)) return ok(BigInt(v));
  if (lower === "false") return ok(0n);
  if (lower === "true") return ok(1n);
  return undefined;
}
const safeNumber = (big) => (big <= MAX_BIG && big >= MIN_BIG ? ok(Number(big)) : undefined);
function tryNumber(v) {
  if (isBigInt(v)) return safeNumber(v);
  if (isBoolean(v)) return ok(v ? 1 : 0);
  if (isNumber(v)) return ok(v);
  if (v === null || v === undefined) return ok(0);
  if (!isString(v)) return undefined;
  const coerced = +v;
  if (isNumber(coerced)) return ok(coerced);
  const lower = v.toLowerCase();
  if (lower === "false") return ok(0);
  if (lower === "true") return ok(1);
  const big = tryBigInt(v);
  return big ? safeNumber(big.value) : undefined;
}
function tryBoolean(v) {
  if (isBigInt(v)) return v === 0n ? ok(false) : v === 1n ? ok(true) : undefined;
  if (isBoolean(v)) return ok(v);
  if (isNumber(v)) return v === 0 ? ok(false) : v === 1 ? ok(true) : undefined;
  if (v === null || v === undefined) return ok(false);
  if (!isString(v)) return undefined;
  const lower = v.toLowerCase();
  if (lower === "false" || v === "0") return ok(false);
  if (lower === "true" || v === "1") return ok(true);
  return undefined;
}
function tryString(v) {
  if (isBigInt(v) || isBoolean(v) || isNumber(v)) return ok(v.toString());
  if (v === null) return ok("null");
  if (isString(v)) return ok(v);
  if (v === undefined) return ok("");
  return undefined;
}
/** Null-like conversion (used for both null and undefined targets). */
function tryNullish(v, target) {
  if (isBigInt(v)) return v === 0n ? ok(target) : undefined;
  if (isBoolean(v)) return v === false ? ok(target) : undefined;
  if (isNumber(v)) return v === 0 ? ok(target) : undefined;
  if (v === null || v === undefined) return ok(target);
  if (!isString(v)) return undefined;
  const lower = v.toLowerCase();
  return lower === "undefined" || lower === "null" || v === "" || v === "0" ? ok(target) : undefined;
}
const orValue = (result, value) => (result ? result.value : value);

function convertLiteral(type, value) {
  if (type.const === value) return value;
  const attempt = T.IsLiteralBigInt(type) ? tryBigInt(value) : T.IsLiteralBoolean(type) ? tryBoolean(value)
    : T.IsLiteralNumber(type) ? tryNumber(value) : T.IsLiteralString(type) ? tryString(value) : undefined;
  return attempt && attempt.value === type.const ? attempt.value : value;
}
function convertAdditional(context, entries, additional, value) {
  const keys = keysOf(value);
  for (const [regexp] of entries) {
    for (const key of keys) if (!regexp.test(key)) value[key] = convert(context, additional, value[key]);
  }
  return value;
}
const keyRegExps = (properties) => keysOf(properties).map((key) => [new RegExp(`^${key}$`), properties[key]]);
function convertProperties(context, type, entries, value, skip) {
  const keys = keysOf(value);
  for (const [regexp, schema] of entries) {
    for (const key of keys) {
      if (regexp.test(key) && !skip(schema, key)) value[key] = convert(context, schema, value[key]);
    }
  }
  return hasKey(type, "additionalProperties") && isObject(type.additionalProperties)
    ? convertAdditional(context, entries, type.additionalProperties, value) : value;
}
function convertUnion(context, type, value) {
  if (type.anyOf.some((member) => checkSchema(context, member, value))) return value;
  const candidates = type.anyOf.map((member) => convert(context, member, cloneValue(value)));
  const selected = candidates.find((candidate) => checkSchema(context, type, candidate));
  return isUndefined(selected) ? value : selected;
}
function convert(context, type, value) {
  if (T.IsArray(type)) return (isArray(value) ? value : [value]).map((item) => convert(context, type.items, item));
  if (T.IsBigInt(type)) return orValue(tryBigInt(value), value);
  if (T.IsBoolean(type)) return orValue(tryBoolean(value), value);
  if (T.IsCyclic(type)) return convert({ ...context, ...type.$defs }, T.Ref(type.$ref), value);
  if (T.IsEnum(type)) return convert(context, Evaluate(type), value);
  if (T.IsInteger(type)) {
    const result = tryNumber(value);
    return result ? Math.trunc(result.value) : value;
  }
  if (T.IsIntersect(type)) return convert(context, evaluated(context, type), value);
  if (T.IsLiteral(type)) return convertLiteral(type, value);
  if (T.IsNull(type)) return orValue(tryNullish(value, null), value);
  if (T.IsNumber(type)) return orValue(tryNumber(value), value);
  if (T.IsObject(type)) {
    if (!isObjectNotArray(value)) return value;
    return convertProperties(context, type, keyRegExps(type.properties), value, (schema, key) => IsOptionalUndefined(schema, key, value));
  }
  if (T.IsRecord(type)) {
    if (!isObjectNotArray(value)) return value;
    const entries = keysOf(type.patternProperties).map((key) => [new RegExp(`^${key}$`), type.patternProperties[key]]);
    return convertProperties(context, type, entries, value, () => false);
  }
  if (T.IsRef(type)) return hasKey(context, type.$ref) ? convert(context, context[type.$ref], value) : value;
  if (T.IsString(type)) return orValue(tryString(value), value);
  if (T.IsTemplateLiteral(type)) return convert(context, Evaluate(type), value);
  if (T.IsTuple(type)) {
    if (!isArray(value)) return value;
    for (let i = 0; i < Math.min(type.items.length, value.length); i++) value[i] = convert(context, type.items[i], value[i]);
    return value;
  }
  if (T.IsUndefined(type)) return orValue(tryNullish(value, undefined), value);
  if (T.IsUnion(type)) return convertUnion(context, type, value);
  if (T.IsVoid(type)) return orValue(tryNullish(value, undefined), value);
  return value;
}
export const Convert = (...args) => convert(...contextTypeValue(args));

// ---------------------------------------------------------------- default
function applyDefault(type, value) {
  if (!isUndefined(value)) return value;
  return isFunction(type.default) ? type.default() : cloneValue(type.default);
}
function defaults(context, type, value) {
  const current = hasDefault(type) ? applyDefault(type, value) : value;
  if (T.IsArray(type)) {
    if (isArray(current)) for (let i = 0; i < current.length; i++) current[i] = defaults(context, type.items, current[i]);
    return current;
  }
  if (T.IsCyclic(type)) return defaults({ ...context, ...type.$defs }, T.Ref(type.$ref), current);
  if (T.IsIntersect(type)) return defaults(context, evaluated(context, type), current);
  if (T.IsObject(type)) return defaultObject(context, type, current);
  if (T.IsRecord(type)) return defaultRecord(context, type, current);
  if (T.IsRef(type)) return hasKey(context, type.$ref) ? defaults(context, context[type.$ref], current) : current;
  if (T.IsTuple(type)) {
    if (isArray(current)) for (let i = 0; i < type.items.length; i++) current[i] = defaults(context, type.items[i], current[i]);
    return current;
  }
  if (T.IsUnion(type)) {
    for (const member of type.anyOf) {
      const result = defaults(context, member, cloneValue(current));
      if (checkSchema(context, member, result)) return result;
    }
    return current;
  }
  return current;
}
function defaultObject(context, type, value) {
  if (!isObject(value)) return value;
  const known = keysOf(type.properties);
  for (const key of known) {
    const property = type.properties[key];
    const next = defaults(context, property, value[key]);
    if (isUndefined(next) && (T.IsOptional(property) || !hasKey(property, "default"))) continue;
    value[key] = next;
  }
  if (!isAdditionalSchema(type) || isBoolean(type.additionalProperties)) return value;
  for (const key of keysOf(value)) if (!known.includes(key)) value[key] = defaults(context, type.additionalProperties, value[key]);
  return value;
}
function defaultRecord(context, type, value) {
  if (!isObject(value)) return value;
  const pattern = new RegExp(T.RecordPattern(type));
  const recordValue = T.RecordValue(type);
  for (const key of keysOf(value)) {
    if (pattern.test(key) && hasDefault(recordValue)) value[key] = defaults(context, recordValue, value[key]);
  }
  if (!isAdditionalSchema(type)) return value;
  for (const key of keysOf(value)) if (!pattern.test(key)) value[key] = defaults(context, type.additionalProperties, value[key]);
  return value;
}
export const Default = (...args) => defaults(...contextTypeValue(args));

// ---------------------------------------------------------------- clean
/** Copy of `type` with union members ordered narrowest-first (used by Clean and codecs). */
export function UnionPrioritySort(type) {
  let next;
  if (T.IsArray(type)) next = T.ArrayType(UnionPrioritySort(type.items), T.ArrayOptions(type));
  else if (T.IsIntersect(type)) next = T.Intersect(type.allOf.map(UnionPrioritySort));
  else if (T.IsUnion(type)) next = T.Union(Priority(type.anyOf).map(UnionPrioritySort));
  else if (T.IsObject(type)) {
    const properties = {};
    for (const key of keysOf(type.properties)) properties[key] = UnionPrioritySort(type.properties[key]);
    next = T.ObjectType(properties);
  } else if (T.IsRecord(type)) next = Record(RecordKey(type), UnionPrioritySort(T.RecordValue(type)));
  else if (T.IsTuple(type)) next = T.Tuple(type.items.map(UnionPrioritySort));
  else return type;
  for (const key of keysOf(type)) if (!hasKey(next, key)) next[key] = type[key];
  return next;
}
function cleanUnknown(context, additional, key, value) {
  const keep = additional === true || (T.IsSchema(additional) && checkSchema(context, additional, value[key]));
  if (keep) value[key] = clean(context, additional, value[key]);
  else delete value[key];
}
function clean(context, type, value) {
  if (T.IsArray(type)) return isArray(value) ? value.map((item) => clean(context, type.items, item)) : value;
  if (T.IsCyclic(type)) return clean({ ...context, ...type.$defs }, T.Ref(type.$ref), value);
  if (T.IsIntersect(type)) {
    const widened = hasKey(type, "unevaluatedProperties") ? { additionalProperties: type.unevaluatedProperties } : {};
    const result = evaluated(context, type);
    return clean(context, T.IsObject(result) ? With(result, widened) : result, value);
  }
  if (T.IsObject(type)) {
    if (!isObject(value) || isArray(value)) return value;
    const additional = hasKey(type, "additionalProperties") ? type.additionalProperties : undefined;
    for (const key of keysOf(value)) {
      if (hasKey(type.properties, key)) value[key] = clean(context, type.properties[key], value[key]);
      else cleanUnknown(context, additional, key, value);
    }
    return value;
  }
  if (T.IsRecord(type)) {
    if (!isObject(value)) return value;
    const additional = hasKey(type, "additionalProperties") ? type.additionalProperties : undefined;
    const pattern = new RegExp(T.RecordPattern(type));
    for (const key of keysOf(value)) {
      if (pattern.test(key)) value[key] = clean(context, T.RecordValue(type), value[key]);
      else cleanUnknown(context, additional, key, value);
    }
    return value;
  }
  if (T.IsRef(type)) return hasKey(context, type.$ref) ? clean(context, context[type.$ref], value) : value;
  if (T.IsTuple(type)) {
    if (!isArray(value)) return value;
    const length = Math.min(value.length, type.items.length);
    for (let i = 0; i < length; i++) value[i] = clean(context, type.items[i], value[i]);
    return value.length > length ? value.slice(0, length) : value;
  }
  if (T.IsUnion(type)) {
    for (const member of type.anyOf) {
      const result = clean(context, member, cloneValue(value));
      if (checkSchema(context, member, result)) return result;
    }
    return value;
  }
  return value;
}
export function Clean(...args) {
  const [context, type, value] = contextTypeValue(args);
  return clean(context, UnionPrioritySort(type), value);
}

// ---------------------------------------------------------------- create
function createDefault(type) {
  if (isFunction(type.default)) return type.default(type);
  return isObject(type.default) ? cloneValue(type.default) : type.default;
}
const has = (type, key, test) => hasKey(type, key) && test(type[key]);
function create(context, type) {
  if (hasDefault(type)) return createDefault(type);
  if (T.IsArray(type)) {
    if (has(type, "uniqueItems", isBoolean)) throw new CreateError(type, "Arrays with uniqueItems constraints must specify a default annotation");
    const length = has(type, "minItems", isNumber) ? type.minItems : 0;
    return Array.from({ length }, () => create(context, type.items));
  }
  if (T.IsBigInt(type)) {
    if (has(type, "exclusiveMinimum", (v) => isNumber(v) || isBigInt(v))) return BigInt(type.exclusiveMinimum) + 1n;
    return has(type, "minimum", (v) => isNumber(v) || isBigInt(v)) ? BigInt(type.minimum) : 0n;
  }
  if (T.IsBoolean(type)) return false;
  if (T.IsConstructor(type)) {
    const instance = create(context, type.instanceType);
    return class {
      constructor() {
        Object.assign(this, instance);
      }
    };
  }
  if (T.IsCyclic(type)) return create({ ...context, ...type.$defs }, T.Ref(type.$ref));
  if (T.IsEnum(type)) return create(context, Evaluate(type));
  if (T.IsFunction(type)) {
    const returned = create(context, type.returnType);
    return () => returned;
  }
  if (T.IsInteger(type) || T.IsNumber(type)) {
    if (has(type, "exclusiveMinimum", isNumber)) return type.exclusiveMinimum + 1;
    return has(type, "minimum", (v) => isNumber(v) || isBigInt(v)) ? type.minimum : 0;
  }
  if (T.IsIntersect(type)) return create(context, evaluated(context, type));
  if (T.IsLiteral(type)) return type.const;
  if (T.IsNever(type)) throw new CreateError(type, "Cannot create TNever types");
  if (T.IsNull(type)) return null;
  if (T.IsObject(type)) {
    const required = isUndefined(type.required) ? [] : type.required;
    return required.reduce((result, key) => ({ ...result, [key]: create(context, type.properties[key]) }), {});
  }
  if (T.IsRecord(type)) {
    if (has(type, "minProperties", isNumber)) throw new CreateError(type, "Record with the minProperties constraint must have a default annotation");
    return {};
  }
  if (T.IsRef(type)) {
    if (!hasKey(context, type.$ref)) throw new CreateError(type, "Unable to deref Ref");
    return create(context, context[type.$ref]);
  }
  if (T.IsString(type)) {
    const constrained = has(type, "pattern", (v) => isString(v) || v instanceof RegExp) || has(type, "format", isString);
    if (constrained) throw Error("Strings with format or pattern constraints must specify default");
    return "".padEnd(has(type, "minLength", isNumber) ? type.minLength : 0);
  }
  if (T.IsSymbol(type)) return Symbol();
  if (T.IsTemplateLiteral(type)) {
    const decoded = TemplateLiteralDecode(type.pattern);
    if (T.IsString(decoded)) throw new CreateError(type, "Unable to create TemplateLiteral due to infinite type expansion");
    return create(context, decoded);
  }
  if (T.IsTuple(type)) return Array.from({ length: type.minItems }, (_, i) => create(context, type.items[i]));
  if (T.IsUnion(type)) {
    if (type.anyOf.length === 0) throw Error("Unable to create Union with no variants");
    return create(context, type.anyOf[0]);
  }
  return undefined;
}
export const Create = (...args) => create(...contextType(args));

// ---------------------------------------------------------------- parse / assert
export function Pipeline(steps) {
  return (...args) => {
    const [context, type, value] = contextTypeValue(args);
    return steps.reduce((result, step) => step(context, type, result), value);
  };
}
function assertParsed(context, type, value) {
  if (!checkSchema(context, type, value)) throw new ParseError(value, Errors(context, type, value));
  return value;
}
export const Parser = Pipeline([
  (_context, _type, value) => cloneValue(value),
  (context, type, value) => Default(context, type, value),
  (context, type, value) => Convert(context, type, value),
  (context, type, value) => Clean(context, type, value),
  assertParsed,
]);
export function Parse(...args) {
  const [context, type, value] = contextTypeValue(args);
  if (checkSchema(context, type, value)) return value;
  throw new ParseError(value, Errors(context, type, value));
}
export function Assert(...args) {
  const [context, type, value] = contextTypeValue(args);
  if (!checkSchema(context, type, value)) throw new AssertError("Assert", value, Errors(context, type, value));
}
