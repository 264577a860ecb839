//! Transcripts: a folder per scenario and agent with everything the run saw.

use std::path::{Path, PathBuf};

use crate::run::Outcome;

/// The folder of one outcome's transcript under `out`: `<out>/<agent>/<id>/`.
pub fn folder(out: &Path, outcome: &Outcome) -> PathBuf {
    out.join(&outcome.agent).join(sanitise(&outcome.id))
}

/// The id made safe as a folder name.
pub fn sanitise(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes the transcript: `result.txt` (verdict, message, diff, step log), `command.txt`,
/// `stdin.txt`, `stdout.jsonl`, `stderr.txt`, `journal.json`.
pub fn write(out: &Path, outcome: &Outcome) -> std::io::Result<PathBuf> {
    let dir = folder(out, outcome);
    std::fs::create_dir_all(&dir)?;
    let t = &outcome.transcript;
    let mut result = format!(
        "scenario: {}\nfile: {}\nagent: {}\nverdict: {}\nduration: {:.2}s\n",
        outcome.id,
        outcome.file.display(),
        outcome.agent,
        outcome.verdict.word(),
        outcome.duration.as_secs_f64()
    );
    if !outcome.message.is_empty() {
        result.push_str(&format!("message: {}\n", outcome.message));
    }
    if let Some(cause) = &outcome.cause {
        result.push_str(&format!("cause: {}: {}\n", cause.kind.label(), cause.key));
    }
    if !outcome.detail.is_empty() {
        result.push_str(&format!("\n{}\n", outcome.detail));
    }
    result.push_str("\n-- log (> sent, < received)\n");
    for line in &t.log {
        result.push_str(line);
        result.push('\n');
    }
    std::fs::write(dir.join("result.txt"), result)?;
    std::fs::write(dir.join("command.txt"), t.command.join(" ") + "\n")?;
    std::fs::write(dir.join("stdin.txt"), &t.streams.stdin)?;
    std::fs::write(dir.join("stdout.jsonl"), &t.streams.stdout)?;
    std::fs::write(dir.join("stderr.txt"), &t.streams.stderr)?;
    std::fs::write(
        dir.join("journal.json"),
        serde_json::to_string_pretty(&t.journal).unwrap_or_default(),
    )?;
    Ok(dir)
}
