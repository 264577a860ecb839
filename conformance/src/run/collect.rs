//! Collect mode (`record` and `diff`): each `expect` step reads records without judging them.

use serde_json::Value;

use super::{Failure, Run, record_value};
use crate::expect::{Item, Matcher};
use crate::pattern::{self, MatchOptions};

impl Run<'_> {
    /// Collect mode: read records until the step's last record item or `until` matches.
    pub(super) async fn collect(
        &mut self,
        items: &[Item],
        until: Option<&Value>,
        ignore: &[Value],
        timeout_ms: Option<u64>,
    ) -> Result<(), Failure> {
        let stop = until.cloned().or_else(|| {
            items.iter().rev().find_map(|item| match item {
                Item::Record(p) | Item::SkipUntil(p) => Some(p.clone()),
                Item::Either { strict, .. } => Some(strict.clone()),
                _ => None,
            })
        });
        let count = items
            .iter()
            .map(|i| match i {
                Item::Unordered(group) => group.len(),
                _ => 1,
            })
            .sum::<usize>();
        let deadline = self.step_deadline(timeout_ms);
        let mut got = Vec::new();
        let partial = MatchOptions { partial: true };
        loop {
            let record = match self.next_record(deadline).await {
                Ok(Some(record)) => record,
                Ok(None) => {
                    // The agent is gone where the scenario allows it to exit: later steps
                    // cannot run (their expectations are kept as they are by `record`).
                    self.ended = Matcher::has_exit_alternatives(items);
                    break;
                }
                Err(_) => break,
            };
            self.log
                .push(format!("< +{}ms {}", record.at_ms, record.text()));
            let json = record_value(&record);
            if ignore
                .iter()
                .any(|p| pattern::match_value(p, &json, &self.vars, &self.captures, partial).ok)
            {
                continue;
            }
            let done = stop.as_ref().is_some_and(|p| {
                pattern::match_value(p, &json, &self.vars, &self.captures, partial).ok
            });
            got.push(crate::normalise::normalise_record(&json, &self.vars));
            if done || (stop.is_none() && got.len() >= count) {
                break;
            }
        }
        self.collected.push(got);
        Ok(())
    }
}
