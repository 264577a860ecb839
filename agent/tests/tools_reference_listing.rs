//! Runs the same `grep`, `find` and `ls` calls through our tools and through the reference
//! pi's own tool code on an identical fixture folder, and compares the results a client would
//! see. Needs the reference installed (`conformance/reference/install.sh`) and, for its `grep`
//! and `find`, `rg` and `fd`; without them the test says so and checks what it can.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

mod tools_common;

use std::path::Path;

use serde_json::{Value, json};
use tools_common::reference::assert_same;

/// Whether a program answers `--version` (the reference's `grep` needs `rg`, its `find` `fd`).
fn installed(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

/// The files of the `grep`, `find` and `ls` cases. The folder is a git repository (an empty
/// `.git`): outside one, the reference passes `--no-require-git`, which older `fd` lack.
fn make_listing_fixture(dir: &Path) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).unwrap();
    }
    for folder in [
        ".git",
        "src/deep",
        "build",
        ".hidden",
        "names/sub",
        "empty",
        "wide",
    ] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    write(".gitignore", b"ignored.txt\nbuild/\n");
    write("ignored.txt", b"needle\n");
    write("build/out.txt", b"needle\n");
    write(".hidden/secret.txt", b"needle hidden\n");
    write(
        "src/main.rs",
        b"fn main() {\n    println!(\"needle\");\n}\n",
    );
    write("src/lib.rs", b"// Needle in caps\npub fn x() {}\n");
    write("src/deep/mod.rs", b"needle\r\nsecond\r\n");
    let notes: String = (1..=30)
        .map(|n| {
            if n % 10 == 0 {
                format!("note {n} needle\n")
            } else {
                format!("note {n}\n")
            }
        })
        .collect();
    write("notes.md", notes.as_bytes());
    write(
        "long.txt",
        format!("needle {}\n", "x".repeat(600)).as_bytes(),
    );
    write("bin.dat", b"needle\0binary\n");
    write("bad.txt", b"needle \xff here\n");
    let many: String = (1..=150).map(|n| format!("needle {n}\n")).collect();
    write("many.txt", many.as_bytes());
    let big: String = (1..=2000)
        .map(|n| format!("{n:05} needle {}\n", "b".repeat(50)))
        .collect();
    write("big.txt", big.as_bytes());
    for name in [
        "B.txt",
        "a.txt",
        "_under",
        "-dash",
        "10",
        "9",
        "Zeta",
        "\u{e9}t\u{e9}",
        "a b",
        ".dot",
    ] {
        write(&format!("names/{name}"), b"x\n");
    }
    std::os::unix::fs::symlink("../src", dir.join("names/linkdir")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.join("names/dangling")).unwrap();
    for n in 0..600 {
        write(&format!("wide/f{n:04}.txt"), b"");
    }
}

