// Value operation cases (Convert, Default, Clean, Create, Parse, Hash, Diff,
// Repair, codecs, ...) and Compile validator cases.

export function valueCases(m, value, compile) {
  const { Type: T } = m;
  const { Value } = value;
  const V = (name, run) => ({ name: `value: ${name}`, run });
  const each = (schema, values, op) => values.map((v) => op(schema, structuredCloneSafe(v)));
  const tool = () => T.Object({
    count: T.Number(), flag: T.Boolean(), name: T.String(), n: T.Optional(T.Integer()), nil: T.Optional(T.Null()),
    list: T.Optional(T.Array(T.Number())), mode: T.Optional(T.Union([T.Literal("a"), T.Literal(2), T.Literal(true)])),
  });
  return [
    // convert
    V("Convert number", () => each(T.Number(), ["5", " 7 ", "1e3", "abc", "", "true", "FALSE", true, null, undefined, 5n, "12n", {}], Value.Convert)),
    V("Convert integer", () => each(T.Integer(), ["5.7", -2.5, "x", "9007199254740993n"], Value.Convert)),
    V("Convert string", () => each(T.String(), [1, true, null, undefined, 5n, {}, []], Value.Convert)),
    V("Convert boolean", () => each(T.Boolean(), ["true", "TRUE", "false", "0", "1", "yes", 0, 1, 2, null, 1n, undefined], Value.Convert)),
    V("Convert null", () => each(T.Null(), ["null", "undefined", "", "0", 0, false, "x", 0n], Value.Convert)),
    V("Convert undefined void", () => [Value.Convert(T.Undefined(), "null"), Value.Convert(T.Void(), 0), Value.Convert(T.Undefined(), 1)]),
    V("Convert bigint", () => each(T.BigInt(), ["12n", "3.9", "7", true, 4.8, "x", null], Value.Convert)),
    V("Convert literal", () => [Value.Convert(T.Literal(1), "1"), Value.Convert(T.Literal("1"), 1), Value.Convert(T.Literal(true), "true"), Value.Convert(T.Literal(2), "3"), Value.Convert(T.Literal(3n), "3")]),
    V("Convert object in place", () => {
      const input = { count: "3", flag: "true", name: 12, n: "4.9", nil: "null", list: ["1", "x"], mode: "2", extra: "1" };
      const out = Value.Convert(tool(), input);
      return { same: out === input, out };
    }),
    V("Convert optional undefined", () => Value.Convert(tool(), { count: "1", n: undefined })),
    V("Convert array wraps", () => [Value.Convert(T.Array(T.Number()), "5"), Value.Convert(T.Array(T.Number()), ["1", 2])]),
    V("Convert tuple", () => Value.Convert(T.Tuple([T.Number(), T.Boolean()]), ["1", "false", "x"])),
    V("Convert record", () => Value.Convert(T.Record(T.String(), T.Number()), { a: "1", b: "x" })),
    V("Convert record integer", () => Value.Convert(T.Record(T.Integer(), T.Boolean()), { 1: "true", x: "true" })),
    V("Convert union", () => each(T.Union([T.Number(), T.Boolean()]), ["1", "true", "x", 1], Value.Convert)),
    V("Convert union object", () => Value.Convert(T.Union([T.Object({ a: T.Number() }), T.Object({ b: T.Boolean() })]), { b: "true" })),
    V("Convert enum", () => [Value.Convert(T.Enum([1, 2]), "2"), Value.Convert(T.Enum(["a"]), 1)]),
    V("Convert intersect", () => Value.Convert(T.Intersect([T.Object({ a: T.Number() }), T.Object({ b: T.Boolean() })]), { a: "1", b: "1" })),
    V("Convert template", () => Value.Convert(T.TemplateLiteral("${1|2}"), 1)),
    V("Convert cyclic", () => Value.Convert(T.Cyclic({ N: T.Object({ v: T.Number(), n: T.Optional(T.Ref("N")) }) }, "N"), { v: "1", n: { v: "2" } })),
    V("Convert ref context", () => Value.Convert({ X: T.Number() }, T.Ref("X"), "4")),
    V("Convert additionalProperties", () => Value.Convert(T.Object({ a: T.Number() }, { additionalProperties: T.Boolean() }), { a: "1", b: "true", c: "0" })),
    V("Convert plain json schema untouched", () => Value.Convert({ type: "object", properties: { n: { type: "number" } } }, { n: "5" })),
    V("Convert regexp keys", () => Value.Convert(T.Object({ "a.b": T.Number() }), { "a.b": "1", aXb: "2" })),
    // default
    V("Default object", () => Value.Default(T.Object({
      a: T.String({ default: "x" }), b: T.Optional(T.Number({ default: 3 })), c: T.Number(), d: T.Object({ e: T.Boolean({ default: true }) }, { default: {} }),
    }), { c: 1 })),
    V("Default keeps values", () => Value.Default(T.Object({ a: T.String({ default: "x" }) }), { a: "y" })),
    V("Default root", () => [Value.Default(T.Number({ default: 5 }), undefined), Value.Default(T.Number({ default: 5 }), 1), Value.Default(T.Array(T.Number(), { default: [1] }), undefined)]),
    V("Default function", () => Value.Default(T.Object({ t: T.Number({ default: () => 7 }) }), {})),
    V("Default array items", () => Value.Default(T.Array(T.Object({ x: T.Number({ default: 0 }) })), [{}, { x: 2 }])),
    V("Default tuple", () => Value.Default(T.Tuple([T.Number({ default: 1 }), T.String({ default: "s" })]), [])),
    V("Default union", () => Value.Default(T.Union([T.Object({ a: T.Number({ default: 1 }) }), T.String()]), {})),
    V("Default record", () => Value.Default(T.Record(T.String(), T.Number({ default: 9 })), { a: undefined, b: 2 })),
    V("Default additional", () => Value.Default(T.Object({}, { additionalProperties: T.Number({ default: 4 }) }), { z: undefined })),
    V("Default plain json", () => [Value.Default({ type: "object", default: { a: 1 } }, undefined), Value.Default({ type: "object", properties: { a: { default: 1 } } }, {})]),
    V("Default intersect", () => Value.Default(T.Intersect([T.Object({ a: T.Number({ default: 1 }) }), T.Object({ b: T.String({ default: "b" }) })]), {})),
    // clean
    V("Clean object", () => Value.Clean(T.Object({ a: T.String(), n: T.Object({ b: T.Number() }) }), { a: "x", z: 1, n: { b: 1, c: 2 } })),
    V("Clean additional true", () => Value.Clean(T.Object({ a: T.String() }, { additionalProperties: true }), { a: "x", z: 1 })),
    V("Clean additional schema", () => Value.Clean(T.Object({}, { additionalProperties: T.Number() }), { a: 1, b: "x" })),
    V("Clean tuple", () => Value.Clean(T.Tuple([T.Number()]), [1, 2, 3])),
    V("Clean array", () => Value.Clean(T.Array(T.Object({ a: T.Number() })), [{ a: 1, b: 2 }])),
    V("Clean union", () => Value.Clean(T.Union([T.Object({ a: T.Number() }), T.Object({ a: T.Number(), b: T.Number() })]), { a: 1, b: 2, c: 3 })),
    V("Clean intersect", () => Value.Clean(T.Intersect([T.Object({ a: T.Number() }), T.Object({ b: T.Number() })]), { a: 1, b: 2, c: 3 })),
    V("Clean record", () => Value.Clean(T.Record(T.Integer(), T.Number()), { 1: 1, x: 2 })),
    V("Clean primitives", () => [Value.Clean(T.String(), "x"), Value.Clean({ type: "object" }, { a: 1 })]),
    // create
    V("Create", () => [
      Value.Create(T.String()), Value.Create(T.String({ minLength: 3 })), Value.Create(T.Number({ minimum: 5 })), Value.Create(T.Integer({ exclusiveMinimum: 2 })),
      Value.Create(T.Boolean()), Value.Create(T.Null()), Value.Create(T.Literal("x")), Value.Create(T.Array(T.Number(), { minItems: 2 })),
      Value.Create(T.Tuple([T.String(), T.Number()])), Value.Create(T.Union([T.Number(), T.String()])), Value.Create(T.Enum(["q", "r"])),
      Value.Create(T.BigInt({ minimum: 3n })), Value.Create(T.Record(T.String(), T.Number())), Value.Create(T.TemplateLiteral("a${1|2}")),
      Value.Create(tool()), Value.Create(T.Object({ d: T.Number({ default: 4 }) })), Value.Create(T.Intersect([T.Object({ a: T.Number() }), T.Object({ b: T.String() })])),
      Value.Create(T.Cyclic({ N: T.Object({ v: T.Number(), n: T.Optional(T.Ref("N")) }) }, "N")), Value.Create(T.Undefined()), Value.Create(T.Any()),
      Value.Create({ X: T.Boolean() }, T.Ref("X")), typeof Value.Create(T.Function([], T.Number()))(),
    ]),
    V("Create never", () => Value.Create(T.Never())),
    V("Create pattern string", () => Value.Create(T.String({ pattern: "^a" }))),
    V("Create unique array", () => Value.Create(T.Array(T.Number(), { uniqueItems: true }))),
    V("Create missing ref", () => Value.Create(T.Ref("Nope"))),
    V("Create template infinite", () => Value.Create(T.TemplateLiteral("a${string}"))),
    // parse / assert
    V("Parse ok", () => Value.Parse(T.Object({ a: T.Number() }), { a: 1 })),
    V("Parse fails", () => Value.Parse(T.Object({ a: T.Number() }), { a: "1" })),
    V("Assert fails", () => Value.Assert(T.String(), 1)),
    V("Assert ok", () => Value.Assert(T.String(), "x")),
    V("Parser pipeline", () => value.Parser(T.Object({ a: T.Number({ default: 2 }), b: T.Number() }), { b: "3", c: 1 })),
    V("Parser fails", () => value.Parser(T.Object({ a: T.Number() }), { a: "x" })),
    V("Pipeline", () => value.Pipeline([(_c, _t, v) => v + 1, (_c, _t, v) => v * 2])(T.Number(), 1)),
    V("Invalid arguments", () => Value.Check(T.String())),
    // clone / equal / hash
    V("Clone", () => {
      const source = { a: [1, { b: 2 }], d: new Date(5), m: new Map([[1, { x: 1 }]]), s: new Set([1]), r: /x/g, t: new Uint8Array([1, 2]) };
      const copy = Value.Clone(source);
      return { copy, distinct: copy.a !== source.a && copy.m !== source.m, sharedDate: copy.d === source.d };
    }),
    V("Clone type keeps markers", () => Value.Clone(T.Optional(T.Object({ a: T.Readonly(T.String()) })))),
    V("Equal", () => [Value.Equal({ a: [1, 2] }, { a: [1, 2] }), Value.Equal({ a: 1 }, { a: 1, b: undefined }), Value.Equal([1], { 0: 1 }), Value.Equal(new Date(1), new Date(2)), Value.Equal(NaN, NaN)]),
    V("Hash", () => [1, 1.5, -0, NaN, "a", "héllo", true, false, null, undefined, 5n, -5n, [1, 2], { b: 1, a: 2 }, { a: 2, b: 1 }, [[]], new Date(0), /x/i, new Uint8Array([1, 2]), Symbol("s"), new Number(1), new String("s"), new Boolean(true)].map(Value.Hash)),
    // diff / patch / pointer
    V("Diff", () => [Value.Diff({ a: 1, b: [1, 2, 3], c: { d: 1 } }, { a: 2, b: [1], c: { d: 1, e: 2 }, f: 3 }), Value.Diff(1, 2), Value.Diff([1, 2], [1, 2, 3]), Value.Diff({ a: 1 }, [1])]),
    V("Patch", () => {
      const current = { a: 1, b: [1, 2, 3], c: { d: 1 } };
      const next = { a: 2, b: [1], c: { d: 1, e: 2 }, f: 3 };
      return [Value.Patch(current, Value.Diff(current, next)), Value.Patch(1, [{ type: "update", path: "", value: 5 }]), Value.Patch({ a: 1 }, [])];
    }),
    V("Edit schemas", () => [value.Insert, value.Update, value.Delete, value.Edit].map((s) => JSON.stringify(s))),
    V("Pointer", () => {
      const doc = { a: { "b/c": [1, 2], "~k": 3 } };
      const { Pointer } = Value;
      const results = [Pointer.Get(doc, "/a/b~1c/1"), Pointer.Get(doc, "/a/~0k"), Pointer.Has(doc, "/a/x"), Pointer.Has(doc, "/a/b~1c"), Pointer.Indices("/x/~1y")];
      Pointer.Set(doc, "/a/new", 5);
      Pointer.Delete(doc, "/a/b~1c/0");
      return [results, doc];
    }),
    V("Pointer set root", () => Value.Pointer.Set({}, "", 1)),
    // repair
    V("Repair", () => [
      Value.Repair(T.Object({ a: T.Number(), b: T.Optional(T.String()), c: T.Array(T.Number(), { minItems: 1 }) }), { a: "5", b: 1, z: 1 }),
      Value.Repair(T.Number(), "x"), Value.Repair(T.Number(), "7"), Value.Repair(T.Array(T.Number(), { maxItems: 2 }), [1, "2", 3]),
      Value.Repair(T.Union([T.Object({ kind: T.Literal("a"), x: T.Number() }), T.Object({ kind: T.Literal("b"), y: T.String() })]), { kind: "b" }),
      Value.Repair(T.Tuple([T.Number(), T.String()]), [1]), Value.Repair(T.Record(T.String(), T.Number()), { a: "1", b: 2 }),
      Value.Repair(T.String(), undefined), Value.Repair(T.Enum(["x", "y"]), "z"),
    ]),
    V("Repair never", () => Value.Repair(T.Never(), 1)),
    // codecs
    V("Decode Encode", () => {
      const Num = T.Codec(T.String()).Decode((v) => Number(v)).Encode((v) => String(v));
      const Obj = T.Object({ n: Num, list: T.Array(Num), opt: T.Optional(Num) });
      return [Value.Decode(Obj, { n: "1", list: ["2", "3"] }), Value.Encode(Obj, { n: 1, list: [2], opt: 4 }), Value.HasCodec(Obj), Value.HasCodec(T.String())];
    }),
    V("Decode invalid", () => Value.Decode(T.Object({ a: T.Number() }), { a: "x" })),
    V("Decode union", () => Value.Decode(T.Union([T.Decode(T.Number(), (v) => v * 10), T.String()]), 2)),
    V("Encode only", () => Value.Encode(T.Encode(T.Number(), (v) => v + 1), 1)),
    V("UnionPrioritySort", () => value.UnionPrioritySort(T.Union([T.String(), T.Literal("a"), T.Object({ u: T.Union([T.Number(), T.Integer()]) })]))),
    V("UnionScoreSelect", () => value.UnionScoreSelect({}, T.Union([T.Object({ a: T.String() }), T.Object({ b: T.Literal(1), c: T.Number() })]), { b: 1 })),
    V("IsOptionalUndefined", () => [value.IsOptionalUndefined(T.Optional(T.String()), "a", {}), value.IsOptionalUndefined(T.String(), "a", {})]),
    // compile
    V("Compile validator", () => {
      const validator = compile.Compile(T.Object({ a: T.Number({ default: 1 }), b: T.Optional(T.String()) }));
      return [validator.Check({ a: 1 }), validator.Check({}), validator.Errors({}), validator.Errors({ a: 1 }), validator.Parse({ a: 2 }),
        validator.Clean({ a: 1, z: 2 }), validator.Convert({ a: "3" }), validator.Create(), validator.Default({}), validator.Type(), validator.Context(),
        validator.Decode({ a: 1 })];
    }),
    V("Compile parse fails", () => compile.Compile(T.String()).Parse(1)),
    V("Compile with context", () => {
      const validator = compile.Compile({ A: T.Object({ n: T.Number() }) }, T.Ref("A"));
      return [validator.Check({ n: 1 }), validator.Check({ n: "x" }), validator.Errors({ n: "x" })];
    }),
    V("Compile default export", () => compile.default === compile.Compile && typeof compile.Validator),
    V("Value default export", () => value.default === value.Value && Object.keys(value.Value)),
    V("Type default export", () => m.default === m.Type),
  ];
}

function structuredCloneSafe(v) {
  return typeof v === "object" && v !== null ? structuredClone(v) : v;
}
