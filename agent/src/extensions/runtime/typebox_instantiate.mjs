// Instantiate: resolve Refs against a context, run Deferred actions whose
// operands became concrete, and expand generic calls, cyclic definitions and
// modules.
import { updateType, keysOf } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import * as A from "./typebox_actions.mjs";
import { Extends, ExtendsResult } from "./typebox_extends.mjs";
import { EvaluateIntersect, EvaluateUnion } from "./typebox_evaluate.mjs";
import { TemplateLiteralAction } from "./typebox_template.mjs";

export const State = (callstack, visited) => ({ callstack, visited });
export const CanInstantiate = (types) => types.every((type) => !T.IsRef(type));

export function InstantiateProperties(context, state, properties) {
  return keysOf(properties).reduce((result, key) => ({ ...result, [key]: InstantiateType(context, state, properties[key]) }), {});
}
export const InstantiateTypes = (context, state, types) => types.map((type) => InstantiateType(context, state, type));
export const InstantiateElements = (context, state, types) => RestSpread(InstantiateTypes(context, state, types));

/** Flatten `...Tuple` rest elements into their items. */
export function RestSpread(types) {
  return types.flatMap((type) => {
    if (!T.IsRest(type)) return [type];
    if (T.IsTuple(type.items)) return RestSpread(type.items.items);
    return T.IsInfer(type.items) || T.IsRef(type.items) ? [type] : [T.Never()];
  });
}

export function RefInstantiate(context, state, type, ref) {
  if (state.visited.includes(ref) || !(ref in context)) return type;
  return InstantiateType(context, State(state.callstack, [...state.visited, ref]), context[ref]);
}

// ---------------------------------------------------------------- instantiate forms
// Actions are looked up at call time: the action module is part of an import cycle.
const one = (module, name) => (context, state, type, options) => module[name](InstantiateType(context, state, type), options);
const two = (module, name) => (context, state, left, right, options) =>
  module[name](InstantiateType(context, state, left), InstantiateType(context, state, right), options);

export const AddImmutableInstantiate = one(T, "AddImmutableAction");
export const AddOptionalInstantiate = one(T, "AddOptionalAction");
export const AddReadonlyInstantiate = one(T, "AddReadonlyAction");
export const RemoveImmutableInstantiate = one(T, "RemoveImmutableAction");
export const RemoveOptionalInstantiate = one(T, "RemoveOptionalAction");
export const RemoveReadonlyInstantiate = one(T, "RemoveReadonlyAction");
export const CapitalizeInstantiate = one(A, "CapitalizeAction");
export const LowercaseInstantiate = one(A, "LowercaseAction");
export const UncapitalizeInstantiate = one(A, "UncapitalizeAction");
export const UppercaseInstantiate = one(A, "UppercaseAction");
export const ConstructorParametersInstantiate = one(A, "ConstructorParametersAction");
export const EvaluateInstantiate = one(A, "EvaluateAction");
export const InstanceTypeInstantiate = one(A, "InstanceTypeAction");
export const KeyOfInstantiate = one(A, "KeyOfAction");
export const NonNullableInstantiate = one(A, "NonNullableAction");
export const ParametersInstantiate = one(A, "ParametersAction");
export const PartialInstantiate = one(A, "PartialAction");
export const ReadonlyObjectInstantiate = one(A, "ReadonlyObjectAction");
export const RequiredInstantiate = one(A, "RequiredAction");
export const ReturnTypeInstantiate = one(A, "ReturnTypeAction");
export const WithInstantiate = one(A, "WithAction");
export const ExcludeInstantiate = two(A, "ExcludeAction");
export const ExtractInstantiate = two(A, "ExtractAction");
export const IndexInstantiate = two(A, "IndexAction");
export const OmitInstantiate = two(A, "OmitAction");
export const PickInstantiate = two(A, "PickAction");
export const RecordInstantiate = two(A, "RecordAction");
export function InterfaceInstantiate(context, state, heritage, properties, options) {
  return A.InterfaceAction(InstantiateTypes(context, state, heritage), InstantiateProperties(context, state, properties), options);
}
export function ConditionalInstantiate(context, state, left, right, true_, false_, options) {
  const l = InstantiateType(context, state, left);
  const r = InstantiateType(context, state, right);
  return A.ConditionalAction(context, state, l, r, true_, false_, options);
}
export function MappedInstantiate(context, state, identifier, type, as, property, options) {
  return A.MappedAction(context, state, identifier, InstantiateType(context, state, type), as, property, options);
}
function TemplateLiteralInstantiate(context, state, types, options) {
  return TemplateLiteralAction(InstantiateTypes(context, state, types), options);
}

