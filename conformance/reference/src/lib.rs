//! Where the reference pi (the implementation this workspace is checked against) is installed.
//!
//! `install.sh` beside this crate installs it under `~/.cache/pi-reference` (or
//! `$PI_REFERENCE_HOME`) and prints the launcher's path; `$PI_REFERENCE` names that launcher when
//! it is elsewhere. The conformance runner resolves `--agent reference` with [`launcher`]; tests
//! that need the reference use [`launcher`] or [`launcher_path`] with [`or_skip`], so that they
//! say plainly when they are skipped and fail instead when `PI_REQUIRE_REFERENCE` is set (CI).
//!
//! Other releases sit beside it (`install.sh 1.6.0 ...`): each has a launcher
//! `<root>/bin/pi@<version>`, found with [`release_launcher`]; `--agent reference@1.6.0` of the
//! conformance runner uses it.
//!
//! Only the standard library: every crate of the workspace can use it, as a dev-dependency too.

use std::path::{Path, PathBuf};

/// The reference version this workspace follows (the folder `install.sh` installs it into).
pub const VERSION: &str = "0.84.1";

/// The arguments that run an agent (the reference or pi-agent) in RPC mode without a session
/// file, on the mock provider's first model: what the runner and the tests start agents with.
pub const MOCK_RPC_ARGS: [&str; 7] = [
    "--mode",
    "rpc",
    "--no-session",
    "--provider",
    "mock",
    "--model",
    "mock-model-1",
];

/// Where the launcher should be: `$PI_REFERENCE` when it is set and not empty, else
/// `<root>/bin/pi` under [`install_root`] (`~/.cache/pi-reference/bin/pi` by default). `None`
/// when neither that variable nor `HOME` is set. The file may not exist: see [`launcher`].
pub fn launcher_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PI_REFERENCE").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    Some(install_root()?.join("bin/pi"))
}

/// The installed launcher: [`launcher_path`] when it is a file.
pub fn launcher() -> Option<PathBuf> {
    launcher_path().filter(|path| path.is_file())
}

/// The folder under which `install.sh` installs releases: `$PI_REFERENCE_HOME` when set, else
/// the folder two levels above `$PI_REFERENCE` (its launcher is `<root>/bin/pi`), else
/// `~/.cache/pi-reference`. `None` when none of these variables is set.
pub fn install_root() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(root) = set("PI_REFERENCE_HOME") {
        return Some(PathBuf::from(root));
    }
    if let Some(launcher) = set("PI_REFERENCE") {
        return Some(Path::new(&launcher).parent()?.parent()?.to_owned());
    }
    Some(Path::new(&set("HOME")?).join(".cache/pi-reference"))
}

/// Where the launcher of release `version` should be: [`launcher_path`] for [`VERSION`], else
/// `<root>/bin/pi@<version>` under [`install_root`]. The file may not exist.
pub fn release_launcher_path(version: &str) -> Option<PathBuf> {
    if version == VERSION {
        return launcher_path();
    }
    Some(install_root()?.join("bin").join(format!("pi@{version}")))
}

/// The installed launcher of release `version`: [`release_launcher_path`] when it is a file.
pub fn release_launcher(version: &str) -> Option<PathBuf> {
    release_launcher_path(version).filter(|path| path.is_file())
}

/// The releases installed under [`install_root`] (a `bin/pi@<version>` launcher each, and
/// [`VERSION`] when [`launcher`] exists), in no particular order.
pub fn installed_releases() -> Vec<String> {
    let mut releases: Vec<String> = install_root()
        .and_then(|root| std::fs::read_dir(root.join("bin")).ok())
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            Some(name.strip_prefix("pi@")?.to_owned())
        })
        .collect();
    if launcher().is_some() && !releases.iter().any(|release| release == VERSION) {
        releases.push(VERSION.to_owned());
    }
    releases
}

/// The release a launcher starts: `X` for `pi@X`, else [`VERSION`] (`bin/pi`, `$PI_REFERENCE`).
pub fn launcher_release(launcher: &Path) -> String {
    launcher
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_prefix("pi@"))
        .unwrap_or(VERSION)
        .to_owned()
}

/// The folder of the installed release that `launcher` starts (`<root>/bin/pi` belongs to
/// `<root>/0.84.1`, `<root>/bin/pi@1.6.0` to `<root>/1.6.0`; each holds `node/` and `pi/`).
/// `None` when the path has no grandparent.
pub fn version_dir(launcher: &Path) -> Option<PathBuf> {
    Some(
        launcher
            .parent()?
            .parent()?
            .join(launcher_release(launcher)),
    )
}

