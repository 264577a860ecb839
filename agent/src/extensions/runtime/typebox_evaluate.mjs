// Type evaluation: reduce unions (keep the broadest members), distribute
// intersections over unions and merge object intersections into one object.
import { keysOf, hasKey } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import { Extends, ExtendsResult } from "./typebox_extends.mjs";
import { TemplateLiteralDecode } from "./typebox_template.mjs";

export const ResultEqual = "equal";
export const ResultDisjoint = "disjoint";
export const ResultLeftInside = "left-inside";
export const ResultRightInside = "right-inside";
const trueLike = (result) => ExtendsResult.IsExtendsTrueLike(result);
const unreachable = () => {
  throw Error("Unreachable");
};

/** How two types relate: equal, disjoint, or one inside the other. */
export function Compare(left, right) {
  const unknownLeft = T.IsUnknown(left);
  const forward = unknownLeft ? false : trueLike(Extends({}, left, right));
  const backward = unknownLeft ? true : trueLike(Extends({}, right, left));
  if (forward && backward) return ResultEqual;
  if (forward) return ResultLeftInside;
  if (backward) return ResultRightInside;
  return ResultDisjoint;
}

/** The narrower of two types, or Never when they are disjoint. */
export function Narrow(left, right) {
  const result = Compare(left, right);
  if (result === ResultLeftInside) return left;
  if (result === ResultRightInside || result === ResultEqual) return right;
  return T.Never();
}

export function Flatten(types) {
  return types.flatMap((type) => (T.IsUnion(type) ? Flatten(type.anyOf) : [type]));
}

/** Drop union members that another member already contains. */
export function Broaden(types) {
  const kept = types.reduce((result, type) => {
    if (T.IsObject(type)) return [...result, type];
    if (T.IsNever(type)) return result;
    const evaluated = EvaluateType(type);
    if (T.IsAny(evaluated)) return [evaluated];
    const covered = result.some((other) => {
      const relation = Compare(evaluated, other);
      return relation === ResultLeftInside || relation === ResultEqual;
    });
    if (covered) return result;
    return [...result.filter((other) => Compare(evaluated, other) !== ResultRightInside), evaluated];
  }, []);
  return Flatten(kept);
}

// ---------------------------------------------------------------- distribute
const isObjectLike = (type) => T.IsObject(type) || T.IsTuple(type);

function distributeOperation(left, right) {
  const evaluatedLeft = EvaluateType(left);
  const evaluatedRight = EvaluateType(right);
  if (T.IsUnion(evaluatedLeft) || T.IsUnion(evaluatedRight)) return EvaluateIntersect([evaluatedLeft, evaluatedRight]);
  const objectLeft = isObjectLike(evaluatedLeft);
  const objectRight = isObjectLike(evaluatedRight);
  if (objectLeft && objectRight) return Composite(evaluatedLeft, evaluatedRight);
  if (objectLeft) return evaluatedLeft;
  if (objectRight) return evaluatedRight;
  return Narrow(evaluatedLeft, evaluatedRight);
}

/** Cross product of intersected types, expanding unions. */
export function Distribute(types, result = []) {
  for (const type of types) {
    if (T.IsUnion(type)) {
      result = type.anyOf.flatMap((variant) => Distribute([variant], result));
    } else {
      const next = result.map((existing) => distributeOperation(type, existing));
      result = next.length === 0 ? [type] : next;
    }
  }
  return result;
}

// ---------------------------------------------------------------- composite
export function TupleElementsToProperties(types) {
  return types.reduceRight((result, type, index) => ({ [index]: type, ...result }), {});
}
export const TupleToObject = (type) => T.ObjectType(TupleElementsToProperties(type.items));

function compositeProperty(left, right) {
  const readonly = T.IsReadonly(left) && T.IsReadonly(right);
  const optional = T.IsOptional(left) && T.IsOptional(right);
  let property = T.RemoveReadonlyAction(T.RemoveOptionalAction(EvaluateIntersect([left, right])));
  if (optional) property = T.AddOptionalAction(property);
  if (readonly) property = T.AddReadonlyAction(property);
  return property;
}

const propertiesOf = (type) =>
  T.IsObject(type) ? type.properties : T.IsTuple(type) ? TupleElementsToProperties(type.items) : unreachable();

