//! A scripted mock LLM server speaking the providers' real streaming wire formats.
