//! Which extension files to load, in the reference's order: the `-e` paths, then (unless
//! `--no-extensions`) per scope (the trusted project's, then the agent folder's) the settings'
//! `extensions` array and the `extensions/` folder, then the extensions of the settings'
//! packages ([`crate::resources::packages`]). Each with the `sourceInfo` that `get_commands` reports.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::resources::SourceInfo;
use crate::resources::packages::Kind;

/// One extension file to load.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionFile {
    /// Its absolute path.
    pub path: PathBuf,
    /// Where it came from, as `get_commands` reports it.
    pub source_info: SourceInfo,
}

/// Where to look.
#[derive(Debug, Clone, Copy)]
pub struct Discovery<'a> {
    /// `-e` paths, relative to `cwd`.
    pub cli_paths: &'a [PathBuf],
    /// The working folder.
    pub cwd: &'a Path,
    /// The agent folder.
    pub agent_dir: &'a Path,
    /// Whether the project's `.pi/` may be used.
    pub project_trusted: bool,
    /// `--no-extensions`: only the `-e` paths.
    pub no_discovery: bool,
}

/// Where to look, kept to find the extensions again when they are loaded afresh
/// (`ctx.reload()`, a session replacement), as the reference resolves their paths again.
#[derive(Debug, Clone)]
pub struct Places {
    cli_paths: Vec<PathBuf>,
    cwd: PathBuf,
    agent_dir: PathBuf,
    project_trusted: bool,
    no_discovery: bool,
}

impl Places {
    /// What `discovery` looks at.
    pub fn of(discovery: Discovery<'_>) -> Self {
        Self {
            cli_paths: discovery.cli_paths.to_vec(),
            cwd: discovery.cwd.to_path_buf(),
            agent_dir: discovery.agent_dir.to_path_buf(),
            project_trusted: discovery.project_trusted,
            no_discovery: discovery.no_discovery,
        }
    }

    /// Where to look again.
    pub fn discovery(&self) -> Discovery<'_> {
        Discovery {
            cli_paths: &self.cli_paths,
            cwd: &self.cwd,
            agent_dir: &self.agent_dir,
            project_trusted: self.project_trusted,
            no_discovery: self.no_discovery,
        }
    }
}

/// The files to load, each once; `-e` paths that do not exist are left out (see
/// [`missing_cli_paths`]).
pub fn discover(discovery: Discovery<'_>) -> Vec<ExtensionFile> {
    let mut files: Vec<ExtensionFile> = Vec::new();
    // `-e` sources are packages too: a folder brings what its manifest or conventional
    // folders list; a folder that is itself the extension is reported by its own path.
    let cli_packages = crate::resources::packages::resolve_cli(
        discovery.cli_paths,
        discovery.cwd,
        discovery.agent_dir,
    );
    for found in cli_packages.enabled(Kind::Extensions) {
        if let Some(path) = crate::resources::packages::extension_entry(&found.path)
            && !files.iter().any(|known| known.path == path)
        {
            let source_info = cli_source_info(&found.path);
            files.push(ExtensionFile { path, source_info });
        }
    }
    if discovery.no_discovery {
        return files;
    }
    let mut add = |path: PathBuf, source: &str, scope: &str, base_dir: Option<&Path>| {
        if !files.iter().any(|known| known.path == path) {
            let source_info = SourceInfo {
                path: path.display().to_string(),
                source: source.to_owned(),
                scope: scope.to_owned(),
                origin: "top-level".to_owned(),
                base_dir: base_dir.map(|base| base.display().to_string()),
            };
            files.push(ExtensionFile { path, source_info });
        }
    };
    let project = discovery.cwd.join(".pi");
    let mut scopes = Vec::new();
    if discovery.project_trusted {
        scopes.push((project.as_path(), "project"));
    }
    scopes.push((discovery.agent_dir, "user"));
    let settings = crate::config::resource_entries(
        discovery.agent_dir,
        discovery.cwd,
        discovery.project_trusted,
        "extensions",
    );
    let packages = crate::resources::packages::resolve(
        discovery.agent_dir,
        discovery.cwd,
        discovery.project_trusted,
    );
    // A file a package claims (enabled or not) is the package's.
    let claimed = |path: &Path| packages.claims(Kind::Extensions, path);
    for (base, scope) in scopes {
        // The settings' `extensions` array of this scope first, then its `extensions/` folder.
        let entries = settings
            .iter()
            .find(|group| group.scope == scope)
            .map(|group| group.entries.as_slice())
            .unwrap_or_default();
        for path in settings_files(entries, base) {
            if !claimed(&path) {
                add(path, "local", scope, None);
            }
        }
        for path in files_in(&base.join("extensions")) {
            if !claimed(&path)
                && crate::resources::patterns::enabled_by_overrides(&path, entries, base)
            {
                add(path, "auto", scope, Some(base));
            }
        }
    }
    // Then the packages' (a folder that is itself the extension loads through its entry).
    for found in packages.enabled(Kind::Extensions) {
        if let Some(path) = crate::resources::packages::extension_entry(&found.path)
            && !files.iter().any(|known| known.path == path)
        {
            files.push(ExtensionFile {
                path,
                source_info: found.source_info.clone(),
            });
        }
    }
    files
}