/// The reference's npm package `name` (`pi-coding-agent`, `pi-agent-core`, `pi-ai`) in the
/// install that `launcher` starts.
pub fn package_dir(launcher: &Path, name: &str) -> Option<PathBuf> {
    Some(
        version_dir(launcher)?
            .join("pi/node_modules/@earendil-works")
            .join(name),
    )
}

/// The oldest Node.js that runs pi-agent's extension host (module hooks, `module.register`);
/// of Node 18, 18.19 and later ones too.
pub const EXTENSION_NODE_MIN: (u64, u64) = (20, 6);

/// Whether Node.js `version` runs pi-agent's extension host.
pub fn runs_extensions(version: (u64, u64)) -> bool {
    version >= EXTENSION_NODE_MIN || (version.0 == 18 && version.1 >= 19)
}

/// The Node.js that the install `launcher` belongs to brings (the reference runs on it), when
/// it is there.
pub fn bundled_node(launcher: &Path) -> Option<PathBuf> {
    Some(version_dir(launcher)?.join("node/node_modules/node/bin/node"))
        .filter(|node| node.is_file())
}

/// A Node.js that can run pi-agent's extensions: `$PI_AGENT_NODE` when it is set, else `node`
/// on `PATH` when it [`runs_extensions`], else the Node.js of the installed reference
/// ([`bundled_node`]), so that a machine whose own Node.js is too old still runs them. `None`
/// when there is none.
pub fn extension_node() -> Option<PathBuf> {
    if let Some(node) = std::env::var_os("PI_AGENT_NODE").filter(|node| !node.is_empty()) {
        return Some(PathBuf::from(node));
    }
    let on_path = PathBuf::from("node");
    if node_version(&on_path).is_some_and(runs_extensions) {
        return Some(on_path);
    }
    launcher_path()
        .and_then(|launcher| bundled_node(&launcher))
        .filter(|node| node_version(node).is_some_and(runs_extensions))
}

/// The major and minor version `program --version` reports (`v22.23.0` gives `(22, 23)`).
pub fn node_version(program: &Path) -> Option<(u64, u64)> {
    let output = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let mut parts = text.trim().strip_prefix('v')?.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// Whether a missing reference fails a test instead of skipping it: `PI_REQUIRE_REFERENCE` is
/// set (CI sets it to 1).
pub fn required() -> bool {
    std::env::var_os("PI_REQUIRE_REFERENCE").is_some()
}

/// For tests: `found` when it is `Some`. Otherwise says on stderr that the test is skipped and
/// why (`why` names what is missing), and returns `None`; when [`required`], panics with `why`
/// instead.
pub fn or_skip<T>(found: Option<T>, why: &str) -> Option<T> {
    if found.is_none() {
        assert!(!required(), "{why} (PI_REQUIRE_REFERENCE is set)");
        eprintln!("SKIPPED: {why}");
    }
    found
}

/// For tests that run the reference: the installed launcher, or `None` after saying on stderr
/// where it was looked for and that `unchecked` (what the test covers) is not checked; panics
/// instead when [`required`].
pub fn launcher_or_skip(unchecked: &str) -> Option<PathBuf> {
    let missing = match launcher_path() {
        Some(path) if path.is_file() => return Some(path),
        Some(path) => format!(
            "the reference pi launcher {} does not exist",
            path.display()
        ),
        None => "neither PI_REFERENCE nor HOME is set".to_owned(),
    };
    or_skip(
        None,
        &format!(
            "{missing} (run conformance/reference/install.sh or set PI_REFERENCE); \
             {unchecked} not checked"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_folder_is_beside_the_launchers_bin_folder() {
        let launcher = Path::new("/opt/pi-reference/bin/pi");
        assert_eq!(
            version_dir(launcher),
            Some(PathBuf::from("/opt/pi-reference/0.84.1"))
        );
        assert_eq!(
            package_dir(launcher, "pi-ai"),
            Some(PathBuf::from(
                "/opt/pi-reference/0.84.1/pi/node_modules/@earendil-works/pi-ai"
            ))
        );
    }

    #[test]
    fn a_release_launcher_names_its_release_folder() {
        let launcher = Path::new("/opt/pi-reference/bin/pi@1.6.0");
        assert_eq!(launcher_release(launcher), "1.6.0");
        assert_eq!(launcher_release(Path::new("/x/pi")), VERSION);
        assert_eq!(
            version_dir(launcher),
            Some(PathBuf::from("/opt/pi-reference/1.6.0"))
        );
    }

    #[test]
    fn a_launcher_without_a_grandparent_has_no_install() {
        assert_eq!(version_dir(Path::new("pi")), None);
        assert_eq!(package_dir(Path::new(""), "pi-ai"), None);
    }
}
