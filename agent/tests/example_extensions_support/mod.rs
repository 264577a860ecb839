//! Pi's own example extensions run on the reference and on pi-agent side by side: the runs,
//! their comparison and the list of known differences.

pub mod compare;
#[cfg(test)]
mod compare_tests;
pub mod known;
pub mod normalise;
pub mod run;
pub mod session;

use std::path::{Path, PathBuf};

/// An example: its name and its file or folder.
pub struct Example {
    pub name: String,
    pub source: PathBuf,
}

/// The examples in `dir`: each `.ts` file, and each folder with an `index.ts`, by name.
pub fn examples(dir: &Path) -> std::io::Result<Vec<Example>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = if path.is_dir() && path.join("index.ts").is_file() {
            path.file_name()
        } else if path.extension().is_some_and(|ext| ext == "ts") {
            path.file_stem()
        } else {
            None
        };
        if let Some(name) = name {
            let name = name.to_string_lossy().into_owned();
            found.push(Example { name, source: path });
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}