/// The reference's load errors for the paths it cannot load: first the package folders that
/// are themselves the extension but have no entry point (from `-e`, then, unless
/// `--no-extensions`, from the settings; it fails to import them), then each `-e` path that
/// does not exist, in their order.
pub fn missing_cli_paths(discovery: Discovery<'_>) -> Vec<String> {
    let (cwd, agent_dir) = (discovery.cwd, discovery.agent_dir);
    let mut packages = vec![crate::resources::packages::resolve_cli(
        discovery.cli_paths,
        cwd,
        agent_dir,
    )];
    if !discovery.no_discovery {
        packages.push(crate::resources::packages::resolve(
            agent_dir,
            cwd,
            discovery.project_trusted,
        ));
    }
    let unloadable = packages
        .iter()
        .flat_map(|packages| packages.enabled(Kind::Extensions))
        .filter(|found| crate::resources::packages::extension_entry(&found.path).is_none())
        .map(|found| {
            let shown = found.path.display();
            format!("Failed to load extension \"{shown}\": Failed to load extension: Cannot find module '{shown}'")
        });
    let missing = discovery
        .cli_paths
        .iter()
        .map(|given| cli_path(given, discovery.cwd))
        .filter(|path| !path.exists())
        .map(|path| {
            let shown = path.display();
            format!("Failed to load extension \"{shown}\": Extension path does not exist: {shown}")
        });
    unloadable.chain(missing).collect()
}

/// The `sourceInfo` of an extension `-e` names.
fn cli_source_info(path: &Path) -> SourceInfo {
    SourceInfo {
        path: path.display().to_string(),
        source: "cli".to_owned(),
        scope: "temporary".to_owned(),
        origin: "top-level".to_owned(),
        base_dir: None,
    }
}

/// An `-e` path as the reference resolves it: trimmed, `~` expanded, made absolute against the
/// working folder and normalised (`./x.ts` is reported as `<cwd>/x.ts`).
fn cli_path(given: &Path, cwd: &Path) -> PathBuf {
    crate::resources::patterns::resolve(&crate::paths::text(given), cwd)
}

