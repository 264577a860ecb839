//! `--list-models [search]`: the models that have credentials, as the reference prints them: a
//! table sorted by provider, then id (in the order of JavaScript's `localeCompare`), columns
//! padded to their widest cell and joined by two spaces.

use std::cmp::Ordering;

use pi_rpc_protocol::json::to_fixed;
use pi_rpc_protocol::model::Model;

use crate::config::Config;

/// What pi-agent prints when no model has credentials (in its own words).
const NO_MODELS: &str = "No models available. Give a provider's key in its environment variable, \
in auth.json or with --api-key, or declare a provider in models.json.";

/// The listing, every line ending with a newline.
pub(super) fn render(config: &Config, search: Option<&str>) -> String {
    let models = config.registry.available();
    if models.is_empty() {
        return format!("{NO_MODELS}\n");
    }
    let mut models: Vec<Model> = match search {
        Some(query) if !query.trim().is_empty() => models
            .into_iter()
            .filter(|model| fuzzy_matches_all(query, &format!("{} {}", model.provider, model.id)))
            .collect(),
        _ => models,
    };
    if models.is_empty() {
        return format!("No models matching \"{}\"\n", search.unwrap_or_default());
    }
    models.sort_by(|a, b| {
        locale_compare(&a.provider, &b.provider).then_with(|| locale_compare(&a.id, &b.id))
    });
    let yes_no = |flag: bool| if flag { "yes" } else { "no" }.to_owned();
    let mut rows = vec![
        [
            "provider", "model", "context", "max-out", "thinking", "images",
        ]
        .map(str::to_owned),
    ];
    rows.extend(models.iter().map(|model| {
        [
            model.provider.clone(),
            model.id.clone(),
            token_count(model.context_window),
            token_count(model.max_tokens),
            yes_no(model.reasoning),
            yes_no(model.input.iter().any(|kind| kind == "image")),
        ]
    }));
    let mut widths = [0usize; 6];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(crate::js::utf16_len(cell));
        }
    }
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| {
                let pad = width.saturating_sub(crate::js::utf16_len(cell));
                format!("{cell}{}", " ".repeat(pad))
            })
            .collect();
        out.push_str(&cells.join("  "));
        out.push('\n');
    }
    out
}

/// `200000` as `200K`, `8192` as `8.2K`, `1000000` as `1M`.
fn token_count(count: u64) -> String {
    let count_f = count as f64;
    let scaled = |unit: f64, suffix: &str| {
        let value = count_f / unit;
        if value.fract() == 0.0 {
            format!("{value}{suffix}")
        } else {
            format!("{}{suffix}", to_fixed(value, 1))
        }
    };
    if count >= 1_000_000 {
        scaled(1_000_000.0, "M")
    } else if count >= 1_000 {
        scaled(1_000.0, "K")
    } else {
        count.to_string()
    }
}

/// Whether every word of `query` (split at whitespace and `/`) matches `text` as a fuzzy
/// subsequence, as the reference's model search filters.
fn fuzzy_matches_all(query: &str, text: &str) -> bool {
    let text = text.to_lowercase();
    query
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|token| !token.is_empty())
        .all(|token| fuzzy_matches(&token.to_lowercase(), &text))
}

/// A subsequence match; `abc12` also matches as `12abc` and the other way round.
fn fuzzy_matches(query: &str, text: &str) -> bool {
    if is_subsequence(query, text) {
        return true;
    }
    let split = query
        .find(|c: char| c.is_ascii_digit())
        .filter(|_| query.starts_with(|c: char| c.is_ascii_lowercase()))
        .or_else(|| {
            query
                .find(|c: char| c.is_ascii_lowercase())
                .filter(|_| query.starts_with(|c: char| c.is_ascii_digit()))
        });
    let Some(at) = split else {
        return false;
    };
    let (head, tail) = query.split_at(at);
    let one_kind = |part: &str, digits: bool| {
        !part.is_empty()
            && part.chars().all(|c| {
                if digits {
                    c.is_ascii_digit()
                } else {
                    c.is_ascii_lowercase()
                }
            })
    };
    let head_digits = head.starts_with(|c: char| c.is_ascii_digit());
    if !one_kind(head, head_digits) || !one_kind(tail, !head_digits) {
        return false;
    }
    is_subsequence(&format!("{tail}{head}"), text)
}

fn is_subsequence(query: &str, text: &str) -> bool {
    let mut wanted = query.chars().peekable();
    for c in text.chars() {
        if wanted.peek() == Some(&c) {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}

/// JavaScript's `a.localeCompare(b)` (ICU's root collation) for the ASCII text of provider and
/// model names: punctuation before digits before letters, letters compared without case first,
/// then lower case before upper case.
fn locale_compare(a: &str, b: &str) -> Ordering {
    let primary = |text: &str| text.chars().map(primary_weight).collect::<Vec<u32>>();
    let tertiary = |text: &str| {
        text.chars()
            .map(|c| u32::from(c.is_ascii_uppercase()))
            .collect::<Vec<u32>>()
    };
    primary(a)
        .cmp(&primary(b))
        .then_with(|| tertiary(a).cmp(&tertiary(b)))
        .then_with(|| a.cmp(b))
}

/// Root collation's order of the ASCII punctuation and symbols.
const PUNCTUATION_ORDER: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

fn primary_weight(c: char) -> u32 {
    if c.is_whitespace() {
        return 0;
    }
    if let Some(at) = PUNCTUATION_ORDER.find(c) {
        return 1 + at as u32;
    }
    if c.is_ascii_digit() {
        return 100 + (c as u32 - '0' as u32);
    }
    if c.is_ascii_alphabetic() {
        return 200 + (c.to_ascii_lowercase() as u32 - 'a' as u32);
    }
    1000 + c as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_read_as_the_reference_prints_them() {
        assert_eq!(token_count(200_000), "200K");
        assert_eq!(token_count(8_192), "8.2K");
        assert_eq!(token_count(1_000_000), "1M");
        assert_eq!(token_count(1_048_576), "1.0M");
        assert_eq!(token_count(999), "999");
        assert_eq!(token_count(1_250), "1.3K");
    }

    #[test]
    fn search_words_match_as_subsequences() {
        assert!(fuzzy_matches_all("son 4", "anthropic claude-sonnet-4-5"));
        assert!(fuzzy_matches_all(
            "anthropic/sonnet",
            "anthropic claude-sonnet-4-5"
        ));
        assert!(!fuzzy_matches_all("opus", "openai gpt-4o-mini"));
        assert!(fuzzy_matches_all("4o", "openai gpt-4o-mini"));
        assert!(fuzzy_matches_all("o4", "openai gpt-4o-mini"));
    }

    #[test]
    fn names_sort_as_locale_compare_does() {
        let mut names = vec!["gpt-4o", "gpt-4.1", "gpt-4", "GPT-4", "gpt-40", "gpt_4"];
        names.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(
            names,
            ["gpt_4", "gpt-4", "GPT-4", "gpt-4.1", "gpt-40", "gpt-4o"]
        );
    }
}
