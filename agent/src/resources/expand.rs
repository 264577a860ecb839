//! What a prompt's leading `/name` expands to: `/skill:name args` becomes the skill's block
//! followed by the arguments, `/template args` the template with the arguments substituted.

use super::{Resources, split_front_matter};

impl Resources {
    /// `/skill:name args` as the skill block plus the arguments, then `/template args` with
    /// the arguments substituted; anything else unchanged.
    pub fn expand(&self, text: &str) -> String {
        let text = self.expand_skill(text);
        self.expand_template(&text)
    }

    fn expand_skill(&self, text: &str) -> String {
        let Some(rest) = text.strip_prefix("/skill:") else {
            return text.to_owned();
        };
        let (name, args) = match text.find(' ') {
            Some(space) => (&text[7..space], crate::js::trim(&text[space + 1..])),
            None => (rest, ""),
        };
        let Some(skill) = self.skills.iter().find(|skill| skill.name == name) else {
            return text.to_owned();
        };
        let Ok(content) = std::fs::read_to_string(&skill.file_path) else {
            return text.to_owned();
        };
        let (_, body) = split_front_matter(&content);
        let block = format!(
            "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
            skill.name,
            skill.file_path.display(),
            skill.base_dir.display(),
            crate::js::trim(&body)
        );
        if args.is_empty() {
            block
        } else {
            format!("{block}\n\n{args}")
        }
    }

    fn expand_template(&self, text: &str) -> String {
        let Some(rest) = text.strip_prefix('/') else {
            return text.to_owned();
        };
        let name_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            return text.to_owned();
        }
        let args_text = rest[name_end..].trim_start();
        let Some(template) = self.templates.iter().find(|t| t.name == name) else {
            return text.to_owned();
        };
        substitute_args(&template.content, &parse_args(args_text))
    }
}

/// Arguments split on whitespace, with single or double quotes grouping (quotes removed).
pub fn parse_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c.is_whitespace() => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    args
}

/// `$1`, `$@`, `$ARGUMENTS`, `${N:-default}`, `${@:start}` and `${@:start:length}` replaced.
pub fn substitute_args(content: &str, args: &[String]) -> String {
    static PATTERN: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)",
        )
        .ok()
    });
    let Some(pattern) = PATTERN.as_ref() else {
        return content.to_owned();
    };
    let all = args.join(" ");
    let nth = |index: &str| -> String {
        index
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| args.get(i).cloned())
            .unwrap_or_default()
    };
    pattern
        .replace_all(content, |caps: &regex::Captures<'_>| {
            if let Some(target) = caps.get(1) {
                let value = match target.as_str() {
                    "@" | "ARGUMENTS" => all.clone(),
                    index => nth(index),
                };
                let default = caps.get(2).map_or("", |m| m.as_str());
                return if value.is_empty() {
                    default.to_owned()
                } else {
                    value
                };
            }
            if let Some(start) = caps.get(3) {
                let start = start
                    .as_str()
                    .parse::<usize>()
                    .unwrap_or(1)
                    .saturating_sub(1)
                    .min(args.len());
                let end = match caps.get(4) {
                    Some(length) => {
                        (start + length.as_str().parse::<usize>().unwrap_or(0)).min(args.len())
                    }
                    None => args.len(),
                };
                return args[start..end].join(" ");
            }
            match caps.get(5).map_or("", |m| m.as_str()) {
                "@" | "ARGUMENTS" => all.clone(),
                index => nth(index),
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_split_on_spaces_with_quotes_grouping() {
        assert_eq!(
            parse_args(r#"Button "click handler" 'a b'"#),
            ["Button", "click handler", "a b"]
        );
        let args = parse_args("a b c");
        assert_eq!(
            substitute_args("$1-$2 [$@] ${4:-none} ${@:2} ${@:1:2}", &args),
            "a-b [a b c] none b c a b"
        );
    }
}
