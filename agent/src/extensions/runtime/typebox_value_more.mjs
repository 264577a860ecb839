// More value operations: Repair, codecs (Decode / Encode), Diff / Patch
// edits and the value Pointer.
import { isArray, isObject, isObjectNotArray, isFunction, isConstructor, isUndefined, isNull, hasKey, keysOf, isUnsafeKey, cloneValue, deepEqual, hashValue } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import { checkSchema } from "./typebox_schema.mjs";
import { Evaluate } from "./typebox_actions.mjs";
import { Instantiate } from "./typebox_instantiate.mjs";
import { Flatten } from "./typebox_evaluate.mjs";
import { TemplateLiteralDecode } from "./typebox_template.mjs";
import { Pointer } from "./typebox_pointer.mjs";
import {
  AssertError, Assert, Clean, Convert, Create, Default, Errors, Pipeline, UnionPrioritySort, contextTypeValue, contextType,
} from "./typebox_value_ops.mjs";

export { Pointer };
const evaluated = (context, type) => Evaluate(Instantiate(context, type));

// ---------------------------------------------------------------- repair
export class RepairError extends Error {
  constructor(context, type, value, message) {
    super(message);
    this.context = context;
    this.type = type;
    this.value = value;
  }
}
function deref(context, type) {
  if (!T.IsRef(type)) return type;
  if (!hasKey(context, type.$ref)) throw new Error("Unable to Deref target");
  return deref(context, context[type.$ref]);
}
function scoreVariant(context, type, value) {
  if (!(T.IsObject(type) && isObject(value))) return 0;
  const keys = keysOf(value);
  return Object.entries(type.properties).reduce((score, [key, schema]) => {
    const literal = T.IsLiteral(schema) && schema.const === value[key] ? 100 : 0;
    const checks = checkSchema(context, schema, value[key]) ? 10 : 0;
    return score + literal + checks + (keys.includes(key) ? 1 : 0);
  }, 0);
}
/** The union member that best matches an object value. */
export function UnionScoreSelect(context, type, value) {
  const schemas = type.anyOf.map((schema) => deref(context, schema));
  let [selected, best] = [schemas[0], 0];
  for (const schema of schemas) {
    const score = scoreVariant(context, schema, value);
    if (score > best) [selected, best] = [schema, score];
  }
  return selected;
}
function repairArray(context, type, value) {
  if (checkSchema(context, type, value)) return value;
  let items = isArray(value) ? value : Create(context, type);
  if (hasKey(type, "minItems") && items.length < type.minItems) {
    items = [...items, ...Array.from({ length: type.minItems - items.length }, () => Create(context, type))];
  }
  if (hasKey(type, "maxItems") && items.length > type.maxItems) items = items.slice(0, type.maxItems);
  const repaired = items.map((item) => repair(context, type.items, item));
  if (type.uniqueItems !== true) return repaired;
  const seen = new Set();
  const unique = repaired.filter((item) => {
    const hash = hashValue(item);
    return seen.has(hash) ? false : (seen.add(hash), true);
  });
  if (!checkSchema(context, type, unique)) throw new RepairError(context, type, value, "Failed to repair Array due to uniqueItems constraint");
  return unique;
}
function repairObject(context, type, value) {
  if (checkSchema(context, type, value)) return value;
  if (!isObjectNotArray(value)) return Create(context, type);
  const required = new Set(isUndefined(type.required) ? [] : type.required);
  const result = {};
  for (const [key, schema] of Object.entries(type.properties)) {
    if (!required.has(key) && isUndefined(value[key])) continue;
    result[key] = key in value ? repair(context, schema, value[key]) : Create(context, schema);
  }
  if (hasKey(type, "additionalProperties") && isObject(type.additionalProperties)) {
    const known = keysOf(type.properties);
    for (const key of keysOf(value)) if (!known.includes(key)) result[key] = repair(context, type.additionalProperties, value[key]);
  }
  return result;
}
function repairRecord(context, type, value) {
  if (checkSchema(context, type, value)) return value;
  if (isNull(value) || !isObject(value) || isArray(value)) return Create(context, type);
  const pattern = new RegExp(T.RecordPattern(type));
  const seen = new Set();
  const result = {};
  for (const [key, item] of Object.entries(value)) {
    if (!pattern.test(key)) continue;
    result[key] = repair(context, T.RecordValue(type), item);
    seen.add(key);
  }
  if (hasKey(type, "additionalProperties") && (isObjectNotArray(type.additionalProperties) || typeof type.additionalProperties === "boolean")) {
    for (const key of keysOf(value)) if (!seen.has(key)) result[key] = repair(context, type.additionalProperties, value[key]);
  }
  return result;
}
function repairKind(context, type, value) {
  if (T.IsArray(type)) return repairArray(context, type, value);
  if (T.IsEnum(type)) return repair(context, Evaluate(type), value);
  if (T.IsIntersect(type)) return repair(context, evaluated(context, type), value);
  if (T.IsObject(type)) return repairObject(context, type, value);
  if (T.IsRecord(type)) return repairRecord(context, type, value);
  if (T.IsRef(type)) {
    if (!hasKey(context, type.$ref)) throw new RepairError(context, type, value, "Unable to de-reference target type");
    return repair(context, context[type.$ref], value);
  }
  if (T.IsTemplateLiteral(type)) return repair(context, TemplateLiteralDecode(type.pattern), value);
  if (T.IsTuple(type)) {
    if (checkSchema(context, type, value)) return value;
    if (!isArray(value)) return Create(context, type);
    return type.items.map((schema, index) => repair(context, schema, value[index]));
  }
  if (T.IsUnion(type)) {
    if (checkSchema(context, type, value)) return cloneValue(value);
    if (hasKey(type, "default")) return Create(context, type);
    return repair(context, UnionScoreSelect(context, T.Union(Flatten(type.anyOf)), value), value);
  }
  if (checkSchema(context, type, value)) return value;
  const converted = Convert(context, type, value);
  return checkSchema(context, type, converted) ? converted : Create(context, type);
}
function repair(context, type, value) {
  const unrepairableValue = value instanceof Date || value instanceof Map || value instanceof Set ||
    ArrayBuffer.isView(value) || isConstructor(value) || isFunction(value);
  if (unrepairableValue) throw new RepairError(context, type, value, "Value is not repairable");
  if (T.IsConstructor(type) || T.IsFunction(type) || T.IsNever(type)) throw new RepairError(context, type, value, "Type is not repairable");
  const candidate = isUndefined(value) && !T.IsUndefined(type) ? Create(context, type) : value;
  const repaired = repairKind(context, type, candidate);
  if (!T.IsRefine(type)) return repaired;
  return checkSchema(context, type, repaired) ? repaired : Create(context, type);
}
export function Repair(...args) {
  const [context, type, value] = contextTypeValue(args);
  const repaired = repair(context, type, value);
  Assert(context, type, repaired);
  return repaired;
}

