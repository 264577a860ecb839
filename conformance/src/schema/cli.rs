//! `pi-conformance schema` and `pi-conformance validate`.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use super::{LineKind, SchemaError, Validators};
use crate::release::{Registry, Version};

/// `schema`: the protocol's JSON Schema of a release (or each), or the scenario format's.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The release (default: every release with `--out`, the default release otherwise).
    #[arg(long)]
    pub release: Option<Version>,
    /// Write `pi-rpc-RELEASE.schema.json` files into this folder instead of printing one.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the JSON Schema of the scenario format instead.
    #[arg(long, conflicts_with_all = ["release", "out"])]
    pub scenario: bool,
}

/// `validate`: check JSONL against a release's schema.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The release whose schema applies (default: the registry's default release).
    #[arg(long)]
    pub release: Option<Version>,
    /// Every line is a command (what a client writes).
    #[arg(long, conflicts_with_all = ["records", "session"])]
    pub commands: bool,
    /// Every line is a record (what the agent writes).
    #[arg(long, conflicts_with = "session")]
    pub records: bool,
    /// Every line is a line of a session file.
    #[arg(long)]
    pub session: bool,
    /// The JSONL file, or `-` for stdin.
    pub file: PathBuf,
}

/// Runs `schema`.
pub fn schema(args: &SchemaArgs) -> Result<bool, SchemaError> {
    if args.scenario {
        print!("{}", crate::scenario::schema_json());
        return Ok(true);
    }
    let registry = crate::release::registry()?;
    match &args.out {
        Some(dir) => {
            let releases = args
                .release
                .map_or_else(|| registry.versions(), |r| vec![r]);
            for path in super::write_all(dir, &releases, registry)? {
                println!("{}", path.display());
            }
        }
        None => {
            let release = args.release.unwrap_or(registry.default);
            print!("{}", super::render(&super::document(release, registry)?));
        }
    }
    Ok(true)
}

/// Runs `validate`: prints `FILE:LINE: PATH: REASON` for each violation; `false` when any.
pub fn validate(args: &ValidateArgs) -> Result<bool, SchemaError> {
    let registry: &Registry = crate::release::registry()?;
    let release = args.release.unwrap_or(registry.default);
    let validators = Validators::of(release, registry)?;
    let io = |source| SchemaError::Io {
        path: args.file.clone(),
        source,
    };
    let text = if args.file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(io)?;
        text
    } else {
        std::fs::read_to_string(&args.file).map_err(io)?
    };
    let kind = if args.commands {
        Some(LineKind::Command)
    } else if args.records {
        Some(LineKind::Record)
    } else if args.session {
        Some(LineKind::SessionFile)
    } else {
        None
    };
    let failures = validators.check_jsonl(&text, kind);
    let name = args.file.display();
    for (line, violations) in &failures {
        for violation in violations {
            println!("{name}:{line}: {violation}");
        }
    }
    let lines = text.lines().filter(|line| !line.trim().is_empty()).count();
    eprintln!(
        "{} of {lines} line(s) follow the schema of pi {release}",
        lines - failures.len()
    );
    Ok(failures.is_empty())
}
