// Type actions (Partial, Pick, KeyOf, Record, Exclude, ...). Each action
// computes its result when its operands are concrete and returns a Deferred
// type when an operand is still a Ref, to be resolved by Instantiate.
import { updateType, keysOf, isString, isNumber, isArray } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import { Extends, ExtendsResult } from "./typebox_extends.mjs";
import * as E from "./typebox_evaluate.mjs";
import { ParsePatternIntoTypes, IsTemplateLiteralFinite, RecordKey } from "./typebox_template.mjs";
import { InstantiateElements, InstantiateType, State, CanInstantiate } from "./typebox_instantiate.mjs";

const trueLike = (result) => ExtendsResult.IsExtendsTrueLike(result);
const finish = (result, options) => updateType(result, {}, options);
const unreachable = () => {
  throw Error("Unreachable");
};

// ---------------------------------------------------------------- deferred forms
const deferredArity = (action, arity) => (...args) => {
  const parameters = args.slice(0, arity);
  while (parameters.length < arity) parameters.push(undefined);
  return T.Deferred(action, parameters, args[arity] ?? {});
};
export const AddImmutableDeferred = deferredArity("AddImmutable", 1);
export const AddOptionalDeferred = deferredArity("AddOptional", 1);
export const AddReadonlyDeferred = deferredArity("AddReadonly", 1);
export const RemoveImmutableDeferred = deferredArity("RemoveImmutable", 1);
export const RemoveOptionalDeferred = deferredArity("RemoveOptional", 1);
export const RemoveReadonlyDeferred = deferredArity("RemoveReadonly", 1);
export const CapitalizeDeferred = deferredArity("Capitalize", 1);
export const LowercaseDeferred = deferredArity("Lowercase", 1);
export const UncapitalizeDeferred = deferredArity("Uncapitalize", 1);
export const UppercaseDeferred = deferredArity("Uppercase", 1);
export const ConditionalDeferred = deferredArity("Conditional", 4);
export const ConstructorParametersDeferred = deferredArity("ConstructorParameters", 1);
export const EvaluateDeferred = deferredArity("Evaluate", 1);
export const ExcludeDeferred = deferredArity("Exclude", 2);
export const ExtractDeferred = deferredArity("Extract", 2);
export const IndexDeferred = deferredArity("Index", 2);
export const InstanceTypeDeferred = deferredArity("InstanceType", 1);
export const InterfaceDeferred = deferredArity("Interface", 2);
export const KeyOfDeferred = deferredArity("KeyOf", 1);
export const MappedDeferred = deferredArity("Mapped", 4);
export const ModuleDeferred = deferredArity("Module", 1);
export const NonNullableDeferred = deferredArity("NonNullable", 1);
export const OmitDeferred = deferredArity("Omit", 2);
export const ParametersDeferred = deferredArity("Parameters", 1);
export const PartialDeferred = deferredArity("Partial", 1);
export const PickDeferred = deferredArity("Pick", 2);
export const ReadonlyObjectDeferred = deferredArity("ReadonlyObject", 1);
export const RecordDeferred = deferredArity("Record", 2);
export const RequiredDeferred = deferredArity("Required", 1);
export const ReturnTypeDeferred = deferredArity("ReturnType", 1);
export const WithDeferred = (type, options) => T.Deferred("With", [type, options], {});

export function IsInterfaceDeferred(value) {
  return T.IsSchema(value) && "action" in value && value.action === "Interface";
}

// ---------------------------------------------------------------- modifiers
export const AddOptional = (type, options = {}) => T.AddOptionalAction(type, options);
export const AddReadonly = (type, options = {}) => T.AddReadonlyAction(type, options);
export const AddImmutable = (type, options = {}) => T.AddImmutableAction(type, options);
export const RemoveOptional = (type, options = {}) => T.RemoveOptionalAction(type, options);
export const RemoveReadonly = (type, options = {}) => T.RemoveReadonlyAction(type, options);
export const RemoveImmutable = (type, options = {}) => T.RemoveImmutableAction(type, options);

