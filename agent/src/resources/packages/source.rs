//! A package source as the settings' `packages` list writes it: `npm:name@version`, a git
//! repository (`git:host/path@ref`, or a `https://` / `ssh://` / `git://` URL), or a local
//! path, read as the reference reads it, with the identity that makes two entries the same
//! package.

use std::path::Path;

use super::git_url::{GitSource, parse_git_url};

/// Where a package comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// An npm package (`npm:` prefix).
    Npm(NpmSource),
    /// A git repository.
    Git(GitSource),
    /// A file or folder on disk, relative to the settings file's folder.
    Local(String),
}

/// `npm:name@version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmSource {
    /// What follows `npm:`, trimmed.
    pub spec: String,
    /// The package's name (`@scope/name` or `name`).
    pub name: String,
    /// What follows the name's `@`: a version, a range or a tag.
    pub version: Option<String>,
}

impl Source {
    /// Reads a source: `npm:` is npm; a text that is not a path (`git:`, `github:`, `http:`,
    /// `https:`, `ssh:`) is a git repository when it parses as one; anything else is a path.
    pub fn parse(source: &str) -> Self {
        if let Some(spec) = source.strip_prefix("npm:") {
            let spec = crate::js::trim(spec).to_owned();
            let (name, version) = split_npm_spec(&spec);
            return Self::Npm(NpmSource {
                spec,
                name,
                version,
            });
        }
        if is_local_path(source) {
            return Self::Local(source.to_owned());
        }
        match parse_git_url(source) {
            Some(git) => Self::Git(git),
            None => Self::Local(source.to_owned()),
        }
    }

    /// What makes two entries the same package, whatever their version or ref: the npm name,
    /// the git host and path, or the local path resolved against `base`.
    pub fn identity(&self, base: &Path) -> String {
        match self {
            Self::Npm(npm) => format!("npm:{}", npm.name),
            Self::Git(git) => format!("git:{}/{}", git.host, git.path),
            Self::Local(path) => format!("local:{}", resolve_path(path, base).display()),
        }
    }
}

/// A path as the reference resolves a package's: trimmed, `~` expanded, a `file://` URL read
/// as its path, made absolute against `base` and normalised.
pub fn resolve_path(path: &str, base: &Path) -> std::path::PathBuf {
    let trimmed = crate::js::trim(path);
    let unprefixed = trimmed.strip_prefix("file://").unwrap_or(trimmed);
    let decoded = if unprefixed.len() < trimmed.len() {
        percent_encoding::percent_decode_str(unprefixed)
            .decode_utf8_lossy()
            .into_owned()
    } else {
        unprefixed.to_owned()
    };
    crate::resources::patterns::resolve(&decoded, base)
}

/// Whether the reference takes `value` for a path: not an npm, git or URL source.
fn is_local_path(value: &str) -> bool {
    let trimmed = crate::js::trim(value);
    !["npm:", "git:", "github:", "http:", "https:", "ssh:"]
        .iter()
        .any(|prefix| trimmed.starts_with(prefix))
}

/// `@scope/name@version` or `name@version` split at the version's `@` (the name is the whole
/// spec when it does not have that form).
fn split_npm_spec(spec: &str) -> (String, Option<String>) {
    static SPEC: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"^(@?[^@]+(?:/[^@]+)?)(?:@(.+))?$").ok());
    let captures = SPEC.as_ref().and_then(|spec_re| spec_re.captures(spec));
    match captures {
        Some(captures) => (
            captures
                .get(1)
                .map_or(spec, |name| name.as_str())
                .to_owned(),
            captures.get(2).map(|version| version.as_str().to_owned()),
        ),
        None => (spec.to_owned(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npm(name: &str, version: Option<&str>) -> (String, Option<String>) {
        (name.to_owned(), version.map(str::to_owned))
    }

    #[test]
    fn npm_specs_split_at_the_version_s_at_sign() {
        assert_eq!(split_npm_spec("pkg"), npm("pkg", None));
        assert_eq!(split_npm_spec("pkg@1.2.3"), npm("pkg", Some("1.2.3")));
        assert_eq!(split_npm_spec("@foo/bar"), npm("@foo/bar", None));
        assert_eq!(split_npm_spec("@foo/bar@^2"), npm("@foo/bar", Some("^2")));
        // A trailing `@` with nothing after it is no version: the whole text is the name.
        assert_eq!(split_npm_spec("pkg@"), npm("pkg@", None));
    }

    #[test]
    fn sources_are_npm_git_or_local_as_the_reference_reads_them() {
        let Source::Npm(source) = Source::parse("npm: @foo/bar@1.0.0 ") else {
            panic!("npm expected");
        };
        assert_eq!(source.spec, "@foo/bar@1.0.0");
        assert_eq!(source.name, "@foo/bar");
        assert!(matches!(
            Source::parse("git:github.com/user/repo@v1"),
            Source::Git(_)
        ));
        assert!(matches!(
            Source::parse("https://github.com/user/repo"),
            Source::Git(_)
        ));
        // Without `git:` only URLs are git; a bare host path and `github:` fall back to paths.
        assert_eq!(
            Source::parse("github.com/user/repo"),
            Source::Local("github.com/user/repo".into())
        );
        assert_eq!(
            Source::parse("github:user/repo"),
            Source::Local("github:user/repo".into())
        );
        assert_eq!(Source::parse("./pkg"), Source::Local("./pkg".into()));
    }

    #[test]
    fn identities_ignore_versions_and_refs_and_resolve_local_paths() {
        let base = Path::new("/agent");
        let identity = |text: &str| Source::parse(text).identity(base);
        assert_eq!(identity("npm:pkg@1"), identity("npm:pkg@2"));
        assert_eq!(identity("npm:pkg"), "npm:pkg");
        assert_eq!(
            identity("git:github.com/u/r@v1"),
            identity("https://github.com/u/r")
        );
        assert_eq!(identity("git:git@github.com:u/r"), "git:github.com/u/r");
        assert_eq!(identity("./pkgs/../demo"), "local:/agent/demo");
        assert_eq!(identity("file:///opt/my%20pkg"), "local:/opt/my pkg");
    }
}
