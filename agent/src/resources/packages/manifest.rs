//! The `pi` manifest of a package's `package.json`: which files are its extensions, skills,
//! prompt templates and themes (paths, globs and `!`/`+`/`-` patterns, relative to the
//! package's folder), and the installed version npm wrote there.

use std::path::Path;

use serde_json::Value;

/// The kinds of resource a package brings, in the reference's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `extensions`: `.ts` and `.js` files.
    Extensions,
    /// `skills`: `SKILL.md` folders and `.md` files.
    Skills,
    /// `prompts`: `.md` files.
    Prompts,
    /// `themes`: `.json` files.
    Themes,
}

impl Kind {
    /// Every kind, in order.
    pub const ALL: [Kind; 4] = [Kind::Extensions, Kind::Skills, Kind::Prompts, Kind::Themes];

    /// The key of the manifest and of a settings filter, and the conventional folder's name.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Extensions => "extensions",
            Kind::Skills => "skills",
            Kind::Prompts => "prompts",
            Kind::Themes => "themes",
        }
    }
}

/// A `package.json`'s `pi` object: for each kind, its list when it is a list of strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    lists: [Option<Vec<String>>; 4],
}

impl Manifest {
    /// The manifest of `package_json`, or `None` when the file is missing, is not JSON or has
    /// no `pi` object.
    pub fn read(package_json: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(package_json).ok()?;
        let package: Value = serde_json::from_str(&text).ok()?;
        let pi = package.get("pi")?.as_object()?;
        let mut manifest = Self::default();
        for (slot, kind) in manifest.lists.iter_mut().zip(Kind::ALL) {
            *slot = string_list(pi.get(kind.key()));
        }
        Some(manifest)
    }

    /// The entries it gives for `kind`, if it gives a list.
    pub fn entries(&self, kind: Kind) -> Option<&[String]> {
        let index = Kind::ALL.iter().position(|known| *known == kind)?;
        self.lists[index].as_deref()
    }
}

/// A list whose every element is a string (anything else is no list).
pub fn string_list(value: Option<&Value>) -> Option<Vec<String>> {
    value?
        .as_array()?
        .iter()
        .map(|entry| entry.as_str().map(str::to_owned))
        .collect()
}

/// The `version` of the package.json in `folder`, as npm installed it.
pub fn installed_version(folder: &Path) -> Option<String> {
    let text = std::fs::read_to_string(folder.join("package.json")).ok()?;
    let package: Value = serde_json::from_str(&text).ok()?;
    package.get("version")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_string_lists_count_and_a_manifest_needs_a_pi_object() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("package.json");
        std::fs::write(
            &file,
            r#"{"version": "1.2.0", "pi": {"extensions": ["./a.ts"], "skills": ["x", 3], "prompts": "p"}}"#,
        )?;
        let manifest = Manifest::read(&file).ok_or_else(|| anyhow::anyhow!("no manifest"))?;
        assert_eq!(
            manifest.entries(Kind::Extensions),
            Some(&["./a.ts".to_owned()][..])
        );
        assert_eq!(manifest.entries(Kind::Skills), None);
        assert_eq!(manifest.entries(Kind::Prompts), None);
        assert_eq!(installed_version(dir.path()).as_deref(), Some("1.2.0"));
        std::fs::write(&file, r#"{"name": "plain", "pi": []}"#)?;
        assert_eq!(Manifest::read(&file), None);
        assert_eq!(installed_version(dir.path()), None);
        Ok(())
    }
}
