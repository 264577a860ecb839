// TypeBox type builders and kind predicates. Every type is a JSON Schema
// object whose kind and modifiers live in non-enumerable `~` properties, so
// JSON.stringify shows only the schema. Key order follows typebox 1.x.
import {
  createType, updateType, discardKeys, hasKey, keysOf, isObject, isObjectNotArray, isArray,
  isString, isNumber, isBoolean, isBigInt, isFunction, isNull,
} from "./typebox_core.mjs";

const make = (kind, enumerable, options) => createType({ "~kind": kind }, enumerable, options);

// ---------------------------------------------------------------- kinds
export const IsSchema = (value) => isObject(value);
export function IsKind(value, kind) {
  return isObject(value) && hasKey(value, "~kind") && value["~kind"] === kind;
}
const kindGuard = (kind) => (value) => IsKind(value, kind);

export const IsAny = kindGuard("Any");
export const IsArray = kindGuard("Array");
export const IsBigInt = kindGuard("BigInt");
export const IsBoolean = kindGuard("Boolean");
export const IsCall = kindGuard("Call");
export const IsConstructor = kindGuard("Constructor");
export const IsCyclic = kindGuard("Cyclic");
export const IsDeferred = kindGuard("Deferred");
export const IsDependent = kindGuard("Dependent");
export const IsEnum = kindGuard("Enum");
export const IsFunction = kindGuard("Function");
export const IsGeneric = kindGuard("Generic");
export const IsIdentifier = kindGuard("Identifier");
export const IsInfer = kindGuard("Infer");
export const IsInteger = kindGuard("Integer");
export const IsIntersect = kindGuard("Intersect");
export const IsLiteral = kindGuard("Literal");
export const IsNever = kindGuard("Never");
export const IsNull = kindGuard("Null");
export const IsNumber = kindGuard("Number");
export const IsObject = kindGuard("Object");
export const IsParameter = kindGuard("Parameter");
export const IsRecord = kindGuard("Record");
export const IsRef = kindGuard("Ref");
export const IsRest = kindGuard("Rest");
export const IsString = kindGuard("String");
export const IsSymbol = kindGuard("Symbol");
export const IsTemplateLiteral = kindGuard("TemplateLiteral");
export const IsThis = kindGuard("This");
export const IsTuple = kindGuard("Tuple");
export const IsUndefined = kindGuard("Undefined");
export const IsUnion = kindGuard("Union");
export const IsUnknown = kindGuard("Unknown");
export const IsVoid = kindGuard("Void");

// ---------------------------------------------------------------- primitives
export const StringPattern = ".*";
export const NumberPattern = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?";
export const IntegerPattern = "-?(?:0|[1-9][0-9]*)";
export const BigIntPattern = "-?(?:0|[1-9][0-9]*)n";
export const NeverPattern = "(?!)";
export const StringKey = `^${StringPattern}$`;
export const NumberKey = `^${NumberPattern}$`;
export const IntegerKey = `^${IntegerPattern}$`;

export const Any = (options) => make("Any", {}, options);
export const Unknown = (options) => make("Unknown", {}, options);
export const Never = (options) => make("Never", { not: {} }, options);
export const StringType = (options) => make("String", { type: "string" }, options);
export const NumberType = (options) => make("Number", { type: "number" }, options);
export const Integer = (options) => make("Integer", { type: "integer" }, options);
export const BooleanType = (options) => make("Boolean", { type: "boolean" }, options);
export const BigIntType = (options) => make("BigInt", { type: "bigint" }, options);
export const SymbolType = (options) => make("Symbol", { type: "symbol" }, options);
export const Null = (options) => make("Null", { type: "null" }, options);
export const Undefined = (options) => make("Undefined", { type: "undefined" }, options);
export const Void = (options) => make("Void", { type: "void" }, options);
export const This = (options) => make("This", { $ref: "#" }, options);
export const Ref = (ref, options) => make("Ref", { $ref: ref }, options);

// ---------------------------------------------------------------- literal / enum
export class InvalidLiteralValue extends Error {
  constructor(value) {
    super("Invalid Literal value");
    Object.defineProperty(this, "cause", { value: { value }, writable: false, configurable: false, enumerable: false });
  }
}

