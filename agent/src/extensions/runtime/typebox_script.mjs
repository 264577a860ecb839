// Type.Script: TypeScript-like type syntax ("{ a: string, b?: number[] }",
// "type A = ...; interface B extends A {...}", generics, mapped and
// conditional types) parsed into TypeBox types, then instantiated. The
// grammar is ordered-choice (first matching alternative wins), like TypeBox's.
import { updateType, isString } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import * as A from "./typebox_actions.mjs";
import { InstantiateType, State } from "./typebox_instantiate.mjs";
import { TemplateLiteralDeferred } from "./typebox_template.mjs";

// ---------------------------------------------------------------- tokens
function skipComments(text, trimmed, again) {
  if (trimmed.startsWith("/*")) {
    const end = trimmed.indexOf("*/", 2);
    return again(end === -1 ? "" : trimmed.slice(end + 2));
  }
  if (trimmed.startsWith("//")) {
    const end = trimmed.indexOf("\n", 2);
    return again(end === -1 ? "" : trimmed.slice(end));
  }
  return trimmed;
}
/** Skip whitespace (newlines included) and comments. */
export const trim = (input) => skipComments(input, input.trimStart(), trim);
/** Skip spaces, tabs and comments but stop at a newline. */
const trimLine = (input) => skipComments(input, input.replace(/^[ \t\r\f\v]+/, ""), trimLine);

/** Match literal text after the usual trimming; returns the rest of the input or undefined. */
export function token(text, input) {
  if (text === "") return input;
  const source = text.startsWith("\n") ? trimLine(input) : text.startsWith(" ") ? input : trim(input);
  return source.startsWith(text) ? source.slice(text.length) : undefined;
}
/** Text up to the first sentinel (none consumed); undefined at end of input. */
export function until(sentinels, input) {
  for (let i = 0; i < input.length; i++) {
    if (sentinels.some((s) => input.startsWith(s, i))) return [input.slice(0, i), input.slice(i)];
  }
  return undefined;
}
function match(regexp, input) {
  const source = trim(input);
  const m = regexp.exec(source);
  return m ? [m[0], source.slice(m[0].length)] : undefined;
}
const ident = (input) => match(/^[A-Za-z_$][A-Za-z0-9_$]*/, input);
function quoted(input) {
  const source = trim(input);
  const quote = source[0];
  if (quote !== "'" && quote !== '"') return undefined;
  const body = until(["\n", quote], source.slice(1));
  return body && body[1].startsWith(quote) ? [body[0], body[1].slice(1)] : undefined;
}
function unsignedInteger(input) {
  const m = match(/^(?:0|[1-9][0-9_]*)/, input);
  return m && [m[0].replace(/_/g, ""), m[1]];
}
function signed(input, unsigned) {
  const source = trim(input);
  const sign = source.startsWith("-") ? "-" : "";
  const body = unsigned(source.slice(sign.length));
  return body && [`${sign}${body[0]}`, body[1]];
}
function unsignedNumber(input) {
  const source = trim(input);
  const fraction = (rest) => {
    const m = /^[0-9_]+/.exec(rest);
    const digits = m ? m[0].replace(/_/g, "") : "";
    return digits === "" ? undefined : [digits, rest.slice(m[0].length)];
  };
  if (source.startsWith(".")) {
    const f = fraction(source.slice(1));
    return f && [`0.${f[0]}`, f[1]];
  }
  const whole = unsignedInteger(source);
  if (!whole) return undefined;
  if (!whole[1].startsWith(".")) return whole;
  const f = fraction(whole[1].slice(1));
  return f ? [`${whole[0]}.${f[0]}`, f[1]] : [whole[0], whole[1].slice(1)];
}
const numberToken = (input) => signed(input, unsignedNumber);
function bigintToken(input) {
  const integer = signed(input, unsignedInteger);
  return integer && integer[1].startsWith("n") ? [integer[0], integer[1].slice(1)] : undefined;
}

