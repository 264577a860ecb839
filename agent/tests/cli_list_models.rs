//! `--list-models` over the built-in catalog compared with the reference's, byte for byte: the
//! order (JavaScript's `localeCompare` over hundreds of ids with `/`, `:`, `.` and `-`), the
//! sizes and the padding. Skipped, saying so, when the reference is not installed.

mod support;

use anyhow::Result;
use support::TestEnv;

/// Keys of providers with many models and varied ids.
const KEYS: [&str; 10] = [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "HF_TOKEN",
    "XAI_API_KEY",
    "AI_GATEWAY_API_KEY",
    "TOGETHER_API_KEY",
    "FIREWORKS_API_KEY",
];

/// The listing, written to a file: the reference exits before a pipe has taken more than its
/// buffer (64 KiB) of a long listing, a file gets all of it.
async fn list_models(env: &TestEnv, program: &std::path::Path, args: &[&str]) -> Result<String> {
    let out = env.root.path().join("listing.txt");
    let mut command = env.command_for(program, args);
    command.envs(KEYS.map(|key| (key, "test-key")));
    command.env("PI_OFFLINE", "1");
    command.stdout(std::fs::File::create(&out)?);
    let status = tokio::time::timeout(support::TIMEOUT * 3, command.status()).await??;
    assert_eq!(status.code(), Some(0), "{program:?} {args:?}");
    Ok(std::fs::read_to_string(&out)?)
}

#[tokio::test]
async fn the_model_table_is_the_references_whole_and_searched() -> Result<()> {
    let Some(reference) = pi_reference::launcher_or_skip("--list-models against the reference")
    else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    let ours = std::path::Path::new(env!("CARGO_BIN_EXE_pi-agent"));
    for args in [
        &["--list-models"][..],
        &["--list-models", "gpt 4"],
        &["--list-models", "llama/70b"],
    ] {
        let expected = list_models(&env, &reference, args).await?;
        let actual = list_models(&env, ours, args).await?;
        assert!(expected.lines().count() > 1, "{args:?}: {expected}");
        let first_difference = expected
            .lines()
            .zip(actual.lines())
            .find(|(want, got)| want != got);
        assert_eq!(first_difference, None, "{args:?}");
        let (want, got) = (expected.lines().count(), actual.lines().count());
        let extra: Vec<&str> = match want < got {
            true => actual.lines().skip(want).take(5).collect(),
            false => expected.lines().skip(got).take(5).collect(),
        };
        assert_eq!(
            (want, got),
            (want, want),
            "{args:?}: the longer one goes on with {extra:?}"
        );
    }
    Ok(())
}