fn listing_cases(with_grep: bool, with_find: bool) -> Vec<Value> {
    let call = |tool: &str, args: Value| json!({ "tool": tool, "args": args });
    let sorted = |tool: &str, args: Value| json!({ "tool": tool, "args": args, "sortLines": true });
    let mut cases = vec![
        call("ls", json!({})),
        call("ls", json!({ "path": "names" })),
        call("ls", json!({ "path": "names", "limit": 3 })),
        call("ls", json!({ "path": "names", "limit": 0 })),
        call("ls", json!({ "path": "names", "limit": 2.5 })),
        call("ls", json!({ "path": "names", "limit": "4" })),
        call("ls", json!({ "path": "" })),
        call("ls", json!({ "path": "empty" })),
        call("ls", json!({ "path": "missing" })),
        call("ls", json!({ "path": "notes.md" })),
        call("ls", json!({ "path": "wide" })),
        call("ls", json!({ "path": "wide", "limit": 600 })),
        call("ls", json!({ "path": 7 })),
        call("ls", json!({ "limit": [] })),
    ];
    if with_grep {
        cases.extend([
            // Matches in every kind of file, within the default limit: which 100 of more
            // matches the reference returns depends on how its parallel search runs.
            sorted(
                "grep",
                json!({ "pattern": "hidden|println|Needle|second|needle$" }),
            ),
            sorted(
                "grep",
                json!({ "pattern": "needle", "limit": 1000, "glob": "!*.txt" }),
            ),
            sorted("grep", json!({ "pattern": "needle", "path": "src" })),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "src/main.rs" }),
            ),
            sorted(
                "grep",
                json!({ "pattern": "NEEDLE", "ignoreCase": true, "path": "src" }),
            ),
            sorted("grep", json!({ "pattern": "needle", "glob": "*.rs" })),
            sorted(
                "grep",
                json!({ "pattern": "needle", "glob": "src/**/*.rs" }),
            ),
            call("grep", json!({ "pattern": "println!(", "literal": true })),
            call("grep", json!({ "pattern": "println!(" })),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "notes.md", "context": 2 }),
            ),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "notes.md", "context": 1, "limit": 1 }),
            ),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "notes.md", "limit": 0 }),
            ),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "many.txt", "limit": 5 }),
            ),
            call("grep", json!({ "pattern": "needle", "path": "many.txt" })),
            call("grep", json!({ "pattern": "needle", "path": "long.txt" })),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "big.txt", "limit": 2000 }),
            ),
            call("grep", json!({ "pattern": "no such text" })),
            call("grep", json!({ "pattern": "x", "path": "missing" })),
            call("grep", json!({ "pattern": "needle", "path": "bad.txt" })),
            call("grep", json!({ "pattern": "second", "path": "src/deep" })),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "src", "ignoreCase": "yes" }),
            ),
            call(
                "grep",
                json!({ "pattern": "needle", "path": "src/main.rs", "ignoreCase": "1" }),
            ),
            call("grep", json!({ "path": "src" })),
            call("grep", json!({ "pattern": "needle", "path": "bin.dat" })),
            call(
                "grep",
                json!({ "pattern": "note 1$", "path": "notes.md", "context": 3 }),
            ),
            call(
                "grep",
                json!({ "pattern": "NEEDLE IN", "path": "src", "literal": true, "ignoreCase": true }),
            ),
            sorted("grep", json!({ "pattern": "^$|^pub", "path": "src" })),
            call("grep", json!({ "pattern": "x", "glob": "[" })),
        ]);
    }
    if with_find {
        cases.extend([
            sorted("find", json!({ "pattern": "*.rs" })),
            call("find", json!({ "pattern": "*.RS" })),
            sorted("find", json!({ "pattern": "src/**/*.rs" })),
            call("find", json!({ "pattern": "*.txt", "path": "src" })),
            sorted("find", json!({ "pattern": "*", "path": "names" })),
            sorted("find", json!({ "pattern": "*.txt", "path": "names" })),
            call("find", json!({ "pattern": "*.md", "limit": 1 })),
            call("find", json!({ "pattern": "x", "path": "missing" })),
            call("find", json!({ "pattern": "x", "path": "notes.md" })),
            sorted("find", json!({ "pattern": "secret*" })),
            call("find", json!({ "path": "src" })),
            sorted("find", json!({ "pattern": "**", "path": "src" })),
            sorted("find", json!({ "pattern": "deep/*", "path": "src" })),
            sorted("find", json!({ "pattern": "", "path": "src" })),
            sorted("find", json!({ "pattern": "{main,lib}.rs" })),
            call("find", json!({ "pattern": "[" })),
        ]);
    }
    cases
}

#[test]
fn grep_find_and_ls_give_the_reference_results_for_the_same_calls() {
    let with_grep = installed("rg");
    let with_find = installed("fd") || installed("fdfind");
    if !with_grep || !with_find {
        eprintln!(
            "rg or fd missing: the reference's grep or find cannot run, those cases are left out"
        );
    }
    let cases = listing_cases(with_grep, with_find);
    assert_same(&cases, make_listing_fixture, false, "cases");
}