// ---------------------------------------------------------------- object mapping
/** Rebuild an object-like type with each property mapped (Partial, Required, ReadonlyObject). */
function mapObjectLike(type, mapProperty, other) {
  const again = (inner) => mapObjectLike(inner, mapProperty, other);
  if (T.IsCyclic(type)) {
    const target = E.CyclicTarget(type.$defs, type.$ref);
    return T.Cyclic({ ...type.$defs, [type.$ref]: again(target) }, type.$ref);
  }
  if (T.IsDependent(type)) return again(E.EvaluateDependent(type.if, type.then, type.else));
  if (T.IsIntersect(type)) return again(E.EvaluateIntersect(type.allOf));
  if (T.IsUnion(type)) return T.Union(type.anyOf.map(again));
  if (T.IsObject(type)) {
    const properties = {};
    for (const key of keysOf(type.properties)) properties[key] = mapProperty(type.properties[key]);
    return T.ObjectType(properties);
  }
  return other(type);
}
export function PartialAction(type, options) {
  if (!CanInstantiate([type])) return PartialDeferred(type, options);
  return finish(mapObjectLike(type, (p) => AddOptional(p), () => T.ObjectType({})), options);
}
export function RequiredAction(type, options) {
  if (!CanInstantiate([type])) return RequiredDeferred(type, options);
  return finish(mapObjectLike(type, (p) => RemoveOptional(p), () => T.ObjectType({})), options);
}
function readonlyOther(type) {
  if (T.IsArray(type)) return AddImmutable(T.ArrayType(type.items));
  if (T.IsTuple(type)) return AddImmutable(T.Tuple(type.items));
  return type;
}
function readonlyObject(type) {
  if (T.IsArray(type) || T.IsTuple(type)) return readonlyOther(type);
  return mapObjectLike(type, (p) => AddReadonly(p), readonlyOther);
}
export function ReadonlyObjectAction(type, options) {
  return CanInstantiate([type]) ? finish(readonlyObject(type), options) : ReadonlyObjectDeferred(type);
}
export const Partial = (type, options = {}) => PartialAction(type, options);
export const Required = (type, options = {}) => RequiredAction(type, options);
export const ReadonlyObject = (type, options = {}) => ReadonlyObjectAction(type, options);
export const ReadonlyType = ReadonlyObject;

// ---------------------------------------------------------------- keys
const integerKey = /^(?:0|[1-9][0-9]*)$/;
export function ConvertToIntegerKey(value) {
  const text = `${value}`;
  return integerKey.test(text) ? parseInt(text) : value;
}
export function KeysToIndexer(keys) {
  return T.Union(keys.filter(T.IsLiteralValue).map((key) => T.Literal(key)));
}
/** Property names selected by an indexer type (literals, unions, enums...). */
export function ToIndexableKeys(type) {
  if (T.IsCyclic(type)) return ToIndexableKeys(E.CyclicTarget(type.$defs, type.$ref));
  if (T.IsDependent(type)) return ToIndexableKeys(E.EvaluateDependent(type.if, type.then, type.else));
  if (T.IsEnum(type)) return ToIndexableKeys(E.EvaluateEnum(type.enum));
  if (T.IsIntersect(type)) return ToIndexableKeys(E.EvaluateIntersect(type.allOf));
  if (T.IsLiteral(type)) return [`${type.const}`];
  if (T.IsTemplateLiteral(type)) return ToIndexableKeys(E.EvaluateTemplateLiteral(type.pattern));
  if (T.IsUnion(type)) return type.anyOf.flatMap(ToIndexableKeys);
  return [];
}
function indexableProperties(type) {
  const collapsed = E.CollapseToObject(type);
  return T.IsObject(collapsed) ? collapsed.properties : unreachable();
}
const toIndexer = (keysOrType) => (isArray(keysOrType) ? KeysToIndexer(keysOrType) : keysOrType);

function selectProperties(type, indexer, keep) {
  const properties = indexableProperties(type);
  const keys = ToIndexableKeys(indexer);
  const selected = {};
  for (const key of keysOf(properties)) if (keys.includes(key) === keep) selected[key] = properties[key];
  return T.ObjectType(selected);
}
export function PickAction(type, indexer, options) {
  return CanInstantiate([type, indexer]) ? finish(selectProperties(type, indexer, true), options) : PickDeferred(type, indexer, options);
}
export function OmitAction(type, indexer, options) {
  return CanInstantiate([type, indexer]) ? finish(selectProperties(type, indexer, false), options) : OmitDeferred(type, indexer, options);
}
export const Pick = (type, keys, options = {}) => PickAction(type, toIndexer(keys), options);
export const Omit = (type, keys, options = {}) => OmitAction(type, toIndexer(keys), options);

