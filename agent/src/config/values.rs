//! Configuration values that may name environment variables or a shell command, as `apiKey` and
//! header values in `models.json` do: `$NAME` and `${NAME}` are replaced by the variable (a
//! missing one leaves the value unresolved), `$$` is a literal `$`, `$!` a literal `!`, and a value
//! starting with `!` is a shell command whose trimmed output is the value. Anything else is
//! literal text.

use std::process::{Command, Stdio};

/// Resolves a configuration value; `None` when a variable is missing or the command fails.
pub fn resolve(config: &str) -> Option<String> {
    resolve_with(config, &|name| std::env::var(name).ok())
}

/// Whether the value can be resolved without running anything: every variable it names is set.
/// Commands count as configured.
pub fn is_configured(config: &str) -> bool {
    if config.starts_with('!') {
        return true;
    }
    parse(config).iter().all(|part| match part {
        Part::Literal(_) => true,
        Part::Env(name) => env_value(name, &|name| std::env::var(name).ok()).is_some(),
    })
}

/// [`resolve`] with an explicit environment lookup.
pub fn resolve_with(config: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(command) = config.strip_prefix('!') {
        return run_command(command);
    }
    let mut resolved = String::new();
    for part in parse(config) {
        match part {
            Part::Literal(text) => resolved.push_str(&text),
            Part::Env(name) => resolved.push_str(&env_value(&name, env)?),
        }
    }
    Some(resolved)
}

fn env_value(name: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    env(name).filter(|value| !value.is_empty())
}

#[derive(Debug, PartialEq)]
enum Part {
    Literal(String),
    Env(String),
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn parse(config: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = config;
    while let Some(dollar) = rest.find('$') {
        literal.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let mut chars = after.chars();
        match chars.next() {
            Some(c @ ('$' | '!')) => {
                literal.push(c);
                rest = &after[1..];
            }
            Some('{') => match after.find('}') {
                Some(end) => {
                    let name = &after[1..end];
                    let valid = name.chars().next().is_some_and(is_name_start)
                        && name.chars().all(is_name_char);
                    if valid {
                        flush(&mut parts, &mut literal);
                        parts.push(Part::Env(name.to_owned()));
                    } else {
                        literal.push('$');
                        literal.push_str(&after[..=end]);
                    }
                    rest = &after[end + 1..];
                }
                None => {
                    literal.push('$');
                    rest = after;
                }
            },
            Some(c) if is_name_start(c) => {
                let len = after
                    .find(|c: char| !is_name_char(c))
                    .unwrap_or(after.len());
                flush(&mut parts, &mut literal);
                parts.push(Part::Env(after[..len].to_owned()));
                rest = &after[len..];
            }
            _ => {
                literal.push('$');
                rest = after;
            }
        }
    }
    literal.push_str(rest);
    flush(&mut parts, &mut literal);
    parts
}

fn flush(parts: &mut Vec<Part>, literal: &mut String) {
    if !literal.is_empty() {
        parts.push(Part::Literal(std::mem::take(literal)));
    }
}

fn run_command(command: &str) -> Option<String> {
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let value = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (!value.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "KEY" => Some("secret".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn values_expand_variables_and_escapes() {
        assert_eq!(resolve_with("mock-key", &env).as_deref(), Some("mock-key"));
        assert_eq!(resolve_with("$KEY", &env).as_deref(), Some("secret"));
        assert_eq!(
            resolve_with("Bearer ${KEY}!", &env).as_deref(),
            Some("Bearer secret!")
        );
        assert_eq!(resolve_with("a$$b$!c", &env).as_deref(), Some("a$b!c"));
        assert_eq!(
            resolve_with("${not valid}", &env).as_deref(),
            Some("${not valid}")
        );
        assert_eq!(resolve_with("cost $5", &env).as_deref(), Some("cost $5"));
        assert_eq!(resolve_with("$MISSING", &env), None);
        assert_eq!(resolve_with("$EMPTY", &env), None);
    }

    #[test]
    fn commands_give_their_trimmed_output() {
        assert_eq!(
            resolve("!echo ' from-shell '").as_deref(),
            Some("from-shell")
        );
        assert_eq!(resolve("!exit 3"), None);
    }
}
