// JSON Pointer (RFC 6901) access, and $ref / $dynamicRef resolution inside a
// schema document ($id, $anchor, $dynamicAnchor and fragment pointers).
import { isObject, isArray, isString, isBoolean, hasKey, isUnsafeKey, keysOf } from "./typebox_core.mjs";

// ---------------------------------------------------------------- pointer
/** Unescaped reference tokens of a pointer ('' is the root). */
export function Indices(pointer) {
  if (pointer.length === 0) return [];
  const indices = pointer.split("/").map((index) => index.replace(/~1/g, "/").replace(/~0/g, "~"));
  return indices.length > 0 && indices[0] === "" ? indices.slice(1) : indices;
}
const getIndex = (index, value) => (isObject(value) && !isUnsafeKey(index) ? value[index] : undefined);
const getIndices = (indices, value) => indices.reduce((current, index) => getIndex(index, current), value);

export function Has(value, pointer) {
  let current = value;
  return Indices(pointer).every((index) => {
    if (!(isObject(current) && hasKey(current, index))) return false;
    current = current[index];
    return true;
  });
}
export const Get = (value, pointer) => getIndices(Indices(pointer), value);

function parentOf(value, pointer) {
  const indices = Indices(pointer);
  if (indices.length === 0) throw Error("Cannot set root");
  if (indices.some(isUnsafeKey)) throw Error("Pointer contains unsafe property key");
  const parent = getIndices(indices.slice(0, -1), value);
  if (!isObject(parent)) throw Error("Cannot set value");
  return [parent, indices[indices.length - 1]];
}
export function Set(value, pointer, next) {
  const [parent, index] = parentOf(value, pointer);
  parent[index] = next;
  return value;
}
export function Delete(value, pointer) {
  const [parent, index] = parentOf(value, pointer);
  if (isArray(parent) && /^(0|[1-9]\d*)$/.test(index)) parent.splice(+index, 1);
  else delete parent[index];
  return value;
}
export const Pointer = Object.freeze({ Indices, Has, Get, Set, Delete });

// ---------------------------------------------------------------- references
const isSchemaObject = (v) => isObject(v) && !isArray(v);
const hasString = (schema, key) => hasKey(schema, key) && isString(schema[key]);
export const hasId = (schema) => hasString(schema, "$id");
export const hasAnchor = (schema) => hasString(schema, "$anchor");
export const hasDynamicAnchor = (schema) => hasString(schema, "$dynamicAnchor");
export const hasRecursiveAnchorTrue = (schema) => hasKey(schema, "$recursiveAnchor") && isBoolean(schema.$recursiveAnchor) && schema.$recursiveAnchor === true;

function matchHash(schema, ref) {
  if (ref.href.endsWith("#")) return schema;
  if (!ref.hash.startsWith("#")) return undefined;
  const fragment = decodeURIComponent(ref.hash.slice(1));
  return fragment.startsWith("/") ? Get(schema, fragment) : undefined;
}
function matchNode(schema, base, ref) {
  if (hasId(schema)) {
    if (schema.$id === ref.hash) return schema;
    const id = new URL(schema.$id, base.href);
    if (id.pathname === new URL(ref.href, base.href).pathname) {
      const found = ref.hash.startsWith("#") ? matchHash(schema, ref) : schema;
      if (found !== undefined) return found;
    }
  }
  for (const key of ["$anchor", "$dynamicAnchor"]) {
    if (hasString(schema, key) && new URL(`#${schema[key]}`, base.href).href === new URL(ref.href, base.href).href) return schema;
  }
  return matchHash(schema, ref);
}
/** Depth-first search; a node's own match wins, later siblings override earlier ones. */
function findRef(schema, base, ref) {
  const nextBase = isSchemaObject(schema) && hasId(schema) ? new URL(schema.$id, base.href) : base;
  if (isSchemaObject(schema)) {
    const found = matchNode(schema, nextBase, ref);
    if (found !== undefined) return found;
  }
  if (!isObject(schema)) return undefined;
  const children = isArray(schema) ? schema : keysOf(schema).map((key) => schema[key]);
  let result;
  for (const child of children) {
    const found = findRef(child, nextBase, ref);
    if (found !== undefined) result = found;
  }
  return result;
}
export function resolveRef(schema, ref) {
  const fallback = new URL("http://unknown/");
  const base = hasId(schema) ? new URL(schema.$id, fallback.href) : fallback;
  return findRef(schema, base, new URL(ref, base.href));
}
export function resolveDynamicRef(root, base, dynamicRef, dynamicAnchors) {
  const target = dynamicRef.startsWith("#") ? resolveRef(base, dynamicRef) : resolveRef(root, dynamicRef);
  if (target === undefined) return undefined;
  if (!isSchemaObject(target) || !hasDynamicAnchor(target)) return target;
  if (new URL(dynamicRef, "http://unknown/").hash.startsWith("#/")) return target;
  return dynamicAnchors.find((anchor) => anchor.$dynamicAnchor === target.$dynamicAnchor) ?? target;
}

/** Tracks the enclosing $id / anchor scopes while a schema is walked. */
export class Stack {
  constructor(context, schema) {
    this.context = context;
    this.schema = schema;
    this.ids = [];
    this.anchors = [];
    this.recursiveAnchors = [];
    this.dynamicAnchors = [];
  }
  base() {
    return this.ids[this.ids.length - 1] ?? this.schema;
  }
  push(schema) {
    if (!isSchemaObject(schema)) return;
    if (hasId(schema)) {
      this.ids.push(schema);
      this.resourceAnchors(schema, true, (s) => this.dynamicAnchors.push(s));
    }
    if (hasAnchor(schema)) this.anchors.push(schema);
    if (hasRecursiveAnchorTrue(schema)) this.recursiveAnchors.push(schema);
    if (hasDynamicAnchor(schema)) this.dynamicAnchors.push(schema);
  }
  pop(schema) {
    if (!isSchemaObject(schema)) return;
    if (hasId(schema)) {
      this.ids.pop();
      this.resourceAnchors(schema, true, () => this.dynamicAnchors.pop());
    }
    if (hasAnchor(schema)) this.anchors.pop();
    if (hasRecursiveAnchorTrue(schema)) this.recursiveAnchors.pop();
    if (hasDynamicAnchor(schema)) this.dynamicAnchors.pop();
  }
  /** Visit dynamic anchors of nested schemas that belong to this resource. */
  resourceAnchors(schema, isRoot, visit) {
    if (!isSchemaObject(schema)) return;
    if (!isRoot && hasId(schema)) return;
    if (!isRoot && hasDynamicAnchor(schema)) visit(schema);
    for (const key of keysOf(schema)) this.resourceAnchors(schema[key], false, visit);
  }
  ref(schema) {
    if (hasKey(this.context, schema.$ref)) return this.context[schema.$ref];
    return schema.$ref.startsWith("#") ? resolveRef(this.base(), schema.$ref) : resolveRef(this.schema, schema.$ref);
  }
  recursiveRef(schema) {
    const base = this.base();
    return hasRecursiveAnchorTrue(base) ? resolveRef(this.recursiveAnchors[0], schema.$recursiveRef) : resolveRef(base, schema.$recursiveRef);
  }
  dynamicRef(schema) {
    return resolveDynamicRef(this.schema, this.base(), schema.$dynamicRef, this.dynamicAnchors);
  }
}
