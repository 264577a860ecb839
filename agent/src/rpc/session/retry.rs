//! The session's automatic retry decides with the failure classifier of the model layer.

pub(super) use crate::provider::failure::{is_context_overflow, is_retryable};
