//! Where an installed package is on disk, as the reference installs them (pi-agent never
//! installs: it only looks): npm packages of the global settings under
//! `<agent dir>/npm/node_modules/<name>` (else npm's global `node_modules`, where older pi
//! releases installed them), of the project settings under `.pi/npm/node_modules/<name>`;
//! git packages cloned to `<agent dir>/git/<host>/<path>` or `.pi/git/<host>/<path>`. Those of
//! `-e` (scope `temporary`) under `<agent dir>/tmp/extensions/`, in a folder named by a hash.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::PackageError;
use super::git_url::GitSource;

/// The folders packages are installed under, and how npm is run to find its global folder.
#[derive(Debug, Clone)]
pub struct InstallRoots {
    /// The agent folder (global packages).
    pub agent_dir: PathBuf,
    /// The working folder (its `.pi` holds the project's packages).
    pub cwd: PathBuf,
    /// The settings' `npmCommand` (`["mise", "exec", "--", "npm"]`), else `npm`.
    pub npm_command: Vec<String>,
}

impl InstallRoots {
    /// The folder of `scope`'s installs of `kind` (`npm` or `git`).
    fn root(&self, scope: &str, kind: &str) -> PathBuf {
        if scope == "project" {
            self.cwd.join(".pi").join(kind)
        } else {
            self.agent_dir.join(kind)
        }
    }