// ---------------------------------------------------------------- codecs
function callback(direction, type, value) {
  if (!T.IsCodec(type)) return value;
  return direction === "Decode" ? type["~codec"].decode(value) : type["~codec"].encode(value);
}
/** Apply `walk` to the interior, before (encode) or after (decode) the type's own codec. */
function around(direction, type, value, guard, walk) {
  if (direction === "Decode") {
    if (!guard(value)) return value;
    return callback(direction, type, walk(value));
  }
  const exterior = callback(direction, type, value);
  return guard(exterior) ? walk(exterior) : exterior;
}
function codec(direction, context, type, value) {
  const inner = (schema, item) => codec(direction, context, schema, item);
  if (T.IsArray(type)) {
    return around(direction, type, value, isArray, (items) => {
      for (let i = 0; i < items.length; i++) items[i] = inner(type.items, items[i]);
      return items;
    });
  }
  if (T.IsCyclic(type)) {
    const walked = codec(direction, { ...context, ...type.$defs }, T.Ref(type.$ref), value);
    return callback(direction, type, walked);
  }
  if (T.IsIntersect(type)) return codecIntersect(direction, context, type, value);
  if (T.IsObject(type)) {
    return around(direction, type, value, isObjectNotArray, (object) => {
      for (const key of keysOf(type.properties)) {
        const property = type.properties[key];
        if (!hasKey(object, key) || (T.IsOptional(property) && isUndefined(object[key]))) continue;
        object[key] = inner(property, object[key]);
      }
      return object;
    });
  }
  if (T.IsRecord(type)) {
    const pattern = new RegExp(T.RecordPattern(type));
    return around(direction, type, value, isObjectNotArray, (object) => {
      for (const key of keysOf(object)) if (pattern.test(key)) object[key] = inner(T.RecordValue(type), object[key]);
      return object;
    });
  }
  if (T.IsRef(type)) {
    const resolve = (item) => (hasKey(context, type.$ref) ? inner(context[type.$ref], item) : item);
    return direction === "Decode" ? callback(direction, type, resolve(value)) : resolve(callback(direction, type, value));
  }
  if (T.IsTuple(type)) {
    if (direction === "Encode") {
      const exterior = callback(direction, type, value);
      if (!isArray(exterior)) return value;
      for (let i = 0; i < Math.min(type.items.length, exterior.length); i++) exterior[i] = inner(type.items[i], exterior[i]);
      return exterior;
    }
    if (!isArray(value)) return value;
    for (let i = 0; i < Math.min(type.items.length, value.length); i++) value[i] = inner(type.items[i], value[i]);
    return callback(direction, type, value);
  }
  if (T.IsUnion(type)) {
    if (direction === "Decode") {
      for (const schema of type.anyOf) {
        if (checkSchema(context, schema, value)) return callback(direction, type, inner(schema, value));
      }
      return value;
    }
    const exterior = callback(direction, type, value);
    for (const schema of type.anyOf) {
      const variant = inner(schema, cloneValue(exterior));
      if (checkSchema(context, schema, variant)) return variant;
    }
    return exterior;
  }
  return callback(direction, type, value);
}
function codecIntersect(direction, context, type, value) {
  if (type.allOf.length === 0) return callback(direction, type, value);
  const exterior = direction === "Decode" ? value : callback(direction, type, value);
  const interiors = type.allOf.map((schema) => codec(direction, context, schema, Clean(schema, cloneValue(exterior))));
  const merged = interiors.every(isObject)
    ? interiors.reduce((result, interior) => ({ ...result, ...interior }), {})
    : interiors.find((interior) => !deepEqual(exterior, interior)) ?? exterior;
  return direction === "Decode" ? callback(direction, type, merged) : merged;
}

