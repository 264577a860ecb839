#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_fuzz::mock_script_yaml(data));
