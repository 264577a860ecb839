//! Paths as the reference resolves them: unicode spaces become plain spaces, a leading `@` is
//! dropped, `~` and `~/` expand to the home folder, `file://` URLs become paths, and relative
//! paths resolve against the working folder (lexically, like Node's `path.resolve`).

use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

/// Resolves `input` against `cwd`.
pub(crate) fn resolve_to_cwd(input: &str, cwd: &Path) -> PathBuf {
    let normalized = normalize(input);
    let path = Path::new(&normalized);
    if path.is_absolute() {
        lexical(path)
    } else {
        lexical(&expand_home(&cwd.to_string_lossy()).join(path))
    }
}

/// Resolves a path to read; when it does not exist, tries the spellings macOS gives screenshot
/// names (narrow no-break space before AM/PM, NFD, curly apostrophe) before giving up.
pub(crate) fn resolve_read_path(input: &str, cwd: &Path) -> PathBuf {
    let resolved = resolve_to_cwd(input, cwd);
    if exists(&resolved) {
        return resolved;
    }
    let text = resolved.to_string_lossy().into_owned();
    let nfd: String = text.nfd().collect();
    let candidates = [
        am_pm_variant(&text),
        nfd.clone(),
        text.replace('\'', "\u{2019}"),
        nfd.replace('\'', "\u{2019}"),
    ];
    for candidate in candidates {
        if candidate != text && exists(Path::new(&candidate)) {
            return PathBuf::from(candidate);
        }
    }
    resolved
}

fn exists(path: &Path) -> bool {
    rustix::fs::access(path, rustix::fs::Access::EXISTS).is_ok()
}

/// ` AM.` / ` pm.` with a narrow no-break space instead of the space.
fn am_pm_variant(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(index) = rest.find(' ') {
        let after = &rest[index + 1..];
        let marker = after.get(..3).filter(|m| {
            let lower = m.to_ascii_lowercase();
            lower == "am." || lower == "pm."
        });
        out.push_str(&rest[..index]);
        match marker {
            Some(marker) => {
                out.push('\u{202f}');
                out.push_str(marker);
                rest = &after[3..];
            }
            None => {
                out.push(' ');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// The reference's `normalizePath` with unicode-space folding and `@` stripping.
fn normalize(input: &str) -> String {
    let spaced: String = input
        .chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect();
    let stripped = spaced.strip_prefix('@').unwrap_or(&spaced);
    let expanded = expand_home(stripped);
    let text = expanded.to_string_lossy().into_owned();
    if let Some(url_path) = text.strip_prefix("file://") {
        return file_url_path(url_path).unwrap_or(text);
    }
    text
}

fn expand_home(text: &str) -> PathBuf {
    if text == "~" {
        return home_dir();
    }
    if let Some(rest) = text.strip_prefix("~/") {
        return home_dir().join(rest);
    }
    PathBuf::from(text)
}

fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// The path of a `file://` URL (after the scheme): empty or `localhost` host, percent-decoded.
fn file_url_path(rest: &str) -> Option<String> {
    let path = if rest.starts_with('/') {
        rest
    } else {
        rest.strip_prefix("localhost")?
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && let Some(byte) = path
                .get(index + 1..index + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            decoded.push(byte);
            index += 3;
            continue;
        }
        decoded.push(bytes[index]);
        index += 1;
    }
    String::from_utf8(decoded).ok()
}

/// Removes `.` and resolves `..` without touching the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_like_node() {
        let cwd = Path::new("/work/project");
        assert_eq!(
            resolve_to_cwd("a/./b/../c.txt", cwd),
            PathBuf::from("/work/project/a/c.txt")
        );
        assert_eq!(
            resolve_to_cwd("@src/x", cwd),
            PathBuf::from("/work/project/src/x")
        );
        assert_eq!(
            resolve_to_cwd("/etc//hosts/", cwd),
            PathBuf::from("/etc/hosts")
        );
        assert_eq!(resolve_to_cwd("../../../..", cwd), PathBuf::from("/"));
        assert_eq!(
            resolve_to_cwd("file:///tmp/a%20b", cwd),
            PathBuf::from("/tmp/a b")
        );
        assert_eq!(
            resolve_to_cwd("a\u{a0}b", cwd),
            PathBuf::from("/work/project/a b")
        );
        assert_eq!(resolve_to_cwd("~", cwd), home_dir());
        assert_eq!(resolve_to_cwd("~/x", cwd), home_dir().join("x"));
        assert_eq!(resolve_to_cwd("~x", cwd), PathBuf::from("/work/project/~x"));
    }

    #[test]
    fn screenshot_names_get_a_narrow_space() {
        assert_eq!(
            am_pm_variant("Shot 10.00.00 PM.png"),
            "Shot 10.00.00\u{202f}PM.png"
        );
        assert_eq!(am_pm_variant("a b"), "a b");
    }
}
