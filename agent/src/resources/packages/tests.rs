//! The `packages` lists resolved from real settings files and package folders.

use super::*;

struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    agent: PathBuf,
    cwd: PathBuf,
}

impl World {
    fn new() -> anyhow::Result<Self> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().to_path_buf();
        Ok(Self {
            agent: root.join("agent"),
            cwd: root.join("work"),
            root,
            _dir: dir,
        })
    }

    fn write(&self, path: &str, text: &str) -> anyhow::Result<()> {
        let path = self.root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
        Ok(())
    }

    /// A package in `folder` with one extension file and the given `package.json`.
    fn package(&self, folder: &str, package_json: &str) -> anyhow::Result<()> {
        self.write(&format!("{folder}/package.json"), package_json)?;
        self.write(&format!("{folder}/extensions/main.ts"), "")
    }

    fn resolve(&self, trusted: bool) -> Packages {
        resolve(&self.agent, &self.cwd, trusted)
    }

    /// `(path under the root, source, scope)` of the enabled resources of `kind`.
    fn enabled(&self, packages: &Packages, kind: Kind) -> Vec<(String, String, String)> {
        packages
            .enabled(kind)
            .map(|found| {
                let path = found.path.strip_prefix(&self.root).unwrap_or(&found.path);
                (
                    path.to_string_lossy().into_owned(),
                    found.source_info.source.clone(),
                    found.source_info.scope.clone(),
                )
            })
            .collect()
    }
}

fn row(path: &str, source: &str, scope: &str) -> (String, String, String) {
    (path.into(), source.into(), scope.into())
}