// ---------------------------------------------------------------- combinators
/** Parse `item (delimiter item)* delimiter?` where the final item is optional. */
function delimited(input, item, delimiters) {
  const items = [];
  let rest = input;
  for (;;) {
    const parsed = item(rest);
    if (!parsed) return [items, rest];
    const after = delimiters.reduce((found, d) => found ?? d(parsed[1]), undefined);
    items.push(parsed[0]);
    if (after === undefined) return [items, parsed[1]];
    rest = after;
  }
}
const comma = [(input) => token(",", input)];
const propertyDelimiters = [
  (i) => { const a = token(",", i); return a === undefined ? undefined : token("\n", a); },
  (i) => { const a = token(";", i); return a === undefined ? undefined : token("\n", a); },
  (i) => token(",", i), (i) => token(";", i), (i) => token("\n", i),
];
const moduleDelimiters = [
  (i) => { const a = token(";", i); return a === undefined ? undefined : token("\n", a); },
  (i) => token(";", i), (i) => token("\n", i),
];
/** `open items close` with delimited items. */
function enclosed(input, open, close, item, delimiters) {
  const start = token(open, input);
  if (start === undefined) return undefined;
  const [items, rest] = delimited(start, item, delimiters);
  const end = token(close, rest);
  return end === undefined ? undefined : [items, end];
}
const first = (input, parsers) => parsers.reduce((found, parse) => found ?? parse(input), undefined);

// ---------------------------------------------------------------- types
const keywords = [
  ["string", () => T.StringType()], ["number", () => T.NumberType()], ["boolean", () => T.BooleanType()],
  ["undefined", () => T.Undefined()], ["null", () => T.Null()], ["integer", () => T.Integer()],
  ["bigint", () => T.BigIntType()], ["unknown", () => T.Unknown()], ["any", () => T.Any()],
  ["object", () => T.ObjectType({})], ["never", () => T.Never()], ["symbol", () => T.SymbolType()],
  ["void", () => T.Void()], ["this", () => T.This()],
];
const intrinsics = {
  Capitalize: (p) => A.CapitalizeDeferred(p[0]), ConstructorParameters: (p) => A.ConstructorParametersDeferred(p[0]),
  Evaluate: (p) => A.EvaluateDeferred(p[0]), Exclude: (p) => A.ExcludeDeferred(p[0], p[1]), Extract: (p) => A.ExtractDeferred(p[0], p[1]),
  Index: (p) => A.IndexDeferred(p[0], p[1]), InstanceType: (p) => A.InstanceTypeDeferred(p[0]), Lowercase: (p) => A.LowercaseDeferred(p[0]),
  NonNullable: (p) => A.NonNullableDeferred(p[0]), Omit: (p) => A.OmitDeferred(p[0], p[1]), Parameters: (p) => A.ParametersDeferred(p[0]),
  Partial: (p) => A.PartialDeferred(p[0]), Pick: (p) => A.PickDeferred(p[0], p[1]), Readonly: (p) => A.ReadonlyObjectDeferred(p[0]),
  KeyOf: (p) => A.KeyOfDeferred(p[0]), Record: (p) => A.RecordDeferred(p[0], p[1]), Required: (p) => A.RequiredDeferred(p[0]),
  ReturnType: (p) => A.ReturnTypeDeferred(p[0]), Uncapitalize: (p) => A.UncapitalizeDeferred(p[0]), Uppercase: (p) => A.UppercaseDeferred(p[0]),
};
function genericCall(input) {
  const name = ident(input);
  const args = name && enclosed(name[1], "<", ">", type, comma);
  if (!args) return undefined;
  if (name[0] === "Array") return [T.ArrayType(args[0][0]), args[1]];
  const intrinsic = Object.prototype.hasOwnProperty.call(intrinsics, name[0]) ? intrinsics[name[0]] : undefined;
  return [intrinsic ? intrinsic(args[0]) : T.CallConstruct(T.Ref(name[0]), args[0]), args[1]];
}

