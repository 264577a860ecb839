// Reads an agent's stdout records (JSONL, the file named first) with the types that generate.sh
// writes (pi_rpc.ts, beside this file) and prints one line a record, as example.py does. The
// types check the code (tsc --strict), not the records: a client that needs the latter
// validates them against the schema itself (e.g. with Ajv, or `pi-conformance validate`).
import { readFileSync } from "node:fs";

// README begin
import type { Event, ExtensionUiRequest, Response } from "./pi_rpc";

// A union narrows on its tag: `event.type === "message_update"` gives the update's fields.
function summary(record: Response | Event | ExtensionUiRequest): string {
  if (record.type === "response") {
    const out = `response ${typeof record.command === "string" ? record.command : "-"}`;
    if (!record.success) return `${out} error`;
    if (record.command === "get_state") {
      return `${out} ok model=${record.data.model?.id} messages=${record.data.messageCount}`;
    }
    return `${out} ok`;
  }
  if (record.type === "extension_ui_request") return `extension_ui_request ${record.method}`;
  if (record.type === "message_update") {
    const update = record.assistantMessageEvent;
    return update.type === "text_delta"
      ? `message_update ${update.type} ${update.delta}`
      : `message_update ${update.type}`;
  }
  if (record.type === "message_end") return `message_end ${record.message.role}`;
  if (record.type === "agent_end") return `agent_end ${record.messages.length}`;
  return record.type;
}
// README end

for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (line.trim() !== "") console.log(summary(JSON.parse(line)));
}
