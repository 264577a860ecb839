// Structural `left extends right` check between TypeBox types (the type-level
// relation TypeScript uses for conditional types), with `infer` capture.
import { createType, hasKey, isObject, isString, isBigInt, isBoolean, isNumber, keysOf } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import { EvaluateEnum, EvaluateIntersect, EvaluateTemplateLiteral } from "./typebox_evaluate.mjs";
import { InstantiateElements, State } from "./typebox_instantiate.mjs";
import { Record } from "./typebox_actions.mjs";
import { RecordKey } from "./typebox_template.mjs";

// ---------------------------------------------------------------- results
function ExtendsUnion(inferred) {
  return createType({ "~kind": "ExtendsUnion" }, { inferred });
}
function ExtendsTrue(inferred) {
  return createType({ "~kind": "ExtendsTrue" }, { inferred });
}
function ExtendsFalse() {
  return createType({ "~kind": "ExtendsFalse" }, {});
}
const resultOf = (kind) => (v) => isObject(v) && hasKey(v, "~kind") && hasKey(v, "inferred") && v["~kind"] === kind && isObject(v.inferred);
const IsExtendsUnion = resultOf("ExtendsUnion");
const IsExtendsTrue = resultOf("ExtendsTrue");
const IsExtendsFalse = (v) => isObject(v) && hasKey(v, "~kind") && v["~kind"] === "ExtendsFalse";
const IsExtendsTrueLike = (v) => IsExtendsUnion(v) || IsExtendsTrue(v);
const Match = (result, onTrue, onFalse) => (IsExtendsTrueLike(result) ? onTrue(result.inferred) : onFalse());

export const ExtendsResult = Object.freeze({
  ExtendsUnion, IsExtendsUnion, ExtendsTrue, IsExtendsTrue, ExtendsFalse, IsExtendsFalse, IsExtendsTrueLike, Match,
});
const yes = ExtendsTrue;
const no = ExtendsFalse;
const merge = (left, right) => ({ ...left, ...right });

// ---------------------------------------------------------------- entry
function canonical(type) {
  if (T.IsCyclic(type)) return cyclicAsAny(type);
  if (T.IsUnsafe(type)) return T.Unknown();
  return type;
}

/** `left extends right`; `inferred` carries captured `infer` types. */
export function Extends(inferred, left, right) {
  return extendsLeft(inferred, canonical(left), canonical(right));
}

function extendsLeft(inf, left, right) {
  if (T.IsAny(left)) {
    if (T.IsInfer(right)) return extendsRight(inf, left, right);
    return T.IsAny(right) || T.IsUnknown(right) ? yes(inf) : ExtendsUnion(inf);
  }
  if (T.IsArray(left)) {
    if (!T.IsArray(right)) return extendsRight(inf, left, right);
    const immutableOk = !(T.IsImmutable(left) && !T.IsImmutable(right));
    return immutableOk ? extendsLeft(inf, left.items, right.items) : no();
  }
  if (T.IsBigInt(left)) return T.IsBigInt(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsBoolean(left)) return T.IsBoolean(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsConstructor(left)) return extendsCallable(inf, left.parameters, left.instanceType, right, T.IsConstructor, "instanceType");
  if (T.IsDependent(left)) {
    return Match(extendsLeft(inf, left.if, right), () => extendsLeft(inf, left.then, right), () => extendsLeft(inf, left.else, right));
  }
  if (T.IsEnum(left)) return extendsLeft(inf, EvaluateEnum(left.enum), right);
  if (T.IsFunction(left)) return extendsCallable(inf, left.parameters, left.returnType, right, T.IsFunction, "returnType");
  if (T.IsInteger(left)) return T.IsInteger(right) || T.IsNumber(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsIntersect(left)) return extendsLeft(inf, EvaluateIntersect(left.allOf), right);
  if (T.IsLiteral(left)) return extendsLiteral(inf, left.const, right);
  if (T.IsNever(left)) return T.IsInfer(right) ? extendsRight(inf, left, right) : yes(inf);
  if (T.IsNull(left)) return T.IsNull(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsNumber(left)) return T.IsNumber(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsObject(left)) return extendsObject(inf, left.properties, right);
  if (T.IsRecord(left)) return extendsRecord(inf, T.RecordValue(left), right);
  if (T.IsString(left)) return T.IsString(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsSymbol(left)) return T.IsSymbol(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsTemplateLiteral(left)) return extendsLeft(inf, EvaluateTemplateLiteral(left.pattern), right);
  if (T.IsTuple(left)) return extendsTuple(inf, left.items, right);
  if (T.IsUndefined(left)) return T.IsVoid(right) || T.IsUndefined(right) ? yes(inf) : extendsRight(inf, left, right);
  if (T.IsUnion(left)) return extendsUnion(inf, left.anyOf, right);
  if (T.IsUnknown(left)) {
    if (T.IsInfer(right)) return extendsRight(inf, left, right);
    return T.IsAny(right) || T.IsUnknown(right) ? yes(inf) : no();
  }
  if (T.IsVoid(left)) return T.IsVoid(right) ? yes(inf) : extendsRight(inf, left, right);
  return no();
}