#[test]
fn installed_npm_git_and_local_packages_load_from_where_the_reference_installs_them()
-> anyhow::Result<()> {
    let world = World::new()?;
    world.package(
        "agent/npm/node_modules/@acme/tools",
        r#"{"name": "@acme/tools", "version": "1.4.0"}"#,
    )?;
    world.package("agent/git/github.com/acme/kit", r#"{"name": "kit"}"#)?;
    world.package("pkgs/local", r#"{"name": "local", "version": "0.0.1"}"#)?;
    world.write("pkgs/single.ts", "")?;
    world.write(
        "agent/settings.json",
        r#"{"packages": ["npm:@acme/tools@^1.2", "git:github.com/acme/kit@v1", "../pkgs/local", "../pkgs/single.ts", 7, {"no": "source"}]}"#,
    )?;
    let packages = world.resolve(false);
    assert_eq!(packages.problems, []);
    assert_eq!(
        world.enabled(&packages, Kind::Extensions),
        [
            row(
                "agent/npm/node_modules/@acme/tools/extensions/main.ts",
                "npm:@acme/tools@^1.2",
                "user"
            ),
            row(
                "agent/git/github.com/acme/kit/extensions/main.ts",
                "git:github.com/acme/kit@v1",
                "user"
            ),
            row("pkgs/local/extensions/main.ts", "../pkgs/local", "user"),
            row("pkgs/single.ts", "../pkgs/single.ts", "user"),
        ]
    );
    let single = &packages.of(Kind::Extensions)[3].source_info;
    assert_eq!(
        single.base_dir.as_deref(),
        Some(world.root.join("pkgs").to_string_lossy().as_ref())
    );
    Ok(())
}

#[test]
fn missing_packages_and_wrong_versions_load_nothing_and_are_reported() -> anyhow::Result<()> {
    let world = World::new()?;
    world.package(
        "agent/npm/node_modules/old",
        r#"{"name": "old", "version": "1.0.0"}"#,
    )?;
    world.package(
        "agent/npm/node_modules/unversioned",
        r#"{"name": "unversioned"}"#,
    )?;
    world.write(
        "agent/settings.json",
        r#"{"npmCommand": ["false"], "packages": ["npm:gone", "npm:old@2.0.0", "npm:unversioned", "git:github.com/a/b", "./nowhere"]}"#,
    )?;
    let packages = world.resolve(false);
    assert!(packages.of(Kind::Extensions).is_empty());
    let agent = &world.agent;
    assert_eq!(
        packages.problems,
        [
            PackageError::NotInstalled {
                package: "npm:gone".into(),
                scope: "user",
                path: agent.join("npm/node_modules/gone"),
            },
            PackageError::WrongVersion {
                package: "npm:old@2.0.0".into(),
                scope: "user",
                path: agent.join("npm/node_modules/old"),
                installed: Some("1.0.0".into()),
            },
            PackageError::WrongVersion {
                package: "npm:unversioned".into(),
                scope: "user",
                path: agent.join("npm/node_modules/unversioned"),
                installed: None,
            },
            PackageError::NotInstalled {
                package: "git:github.com/a/b".into(),
                scope: "user",
                path: agent.join("git/github.com/a/b"),
            },
            PackageError::PathMissing {
                package: "./nowhere".into(),
                scope: "user",
                path: agent.join("nowhere"),
            },
        ]
    );
    let message = packages.problems[0].to_string();
    assert!(message.contains("is not installed"), "{message}");
    assert!(message.contains("pi install npm:gone"), "{message}");
    Ok(())
}

#[test]
fn the_project_s_entry_wins_and_comes_first_when_the_project_is_trusted() -> anyhow::Result<()> {
    let world = World::new()?;
    world.package("agent/npm/node_modules/shared", r#"{"version": "1.0.0"}"#)?;
    world.package(
        "work/.pi/npm/node_modules/shared",
        r#"{"version": "1.1.0"}"#,
    )?;
    world.package("agent/npm/node_modules/mine", r#"{"version": "3.0.0"}"#)?;
    world.write(
        "agent/settings.json",
        r#"{"packages": ["npm:mine", "npm:shared"]}"#,
    )?;
    world.write(
        "work/.pi/settings.json",
        r#"{"packages": ["npm:shared@1"]}"#,
    )?;
    assert_eq!(
        world.enabled(&world.resolve(true), Kind::Extensions),
        [
            row(
                "work/.pi/npm/node_modules/shared/extensions/main.ts",
                "npm:shared@1",
                "project"
            ),
            row(
                "agent/npm/node_modules/mine/extensions/main.ts",
                "npm:mine",
                "user"
            ),
        ]
    );
    // Untrusted, the project's settings are not read.
    assert_eq!(
        world.enabled(&world.resolve(false), Kind::Extensions),
        [
            row(
                "agent/npm/node_modules/mine/extensions/main.ts",
                "npm:mine",
                "user"
            ),
            row(
                "agent/npm/node_modules/shared/extensions/main.ts",
                "npm:shared",
                "user"
            ),
        ]
    );
    Ok(())
}

#[test]
fn an_autoload_off_project_entry_changes_the_global_package() -> anyhow::Result<()> {
    let world = World::new()?;
    world.write(
        "agent/npm/node_modules/kit/package.json",
        r#"{"version": "1.0.0"}"#,
    )?;
    world.write("agent/npm/node_modules/kit/prompts/a.md", "")?;
    world.write("agent/npm/node_modules/kit/prompts/b.md", "")?;
    world.write("agent/settings.json", r#"{"packages": ["npm:kit"]}"#)?;
    world.write(
        "work/.pi/settings.json",
        r#"{"packages": [{"source": "npm:kit", "autoload": false, "prompts": ["!prompts/a.md"]}]}"#,
    )?;
    let packages = world.resolve(true);
    // The project's change claims a.md (disabled) first; the global entry adds b.md.
    let prompts: Vec<(String, bool, String)> = packages
        .of(Kind::Prompts)
        .iter()
        .map(|found| {
            let name = found
                .path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned());
            (
                name.unwrap_or_default(),
                found.enabled,
                found.source_info.scope.clone(),
            )
        })
        .collect();
    assert_eq!(
        prompts,
        [
            ("a.md".into(), false, "project".into()),
            ("b.md".into(), true, "user".into())
        ]
    );
    Ok(())
}

#[test]
fn a_folder_without_resources_is_itself_an_extension_loaded_through_its_entry() -> anyhow::Result<()>
{
    let world = World::new()?;
    world.write("pkgs/bare/index.ts", "")?;
    world.write("pkgs/main/package.json", r#"{"main": "lib/start"}"#)?;
    world.write("pkgs/main/lib/start.js", "")?;
    world.write(
        "agent/settings.json",
        r#"{"packages": ["../pkgs/bare", "../pkgs/main"]}"#,
    )?;
    let packages = world.resolve(false);
    let paths: Vec<&Path> = packages
        .of(Kind::Extensions)
        .iter()
        .map(|found| found.path.as_path())
        .collect();
    assert_eq!(
        paths,
        [world.root.join("pkgs/bare"), world.root.join("pkgs/main")]
    );
    assert_eq!(
        extension_entry(paths[0]),
        Some(world.root.join("pkgs/bare/index.ts"))
    );
    assert_eq!(
        extension_entry(paths[1]),
        Some(world.root.join("pkgs/main/lib/start.js"))
    );
    assert_eq!(extension_entry(&world.root.join("pkgs")), None);
    // As a module loader resolves a folder: `.js` before `.ts`.
    world.write("pkgs/bare/index.js", "")?;
    assert_eq!(
        extension_entry(paths[0]),
        Some(world.root.join("pkgs/bare/index.js"))
    );
    Ok(())
}

#[test]
fn versions_match_ranges_and_tags() {
    assert!(version_matches(Some("1.2.3"), None));
    assert!(version_matches(Some("1.2.3"), Some("latest")));
    assert!(version_matches(Some("1.2.3"), Some("^1.0.0")));
    assert!(!version_matches(Some("1.2.3"), Some("1.2.4")));
    assert!(!version_matches(Some("garbage"), Some("^1")));
    assert!(!version_matches(None, None));
}
