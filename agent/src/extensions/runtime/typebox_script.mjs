// Type.Script (TypeScript-syntax type expressions) is not implemented yet.
export function Script() {
  throw new Error("Script is not supported by pi-agent yet");
}