export const IsLiteralValue = (v) => isBigInt(v) || isBoolean(v) || isNumber(v) || isString(v);
export function LiteralTypeName(value) {
  if (isBigInt(value)) return "bigint";
  if (isBoolean(value)) return "boolean";
  if (isNumber(value)) return "number";
  if (isString(value)) return "string";
  throw new InvalidLiteralValue(value);
}
export const Literal = (value, options) => make("Literal", { type: LiteralTypeName(value), const: value }, options);
export const IsLiteralBigInt = (v) => IsLiteral(v) && isBigInt(v.const);
export const IsLiteralBoolean = (v) => IsLiteral(v) && isBoolean(v.const);
export const IsLiteralNumber = (v) => IsLiteral(v) && isNumber(v.const);
export const IsLiteralString = (v) => IsLiteral(v) && isString(v.const);

export const IsEnumValue = (v) => isString(v) || isNumber(v);
export const IsTypeScriptEnumLike = (v) => isObjectNotArray(v);
/** Values of a TypeScript enum object (numeric reverse-mapping keys dropped). */
export function TypeScriptEnumToEnumValues(type) {
  return keysOf(type).filter((key) => isNaN(key)).map((key) => type[key]);
}
export function Enum(value, options) {
  const values = IsTypeScriptEnumLike(value) ? TypeScriptEnumToEnumValues(value) : value;
  return make("Enum", { enum: values }, options);
}

// ---------------------------------------------------------------- structural
export function RequiredArray(properties) {
  return keysOf(properties).filter((key) => !IsOptional(properties[key]));
}
export const PropertyKeys = (properties) => keysOf(properties);
export const PropertyValues = (properties) => globalThis.Object.values(properties);

export function ObjectType(properties, options = {}) {
  const requiredKeys = RequiredArray(properties);
  const required = requiredKeys.length > 0 ? { required: requiredKeys } : {};
  return make("Object", { type: "object", ...required, properties }, options);
}
export const ArrayType = (items, options) => make("Array", { type: "array", items }, options);
export const Union = (anyOf, options = {}) => make("Union", { anyOf }, options);
export const Intersect = (types, options = {}) => make("Intersect", { allOf: types }, options);
export function Tuple(types, options = {}) {
  return make("Tuple", { type: "array", additionalItems: false, items: types, minItems: types.length }, options);
}
export function FunctionType(parameters, returnType, options = {}) {
  return make("Function", { type: "function", parameters, returnType }, options);
}
export function Constructor(parameters, instanceType, options = {}) {
  return make("Constructor", { type: "constructor", parameters, instanceType }, options);
}
export function Dependent(if_, then_, else_, options = {}) {
  return make("Dependent", { if: if_, then: then_, else: else_ }, options);
}
export function Cyclic($defs, $ref, options) {
  const defs = {};
  for (const key of keysOf($defs)) defs[key] = updateType($defs[key], {}, { $id: key });
  return make("Cyclic", { $defs: defs, $ref }, options);
}
export const Rest = (type) => make("Rest", { type: "rest", items: type }, {});
export const Generic = (parameters, expression) => make("Generic", { type: "generic", parameters, expression });
export const Identifier = (name) => make("Identifier", { name });
export const CallConstruct = (target, args) => make("Call", { type: "call", target, arguments: args }, {});
export const Deferred = (action, parameters, options) => make("Deferred", { type: "deferred", action, parameters, options }, {});

export function Infer(...args) {
  if (args.length !== 1 && args.length !== 2) throw Error("Invalid Arguments");
  const [name, extends_] = args.length === 2 ? args : [args[0], Unknown()];
  return make("Infer", { type: "infer", name, extends: extends_ }, {});
}
export function Parameter(...args) {
  if (args.length < 1 || args.length > 3) throw Error("Invalid Arguments");
  const [name, extends_ = Unknown(), equals = args.length === 2 ? args[1] : Unknown()] = args;
  return make("Parameter", { name, extends: extends_, equals }, {});
}

/** Template literal schema from an already encoded pattern. */
export const TemplateLiteralCreate = (pattern) => make("TemplateLiteral", { type: "string", pattern }, {});
/** Record schema over one key pattern. */
export const RecordFromPattern = (pattern, value) => make("Record", { type: "object", patternProperties: { [pattern]: value } });
export const RecordPattern = (type) => keysOf(type.patternProperties)[0];
export const RecordValue = (type) => type.patternProperties[RecordPattern(type)];

