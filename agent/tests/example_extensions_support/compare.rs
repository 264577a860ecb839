//! The two agents' runs of one example side by side: what is the same, what differs and how.

use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::run::{AgentRun, CommandOutcome};

/// One aspect of an example compared.
#[derive(Clone, Debug, PartialEq)]
pub enum Aspect {
    Same,
    /// They differ: a short account of how.
    Differs(String),
    /// Not compared (the reference does not load the example).
    NotCompared,
}

impl Aspect {
    fn cell(&self) -> &'static str {
        match self {
            Self::Same => "same",
            Self::Differs(_) => "DIFFERS",
            Self::NotCompared => "-",
        }
    }

    fn is_same(&self) -> bool {
        !matches!(self, Self::Differs(_))
    }
}

/// One example compared.
pub struct Comparison {
    pub name: String,
    pub reference: AgentRun,
    pub ours: AgentRun,
    /// Load outcome, exit code and stderr.
    pub loads: Aspect,
    pub commands: Aspect,
    pub tools: Aspect,
    pub flags: Aspect,
    pub headless: Aspect,
    /// Commands whose records are not compared, with why.
    pub skipped: Vec<String>,
    /// Why the reference does not load it, when it does not.
    pub failure: Option<String>,
}

impl Comparison {
    /// `baselines`: the tools each agent offers without extensions (the reference's, ours).
    pub fn new(name: &str, reference: AgentRun, ours: AgentRun, baselines: Baselines) -> Self {
        let mut comparison = Self {
            name: name.to_owned(),
            loads: loads(&reference, &ours),
            commands: Aspect::NotCompared,
            tools: Aspect::NotCompared,
            flags: Aspect::NotCompared,
            headless: Aspect::NotCompared,
            skipped: Vec::new(),
            failure: None,
            reference,
            ours,
        };
        let (r, o) = (&comparison.reference, &comparison.ours);
        if r.loaded {
            comparison.commands = list_aspect(&r.commands, &o.commands);
            comparison.tools = tools_aspect(&r.tools, &o.tools, baselines);
            comparison.flags = if r.flags == o.flags {
                Aspect::Same
            } else {
                Aspect::Differs(format!("reference {:?} / ours {:?}", r.flags, o.flags))
            };
            let (headless, skipped) = headless(r, o);
            comparison.headless = headless;
            comparison.skipped = skipped;
        } else {
            comparison.failure = Some(classify_failure(&r.stderr));
        }
        comparison
    }

    /// Whether pi-agent behaves as the reference on every aspect compared.
    pub fn matches(&self) -> bool {
        [
            &self.loads,
            &self.commands,
            &self.tools,
            &self.flags,
            &self.headless,
        ]
        .iter()
        .all(|aspect| aspect.is_same())
    }

    /// A one-line account of what differs, for the list of known differences.
    pub fn reason(&self) -> String {
        if self.reference.loaded && !self.ours.loaded {
            return format!(
                "does not load in pi-agent: {}",
                first_error(&self.ours.stderr)
            );
        }
        let aspects = [
            ("start-up", &self.loads),
            ("commands", &self.commands),
            ("tools", &self.tools),
            ("flags", &self.flags),
            ("headless records", &self.headless),
        ];
        let differing: Vec<String> = aspects
            .iter()
            .filter_map(|(what, aspect)| match aspect {
                Aspect::Differs(how) => Some(format!("{what} differ ({})", short(how, 200))),
                _ => None,
            })
            .collect();
        differing.join("; ")
    }

    /// The summary table's row.
    pub fn row(&self) -> String {
        let loads = |run: &AgentRun| if run.loaded { "yes" } else { "no" };
        let note = match &self.failure {
            Some(failure) => failure.clone(),
            None if !self.skipped.is_empty() => {
                format!("not compared: {}", self.skipped.join(", "))
            }
            None => String::new(),
        };
        format!(
            "| {} | {} / {} | {} | {} | {} | {} | {} | {} |",
            self.name,
            loads(&self.reference),
            loads(&self.ours),
            self.loads.cell(),
            self.commands.cell(),
            self.tools.cell(),
            self.flags.cell(),
            self.headless.cell(),
            note
        )
    }

    /// Both runs in full, with what differs, for the report file.
    pub fn details(&self) -> String {
        let mut text = format!("## {}\n\n", self.name);
        for (what, aspect) in [
            ("start-up", &self.loads),
            ("commands", &self.commands),
            ("tools", &self.tools),
            ("flags", &self.flags),
            ("headless", &self.headless),
        ] {
            if let Aspect::Differs(how) = aspect {
                let _ = writeln!(text, "- {what} differ: {how}");
            }
        }
        for (who, run) in [("reference", &self.reference), ("pi-agent", &self.ours)] {
            let _ = writeln!(text, "\n### {who}\n\n```\n{}\n```", show_run(run));
        }
        text
    }
}