    /// A folder of `-e`'s installs: `<agent dir>/tmp/extensions/<prefix>/<hash>/<suffix>`, the
    /// hash being the first 8 hex digits of the SHA-256 of `<prefix>-<suffix>`.
    fn temporary(&self, prefix: &str, suffix: &str) -> PathBuf {
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            format!("{prefix}-{suffix}").as_bytes(),
        );
        let hash: String = digest.as_ref()[..4]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let root = self
            .agent_dir
            .join("tmp/extensions")
            .join(prefix)
            .join(hash);
        crate::resources::patterns::resolve(suffix, &root)
    }

    /// Where npm package `name` of `scope` is: the managed folder, or for the global settings
    /// npm's global folder when only that one holds it.
    pub fn npm_path(&self, name: &str, scope: &str) -> PathBuf {
        if scope == "temporary" {
            return self.temporary("npm", "").join("node_modules").join(name);
        }
        let managed = self.root(scope, "npm").join("node_modules").join(name);
        if scope != "user" || managed.exists() {
            return managed;
        }
        match self.legacy_global_path(name) {
            Some(global) if global.exists() => global,
            _ => managed,
        }
    }

    /// Where git package `git` of `scope` is cloned; refused when its host and path would
    /// lead outside the clone folder.
    pub fn git_path(&self, git: &GitSource, scope: &str) -> Result<PathBuf, PackageError> {
        if scope == "temporary" {
            let prefix = format!("git-{}", git.host);
            let path = self.temporary(&prefix, &git.path);
            let root = self.agent_dir.join("tmp/extensions").join(prefix);
            return match path.starts_with(&root) {
                true => Ok(path),
                false => Err(PackageError::OutsideInstallRoot { path }),
            };
        }
        let root = self.root(scope, "git");
        let path =
            crate::resources::patterns::resolve(&format!("{}/{}", git.host, git.path), &root);
        if path != root && !path.starts_with(&root) {
            return Err(PackageError::OutsideInstallRoot { path });
        }
        Ok(path)
    }

    /// npm's (or pnpm's, or bun's) global folder for `name`, asked of the package manager once
    /// per process and command.
    fn legacy_global_path(&self, name: &str) -> Option<PathBuf> {
        let manager = self.manager_name();
        if manager == "pnpm" {
            let listing = self.run(&["list", "-g", "--depth", "0", "--json"])?;
            let entries: serde_json::Value = serde_json::from_str(&listing).ok()?;
            return entries.as_array()?.iter().find_map(|entry| {
                let path = entry
                    .get("dependencies")?
                    .get(name)?
                    .get("path")?
                    .as_str()?;
                Some(PathBuf::from(path))
            });
        }
        static ROOTS: Mutex<Option<HashMap<Vec<String>, Option<PathBuf>>>> = Mutex::new(None);
        let mut cache = ROOTS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let roots = cache.get_or_insert_with(HashMap::new);
        let root = roots
            .entry(self.npm_command.clone())
            .or_insert_with(|| {
                if manager == "bun" {
                    let bin = PathBuf::from(self.run(&["pm", "bin", "-g"])?);
                    Some(bin.parent()?.join("install/global/node_modules"))
                } else {
                    self.run(&["root", "-g"]).map(PathBuf::from)
                }
            })
            .clone();
        Some(root?.join(name))
    }

    /// The package manager's name: the program after the command's last `--`, else the command.
    fn manager_name(&self) -> String {
        let after = match self.npm_command.iter().rposition(|part| part == "--") {
            Some(separator) => self.npm_command.get(separator + 1),
            None => self.npm_command.first(),
        };
        let program = after.map(Path::new).and_then(Path::file_name);
        let name = program
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        [".cmd", ".exe", ".CMD", ".EXE"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .map_or(name.clone(), str::to_owned)
    }

    /// The command's trimmed output, or `None` when it cannot run or fails.
    fn run(&self, args: &[&str]) -> Option<String> {
        let (program, before) = self.npm_command.split_first()?;
        let output = std::process::Command::new(program)
            .args(before)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .ok()?;
        if !output.status.success() {
            return None;
        }
        let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        (!text.is_empty()).then_some(text)
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn roots(dir: &Path, npm_command: &[&str]) -> InstallRoots {
        InstallRoots {
            agent_dir: dir.join("agent"),
            cwd: dir.join("work"),
            npm_command: npm_command.iter().map(|part| part.to_string()).collect(),
        }
    }

    #[test]
    fn npm_packages_live_in_the_scope_s_managed_folder() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let roots = roots(dir.path(), &["false"]);
        assert_eq!(
            roots.npm_path("@acme/tools", "project"),
            dir.path().join("work/.pi/npm/node_modules/@acme/tools")
        );
        // Not installed and npm gives no global folder: the managed path all the same.
        assert_eq!(
            roots.npm_path("tools", "user"),
            dir.path().join("agent/npm/node_modules/tools")
        );
        Ok(())
    }

    #[test]
    fn a_global_package_is_found_in_npm_s_global_folder() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let global = dir.path().join("global/node_modules");
        std::fs::create_dir_all(global.join("tools"))?;
        // A stand-in package manager that prints its global folder.
        let script = dir.path().join("fake-npm");
        std::fs::write(&script, format!("#!/bin/sh\necho {}\n", global.display()))?;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
        let roots = roots(dir.path(), &[script.to_string_lossy().as_ref()]);
        assert_eq!(roots.npm_path("tools", "user"), global.join("tools"));
        assert_eq!(
            roots.npm_path("tools", "project"),
            dir.path().join("work/.pi/npm/node_modules/tools")
        );
        Ok(())
    }

    #[test]
    fn git_clones_live_under_host_and_path_and_may_not_leave_the_folder() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let roots = roots(dir.path(), &["npm"]);
        let git = |host: &str, path: &str| GitSource {
            repo: String::new(),
            host: host.into(),
            path: path.into(),
            git_ref: None,
        };
        assert_eq!(
            roots.git_path(&git("github.com", "acme/tools"), "user")?,
            dir.path().join("agent/git/github.com/acme/tools")
        );
        assert!(roots.git_path(&git("..", "../../etc"), "project").is_err());
        // `-e` installs: SHA-256("npm-") begins f35b2129, SHA-256("git-github.com-acme/tools")
        // 6832fafd.
        assert_eq!(
            roots.npm_path("tools", "temporary"),
            dir.path()
                .join("agent/tmp/extensions/npm/f35b2129/node_modules/tools")
        );
        assert_eq!(
            roots.git_path(&git("github.com", "acme/tools"), "temporary")?,
            dir.path()
                .join("agent/tmp/extensions/git-github.com/6832fafd/acme/tools")
        );
        assert_eq!(roots.manager_name(), "npm",);
        let wrapped = super::InstallRoots {
            npm_command: vec![
                "mise".into(),
                "exec".into(),
                "--".into(),
                "/opt/pnpm.cmd".into(),
            ],
            ..roots
        };
        assert_eq!(wrapped.manager_name(), "pnpm");
        Ok(())
    }
}
