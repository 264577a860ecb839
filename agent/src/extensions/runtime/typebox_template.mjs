// Template literal types: encoding a sequence of types as a regular
// expression pattern, decoding such patterns back into types, and parsing the
// `prefix${string}` template syntax (a small subset of TypeBox's script syntax).
import { updateType, isString } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import { EvaluateEnum } from "./typebox_evaluate.mjs";

const unreachable = () => {
  throw Error("Unreachable");
};
const canInstantiate = (types) => types.every((type) => !T.IsRef(type));

// ---------------------------------------------------------------- scanning
/** Skip leading whitespace and comments, as TypeBox's tokenizer does. */
function trim(input) {
  const text = input.trimStart();
  if (text.startsWith("/*")) {
    const end = text.indexOf("*/", 2);
    return trim(end === -1 ? "" : text.slice(end + 2));
  }
  if (text.startsWith("//")) {
    const end = text.indexOf("\n", 2);
    return trim(end === -1 ? "" : text.slice(end));
  }
  return text;
}
/** Match a token after trimming; returns the rest of the input or undefined. */
function token(text, input) {
  const source = trim(input);
  return source.startsWith(text) ? source.slice(text.length) : undefined;
}
/** Characters up to (not including) the first sentinel; undefined at end of input. */
function until(sentinels, input) {
  for (let i = 0; i < input.length; i++) {
    if (sentinels.some((s) => input.startsWith(s, i))) return [input.slice(0, i), input.slice(i)];
  }
  return undefined;
}

// ---------------------------------------------------------------- patterns
const patternTokens = [
  [T.BigIntPattern, () => T.BigIntType()],
  [T.StringPattern, () => T.StringType()],
  [T.NumberPattern, () => T.NumberType()],
  [T.IntegerPattern, () => T.Integer()],
  [T.NeverPattern, () => T.Never()],
];
const textSentinels = [T.BigIntPattern, ".*", T.NumberPattern, T.IntegerPattern, "(?!)", "(", ")", "$", "|"];

function patternBase(input) {
  for (const [text, build] of patternTokens) {
    const rest = token(text, input);
    if (rest !== undefined) return [build(), rest];
  }
  const open = token("(", input);
  if (open !== undefined) {
    const [body, afterBody] = patternUnion(open);
    const close = token(")", afterBody);
    if (close !== undefined) return [T.Union(body), close];
  }
  const text = until(textSentinels, input);
  return text && text[0] !== "" ? [T.Literal(text[0]), text[1]] : undefined;
}
function patternTerm(input) {
  const base = patternBase(input);
  if (!base) return undefined;
  const [body, rest] = patternUnion(base[1]);
  return [[base[0], ...body], rest];
}
/** Alternatives are flattened into one sequence, like TypeBox's pattern grammar. */
function patternUnion(input) {
  const term = patternTerm(input);
  if (!term) return [[], input];
  const pipe = token("|", term[1]);
  if (pipe !== undefined) {
    const [rest, after] = patternUnion(pipe);
    return [[...term[0], ...rest], after];
  }
  return term;
}
/** Types of a `^...$` pattern; [] when it cannot be parsed. */
export function ParsePatternIntoTypes(pattern) {
  const start = token("^", pattern);
  if (start === undefined) return [];
  const [types, rest] = patternUnion(start);
  return token("$", rest) === undefined ? [] : types;
}

// ---------------------------------------------------------------- type expressions
const keywords = [
  ["string", () => T.StringType()], ["number", () => T.NumberType()], ["boolean", () => T.BooleanType()],
  ["undefined", () => T.Undefined()], ["null", () => T.Null()], ["integer", () => T.Integer()],
  ["bigint", () => T.BigIntType()], ["unknown", () => T.Unknown()], ["any", () => T.Any()],
  ["object", () => T.ObjectType({})], ["never", () => T.Never()], ["symbol", () => T.SymbolType()],
  ["void", () => T.Void()], ["this", () => T.This()],
];
const numberToken = /^-?(?:(?:0|[1-9][0-9_]*)(?:\.[0-9_]+)?|\.[0-9_]+)/;
const bigintToken = /^-?(?:0|[1-9][0-9_]*)n/;

