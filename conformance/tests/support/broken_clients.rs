//! Deliberately broken clients: each is a copy of a good client (pi's `RpcClient`, made from the
//! installed reference, or the example Python client) with one mistake patched in, the cases of
//! the client corpus it must fail, and the words each failure's message must hold (the cause).

/// One text replaced in one file of the copy.
pub struct Patch {
    pub file: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
}

/// A broken client.
pub struct Broken {
    /// Its name in reports.
    pub name: &'static str,
    /// The mistake patched in.
    pub mistake: &'static str,
    pub patches: &'static [Patch],
    /// The cases it fails, in order, each with text its failure message must contain.
    pub fails: &'static [(&'static str, &'static str)],
}

const JSONL: &str = "jsonl.js";
const RPC: &str = "rpc-client.js";
const PY: &str = "pi_rpc.py";

/// The line reader of pi's `jsonl.js`, where it looks for the end of a record.
const JS_FIND_LF: &str = "const newlineIndex = buffer.indexOf(\"\\n\");";
/// Where `RpcClient.handleLine` pairs a response with its request.
const JS_PAIR: &str =
    "if (data.type === \"response\" && data.id && this.pendingRequests.has(data.id)) {
                const pending = this.pendingRequests.get(data.id);
                this.pendingRequests.delete(data.id);";
/// Where `RpcClient.handleLine` has parsed a record.
const JS_PARSED: &str = "            const data = JSON.parse(line);\n";

