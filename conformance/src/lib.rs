//! The scenario runner for pi's RPC mode.
//!
//! A scenario (YAML, see [`scenario`]) starts an agent process with a fresh scratch HOME, agent
//! dir and working folder and its own mock LLM, sends commands, and matches what the agent
//! writes on stdout (see [`pattern`] and [`expect`]). The runner treats the agent as a black box:
//! it judges the raw JSON and bytes a client would see.

pub mod agent;
pub mod baseline;
pub mod changes;
pub mod client;
pub mod coverage;
pub mod expect;
pub mod files;
pub mod load;
pub mod mock;
pub mod normalise;
pub mod output;
pub mod pattern;
pub mod record;
pub mod release;
pub mod report;
pub mod run;
pub mod scenario;
pub mod schema;
pub mod scratch;
pub mod standin;
pub mod suite;
pub mod transcript;
