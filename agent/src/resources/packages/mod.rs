//! pi packages: the settings' `packages` list (the project's `.pi/settings.json` first, when
//! the project is trusted, then the global settings), each entry a source text or an object
//! (`{"source": ..., "extensions": [...], "skills": [...], ...}`) that filters what the package
//! brings. pi-agent never installs a package: it loads what is already on disk where the
//! reference installs it ([`locate`]), and reports the entries it cannot find.
//!
//! The same package in both settings is the project's (unless the project entry says
//! `autoload: false`, a change over the global entry). The resources come out per kind in the
//! settings' order; they follow every local resource (the settings' own arrays and the
//! discovered folders), which win a clash of names.

mod collect;
mod git_url;
mod glob;
mod locate;
mod manifest;
mod semver;
mod source;
mod walk;

use std::path::{Path, PathBuf};

pub use collect::Found;
pub use manifest::Kind;

use collect::{Filter, Gathered, Origin};
use locate::InstallRoots;
use source::Source;

/// Why an entry of the `packages` list loads nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackageError {
    /// An npm or git package that is not where the reference installs it.
    #[error(
        "package {package} ({scope} settings) is not installed: nothing at {}; pi-agent does not install packages (install it with `pi install{flag} {package}`)",
        path.display(),
        flag = if *scope == "project" { " -l" } else { "" }
    )]
    NotInstalled {
        /// The entry's source text.
        package: String,
        /// `project`, `user` or `temporary` (`-e`).
        scope: &'static str,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// An npm package whose installed version is not the one the entry asks for.
    #[error(
        "package {package} ({scope} settings) is not installed in a matching version: {} has {}; pi-agent does not install packages (install it with `pi install{flag} {package}`)",
        path.display(),
        installed.as_deref().map_or_else(|| "no version".to_owned(), |version| format!("version {version}")),
        flag = if *scope == "project" { " -l" } else { "" }
    )]
    WrongVersion {
        /// The entry's source text.
        package: String,
        /// `project`, `user` or `temporary` (`-e`).
        scope: &'static str,
        /// The installed package.
        path: PathBuf,
        /// Its `package.json` version, if any.
        installed: Option<String>,
    },
    /// A local package path that does not exist.
    #[error("package {package} ({scope} settings): {} does not exist", path.display())]
    PathMissing {
        /// The entry's source text.
        package: String,
        /// `project`, `user` or `temporary` (`-e`).
        scope: &'static str,
        /// The path it resolves to.
        path: PathBuf,
    },
    /// A git source whose host and path lead outside the clone folder.
    #[error("refusing to use path outside package install root: {}", path.display())]
    OutsideInstallRoot {
        /// The path it would lead to.
        path: PathBuf,
    },
}

/// What the `packages` lists bring.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packages {
    gathered: Gathered,
    /// The entries that load nothing, in order.
    pub problems: Vec<PackageError>,
}

impl Packages {
    /// The resources of `kind`, enabled or not, in order.
    pub fn of(&self, kind: Kind) -> &[Found] {
        self.gathered.of(kind)
    }

    /// The enabled resources of `kind`.
    pub fn enabled(&self, kind: Kind) -> impl Iterator<Item = &Found> {
        self.of(kind).iter().filter(|found| found.enabled)
    }

    /// Whether a package claims `path` for `kind` (enabled or not): local resources leave
    /// such a file to the package, as the reference records a path once.
    pub fn claims(&self, kind: Kind, path: &Path) -> bool {
        self.of(kind).iter().any(|found| found.path == path)
    }
}

/// One entry of a `packages` list.
#[derive(Debug, Clone)]
struct Entry {
    source: String,
    filter: Option<Filter>,
    scope: &'static str,
    /// The folder its relative paths resolve against.
    base: PathBuf,
}