function typeBase(input) {
  const open = token("(", input);
  if (open !== undefined) {
    const inner = typeExpression(open);
    const close = inner && token(")", inner[1]);
    if (close !== undefined) return [inner[0], close];
  }
  for (const [word, build] of keywords) {
    const rest = token(word, input);
    if (rest !== undefined) return [build(), rest];
  }
  const source = trim(input);
  const big = bigintToken.exec(source);
  if (big) return [T.Literal(BigInt(big[0].slice(0, -1).replace(/_/g, ""))), source.slice(big[0].length)];
  for (const word of ["true", "false"]) {
    const rest = token(word, input);
    if (rest !== undefined) return [T.Literal(word === "true"), rest];
  }
  const num = numberToken.exec(source);
  if (num) return [T.Literal(parseFloat(num[0].replace(/_/g, "").replace(/^(-?)\./, "$10."))), source.slice(num[0].length)];
  const quote = source[0];
  if (quote === "'" || quote === '"') {
    const text = until(["\n", quote], source.slice(1));
    if (text && text[1].startsWith(quote)) return [T.Literal(text[0]), text[1].slice(1)];
  }
  if (source.startsWith("`")) {
    const parsed = templateTypes(source);
    if (parsed) return [TemplateLiteralDeferred(parsed[0]), parsed[1]];
  }
  const ident = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(source);
  return ident ? [T.Ref(ident[0]), source.slice(ident[0].length)] : undefined;
}
function typeFactor(input) {
  let result = typeBase(input);
  while (result) {
    const open = token("[", result[1]);
    const close = open === undefined ? undefined : token("]", open);
    if (close === undefined) break;
    result = [T.ArrayType(result[0]), close];
  }
  return result;
}
function binary(input, operator, operand, combine, isSame) {
  const left = operand(input);
  if (!left) return undefined;
  const next = token(operator, left[1]);
  const right = next === undefined ? undefined : binary(next, operator, operand, combine, isSame);
  if (!right) return left;
  const members = isSame(right[0]) ? [left[0], ...(operator === "|" ? right[0].anyOf : right[0].allOf)] : [left[0], right[0]];
  return [combine(members), right[1]];
}
const typeTerm = (input) => binary(input, "&", typeFactor, T.Intersect, T.IsIntersect);
function typeExpression(input) {
  const pipe = token("|", input);
  return binary(pipe === undefined ? input : pipe, "|", typeTerm, T.Union, T.IsUnion);
}

// ---------------------------------------------------------------- templates
/** Parse `` `a${T}b` `` into [Literal('a'), T, Literal('b')]. */
function templateTypes(input) {
  let rest = token("`", input);
  if (rest === undefined) return undefined;
  const types = [];
  for (;;) {
    const span = until(["${", "`"], rest);
    if (!span) return undefined;
    types.push(T.Literal(span[0]));
    const open = token("${", span[1]);
    const inner = open === undefined ? undefined : typeExpression(open);
    const close = inner && token("}", inner[1]);
    if (close === undefined) {
      rest = span[1];
      break;
    }
    types.push(inner[0]);
    rest = close;
  }
  const end = token("`", rest);
  return end === undefined ? undefined : [types, end];
}
export function ParseTemplateIntoTypes(template) {
  const parsed = templateTypes(`\`${template}\``);
  return parsed ? parsed[0] : unreachable();
}

