use super::*;

fn model(provider: &str, id: &str, reasoning: bool) -> Model {
    Model {
        id: id.into(),
        name: id.into(),
        provider: provider.into(),
        reasoning,
        ..unknown_model()
    }
}

#[test]
fn thinking_levels_follow_reasoning_and_the_level_map() {
    assert_eq!(
        supported_thinking_levels(&model("p", "a", false)),
        [ThinkingLevel::Off]
    );
    let mut with_map = model("p", "a", true);
    with_map.thinking_level_map = Some(
        serde_json::json!({"minimal": null, "xhigh": "max"})
            .as_object()
            .unwrap()
            .clone(),
    );
    assert_eq!(
        supported_thinking_levels(&with_map),
        [
            ThinkingLevel::Off,
            ThinkingLevel::Low,
            ThinkingLevel::Medium,
            ThinkingLevel::High,
            ThinkingLevel::Xhigh
        ]
    );
    assert_eq!(
        clamp_thinking_level(&with_map, ThinkingLevel::Minimal),
        ThinkingLevel::Low
    );
    assert_eq!(
        clamp_thinking_level(&with_map, ThinkingLevel::Max),
        ThinkingLevel::Xhigh
    );
    assert_eq!(
        clamp_thinking_level(&model("p", "a", false), ThinkingLevel::High),
        ThinkingLevel::Off
    );
}

#[test]
fn globs_match_ids_and_provider_ids() {
    assert!(glob_matches("mock/*-2", "mock/model-2"));
    assert!(glob_matches("MODEL-?", "model-1"));
    assert!(!glob_matches("mock/*-2", "mock/model-3"));
    let models = [
        model("p", "a-1", true),
        model("p", "a-2", false),
        model("q", "b", false),
    ];
    let patterns = vec!["p/a-*:low".to_owned(), "b".to_owned(), "zzz".to_owned()];
    let (scoped, warnings) = resolve_model_scope(&patterns, &models);
    let ids: Vec<&str> = scoped.iter().map(|s| s.model.id.as_str()).collect();
    assert_eq!(ids, ["a-1", "a-2", "b"]);
    assert_eq!(scoped[0].thinking_level, Some(ThinkingLevel::Low));
    assert_eq!(scoped[2].thinking_level, None);
    assert_eq!(warnings, ["No models match pattern \"zzz\""]);
}

#[test]
fn patterns_prefer_exact_ids_then_aliases() {
    let models = [
        model("p", "claude-x-20240101", false),
        model("p", "claude-x", false),
        model("q", "other", false),
    ];
    let refs: Vec<&Model> = models.iter().collect();
    assert_eq!(try_match("claude", &refs).unwrap().id, "claude-x");
    assert_eq!(try_match("q/other", &refs).unwrap().id, "other");
    let parsed = parse_pattern("other:high", &refs, false);
    assert_eq!(parsed.model.unwrap().id, "other");
    assert_eq!(parsed.thinking_level, Some(ThinkingLevel::High));
    assert!(parse_pattern("other:bogus", &refs, false).model.is_none());
}
