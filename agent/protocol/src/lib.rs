//! Wire types and strict JSONL framing for the RPC mode of the pi coding agent (pi 0.84.1).
