//! Input lines: each parsed and answered, and the lines of one read of stdin handled one after
//! another before anything else, as the reference handles one chunk of its input. `steer` and
//! `follow_up` among them announce their queue at once and answer after the read's last line
//! (two steers arriving together: both `queue_update` records, then both responses).

use pi_rpc_protocol::framing::LineResult;
use pi_rpc_protocol::{RequestId, Response, parse_line};
use tokio::sync::mpsc;

use super::{Actor, State};
use crate::rpc::InputLine;

impl Actor {
    /// Handles `first` and the lines that arrived in the same read.
    pub(super) async fn on_input(
        &mut self,
        first: InputLine,
        lines: &mut mpsc::Receiver<InputLine>,
    ) {
        let mut input = first;
        loop {
            let more = input.more_in_read;
            self.state.on_read_line(input);
            // Each line's effects are performed before the next line is read, as each line's
            // records were written before: the outbox holds one line's records at most.
            self.flush().await;
            if !more
                || self.output.is_closed()
                || !self.state.gates().lines
                || self.state.shutdown_due()
            {
                break;
            }
            match lines.recv().await {
                Some(next) => input = next,
                None => break,
            }
        }
        self.state.end_of_read();
    }
}

impl State {
    /// One line of a read; while more lines of the read follow, the answers of `steer` and
    /// `follow_up` wait for its end ([`State::end_of_read`]).
    pub(super) fn on_read_line(&mut self, input: InputLine) {
        if input.more_in_read && self.held_answers.is_none() {
            self.held_answers = Some(Vec::new());
        }
        self.on_line(input.line);
    }

    /// Writes the answer of a `steer` or `follow_up`: now, or after the read's last line.
    pub(super) fn answer_queued(&mut self, id: Option<RequestId>, kind: &str) {
        let response = self
            .release
            .accepted(id, kind, crate::release::Disposition::Queued);
        match (
            &mut self.held_answers,
            pi_rpc_protocol::encode_record(&response),
        ) {
            (Some(held), Ok(line)) => held.extend_from_slice(&line),
            _ => self.write(response),
        }
    }

    /// The read's last line was handled (or a line closed the loop's gate for lines): the
    /// answers held back are written.
    pub(super) fn end_of_read(&mut self) {
        if let Some(held) = self.held_answers.take().filter(|held| !held.is_empty()) {
            self.outbox.push(super::outbox::Effect::Lines(held));
        }
    }

    fn on_line(&mut self, line: LineResult) {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                let message = format!("Failed to parse command: {error}");
                self.write(Response::error(None, Some("parse"), message));
                return;
            }
        };
        match parse_line(&line) {
            Ok(pi_rpc_protocol::Incoming::Request(request)) => {
                self.handle_command(request);
                self.command_handled();
            }
            Ok(pi_rpc_protocol::Incoming::ExtensionUiResponse(response)) => {
                self.answer_extension_dialog(response);
            }
            Err(pi_rpc_protocol::CommandError::MissingType { id }) => {
                self.answer_missing_type(&line, id);
            }
            Err(error) => {
                let response =
                    Response::error(error.id().cloned(), error.command(), error.to_string());
                self.write(response);
            }
        }
    }

    /// An object without a string `type`. A `type` of another kind (`5`, `null`) is echoed in
    /// `command` and named in the error, as the reference does; a missing one is said to be
    /// missing.
    fn answer_missing_type(&mut self, line: &str, id: Option<RequestId>) {
        let kind = pi_rpc_protocol::surrogates::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|value| value.get("type").cloned());
        let Some(kind) = kind else {
            let error = pi_rpc_protocol::CommandError::MissingType { id: id.clone() };
            self.write(Response::error(id, None, error.to_string()));
            return;
        };
        let mut response = serde_json::Map::new();
        if let Some(id) = id {
            response.insert("id".into(), serde_json::to_value(id).unwrap_or_default());
        }
        response.insert("type".into(), "response".into());
        let message = format!("Unknown command: {}", crate::js::display(Some(&kind)));
        response.insert("command".into(), kind);
        response.insert("success".into(), false.into());
        response.insert("error".into(), message.into());
        self.write(serde_json::Value::Object(response));
    }
}