const collapseComposite = (type) =>
  T.IsCyclic(type) || T.IsDependent(type) || T.IsIntersect(type) || T.IsUnion(type) ? E.CollapseToObject(type) : type;

function keyOf(type) {
  if (T.IsAny(type)) return T.Union([T.NumberType(), T.StringType(), T.SymbolType()]);
  if (T.IsArray(type)) return T.NumberType();
  if (T.IsObject(type)) return E.EvaluateUnionFast(keysOf(type.properties).map((key) => T.Literal(ConvertToIntegerKey(key))));
  if (T.IsRecord(type)) return RecordKey(type);
  if (T.IsTuple(type)) return E.EvaluateUnionFast(type.items.map((_, index) => T.Literal(index)));
  return T.Never();
}
export function KeyOfAction(type, options) {
  return CanInstantiate([type]) ? finish(keyOf(collapseComposite(type)), options) : KeyOfDeferred(type, options);
}
export const KeyOf = (type, options = {}) => KeyOfAction(type, options);

// ---------------------------------------------------------------- index
function normalizeIndexer(type) {
  if (T.IsIntersect(type)) return T.Intersect(type.allOf.map(normalizeIndexer));
  if (T.IsUnion(type)) return T.Union(type.anyOf.map(normalizeIndexer));
  if (T.IsLiteral(type)) return T.Literal(ConvertToIntegerKey(type.const));
  return type;
}
/** Replace `This` with the enclosing object (options are not carried over). */
function expandThis(properties, type) {
  const each = (types) => types.map((inner) => expandThis(properties, inner));
  if (T.IsArray(type)) return T.ArrayType(expandThis(properties, type.items));
  if (T.IsConstructor(type)) return T.Constructor(each(type.parameters), expandThis(properties, type.instanceType));
  if (T.IsFunction(type)) return T.FunctionType(each(type.parameters), expandThis(properties, type.returnType));
  if (T.IsTuple(type)) return T.Tuple(each(type.items));
  if (T.IsUnion(type)) return T.Union(each(type.anyOf));
  if (T.IsIntersect(type)) return T.Intersect(each(type.allOf));
  if (T.IsThis(type)) return T.ObjectType(properties);
  return type;
}
function indexObject(properties, indexer) {
  const keys = T.IsNumber(indexer) ? keysOf(properties).filter((key) => new RegExp(T.IntegerKey).test(key)) : ToIndexableKeys(indexer);
  return E.EvaluateUnion(keys.map((key) => expandThis(properties, key in properties ? properties[key] : T.Never())));
}
function indexArray(items, indexer) {
  if (trueLike(Extends({}, normalizeIndexer(indexer), T.NumberType()))) return items;
  return T.IsLiteral(indexer) && indexer.const === "length" ? T.NumberType() : T.Never();
}
function indexTuple(items, indexer) {
  if (T.IsLiteral(indexer) && indexer.const === "length") return T.Literal(items.length);
  if (T.IsNumber(indexer) || T.IsInteger(indexer)) return E.EvaluateUnionFast(items);
  const formatted = normalizeIndexer(indexer);
  return E.EvaluateUnionFast(items.filter((_, index) => trueLike(Extends({}, T.Literal(index), formatted))));
}
function indexType(type, indexer) {
  if (T.IsArray(type)) return indexArray(type.items, indexer);
  if (T.IsObject(type)) return indexObject(type.properties, indexer);
  if (T.IsTuple(type)) return indexTuple(type.items, indexer);
  return T.Never();
}
export function IndexAction(type, indexer, options) {
  if (!CanInstantiate([type, indexer])) return IndexDeferred(type, indexer, options);
  return finish(indexType(collapseComposite(type), indexer), options);
}
export const Index = (type, keys, options = {}) => IndexAction(type, toIndexer(keys), options);