/// The record types and top-level fields pi 0.84.1 writes, for the strict copies.
const JS_KNOWN: &str = r#"    handleLine(line) {
        const record = JSON.parse(line);
        const types = ["response", "extension_ui_request", "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end", "message_start", "message_update", "message_end", "bash_execution_update", "tool_execution_start", "tool_execution_update", "tool_execution_end", "queue_update", "compaction_start", "compaction_end", "auto_retry_start", "auto_retry_end", "summarization_retry_scheduled", "summarization_retry_attempt_start", "summarization_retry_finished", "extension_error", "thinking_level_changed", "session_info_changed", "entry_appended"];
        const fields = ["aborted", "args", "assistantMessageEvent", "attempt", "command", "data", "delayMs", "delta", "entry", "error", "errorMessage", "event", "extensionPath", "finalError", "followUp", "id", "isError", "maxAttempts", "message", "messages", "method", "notifyType", "options", "partialResult", "placeholder", "prefill", "reason", "result", "source", "statusKey", "statusText", "steering", "success", "text", "timeout", "title", "toolCallId", "toolName", "toolResults", "type", "widgetKey", "widgetLines", "widgetPlacement", "willRetry"];
        if (!types.includes(record.type)) throw new Error(`unknown record type ${record.type}`);
        for (const key of Object.keys(record)) if (!fields.includes(key)) throw new Error(`unknown field ${key}`);
        try {"#;

type Fails = &'static [(&'static str, &'static str)];

// The cases a copy with each mistake fails, in either language, and the cause each message names.

const DECODES_EACH_READ: Fails = &[("client.005", "multi-byte character(s) cut")];

const READS_ARE_RECORDS: Fails = &[
    ("client.004", "writes of 1 byte"),
    ("client.005", "writes of 1 byte"),
    ("client.017", "KiB long"),
    ("client.018", "MiB long"),
];

const RESPONSES_BY_ORDER: Fails = &[
    ("client.009", "still waits"),
    ("client.010", "without `id`"),
];

const NEXT_RECORD_ANSWERS: Fails = &[
    ("client.006", "next record"),
    ("client.007", "next record"),
    ("client.009", "next record"),
    ("client.010", "next record"),
    ("client.011", "next record"),
    ("client.012", "next record"),
    ("client.013", "next record"),
    ("client.014", "next record"),
    ("client.017", "next record"),
    ("client.018", "next record"),
    ("client.022", "next record"),
    ("client.025", "next record"),
];

const ANY_RECORD_WITH_THE_ID: Fails = &[
    ("client.007", "carries the id"),
    ("client.009", "carries the id"),
];

const IDLE_AT_AGENT_END: Fails = &[
    ("client.021", "before it surfaced"),
    ("client.023", "before it surfaced"),
    ("client.024", "before it surfaced"),
];

// In client.013 the cancel such a copy sends is the very answer the case wants, but it answers
// the notify that follows too.
const ANSWERS_UI: Fails = &[
    ("client.008", "extension_ui_response"),
    ("client.011", "extension_ui_response"),
    ("client.012", "extension_ui_response"),
    ("client.013", "extension_ui_response"),
    ("client.014", "extension_ui_response"),
];

const STDERR_UNREAD: Fails = &[("client.020", "does not read the agent's stderr")];

const STRICT_SCHEMA: Fails = &[
    ("client.015", "does not write"),
    ("client.016", "merged in"),
];

const EXIT_UNNOTICED: Fails = &[("client.019", "exited with code 134")];

const IGNORES_RECORDS_BEFORE_A_COMMAND: Fails =
    &[("client.008", "before the client sent any command")];

/// Copies of pi's `RpcClient` (`rpc-client.js` and its `jsonl.js`).
pub const RPC_CLIENT: &[Broken] = &[
    Broken {
        name: "rpc-client-unicode-separators",
        mistake: "splits records at U+2028 and U+2029, as JavaScript's line terminators",
        patches: &[
            Patch {
                file: JSONL,
                find: JS_FIND_LF,
                replace: "const found = /\\r?\\n|\\u2028|\\u2029/.exec(buffer);\n            const newlineIndex = found ? found.index : -1;",
            },
            Patch {
                file: JSONL,
                find: "buffer = buffer.slice(newlineIndex + 1);",
                replace: "buffer = buffer.slice(newlineIndex + found[0].length);",
            },
        ],
        fails: &[("client.001", "U+2028"), ("client.002", "U+2029")],
    },
    Broken {
        name: "rpc-client-decodes-each-read",
        mistake: "decodes each read as UTF-8 on its own",
        patches: &[Patch {
            file: JSONL,
            find: "decoder.write(chunk)",
            replace: "chunk.toString(\"utf8\")",
        }],
        fails: DECODES_EACH_READ,
    },
    Broken {
        name: "rpc-client-reads-are-records",
        mistake: "takes each read for whole records, dropping a partial record at its end",
        patches: &[Patch {
            file: JSONL,
            find: "            if (newlineIndex === -1) {\n                return;",
            replace: "            if (newlineIndex === -1) {\n                buffer = \"\";\n                return;",
        }],
        fails: READS_ARE_RECORDS,
    },
    Broken {
        name: "rpc-client-line-limit",
        mistake: "drops records longer than 1 MiB",
        patches: &[Patch {
            file: JSONL,
            find: "        buffer += typeof chunk === \"string\" ? chunk : decoder.write(chunk);\n",
            replace: "        buffer += typeof chunk === \"string\" ? chunk : decoder.write(chunk);\n        if (buffer.length > 1048576 && buffer.indexOf(\"\\n\") === -1) {\n            buffer = \"\";\n            return;\n        }\n",
        }],
        fails: &[("client.018", "MiB long")],
    },
    Broken {
        name: "rpc-client-responses-by-order",
        mistake: "pairs a response with the oldest pending command, whatever its id",
        patches: &[Patch {
            file: RPC,
            find: JS_PAIR,
            replace: "if (data.type === \"response\" && this.pendingRequests.size > 0) {
                const [oldest, pending] = this.pendingRequests.entries().next().value;
                this.pendingRequests.delete(oldest);",
        }],
        fails: RESPONSES_BY_ORDER,
    },
    Broken {
        name: "rpc-client-next-record-answers",
        mistake: "takes the next record after a command for its answer",
        patches: &[Patch {
            file: RPC,
            find: JS_PAIR,
            replace: "if (this.pendingRequests.size > 0) {
                const [oldest, pending] = this.pendingRequests.entries().next().value;
                this.pendingRequests.delete(oldest);",
        }],
        fails: NEXT_RECORD_ANSWERS,
    },
    Broken {
        name: "rpc-client-any-record-with-the-id",
        mistake: "pairs any record carrying a command's id with that command",
        patches: &[Patch {
            file: RPC,
            find: "if (data.type === \"response\" && data.id && this.pendingRequests.has(data.id)) {",
            replace: "if (data.id && this.pendingRequests.has(data.id)) {",
        }],
        fails: ANY_RECORD_WITH_THE_ID,
    },
    Broken {
        name: "rpc-client-idle-at-agent-end",
        mistake: "waits for agent_end instead of agent_settled",
        patches: &[Patch {
            file: RPC,
            find: "if (event.type === \"agent_settled\") {\n                    clearTimeout(timer);\n                    unsubscribe();\n                    resolve();",
            replace: "if (event.type === \"agent_end\") {\n                    clearTimeout(timer);\n                    unsubscribe();\n                    resolve();",
        }],
        fails: IDLE_AT_AGENT_END,
    },
    Broken {
        name: "rpc-client-stderr-unread",
        mistake: "never reads the agent's stderr",
        patches: &[Patch {
            file: RPC,
            find: "        childProcess.stderr?.on(\"data\", (data) => {\n            this.stderr += data.toString();\n            process.stderr.write(data);\n        });\n",
            replace: "",
        }],
        fails: STDERR_UNREAD,
    },
    Broken {
        name: "rpc-client-strict-schema",
        mistake: "throws on a record type or field it does not know",
        patches: &[Patch {
            file: RPC,
            find: "    handleLine(line) {\n        try {",
            replace: JS_KNOWN,
        }],
        fails: STRICT_SCHEMA,
    },
    Broken {
        name: "rpc-client-exit-unnoticed",
        mistake: "does not notice that the agent exited",
        patches: &[
            Patch {
                file: RPC,
                find: "            const error = this.createProcessExitError(code, signal);\n            this.exitError = error;\n            this.rejectPendingRequests(error);\n",
                replace: "",
            },
            Patch {
                file: RPC,
                find: "        if (childProcess.exitCode !== null) {",
                replace: "        if (false) {",
            },
        ],
        fails: EXIT_UNNOTICED,
    },
    Broken {
        name: "rpc-client-answers-ui",
        mistake: "answers every extension UI request itself, cancelling it",
        patches: &[Patch {
            file: RPC,
            find: JS_PARSED,
            replace: "            const data = JSON.parse(line);\n            if (data.type === \"extension_ui_request\") this.process?.stdin?.write(serializeJsonLine({ type: \"extension_ui_response\", id: data.id, cancelled: true }));\n",
        }],
        fails: ANSWERS_UI,
    },
    Broken {
        name: "rpc-client-ignores-records-before-a-command",
        mistake: "drops records that come before its first command",
        patches: &[Patch {
            file: RPC,
            find: JS_PARSED,
            replace: "            const data = JSON.parse(line);\n            if (this.requestId === 0) return;\n",
        }],
        fails: IGNORES_RECORDS_BEFORE_A_COMMAND,
    },
];

/// The reading loop of `pi_rpc.py`, from the read to the end of the loop.
const PY_READ: &str = "            start = len(buffer)
            buffer += chunk
            end = buffer.find(b\"\\n\", start)
            while end >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                self._record(line)
                end = buffer.find(b\"\\n\")
";
/// Where `pi_rpc.py` pairs a response with its request.
const PY_PAIR: &str =
    "        if record.get(\"type\") == \"response\" and isinstance(record.get(\"id\"), str):
            with self._lock:
                waiter = self._pending.pop(record[\"id\"], None)";
/// Where `pi_rpc.py` has a parsed record in hand.
const PY_PARSED: &str =
    "            self._note(\"pi_rpc: skipped a JSON line that is not an object\")
            return
";

/// Copies of the example Python client.
pub const PYTHON: &[Broken] = &[
    Broken {
        name: "python-splitlines",
        mistake: "splits records with str.splitlines (U+2028, U+2029, U+0085 and more)",
        patches: &[Patch {
            file: PY,
            find: PY_READ,
            replace: "            if not hasattr(self, \"_decoder\"):
                self._decoder, self._text = codecs.getincrementaldecoder(\"utf-8\")(), \"\"
            lines = (self._text + self._decoder.decode(chunk)).splitlines(keepends=True)
            self._text = lines.pop() if lines and not lines[-1].endswith(\"\\n\") else \"\"
            for line in lines:
                self._record(line.rstrip(\"\\r\\n\").encode(\"utf-8\"))
",
        }, PY_IMPORT_CODECS],
        fails: &[
            ("client.001", "U+2028"),
            ("client.002", "U+2029"),
            ("client.003", "U+0085"),
        ],
    },
    Broken {
        name: "python-decodes-each-read",
        mistake: "decodes each read as UTF-8 on its own",
        patches: &[Patch {
            file: PY,
            find: PY_READ,
            replace: "            *lines, self._text = (getattr(self, \"_text\", \"\") + chunk.decode(\"utf-8\", \"replace\")).split(\"\\n\")
            for line in lines:
                self._record(line.encode(\"utf-8\"))
",
        }],
        fails: DECODES_EACH_READ,
    },
    Broken {
        name: "python-reads-are-records",
        mistake: "takes each read for whole records, dropping a partial record at its end",
        patches: &[Patch {
            file: PY,
            find: PY_READ,
            replace: "            for line in chunk.split(b\"\\n\")[:-1]:
                self._record(line)
",
        }],
        fails: READS_ARE_RECORDS,
    },
    Broken {
        name: "python-64-kib-line-limit",
        mistake: "stops at a record longer than 64 KiB, as asyncio's StreamReader does",
        patches: &[Patch {
            file: PY,
            find: "            buffer += chunk\n",
            replace: "            buffer += chunk
            if buffer.find(b\"\\n\", 0, 65537) < 0 and len(buffer) > 65536:
                raise ValueError(\"Separator is not found, and chunk exceed the limit\")
",
        }],
        fails: &[("client.017", "KiB long"), ("client.018", "MiB long")],
    },
    Broken {
        name: "python-responses-by-order",
        mistake: "pairs a response with the oldest pending command, whatever its id",
        patches: &[Patch {
            file: PY,
            find: PY_PAIR,
            replace: "        if record.get(\"type\") == \"response\" and self._pending:
            with self._lock:
                waiter = self._pending.pop(next(iter(self._pending)), None)",
        }],
        fails: RESPONSES_BY_ORDER,
    },
    Broken {
        name: "python-next-record-answers",
        mistake: "takes the next record after a command for its answer",
        patches: &[Patch {
            file: PY,
            find: PY_PAIR,
            replace: "        if self._pending:
            with self._lock:
                waiter = self._pending.pop(next(iter(self._pending)), None)",
        }],
        fails: NEXT_RECORD_ANSWERS,
    },
    Broken {
        name: "python-any-record-with-the-id",
        mistake: "pairs any record carrying a command's id with that command",
        patches: &[Patch {
            file: PY,
            find: "        if record.get(\"type\") == \"response\" and isinstance(record.get(\"id\"), str):",
            replace: "        if isinstance(record.get(\"id\"), str):",
        }],
        fails: ANY_RECORD_WITH_THE_ID,
    },
    Broken {
        name: "python-idle-at-agent-end",
        mistake: "waits for agent_end instead of agent_settled",
        patches: &[Patch {
            file: PY,
            find: "        if record.get(\"type\") == \"agent_settled\":",
            replace: "        if record.get(\"type\") == \"agent_end\":",
        }],
        fails: IDLE_AT_AGENT_END,
    },
    Broken {
        name: "python-stderr-unread",
        mistake: "never reads the agent's stderr",
        patches: &[Patch {
            file: PY,
            find: "threading.Thread(target=self._read_stderr, daemon=True)",
            replace: "threading.Thread(target=lambda: None, daemon=True)",
        }],
        fails: STDERR_UNREAD,
    },
    Broken {
        name: "python-strict-schema",
        mistake: "raises on a record type or field it does not know",
        patches: &[Patch {
            file: PY,
            find: PY_PARSED,
            replace: concat!(
                "            self._note(\"pi_rpc: skipped a JSON line that is not an object\")\n",
                "            return\n",
                "        types = {\"response\", \"extension_ui_request\", \"agent_start\", \"agent_end\", \"agent_settled\", \"turn_start\", \"turn_end\", \"message_start\", \"message_update\", \"message_end\", \"bash_execution_update\", \"tool_execution_start\", \"tool_execution_update\", \"tool_execution_end\", \"queue_update\", \"compaction_start\", \"compaction_end\", \"auto_retry_start\", \"auto_retry_end\", \"summarization_retry_scheduled\", \"summarization_retry_attempt_start\", \"summarization_retry_finished\", \"extension_error\", \"thinking_level_changed\", \"session_info_changed\", \"entry_appended\"}\n",
                "        fields = {\"aborted\", \"args\", \"assistantMessageEvent\", \"attempt\", \"command\", \"data\", \"delayMs\", \"delta\", \"entry\", \"error\", \"errorMessage\", \"event\", \"extensionPath\", \"finalError\", \"followUp\", \"id\", \"isError\", \"maxAttempts\", \"message\", \"messages\", \"method\", \"notifyType\", \"options\", \"partialResult\", \"placeholder\", \"prefill\", \"reason\", \"result\", \"source\", \"statusKey\", \"statusText\", \"steering\", \"success\", \"text\", \"timeout\", \"title\", \"toolCallId\", \"toolName\", \"toolResults\", \"type\", \"widgetKey\", \"widgetLines\", \"widgetPlacement\", \"willRetry\"}\n",
                "        if record.get(\"type\") not in types or set(record) - fields:\n",
                "            raise ValueError(f\"unknown record type or field in {sorted(record)}\")\n",
            ),
        }],
        fails: STRICT_SCHEMA,
    },
    Broken {
        name: "python-exit-unnoticed",
        mistake: "does not notice that the agent exited",
        patches: &[
            Patch {
                file: PY,
                find: "    def _exited(self):\n",
                replace: "    def _exited(self):\n        return\n",
            },
            Patch {
                file: PY,
                find: "raise self._exit_error or AgentExited(self._process.poll(), self.stderr) from error",
                replace: "raise OSError(\"write failed\") from error",
            },
        ],
        fails: EXIT_UNNOTICED,
    },
    Broken {
        name: "python-answers-ui",
        mistake: "answers every extension UI request itself, cancelling it",
        patches: &[Patch {
            file: PY,
            find: PY_PARSED,
            replace: concat!(
                "            self._note(\"pi_rpc: skipped a JSON line that is not an object\")\n",
                "            return\n",
                "        if record.get(\"type\") == \"extension_ui_request\":\n",
                "            self.send({\"type\": \"extension_ui_response\", \"id\": record.get(\"id\"), \"cancelled\": True})\n",
            ),
        }],
        fails: ANSWERS_UI,
    },
    Broken {
        name: "python-ignores-records-before-a-command",
        mistake: "drops records that come before its first command",
        patches: &[
            Patch {
                file: PY,
                find: PY_PARSED,
                replace: concat!(
                    "            self._note(\"pi_rpc: skipped a JSON line that is not an object\")\n",
                    "            return\n",
                    "        if not getattr(self, \"_sent_any\", False):\n",
                    "            return\n",
                ),
            },
            Patch {
                file: PY,
                find: "        with self._write_lock:\n            if self._exit_error is not None:",
                replace: "        self._sent_any = True\n        with self._write_lock:\n            if self._exit_error is not None:",
            },
        ],
        fails: IGNORES_RECORDS_BEFORE_A_COMMAND,
    },
];

/// `import codecs` for the copies that decode text themselves.
const PY_IMPORT_CODECS: Patch = Patch {
    file: PY,
    find: "import itertools\n",
    replace: "import codecs\nimport itertools\n",
};
