// Check / Errors cases on TypeBox types and plain JSON schemas, run through
// Value.Check, Value.Errors and Compile(...).Check / .Errors.

function table(T) {
  const tool = T.Object({
    path: T.String({ description: "File path" }),
    offset: T.Optional(T.Number({ minimum: 1 })),
    mode: T.Optional(T.Union([T.Literal("read"), T.Literal("write")])),
    tags: T.Optional(T.Array(T.String({ minLength: 1 }), { maxItems: 2 })),
  });
  const strict = T.Object({ a: T.String(), b: T.Optional(T.Integer()) }, { additionalProperties: false });
  const nested = T.Object({ items: T.Array(T.Object({ id: T.Integer(), label: T.String({ maxLength: 3 }) })) });
  const many = T.Object(Object.fromEntries("abcdefghijk".split("").map((k) => [k, T.String()])));
  return [
    ["tool object", tool, [{ path: "a" }, {}, { path: 1 }, { path: "a", offset: 0 }, { path: "a", mode: "x" }, { path: "a", tags: ["", "b", "c"] }, { path: "a", offset: undefined }, null, [], "str"]],
    ["strict object", strict, [{ a: "x" }, { a: "x", c: 1, d: 2 }, { a: "x", b: 1.5 }, { b: 1 }]],
    ["nested", nested, [{ items: [] }, { items: [{ id: 1, label: "abc" }, { id: "2", label: "abcd" }, {}] }, { items: {} }]],
    ["many required", many, [{}, { a: "1" }]],
    ["many errors capped", many, [Object.fromEntries("abcdefghijk".split("").map((k) => [k, 1]))]],
    ["union nested errors", T.Object({ u: T.Union([T.Object({ a: T.Number() }), T.Array(T.String())]) }), [{ u: { a: "x" } }, { u: [1] }, { u: null }]],
    ["intersect errors", T.Intersect([T.Object({ a: T.Number() }), T.Object({ b: T.String() }, { additionalProperties: false })]), [{ a: "x", b: 1 }]],
    ["refine after failures", T.Refine(T.Object({ a: T.Number() }), (v) => v.a > 0, () => "positive"), [{ a: -1 }, { a: "x" }, { a: 1 }]],
    ["string formats", T.Object({
      email: T.Optional(T.String({ format: "email" })), date: T.Optional(T.String({ format: "date-time" })),
      uuid: T.Optional(T.String({ format: "uuid" })), uri: T.Optional(T.String({ format: "uri" })),
      ip: T.Optional(T.String({ format: "ipv4" })), ip6: T.Optional(T.String({ format: "ipv6" })),
      host: T.Optional(T.String({ format: "hostname" })), day: T.Optional(T.String({ format: "date" })),
      time: T.Optional(T.String({ format: "time" })), custom: T.Optional(T.String({ format: "no-such-format" })),
      url: T.Optional(T.String({ format: "url" })), ptr: T.Optional(T.String({ format: "json-pointer" })),
      re: T.Optional(T.String({ format: "regex" })), dur: T.Optional(T.String({ format: "duration" })),
    }), [
      { email: "a@b.co", date: "2024-02-29T10:00:00Z", uuid: "123e4567-e89b-12d3-a456-426614174000", uri: "https://x.y/p?q#f", ip: "10.0.0.1", ip6: "::1", host: "example.com", day: "2023-12-31", time: "23:59:60Z", custom: "z", url: "https://example.com/a", ptr: "/a/b~0", re: "^a+$", dur: "P1DT2H" },
      { email: "a..b@c", date: "2023-02-29T10:00:00Z", uuid: "xyz", uri: "no scheme", ip: "256.1.1.1", ip6: "1::2::3", host: "-bad-.com", day: "2023-13-01", time: "10:00:00", url: "http://10.0.0.1", ptr: "a", re: "(", dur: "P" },
    ]],
    ["string lengths", T.String({ minLength: 2, maxLength: 4, pattern: "^[a-z]+$" }), ["ab", "a", "abcde", "AB", "e\u0301e\u0301", "👍🏽👍🏽", "\ud83c\uddfa\ud83c\uddf8"]],
    ["numbers", T.Number({ minimum: 0, maximum: 10, exclusiveMaximum: 10, multipleOf: 0.5 }), [0, 2.5, 10, -1, 0.3, NaN, Infinity, "5", 5n]],
    ["exclusive minimum", T.Number({ exclusiveMinimum: 0 }), [0, 1]],
    ["integer", T.Integer(), [1, 1.5, -0, "1", 1e21]],
    ["bigint", T.BigInt({ minimum: 2n }), [1n, 3n, 3]],
    ["boolean", T.Boolean(), [true, 0, "true"]],
    ["null", T.Null(), [null, undefined, 0]],
    ["undefined void", T.Object({ u: T.Undefined(), v: T.Optional(T.Void()) }), [{ u: undefined }, { u: null }, {}]],
    ["literal", T.Literal("on"), ["on", "off"]],
    ["union literals", T.Union([T.Literal("a"), T.Literal(1)]), ["a", 1, "b"]],
    ["union objects", T.Union([T.Object({ kind: T.Literal("a"), x: T.Number() }), T.Object({ kind: T.Literal("b") })]), [{ kind: "a", x: 1 }, { kind: "b" }, { kind: "a" }, { kind: "c" }]],
    ["enum", T.Enum(["x", "y"]), ["x", "z"]],
    ["unsafe enum", T.Unsafe({ type: "string", enum: ["add", "sub"] }), ["add", "mul", 3]],
    ["array unique", T.Array(T.Number(), { uniqueItems: true, minItems: 1 }), [[1, 2], [1, 1, 2, 2], [], [1, "x"]]],
    ["array of objects unique", T.Array(T.Object({ a: T.Number() }), { uniqueItems: true }), [[{ a: 1 }, { a: 1 }], [{ a: 1 }, { a: 2 }]]],
    ["tuple", T.Tuple([T.String(), T.Number()]), [["a", 1], ["a"], ["a", 1, 2], [1, "a"]]],
    ["record", T.Record(T.String(), T.Number()), [{ a: 1 }, { a: "x", b: 2 }, []]],
    ["record integer keys", T.Record(T.Integer(), T.String()), [{ 1: "a" }, { x: "a" }]],
    ["intersect", T.Intersect([T.Object({ a: T.String() }), T.Object({ b: T.Number() })]), [{ a: "x", b: 1 }, { a: "x" }, { b: "y" }]],
    ["refine", T.Refine(T.String(), (v) => v.length > 2, (v) => `"${v}" is too short`), ["abcd", "ab", 3]],
    ["refine object", T.Object({ r: T.Refine(T.Number(), (v) => v % 2 === 0, () => "must be even") }), [{ r: 2 }, { r: 3 }, { r: "x" }]],
    ["cyclic", T.Cyclic({ Node: T.Object({ v: T.Number(), next: T.Optional(T.Ref("Node")) }) }, "Node"), [{ v: 1, next: { v: 2 } }, { v: 1, next: { v: "x" } }]],
    ["ref unresolved", T.Ref("Missing"), [1]],
    ["template literal", T.TemplateLiteral("id_${number}"), ["id_12", "id_x"]],
    ["any unknown never", T.Object({ a: T.Any(), u: T.Unknown(), n: T.Optional(T.Never()) }), [{ a: 1, u: 2 }, { a: 1, u: 2, n: 3 }]],
    ["function type", T.Function([], T.Null()), [() => null, 1]],
  ];
}