// ---------------------------------------------------------------- record
const createRecord = T.RecordFromPattern;
function recordFromUnion(types, value) {
  const flat = E.Flatten(types);
  if (flat.some((t) => T.IsString(t) || T.IsNumber(t) || T.IsInteger(t))) return createRecord(T.StringKey, value);
  const properties = {};
  for (const t of flat) if (T.IsLiteral(t) && (isString(t.const) || isNumber(t.const))) properties[t.const] = value;
  return T.ObjectType(properties);
}
function recordFromKey(key, value) {
  if (T.IsAny(key)) return createRecord(T.StringKey, value);
  if (T.IsBoolean(key)) return T.ObjectType({ true: value, false: value });
  if (T.IsEnum(key)) return recordFromKey(E.EvaluateEnum(key.enum), value);
  if (T.IsInteger(key)) return createRecord(T.IntegerKey, value);
  if (T.IsIntersect(key)) return recordFromKey(E.EvaluateIntersect(key.allOf), value);
  if (T.IsLiteral(key)) {
    const k = key.const;
    if (isString(k) || isNumber(k)) return T.ObjectType({ [k]: value });
    if (k === false) return T.ObjectType({ false: value });
    if (k === true) return T.ObjectType({ true: value });
    return T.ObjectType({});
  }
  if (T.IsNumber(key)) return createRecord(T.NumberKey, value);
  if (T.IsUnion(key)) return recordFromUnion(key.anyOf, value);
  if (T.IsString(key)) {
    const custom = "pattern" in key && (isString(key.pattern) || key.pattern instanceof RegExp);
    return createRecord(custom ? key.pattern.toString() : T.StringKey, value);
  }
  if (T.IsTemplateLiteral(key)) {
    const finite = IsTemplateLiteralFinite(ParsePatternIntoTypes(key.pattern));
    return finite ? recordFromKey(E.EvaluateTemplateLiteral(key.pattern), value) : createRecord(key.pattern, value);
  }
  return T.ObjectType({});
}
export function RecordAction(key, value, options) {
  return CanInstantiate([key]) ? finish(recordFromKey(key, value), options) : RecordDeferred(key, value, options);
}
export const Record = (key, value, options = {}) => RecordAction(key, value, options);

// ---------------------------------------------------------------- filters
export function ExcludeAction(left, right, options) {
  return CanInstantiate([left, right]) ? finish(E.ExcludeOperation(left, right), options) : ExcludeDeferred(left, right, options);
}
export function ExtractAction(left, right, options) {
  return CanInstantiate([left, right]) ? finish(E.ExtractOperation(left, right), options) : ExtractDeferred(left, right, options);
}
export function NonNullableAction(type, options) {
  if (!CanInstantiate([type])) return NonNullableDeferred(type, options);
  return finish(ExcludeAction(type, T.Union([T.Null(), T.Undefined()]), {}), options);
}
export const Exclude = (left, right, options = {}) => ExcludeAction(left, right, options);
export const Extract = (left, right, options = {}) => ExtractAction(left, right, options);
export const NonNullable = (type, options = {}) => NonNullableAction(type, options);

// ---------------------------------------------------------------- intrinsics
function mapStrings(mapping, type) {
  if (T.IsLiteral(type)) return T.Literal(isString(type.const) ? mapping(type.const) : type.const);
  if (T.IsTemplateLiteral(type)) return mapStrings(mapping, E.EvaluateTemplateLiteral(type.pattern));
  if (T.IsUnion(type)) return T.Union(type.anyOf.map((member) => mapStrings(mapping, member)));
  return type;
}
function intrinsic(mapping, deferredForm) {
  return (type, options) => (CanInstantiate([type]) ? finish(mapStrings(mapping, type), options) : deferredForm(type, options));
}
export const CapitalizeAction = intrinsic((s) => s[0].toUpperCase() + s.slice(1), CapitalizeDeferred);
export const LowercaseAction = intrinsic((s) => s.toLowerCase(), LowercaseDeferred);
export const UncapitalizeAction = intrinsic((s) => s[0].toLowerCase() + s.slice(1), UncapitalizeDeferred);
export const UppercaseAction = intrinsic((s) => s.toUpperCase(), UppercaseDeferred);
export const Capitalize = (type, options = {}) => CapitalizeAction(type, options);
export const Lowercase = (type, options = {}) => LowercaseAction(type, options);
export const Uncapitalize = (type, options = {}) => UncapitalizeAction(type, options);
export const Uppercase = (type, options = {}) => UppercaseAction(type, options);

