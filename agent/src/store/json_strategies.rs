//! Test helpers of the session-line readers (`scan`, `normal`): session-like JSON objects for
//! property tests, and the canonical text pi writes of a value.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// The text `JSON.stringify` gives of `value`.
pub(super) fn canonical(value: &Value) -> String {
    pi_rpc_protocol::json::to_string(value).unwrap()
}

/// A scalar, its strings rich in what JSON escapes (quotes, backslashes, controls, U+2028).
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z\\\\\"/\\n\\t\\u{0}-\\u{1f}\\u{7f}é😀\\u{2028} ]{0,12}".prop_map(Value::from),
    ]
}

/// Short random keys with what JSON escapes, for [`object`]: digits too (an integer key, which
/// JavaScript orders first).
pub(super) const KEYS_WITH_DIGITS: &str = "[a-z0-9\"\\\\é]{0,4}";
/// Short random keys with what JSON escapes, and no integer key.
pub(super) const KEYS_WITHOUT_DIGITS: &str = "[a-z\"\\\\é]{0,4}";

/// A key: one a session entry has, or a short one of `random`'s pattern.
fn key(random: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("type".to_owned()),
        Just("id".to_owned()),
        Just("parentId".to_owned()),
        Just("message".to_owned()),
        Just("role".to_owned()),
        Just("content".to_owned()),
        random,
    ]
}

/// Any value, nested up to four levels, its objects' keys of [`key`].
fn value(random_keys: &'static str) -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(random_keys), inner), 0..5)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An object, as a session line is, its keys of [`key`] (`random_keys`: [`KEYS_WITH_DIGITS`]
/// or [`KEYS_WITHOUT_DIGITS`]).
pub(super) fn object(random_keys: &'static str) -> impl Strategy<Value = Value> {
    prop::collection::vec((key(random_keys), value(random_keys)), 0..6)
        .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>()))
}