const json = [
  ["json object", { type: "object", properties: { path: { type: "string" }, count: { type: "integer", minimum: 1 } }, required: ["path"], additionalProperties: false }, [{ path: "a" }, { count: 0 }, { path: "a", extra: true }]],
  ["json type array", { type: ["string", "null"] }, ["a", null, 1]],
  ["json anyOf", { anyOf: [{ type: "string" }, { type: "number", minimum: 3 }] }, ["a", 4, 1, true]],
  ["json oneOf", { oneOf: [{ type: "number" }, { type: "integer" }] }, [1.5, 1, "x"]],
  ["json allOf", { allOf: [{ type: "object", required: ["a"] }, { required: ["b"] }] }, [{ a: 1, b: 2 }, { a: 1 }, 5]],
  ["json not", { not: { type: "string" } }, [1, "a"]],
  ["json if then else", { if: { properties: { kind: { const: "a" } } }, then: { required: ["x"] }, else: { required: ["y"] } }, [{ kind: "a", x: 1 }, { kind: "a" }, { kind: "b" }, { kind: "b", y: 1 }]],
  ["json const object", { const: { a: [1, 2] } }, [{ a: [1, 2] }, { a: [2, 1] }]],
  ["json enum mixed", { enum: ["a", 1, null, { x: 1 }] }, ["a", null, { x: 1 }, { x: 2 }, 2]],
  ["json dependentRequired", { dependentRequired: { card: ["cvv", "exp"] } }, [{ card: 1, cvv: 1, exp: 1 }, { card: 1 }, {}]],
  ["json dependencies", { dependencies: { a: ["b"], c: { required: ["d"] } } }, [{ a: 1, b: 1 }, { a: 1 }, { c: 1 }]],
  ["json dependentSchemas", { dependentSchemas: { a: { required: ["z"] } } }, [{ a: 1 }, { a: 1, z: 1 }]],
  ["json propertyNames", { propertyNames: { pattern: "^[a-z]+$" } }, [{ ab: 1 }, { Ab: 1, "1": 2 }]],
  ["json min max properties", { minProperties: 1, maxProperties: 2 }, [{}, { a: 1 }, { a: 1, b: 2, c: 3 }]],
  ["json patternProperties", { patternProperties: { "^s_": { type: "string" }, "^n_": { type: "number" } }, additionalProperties: false }, [{ s_a: "x", n_b: 1 }, { s_a: 1 }, { other: 1 }]],
  ["json additionalProperties schema", { properties: { a: {} }, additionalProperties: { type: "number" } }, [{ a: "x", b: 1 }, { b: "x" }]],
  ["json contains", { contains: { type: "number" }, minContains: 2, maxContains: 3 }, [[1, 2], ["a", 1], [1, 2, 3, 4], []]],
  ["json contains simple", { contains: { const: "x" } }, [["x"], ["y"], []]],
  ["json prefixItems", { prefixItems: [{ type: "string" }, { type: "number" }], items: false }, [["a", 1], ["a", 1, 2], [1]]],
  ["json items array", { items: [{ type: "string" }], additionalItems: { type: "number" } }, [["a", 1, 2], ["a", "b"]]],
  ["json items", { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 }, [["a"], [], ["a", 1, 2]]],
  ["json refs", { $defs: { pos: { type: "integer", minimum: 0 } }, type: "object", properties: { x: { $ref: "#/$defs/pos" }, y: { $ref: "#/definitions/none" } } }, [{ x: 1 }, { x: -1 }, { y: 1 }]],
  ["json definitions", { definitions: { s: { type: "string" } }, items: { $ref: "#/definitions/s" } }, [["a"], [1]]],
  ["json ref by id", { $id: "http://x.test/root", properties: { a: { $ref: "http://x.test/item" } }, $defs: { item: { $id: "http://x.test/item", type: "boolean" } } }, [{ a: true }, { a: 1 }]],
  ["json ref anchor", { properties: { a: { $ref: "#num" } }, $defs: { n: { $anchor: "num", type: "number" } } }, [{ a: 1 }, { a: "x" }]],
  ["json recursive", { type: "object", properties: { child: { $ref: "#" }, v: { type: "number" } } }, [{ v: 1, child: { v: 2 } }, { child: { v: "x" } }]],
  ["json unevaluatedProperties", { allOf: [{ properties: { a: { type: "number" } } }], unevaluatedProperties: false }, [{ a: 1 }, { a: 1, b: 2 }]],
  ["json unevaluatedItems", { prefixItems: [{ type: "number" }], unevaluatedItems: false }, [[1], [1, 2]]],
  ["json boolean schemas", { properties: { yes: true, no: false } }, [{ yes: 1 }, { no: 1 }]],
  ["json false root", false, [1]],
  ["json true root", true, [1]],
  ["json empty", {}, [1, null]],
  ["json number bounds", { type: "number", exclusiveMinimum: 0, maximum: 5, multipleOf: 0.1 }, [0.3, 0, 6, 5.05]],
  ["json string bounds", { type: "string", minLength: 1, maxLength: 3, pattern: "^x" }, ["x", "", "xyzw", "y"]],
  ["json nested paths", { type: "object", properties: { a: { type: "object", properties: { b: { type: "array", items: { type: "object", required: ["c"], properties: { c: { type: "string" } } } } } } } }, [{ a: { b: [{ c: "x" }, {}, { c: 1 }] } }]],
  ["json nullable legacy", { type: "string", nullable: true }, [null, "a"]],
  ["json uniqueItems", { uniqueItems: true }, [[1, "1"], [{ a: 1, b: 2 }, { b: 2, a: 1 }]]],
];

