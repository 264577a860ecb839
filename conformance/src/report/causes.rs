//! Failures grouped by cause ([`crate::run::cause`]): the kinds by count, and within each kind
//! the keys by count, for the summary after a run and the compatibility report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::run::Outcome;
use crate::run::cause::{Cause, CauseKind};

/// One kind of cause: how many failures, and its keys with their counts, most common first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The kind.
    pub kind: CauseKind,
    /// Failures of this kind.
    pub count: usize,
    /// Its keys and their counts, most common first (ties by key).
    pub keys: Vec<(String, usize)>,
}

/// The causes of `causes` grouped, the most common kind first (ties in kind order).
pub fn group<'a>(causes: impl IntoIterator<Item = &'a Cause>) -> Vec<Group> {
    let mut kinds: BTreeMap<CauseKind, BTreeMap<&str, usize>> = BTreeMap::new();
    for cause in causes {
        *kinds
            .entry(cause.kind)
            .or_default()
            .entry(cause.key.as_str())
            .or_default() += 1;
    }
    let mut groups: Vec<Group> = kinds
        .into_iter()
        .map(|(kind, keys)| {
            let mut keys: Vec<(String, usize)> =
                keys.into_iter().map(|(k, n)| (k.to_owned(), n)).collect();
            keys.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            Group {
                kind,
                count: keys.iter().map(|(_, n)| n).sum(),
                keys,
            }
        })
        .collect();
    groups.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(&b.kind)));
    groups
}

/// The causes of the failures among `outcomes` that were run inside their releases.
pub fn of_outcomes(outcomes: &[Outcome]) -> Vec<Group> {
    group(
        outcomes
            .iter()
            .filter(|o| !o.outside && o.verdict.ran() && !o.verdict.passed())
            .filter_map(|o| o.cause.as_ref()),
    )
}

/// The text the summary shows: each kind with its count and its most common keys.
pub fn text(groups: &[Group], keys_shown: usize) -> String {
    let mut text = String::new();
    for group in groups {
        let _ = writeln!(text, "  {:18} {:>4}", group.kind.label(), group.count);
        for (key, count) in group.keys.iter().take(keys_shown) {
            let _ = writeln!(text, "      {count:>4}  {key}");
        }
        let more = group.keys.len().saturating_sub(keys_shown);
        if more > 0 {
            let _ = writeln!(text, "            ({more} more)");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(kind: CauseKind, key: &str) -> Cause {
        Cause {
            kind,
            key: key.to_owned(),
        }
    }

    #[test]
    fn kinds_and_keys_come_most_common_first() {
        let causes = [
            cause(CauseKind::FieldShape, "b"),
            cause(CauseKind::UnexpectedRecord, "x"),
            cause(CauseKind::FieldShape, "a"),
            cause(CauseKind::FieldShape, "b"),
        ];
        let groups = group(&causes);
        assert_eq!(groups[0].kind, CauseKind::FieldShape);
        assert_eq!(groups[0].count, 3);
        assert_eq!(
            groups[0].keys,
            vec![("b".to_owned(), 2), ("a".to_owned(), 1)]
        );
        assert_eq!(groups[1].kind, CauseKind::UnexpectedRecord);
        let shown = text(&groups, 1);
        assert!(shown.contains("field shape           3"), "{shown}");
        assert!(shown.contains("(1 more)"), "{shown}");
    }
}
