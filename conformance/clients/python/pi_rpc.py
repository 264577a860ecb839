"""A small client for pi's RPC mode (``pi --mode rpc``), standard library only.

An example of a client that gets the protocol right, checked in CI by ``pi-conformance client``
(see ``docs/src/testing-a-client.md``, "Validating an RPC client"):

- records are split on LF only, from bytes, whatever the reads (U+2028, U+2029 and U+0085 are
  text inside JSON strings; a character cut between two reads is joined again), with no line
  length limit;
- a response is paired with its command by ``id``; any other record, an id-less error included,
  goes to the event listeners, record types it does not know too;
- the agent's stderr is always read (a full pipe would block the agent) and kept for errors;
- when the agent exits, every pending call and ``wait_idle`` fail at once with the exit code and
  the end of stderr;
- ``wait_idle`` waits for ``agent_settled``, not ``agent_end`` (a retry, a compaction or a
  queued follow-up may still come after ``agent_end``), and returns at once when one came after
  the last prompt was sent;
- ``call`` and ``idle`` start a command or a wait at once and return a ``Reply`` to wait on, so
  that an application with several threads keeps the order in which it starts them;
- extension UI dialogs are answered with ``respond_ui``; fire-and-forget requests (``notify``,
  ``setStatus``...) get no answer.

    client = RpcClient(["pi", "--mode", "rpc", "--no-session"])
    client.on_event(print)
    client.start()
    client.prompt("Hello")
    client.wait_idle()
    client.stop()
"""

import itertools
import json
import subprocess
import sys
import threading

__all__ = ["AgentExited", "Reply", "RpcClient", "RpcError"]

STDERR_KEPT = 64 * 1024


class RpcError(Exception):
    """The agent answered a command with ``success: false``."""

    def __init__(self, command, message):
        super().__init__(message)
        self.command = command


class AgentExited(Exception):
    """The agent process ended; ``code`` is its exit code, ``stderr`` the end of its stderr."""

    def __init__(self, code, stderr):
        tail = stderr.strip().splitlines()[-3:]
        super().__init__(
            f"the agent exited with code {code}" + (": " + " / ".join(tail) if tail else "")
        )
        self.code = code
        self.stderr = stderr


class Reply:
    """One pending answer: set once with a value or an error; ``result`` waits for it."""

    def __init__(self):
        self._done = threading.Event()
        self._value = None
        self._error = None

    def resolve(self, value):
        self._value = value
        self._done.set()

    def fail(self, error):
        self._error = error
        self._done.set()

    def result(self, timeout=60.0):
        """The value, once set (raises the error it was failed with, or ``TimeoutError``)."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"no answer within {timeout} s")
        if self._error is not None:
            raise self._error
        return self._value


class _Data:
    """The ``Reply`` of a command, giving its response's ``data``."""

    def __init__(self, reply, command):
        self._reply = reply
        self._command = command

    def result(self, timeout=60.0):
        response = self._reply.result(timeout)
        if not response.get("success"):
            raise RpcError(self._command, response.get("error", "failed"))
        return response.get("data")