const deferredActions = {
  AddImmutable: (c, s, p, o) => AddImmutableInstantiate(c, s, p[0], o),
  RemoveImmutable: (c, s, p, o) => RemoveImmutableInstantiate(c, s, p[0], o),
  AddReadonly: (c, s, p, o) => AddReadonlyInstantiate(c, s, p[0], o),
  RemoveReadonly: (c, s, p, o) => RemoveReadonlyInstantiate(c, s, p[0], o),
  AddOptional: (c, s, p, o) => AddOptionalInstantiate(c, s, p[0], o),
  RemoveOptional: (c, s, p, o) => RemoveOptionalInstantiate(c, s, p[0], o),
  Capitalize: (c, s, p, o) => CapitalizeInstantiate(c, s, p[0], o),
  Conditional: (c, s, p, o) => ConditionalInstantiate(c, s, p[0], p[1], p[2], p[3], o),
  ConstructorParameters: (c, s, p, o) => ConstructorParametersInstantiate(c, s, p[0], o),
  Evaluate: (c, s, p, o) => EvaluateInstantiate(c, s, p[0], o),
  Exclude: (c, s, p, o) => ExcludeInstantiate(c, s, p[0], p[1], o),
  Extract: (c, s, p, o) => ExtractInstantiate(c, s, p[0], p[1], o),
  Index: (c, s, p, o) => IndexInstantiate(c, s, p[0], p[1], o),
  InstanceType: (c, s, p, o) => InstanceTypeInstantiate(c, s, p[0], o),
  Interface: (c, s, p, o) => InterfaceInstantiate(c, s, p[0], p[1], o),
  KeyOf: (c, s, p, o) => KeyOfInstantiate(c, s, p[0], o),
  Lowercase: (c, s, p, o) => LowercaseInstantiate(c, s, p[0], o),
  Mapped: (c, s, p, o) => MappedInstantiate(c, s, p[0], p[1], p[2], p[3], o),
  Module: (c, s, p, o) => ModuleInstantiate(c, s, p[0], o),
  NonNullable: (c, s, p, o) => NonNullableInstantiate(c, s, p[0], o),
  Pick: (c, s, p, o) => PickInstantiate(c, s, p[0], p[1], o),
  Parameters: (c, s, p, o) => ParametersInstantiate(c, s, p[0], o),
  Partial: (c, s, p, o) => PartialInstantiate(c, s, p[0], o),
  Omit: (c, s, p, o) => OmitInstantiate(c, s, p[0], p[1], o),
  ReadonlyObject: (c, s, p, o) => ReadonlyObjectInstantiate(c, s, p[0], o),
  Record: (c, s, p, o) => RecordInstantiate(c, s, p[0], p[1], o),
  Required: (c, s, p, o) => RequiredInstantiate(c, s, p[0], o),
  ReturnType: (c, s, p, o) => ReturnTypeInstantiate(c, s, p[0], o),
  TemplateLiteral: (c, s, p, o) => TemplateLiteralInstantiate(c, s, p[0], o),
  Uncapitalize: (c, s, p, o) => UncapitalizeInstantiate(c, s, p[0], o),
  Uppercase: (c, s, p, o) => UppercaseInstantiate(c, s, p[0], o),
  With: (c, s, p) => WithInstantiate(c, s, p[0], p[1]),
};

