// Template literal types: encoding a sequence of types as a regular
// expression pattern, decoding such patterns back into types, and parsing the
// `prefix${string}` template syntax (interpolations use the Type.Script grammar).
import { updateType, isString } from "./typebox_core.mjs";
import * as T from "./typebox_types.mjs";
import { EvaluateEnum } from "./typebox_evaluate.mjs";
import { templateTypes, token, until } from "./typebox_script.mjs";

const unreachable = () => {
  throw Error("Unreachable");
};
const canInstantiate = (types) => types.every((type) => !T.IsRef(type));

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

// ---------------------------------------------------------------- templates
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
