//! The files and folders a manifest's glob (`extensions/*.ts`, `skills/**`) matches under a
//! package's folder: `*` and `?` stay within a name, `**` crosses folders, names starting with
//! `.` are not matched. The walk starts at the pattern's literal folders and goes no deeper
//! than the pattern does.

use std::path::{Path, PathBuf};

/// The matches of `pattern` (relative to `root`), in path order.
pub fn matches(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let Ok(glob) = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    else {
        return Vec::new();
    };
    let matcher = glob.compile_matcher();
    let segments: Vec<&str> = pattern.split('/').filter(|part| !part.is_empty()).collect();
    let literal = segments
        .iter()
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .count();
    let start = segments[..literal]
        .iter()
        .fold(root.to_path_buf(), |dir, part| dir.join(part));
    let rest = &segments[literal..];
    let depth = if rest.contains(&"**") {
        None
    } else {
        Some(rest.len())
    };
    let mut found = Vec::new();
    walk(&start, root, depth, &matcher, &mut found);
    found.sort();
    found
}

fn walk(
    dir: &Path,
    root: &Path,
    depth: Option<usize>,
    matcher: &globset::GlobMatcher,
    found: &mut Vec<PathBuf>,
) {
    if depth == Some(0) {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in read.filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if let Ok(rel) = path.strip_prefix(root)
            && matcher.is_match(rel)
        {
            found.push(path.clone());
        }
        if path.is_dir() {
            walk(&path, root, depth.map(|left| left - 1), matcher, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_within_names_or_across_folders() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path();
        for file in [
            "ext/a.ts",
            "ext/b.js",
            "ext/sub/c.ts",
            "ext/.hidden.ts",
            "other/d.ts",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap_or(root))?;
            std::fs::write(path, "")?;
        }
        let rel = |pattern: &str| -> Vec<String> {
            matches(root, pattern)
                .iter()
                .map(|path| {
                    path.strip_prefix(root)
                        .unwrap_or(path)
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        };
        assert_eq!(rel("./ext/*.ts"), ["ext/a.ts"]);
        assert_eq!(rel("ext/**/*.ts"), ["ext/a.ts", "ext/sub/c.ts"]);
        assert_eq!(rel("*/?.ts"), ["ext/a.ts", "other/d.ts"]);
        assert_eq!(rel("ext/*"), ["ext/a.ts", "ext/b.js", "ext/sub"]);
        assert!(rel("missing/*.ts").is_empty());
        Ok(())
    }
}