/// The extension files a settings `extensions` array names, relative to `base` (`~` allowed):
/// a file as it is, a folder's extensions as [`files_in`] finds them; its patterns (`!`, `+`,
/// `-`, globs) then filter them as for skills and prompts.
fn settings_files(entries: &[String], base: &Path) -> Vec<PathBuf> {
    let (patterns, plain): (Vec<&str>, Vec<&str>) = entries
        .iter()
        .map(String::as_str)
        .partition(|entry| crate::resources::patterns::is_pattern(entry));
    let mut files = Vec::new();
    for entry in plain {
        let path = crate::resources::patterns::resolve(entry, base);
        if path.is_dir() {
            files.extend(files_in(&path));
        } else if path.is_file() {
            files.push(path);
        }
    }
    let enabled = crate::resources::patterns::apply_patterns(&files, &patterns, base);
    files.retain(|file| enabled.contains(file));
    files
}

/// The extensions of a folder: its `*.ts` and `*.js` files, and the entries of its
/// sub-folders, by name.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<PathBuf> = read
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let mut found = Vec::new();
    for entry in entries {
        if entry.is_dir() {
            found.extend(entries_of(&entry).unwrap_or_default());
        } else if entry
            .extension()
            .is_some_and(|ext| ext == "ts" || ext == "js")
        {
            found.push(entry);
        }
    }
    found
}

