//! Numbers as JavaScript writes and reads them: `String(number)`, the unary `+text`, and the
//! JSON number a value becomes.

use serde_json::Value;

/// Formats a double as JavaScript's `String(number)` does (`1` not `1.0`, `1e+21`, `NaN`): the
/// wire's number text for finite values, JavaScript's words for the others.
pub(crate) fn number_to_string(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    pi_rpc_protocol::json::format_js_number(value)
}

/// JavaScript's `+text`: whitespace-trimmed decimal, hex, octal or binary literal, `Infinity`,
/// or the empty string as 0; anything else is NaN.
pub(crate) fn string_to_number(text: &str) -> f64 {
    let trimmed = super::trim(text);
    if trimmed.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(rest) = trimmed.strip_prefix(prefix) {
            if rest.is_empty() || !rest.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            return rest.chars().fold(0.0, |acc, c| {
                acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
            });
        }
    }
    let (sign, unsigned) = match trimmed.as_bytes()[0] {
        b'+' => (1.0, &trimmed[1..]),
        b'-' => (-1.0, &trimmed[1..]),
        _ => (1.0, trimmed),
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_decimal_literal(unsigned) {
        return f64::NAN;
    }
    sign * unsigned.parse::<f64>().unwrap_or(f64::NAN)
}

/// `digits [. digits?] | . digits`, then an optional exponent.
fn is_decimal_literal(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut index = 0;
    let int_start = index;
    while index < bytes.len() && bytes[index].is_ascii_digit() {
        index += 1;
    }
    let int_digits = index - int_start;
    let mut frac_digits = 0;
    if index < bytes.len() && bytes[index] == b'.' {
        index += 1;
        let frac_start = index;
        while index < bytes.len() && bytes[index].is_ascii_digit() {
            index += 1;
        }
        frac_digits = index - frac_start;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if index < bytes.len() && (bytes[index] == b'e' || bytes[index] == b'E') {
        index += 1;
        if index < bytes.len() && (bytes[index] == b'+' || bytes[index] == b'-') {
            index += 1;
        }
        let exp_start = index;
        while index < bytes.len() && bytes[index].is_ascii_digit() {
            index += 1;
        }
        if index == exp_start {
            return false;
        }
    }
    index == bytes.len()
}

/// A JSON number as JavaScript writes it: integral values without a fraction.
pub(crate) fn number_value(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() <= 9_007_199_254_740_991.0 {
        // Exact: the value is an integer within the safe range.
        #[allow(clippy::cast_possible_truncation)]
        return Value::from(value as i64);
    }
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        for (value, text) in [
            (1.0, "1"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "Infinity"),
        ] {
            assert_eq!(number_to_string(value), text);
        }
    }

    #[test]
    fn strings_convert_like_the_unary_plus() {
        assert_eq!(string_to_number(" 7 "), 7.0);
        assert_eq!(string_to_number(""), 0.0);
        assert_eq!(string_to_number("0x10"), 16.0);
        assert_eq!(string_to_number("1e2"), 100.0);
        assert_eq!(string_to_number(".5"), 0.5);
        assert_eq!(string_to_number("5."), 5.0);
        assert_eq!(string_to_number("-Infinity"), f64::NEG_INFINITY);
        assert!(string_to_number("abc").is_nan());
        assert!(string_to_number("inf").is_nan());
        assert!(string_to_number("12n").is_nan());
        assert!(string_to_number("-0x10").is_nan());
    }
}