/** `a${T}b` template body after the opening backtick; returns [types, rest]. */
function templateBody(input) {
  const span = until(["${", "`"], input);
  if (!span) return undefined;
  const literal = T.Literal(span[0]);
  const open = token("${", span[1]);
  const inner = open === undefined ? undefined : type(open);
  const close = inner && token("}", inner[1]);
  const tail = close === undefined ? undefined : templateBody(close);
  return tail ? [[literal, inner[0], ...tail[0]], tail[1]] : [[literal], span[1]];
}
/** Parse `` `...` `` into its span and interpolation types. */
export function templateTypes(input) {
  const start = token("`", input);
  const body = start === undefined ? undefined : templateBody(start);
  const end = body && token("`", body[1]);
  return end === undefined ? undefined : [body[0], end];
}

function propertyKey(input) {
  const num = numberToken(input);
  if (num) return [`${num[0]}`, num[1]];
  const name = ident(input) ?? quoted(input);
  if (name) return name;
  let rest = token("[", input);
  const indexName = rest === undefined ? undefined : ident(rest);
  rest = indexName && token(":", indexName[1]);
  if (rest === undefined) return undefined;
  for (const [word, key] of [["integer", T.IntegerKey], ["number", T.NumberKey], ["string", T.StringKey], ["symbol", T.StringKey]]) {
    const after = token(word, rest);
    const end = after === undefined ? undefined : token("]", after);
    if (end !== undefined) return [key, end];
  }
  return undefined;
}
const flag = (word, input) => {
  const rest = token(word, input);
  return rest === undefined ? [false, input] : [true, rest];
};
function property(input) {
  const [isReadonly, afterReadonly] = flag("readonly", input);
  const key = propertyKey(afterReadonly);
  if (!key) return undefined;
  const [isOptional, afterOptional] = flag("?", key[1]);
  const colon = token(":", afterOptional);
  const value = colon === undefined ? undefined : type(colon);
  if (!value) return undefined;
  let wrapped = isOptional ? A.AddOptionalDeferred(value[0]) : value[0];
  if (isReadonly) wrapped = A.AddReadonlyDeferred(wrapped);
  return [{ [key[0]]: wrapped }, value[1]];
}
const patternKeys = [T.IntegerKey, T.NumberKey, T.StringKey];
function splitProperties(list) {
  return list.reduce(([properties, patterns], entry) =>
    patternKeys.some((key) => key in entry) ? [properties, { ...patterns, ...entry }] : [{ ...properties, ...entry }, patterns], [{}, {}]);
}
const properties = (input) => {
  const parsed = enclosed(input, "{", "}", property, propertyDelimiters);
  return parsed && [splitProperties(parsed[0]), parsed[1]];
};
function objectType(input) {
  const parsed = properties(input);
  if (!parsed) return undefined;
  const [props, patternProperties] = parsed[0];
  return [T.ObjectType(props, Object.keys(patternProperties).length === 0 ? {} : { patternProperties }), parsed[1]];
}

