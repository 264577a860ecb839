//! Token usage and cost of model calls.

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Cost in dollars, per token class and in total.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UsageCost {
    /// Input tokens' cost.
    pub input: f64,
    /// Output tokens' cost.
    pub output: f64,
    /// Cache reads' cost.
    pub cache_read: f64,
    /// Cache writes' cost.
    pub cache_write: f64,
    /// Sum of the above.
    pub total: f64,
    /// Whether the provider reported the total (rather than the catalog's prices giving it);
    /// from pi 1.5.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_from_provider: Option<bool>,
}

/// Token counts and cost of one model call (or a sum of calls).
///
/// Key order on the wire: `input, output, cacheRead, cacheWrite, [reasoning,] totalTokens, cost,
/// [cacheWrite1h,] [reasoning]`. Where `reasoning` goes depends on the provider in the reference:
/// the OpenAI and Gemini providers build it before `totalTokens`, the Anthropic provider adds it
/// last. [`Usage::reasoning_last`] keeps that position, and reading a record sets it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    /// Input tokens not read from cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from cache.
    pub cache_read: u64,
    /// Input tokens written to cache.
    pub cache_write: u64,
    /// input + output + cacheRead + cacheWrite.
    pub total_tokens: u64,
    /// Cost in dollars.
    pub cost: UsageCost,
    /// Tokens written to the one-hour cache (Anthropic; present once a stream reported usage).
    pub cache_write_1h: Option<u64>,
    /// Reasoning tokens, where the provider reports them separately.
    pub reasoning: Option<u64>,
    /// Whether `reasoning` is written last (Anthropic) rather than before `totalTokens`.
    pub reasoning_last: bool,
}

impl Serialize for Usage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields =
            6 + usize::from(self.cache_write_1h.is_some()) + usize::from(self.reasoning.is_some());
        let mut out = serializer.serialize_struct("Usage", fields)?;
        out.serialize_field("input", &self.input)?;
        out.serialize_field("output", &self.output)?;
        out.serialize_field("cacheRead", &self.cache_read)?;
        out.serialize_field("cacheWrite", &self.cache_write)?;
        if let (Some(reasoning), false) = (self.reasoning, self.reasoning_last) {
            out.serialize_field("reasoning", &reasoning)?;
        }
        out.serialize_field("totalTokens", &self.total_tokens)?;
        out.serialize_field("cost", &self.cost)?;
        if let Some(cache_write_1h) = self.cache_write_1h {
            out.serialize_field("cacheWrite1h", &cache_write_1h)?;
        }
        if let (Some(reasoning), true) = (self.reasoning, self.reasoning_last) {
            out.serialize_field("reasoning", &reasoning)?;
        }
        out.end()
    }
}

/// The fields as read, before the position of `reasoning` is recovered (and the schema of
/// [`Usage`]).
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Usage"))]
#[serde(rename_all = "camelCase")]
struct UsageFields {
    /// Input tokens not read from cache.
    input: u64,
    /// Output tokens.
    output: u64,
    /// Input tokens read from cache.
    cache_read: u64,
    /// Input tokens written to cache.
    cache_write: u64,
    /// input + output + cacheRead + cacheWrite.
    total_tokens: u64,
    /// Cost in dollars.
    cost: UsageCost,
    /// Tokens written to the one-hour cache (Anthropic).
    #[serde(rename = "cacheWrite1h", default)]
    cache_write_1h: Option<u64>,
    /// Reasoning tokens, where the provider reports them separately.
    #[serde(default)]
    reasoning: Option<u64>,
}

/// Token counts and cost of one model call: the schema of the fields [`Usage`] reads.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Usage {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        UsageFields::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        UsageFields::json_schema(generator)
    }
}

impl<'de> Deserialize<'de> for Usage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        let position = |key: &str| object.keys().position(|k| k == key);
        let reasoning_last = matches!(
            (position("reasoning"), position("totalTokens")),
            (Some(reasoning), Some(total)) if reasoning > total
        );
        let fields: UsageFields =
            serde_json::from_value(Value::Object(object)).map_err(D::Error::custom)?;
        Ok(Usage {
            input: fields.input,
            output: fields.output,
            cache_read: fields.cache_read,
            cache_write: fields.cache_write,
            total_tokens: fields.total_tokens,
            cost: fields.cost,
            cache_write_1h: fields.cache_write_1h,
            reasoning: fields.reasoning,
            reasoning_last,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_keeps_the_position_each_provider_gives_it() {
        for line in [
            r#"{"input":3,"output":2,"cacheRead":0,"cacheWrite":0,"reasoning":1,"totalTokens":5,"cost":{"input":0.000009,"output":0.00003,"cacheRead":0,"cacheWrite":0,"total":0.000039}}"#,
            r#"{"input":3,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":5,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0,"reasoning":1}"#,
            r#"{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0}"#,
        ] {
            let usage: Usage = serde_json::from_str(line).unwrap();
            assert_eq!(crate::json::to_string(&usage).unwrap(), line);
        }
    }
}