/// The packages of the settings in `agent_dir` and, when `project_trusted`, of `cwd`'s project.
pub fn resolve(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> Packages {
    let files = crate::config::settings_files(agent_dir, cwd, project_trusted);
    let npm_command = files
        .iter()
        .find_map(|file| manifest::string_list(file.values.get("npmCommand")))
        .filter(|command| !command.is_empty())
        .unwrap_or_else(|| vec!["npm".to_owned()]);
    let roots = InstallRoots {
        agent_dir: agent_dir.to_path_buf(),
        cwd: cwd.to_path_buf(),
        npm_command,
    };
    let mut entries = Vec::new();
    for file in &files {
        let list = file.values.get("packages").and_then(|list| list.as_array());
        for value in list.into_iter().flatten() {
            let (source, filter) = match value {
                serde_json::Value::String(source) => (source.clone(), None),
                serde_json::Value::Object(object) => match object.get("source") {
                    Some(serde_json::Value::String(source)) => {
                        (source.clone(), Some(Filter::of(object)))
                    }
                    _ => continue,
                },
                _ => continue,
            };
            entries.push(Entry {
                source,
                filter,
                scope: file.scope,
                base: file.base.clone(),
            });
        }
    }
    resolve_entries(&dedupe(entries), &roots)
}

/// The packages of `-e` (scope `temporary`): a path (relative to `cwd`) as the reference
/// resolves it before it is a source, `npm:` and git sources as given, found where the
/// reference's `pi -e` installs them.
pub fn resolve_cli(sources: &[PathBuf], cwd: &Path, agent_dir: &Path) -> Packages {
    let roots = InstallRoots {
        agent_dir: agent_dir.to_path_buf(),
        cwd: cwd.to_path_buf(),
        npm_command: vec!["npm".to_owned()],
    };
    let entries: Vec<Entry> = sources
        .iter()
        .map(|given| {
            let given = crate::paths::text(given);
            let source = match Source::parse(&given) {
                Source::Local(path) => source::resolve_path(&path, cwd).display().to_string(),
                _ => given,
            };
            Entry {
                source,
                filter: None,
                scope: "temporary",
                base: cwd.to_path_buf(),
            }
        })
        .collect();
    resolve_entries(&entries, &roots)
}

fn resolve_entries(entries: &[Entry], roots: &InstallRoots) -> Packages {
    let mut packages = Packages::default();
    for entry in entries {
        if let Err(problem) = add_entry(entry, entries, roots, &mut packages.gathered) {
            packages.problems.push(problem);
        }
    }
    packages
}

/// One entry per package: the project's wins over the global one, except that a project entry
/// with `autoload: false` keeps the global entry too (after it).
fn dedupe(entries: Vec<Entry>) -> Vec<Entry> {
    let mut kept: Vec<(String, Entry)> = Vec::new();
    for entry in entries {
        let identity = Source::parse(&entry.source).identity(&entry.base);
        match kept.iter().position(|(known, _)| *known == identity) {
            None => kept.push((identity, entry)),
            Some(index) => {
                let existing = &kept[index].1;
                if existing.scope == "project" && entry.scope == "user" {
                    if existing
                        .filter
                        .as_ref()
                        .is_some_and(|filter| filter.autoload_off)
                    {
                        kept.push((identity, entry));
                    }
                } else if entry.scope == "project" {
                    kept[index] = (identity, entry);
                }
            }
        }
    }
    kept.into_iter().map(|(_, entry)| entry).collect()
}

/// Adds what one entry brings.
fn add_entry(
    entry: &Entry,
    all: &[Entry],
    roots: &InstallRoots,
    out: &mut Gathered,
) -> Result<(), PackageError> {
    // A project `autoload: false` entry filters the global entry's installed package.
    let base_entry = delta_base(entry, all).unwrap_or(entry);
    let source = &entry.source;
    let scope = entry.scope;
    let origin = |base_dir: &Path| Origin {
        source: source.clone(),
        scope,
        base_dir: base_dir.to_path_buf(),
    };
    let filter = entry.filter.as_ref();
    let folder = match Source::parse(&base_entry.source) {
        Source::Local(path) => {
            let resolved = source::resolve_path(&path, &base_entry.base);
            if resolved.is_file() {
                let base_dir = resolved.parent().unwrap_or(&resolved).to_path_buf();
                out.add(Kind::Extensions, &resolved, &origin(&base_dir), true);
            } else if resolved.is_dir() {
                if !collect::collect_package(&resolved, filter, &origin(&resolved), out) {
                    out.add(Kind::Extensions, &resolved, &origin(&resolved), true);
                }
            } else {
                return Err(PackageError::PathMissing {
                    package: source.clone(),
                    scope,
                    path: resolved,
                });
            }
            return Ok(());
        }
        Source::Npm(npm) => {
            let path = roots.npm_path(&npm.name, base_entry.scope);
            if !path.exists() {
                return Err(PackageError::NotInstalled {
                    package: source.clone(),
                    scope,
                    path,
                });
            }
            let installed = manifest::installed_version(&path);
            if !version_matches(installed.as_deref(), npm.version.as_deref()) {
                return Err(PackageError::WrongVersion {
                    package: source.clone(),
                    scope,
                    path,
                    installed,
                });
            }
            path
        }
        Source::Git(git) => {
            let path = roots.git_path(&git, base_entry.scope)?;
            if !path.exists() {
                return Err(PackageError::NotInstalled {
                    package: source.clone(),
                    scope,
                    path,
                });
            }
            path
        }
    };
    collect::collect_package(&folder, filter, &origin(&folder), out);
    Ok(())
}

/// The global entry a project `autoload: false` entry changes.
fn delta_base<'a>(entry: &Entry, all: &'a [Entry]) -> Option<&'a Entry> {
    if entry.scope != "project"
        || !entry
            .filter
            .as_ref()
            .is_some_and(|filter| filter.autoload_off)
    {
        return None;
    }
    let identity = Source::parse(&entry.source).identity(&entry.base);
    all.iter().find(|other| {
        other.scope == "user" && Source::parse(&other.source).identity(&other.base) == identity
    })
}

