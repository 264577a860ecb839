//! The scenario runner for pi's RPC mode.
