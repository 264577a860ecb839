// The `Type` namespace of typebox 1.x: the builders and guards extensions
// reach through `Type.X`. Imported as a module namespace by typebox.mjs.
export {
  Any, ArrayType as Array, BigIntType as BigInt, BooleanType as Boolean, Codec, Constructor, Cyclic, Decode, DecodeBuilder,
  Dependent, Encode, EncodeBuilder, Enum, FunctionType as Function, Generic, Identifier, Immutable, Infer, Integer,
  Intersect, IsAny, IsArray, IsBigInt, IsBoolean, IsCall, IsCodec, IsConstructor, IsCyclic, IsDependent, IsEnum,
  IsEnumValue, IsFunction, IsGeneric, IsIdentifier, IsImmutable, IsInfer, IsInteger, IsIntersect, IsKind, IsLiteral,
  IsNever, IsNull, IsNumber, IsObject, IsOptional, IsParameter, IsReadonly, IsRecord, IsRef, IsRefine, IsRest,
  IsSchema, IsString, IsSymbol, IsTemplateLiteral, IsThis, IsTuple, IsUndefined, IsUnion, IsUnknown, IsUnsafe,
  IsVoid, Literal, Never, Null, NumberType as Number, ObjectType as Object, Optional, Parameter, Readonly,
  RecordPattern, RecordValue, Ref, Refine, Rest, StringType as String, SymbolType as Symbol, This, Tuple, Undefined,
  Union, Unknown, Unsafe, Void,
} from "./typebox_types.mjs";
export {
  Capitalize, Conditional, ConstructorParameters, Evaluate, Exclude, Extract, Index, InstanceType, Interface, KeyOf,
  Lowercase, Mapped, NonNullable, Omit, Parameters, Partial, Pick, ReadonlyObject, ReadonlyType, Record, Required,
  ReturnType, Uncapitalize, Uppercase, With,
} from "./typebox_actions.mjs";
export { Call, Instantiate, Module } from "./typebox_instantiate.mjs";
export { Extends, ExtendsResult } from "./typebox_extends.mjs";
export { RecordKey, TemplateLiteral } from "./typebox_template.mjs";
export { Script } from "./typebox_script.mjs";