export class DecodeError extends AssertError {
  constructor(value, errors) {
    super("Decode", value, errors);
  }
}
export class EncodeError extends AssertError {
  constructor(value, errors) {
    super("Encode", value, errors);
  }
}
const assertWith = (ErrorClass) => (context, type, value) => {
  if (!checkSchema(context, type, value)) throw new ErrorClass(value, Errors(context, type, value));
  return value;
};
export const DecodeUnsafe = (context, type, value) => codec("Decode", context, UnionPrioritySort(type), value);
export const EncodeUnsafe = (context, type, value) => codec("Encode", context, UnionPrioritySort(type), value);
const decoder = Pipeline([
  (_c, _t, value) => cloneValue(value), Default, Convert, Clean, assertWith(DecodeError), DecodeUnsafe,
]);
const encoder = Pipeline([
  (_c, _t, value) => cloneValue(value), EncodeUnsafe, Default, Convert, Clean, assertWith(EncodeError),
]);
export const Decode = (...args) => decoder(...contextTypeValue(args));
export const Encode = (...args) => encoder(...contextTypeValue(args));

/** Whether any part of the type carries a codec. */
export function HasCodec(...args) {
  const [context, type] = contextType(args);
  const visited = new Set();
  const walk = (ctx, t) => {
    if (T.IsCodec(t)) return true;
    if (T.IsArray(t)) return walk(ctx, t.items);
    if (T.IsCyclic(t)) return walkRef({ ...ctx, ...t.$defs }, T.Ref(t.$ref));
    if (T.IsIntersect(t)) return t.allOf.some((part) => walk(ctx, part));
    if (T.IsObject(t)) return keysOf(t.properties).some((key) => walk(ctx, t.properties[key]));
    if (T.IsRecord(t)) return walk(ctx, T.RecordValue(t));
    if (T.IsRef(t)) return walkRef(ctx, t);
    if (T.IsTuple(t)) return t.items.some((part) => walk(ctx, part));
    if (T.IsUnion(t)) return t.anyOf.some((part) => walk(ctx, part));
    return false;
  };
  const walkRef = (ctx, t) => {
    if (visited.has(t.$ref)) return false;
    visited.add(t.$ref);
    return T.IsCodec(t) || (hasKey(ctx, t.$ref) && walk(ctx, ctx[t.$ref]));
  };
  return walk(context, type);
}

