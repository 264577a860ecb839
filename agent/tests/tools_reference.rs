//! Runs the same tool calls through our tools and through the reference pi's own tool code
//! (its JavaScript, run by its Node.js) on identical fixture folders, and compares the results
//! a client would see: content, details, isError and the streamed partial results.
//!
//! Needs the reference installed (`conformance/reference/install.sh`); without it the test says
//! so and checks nothing.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

mod tools_common;

use std::path::Path;

use serde_json::{Value, json};
use tools_common::encoded_image;
use tools_common::reference::assert_same;

const PNG_3X2: &str = "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAJUlEQVR4AQEaAOX/AMgAHv/IAR7/yAIe/wDIAx7/yAQe/8gFHv+SFwtuewqJWQAAAABJRU5ErkJggg==";
const WEBP_3X2: &str = "UklGRpoAAABXRUJQVlA4TI4AAAAvAkAAEM1VICICHggkAAAAAIAWAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADQAAOCBSAAAAAAAnD8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADAAAAAAAAAsDwQCQAAAACA8wcAAAAGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAViQ18g8A";
const GIF_1X1: &str = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

fn decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

/// The files every run starts from.
fn make_fixture(dir: &Path) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).unwrap();
    }
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    write("small.txt", b"line1\nline2\nline3\n");
    write("nonl.txt", b"alpha\nbeta");
    write("empty.txt", b"");
    let many: String = (1..=2500).map(|n| format!("line {n}\n")).collect();
    write("many.txt", many.as_bytes());
    let wide: String = (1..=1000)
        .map(|n| format!("{n:04} {}\n", "x".repeat(95)))
        .collect();
    write("wide.txt", wide.as_bytes());
    write(
        "long-line.txt",
        format!("short\n{}\nafter\n", "y".repeat(60_000)).as_bytes(),
    );
    write("utf8.txt", "héllo wörld\n😀 emoji\n".as_bytes());
    write("invalid.txt", b"ok \xff\xfe bytes\n");
    write("bom.txt", "\u{feff}first\nsecond\n".as_bytes());
    write("crlf.txt", b"one\r\ntwo\r\nthree\r\n");
    write("dup.txt", b"same\nother\nsame\n");
    write(
        "fuzzy.txt",
        "say \u{201c}hi\u{201d}   \nkeep \u{2014} this\n".as_bytes(),
    );
    let code: String = (1..=30).map(|n| format!("fn f{n}() {{}}\n")).collect();
    write("code.rs", code.as_bytes());
    write("image.png", &decode(PNG_3X2));
    write("image.webp", &decode(WEBP_3X2));
    write("image.gif", &decode(GIF_1X1));
    write("fake.png", b"\x89PNG\r\n\x1a\nnot really");
    write("file.txt", b"x");
    write(
        "spaces.txt",
        "tab\tend  \nnbsp\u{a0}here\n\u{ff21}\u{ff22} wide\n".as_bytes(),
    );
    write("crlf-fuzzy.txt", "it\u{2019}s  \r\nplain\r\n".as_bytes());
    write("Shot 10.00.00\u{202f}PM.txt", b"screenshot\n");
    write("a b.txt", b"space name\n");
    let lines = |count: usize| -> String { (1..=count).map(|n| format!("{n}\n")).collect() };
    write("2000.txt", lines(2000).as_bytes());
    write("2001.txt", lines(2001).as_bytes());
    write("51200.txt", "z".repeat(51_200).as_bytes());
    write("51201.txt", format!("{}\n", "z".repeat(51_200)).as_bytes());
    let near: String = (0..512).map(|_| format!("{}\n", "w".repeat(99))).collect();
    write("near.txt", near.as_bytes());
}

