// Core helpers shared by pi-agent's TypeBox modules: value guards, the
// type-object memory model (hidden `~` markers), deep clone, deep equality,
// FNV-1a hashing and grapheme counting. Behaviour follows typebox 1.x.

// Fixed settings (typebox/system is not reachable from extensions).
export const settings = Object.freeze({
  maxErrors: 8,
  exactOptionalPropertyTypes: false,
  enumerableKind: false,
  correctiveParse: false,
  unionPrioritySort: true,
});

// ---------------------------------------------------------------- guards
export const isArray = (v) => Array.isArray(v);
export const isObject = (v) => typeof v === "object" && v !== null;
export const isObjectNotArray = (v) => isObject(v) && !Array.isArray(v);
export const isString = (v) => typeof v === "string";
export const isBoolean = (v) => typeof v === "boolean";
export const isBigInt = (v) => typeof v === "bigint";
export const isSymbol = (v) => typeof v === "symbol";
export const isFunction = (v) => typeof v === "function";
export const isUndefined = (v) => v === undefined;
export const isNull = (v) => v === null;
/** Finite numbers only, like TypeBox's Guard.IsNumber. */
export const isNumber = (v) => Number.isFinite(v);
export const isInteger = (v) => Number.isInteger(v);

/** Classes and native functions count as constructors. */
export function isConstructor(v) {
  if (!isFunction(v)) return false;
  const text = Function.prototype.toString.call(v);
  return /^class\s/.test(text) || /\[native code\]/.test(text);
}

export function isClassInstance(v) {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto === null) return false;
  return isFunction(proto.constructor) && proto.constructor !== Object && proto.constructor.name !== "Object";
}

export function isValueLike(v) {
  return isBigInt(v) || isBoolean(v) || v === null || isNumber(v) || isString(v) || v === undefined;
}

export const isUnsafeKey = (key) => key === "__proto__" || key === "constructor" || key === "prototype";

/** `key in value`, except prototype-sensitive keys must be own properties. */
export function hasKey(value, key) {
  return isUnsafeKey(key) ? Object.prototype.hasOwnProperty.call(value, key) : key in value;
}

/** All own string keys, enumerable or not. */
export const keysOf = (v) => Object.getOwnPropertyNames(v);

export function deepEqual(left, right) {
  if (Array.isArray(left)) {
    return Array.isArray(right) && left.length === right.length && left.every((_, i) => deepEqual(left[i], right[i]));
  }
  if (isObject(left)) {
    if (!isObject(right)) return false;
    const leftKeys = keysOf(left);
    return leftKeys.length === keysOf(right).length && leftKeys.every((k) => deepEqual(left[k], right[k]));
  }
  return left === right;
}

export function isMultipleOf(dividend, divisor) {
  if (isBigInt(dividend) || isBigInt(divisor)) return BigInt(dividend) % BigInt(divisor) === 0n;
  if (!isNumber(dividend)) return true;
  if (isInteger(dividend) && (1 / divisor) % 1 === 0) return true;
  const mod = dividend % divisor;
  return Math.min(Math.abs(mod), Math.abs(mod - divisor), Math.abs(mod + divisor)) < 1e-10;
}

/** Every, or (when `all`) evaluate each item and report whether all passed. */
export function every(items, offset, all, callback) {
  let ok = true;
  for (let i = offset; i < items.length; i++) {
    if (!callback(items[i], i)) {
      if (!all) return false;
      ok = false;
    }
  }
  return ok;
}

// ------------------------------------------------------------- memory model
function defineHidden(target, key, value) {
  Object.defineProperty(target, key, {
    configurable: true,
    writable: true,
    enumerable: settings.enumerableKind,
    value,
  });
}

/** New type object: enumerable keys, then options, then hidden markers. */
export function createType(hidden, enumerable, options = {}) {
  const result = { ...enumerable, ...options };
  for (const key of Object.keys(hidden)) defineHidden(result, key, hidden[key]);
  return result;
}

/** Clone `current`, then set hidden markers and enumerable keys on the clone. */
export function updateType(current, hidden, enumerable) {
  const result = cloneValue(current);
  for (const key of Object.keys(hidden)) defineHidden(result, key, hidden[key]);
  for (const key of Object.keys(enumerable)) {
    Object.defineProperty(result, key, { configurable: true, enumerable: true, writable: true, value: enumerable[key] });
  }
  return result;
}

/** Clone without the given keys, keeping every other property descriptor. */
export function discardKeys(value, keys) {
  const result = {};
  const descriptors = Object.getOwnPropertyDescriptors(cloneValue(value));
  const drop = new Set(keys);
  for (const key of Object.keys(descriptors)) {
    if (!drop.has(key)) Object.defineProperty(result, key, descriptors[key]);
  }
  return result;
}

// ---------------------------------------------------------------- clone
const isTypeObject = (v) => hasKey(v, "~kind") || hasKey(v, "~unsafe");

function cloneTypeObject(value) {
  const result = {};
  const descriptors = Object.getOwnPropertyDescriptors(value);
  for (const key of Object.keys(descriptors)) {
    if (isUnsafeKey(key)) continue;
    const descriptor = descriptors[key];
    if (hasKey(descriptor, "value")) {
      Object.defineProperty(result, key, { ...descriptor, value: cloneValue(descriptor.value) });
    }
  }
  return result;
}

function clonePlainObject(value) {
  const result = {};
  for (const key of keysOf(value)) {
    if (!isUnsafeKey(key)) result[key] = cloneValue(value[key]);
  }
  for (const sym of Object.getOwnPropertySymbols(value)) result[sym] = cloneValue(value[sym]);
  return result;
}

