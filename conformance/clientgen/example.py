# Reads an agent's stdout records (JSONL, the file named first) with the pydantic models that
# generate.sh writes (pi_rpc.py, on PYTHONPATH) and prints one line a record (the line that
# conformance/tests/schema_clients.rs derives from it); a record the models reject ends it with
# status 1.
import json
import sys

# README begin
from pydantic import RootModel

from pi_rpc import ErrorResponse, Event, ExtensionUiRequest, SuccessResponse


def variant(model):
    """The variant a union (a RootModel, maybe of RootModels) parsed into."""
    while isinstance(model, RootModel):
        model = model.root
    return model


def summary(line: str) -> str:
    record = json.loads(line)
    if record["type"] == "response":
        # (Response's success branch comes out as `success: True` alone: parse each branch.)
        branch = SuccessResponse if record["success"] else ErrorResponse
        response = variant(branch.model_validate(record))
        out = f"response {getattr(response, 'command', None) or '-'}"
        out += " ok" if record["success"] else " error"
        if getattr(response, "command", None) == "get_state":
            out += f" model={response.data.model.id} messages={response.data.messageCount}"
        return out
    if record["type"] == "extension_ui_request":
        return f"extension_ui_request {variant(ExtensionUiRequest.model_validate(record)).method}"
    event = variant(Event.model_validate(record))
    if event.type == "message_update":
        update = variant(event.assistantMessageEvent)
        delta = f" {update.delta}" if update.type == "text_delta" else ""
        return f"message_update {update.type}{delta}"
    if event.type == "message_end":
        return f"message_end {variant(event.message).role}"
    if event.type == "agent_end":
        return f"agent_end {len(event.messages)}"
    return event.type
# README end


for line in open(sys.argv[1], encoding="utf-8"):
    try:
        print(summary(line))
    except ValueError as error:  # pydantic's ValidationError is a ValueError
        print(f"rejected: {error}", file=sys.stderr)
        sys.exit(1)