function instantiateImmediate(context, state, type) {
  const types = (list) => InstantiateTypes(context, state, list);
  const inner = (t) => InstantiateType(context, state, t);
  let result = type;
  if (T.IsRef(type)) result = RefInstantiate(context, state, type, type.$ref);
  else if (T.IsArray(type)) result = T.ArrayType(inner(type.items), T.ArrayOptions(type));
  else if (T.IsCall(type)) result = CallInstantiate(context, state, type.target, type.arguments);
  else if (T.IsConstructor(type)) result = T.Constructor(types(type.parameters), inner(type.instanceType), T.ConstructorOptions(type));
  else if (T.IsFunction(type)) result = T.FunctionType(types(type.parameters), inner(type.returnType), T.FunctionOptions(type));
  else if (T.IsDependent(type)) result = T.Dependent(inner(type.if), inner(type.then), inner(type.else), T.DependentOptions(type));
  else if (T.IsIntersect(type)) result = T.Intersect(types(type.allOf), T.IntersectOptions(type));
  else if (T.IsObject(type)) result = T.ObjectType(InstantiateProperties(context, state, type.properties), T.ObjectOptions(type));
  else if (T.IsRecord(type)) result = T.RecordFromPattern(T.RecordPattern(type), inner(T.RecordValue(type)));
  else if (T.IsRest(type)) result = T.Rest(inner(type.items));
  else if (T.IsTuple(type)) result = T.Tuple(InstantiateElements(context, state, type.items), T.TupleOptions(type));
  else if (T.IsUnion(type)) result = T.Union(types(type.anyOf), T.UnionOptions(type));
  if (T.IsOptional(type)) result = T.AddOptionalAction(result, {});
  if (T.IsReadonly(type)) result = T.AddReadonlyAction(result, {});
  if (T.IsImmutable(type)) result = T.AddImmutableAction(result, {});
  return result;
}

export function InstantiateType(context, state, type) {
  if (!T.IsDeferred(type)) return instantiateImmediate(context, state, type);
  const run = Object.prototype.hasOwnProperty.call(deferredActions, type.action) ? deferredActions[type.action] : undefined;
  return run ? run(context, state, type.parameters, type.options) : T.Deferred(type.action, type.parameters, type.options);
}
export const Instantiate = (context, type) => InstantiateType(context, State([], []), type);

// ---------------------------------------------------------------- generic calls
function resolveTarget(context, name, target) {
  if (T.IsGeneric(target)) return [name, T.Generic(target.parameters, target.expression)];
  if (T.IsRef(target)) return target.$ref in context ? resolveTarget(context, target.$ref, context[target.$ref]) : ["(not-resolvable)", T.Never()];
  return ["(not-generic)", T.Never()];
}
function bindArgument(context, state, name, constraint, type) {
  const argument = InstantiateType(context, state, type);
  const ok = T.IsInfer(argument) || T.IsCall(argument) || ExtendsResult.IsExtendsTrueLike(Extends({}, argument, constraint));
  if (!ok) {
    throw new Error(`Argument for parameter ${name} does not satisfy constraint`, { cause: { parameter: name, expect: constraint, actual: argument } });
  }
  return { ...context, [name]: argument };
}
function bindParameters(context, state, parameters, args) {
  if (parameters.length === 0) return context;
  const [parameter, ...restParameters] = parameters;
  const constraint = InstantiateType(context, state, parameter.extends);
  const fallback = InstantiateType(context, state, parameter.equals);
  if (args.length === 0) return bindParameters(bindArgument(context, state, parameter.name, constraint, fallback), state, restParameters, []);
  return bindParameters(bindArgument(context, state, parameter.name, constraint, args[0]), state, restParameters, args.slice(1));
}
/** Names of parameters a conditional or mapped expression distributes over. */
function distributionNames(expression, result = []) {
  if (T.IsDeferred(expression) && expression.action === "Conditional") {
    const [check, , whenTrue, whenFalse] = expression.parameters;
    const withCheck = T.IsRef(check) ? [...result, check.$ref] : result;
    return distributionNames(whenTrue, distributionNames(whenFalse, withCheck));
  }
  if (T.IsDeferred(expression) && expression.action === "Mapped") {
    const source = expression.parameters[1];
    const keyOfRef = T.IsDeferred(source) && source.action === "KeyOf" && T.IsRef(source.parameters[0]);
    return keyOfRef ? [...result, source.parameters[0].$ref] : result;
  }
  return result;
}
function distributeArguments(parameters, args, expression) {
  const distributes = T.IsDeferred(expression) && (expression.action === "Conditional" || expression.action === "Mapped");
  if (!distributes) return [args];
  const names = distributionNames(expression);
  const count = Math.min(args.length, parameters.length);
  let combos = [[]];
  for (let i = 0; i < count; i++) {
    const variants = names.includes(parameters[i].name) && T.IsUnion(args[i]) ? [...args[i].anyOf] : [args[i]];
    combos = variants.flatMap((variant) => combos.map((combo) => [...combo, variant]));
  }
  return combos;
}
function callDispatch(context, state, target, parameters, expression, args) {
  const bound = bindParameters(context, state, parameters, args);
  const returned = InstantiateType(bound, State([...state.callstack, target.$ref], state.visited), expression);
  return InstantiateType(bound, State([], []), returned);
}
export function CallInstantiate(context, state, target, args) {
  const instantiated = InstantiateTypes(context, state, args);
  const [name, type] = resolveTarget(context, "(anonymous)", target);
  if (!T.IsGeneric(type)) return T.CallConstruct(target, instantiated);
  const top = state.callstack.length > 0 ? state.callstack[state.callstack.length - 1] : "";
  if (top === name) return T.CallConstruct(T.Ref(name), instantiated);
  const results = distributeArguments(type.parameters, instantiated, type.expression)
    .map((combo) => callDispatch(context, state, T.Ref(name), type.parameters, type.expression, combo));
  return results.length === 1 ? results[0] : EvaluateUnion(results);
}
export const Call = (target, args) => CallInstantiate({}, State([], []), target, args);

