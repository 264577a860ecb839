//! Cost of a model call from its token counts and the model's prices per million tokens.

use pi_rpc_protocol::model::Model;
use pi_rpc_protocol::usage::Usage;
use serde_json::Value;

/// Prices per million tokens that apply to one call.
#[derive(Debug, Clone, Copy)]
struct Rates {
    input: f64,
    output: f64,
    cache_read: f64,
    cache_write: f64,
}

/// Sets `usage.cost` as the reference computes it: the tier with the highest `inputTokensAbove`
/// below the call's input tokens (input + cache reads + cache writes) replaces the base prices;
/// one-hour cache writes cost twice the input price.
pub fn calculate_cost(model: &Model, usage: &mut Usage) {
    let input_tokens = (usage.input + usage.cache_read + usage.cache_write) as f64;
    let mut rates = Rates {
        input: model.cost.input,
        output: model.cost.output,
        cache_read: model.cost.cache_read,
        cache_write: model.cost.cache_write,
    };
    let mut matched = -1.0;
    for tier in model.cost.tiers.iter().flatten() {
        let Some(above) = tier.get("inputTokensAbove").and_then(Value::as_f64) else {
            continue;
        };
        if input_tokens > above && above > matched {
            let price = |key: &str| tier.get(key).and_then(Value::as_f64).unwrap_or(0.0);
            rates = Rates {
                input: price("input"),
                output: price("output"),
                cache_read: price("cacheRead"),
                cache_write: price("cacheWrite"),
            };
            matched = above;
        }
    }
    let long_write = usage.cache_write_1h.unwrap_or(0) as f64;
    let short_write = usage.cache_write as f64 - long_write;
    let cost = &mut usage.cost;
    cost.input = (rates.input / 1_000_000.0) * usage.input as f64;
    cost.output = (rates.output / 1_000_000.0) * usage.output as f64;
    cost.cache_read = (rates.cache_read / 1_000_000.0) * usage.cache_read as f64;
    cost.cache_write =
        (rates.cache_write * short_write + rates.input * 2.0 * long_write) / 1_000_000.0;
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(cost: Value) -> Model {
        serde_json::from_value(json!({
            "id": "m", "name": "m", "api": "anthropic-messages", "provider": "p",
            "baseUrl": "http://127.0.0.1:1", "reasoning": false, "input": ["text"],
            "cost": cost, "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    #[test]
    fn cost_is_price_per_million_tokens() {
        let model = model(json!({"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}));
        let mut usage = Usage {
            input: 1000,
            output: 200,
            cache_read: 5000,
            cache_write: 100,
            cache_write_1h: Some(40),
            ..Usage::default()
        };
        calculate_cost(&model, &mut usage);
        assert_eq!(usage.cost.input, 3.0 / 1e6 * 1000.0);
        assert_eq!(usage.cost.output, 15.0 / 1e6 * 200.0);
        assert_eq!(usage.cost.cache_read, 0.3 / 1e6 * 5000.0);
        assert_eq!(
            usage.cost.cache_write,
            (3.75 * 60.0 + 3.0 * 2.0 * 40.0) / 1e6
        );
        assert_eq!(
            usage.cost.total,
            usage.cost.input + usage.cost.output + usage.cost.cache_read + usage.cost.cache_write
        );
    }

    #[test]
    fn the_highest_tier_below_the_input_applies() {
        let model = model(json!({
            "input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0,
            "tiers": [
                {"inputTokensAbove": 100, "input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0},
                {"inputTokensAbove": 1000, "input": 100, "output": 200, "cacheRead": 0, "cacheWrite": 0}
            ]
        }));
        let mut usage = Usage {
            input: 500,
            output: 1,
            ..Usage::default()
        };
        calculate_cost(&model, &mut usage);
        assert_eq!(usage.cost.input, 10.0 / 1e6 * 500.0);
        usage.input = 50;
        calculate_cost(&model, &mut usage);
        assert_eq!(usage.cost.input, 1.0 / 1e6 * 50.0);
    }
}