/** `name?: readonly T` style labelled tuple elements and parameters. */
function labelled(input, allowBare) {
  const name = ident(input);
  if (name) {
    const [isOptional, afterOptional] = flag("?", name[1]);
    const colon = token(":", afterOptional);
    if (colon !== undefined) {
      const [isReadonly, afterReadonly] = flag("readonly", colon);
      const value = type(afterReadonly);
      if (value) {
        let wrapped = isOptional ? A.AddOptionalDeferred(value[0]) : value[0];
        if (isReadonly) wrapped = A.AddReadonlyDeferred(wrapped);
        return value && [wrapped, value[1]];
      }
    }
  }
  if (!allowBare) return undefined;
  const ro = token("readonly", input);
  if (ro !== undefined) {
    const value = type(ro);
    if (value) {
      const optional = token("?", value[1]);
      return optional !== undefined ? [A.AddReadonlyDeferred(A.AddOptionalDeferred(value[0])), optional] : [A.AddReadonlyDeferred(value[0]), value[1]];
    }
  }
  const value = type(input);
  if (!value) return undefined;
  const optional = token("?", value[1]);
  return optional !== undefined ? [A.AddOptionalDeferred(value[0]), optional] : value;
}
function restOr(input, base) {
  const spread = token("...", input);
  if (spread !== undefined) {
    const inner = base(spread);
    if (inner) return [T.Rest(inner[0]), inner[1]];
  }
  return base(input);
}
const element = (input) => restOr(input, (i) => labelled(i, true));
const parameter = (input) => restOr(input, (i) => labelled(i, false));
function tupleType(input) {
  const parsed = enclosed(input, "[", "]", element, comma);
  return parsed && [T.Tuple(parsed[0]), parsed[1]];
}
function callable(input, isConstructor) {
  let rest = input;
  if (isConstructor) {
    rest = token("new", input);
    if (rest === undefined) return undefined;
  }
  const params = enclosed(rest, "(", ")", parameter, comma);
  const arrow = params && token("=>", params[1]);
  const result = arrow === undefined ? undefined : type(arrow);
  if (!result) return undefined;
  return [isConstructor ? T.Constructor(params[0], result[0]) : T.FunctionType(params[0], result[0]), result[1]];
}
function modifier(input, word) {
  for (const [sign, state] of [["+", "add"], ["-", "remove"]]) {
    const s = token(sign, input);
    const w = s === undefined ? undefined : token(word, s);
    if (w !== undefined) return [state, w];
  }
  const plain = token(word, input);
  return plain === undefined ? ["none", input] : ["add", plain];
}
function mappedType(input) {
  let rest = token("{", input);
  if (rest === undefined) return undefined;
  const [readonlyState, afterReadonly] = modifier(rest, "readonly");
  rest = token("[", afterReadonly);
  const name = rest === undefined ? undefined : ident(rest);
  rest = name && token("in", name[1]);
  const source = rest === undefined ? undefined : type(rest);
  if (!source) return undefined;
  const asKeyword = token("as", source[1]);
  const asType = asKeyword === undefined ? undefined : type(asKeyword);
  rest = token("]", asType ? asType[1] : source[1]);
  if (rest === undefined) return undefined;
  const [optionalState, afterOptional] = modifier(rest, "?");
  rest = token(":", afterOptional);
  const value = rest === undefined ? undefined : type(rest);
  if (!value) return undefined;
  const semicolon = token(";", value[1]);
  const end = token("}", semicolon === undefined ? value[1] : semicolon);
  if (end === undefined) return undefined;
  const apply = (state, add, remove, t) => (state === "add" ? add(t) : state === "remove" ? remove(t) : t);
  const mappedValue = apply(readonlyState, A.AddReadonlyDeferred, A.RemoveReadonlyDeferred,
    apply(optionalState, A.AddOptionalDeferred, A.RemoveOptionalDeferred, value[0]));
  return [A.MappedDeferred(T.Identifier(name[0]), source[0], asType ? asType[0] : T.Ref(name[0]), mappedValue), end];
}
function dependentType(input) {
  const start = token("if", input);
  const condition = start === undefined ? undefined : type(start);
  const then = condition && token("then", condition[1]);
  const whenTrue = then === undefined ? undefined : type(then);
  if (!whenTrue) return undefined;
  const otherwise = token("else", whenTrue[1]);
  const whenFalse = otherwise === undefined ? undefined : type(otherwise);
  return whenFalse ? [T.Dependent(condition[0], whenTrue[0], whenFalse[0]), whenFalse[1]] : [T.Dependent(condition[0], whenTrue[0], T.Unknown()), whenTrue[1]];
}
function base(input) {
  const open = token("(", input);
  if (open !== undefined) {
    const inner = type(open);
    const close = inner && token(")", inner[1]);
    if (close !== undefined) return [inner[0], close];
  }
  for (const [word, build] of keywords) {
    const rest = token(word, input);
    if (rest !== undefined) return [build(), rest];
  }
  const big = bigintToken(input);
  if (big) return [T.Literal(BigInt(big[0])), big[1]];
  for (const word of ["true", "false"]) {
    const rest = token(word, input);
    if (rest !== undefined) return [T.Literal(word === "true"), rest];
  }
  const num = numberToken(input);
  if (num) return [T.Literal(parseFloat(num[0])), num[1]];
  const text = quoted(input);
  if (text) return [T.Literal(text[0]), text[1]];
  const template = templateTypes(input);
  if (template) return [TemplateLiteralDeferred(template[0]), template[1]];
  return first(input, [dependentType, objectType, tupleType, (i) => callable(i, true), (i) => callable(i, false), mappedType, genericCall,
    (i) => { const name = ident(i); return name && [T.Ref(name[0]), name[1]]; }]);
}

