// pi-agent's `typebox` module (also `@sinclair/typebox`): the typebox 1.x
// main entry. Type builders produce JSON Schema objects whose JSON output and
// hidden `~` markers match the real package.
import * as Type from "./typebox_type_ns.mjs";

export * from "./typebox_type_ns.mjs";
export {
  ArrayOptions, BigIntPattern, CallConstruct, ConstructorOptions, CyclicOptions, Deferred, DependentOptions,
  FunctionOptions, IntegerKey, IntegerPattern, IntersectOptions, InvalidLiteralValue, IsDeferred, IsLiteralBigInt,
  IsLiteralBoolean, IsLiteralNumber, IsLiteralString, IsLiteralValue, IsRefinement, IsTypeScriptEnumLike,
  LiteralTypeName, NeverPattern, NumberKey, NumberPattern, ObjectOptions, PropertyKeys, PropertyValues,
  RecordFromPattern, RecordOptions, RefineAdd, RequiredArray, StringKey, StringPattern, TemplateLiteralCreate,
  TupleOptions, TypeScriptEnumToEnumValues, UnionOptions, ArrayType as _Array_, FunctionType as _Function_,
  ObjectType as _Object_,
} from "./typebox_types.mjs";
export {
  AddImmutable, AddImmutableDeferred, AddOptional, AddOptionalDeferred, AddReadonly, AddReadonlyDeferred,
  CapitalizeAction, CapitalizeDeferred, ConditionalAction, ConditionalDeferred, ConstructorParametersAction,
  ConstructorParametersDeferred, ConvertToIntegerKey, EvaluateAction, EvaluateDeferred, ExcludeAction, ExcludeDeferred,
  ExtractAction, ExtractDeferred, IndexAction, IndexDeferred, InstanceTypeAction, InstanceTypeDeferred, InterfaceAction,
  InterfaceDeferred, IsInterfaceDeferred, KeyOfAction, KeyOfDeferred, KeysToIndexer, LowercaseAction,
  LowercaseDeferred, MappedAction, MappedDeferred, ModuleDeferred, NonNullableAction, NonNullableDeferred, OmitAction,
  OmitDeferred, ParametersAction, ParametersDeferred, PartialAction, PartialDeferred, PickAction, PickDeferred,
  ReadonlyObjectAction, ReadonlyObjectDeferred, RecordAction, RecordDeferred, RemoveImmutable, RemoveImmutableDeferred,
  RemoveOptional, RemoveOptionalDeferred, RemoveReadonly, RemoveReadonlyDeferred, RequiredAction, RequiredDeferred,
  ReturnTypeAction, ReturnTypeDeferred, UncapitalizeAction, UncapitalizeDeferred, UppercaseAction, UppercaseDeferred,
  WithAction, WithDeferred,
} from "./typebox_actions.mjs";
export {
  CapitalizeInstantiate, ConditionalInstantiate, ConstructorParametersInstantiate, CyclicCandidates, CyclicCheck,
  CyclicDependencies, EvaluateInstantiate, ExcludeInstantiate, ExtractInstantiate, IndexInstantiate,
  InstanceTypeInstantiate, InstantiateCyclic, InterfaceInstantiate, KeyOfInstantiate, LowercaseInstantiate,
  MappedInstantiate, ModuleInstantiate, NonNullableInstantiate, OmitInstantiate, ParametersInstantiate,
  PartialInstantiate, PickInstantiate, ReadonlyObjectInstantiate, RecordInstantiate, RefInstantiate,
  RequiredInstantiate, ReturnTypeInstantiate, UncapitalizeInstantiate, UppercaseInstantiate, WithInstantiate,
} from "./typebox_instantiate.mjs";
export {
  Broaden, CollapseToObject, Compare, Composite, CyclicTarget, Distribute, EvaluateDependent, EvaluateEnum,
  EvaluateIntersect, EvaluateTemplateLiteral, EvaluateType, EvaluateUnion, EvaluateUnionFast, Flatten, Narrow, Priority,
  ResultDisjoint, ResultEqual, ResultLeftInside, ResultRightInside,
} from "./typebox_evaluate.mjs";
export { CyclicExtends } from "./typebox_extends.mjs";
export {
  IsTemplateLiteralDeferred, IsTemplateLiteralFinite, IsTemplateLiteralPattern, ParsePatternIntoTypes,
  ParseTemplateIntoTypes, RecordPatternToType, TemplateLiteralDecode, TemplateLiteralDecodeUnsafe,
  TemplateLiteralDeferred, TemplateLiteralEncode, TemplateLiteralFromString, TemplateLiteralFromTypes,
} from "./typebox_template.mjs";
export { Type };
export default Type;