// Many candidate strings per format, to pin format semantics.
const formatSamples = {
  email: ["a@b.c", "a.b+c@d-e.fg", "a..b@c.d", ".a@b.c", "a@-b.c", "a@b", "A@B.COM", "a b@c.d", "a@b_c.d", "\u00e9@b.c", "a@b..c"],
  "idn-email": ["\u00e9@b.c", "a@\u00fc.de", "a..b@c", "a@b"],
  "date-time": ["2024-01-01T00:00:00Z", "2024-01-01t00:00:00z", "2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00", "2024-01-01 00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T23:59:60Z", "2024-01-01T22:59:60-01:00", "2024-01-01T00:00:00.123Z"],
  date: ["2024-02-29", "2023-02-29", "2000-02-29", "1900-02-29", "2024-04-31", "2024-1-01", "02024-01-01"],
  time: ["12:00:00Z", "12:00:00", "12:00:00+25:00", "12:60:00Z", "23:59:60Z", "00:00:60+00:01", "12:00:00.5-05:30"],
  duration: ["P1D", "PT1H", "P1W", "P1Y2M3DT4H5M6S", "P", "PT", "P1DT", "P1H", "1D", "P1M1W"],
  uuid: ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000", "g23e4567-e89b-12d3-a456-426614174000"],
  uri: ["http://a", "https://user:pw@host:8080/p?q=1#f", "urn:isbn:123", "mailto:a@b.c", "/relative", "http://[::1]/", "http://a b", "http://a/%zz", "http://a/%20", "1http://a", "http://h\u00e9", "http://a:80x/", "file:///tmp/x", "http://a/\u00e9"],
  "uri-reference": ["", "/a", "a/b", "#f", "http://a", "\\a", "a b", "\u00e9"],
  iri: ["http://\u00e9.com", "rel", "http://a"],
  "iri-reference": ["", "rel/\u00e9", "a b", "http://a", "http//a", "%zz"],
  ipv4: ["0.0.0.0", "255.255.255.255", "256.0.0.0", "01.0.0.0", "1.2.3", "1.2.3.4.5", "a.b.c.d", "1..2.3"],
  ipv6: ["::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1::2::3", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "12345::", "g::", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:", "fe80::1%eth0"],
  hostname: ["example.com", "a", "a-b.c", "-a.com", "a-.com", "ab--c.com", "xn--bcher-kva.de", "xn--zz.de", "a_b.com", "a".repeat(64) + ".com", "example.com.", ""],
  "idn-hostname": ["b\u00fccher.de", "\u30fb", "a\u30fbb", "\u0300a.com", "a\u3002b", "xn--bcher-kva.de", "a b"],
  "json-pointer": ["", "/a", "/a~0b", "/a~2", "a"],
  "relative-json-pointer": ["0", "1/a", "0#", "01", "-1"],
  "json-pointer-uri-fragment": ["#", "#/a", "#/%20", "#/a b"],
  regex: ["^a$", "(", "", "[a-z]+", "\\"],
  "uri-template": ["http://x/{id}", "{+path}", "{a,b:3}", "{", "http://x/{id*}"],
  url: ["http://example.com", "https://a.b.co/path?x=1", "ftp://f.org", "http://localhost", "http://10.0.0.1", "http://8.8.8.8", "http://192.168.1.1", "http://1.2.3.255", "http://a.b:8080", "http://a.b:1", "mailto:a@b.co", "http://\u00e9x.com", "http://a.b/ c"],
};

export function checkCases(m, value, compile) {
  const { Type: T } = m;
  const { Value } = value;
  const formats = Object.entries(formatSamples).map(([format, values]) => [`format ${format}`, T.String({ format }), values]);
  return [...table(T), ...json, ...formats].map(([name, schema, values]) => ({
    name: `check: ${name}`,
    run: () => {
      const validator = compile.Compile(schema);
      return values.map((v) => ({
        check: Value.Check(schema, v),
        errors: Value.Errors(schema, v),
        compiled: validator.Check(v),
        compiledErrors: validator.Errors(v),
      }));
    },
  }));
}