fn cases() -> Vec<Value> {
    let call = |tool: &str, args: Value| json!({ "tool": tool, "args": args });
    let edit = |path: &str, old: &str, new: &str| {
        call(
            "edit",
            json!({ "path": path, "edits": [{ "oldText": old, "newText": new }] }),
        )
    };
    vec![
        // Unknown tools and argument validation.
        call("nosuch", json!({ "pattern": "x" })),
        call("read", json!({})),
        call("read", json!({ "path": 5 })),
        call("read", json!({ "path": "small.txt", "offset": "2" })),
        call(
            "read",
            json!({ "path": "small.txt", "offset": "abc", "limit": [] }),
        ),
        call("read", json!([])),
        call("write", json!({})),
        call("write", json!({ "path": [], "content": {} })),
        call("edit", json!({ "edits": [{}, { "oldText": 1 }] })),
        call("edit", json!({ "path": "small.txt", "edits": "not json" })),
        call("edit", json!({ "path": "small.txt", "edits": [] })),
        call("bash", json!({ "command": "echo x", "timeout": "soon" })),
        // read: text, offsets, limits, truncation.
        call("read", json!({ "path": "small.txt" })),
        call("read", json!({ "path": "nonl.txt" })),
        call("read", json!({ "path": "empty.txt" })),
        call(
            "read",
            json!({ "path": "small.txt", "offset": 2, "limit": 1 }),
        ),
        call("read", json!({ "path": "small.txt", "offset": 4 })),
        call("read", json!({ "path": "small.txt", "offset": 5 })),
        call(
            "read",
            json!({ "path": "small.txt", "offset": 0, "limit": 2 }),
        ),
        call("read", json!({ "path": "small.txt", "limit": -1 })),
        call("read", json!({ "path": "small.txt", "offset": 1.5 })),
        call("read", json!({ "path": "many.txt" })),
        call("read", json!({ "path": "many.txt", "offset": 2001 })),
        call(
            "read",
            json!({ "path": "many.txt", "offset": 100, "limit": 10 }),
        ),
        call("read", json!({ "path": "wide.txt" })),
        call("read", json!({ "path": "wide.txt", "offset": 990 })),
        call("read", json!({ "path": "long-line.txt" })),
        call("read", json!({ "path": "long-line.txt", "offset": 2 })),
        call("read", json!({ "path": "utf8.txt" })),
        call("read", json!({ "path": "invalid.txt" })),
        call("read", json!({ "path": "bom.txt" })),
        call("read", json!({ "path": "./sub/../small.txt" })),
        call("read", json!({ "path": "@small.txt" })),
        call("read", json!({ "path": "missing.txt" })),
        call("read", json!({ "path": "sub" })),
        call("read", json!({ "path": "image.png" })),
        call("read", json!({ "path": "image.webp" })),
        call("read", json!({ "path": "image.gif" })),
        call("read", json!({ "path": "fake.png" })),
        // write.
        call(
            "write",
            json!({ "path": "new/deep/file.txt", "content": "héllo 😀\n" }),
        ),
        call("write", json!({ "path": "small.txt", "content": "" })),
        call(
            "write",
            json!({ "path": "file.txt/child.txt", "content": "x" }),
        ),
        call("write", json!({ "path": "sub", "content": "x" })),
        // edit.
        edit("code.rs", "fn f15() {}", "fn f15() { todo!() }"),
        edit("nonl.txt", "beta", "gamma"),
        edit("crlf.txt", "two\nthree", "2\n3"),
        edit("bom.txt", "second", "2nd"),
        edit("dup.txt", "same", "x"),
        edit("small.txt", "absent", "x"),
        edit("small.txt", "", "x"),
        edit("small.txt", "line2", "line2"),
        edit("fuzzy.txt", "say \"hi\"", "say \"bye\""),
        edit("missing.txt", "a", "b"),
        edit("sub", "a", "b"),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [
            { "oldText": "fn f2() {}", "newText": "fn two() {}" },
            { "oldText": "fn f20() {}", "newText": "" },
            { "oldText": "fn f29() {}\nfn f30() {}\n", "newText": "fn end() {}\n" }
        ] }),
        ),
        call(
            "edit",
            json!({ "path": "small.txt", "edits": [
            { "oldText": "line1\nline2", "newText": "a" },
            { "oldText": "line2\nline3", "newText": "b" }
        ] }),
        ),
        call(
            "edit",
            json!({ "path": "small.txt", "edits": [
            { "oldText": "line1", "newText": "a" },
            { "oldText": "nope", "newText": "b" }
        ] }),
        ),
        call(
            "edit",
            json!({ "path": "dup.txt", "oldText": "other", "newText": "middle" }),
        ),
        call(
            "edit",
            json!({ "path": "utf8.txt", "edits": "[{\"oldText\":\"😀\",\"newText\":\"🙂\"}]" }),
        ),
        // bash.
        call("bash", json!({ "command": "echo hi" })),
        call("bash", json!({ "command": "true" })),
        call("bash", json!({ "command": "exit 3" })),
        call("bash", json!({ "command": "echo out; exit 2" })),
        call("bash", json!({ "command": "printf 'a\\nb'" })),
        call("bash", json!({ "command": "pwd; ls small.txt" })),
        call(
            "bash",
            json!({ "command": "printf '\\033[31mred\\033[0m \\xff\\xfe end'" }),
        ),
        call("bash", json!({ "command": "printf '\\xef\\xbb\\xbfbom'" })),
        call("bash", json!({ "command": "kill -9 $$" })),
        call("bash", json!({ "command": "echo x", "timeout": 0 })),
        call("bash", json!({ "command": "echo x", "timeout": 3_000_000 })),
        call(
            "bash",
            json!({ "command": "echo started; sleep 5", "timeout": 0.3 }),
        ),
        json!({ "tool": "bash", "args": { "command": "echo begun; sleep 5" }, "abortAfterMs": 300 }),
        call("bash", json!({ "command": "seq 1 3000" })),
        call("bash", json!({ "command": "seq 1 3000; exit 4" })),
        call(
            "bash",
            json!({ "command": "head -c 60000 /dev/zero | tr '\\0' a" }),
        ),
        call(
            "bash",
            json!({ "command": "head -c 60000 /dev/zero | tr '\\0' a; echo" }),
        ),
        call(
            "bash",
            json!({ "command": "for i in $(seq 1 700); do printf '%0100d\\n' $i; done" }),
        ),
        call(
            "bash",
            json!({ "command": "head -c 70000 /dev/zero | tr '\\0' b; printf '\\nlast'" }),
        ),
        call("bash", json!({ "command": "echo to-stderr >&2" })),
        call("bash", json!({ "command": "echo \"$PATH\" | cut -d: -f1" })),
        call("bash", json!({ "command": "sleep 5", "timeout": 1 })),
        call("bash", json!({ "command": "exit 1", "timeout": "2" })),
        call("bash", json!({ "command": "echo x", "timeout": -1 })),
        call("bash", json!({ "command": 42 })),
        call(
            "bash",
            json!({ "command": "(sleep 0.3; echo late) & echo early" }),
        ),
        // More reads.
        call("read", json!({ "path": "small.txt", "limit": 0 })),
        call("read", json!({ "path": "small.txt", "limit": 2.5 })),
        call("read", json!({ "path": "small.txt", "offset": -3 })),
        call("read", json!({ "path": "small.txt", "offset": 1e21 })),
        call(
            "read",
            json!({ "path": "small.txt", "offset": true, "limit": null }),
        ),
        call("read", json!({ "path": "Shot 10.00.00 PM.txt" })),
        call("read", json!({ "path": "a\u{a0}b.txt" })),
        call("read", json!({ "path": "file://WORKDIR/small.txt" })),
        call("read", json!({ "path": "WORKDIR/sub/../small.txt" })),
        call(
            "read",
            json!({ "path": "~/definitely-missing-file-for-pi-tests" }),
        ),
        call("read", json!({ "path": "" })),
        call("read", json!({ "path": "small.txt/child" })),
        call(
            "read",
            json!({ "path": "small.txt", "offset": 4, "limit": 1 }),
        ),
        call("read", json!({ "path": "2000.txt" })),
        call("read", json!({ "path": "2001.txt" })),
        call("read", json!({ "path": "2001.txt", "offset": 2 })),
        call("read", json!({ "path": "51200.txt" })),
        call("read", json!({ "path": "51201.txt" })),
        call("read", json!({ "path": "near.txt" })),
        call("read", json!({ "path": "near.txt", "limit": 600 })),
        call("bash", json!({ "command": "seq 1 2000" })),
        call("bash", json!({ "command": "seq 1 2001" })),
        call(
            "bash",
            json!({ "command": "head -c 51200 /dev/zero | tr '\\0' a" }),
        ),
        call(
            "bash",
            json!({ "command": "head -c 51201 /dev/zero | tr '\\0' a" }),
        ),
        call("bash", json!({ "command": "cat near.txt" })),
        call("bash", json!({ "command": "cat near.txt near.txt" })),
        call(
            "bash",
            json!({ "command": "head -c 30001 /dev/zero | tr '\\0' x | sed 's/x/é/g'" }),
        ),
        call(
            "bash",
            json!({ "command": "head -c 300000 /dev/zero | tr '\\0' q; echo; seq 1 10" }),
        ),
        // More edits, tolerant matching.
        edit("spaces.txt", "tab\tend\nnbsp here", "changed"),
        edit("spaces.txt", "AB wide", "ab narrow"),
        edit("crlf-fuzzy.txt", "it's\nplain", "it is\nplain"),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [
            { "oldText": "fn f3() {}", "newText": "fn three() {}" },
            { "oldText": "fn f3() {}", "newText": "fn again() {}" }
        ] }),
        ),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [
            { "oldText": "fn f4() {}", "newText": "fn f4() {}" },
            { "oldText": "fn f5() {}", "newText": "fn f5() {}" }
        ] }),
        ),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [{ "oldText": "", "newText": "x" }, { "oldText": "f6", "newText": "g6" }] }),
        ),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [{ "oldText": "fn f", "newText": "x" }, { "oldText": "f7", "newText": "g7" }] }),
        ),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [{ "oldText": "fn f7() {}\n", "newText": "" }] }),
        ),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [{ "oldText": "fn f1() {}\n", "newText": "// top\nfn f1() {}\n" }] }),
        ),
        call(
            "edit",
            json!({ "path": "code.rs", "edits": [{ "oldText": "  ", "newText": "x" }] }),
        ),
        call("write", json!({ "path": "code.rs", "content": 12.5 })),
        call("write", json!({ "path": "~/../../../..", "content": "x" })),
    ]
}

