//! Byte-level shaping of a rendered stream: framing events into writes (SSE text or binary
//! event-stream messages, line endings, comments, splits, omissions), and placing faults and
//! pacing among the writes.

use std::time::Duration;

use bytes::Bytes;

use super::bedrock::FrameKind;
use super::{Ev, Step, errors, eventstream};
use crate::format::{Family, Format};
use crate::request::RequestInfo;
use crate::script::{FaultKind, Framing, LineEnding, Response};

/// Inserts the response's fault and pacing into a streamed body.
pub(super) fn with_fault_and_pace(
    request: &RequestInfo,
    response: &Response,
    framing: &Framing,
    mut body: Vec<Step>,
) -> Vec<Step> {
    if let Some(fault) = &response.fault {
        let writes = body.iter().filter(|s| matches!(s, Step::Write(_))).count();
        let fault_steps = match fault.kind {
            FaultKind::Error => {
                let sequence = fault
                    .after_chunks
                    .unwrap_or(writes.saturating_sub(1))
                    .min(writes);
                let event = errors::in_band(request.format, request.index, sequence, fault);
                frame(request.format, &[event], framing)
            }
            FaultKind::Drop => vec![Step::Drop],
            FaultKind::Reset => vec![Step::Reset],
            FaultKind::Stall => match fault.stall_ms {
                Some(ms) => vec![Step::Sleep(Duration::from_millis(ms))],
                None => vec![Step::StallForever],
            },
        };
        body = insert_fault(body, fault.after_chunks, fault.kind, fault_steps);
    }
    let pace = response
        .tokens_per_second
        .map(|tps| Duration::from_secs_f64(1.0 / tps))
        .or(response.chunk_delay_ms.map(Duration::from_millis));
    if let Some(pace) = pace {
        body = paced(body, pace);
    }
    body
}

/// Puts the fault after `after` writes; without `after`, an error or stall goes just before the
/// stream's last write (its terminator) and a drop or reset at the very end.
fn insert_fault(
    body: Vec<Step>,
    after: Option<usize>,
    kind: FaultKind,
    fault: Vec<Step>,
) -> Vec<Step> {
    let writes = body.iter().filter(|s| matches!(s, Step::Write(_))).count();
    let after = after.unwrap_or(match kind {
        FaultKind::Error | FaultKind::Stall => writes.saturating_sub(1),
        FaultKind::Drop | FaultKind::Reset => writes,
    });
    let ends = !matches!(kind, FaultKind::Stall);
    let mut out = Vec::with_capacity(body.len() + fault.len());
    let mut written = 0;
    let mut inserted = false;
    for step in body {
        if !inserted && written == after {
            out.extend(fault.iter().cloned());
            inserted = true;
            if ends {
                return out;
            }
        }
        if matches!(step, Step::Write(_)) {
            written += 1;
        }
        out.push(step);
    }
    if !inserted {
        out.extend(fault);
    }
    out
}

/// Inserts a pause between consecutive writes.
fn paced(body: Vec<Step>, pace: Duration) -> Vec<Step> {
    let mut out = Vec::with_capacity(body.len() * 2);
    let mut seen_write = false;
    for step in body {
        if matches!(step, Step::Write(_)) {
            if seen_write {
                out.push(Step::Sleep(pace));
            }
            seen_write = true;
        }
        out.push(step);
    }
    out
}

/// Frames logical events into body writes: SSE text for every format but Bedrock, whose
/// events are binary event-stream messages (line endings, comments, `event:` lines and
/// multi-line data do not apply to them).
pub(crate) fn frame(format: Format, events: &[Ev], framing: &Framing) -> Vec<Step> {
    let eol = match framing.line_ending {
        Some(LineEnding::Lf) => "\n",
        Some(LineEnding::Crlf) => "\r\n",
        Some(LineEnding::Cr) => "\r",
        None if format.family() == Family::Gemini => "\r\n",
        None => "\n",
    };
    let mut out = Vec::with_capacity(events.len());
    for ev in events {
        let bytes = match ev {
            Ev::Gate(name) => {
                out.push(Step::Gate(name.clone()));
                continue;
            }
            Ev::Pause(ms) => {
                out.push(Step::Sleep(Duration::from_millis(*ms)));
                continue;
            }
            Ev::Frame { tag, .. } | Ev::Event { tag, .. }
                if framing.omit.iter().any(|o| o == tag) =>
            {
                continue;
            }
            Ev::Frame { kind, payload, .. } => {
                let bad = framing.bad_crc.filter(|_| {
                    framing
                        .bad_crc_event
                        .as_ref()
                        .is_none_or(|event| ev.tag() == event)
                });
                Bytes::from(match kind {
                    FrameKind::Event(event_type) => eventstream::event(event_type, payload, bad),
                    FrameKind::Exception(exception_type) => {
                        eventstream::exception(exception_type, payload, bad)
                    }
                })
            }
            Ev::Event { name, data, .. } => Bytes::from(sse_text(*name, data, framing, eol)),
        };
        match framing.split_bytes {
            Some(size) if size > 0 => {
                let mut start = 0;
                while start < bytes.len() {
                    let end = (start + size).min(bytes.len());
                    out.push(Step::Write(bytes.slice(start..end)));
                    start = end;
                }
            }
            _ => out.push(Step::Write(bytes)),
        }
    }
    if framing.coalesce {
        out = coalesce(out);
    }
    out
}