/// The table's header.
pub const TABLE_HEADER: &str = "| example | loads ref / ours | start-up | commands | tools | flags | headless | note |\n|---|---|---|---|---|---|---|---|";

fn loads(reference: &AgentRun, ours: &AgentRun) -> Aspect {
    if reference.loaded != ours.loaded {
        let word = |loaded| if loaded { "loads" } else { "fails" };
        return Aspect::Differs(format!(
            "reference {} / ours {}",
            word(reference.loaded),
            word(ours.loaded)
        ));
    }
    if reference.exit_code != ours.exit_code {
        return Aspect::Differs(format!(
            "exit code: reference {:?} / ours {:?}",
            reference.exit_code, ours.exit_code
        ));
    }
    // A start-up that fails is worded by each agent's own loader: only whether it fails is
    // compared. A loaded example's stderr (its warnings) must match.
    if reference.loaded && reference.stderr != ours.stderr {
        return Aspect::Differs(format!(
            "stderr: reference {:?} / ours {:?}",
            short(&reference.stderr, 80),
            short(&ours.stderr, 80)
        ));
    }
    Aspect::Same
}

/// The headless records compared command by command; the commands not compared, with why.
fn headless(reference: &AgentRun, ours: &AgentRun) -> (Aspect, Vec<String>) {
    let mut differing = Vec::new();
    let mut skipped = Vec::new();
    for (name, outcome) in &reference.headless {
        let theirs = ours
            .headless
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| o);
        match outcome {
            CommandOutcome::ModelRun => skipped.push(format!("/{name} (starts a model run)")),
            CommandOutcome::TookLong => {
                skipped.push(format!("/{name} (takes longer than the bound)"))
            }
            CommandOutcome::NotRun(why) => skipped.push(format!("/{name} (not run: {why})")),
            CommandOutcome::Ran(records) => match theirs {
                Some(CommandOutcome::Ran(mine)) if mine == records => {}
                Some(CommandOutcome::Ran(mine)) => {
                    differing.push(format!("/{name} ({})", records_difference(records, mine)))
                }
                Some(other) => differing.push(format!("/{name} (ours: {other:?})")),
                None => differing.push(format!("/{name} (ours: not registered)")),
            },
        }
    }
    let aspect = if !differing.is_empty() {
        Aspect::Differs(differing.join(" "))
    } else if reference.headless.is_empty() {
        Aspect::NotCompared
    } else {
        Aspect::Same
    };
    (aspect, skipped)
}

/// The first record where two commands' records differ, and how.
fn records_difference(reference: &[Value], ours: &[Value]) -> String {
    let at = reference.iter().zip(ours).position(|(a, b)| a != b);
    match at {
        Some(i) => format!(
            "record {i}{}",
            first_difference(&reference[i], &ours[i], "")
        ),
        None if reference.len() > ours.len() => {
            format!(
                "ours lacks {}",
                short(&reference[ours.len()].to_string(), 150)
            )
        }
        None => format!(
            "ours adds {}",
            short(&ours[reference.len()].to_string(), 150)
        ),
    }
}

static MISSING_MODULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Cannot find (?:module|package) '([^']+)'").expect("a valid pattern")
});

/// Why the reference does not load an example: the npm packages it lacks, or its error.
fn classify_failure(stderr: &str) -> String {
    let missing: Vec<&str> = MISSING_MODULE
        .captures_iter(stderr)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .filter(|name| !name.starts_with('.') && !name.starts_with('/'))
        .collect();
    if missing.is_empty() {
        format!("fails in the reference: {}", first_error(stderr))
    } else {
        format!("needs npm dependencies ({})", missing.join(", "))
    }
}

/// The first line of stderr that says something, cut short.
fn first_error(stderr: &str) -> String {
    let line = stderr
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("no stderr");
    short(line, 160)
}

/// `text` cut to `max` characters, on one line.
fn short(text: &str, max: usize) -> String {
    let one_line = text.replace('\n', "\\n");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let cut: String = one_line.chars().take(max).collect();
    format!("{cut}…")
}