// ---------------------------------------------------------------- functions
const elementsTuple = (parameters) => T.Tuple(InstantiateElements({}, State([], []), parameters));
function unary(operation, deferredForm) {
  return (type, options) => (CanInstantiate([type]) ? finish(operation(type), options) : deferredForm(type, options));
}
export const ParametersAction = unary((t) => elementsTuple(T.IsFunction(t) ? t.parameters : []), ParametersDeferred);
export const ConstructorParametersAction = unary((t) => elementsTuple(T.IsConstructor(t) ? t.parameters : []), ConstructorParametersDeferred);
export const ReturnTypeAction = unary((t) => (T.IsFunction(t) ? t.returnType : T.Never()), ReturnTypeDeferred);
export const InstanceTypeAction = unary((t) => (T.IsConstructor(t) ? t.instanceType : T.Never()), InstanceTypeDeferred);
export const Parameters = (type, options = {}) => ParametersAction(type, options);
export const ConstructorParameters = (type, options = {}) => ConstructorParametersAction(type, options);
export const ReturnType = (type, options = {}) => ReturnTypeAction(type, options);
export const InstanceType = (type, options = {}) => InstanceTypeAction(type, options);

// ---------------------------------------------------------------- misc
export function InterfaceAction(heritage, properties, options) {
  if (!CanInstantiate(heritage)) return InterfaceDeferred(heritage, properties, options);
  return finish(E.EvaluateIntersect([...heritage, T.ObjectType(properties)]), options);
}
export const Interface = (heritage, properties, options = {}) => InterfaceAction(heritage, properties, options);
export const EvaluateAction = (type, options) => finish(E.EvaluateType(type), options);
export const Evaluate = (type, options = {}) => EvaluateAction(type, options);
export const WithAction = (type, options) => (CanInstantiate([type]) ? updateType(type, {}, options) : WithDeferred(type, options));
export const With = (type, options) => WithAction(type, options);

export function ConditionalAction(context, state, left, right, true_, false_, options) {
  if (!CanInstantiate([left, right])) return ConditionalDeferred(left, right, true_, false_, options);
  const result = Extends(context, left, right);
  const chosen = ExtendsResult.IsExtendsUnion(result)
    ? T.Union([InstantiateType(result.inferred, state, true_), InstantiateType(context, state, false_)])
    : ExtendsResult.IsExtendsTrue(result) ? InstantiateType(result.inferred, state, true_) : InstantiateType(context, state, false_);
  return finish(chosen, options);
}
export function Conditional(left, right, true_, false_, options = {}) {
  return ConditionalAction({}, State([], []), left, right, true_, false_, options);
}

// ---------------------------------------------------------------- mapped
function mappedVariants(type) {
  if (T.IsEnum(type)) return mappedVariants(E.EvaluateEnum(type.enum));
  if (T.IsLiteral(type)) return [T.Literal(isNumber(type.const) ? `${type.const}` : type.const)];
  if (T.IsTemplateLiteral(type)) return mappedVariants(E.EvaluateTemplateLiteral(type.pattern));
  if (T.IsUnion(type)) return type.anyOf.flatMap(mappedVariants);
  return [type];
}
function mappedOperation(context, state, identifier, type, as, property) {
  const objects = mappedVariants(type).map((variant) => {
    const variantContext = { ...context, [identifier.name]: variant };
    const key = InstantiateType(variantContext, state, as);
    const canonical = T.IsTemplateLiteral(key) ? E.EvaluateTemplateLiteral(key.pattern) : key;
    const value = InstantiateType(variantContext, state, property);
    return T.ObjectType(T.IsLiteralNumber(canonical) || T.IsLiteralString(canonical) ? { [canonical.const]: value } : {});
  });
  return E.EvaluateIntersect(objects);
}
export function MappedAction(context, state, identifier, type, as, property, options) {
  if (!CanInstantiate([type])) return MappedDeferred(identifier, type, as, property, options);
  return finish(mappedOperation(context, state, identifier, type, as, property), options);
}
export function Mapped(identifier, type, as, property, options = {}) {
  return MappedAction({}, State([], []), identifier, type, as, property, options);
}