/** Merge two object-like types into one object (properties intersected). */
export function Composite(left, right) {
  const leftProperties = propertiesOf(left);
  const rightProperties = propertiesOf(right);
  const keys = new Set([...keysOf(rightProperties), ...keysOf(leftProperties)]);
  const properties = {};
  for (const key of keys) {
    const inLeft = key in leftProperties;
    const inRight = key in rightProperties;
    properties[key] = inLeft && inRight ? compositeProperty(leftProperties[key], rightProperties[key])
      : inLeft ? leftProperties[key] : inRight ? rightProperties[key] : T.Never();
  }
  return T.ObjectType(properties);
}

// ---------------------------------------------------------------- evaluate
export function EvaluateUnionFast(types) {
  if (types.length === 1) return types[0];
  if (types.length === 0) return T.Never();
  return T.Union(types);
}
export const EvaluateUnion = (types) => EvaluateUnionFast(Broaden(types));
export const EvaluateIntersect = (types) => EvaluateUnionFast(Broaden(Distribute(types)));
export const EvaluateEnum = (values) => EvaluateUnion(values.map((value) => T.Literal(value)));
export const EvaluateTemplateLiteral = (pattern) => EvaluateType(TemplateLiteralDecode(pattern));
export function EvaluateDependent(if_, then_, else_) {
  return EvaluateUnion([T.Intersect([if_, then_]), ExcludeOperation(else_, if_)]);
}
export function EvaluateType(type) {
  if (T.IsDependent(type)) return EvaluateDependent(type.if, type.then, type.else);
  if (T.IsEnum(type)) return EvaluateEnum(type.enum);
  if (T.IsIntersect(type)) return EvaluateIntersect(type.allOf);
  if (T.IsTemplateLiteral(type)) return EvaluateTemplateLiteral(type.pattern);
  if (T.IsUnion(type)) return EvaluateUnion(type.anyOf);
  return type;
}

function filterUnion(left, right, keep) {
  const evaluated = EvaluateType(left);
  const members = T.IsUnion(evaluated) ? evaluated.anyOf : [evaluated];
  return EvaluateUnion(members.filter((member) => trueLike(Extends({}, member, right)) === keep));
}
export const ExcludeOperation = (left, right) => filterUnion(left, right, false);
export const ExtractOperation = (left, right) => filterUnion(left, right, true);

// ---------------------------------------------------------------- collapse
export function CyclicTarget(defs, ref) {
  if (!(ref in defs)) return T.Never();
  return T.IsRef(defs[ref]) ? CyclicTarget(defs, defs[ref].$ref) : defs[ref];
}

function intersectProperties(left, right) {
  const result = {};
  for (const key of keysOf(left)) if (!hasKey(right, key)) result[key] = left[key];
  for (const key of keysOf(right)) if (!hasKey(left, key)) result[key] = right[key];
  for (const key of keysOf(left)) if (hasKey(right, key)) result[key] = EvaluateIntersect([left[key], right[key]]);
  return result;
}
function unionProperties(left, right) {
  const result = {};
  for (const key of keysOf(left)) if (key in right) result[key] = EvaluateUnion([left[key], right[key]]);
  return result;
}
function collapseProperties(type) {
  if (T.IsCyclic(type)) return collapseProperties(CyclicTarget(type.$defs, type.$ref));
  if (T.IsDependent(type)) return collapseProperties(EvaluateDependent(type.if, type.then, type.else));
  if (T.IsIntersect(type)) return type.allOf.reduce((result, part) => intersectProperties(result, collapseProperties(part)), {});
  if (T.IsUnion(type)) {
    if (type.anyOf.length === 0) unreachable();
    const [first, ...rest] = type.anyOf;
    return rest.reduce((result, part) => unionProperties(result, collapseProperties(part)), collapseProperties(first));
  }
  if (T.IsTuple(type)) return collapseProperties(TupleToObject(T.Tuple(type.items)));
  if (T.IsObject(type)) return type.properties;
  return {};
}
/** The object type a composite type (intersection, union, tuple...) describes. */
export const CollapseToObject = (type) => T.ObjectType(collapseProperties(type));

// ---------------------------------------------------------------- priority
const sortsAfter = (left, right) => {
  const relation = Compare(left, right);
  return relation === ResultRightInside || relation === ResultDisjoint;
};
/** Order union members so narrower types come before broader ones. */
export function Priority(types) {
  return types.reduce((sorted, type) => {
    const index = sorted.findIndex((existing) => !sortsAfter(type, existing));
    return index === -1 ? [...sorted, type] : [...sorted.slice(0, index), type, ...sorted.slice(index)];
  }, []);
}