/** Deep clone like structuredClone, keeping hidden type markers; class instances are shared. */
export function cloneValue(value) {
  if (ArrayBuffer.isView(value)) return value.slice();
  if (value instanceof RegExp) return new RegExp(value.source, value.flags);
  if (value instanceof Map) return new Map(cloneValue([...value.entries()]));
  if (value instanceof Set) return new Set(cloneValue([...value.values()]));
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isObject(value)) {
    if (isClassInstance(value)) return value;
    return isTypeObject(value) ? cloneTypeObject(value) : clonePlainObject(value);
  }
  return value;
}

// ---------------------------------------------------------------- hashing
// FNV-1a 64 over a tagged byte stream of the value.
const FNV_OFFSET = 14695981039346656037n;
const FNV_PRIME = 1099511628211n;
const MARK = { array: 0, bigint: 1, boolean: 2, date: 3, ctor: 4, fn: 5, null: 6, number: 7, object: 8, regexp: 9, string: 10, symbol: 11, typed: 12, undefined: 13 };
const utf8 = new TextEncoder();
const scratch = new DataView(new ArrayBuffer(8));
const scratchBytes = new Uint8Array(scratch.buffer);
const BYTE = Array.from({ length: 256 }, (_, i) => BigInt(i));

class Hasher {
  constructor() {
    this.acc = FNV_OFFSET;
  }
  byte(b) {
    this.acc = BigInt.asUintN(64, (this.acc ^ BYTE[b]) * FNV_PRIME);
  }
  bytes(list) {
    for (const b of list) this.byte(b);
  }
  string(text) {
    this.byte(MARK.string);
    this.bytes(utf8.encode(text));
  }
  number(n) {
    this.byte(MARK.number);
    scratch.setFloat64(0, n, true);
    this.bytes(scratchBytes);
  }
  value(v) {
    if (ArrayBuffer.isView(v)) {
      this.byte(MARK.typed);
      this.bytes(new Uint8Array(v.buffer));
    } else if (v instanceof Date) {
      this.byte(MARK.date);
      this.value(v.getTime());
    } else if (v instanceof RegExp) {
      this.byte(MARK.regexp);
      this.string(v.toString());
    } else if (v instanceof Boolean) {
      this.bool(v.valueOf());
    } else if (v instanceof String) {
      this.string(v.valueOf());
    } else if (v instanceof Number || typeof v === "number") {
      this.number(v.valueOf());
    } else if (Array.isArray(v)) {
      this.byte(MARK.array);
      for (const item of v) this.value(item);
    } else if (isBoolean(v)) {
      this.bool(v);
    } else if (isBigInt(v)) {
      this.byte(MARK.bigint);
      scratch.setBigInt64(0, v);
      this.bytes(scratchBytes);
    } else if (isConstructor(v)) {
      this.byte(MARK.ctor);
      this.value(v.toString());
    } else if (v === null) {
      this.byte(MARK.null);
    } else if (isObject(v)) {
      this.byte(MARK.object);
      for (const key of instanceKeys(v).sort()) {
        this.value(key);
        this.value(v[key]);
      }
    } else if (isString(v)) {
      this.string(v);
    } else if (isSymbol(v)) {
      this.byte(MARK.symbol);
      this.value(v.toString());
    } else if (v === undefined) {
      this.byte(MARK.undefined);
    } else {
      this.byte(MARK.fn);
      this.value(v.toString());
    }
  }
  bool(b) {
    this.byte(MARK.boolean);
    this.byte(b ? 1 : 0);
  }
}

function instanceKeys(value) {
  const found = new Set();
  for (let current = value; current && current !== Object.prototype; current = Object.getPrototypeOf(current)) {
    for (const key of Reflect.ownKeys(current)) {
      if (key !== "constructor" && typeof key !== "symbol") found.add(key);
    }
  }
  return [...found];
}

/** 16 hex digit FNV-1a 64 hash of a value. */
export function hashValue(value) {
  const hasher = new Hasher();
  hasher.value(value);
  return hasher.acc.toString(16).padStart(16, "0");
}

// ---------------------------------------------------------------- graphemes
const inRange = (v, lo, hi) => v >= lo && v <= hi;
const isCombining = (cp) =>
  inRange(cp, 0x0300, 0x036f) || inRange(cp, 0x1ab0, 0x1aff) || inRange(cp, 0x1dc0, 0x1dff) || inRange(cp, 0xfe20, 0xfe2f);
const isVariation = (cp) => inRange(cp, 0xfe00, 0xfe0f);
const isRegional = (cp) => inRange(cp, 0x1f1e6, 0x1f1ff);
const unitsOf = (cp) => (cp > 0xffff ? 2 : 1);

function skipModifiers(text, index) {
  while (index < text.length) {
    const cp = text.codePointAt(index);
    if (!isCombining(cp) && !isVariation(cp)) break;
    index += unitsOf(cp);
  }
  return index;
}

function nextCluster(text, start) {
  const first = text.codePointAt(start);
  let end = skipModifiers(text, start + unitsOf(first));
  while (end < text.length - 1 && text[end] === "\u200d") {
    end = skipModifiers(text, end + 1 + unitsOf(text.codePointAt(end + 1)));
  }
  if (isRegional(first) && end < text.length && isRegional(text.codePointAt(end))) {
    end += unitsOf(text.codePointAt(end));
  }
  return end;
}

/** Count grapheme clusters, stopping once the count exceeds `limit`. */
export function graphemeCount(text, limit = Infinity) {
  let count = 0;
  for (let i = 0; i < text.length && count <= limit; count++) i = nextCluster(text, i);
  return count;
}
