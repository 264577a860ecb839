// JSON-safe encoding of values for TypeBox goldens: keeps undefined, NaN,
// bigint, symbols, functions and hidden (non-enumerable) properties visible,
// in property order, so hidden type markers are compared too.

export function encode(value, seen = new Set()) {
  if (value === undefined) return { $: "undefined" };
  if (typeof value === "number") {
    if (Object.is(value, -0)) return { $: "-0" };
    return Number.isFinite(value) ? value : { $: String(value) };
  }
  if (typeof value === "bigint") return { $bigint: value.toString() };
  if (typeof value === "symbol") return { $symbol: value.description ?? "" };
  if (typeof value === "function") return { $function: true };
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return { $: "cycle" };
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => encode(item, seen));
    if (value instanceof Error) return { $error: value.constructor.name, message: value.message };
    if (value instanceof RegExp) return { $regexp: value.toString() };
    if (value instanceof Date) return { $date: value.getTime() };
    if (value instanceof Map) return { $map: encode([...value.entries()], seen) };
    if (value instanceof Set) return { $set: encode([...value.values()], seen) };
    if (ArrayBuffer.isView(value)) return { $typed: value.constructor.name, items: encode([...value], seen) };
    const out = {};
    const proto = Object.getPrototypeOf(value);
    if (proto !== null && proto !== Object.prototype) out.$class = proto.constructor?.name ?? "?";
    for (const key of Object.getOwnPropertyNames(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      const name = descriptor.enumerable ? key : `(hidden)${key}`;
      out[name] = "value" in descriptor ? encode(descriptor.value, seen) : { $: "accessor" };
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** Run one case: its encoded result, or the error it threw. */
export function runCase(testCase) {
  try {
    const result = testCase.run();
    if (testCase.schema) {
      let json;
      try {
        json = JSON.stringify(result);
      } catch (error) {
        json = { throws: error.message };
      }
      return { json, shape: encode(result) };
    }
    return { ok: encode(result) };
  } catch (error) {
    const thrown = { name: error?.constructor?.name, message: String(error?.message ?? error) };
    if (error && typeof error === "object" && "cause" in error) thrown.cause = encode(error.cause);
    return { throws: thrown };
  }
}