// ---------------------------------------------------------------- with-values
function withValue(input) {
  const big = bigintToken(input);
  if (big) return [BigInt(big[0]), big[1]];
  const num = numberToken(input);
  if (num) return [parseFloat(num[0]), num[1]];
  for (const [word, value] of [["true", true], ["false", false]]) {
    const rest = token(word, input);
    if (rest !== undefined) return [value, rest];
  }
  const text = quoted(input);
  if (text) return text;
  for (const [word, value] of [["null", null], ["undefined", undefined]]) {
    const rest = token(word, input);
    if (rest !== undefined) return [value, rest];
  }
  return withObject(input) ?? withArray(input);
}
function withObject(input) {
  const entry = (i) => {
    const key = propertyKey(i);
    const colon = key && token(":", key[1]);
    const value = colon === undefined ? undefined : withValue(colon);
    return value && [{ [key[0]]: value[0] }, value[1]];
  };
  const parsed = enclosed(input, "{", "}", entry, propertyDelimiters);
  return parsed && [parsed[0].reduce((result, e) => ({ ...result, ...e }), {}), parsed[1]];
}
const withArray = (input) => enclosed(input, "[", "]", withValue, comma);

// ---------------------------------------------------------------- expressions
function factor(input) {
  const [isKeyOf, afterKeyOf] = flag("keyof", input);
  const parsed = base(afterKeyOf);
  if (!parsed) return undefined;
  let [result, rest] = parsed;
  for (;;) {
    const open = token("[", rest);
    if (open === undefined) break;
    const index = type(open);
    const close = index && token("]", index[1]);
    if (close !== undefined) {
      [result, rest] = [A.IndexDeferred(result, index[0]), close];
      continue;
    }
    const emptyClose = token("]", open);
    if (emptyClose === undefined) break;
    [result, rest] = [T.ArrayType(result), emptyClose];
  }
  if (isKeyOf) result = A.KeyOfDeferred(result);
  const extendsKeyword = token("extends", rest);
  const right = extendsKeyword === undefined ? undefined : type(extendsKeyword);
  const question = right && token("?", right[1]);
  const whenTrue = question === undefined ? undefined : type(question);
  const colon = whenTrue && token(":", whenTrue[1]);
  const whenFalse = colon === undefined ? undefined : type(colon);
  if (whenFalse) [result, rest] = [A.ConditionalDeferred(result, right[0], whenTrue[0], whenFalse[0]), whenFalse[1]];
  const withKeyword = token("with", rest);
  const options = withKeyword === undefined ? undefined : withObject(withKeyword);
  if (options) [result, rest] = [A.WithDeferred(result, options[0]), options[1]];
  return [result, rest];
}
function binary(input, operator, operand, combine, isSame, members) {
  const left = operand(input);
  if (!left) return undefined;
  const next = token(operator, left[1]);
  const right = next === undefined ? undefined : binary(next, operator, operand, combine, isSame, members);
  if (!right) return left;
  return [combine(isSame(right[0]) ? [left[0], ...members(right[0])] : [left[0], right[0]]), right[1]];
}
const term = (input) => binary(input, "&", factor, T.Intersect, T.IsIntersect, (t) => t.allOf);
const expression = (input) => binary(input, "|", term, T.Union, T.IsUnion, (t) => t.anyOf);
function inferType(input) {
  const start = token("infer", input);
  const name = start === undefined ? undefined : ident(start);
  if (!name) return undefined;
  const extendsKeyword = token("extends", name[1]);
  const constraint = extendsKeyword === undefined ? undefined : expression(extendsKeyword);
  return constraint ? [T.Infer(name[0], constraint[0]), constraint[1]] : [T.Infer(name[0], T.Unknown()), name[1]];
}
/** One type expression; returns [type, rest] or undefined. */
export function type(input) {
  const inferred = inferType(input);
  if (inferred) return inferred;
  const pipe = token("|", input);
  const piped = pipe === undefined ? undefined : expression(pipe);
  if (piped) return piped;
  const ro = token("readonly", input);
  const immutable = ro === undefined ? undefined : expression(ro);
  if (immutable) return [A.AddImmutableDeferred(immutable[0]), immutable[1]];
  return expression(input);
}