/// One SSE event as text: the comment, `event:` line and `data:` lines the framing asks for.
fn sse_text(name: Option<&'static str>, data: &str, framing: &Framing, eol: &str) -> String {
    let mut text = String::with_capacity(data.len() + 32);
    if let Some(comment) = &framing.comment {
        text.push_str(comment);
        text.push_str(eol);
    }
    if let Some(name) = name
        && !framing.no_event_lines
    {
        text.push_str("event: ");
        text.push_str(name);
        text.push_str(eol);
    }
    if framing.multiline_data {
        for line in multiline(data) {
            text.push_str("data: ");
            text.push_str(&line);
            text.push_str(eol);
        }
    } else {
        text.push_str("data: ");
        text.push_str(data);
        text.push_str(eol);
    }
    text.push_str(eol);
    text
}

/// Re-serialises JSON text pretty-printed, one line per `data:` field.
fn multiline(data: &str) -> Vec<String> {
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(value) => serde_json::to_string_pretty(&value)
            .unwrap_or_else(|_| data.to_owned())
            .lines()
            .map(str::to_owned)
            .collect(),
        Err(_) => vec![data.to_owned()],
    }
}

/// Merges consecutive writes into one.
fn coalesce(steps: Vec<Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    for step in steps {
        match step {
            Step::Write(bytes) => pending.extend_from_slice(&bytes),
            other => {
                if !pending.is_empty() {
                    out.push(Step::Write(Bytes::from(std::mem::take(&mut pending))));
                }
                out.push(other);
            }
        }
    }
    if !pending.is_empty() {
        out.push(Step::Write(Bytes::from(pending)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> Step {
        Step::Write(Bytes::from(text.to_owned()))
    }

    #[test]
    fn a_fault_goes_after_the_given_number_of_writes() {
        let body = vec![write("a"), Step::Gate("g".into()), write("b"), write("c")];
        let out = insert_fault(body.clone(), Some(2), FaultKind::Drop, vec![Step::Drop]);
        assert_eq!(
            out,
            vec![write("a"), Step::Gate("g".into()), write("b"), Step::Drop]
        );
        let out = insert_fault(body.clone(), None, FaultKind::Error, vec![write("E")]);
        assert_eq!(
            out,
            vec![write("a"), Step::Gate("g".into()), write("b"), write("E")]
        );
        let pause = Step::Sleep(Duration::from_millis(5));
        let out = insert_fault(body.clone(), Some(1), FaultKind::Stall, vec![pause.clone()]);
        assert_eq!(
            out,
            vec![
                write("a"),
                pause,
                Step::Gate("g".into()),
                write("b"),
                write("c")
            ]
        );
        let out = insert_fault(body, Some(9), FaultKind::Reset, vec![Step::Reset]);
        assert_eq!(out.last(), Some(&Step::Reset));
    }

    #[test]
    fn pacing_puts_a_pause_between_writes_only() {
        let pace = Duration::from_millis(3);
        let out = paced(vec![write("a"), write("b")], pace);
        assert_eq!(out, vec![write("a"), Step::Sleep(pace), write("b")]);
    }

    #[test]
    fn framing_omits_comments_and_coalesces() {
        let events = vec![
            Ev::event("one", "{}".into()),
            Ev::event("two", "[]".into()),
            Ev::data("done", "[DONE]".into()),
        ];
        let framing = Framing {
            comment: Some(": hi".into()),
            omit: vec!["two".into()],
            coalesce: true,
            ..Framing::default()
        };
        let out = frame(Format::Anthropic, &events, &framing);
        assert_eq!(
            out,
            vec![write(
                ": hi\nevent: one\ndata: {}\n\n: hi\ndata: [DONE]\n\n"
            )]
        );
        let out = frame(Format::Gemini, &events[2..], &Framing::default());
        assert_eq!(out, vec![write("data: [DONE]\r\n\r\n")]);
    }
}