#[test]
fn tools_give_the_reference_results_for_the_same_calls() {
    let cases = cases();
    assert_same(&cases, make_fixture, false, "cases");
}

/// A small deterministic generator (xorshift) for reproducible random files.
struct Random(u64);

impl Random {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }

    /// Lines drawn from a tiny alphabet, so that diffs have many equally short alignments.
    fn text(&mut self) -> String {
        let count = self.next(14);
        let mut text: String = (0..count)
            .map(|_| ["a", "b", "c", "a b", ""][self.next(5) as usize].to_string() + "\n")
            .collect();
        if self.next(3) == 0 {
            text.push_str("end");
        }
        text
    }
}

#[test]
fn edit_diffs_and_patches_align_changes_as_the_reference_does() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let pairs: Vec<(String, String)> = (0..150)
        .map(|_| {
            loop {
                let (old, new) = (random.text(), random.text());
                if !old.is_empty() && old != new {
                    break (old, new);
                }
            }
        })
        .collect();
    let cases: Vec<Value> = pairs
        .iter()
        .enumerate()
        .map(|(index, (old, new))| {
            json!({ "tool": "edit", "args": { "path": format!("f{index}.txt"), "edits": [{ "oldText": old, "newText": new }] } })
        })
        .collect();
    let make = |dir: &Path| {
        if dir.exists() {
            std::fs::remove_dir_all(dir).unwrap();
        }
        std::fs::create_dir_all(dir).unwrap();
        for (index, (old, _)) in pairs.iter().enumerate() {
            std::fs::write(dir.join(format!("f{index}.txt")), old).unwrap();
        }
    };
    assert_same(&cases, make, false, "diffs");
}

#[test]
fn images_that_must_be_converted_or_shrunk_get_the_reference_notes() {
    use image::ImageFormat::{Bmp, Jpeg, Png};
    let files = [
        ("wide.png", encoded_image(2100, 10, Png)),
        ("tall.jpg", encoded_image(30, 2600, Jpeg)),
        ("small.bmp", encoded_image(3, 2, Bmp)),
        ("big.bmp", encoded_image(2400, 20, Bmp)),
        ("square.png", encoded_image(2000, 2000, Png)),
    ];
    let cases: Vec<Value> = files
        .iter()
        .map(|(name, _)| json!({ "tool": "read", "args": { "path": name } }))
        .collect();
    let make = |dir: &Path| {
        if dir.exists() {
            std::fs::remove_dir_all(dir).unwrap();
        }
        std::fs::create_dir_all(dir).unwrap();
        for (name, bytes) in &files {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    };
    assert_same(&cases, make, true, "image reads");
}