// ---------------------------------------------------------------- diff / patch
export const Insert = T.ObjectType({ type: T.Literal("insert"), path: T.StringType(), value: T.Unknown() });
// TypeBox 1.x builds Update with the global Object(), i.e. a plain object of types.
export const Update = { type: T.Literal("update"), path: T.StringType(), value: T.Unknown() };
export const Delete = T.ObjectType({ type: T.Literal("delete"), path: T.StringType() });
export const Edit = T.Union([Insert, Update, Delete]);

const update = (path, value) => ({ type: "update", path, value });
function* diffObject(path, left, right) {
  if (!isObject(right) || isArray(right)) return yield update(path, right);
  for (const side of [left, right]) {
    if (!(isObject(side) && Object.getOwnPropertySymbols(side).length === 0)) throw new Error("Cannot create diffs for objects with symbols keys");
  }
  const leftKeys = keysOf(left);
  for (const key of keysOf(right)) {
    if (!hasKey(left, key) && !isUnsafeKey(key)) yield { type: "insert", path: `${path}/${key}`, value: right[key] };
  }
  for (const key of leftKeys) {
    if (!hasKey(right, key) || isUnsafeKey(key) || deepEqual(left, right)) continue;
    yield* diffValue(`${path}/${key}`, left[key], right[key]);
  }
  for (const key of leftKeys) {
    if (!hasKey(right, key) && !isUnsafeKey(key)) yield { type: "delete", path: `${path}/${key}` };
  }
}
function* diffArray(path, left, right) {
  if (!isArray(right)) return yield update(path, right);
  for (let i = 0; i < Math.min(left.length, right.length); i++) yield* diffValue(`${path}/${i}`, left[i], right[i]);
  for (let i = left.length; i < right.length; i++) yield { type: "insert", path: `${path}/${i}`, value: right[i] };
  for (let i = left.length - 1; i >= right.length; i--) yield { type: "delete", path: `${path}/${i}` };
}
function* diffTyped(path, left, right) {
  const sameKind = ArrayBuffer.isView(right) && left.length === right.length &&
    Object.getPrototypeOf(left).constructor.name === Object.getPrototypeOf(right).constructor.name;
  if (!sameKind) return yield update(path, right);
  for (let i = 0; i < left.length; i++) yield* diffValue(`${path}/${i}`, left[i], right[i]);
}
function* diffValue(path, left, right) {
  if (ArrayBuffer.isView(left)) return yield* diffTyped(path, left, right);
  if (isArray(left)) return yield* diffArray(path, left, right);
  if (isObject(left)) return yield* diffObject(path, left, right);
  if (left !== right) yield update(path, right);
}
export const Diff = (current, next) => [...diffValue("", current, next)];

export function Patch(current, edits) {
  if (edits.length > 0 && edits[0].path === "" && edits[0].type === "update") return cloneValue(edits[0].value);
  const result = cloneValue(current);
  for (const edit of edits) {
    if (edit.type === "insert" || edit.type === "update") Pointer.Set(result, edit.path, edit.value);
    else if (edit.type === "delete") Pointer.Delete(result, edit.path);
  }
  return result;
}