/** Right-hand structural forms once the left form found no direct match. */
function extendsRight(inf, left, right) {
  if (T.IsAny(right)) return yes(inf);
  if (T.IsDependent(right)) {
    const branch = (next) => Match(extendsLeft(inf, left, next), (i) => yes(i), () => no());
    return Match(extendsLeft(inf, left, right.if), (i) => Match(extendsLeft(i, left, right.then), (j) => yes(j), () => no()), () => branch(right.else));
  }
  if (T.IsEnum(right)) return extendsLeft(inf, left, EvaluateEnum(right.enum));
  if (T.IsInfer(right)) {
    return Match(extendsLeft(inf, left, right.extends), (checked) => yes(merge(merge(inf, checked), { [right.name]: left })), () => no());
  }
  if (T.IsIntersect(right)) {
    let current = inf;
    for (const part of right.allOf) {
      const result = extendsLeft(current, left, part);
      if (!IsExtendsTrueLike(result)) return no();
      current = result.inferred;
    }
    return yes(current);
  }
  if (T.IsTemplateLiteral(right)) return extendsLeft(inf, left, EvaluateTemplateLiteral(right.pattern));
  if (T.IsUnion(right)) {
    for (const part of right.anyOf) {
      const result = extendsLeft(inf, left, part);
      if (IsExtendsTrueLike(result)) return yes(result.inferred);
    }
    return no();
  }
  if (T.IsUnknown(right)) return yes(inf);
  return no();
}

// ---------------------------------------------------------------- literals
function extendsLiteral(inf, value, right) {
  if (T.IsLiteral(right)) return value === right.const ? yes(inf) : no();
  const widened = isBigInt(value) ? T.IsBigInt(right) : isBoolean(value) ? T.IsBoolean(right) : isNumber(value) ? T.IsNumber(right) : isString(value) ? T.IsString(right) : false;
  return widened ? yes(inf) : extendsRight(inf, T.Literal(value), right);
}

// ---------------------------------------------------------------- functions
function extendsCallable(inf, parameters, result, right, isSameKind, resultKey) {
  if (T.IsAny(right) || T.IsUnknown(right)) return yes(inf);
  if (!isSameKind(right)) return no();
  return Match(extendsParameters(inf, parameters, right.parameters), (i) => extendsReturn(i, result, right[resultKey]), () => no());
}
function extendsReturn(inf, left, right) {
  return T.IsVoid(right) ? yes(inf) : extendsLeft(inf, left, right);
}
function extendsParameters(inf, left, right) {
  if (left.length === 0) return yes(inf);
  const [head, ...rest] = left;
  if (right.length === 0) return T.IsOptional(head) ? yes(inf) : no();
  const [other, ...otherRest] = right;
  if (!T.IsOptional(head) && T.IsOptional(other)) return no();
  const [checkLeft, checkRight] = T.IsInfer(other) ? [head, other] : [other, head];
  return Match(extendsLeft(inf, checkLeft, checkRight), (i) => extendsParameters(i, rest, otherRest), () => no());
}

// ---------------------------------------------------------------- objects
function extendsObject(inf, properties, right) {
  if (T.IsRecord(right)) return objectToRecord(inf, properties, T.RecordValue(right));
  if (T.IsObject(right)) return objectToObject(inf, properties, right.properties);
  return extendsRight(inf, T.ObjectType(properties), right);
}
function extendsProperty(inf, left, right) {
  if (T.IsInfer(right) && T.IsNever(right.extends)) return no();
  return Match(extendsLeft(inf, left, right), (i) => (T.IsOptional(left) && !T.IsOptional(right) ? no() : yes(i)), () => no());
}
function objectToObject(inf, left, right) {
  const results = {};
  for (const key of keysOf(right)) {
    const target = right[key];
    if (key in left) results[key] = extendsProperty({}, left[key], target);
    else if (!T.IsOptional(target)) results[key] = no();
    else results[key] = T.IsInfer(target) ? yes(merge(inf, { [target.name]: target.extends })) : yes(inf);
  }
  const outcomes = Object.values(results);
  if (!outcomes.every(IsExtendsTrueLike)) return no();
  const captured = keysOf(results).reduce((acc, key) => ({ ...acc, ...results[key].inferred }), {});
  return yes(merge(inf, captured));
}
function mergeRecordInferred(left, right) {
  return keysOf(right).reduce((result, key) => {
    if (!hasKey(left, key)) return { ...result, [key]: right[key] };
    const joined = T.IsUnion(result[key]) ? T.Union([...result[key].anyOf, right[key]]) : T.Union([left[key], right[key]]);
    return { ...result, [key]: joined };
  }, left);
}
function objectToRecord(inf, properties, value) {
  let result = inf;
  for (const key of keysOf(properties)) {
    const check = extendsLeft({}, properties[key], value);
    if (!IsExtendsTrueLike(check)) return no();
    result = mergeRecordInferred(result, check.inferred);
  }
  return yes(result);
}
function extendsRecord(inf, leftValue, right) {
  if (T.IsRecord(right)) return extendsLeft(inf, leftValue, T.RecordValue(right));
  if (T.IsObject(right)) return keysOf(right.properties).length === 0 ? yes(inf) : no();
  return T.IsAny(right) || T.IsUnknown(right) ? yes(inf) : no();
}