/// The tools of both agents compared: one at a time, in order, each the same when it is the
/// same JSON, or when on each side it is that agent's built-in tool as it is without extensions
/// (each agent words its built-in tools in its own words) and marked for caching alike.
fn tools_aspect(reference: &Option<Value>, ours: &Option<Value>, baselines: Baselines) -> Aspect {
    let (Some(r), Some(o)) = (
        reference.as_ref().and_then(Value::as_array),
        ours.as_ref().and_then(Value::as_array),
    ) else {
        return list_aspect(reference, ours);
    };
    let same = r.len() == o.len()
        && r.iter().zip(o).all(|(a, b)| {
            a == b
                || (a["name"] == b["name"]
                    && a["cache_control"] == b["cache_control"]
                    && is_built_in(a, baselines.0)
                    && is_built_in(b, baselines.1))
        });
    if same {
        Aspect::Same
    } else {
        let marked = |tools: &[Value], baseline| {
            let marked = tools.iter().map(|tool| {
                if is_built_in(tool, baseline) {
                    serde_json::json!({"name": tool["name"], "builtIn": "as without extensions"})
                } else {
                    tool.clone()
                }
            });
            Some(Value::Array(marked.collect()))
        };
        list_aspect(&marked(r, baselines.0), &marked(o, baselines.1))
    }
}

/// The tools each agent offers without extensions (the reference's, ours).
pub type Baselines<'a> = (&'a Option<Value>, &'a Option<Value>);

/// Whether `tool` is one of `baseline`'s as it is there (where it is marked for caching aside).
fn is_built_in(tool: &Value, baseline: &Option<Value>) -> bool {
    let uncached = |tool: &Value| {
        let mut tool = tool.clone();
        if let Some(map) = tool.as_object_mut() {
            map.shift_remove("cache_control");
        }
        tool
    };
    let tool = uncached(tool);
    baseline
        .as_ref()
        .and_then(Value::as_array)
        .is_some_and(|tools| tools.iter().any(|built_in| uncached(built_in) == tool))
}

/// Two lists of named things (commands, tools) compared: which names differ, else the first
/// entry that does.
fn list_aspect(reference: &Option<Value>, ours: &Option<Value>) -> Aspect {
    if reference == ours {
        return Aspect::Same;
    }
    let (r, o) = (names(reference.as_ref()), names(ours.as_ref()));
    if r != o {
        return Aspect::Differs(format!("reference {r} / ours {o}"));
    }
    let empty = Vec::new();
    let items = |list: &Option<Value>| {
        list.as_ref()
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .clone()
    };
    let first = items(reference)
        .into_iter()
        .zip(items(ours))
        .find(|(a, b)| a != b);
    match first {
        Some((a, b)) => Aspect::Differs(format!(
            "{}{}",
            a["name"].as_str().unwrap_or("?"),
            first_difference(&a, &b, "")
        )),
        None => Aspect::Differs("the same names, otherwise different".to_owned()),
    }
}

/// Where two JSON values first differ: `.key.path: reference X / ours Y` (values cut short).
pub fn first_difference(a: &Value, b: &Value, at: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for key in keys {
                let (u, v) = (&x.get(key), &y.get(key));
                if u != v {
                    let (u, v) = (
                        u.cloned().unwrap_or_default(),
                        v.cloned().unwrap_or_default(),
                    );
                    return first_difference(&u, &v, &format!("{at}.{key}"));
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            if let Some((i, (u, v))) = x.iter().zip(y).enumerate().find(|(_, (u, v))| u != v) {
                return first_difference(u, v, &format!("{at}[{i}]"));
            }
        }
        _ => {}
    }
    format!(
        "{at}: reference {} / ours {}",
        short(&a.to_string(), 150),
        short(&b.to_string(), 150)
    )
}

/// The names in a list of commands or tools, or what stands in for them.
fn names(list: Option<&Value>) -> String {
    let Some(items) = list.and_then(Value::as_array) else {
        return "none".to_owned();
    };
    let names: Vec<&str> = items.iter().filter_map(|i| i["name"].as_str()).collect();
    format!("[{}]", names.join(", "))
}

fn show_run(run: &AgentRun) -> String {
    let pretty = |v: &Option<Value>| {
        v.as_ref()
            .map(|v| serde_json::to_string_pretty(v).unwrap_or_default())
            .unwrap_or_else(|| "none".to_owned())
    };
    let mut text = format!(
        "loaded: {}\nexit code: {:?}\nstderr:\n{}\nstderr later:\n{}\nflags:\n{}\ncommands: {}\ntools: {}\n",
        run.loaded,
        run.exit_code,
        run.stderr,
        run.later_stderr,
        run.flags,
        pretty(&run.commands),
        pretty(&run.tools)
    );
    for (name, outcome) in &run.headless {
        let shown = match outcome {
            CommandOutcome::Ran(records) => records
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join("\n  "),
            other => format!("{other:?}"),
        };
        let _ = writeln!(text, "/{name}:\n  {shown}");
    }
    text
}