class RpcClient:
    """Starts the agent with ``argv`` and talks to it over its stdin and stdout."""

    def __init__(self, argv, cwd=None, env=None):
        self._argv = list(argv)
        self._cwd = cwd
        self._env = env
        self._process = None
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._pending = {}
        self._idle_waiters = set()
        self._listeners = []
        self._ids = itertools.count(1)
        self._stderr = bytearray()
        self._exit_error = None
        self._settled = 0
        self._settled_at_prompt = 0
        self._stdout_thread = None
        self._stderr_thread = None

    # -- process ---------------------------------------------------------------------------

    def start(self):
        """Starts the agent and the threads that read its stdout and stderr."""
        if self._process is not None:
            raise RuntimeError("the client is already started")
        self._process = subprocess.Popen(
            self._argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self._cwd,
            env=self._env,
            bufsize=0,
        )
        self._stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self._stdout_thread = threading.Thread(target=self._read_stdout, daemon=True)
        self._stderr_thread.start()
        self._stdout_thread.start()

    def stop(self, timeout=5.0):
        """Closes the agent's stdin (it exits then) and waits; terminates it if it does not."""
        process = self._process
        if process is None:
            return
        try:
            with self._write_lock:
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(1.0)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for thread in (self._stdout_thread, self._stderr_thread):
            thread.join(timeout)

    @property
    def stderr(self):
        """The end of what the agent wrote on stderr."""
        with self._lock:
            return self._stderr.decode("utf-8", "replace")

    # -- records ---------------------------------------------------------------------------

    def on_event(self, listener):
        """Calls ``listener(record)`` for every record that is not the answer to a command of
        this client, in the order they arrive; returns a function that removes it."""
        with self._lock:
            self._listeners.append(listener)

        def remove():
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return remove

    def send(self, record):
        """Writes one record (one JSON line) without waiting for anything."""
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with self._write_lock:
            if self._exit_error is not None:
                raise self._exit_error
            try:
                self._process.stdin.write(line)
                self._process.stdin.flush()
            except (BrokenPipeError, ValueError, OSError) as error:
                raise self._exit_error or AgentExited(self._process.poll(), self.stderr) from error

    def call(self, command):
        """Sends a command with a fresh ``id`` now; the ``Reply`` gives the ``data`` of its
        response, or raises ``RpcError`` for ``success: false`` and ``AgentExited`` when the
        agent ends first."""
        request_id = f"py-{next(self._ids)}"
        reply = Reply()
        with self._lock:
            if self._exit_error is not None:
                raise self._exit_error
            self._pending[request_id] = reply
            if command.get("type") == "prompt":
                self._settled_at_prompt = self._settled
        try:
            self.send({**command, "id": request_id})
        except Exception:
            with self._lock:
                self._pending.pop(request_id, None)
            raise
        return _Data(reply, command.get("type"))

    def request(self, command, timeout=60.0):
        """Sends a command and waits for the ``data`` of its response (see ``call``)."""
        return self.call(command).result(timeout)

    def idle(self):
        """A ``Reply`` set at ``agent_settled``: the agent will not go on by itself (``agent_end``
        alone may be followed by a retry, a compaction or a queued follow-up). Set at once when
        one came after the last prompt was sent."""
        reply = Reply()
        with self._lock:
            if self._exit_error is not None:
                reply.fail(self._exit_error)
            elif self._settled > self._settled_at_prompt:
                reply.resolve(None)
            else:
                self._idle_waiters.add(reply)
        return reply

    def wait_idle(self, timeout=60.0):
        """Waits for the agent to settle (see ``idle``)."""
        return self.idle().result(timeout)

    def respond_ui(self, request_id, value=None, confirmed=None, cancelled=False):
        """Answers an extension UI dialog (select, confirm, input, editor)."""
        answer = {"type": "extension_ui_response", "id": request_id}
        if cancelled:
            answer["cancelled"] = True
        elif confirmed is not None:
            answer["confirmed"] = confirmed
        else:
            answer["value"] = value
        self.send(answer)

    # -- commands --------------------------------------------------------------------------

    def prompt(self, message, images=None, streaming_behavior=None):
        command = {"type": "prompt", "message": message}
        if images is not None:
            command["images"] = images
        if streaming_behavior is not None:
            command["streamingBehavior"] = streaming_behavior
        return self.request(command)

    def steer(self, message):
        return self.request({"type": "steer", "message": message})

    def follow_up(self, message):
        return self.request({"type": "follow_up", "message": message})

    def abort(self):
        return self.request({"type": "abort"})

    def get_state(self):
        return self.request({"type": "get_state"})

    def get_messages(self):
        return self.request({"type": "get_messages"})["messages"]

    def bash(self, command):
        return self.request({"type": "bash", "command": command})

    def compact(self, custom_instructions=None):
        command = {"type": "compact"}
        if custom_instructions is not None:
            command["customInstructions"] = custom_instructions
        return self.request(command)

    # -- reading ---------------------------------------------------------------------------

    def _read_stdout(self):
        stream = self._process.stdout
        buffer = bytearray()
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            start = len(buffer)
            buffer += chunk
            end = buffer.find(b"\n", start)
            while end >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                self._record(line)
                end = buffer.find(b"\n")
        if buffer:
            self._record(bytes(buffer))
        self._exited()

    def _record(self, line):
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            record = json.loads(line.decode("utf-8"))
        except ValueError as error:
            self._note(f"pi_rpc: skipped a line that is not a JSON record: {error}")
            return
        if not isinstance(record, dict):
            self._note("pi_rpc: skipped a JSON line that is not an object")
            return
        if record.get("type") == "response" and isinstance(record.get("id"), str):
            with self._lock:
                waiter = self._pending.pop(record["id"], None)
            if waiter is not None:
                waiter.resolve(record)
                return
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(record)
            except Exception as error:  # a listener's bug must not stop the reader
                self._note(f"pi_rpc: an event listener failed: {error!r}")
        # After the listeners: an application hears of agent_settled before its wait ends.
        if record.get("type") == "agent_settled":
            with self._lock:
                self._settled += 1
                waiters = list(self._idle_waiters)
                self._idle_waiters.clear()
            for waiter in waiters:
                waiter.resolve(None)

    def _read_stderr(self):
        stream = self._process.stderr
        while True:
            chunk = stream.read(65536)
            if not chunk:
                return
            with self._lock:
                self._stderr += chunk
                del self._stderr[:-STDERR_KEPT]

    def _exited(self):
        code = self._process.wait()
        self._stderr_thread.join(1.0)
        error = AgentExited(code, self.stderr)
        with self._lock:
            self._exit_error = error
            waiters = list(self._pending.values()) + list(self._idle_waiters)
            self._pending.clear()
        for waiter in waiters:
            waiter.fail(error)

    def _note(self, text):
        print(text, file=sys.stderr, flush=True)