// ---------------------------------------------------------------- option strippers
export const ArrayOptions = (t) => discardKeys(t, ["~kind", "type", "items"]);
export const ObjectOptions = (t) => discardKeys(t, ["~kind", "type", "properties", "required"]);
export const UnionOptions = (t) => discardKeys(t, ["~kind", "anyOf"]);
export const IntersectOptions = (t) => discardKeys(t, ["~kind", "allOf"]);
export const TupleOptions = (t) => discardKeys(t, ["~kind", "type", "items", "minItems", "additionalItems"]);
export const RecordOptions = (t) => discardKeys(t, ["~kind", "type", "patternProperties"]);
export const FunctionOptions = (t) => discardKeys(t, ["~kind", "type", "parameters", "returnType"]);
export const ConstructorOptions = (t) => discardKeys(t, ["~kind", "type", "parameters", "instanceType"]);
export const DependentOptions = (t) => discardKeys(t, ["~kind", "if", "then", "else"]);
export const CyclicOptions = (t) => discardKeys(t, ["~kind", "$defs", "$ref"]);

// ---------------------------------------------------------------- modifiers
export const IsOptional = (v) => IsSchema(v) && hasKey(v, "~optional");
export const IsReadonly = (v) => IsSchema(v) && hasKey(v, "~readonly");
export const IsImmutable = (v) => IsSchema(v) && hasKey(v, "~immutable");

const addMarker = (marker) => (type, options = {}) => updateType(updateType(type, { [marker]: true }, {}), {}, options);
const removeMarker = (marker) => (type, options = {}) => updateType(discardKeys(type, [marker]), {}, options);
export const AddOptionalAction = addMarker("~optional");
export const AddReadonlyAction = addMarker("~readonly");
export const AddImmutableAction = addMarker("~immutable");
export const RemoveOptionalAction = removeMarker("~optional");
export const RemoveReadonlyAction = removeMarker("~readonly");
export const RemoveImmutableAction = removeMarker("~immutable");
export const Optional = (type) => AddOptionalAction(type);
export const Readonly = (type) => AddReadonlyAction(type);
export const Immutable = (type) => AddImmutableAction(type);

export function Unsafe(schema) {
  return updateType(schema, { "~unsafe": null }, {});
}
export const IsUnsafe = (v) => isObjectNotArray(v) && hasKey(v, "~unsafe") && isNull(v["~unsafe"]);

// ---------------------------------------------------------------- refine
export function IsRefinement(value) {
  return isObjectNotArray(value) && hasKey(value, "check") && hasKey(value, "error") && isFunction(value.check) && isFunction(value.error);
}
export function IsRefine(value) {
  return IsSchema(value) && hasKey(value, "~refine") && isArray(value["~refine"]) && value["~refine"].every(IsRefinement);
}
export function RefineAdd(type, refinement) {
  const refinements = IsRefine(type) ? [...type["~refine"], refinement] : [refinement];
  return updateType(type, { "~refine": refinements }, {});
}
export function Refine(...args) {
  if (args.length === 3) return RefineAdd(args[0], { check: args[1], error: args[2] });
  if (args.length === 2) return RefineAdd(args[0], { check: args[1], error: () => "Refine Error" });
  throw Error("Invalid Arguments");
}

// ---------------------------------------------------------------- codec
export function IsCodec(value) {
  return IsSchema(value) && hasKey(value, "~codec") && isObject(value["~codec"]) &&
    hasKey(value["~codec"], "encode") && hasKey(value["~codec"], "decode");
}
export class EncodeBuilder {
  constructor(type, decode) {
    this.type = type;
    this.decode = decode;
  }
  Encode(callback) {
    const type = this.type;
    const inner = IsCodec(type) ? type["~codec"] : undefined;
    const decode = inner ? (value) => this.decode(inner.decode(value)) : this.decode;
    const encode = inner ? (value) => inner.encode(callback(value)) : callback;
    return updateType(type, { "~codec": { decode, encode } }, {});
  }
}
export class DecodeBuilder {
  constructor(type) {
    this.type = type;
  }
  Decode(callback) {
    return new EncodeBuilder(this.type, callback);
  }
}
export const Codec = (type) => new DecodeBuilder(type);
export function Decode(type, callback) {
  return Codec(type).Decode(callback).Encode(() => {
    throw Error("Encode not implemented");
  });
}
export function Encode(type, callback) {
  return Codec(type).Decode(() => {
    throw Error("Decode not implemented");
  }).Encode(callback);
}
