//! Wire types and strict JSONL framing for the RPC mode of the pi coding agent (pi 0.84.1).
//!
//! A client writes [`command::Request`]s, one JSON object per line, and reads back
//! [`response::Response`]s, [`event::Event`]s and [`extension_ui::ExtensionUiRequest`]s
//! ([`record::OutputRecord`]). Lines are framed by [`framing`]: LF only, never U+2028/U+2029.
//! Serialising with [`json::to_string`] (or [`framing::encode_record`]) gives the reference's
//! bytes exactly, key order included.
//!
//! The crate depends on serde only; the `tokio` feature adds async line I/O in [`io`].

pub mod command;
pub mod content;
pub mod event;
pub mod extension_ui;
pub mod framing;
pub mod id;
#[cfg(feature = "tokio")]
pub mod io;
pub mod json;
pub mod message;
pub mod model;
pub mod record;
pub mod response;
#[cfg(feature = "schema")]
pub mod schema;
pub mod session;
pub mod surrogates;
pub mod usage;

pub use command::{Command, CommandError, Incoming, Request, parse_line};
pub use event::{AssistantMessageEvent, Event};
pub use extension_ui::{ExtensionUiMethod, ExtensionUiRequest};
pub use framing::{FrameError, LineDecoder, encode_record};
pub use id::RequestId;
pub use message::AgentMessage;
pub use record::{OutputRecord, parse_output_line};
pub use response::Response;
