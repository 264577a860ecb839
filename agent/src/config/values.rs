//! Configuration values that may name environment variables or a shell command, as `apiKey` and
//! header values in `models.json` do: `$NAME` and `${NAME}` are replaced by the variable (a
//! missing one leaves the value unresolved), `$$` is a literal `$`, `$!` a literal `!`, and a value
//! starting with `!` is a shell command whose trimmed output is the value (a command still
//! running after [`COMMAND_TIMEOUT`] is killed and counts as failed, as in the reference).
//! Anything else is literal text.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a `!command` may run, as the reference allows it.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Why a configuration value cannot be resolved (the reference's words). `description` names
/// the value (`API key for provider "x"`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Its `!command` failed.
    #[error("Failed to resolve {description} from shell command: {command}")]
    Command {
        /// What the value is.
        description: String,
        /// The command.
        command: String,
    },
    /// Variables it names are not set.
    #[error(
        "Failed to resolve {description} from environment variable{}: {}",
        if .names.len() == 1 { "" } else { "s" },
        .names.join(", ")
    )]
    MissingVariables {
        /// What the value is.
        description: String,
        /// The missing variables, each once, in order.
        names: Vec<String>,
    },
    /// It could not be resolved otherwise.
    #[error("Failed to resolve {description}")]
    Unresolved {
        /// What the value is.
        description: String,
    },
}

/// [`resolve`], or the reason the value cannot be resolved: the command that failed or the
/// variables that are missing. `description` names the value ("API key for provider \"x\"").
pub fn resolve_or_error(config: &str, description: &str) -> Result<String, ResolveError> {
    if let Some(value) = resolve(config) {
        return Ok(value);
    }
    let description = description.to_owned();
    if let Some(command) = config.strip_prefix('!') {
        return Err(ResolveError::Command {
            description,
            command: command.to_owned(),
        });
    }
    let mut names: Vec<String> = Vec::new();
    for part in parse(config) {
        if let Part::Env(name) = part
            && env_value(&name, &|name| std::env::var(name).ok()).is_none()
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    Err(if names.is_empty() {
        ResolveError::Unresolved { description }
    } else {
        ResolveError::MissingVariables { description, names }
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
    run_command_within(command, COMMAND_TIMEOUT)
}

/// The trimmed output of `command` when it succeeds within `limit`; a command still running
/// then is killed. Its output is read on a thread of its own, so that a command that never
/// ends (or leaves a process holding its output open) cannot hold the caller.
fn run_command_within(command: &str, limit: Duration) -> Option<String> {
    let deadline = Instant::now() + limit;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout.read_to_end(&mut bytes).map(|_| bytes);
        // The caller may have given up waiting; then nobody needs the output.
        let _ = tx.send(read);
    });
    let output = rx
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()
        .and_then(Result::ok);
    let status = output.as_ref().and_then(|_| exit_by(&mut child, deadline));
    let (Some(output), Some(status)) = (output, status) else {
        // Too slow (or unreadable): the command fails, as the reference's does.
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    if !status.success() {
        return None;
    }
    let value = String::from_utf8_lossy(&output).trim().to_owned();
    (!value.is_empty()).then_some(value)
}

/// The exit status of `child` once it ends, or `None` if it is still running at `deadline`.
/// Its output has ended, so it is about to exit: a short poll waits for that.
fn exit_by(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        if let Some(status) = child.try_wait().ok()? {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
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

    #[test]
    fn a_command_that_outlives_its_time_is_killed_and_fails() {
        let started = Instant::now();
        assert_eq!(
            run_command_within("echo early; sleep 30", Duration::from_millis(300)),
            None
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        // A command that closes its output but goes on running fails the same way.
        let started = Instant::now();
        assert_eq!(
            run_command_within("echo early; exec >&-; sleep 30", Duration::from_millis(300)),
            None
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            run_command_within("echo in-time", Duration::from_secs(10)).as_deref(),
            Some("in-time")
        );
    }
}
