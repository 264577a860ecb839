"""pi-conformance adapter for the example Python client ``pi_rpc.py`` (or a modified copy).

    python3 adapter.py [--client-module PATH]   (default: pi_rpc.py beside this file)

Reads the runner's actions as JSON lines on stdin, drives the client through its public API,
and writes what the client surfaced as JSON lines on stdout (the contract is in
docs/src/testing-a-client.md, "Validating an RPC client"). Each action is started at once, in order,
and waited for in its own thread, so that a call that waits (``wait_idle``) does not hold up the
next action.
"""

import importlib.util
import json
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


def load_client_module(argv):
    path = os.path.join(HERE, "pi_rpc.py")
    if "--client-module" in argv:
        path = argv[argv.index("--client-module") + 1]
    spec = importlib.util.spec_from_file_location("pi_rpc_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pi_rpc = load_client_module(sys.argv)
out_lock = threading.Lock()
client = None


def report(observation):
    """Writes one observation line; the lock keeps lines whole and in the order of the calls."""
    line = (json.dumps(observation, ensure_ascii=False) + "\n").encode("utf-8")
    with out_lock:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()


def start(action):
    """Starts the action now (in the order the runner sent them); returns what to wait on: an
    object with ``result(timeout)``, or ``None`` when it is done already."""
    global client
    name = action["action"]
    if name == "start":
        client = pi_rpc.RpcClient(action["agent"])
        # Listen before starting: an agent may write records before it reads any command.
        client.on_event(lambda event: report({"type": "event", "event": event}))
        client.start()
        return None
    if client is None:
        raise RuntimeError("the client was not started")
    if name == "stop":
        client.stop()
        return None
    if name == "wait_idle":
        return client.idle()
    if name == "ui_respond":
        return client.respond_ui(
            action["request"],
            value=action.get("value"),
            confirmed=action.get("confirmed"),
            cancelled=action.get("cancelled", False),
        )
    # Every other action is an RPC command of that type, with its fields.
    command = {key: value for key, value in action.items() if key not in ("id", "action")}
    return client.call({"type": name, **command})


def finish(action, pending):
    """Waits for a started action and reports its outcome."""
    try:
        value = pending.result(3600) if pending is not None else None
        report({"type": "result", "id": action["id"], "value": value})
    except Exception as error:
        report({"type": "error", "id": action["id"], "message": str(error)})


def main():
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        action = json.loads(raw.decode("utf-8"))
        try:
            pending = start(action)
        except Exception as error:
            report({"type": "error", "id": action["id"], "message": str(error)})
            continue
        threading.Thread(target=finish, args=(action, pending), daemon=True).start()
    sys.stdout.buffer.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