/// Whether an installed version does for the entry's: a package without a version is not
/// installed; a range must hold (a tag such as `latest` takes any version).
fn version_matches(installed: Option<&str>, wanted: Option<&str>) -> bool {
    let Some(installed) = installed else {
        return false;
    };
    match wanted.and_then(semver::Range::parse) {
        Some(range) => {
            semver::Version::parse(installed).is_some_and(|version| range.satisfies(&version))
        }
        None => true,
    }
}

/// The file an extension path loads, as a module loader resolves it: a file as it is; for a
/// folder, the file its `package.json`'s `main` names (as it is, or with a script extension,
/// or its `index`), else the folder's `index` with a script extension, `.js` before `.ts`.
pub fn extension_entry(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    const EXTENSIONS: [&str; 6] = ["js", "mjs", "cjs", "ts", "mts", "cts"];
    let with_extensions = |stem: &Path| -> Vec<PathBuf> {
        EXTENSIONS
            .iter()
            .map(|extension| PathBuf::from(format!("{}.{extension}", stem.display())))
            .collect()
    };
    let main = std::fs::read_to_string(path.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|package| package.get("main")?.as_str().map(str::to_owned));
    let mut candidates = Vec::new();
    if let Some(main) = main {
        let main = crate::resources::patterns::resolve(&main, path);
        candidates.push(main.clone());
        candidates.extend(with_extensions(&main));
        candidates.extend(with_extensions(&main.join("index")));
    }
    candidates.extend(with_extensions(&path.join("index")));
    candidates.into_iter().find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests;

/// For tests: writes `files` (path under `root`, text), making their folders.
#[cfg(test)]
pub(crate) fn write_files(root: &Path, files: &[(&str, &str)]) -> anyhow::Result<()> {
    for (path, text) in files {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(())
}
