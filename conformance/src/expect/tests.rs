//! The matcher on hand-made records.

use super::*;
use serde_json::json;

fn rec(index: usize, value: Value) -> Record {
    Record {
        index,
        raw: value.to_string().into_bytes(),
        lf: true,
        json: Ok(value),
        at_ms: 0,
    }
}

fn run(items: Vec<Value>, records: Vec<Value>) -> Vec<String> {
    let items = items.iter().map(|v| Item::parse(v).unwrap()).collect();
    let mut m = Matcher::new(items, vec![json!({"type": "noise"})], false);
    let mut caps = Captures::new();
    records
        .into_iter()
        .enumerate()
        .map(|(i, r)| match m.feed(&rec(i, r), &Vars::new(), &mut caps) {
            Feed::More => "more".to_owned(),
            Feed::Done => "done".to_owned(),
            Feed::Mismatch(mm) => format!("mismatch {}", mm.details.join("; ")),
        })
        .collect()
}

#[test]
fn ordered_items_are_exact() {
    assert_eq!(
        run(
            vec![json!({"a": 1}), json!({"a": 2})],
            vec![json!({"a": 1}), json!({"a": 2})]
        ),
        vec!["more", "done"]
    );
    assert_eq!(
        run(
            vec![json!({"a": 1}), json!({"a": 2})],
            vec![json!({"a": 2})]
        ),
        vec!["mismatch $.a: expected 1, got 2"]
    );
}

#[test]
fn unordered_groups_skip_and_ignore() {
    let items = vec![
        json!({"$unordered": [{"a": 1}, {"a": 2}]}),
        json!({"$skip_until": {"a": 9}}),
    ];
    let records = vec![
        json!({"a": 2}),
        json!({"type": "noise", "x": 1}),
        json!({"a": 1}),
        json!({"a": 5}),
        json!({"a": 9, "b": 0}),
    ];
    assert_eq!(
        run(items, records),
        vec!["more", "more", "more", "more", "done"]
    );
}

#[test]
fn either_accepts_alternatives_as_non_strict() {
    let item = Item::parse(&json!({"$either": {"strict": {"e": "clear"}, "allow": [{"e": "{{string}}"}], "reason": "js"}})).unwrap();
    let mut m = Matcher::new(vec![item], vec![], false);
    let feed = m.feed(
        &rec(0, json!({"e": "TypeError"})),
        &Vars::new(),
        &mut Captures::new(),
    );
    assert!(matches!(feed, Feed::Done));
    assert_eq!(m.non_strict, vec!["js"]);
}

#[test]
fn exit_alternatives_are_parsed_apart_from_records() {
    let item = Item::parse(&json!({"$either": {
        "strict": {"e": "clear"},
        "allow": [{"$exit": 1}, {"$exit": {"code": 3, "stderr_contains": ["a", "b"]}}, {"e": "x"}],
        "reason": "crash"
    }}))
    .unwrap();
    let Item::Either { allow, exits, .. } = &item else {
        panic!("{item:?}");
    };
    assert_eq!(allow, &vec![json!({"e": "x"})]);
    assert_eq!(exits[0].describe(), "exit code 1");
    assert!(exits[1].accepts(Some(3), "xx a yy b"));
    assert!(!exits[1].accepts(Some(3), "a only"));
    assert!(!exits[1].accepts(None, "a b"));
    let m = Matcher::new(vec![item], vec![], false);
    assert_eq!(
        m.exit_alternatives().map(|(e, r)| (e.len(), r)),
        Some((2, "crash"))
    );
    for bad in [
        json!({"$exit": "1"}),
        json!({"$exit": {"code": 1, "stderr": "x"}}),
        json!({"$exit": 1, "e": 2}),
    ] {
        let parsed =
            Item::parse(&json!({"$either": {"strict": {}, "allow": [bad], "reason": "r"}}));
        assert!(parsed.unwrap_err().to_string().contains("$exit"));
    }
}

#[test]
fn bad_items_are_explained() {
    let unordered = Item::parse(&json!({"$unordered": []})).unwrap_err();
    assert_eq!(unordered, ItemError::Unordered);
    assert!(unordered.to_string().contains("non-empty"));
    let unknown = Item::parse(&json!({"$nope": 1})).unwrap_err();
    assert_eq!(unknown, ItemError::UnknownKey("$nope".into()));
    assert_eq!(
        unknown.to_string(),
        "unknown item key `$nope` (known: $unordered, $skip_until, $either, $raw, $partial)"
    );
}