// ---------------------------------------------------------------- declarations
function genericParameter(input) {
  const name = ident(input);
  if (!name) return undefined;
  const extendsKeyword = token("extends", name[1]);
  const constraint = extendsKeyword === undefined ? undefined : type(extendsKeyword);
  const equalsAfter = (rest) => {
    const eq = token("=", rest);
    return eq === undefined ? undefined : type(eq);
  };
  if (constraint) {
    const fallback = equalsAfter(constraint[1]);
    return fallback ? [T.Parameter(name[0], constraint[0], fallback[0]), fallback[1]] : [T.Parameter(name[0], constraint[0], constraint[0]), constraint[1]];
  }
  const fallback = equalsAfter(name[1]);
  return fallback ? [T.Parameter(name[0], T.Unknown(), fallback[0]), fallback[1]] : [T.Parameter(name[0], T.Unknown(), T.Unknown()), name[1]];
}
const genericParameters = (input) => enclosed(input, "<", ">", genericParameter, comma);
function interfaceDeclaration(input) {
  const start = token("interface", input);
  const name = start === undefined ? undefined : ident(start);
  if (!name) return undefined;
  const generic = genericParameters(name[1]);
  let rest = generic ? generic[1] : name[1];
  let heritage = [];
  const extendsKeyword = token("extends", rest);
  if (extendsKeyword !== undefined) [heritage, rest] = delimited(extendsKeyword, type, comma);
  const body = properties(rest);
  if (!body) return undefined;
  const [props, patternProperties] = body[0];
  const options = Object.keys(patternProperties).length === 0 ? {} : { patternProperties };
  const declared = A.InterfaceDeferred(heritage, props, options);
  return [{ [name[0]]: generic ? T.Generic(generic[0], declared) : declared }, body[1]];
}
function typeAlias(input) {
  const start = token("type", input);
  const name = start === undefined ? undefined : ident(start);
  if (!name) return undefined;
  const generic = genericParameters(name[1]);
  const eq = token("=", generic ? generic[1] : name[1]);
  const value = eq === undefined ? undefined : type(eq);
  return value && [{ [name[0]]: generic ? T.Generic(generic[0], value[0]) : value[0] }, value[1]];
}
function declaration(input) {
  const [, afterExport] = flag("export", input);
  const parsed = interfaceDeclaration(afterExport) ?? typeAlias(afterExport);
  if (!parsed) return undefined;
  const semicolon = token(";", parsed[1]);
  return [parsed[0], semicolon === undefined ? parsed[1] : semicolon];
}
function moduleScript(input) {
  const head = declaration(input);
  if (!head) return undefined;
  const [list, rest] = delimited(head[1], declaration, moduleDelimiters);
  return [A.ModuleDeferred({ ...head[0], ...splitProperties(list)[0] }), rest];
}
function script(input) {
  const parsedModule = moduleScript(input);
  if (parsedModule) return parsedModule;
  const generic = genericParameters(input);
  const eq = generic && token("=", generic[1]);
  const body = eq === undefined ? undefined : type(eq);
  if (body) return [T.Generic(generic[0], body[0]), body[1]];
  return type(input);
}

/** Script(text), Script(text, options), Script(context, text) or Script(context, text, options). */
export function Script(...args) {
  let context, input, options;
  if (args.length === 1) [context, input, options] = [{}, args[0], {}];
  else if (args.length === 2) [context, input, options] = isString(args[0]) ? [{}, args[0], args[1]] : [args[0], args[1], {}];
  else if (args.length === 3) [context, input, options] = args;
  else throw Error("Invalid Arguments");
  const parsed = script(input);
  const result = parsed ? InstantiateType(context, State([], []), parsed[0]) : T.Never();
  return updateType(result, {}, options);
}
