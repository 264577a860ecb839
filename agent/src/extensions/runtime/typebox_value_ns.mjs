// The `Value` namespace of typebox 1.x (`import { Value } from "typebox/value"`).
export { Assert, Check, Clean, Clone, Convert, Create, Default, Equal, Errors, Hash, Parse } from "./typebox_value_ops.mjs";
export { Decode, Diff, Encode, HasCodec, Patch, Pointer, Repair } from "./typebox_value_more.mjs";
