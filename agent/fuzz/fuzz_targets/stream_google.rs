#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_fuzz::stream("google-generative-ai", data));