// ---------------------------------------------------------------- unions
function inferrable(type) {
  return T.IsInfer(type) ? { name: type.name, type: type.extends } : undefined;
}
function restInferrable(type) {
  if (!T.IsRest(type) || !T.IsInfer(type.items)) return undefined;
  const constraint = type.items.extends;
  if (T.IsArray(constraint)) return { name: type.items.name, type: constraint.items };
  if (T.IsUnknown(constraint)) return { name: type.items.name, type: constraint };
  return undefined;
}
/** Every type extends `right`? Returns the list, or undefined. */
function collectExtending(types, right) {
  for (const type of types) if (!IsExtendsTrueLike(extendsLeft({}, type, right))) return undefined;
  return types;
}
function inferAs(inf, name, types, right, wrap) {
  const found = collectExtending(types, right);
  return found ? yes(merge(inf, { [name]: wrap(found) })) : no();
}
function extendsUnion(inf, left, right) {
  const capture = inferrable(right);
  if (capture) return inferAs(inf, capture.name, left, capture.type, T.Union);
  const targets = T.IsUnion(right) ? right.anyOf : [right];
  let current = inf;
  for (const type of left) {
    let matched;
    for (const target of targets) {
      const result = extendsLeft(current, type, target);
      if (IsExtendsTrueLike(result)) {
        matched = result.inferred;
        break;
      }
    }
    if (matched === undefined) return no();
    current = matched;
  }
  return yes(current);
}

// ---------------------------------------------------------------- tuples
function extendsTuple(inf, items, right) {
  const left = InstantiateElements(inf, State([], []), items);
  if (T.IsTuple(right)) return tupleToTuple(inf, left, right.items);
  if (T.IsArray(right)) return tupleToArray(inf, left, right.items);
  return extendsRight(inf, T.Tuple(left), right);
}
function tupleToArray(inf, left, right) {
  const capture = inferrable(right);
  if (capture) return inferAs(inf, capture.name, left, capture.type, T.Union);
  let current = inf;
  for (const type of left) {
    const result = extendsLeft(current, type, right);
    if (!IsExtendsTrueLike(result)) return no();
    current = result.inferred;
  }
  return yes(current);
}
function tupleToTuple(inf, left, rightItems) {
  const right = InstantiateElements(inf, State([], []), rightItems);
  const reversed = right.length > 0 && restInferrable(right[0]) !== undefined;
  const flip = (types) => (reversed ? [...types].reverse() : types);
  return elements(inf, reversed, flip(left), flip(right));
}
function elements(inf, reversed, left, right) {
  if (right.length === 0) return left.length === 0 ? yes(inf) : no();
  const [head, ...tail] = right;
  const capture = restInferrable(head);
  if (capture) return inferAs(inf, capture.name, reversed ? [...left].reverse() : left, capture.type, T.Tuple);
  if (left.length === 0) return no();
  return Match(extendsLeft(inf, left[0], head), (i) => elements(i, reversed, left.slice(1), tail), () => no());
}

// ---------------------------------------------------------------- cyclic
/** A cyclic type compared structurally with its references widened to Any. */
function cyclicAsAny(type) {
  return type.$ref in type.$defs ? refsToAny(type.$defs[type.$ref]) : T.Unknown();
}
function refsToAny(type) {
  const each = (types) => types.map(refsToAny);
  if (T.IsRef(type)) return T.Any();
  if (T.IsArray(type)) return T.ArrayType(refsToAny(type.items), T.ArrayOptions(type));
  if (T.IsConstructor(type)) return T.Constructor(each(type.parameters), refsToAny(type.instanceType));
  if (T.IsFunction(type)) return T.FunctionType(each(type.parameters), refsToAny(type.returnType));
  if (T.IsIntersect(type)) return T.Intersect(each(type.allOf));
  if (T.IsObject(type)) {
    const properties = {};
    for (const key of keysOf(type.properties)) properties[key] = refsToAny(type.properties[key]);
    return T.ObjectType(properties);
  }
  if (T.IsRecord(type)) return Record(RecordKey(type), refsToAny(T.RecordValue(type)));
  if (T.IsUnion(type)) return T.Union(each(type.anyOf));
  if (T.IsTuple(type)) return T.Tuple(each(type.items));
  return type;
}
export { cyclicAsAny as CyclicExtends };
