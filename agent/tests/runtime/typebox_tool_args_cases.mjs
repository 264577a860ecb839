// validateToolArguments cases: TypeBox and plain JSON schema tools, valid and
// invalid arguments, coercions. `validate` is pi-ai's (or pi-agent's) function.

export function toolArgCases(m, validate) {
  const { Type: T } = m;
  const StringEnum = (values, options = {}) => T.Unsafe({ type: "string", enum: values, ...(options.description && { description: options.description }) });
  const read = {
    name: "read",
    parameters: T.Object({
      path: T.String({ description: "Path to the file" }),
      offset: T.Optional(T.Number({ description: "Line to start from" })),
      limit: T.Optional(T.Integer({ minimum: 1 })),
    }),
  };
  const todo = {
    name: "todo",
    parameters: T.Object({
      action: StringEnum(["list", "add", "toggle", "clear"]),
      text: T.Optional(T.String()),
      id: T.Optional(T.Number()),
      done: T.Optional(T.Boolean()),
    }),
  };
  const nested = {
    name: "nested",
    parameters: T.Object({
      items: T.Array(T.Object({ name: T.String(), qty: T.Integer(), tags: T.Optional(T.Array(T.String())) })),
      meta: T.Optional(T.Object({ owner: T.String(), mode: T.Union([T.Literal("fast"), T.Literal("slow")]) })),
    }),
  };
  const union = { name: "union", parameters: T.Object({ value: T.Union([T.Number(), T.Boolean(), T.Null()]) }) };
  const strict = { name: "strict", parameters: T.Object({ a: T.String() }, { additionalProperties: false }) };
  const json = {
    name: "json",
    parameters: {
      type: "object",
      properties: {
        count: { type: "integer" }, ratio: { type: "number" }, on: { type: "boolean" }, label: { type: "string" },
        maybe: { type: ["number", "null"] }, none: { type: "null" }, list: { type: "array", items: { type: "number" } },
        pair: { type: "array", items: [{ type: "string" }, { type: "boolean" }] },
        extra: { type: "object", additionalProperties: { type: "integer" } },
        choice: { anyOf: [{ type: "boolean" }, { type: "number" }] },
        kind: { type: "string", enum: ["a", "b"] },
      },
      required: ["count"],
    },
  };
  const scalar = { name: "scalar", parameters: { type: "number" } };
  const empty = { name: "empty", parameters: T.Object({}) };
  const Option = T.Object({ value: T.String({ description: "v" }), label: T.String(), description: T.Optional(T.String()) });
  const questionnaire = {
    name: "questionnaire",
    parameters: T.Object({
      questions: T.Array(T.Object({
        id: T.String(), prompt: T.String(), options: T.Array(Option, { description: "choices" }), allowOther: T.Optional(T.Boolean()),
      }), { description: "Questions" }),
    }),
  };
  const Task = T.Object({ agent: T.String(), task: T.String(), cwd: T.Optional(T.String()) });
  const subagent = {
    name: "subagent",
    parameters: T.Object({
      agent: T.Optional(T.String()), tasks: T.Optional(T.Array(Task)), chain: T.Optional(T.Array(Task)),
      agentScope: T.Optional(StringEnum(["user", "project", "both"], { description: "scope" })),
      confirmProjectAgents: T.Optional(T.Boolean({ default: true })),
    }),
  };
  const call = (tool, args, name = tool.name) => ({ name: `tool-args: ${name}`, run: () => validate(tool, { id: "c1", name: tool.name, arguments: args }) });
  return [
    call(read, { path: "a.txt" }, "read ok"),
    call(read, {}, "read missing required"),
    call(read, { path: 5 }, "read wrong type number to string"),
    call(read, { path: "a", offset: "5" }, "read string to number"),
    call(read, { path: "a", offset: "five" }, "read bad number"),
    call(read, { path: "a", limit: "2.5" }, "read bad integer"),
    call(read, { path: "a", limit: 0 }, "read minimum"),
    call(read, { path: "a", limit: "3" }, "read string to integer"),
    call(read, { offset: "x", limit: true }, "read several errors"),
    call(read, null, "read null arguments"),
    call(read, "path", "read string arguments"),
    call(todo, { action: "add", text: "milk" }, "todo ok"),
    call(todo, { action: "remove" }, "todo enum mismatch"),
    call(todo, { action: "toggle", id: "3", done: "true" }, "todo coercions"),
    call(todo, { action: 1 }, "todo number to enum string"),
    call(nested, { items: [{ name: "a", qty: 1 }] }, "nested ok"),
    call(nested, { items: [{ name: "a", qty: "2" }, { qty: 1 }, { name: 3, qty: 1.5, tags: [1] }] }, "nested paths"),
    call(nested, { items: [], meta: { owner: "me", mode: "medium" } }, "nested union literal"),
    call(nested, { items: {} }, "nested not array"),
    call(union, { value: "true" }, "union boolean from string"),
    call(union, { value: "7" }, "union number from string"),
    call(union, { value: "x" }, "union mismatch"),
    call(strict, { a: "x", b: 1 }, "strict additional"),
    call(json, { count: "4", ratio: "0.5", on: "false", label: 12, maybe: "3", none: "", list: ["1", "2"], pair: [1, "true"], extra: { x: "5" }, choice: "1", kind: "a" }, "json coercions"),
    call(json, { count: 1.5, kind: "c", maybe: "x" }, "json errors"),
    call(json, { ratio: null, on: null, label: null }, "json nulls"),
    call(json, { count: 1, on: 1, list: "1" }, "json number to boolean"),
    call(scalar, "12", "scalar coercion"),
    call(scalar, "x", "scalar error"),
    call(empty, { anything: 1 }, "empty object extra"),
    call(empty, [], "empty object array"),
    call(empty, undefined, "empty object undefined arguments"),
    call(questionnaire, { questions: [{ id: "q", prompt: "p", options: [{ value: "v", label: "l" }] }] }, "questionnaire ok"),
    call(questionnaire, { questions: [{ id: 1, options: [{ value: 2 }, "x"], allowOther: "yes" }] }, "questionnaire nested errors"),
    call(questionnaire, { questions: "[]" }, "questionnaire stringified array"),
    call(subagent, { agent: "a", agentScope: "all", confirmProjectAgents: "false" }, "subagent enum and boolean"),
    call(subagent, { tasks: [{ agent: "a" }, { task: "t" }], chain: [{ agent: 1, task: 2, cwd: 3 }] }, "subagent task lists"),
    call(subagent, { unknown: 1 }, "subagent extra property allowed"),
  ];
}