/// A package folder's entry points: the existing files of `package.json`'s `pi.extensions`,
/// else `index.ts`, else `index.js`.
fn entries_of(dir: &Path) -> Option<Vec<PathBuf>> {
    let declared: Vec<PathBuf> = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|manifest| manifest.pointer("/pi/extensions").cloned())
        .and_then(|list| list.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
        .map(|entry| dir.join(entry))
        .filter(|path| path.exists())
        .collect();
    if !declared.is_empty() {
        return Some(declared);
    }
    ["index.ts", "index.js"]
        .iter()
        .map(|name| dir.join(name))
        .find(|index| index.is_file())
        .map(|index| vec![index])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn cli_paths_come_first_then_the_trusted_project_then_the_agent_folder() {
        let root = tempfile::tempdir().unwrap();
        let cwd = root.path().join("work");
        let agent = root.path().join("agent");
        write(&cwd.join("mine.ts"), "");
        write(&cwd.join(".pi/extensions/proj.ts"), "");
        write(&agent.join("extensions/b.js"), "");
        write(&agent.join("extensions/a.ts"), "");
        write(&agent.join("extensions/notes.md"), "");
        write(&agent.join("extensions/pkg/index.ts"), "");
        write(
            &agent.join("extensions/manifest/package.json"),
            r#"{"pi":{"extensions":["./main.ts","./gone.ts"]}}"#,
        );
        write(&agent.join("extensions/manifest/main.ts"), "");
        write(&agent.join("extensions/empty/readme.txt"), "");
        let cli = [PathBuf::from("mine.ts"), agent.join("extensions/a.ts")];
        let discovery = Discovery {
            cli_paths: &cli,
            cwd: &cwd,
            agent_dir: &agent,
            project_trusted: true,
            no_discovery: false,
        };
        let files = discover(discovery);
        let paths: Vec<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(
            paths,
            [
                cwd.join("mine.ts"),
                agent.join("extensions/a.ts"),
                cwd.join(".pi/extensions/proj.ts"),
                agent.join("extensions/b.js"),
                agent.join("extensions/manifest/main.ts"),
                agent.join("extensions/pkg/index.ts"),
            ]
        );
        assert_eq!(files[1].source_info.source, "cli");
        assert_eq!(
            serde_json::to_value(&files[2].source_info).unwrap(),
            serde_json::json!({"path": cwd.join(".pi/extensions/proj.ts").display().to_string(), "source": "auto", "scope": "project", "origin": "top-level", "baseDir": cwd.join(".pi").display().to_string()})
        );
        let untrusted = discover(Discovery {
            project_trusted: false,
            ..discovery
        });
        assert_eq!(untrusted.len(), 5);
        let only_cli = discover(Discovery {
            no_discovery: true,
            ..discovery
        });
        assert_eq!(only_cli.len(), 2);
    }

    #[test]
    fn a_missing_cli_path_is_left_out_and_reported_in_the_reference_s_words() {
        let root = tempfile::tempdir().unwrap();
        write(&root.path().join("here.ts"), "");
        // Given as the user typed them: the reference resolves and normalises each.
        let cli = [
            PathBuf::from("./nope.ts"),
            PathBuf::from("sub/../here.ts"),
            PathBuf::from("gone.js"),
        ];
        let discovery = Discovery {
            cli_paths: &cli,
            cwd: root.path(),
            agent_dir: root.path(),
            project_trusted: false,
            no_discovery: true,
        };
        let paths: Vec<PathBuf> = discover(discovery).into_iter().map(|f| f.path).collect();
        assert_eq!(paths, [root.path().join("here.ts")]);
        let missing = |name: &str| {
            let path = root.path().join(name);
            format!(
                "Failed to load extension \"{0}\": Extension path does not exist: {0}",
                path.display()
            )
        };
        assert_eq!(
            missing_cli_paths(discovery),
            [missing("nope.ts"), missing("gone.js")]
        );
    }

    #[test]
    fn package_extensions_follow_the_local_ones_and_keep_the_files_they_claim() {
        let root = tempfile::tempdir().unwrap();
        let cwd = root.path().join("work");
        let agent = root.path().join("agent");
        write(&agent.join("extensions/own.ts"), "");
        write(&agent.join("extensions/shared.ts"), "");
        write(&root.path().join("pkgs/kit/extensions/kit.ts"), "");
        // The agent dir as a package claims its own extensions/ files; the filter turns one off.
        write(
            &agent.join("settings.json"),
            r#"{"packages": ["../pkgs/kit", {"source": ".", "extensions": ["!extensions/shared.ts"]}]}"#,
        );
        let discovery = Discovery {
            cli_paths: &[],
            cwd: &cwd,
            agent_dir: &agent,
            project_trusted: false,
            no_discovery: false,
        };
        let files = discover(discovery);
        let shown: Vec<(PathBuf, &str, &str)> = files
            .iter()
            .map(|file| {
                let info = &file.source_info;
                (
                    file.path.clone(),
                    info.source.as_str(),
                    info.origin.as_str(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    root.path().join("pkgs/kit/extensions/kit.ts"),
                    "../pkgs/kit",
                    "package"
                ),
                (agent.join("extensions/own.ts"), ".", "package"),
            ]
        );
        assert!(
            discover(Discovery {
                no_discovery: true,
                ..discovery
            })
            .is_empty()
        );
    }

    #[test]
    fn an_e_folder_is_a_package_and_one_without_an_entry_cannot_load() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        write(
            &dir.join("kit/package.json"),
            r#"{"pi": {"extensions": ["./ext"]}}"#,
        );
        write(&dir.join("kit/ext/index.ts"), "");
        write(&dir.join("bare/index.js"), "");
        write(&dir.join("plain/a.ts"), "");
        let cli = [
            PathBuf::from("kit"),
            PathBuf::from("./bare"),
            PathBuf::from("plain"),
        ];
        let discovery = Discovery {
            cli_paths: &cli,
            cwd: dir,
            agent_dir: &dir.join("agent"),
            project_trusted: false,
            no_discovery: true,
        };
        let files = discover(discovery);
        let loaded: Vec<(PathBuf, String)> = files
            .iter()
            .map(|file| (file.path.clone(), file.source_info.path.clone()))
            .collect();
        // A folder that is itself the extension is reported by its own path.
        assert_eq!(
            loaded,
            [
                (
                    dir.join("kit/ext/index.ts"),
                    dir.join("kit/ext/index.ts").display().to_string()
                ),
                (
                    dir.join("bare/index.js"),
                    dir.join("bare").display().to_string()
                ),
            ]
        );
        let plain = dir.join("plain").display().to_string();
        assert_eq!(
            missing_cli_paths(discovery),
            [format!(
                "Failed to load extension \"{plain}\": Failed to load extension: Cannot find module '{plain}'"
            )]
        );
    }
}
