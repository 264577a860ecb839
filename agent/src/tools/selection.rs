//! Which tools a session offers the model: `--tools`, `--no-tools`, `--no-builtin-tools` and
//! `--exclude-tools`, applied as the reference pi applies them.

/// The tools active when no flag says otherwise.
const DEFAULT_ACTIVE: [&str; 4] = ["read", "bash", "edit", "write"];

/// The tool flags of the command line. The default (no flags) offers the four built-in tools and
/// every tool extensions register.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSelection {
    /// `--tools a,b`: only these names, built-in or registered by extensions, in this order.
    pub tools: Option<Vec<String>>,
    /// `--no-tools`: no tool at all unless `tools` names it.
    pub no_tools: bool,
    /// `--no-builtin-tools`: no built-in tool unless `tools` names it; extension tools stay.
    pub no_builtin_tools: bool,
    /// `--exclude-tools a,b`: never these names.
    pub exclude_tools: Vec<String>,
}

impl ToolSelection {
    /// Whether a tool of this name may be offered at all (`--tools` names it, or there is no
    /// `--tools` and no `--no-tools`; `--exclude-tools` does not name it).
    pub fn allows(&self, name: &str) -> bool {
        let allowed = match &self.tools {
            Some(tools) => tools.iter().any(|tool| tool == name),
            None => !self.no_tools,
        };
        allowed && !self.exclude_tools.iter().any(|tool| tool == name)
    }

    /// The active tools out of `available` (the built-in tools, those extensions replaced in
    /// place, then the other extension tools; `name_of` names each), in the order the model
    /// sees them: first the names `--tools` gives (or the default four), then, without
    /// `--tools`, the allowed ones of `extension_names` in its order (of registration). Names
    /// that name no available tool are dropped.
    pub fn select<T>(
        &self,
        available: Vec<T>,
        name_of: impl Fn(&T) -> &str,
        extension_names: &[&str],
    ) -> Vec<T> {
        let chosen: Vec<usize> = {
            let initial: Vec<&str> = match &self.tools {
                Some(tools) => tools.iter().map(String::as_str).collect(),
                None if self.no_tools || self.no_builtin_tools => Vec::new(),
                None => DEFAULT_ACTIVE.to_vec(),
            };
            let mut names: Vec<&str> = initial
                .into_iter()
                .filter(|name| self.allows(name))
                .collect();
            // Without `--tools`, every extension tool joins them, in the order of registration
            // (one that replaces a built-in tool too); `--tools` already named all it allows.
            if self.tools.is_none() {
                names.extend(
                    extension_names
                        .iter()
                        .copied()
                        .filter(|name| self.allows(name)),
                );
            }
            let mut chosen: Vec<usize> = Vec::new();
            for name in names {
                // The first tool of a name stands for it; a name is offered once.
                if let Some(index) = available.iter().position(|tool| name_of(tool) == name)
                    && !chosen.contains(&index)
                {
                    chosen.push(index);
                }
            }
            chosen
        };
        let mut slots: Vec<Option<T>> = available.into_iter().map(Some).collect();
        chosen
            .into_iter()
            .filter_map(|index| slots[index].take())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolDefinition;

    fn names(selection: &ToolSelection, extensions: &[&'static str]) -> Vec<String> {
        let mut available = crate::tools::schema::definitions();
        for name in extensions {
            available.push(ToolDefinition {
                name: (*name).into(),
                description: String::new(),
                parameters: serde_json::json!({}),
            });
        }
        selection
            .select(available, |tool| &tool.name, extensions)
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    }

    fn list(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn no_flags_offer_the_builtin_tools_then_extension_tools() {
        let selection = ToolSelection::default();
        assert_eq!(
            names(&selection, &["deploy"]),
            ["read", "bash", "edit", "write", "deploy"]
        );
    }

    #[test]
    fn tools_keeps_the_given_order_and_drops_unknown_names() {
        let selection = ToolSelection {
            tools: Some(list(&["write", "nosuch", "deploy", "read"])),
            ..ToolSelection::default()
        };
        assert_eq!(
            names(&selection, &["deploy", "other"]),
            ["write", "deploy", "read"]
        );
    }

    #[test]
    fn no_tools_offers_nothing_but_no_builtin_tools_keeps_extension_tools() {
        let none = ToolSelection {
            no_tools: true,
            ..ToolSelection::default()
        };
        assert!(names(&none, &["deploy"]).is_empty());
        let no_builtin = ToolSelection {
            no_builtin_tools: true,
            ..ToolSelection::default()
        };
        assert_eq!(names(&no_builtin, &["deploy"]), ["deploy"]);
    }

    #[test]
    fn exclude_tools_removes_names_from_every_source() {
        let selection = ToolSelection {
            exclude_tools: list(&["bash", "deploy"]),
            ..ToolSelection::default()
        };
        assert_eq!(
            names(&selection, &["deploy", "other"]),
            ["read", "edit", "write", "other"]
        );
        let with_tools = ToolSelection {
            tools: Some(list(&["bash", "edit"])),
            exclude_tools: list(&["bash"]),
            ..ToolSelection::default()
        };
        assert_eq!(names(&with_tools, &[]), ["edit"]);
    }
}
