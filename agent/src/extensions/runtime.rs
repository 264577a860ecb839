//! pi-agent's own versions of the packages the reference hands every extension (`typebox`,
//! `@earendil-works/pi-ai`, `pi-tui`, `pi-coding-agent`, `pi-agent-core`), as ES modules in
//! `runtime/`, embedded by the build script. The host's module loader serves them to an
//! extension that imports one of those packages, wherever the extension is.
//!
//! The loader reads them from a folder of the user's cache, written the first time (reading
//! the few an extension imports beats sending and parsing all of them, 700 kB, at every
//! start-up); where that folder cannot be written, the host is sent them all.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

/// Every runtime module: its file name and its JavaScript.
pub const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/runtime_files.rs"));

/// A digest of the modules' names and texts: it names their folder in the cache.
pub const DIGEST: &str = include!(concat!(env!("OUT_DIR"), "/runtime_digest.rs"));

/// How old a cached folder of other modules (another build's) must be to be removed: a host
/// may still read one while it runs.
const STALE_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// The runtime modules as the host is given them: file name to JavaScript.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuntimeModules;

impl Serialize for RuntimeModules {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(FILES.iter().copied())
    }
}

/// pi-agent's cache: `$XDG_CACHE_HOME/pi-agent`, else `~/.cache/pi-agent`.
fn cache_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute());
    let home = || {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .map(|home| home.join(".cache"))
    };
    Some(xdg.or_else(home)?.join("pi-agent"))
}

/// The folder holding the runtime modules as files, written now if it is not there yet; none
/// when it cannot be.
pub fn cached_folder() -> Option<PathBuf> {
    written_folder(&cache_dir()?)
}

/// `runtime-<digest>` in `cache`, written (whole, or not at all) if it is not there yet.
fn written_folder(cache: &Path) -> Option<PathBuf> {
    let folder = cache.join(format!("runtime-{DIGEST}"));
    if folder.is_dir() {
        return Some(folder);
    }
    // Written aside, then renamed: a folder of that name holds every module.
    let staging = cache.join(format!(".runtime-{DIGEST}-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&staging)?;
        for (name, text) in FILES {
            std::fs::write(staging.join(name), text)?;
        }
        std::fs::rename(&staging, &folder)
    };
    let written = write();
    if written.is_err() {
        // Another agent may have written it meanwhile.
        let _ = std::fs::remove_dir_all(&staging);
        return folder.is_dir().then_some(folder);
    }
    remove_stale_folders(cache, &folder);
    Some(folder)
}

/// Removes the other builds' folders that have not changed for a week.
fn remove_stale_folders(cache: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let runtime = entry.file_name().to_string_lossy().starts_with("runtime-");
        let age = entry
            .metadata()
            .and_then(|metadata| metadata.modified())
            .ok()
            .and_then(|modified| now.duration_since(modified).ok());
        if runtime && path != keep && age.is_some_and(|age| age > STALE_AFTER) {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_written_once_with_every_module() {
        let cache = tempfile::tempdir().unwrap();
        let folder = written_folder(cache.path()).unwrap();
        assert_eq!(folder, cache.path().join(format!("runtime-{DIGEST}")));
        for (name, text) in FILES {
            assert_eq!(std::fs::read_to_string(folder.join(name)).unwrap(), *text);
        }
        // Written once: a file changed there stays changed (the digest names the contents).
        let (name, _) = FILES[0];
        std::fs::write(folder.join(name), "changed").unwrap();
        assert_eq!(written_folder(cache.path()).unwrap(), folder);
        assert_eq!(
            std::fs::read_to_string(folder.join(name)).unwrap(),
            "changed"
        );
        let names: Vec<String> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [format!("runtime-{DIGEST}")],
            "no staging folder is left"
        );
    }

    #[test]
    fn an_unwritable_cache_gives_no_folder() {
        let cache = tempfile::tempdir().unwrap();
        let file = cache.path().join("file");
        std::fs::write(&file, "").unwrap();
        assert_eq!(written_folder(&file), None);
    }

    #[test]
    fn a_week_old_folder_of_another_build_is_removed_a_new_one_is_kept() {
        let cache = tempfile::tempdir().unwrap();
        let old = cache.path().join("runtime-0000000000000000");
        let recent = cache.path().join("runtime-1111111111111111");
        for folder in [&old, &recent] {
            std::fs::create_dir_all(folder).unwrap();
        }
        let week_ago = SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
        std::fs::File::open(&old)
            .unwrap()
            .set_modified(week_ago)
            .unwrap();
        written_folder(cache.path()).unwrap();
        assert!(!old.exists());
        assert!(recent.is_dir());
    }
}