// ---------------------------------------------------------------- encode
function encodeTypes(types, pattern) {
  return types.length === 0 ? pattern : encodeType(types[0], types.slice(1), pattern);
}
function encodeType(type, rest, pattern) {
  if (T.IsEnum(type)) return encodeType(EvaluateEnum(type.enum), rest, pattern);
  if (T.IsInteger(type)) return encodeTypes(rest, pattern + T.IntegerPattern);
  if (T.IsLiteral(type)) return encodeTypes(rest, `${pattern}${type.const}`);
  if (T.IsBigInt(type)) return encodeTypes(rest, pattern + T.BigIntPattern);
  if (T.IsBoolean(type)) return encodeType(T.Union([T.Literal("false"), T.Literal("true")]), rest, pattern);
  if (T.IsNumber(type)) return encodeTypes(rest, pattern + T.NumberPattern);
  if (T.IsString(type)) return encodeTypes(rest, pattern + T.StringPattern);
  if (T.IsTemplateLiteral(type)) return encodeTypes(rest, pattern + type.pattern.slice(1, type.pattern.length - 1));
  if (IsTemplateLiteralDeferred(type)) return encodeType(TemplateLiteralAction(type.parameters[0], {}), rest, pattern);
  if (T.IsUnion(type)) {
    const alternatives = type.anyOf.map((member) => encodeType(member, [], ""));
    return encodeTypes(rest, `${pattern}(${alternatives.join("|")})`);
  }
  return T.NeverPattern;
}
export function TemplateLiteralEncode(types) {
  return T.TemplateLiteralCreate(`^${encodeTypes(types, "")}$`);
}

// ---------------------------------------------------------------- decode
function isFiniteType(type) {
  if (T.IsUnion(type)) return IsTemplateLiteralFinite(type.anyOf);
  return T.IsLiteral(type);
}
/** True when every type is a literal or a union of literals. */
export function IsTemplateLiteralFinite(types) {
  return types.length > 0 && types.every(isFiniteType);
}
function expand(variants, type) {
  if (T.IsUnion(type)) return type.anyOf.flatMap((member) => expand(variants, member));
  if (T.IsLiteral(type)) return variants.length === 0 ? [`${type.const}`] : variants.map((v) => `${v}${type.const}`);
  return unreachable();
}
function decodeTypes(types) {
  if (types.length === 0) return unreachable();
  if (types.length === 1 && T.IsLiteral(types[0])) return types[0];
  const variants = types.reduce(expand, []);
  return T.Union(variants.map((variant) => T.Literal(variant)));
}
/** Pattern to type: a literal union when finite, else the template literal itself. */
export function TemplateLiteralDecodeUnsafe(pattern) {
  const types = ParsePatternIntoTypes(pattern);
  if (types.length === 0) return T.StringType();
  return IsTemplateLiteralFinite(types) ? decodeTypes(types) : T.TemplateLiteralCreate(pattern);
}
export function TemplateLiteralDecode(pattern) {
  const decoded = TemplateLiteralDecodeUnsafe(pattern);
  return T.IsTemplateLiteral(decoded) ? T.StringType() : decoded;
}
export const IsTemplateLiteralPattern = (pattern) => ParsePatternIntoTypes(pattern).length > 0;

// ---------------------------------------------------------------- api
export const TemplateLiteralDeferred = (types, options = {}) => T.Deferred("TemplateLiteral", [types], options);
export function IsTemplateLiteralDeferred(value) {
  return T.IsSchema(value) && "action" in value && value.action === "TemplateLiteral";
}
export function TemplateLiteralAction(types, options) {
  return canInstantiate(types) ? updateType(TemplateLiteralEncode(types), {}, options) : TemplateLiteralDeferred(types, options);
}
export const TemplateLiteralFromTypes = (types) => TemplateLiteralAction(types, {});
export const TemplateLiteralFromString = (template) => TemplateLiteralFromTypes(ParseTemplateIntoTypes(template));
export function TemplateLiteral(input, options = {}) {
  const type = isString(input) ? TemplateLiteralFromString(input) : TemplateLiteralFromTypes(input);
  return updateType(type, {}, options);
}

// ---------------------------------------------------------------- record keys
export function RecordPatternToType(pattern) {
  if (pattern === T.StringKey) return T.StringType();
  if (pattern === T.IntegerKey) return T.Integer();
  if (pattern === T.NumberKey) return T.NumberType();
  return TemplateLiteralDecodeUnsafe(pattern);
}
export const RecordKey = (type) => RecordPatternToType(T.RecordPattern(type));
