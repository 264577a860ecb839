//! Embeds the extension runtime modules (`src/extensions/runtime/*.mjs`, pi-agent's own versions
//! of the packages pi hands its extensions) into the binary: `$OUT_DIR/runtime_files.rs` holds
//! one `(name, text)` pair per file, in name order, and `$OUT_DIR/runtime_digest.rs` a digest of
//! them (FNV-1a of the names and texts: a cache key, not a checksum against tampering).

use std::fmt::Write as _;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    link_position_dependent();
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
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    for name in &names {
        let path = folder.join(name);
        println!("cargo::rerun-if-changed={}", path.display());
        for byte in name
            .bytes()
            .chain([0])
            .chain(std::fs::read(&path)?)
            .chain([0])
        {
            digest = (digest ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let absolute = std::fs::canonicalize(&path)?;
        writeln!(code, "    ({name:?}, include_str!({absolute:?})),")?;
    }
    code.push(']');
    let out = std::env::var("OUT_DIR")?;
    std::fs::write(Path::new(&out).join("runtime_files.rs"), code)?;
    std::fs::write(
        Path::new(&out).join("runtime_digest.rs"),
        format!("\"{digest:016x}\""),
    )?;
    Ok(())
}

/// Links `pi-agent` as a position-dependent executable on Linux: the linker then resolves the
/// binary's own addresses once, instead of the loader patching about 18,000 of them (and the
/// 330 KiB of tables that hold them) in every new process, which start-up paid for in time and
/// in resident pages.
fn link_position_dependent() {
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu_or_musl =
        std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu" || env == "musl");
    if linux && gnu_or_musl {
        println!("cargo::rustc-link-arg-bin=pi-agent=-no-pie");
    }
}
