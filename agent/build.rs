//! Embeds the extension runtime modules (`src/extensions/runtime/*.mjs`, pi-agent's own versions
//! of the packages pi hands its extensions) into the binary: `$OUT_DIR/runtime_files.rs` holds
//! one `(name, text)` pair per file, in name order.

use std::fmt::Write as _;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = Path::new("src/extensions/runtime");
    println!("cargo::rerun-if-changed={}", folder.display());
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.file_name().into_string().ok())
                .filter(|name| name.ends_with(".mjs"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut code = String::from("&[\n");
    for name in &names {
        let path = folder.join(name);
        println!("cargo::rerun-if-changed={}", path.display());
        let absolute = std::fs::canonicalize(&path)?;
        writeln!(code, "    ({name:?}, include_str!({absolute:?})),")?;
    }
    code.push(']');
    let out = std::env::var("OUT_DIR")?;
    std::fs::write(Path::new(&out).join("runtime_files.rs"), code)?;
    Ok(())
}
