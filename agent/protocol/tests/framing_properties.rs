//! Property tests of the framing: chunking never changes the records, and Unicode separators
//! inside JSON strings never split one.

use pi_rpc_protocol::framing::{LineDecoder, LineResult, encode_record};
use proptest::prelude::*;

fn decode_in_chunks(bytes: &[u8], cuts: &[usize]) -> Vec<LineResult> {
    let mut decoder = LineDecoder::new();
    let mut out = Vec::new();
    let mut start = 0;
    let mut points: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
    points.sort_unstable();
    for point in points {
        decoder.decode_into(&bytes[start..point], &mut out);
        start = point;
    }
    decoder.decode_into(&bytes[start..], &mut out);
    out.extend(decoder.finish());
    out
}

/// Text rich in what breaks naive line readers: separators, CR, controls, multi-byte characters.
fn tricky_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("\u{2028}".to_owned()),
        Just("\u{2029}".to_owned()),
        Just("\u{85}".to_owned()),
        Just("\r".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("😀".to_owned()),
        Just("é".to_owned()),
        Just("\u{1b}[0m".to_owned()),
        any::<char>().prop_map(String::from),
        "[a-z ]{0,8}",
    ];
    prop::collection::vec(pieces, 0..12).prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn any_chunking_yields_the_same_records(
        texts in prop::collection::vec(tricky_text(), 1..8),
        crlf in any::<bool>(),
        unterminated_last in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for (index, text) in texts.iter().enumerate() {
            let record = serde_json::json!({ "type": "prompt", "message": text });
            let mut line = encode_record(&record).unwrap();
            expected.push(String::from_utf8(line[..line.len() - 1].to_vec()).unwrap());
            if crlf {
                line.insert(line.len() - 1, b'\r');
            }
            if unterminated_last && index == texts.len() - 1 {
                line.pop();
                if crlf {
                    line.pop();
                }
            }
            stream.extend_from_slice(&line);
        }
        let whole = decode_in_chunks(&stream, &[]);
        let chunked = decode_in_chunks(&stream, &cuts);
        prop_assert_eq!(&whole, &chunked);
        let lines: Vec<String> = chunked.into_iter().map(Result::unwrap).collect();
        prop_assert_eq!(lines, expected);
    }

    #[test]
    fn unicode_separators_inside_strings_never_split_a_record(
        before in "[a-z]{0,5}",
        after in "[a-z]{0,5}",
        separator in prop::sample::select(vec!['\u{2028}', '\u{2029}', '\u{85}']),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let text = format!("{before}{separator}{after}");
        let line = encode_record(&serde_json::json!({ "delta": text })).unwrap();
        // Written raw, never escaped: the separator's bytes are on the wire.
        let raw = separator.to_string();
        prop_assert!(line.windows(raw.len()).any(|w| w == raw.as_bytes()));
        let records = decode_in_chunks(&line, &cuts);
        prop_assert_eq!(records.len(), 1);
        let value: serde_json::Value = serde_json::from_str(records[0].as_ref().unwrap()).unwrap();
        prop_assert_eq!(value["delta"].as_str().unwrap(), text.as_str());
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_lose_nothing_after_an_lf(
        noise in prop::collection::vec(any::<u8>(), 0..256),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let mut stream = noise.clone();
        stream.extend_from_slice(b"\n{\"type\":\"get_state\"}\n");
        let records = decode_in_chunks(&stream, &cuts);
        let last = records.last().unwrap();
        prop_assert_eq!(last.as_deref(), Ok("{\"type\":\"get_state\"}"));
        let lfs = stream.iter().filter(|&&b| b == b'\n').count();
        prop_assert_eq!(records.len(), lfs);
    }
}

#[test]
fn a_hundred_megabyte_line_is_rejected_and_the_next_line_is_read() {
    let mut decoder = LineDecoder::new();
    let chunk = vec![b'x'; 1024 * 1024];
    let mut out = Vec::new();
    for _ in 0..100 {
        decoder.decode_into(&chunk, &mut out);
        assert!(decoder.buffered_bytes() <= decoder.max_line_bytes() + 1);
    }
    decoder.decode_into(b"\n{\"type\":\"get_state\"}\n", &mut out);
    assert_eq!(out.len(), 2);
    assert!(matches!(
        &out[0],
        Err(pi_rpc_protocol::FrameError::LineTooLong { line_bytes, .. }) if *line_bytes == 100 * 1024 * 1024
    ));
    assert_eq!(out[1].as_deref(), Ok("{\"type\":\"get_state\"}"));
}
