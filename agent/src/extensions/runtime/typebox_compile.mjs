// pi-agent's `typebox/compile` module: Compile(schema) returns a Validator.
// Checks run on the shared interpreter (no generated code), so results equal
// Value.Check / Value.Errors.
import { checkSchema } from "./typebox_schema.mjs";
import { Clean, Convert, Create, Default, Errors, ParseError, contextType } from "./typebox_value_ops.mjs";
import { Decode, Encode, HasCodec } from "./typebox_value_more.mjs";

export class Validator {
  constructor(context, type) {
    this.context = context;
    this.type = type;
    this.hasCodec = HasCodec(context, type);
  }
  /** False: pi-agent interprets schemas instead of compiling them to code. */
  IsAccelerated() {
    return false;
  }
  Context() {
    return this.context;
  }
  Type() {
    return this.type;
  }
  Code() {
    throw new Error("Validator.Code is not supported by pi-agent yet");
  }
  Check(value) {
    return checkSchema(this.context, this.type, value);
  }
  Parse(value) {
    if (this.Check(value)) return value;
    throw new ParseError(value, this.Errors(value));
  }
  Errors(value) {
    return Errors(this.context, this.type, value);
  }
  Clean(value) {
    return Clean(this.context, this.type, value);
  }
  Convert(value) {
    return Convert(this.context, this.type, value);
  }
  Create() {
    return Create(this.context, this.type);
  }
  Default(value) {
    return Default(this.context, this.type, value);
  }
  Decode(value) {
    return this.hasCodec ? Decode(this.context, this.type, value) : this.Parse(value);
  }
  Encode(value) {
    return this.hasCodec ? Encode(this.context, this.type, value) : this.Parse(value);
  }
}

export function Compile(...args) {
  const [context, type] = contextType(args);
  return new Validator(context, type);
}

export function Code() {
  throw new Error("Code is not supported by pi-agent yet");
}

export default Compile;
