//! Finding a Node.js that can run the extension host: `$PI_AGENT_NODE`, else `node` on `PATH`.
//! The host needs Node's module customization hooks (`module.register`, in 20.6 and 18.19; the
//! in-thread `module.registerHooks` where there is one): pi-agent transpiles TypeScript itself,
//! so any such Node loads TypeScript extensions.
//!
//! The host is started without asking Node its version first (that would cost a second Node
//! start-up, 15-25 ms): a Node without the hooks ends the host at once, and only then is
//! `node --version` run, to say why.

use std::path::{Path, PathBuf};

use super::Error;

/// The environment variable naming the Node.js executable for extensions.
pub const NODE_ENV: &str = "PI_AGENT_NODE";

/// The oldest Node.js that can run the extension host (from 19 on).
pub const MIN_NODE: (u64, u64) = (20, 6);

/// The oldest Node.js 18 that can (18 gained the hooks late in its life).
pub const MIN_NODE_18: (u64, u64) = (18, 19);

/// Whether Node.js `version` can run the extension host.
pub fn supported(version: (u64, u64)) -> bool {
    version >= MIN_NODE || (version.0 == MIN_NODE_18.0 && version >= MIN_NODE_18)
}

/// The Node.js to run the host with: `$PI_AGENT_NODE`, else `node` (on `PATH`).
pub fn node_program() -> PathBuf {
    std::env::var_os(NODE_ENV)
        .filter(|value| !value.is_empty())
        .map_or_else(|| PathBuf::from("node"), PathBuf::from)
}

/// The host could not be run, or ended before loading the extensions: why, when it is the
/// Node.js (`node --version` cannot be run, or names a version without the hooks).
pub fn unfit(program: &Path) -> Option<Error> {
    let output = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let output = match output {
        Ok(output) => output,
        Err(source) => {
            return Some(Error::NodeMissing {
                program: program.display().to_string(),
                source,
            });
        }
    };
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    match parse_version(&version) {
        Some(found) if supported(found) => None,
        _ => Some(Error::NodeTooOld {
            program: program.display().to_string(),
            version: if version.is_empty() {
                "of unknown version".into()
            } else {
                version
            },
        }),
    }
}

/// `v22.6.0` as `(22, 6)`.
fn parse_version(text: &str) -> Option<(u64, u64)> {
    let mut parts = text.strip_prefix('v').unwrap_or(text).split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare_by_major_then_minor() {
        assert_eq!(parse_version("v22.23.3"), Some((22, 23)));
        assert_eq!(parse_version("v20.20.2"), Some((20, 20)));
        assert_eq!(parse_version("garbage"), None);
    }

    #[test]
    fn the_versions_with_module_hooks_are_supported() {
        for good in [
            "v18.19.0", "v18.20.8", "v20.6.0", "v20.20.2", "v22.6.0", "v24.1.0",
        ] {
            assert!(parse_version(good).is_some_and(supported), "{good}");
        }
        for bad in ["v18.18.2", "v19.9.0", "v20.5.1", "v16.20.0"] {
            assert!(!parse_version(bad).is_some_and(supported), "{bad}");
        }
    }
}
