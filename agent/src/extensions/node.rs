//! Finding a Node.js that can run the extension host: `$PI_AGENT_NODE`, else `node` on `PATH`,
//! at least version 22.6 (the first with `--experimental-strip-types`, which loads TypeScript
//! extensions as they are).

use std::path::PathBuf;

use super::Error;

/// The environment variable naming the Node.js executable for extensions.
pub const NODE_ENV: &str = "PI_AGENT_NODE";

/// The oldest Node.js that can load TypeScript extensions.
pub const MIN_NODE: (u64, u64) = (22, 6);

/// The first Node.js that also transforms TypeScript-only syntax (`enum`, `namespace`).
const TRANSFORM_NODE: (u64, u64) = (22, 7);

/// A Node.js able to run the extension host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The executable.
    pub program: PathBuf,
    /// Its major and minor version.
    pub version: (u64, u64),
}

impl Node {
    /// The flag that makes it load TypeScript: type stripping, or the full transform (which
    /// also handles `enum` and `namespace`) where it exists.
    pub fn typescript_flag(&self) -> &'static str {
        if self.version >= TRANSFORM_NODE {
            "--experimental-transform-types"
        } else {
            "--experimental-strip-types"
        }
    }
}

/// The Node.js to use, checked by running `node --version`.
pub fn find_node() -> Result<Node, Error> {
    let program = std::env::var_os(NODE_ENV)
        .filter(|value| !value.is_empty())
        .map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let output = std::process::Command::new(&program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|source| Error::NodeMissing {
            program: program.display().to_string(),
            source,
        })?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    match parse_version(&version) {
        Some(found) if found >= MIN_NODE => Ok(Node {
            program,
            version: found,
        }),
        _ => Err(Error::NodeTooOld {
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
        assert!(parse_version("v22.6.0").is_some_and(|v| v >= MIN_NODE));
        assert!(parse_version("v22.5.9").is_some_and(|v| v < MIN_NODE));
        assert!(parse_version("v24.0.0").is_some_and(|v| v >= MIN_NODE));
    }

    #[test]
    fn enum_support_is_asked_for_where_node_has_it() {
        let node = |version| Node {
            program: PathBuf::from("node"),
            version,
        };
        assert_eq!(
            node((22, 6)).typescript_flag(),
            "--experimental-strip-types"
        );
        assert_eq!(
            node((22, 7)).typescript_flag(),
            "--experimental-transform-types"
        );
        assert_eq!(
            node((24, 1)).typescript_flag(),
            "--experimental-transform-types"
        );
    }
}