// ---------------------------------------------------------------- cyclic
function refsIn(type) {
  if (T.IsRef(type)) return { refs: [type.$ref], children: [] };
  if (T.IsArray(type)) return { refs: [], children: [type.items] };
  if (T.IsConstructor(type)) return { refs: [], children: [...type.parameters, type.instanceType] };
  if (T.IsFunction(type)) return { refs: [], children: [...type.parameters, type.returnType] };
  if (A.IsInterfaceDeferred(type)) return { refs: [], children: Object.values(type.parameters[1]) };
  if (T.IsIntersect(type)) return { refs: [], children: type.allOf };
  if (T.IsObject(type)) return { refs: [], children: Object.values(type.properties) };
  if (T.IsUnion(type)) return { refs: [], children: type.anyOf };
  if (T.IsTuple(type)) return { refs: [], children: type.items };
  if (T.IsRecord(type)) return { refs: [], children: [T.RecordValue(type)] };
  return { refs: [], children: [] };
}
/** Does `type` reach back to a name on `stack` through references in `context`? */
export function CyclicCheck(stack, context, type) {
  const { refs, children } = refsIn(type);
  if (refs.length > 0) return stack.includes(refs[0]) ? true : CyclicCheck([...stack, refs[0]], context, context[refs[0]]);
  return children.some((child) => CyclicCheck(stack, context, child));
}
export function CyclicCandidates(context) {
  return T.PropertyKeys(context).filter((key) => CyclicCheck([key], context, context[key]));
}
export function CyclicDependencies(context, key, type) {
  const visit = (t, result) => {
    const { refs, children } = refsIn(t);
    if (refs.length > 0) {
      if (result.includes(refs[0])) return result;
      if (!(refs[0] in context)) throw Error("Unreachable");
      return visit(context[refs[0]], [...result, refs[0]]);
    }
    return children.reduce((acc, child) => visit(child, acc), result);
  };
  return visit(type, [key]);
}
export function InstantiateCyclic(context, ref, type) {
  const dependencies = CyclicDependencies(context, ref, type);
  const definitions = {};
  for (const key of keysOf(context).filter((k) => dependencies.includes(k))) {
    const definition = context[key];
    if (A.IsInterfaceDeferred(definition)) {
      const heritage = InstantiateTypes(context, State([], []), definition.parameters[0]);
      const properties = InstantiateProperties({}, State([], []), definition.parameters[1]);
      definitions[key] = EvaluateIntersect([...heritage, T.ObjectType(properties)]);
    } else {
      definitions[key] = definition;
    }
  }
  return T.Cyclic(definitions, ref);
}

// ---------------------------------------------------------------- modules
export function ModuleInstantiate(context, _state, declarations, options) {
  const cyclic = CyclicCandidates(declarations);
  const scope = { ...context, ...declarations };
  const result = {};
  for (const key of keysOf(declarations).filter((k) => cyclic.includes(k))) result[key] = InstantiateCyclic(scope, key, declarations[key]);
  for (const key of keysOf(declarations).filter((k) => !cyclic.includes(k))) result[key] = InstantiateType(scope, State([], []), declarations[key]);
  return updateType(result, {}, options);
}
export const Module = (declarations, options = {}) => ModuleInstantiate({}, State([], []), declarations, options);
