// pi-agent's `typebox/value` module: the Value namespace and its named exports.
import * as Value from "./typebox_value_ns.mjs";

export * from "./typebox_value_ns.mjs";
export {
  AssertError, CreateError, IsOptionalUndefined, ParseError, Parser, Pipeline, UnionPrioritySort,
} from "./typebox_value_ops.mjs";
export {
  DecodeError, DecodeUnsafe, Delete, Edit, EncodeError, EncodeUnsafe, Insert, UnionScoreSelect, Update,
} from "./typebox_value_more.mjs";
export { Value };
export default Value;
