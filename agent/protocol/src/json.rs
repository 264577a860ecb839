//! JSON text exactly as the reference (JavaScript's `JSON.stringify`) writes it.
//!
//! serde_json already writes what `JSON.stringify` writes for strings: raw UTF-8 for every
//! non-ASCII character (U+2028 and U+2029 included), `\n`, `\t`, `\r`, `\b`, `\f` as short
//! escapes, other control characters as lowercase `\u00XX`, and `/` unescaped. Numbers differ:
//! JavaScript has only doubles and prints them with `Number.prototype.toString`, so `1.0` is `1`,
//! `0.000015` stays `0.000015`, `1e21` is `1e+21`, and `-0` is `0`. [`JsFormatter`] writes
//! numbers that way, and writes the stand-ins of lone UTF-16 surrogates
//! ([`crate::surrogates`]) as the `\udXXX` escapes `JSON.stringify` gives them.

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;

/// Integers beyond this magnitude are not exact in a JavaScript number.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A serde_json formatter that writes numbers as JavaScript's `Number.prototype.toString` does.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsFormatter;

impl Formatter for JsFormatter {
    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        // A JavaScript number is a double: widen through the shortest decimal form so that
        // 0.1f32 prints as 0.1, as it would after a round trip through JSON text.
        let shortest = ryu_like_f32(value);
        writer.write_all(format_js_number(shortest).as_bytes())
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(format_js_number(value).as_bytes())
    }

    fn write_u64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u64) -> io::Result<()> {
        if value > MAX_SAFE_INTEGER {
            // JSON.parse would already have rounded it to the nearest double.
            return writer.write_all(format_js_number(value as f64).as_bytes());
        }
        writer.write_all(value.to_string().as_bytes())
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i64) -> io::Result<()> {
        if value.unsigned_abs() > MAX_SAFE_INTEGER {
            return writer.write_all(format_js_number(value as f64).as_bytes());
        }
        writer.write_all(value.to_string().as_bytes())
    }

    fn write_u128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u128) -> io::Result<()> {
        writer.write_all(format_js_number(value as f64).as_bytes())
    }

    fn write_i128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i128) -> io::Result<()> {
        writer.write_all(format_js_number(value as f64).as_bytes())
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        crate::surrogates::write_fragment(writer, fragment)
    }
}

fn ryu_like_f32(value: f32) -> f64 {
    // `f32`'s Display is the shortest text that round-trips to the same f32.
    value.to_string().parse::<f64>().unwrap_or(f64::from(value))
}

/// Formats a finite double as JavaScript's `Number.prototype.toString()` (radix 10) does.
///
/// Non-finite values never reach here: serde_json writes them as `null`, as `JSON.stringify` does.
pub fn format_js_number(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        // -0 prints as 0; NaN and the infinities cannot occur (see above) but must not panic.
        return if value.is_nan() || value == 0.0 {
            "0".into()
        } else {
            "null".into()
        };
    }
    // Rust's `{:e}` prints the shortest digits that round-trip, as ECMAScript requires:
    // "1.5e-5", "1e21", "-1.2345e2".
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    // ECMAScript's n: value = 0.d1d2...dk × 10^n.
    let n = exponent + 1;
    let mut out = String::with_capacity(digits.len() + 8);
    if value < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n > 0 { '+' } else { '-' });
        out.push_str(&(n - 1).abs().to_string());
    }
    out
}

/// JavaScript's `Number.prototype.toFixed(digits)` for finite values below 1e21: the exact value
/// of the double rounded to `digits` decimals, a half rounded away from zero (`1.25` gives
/// `1.3`, while `1.15`, a little below that in binary, gives `1.1`).
pub fn to_fixed(value: f64, digits: u32) -> String {
    let exact = format!("{:.60}", value.abs());
    let (whole, fraction) = exact.split_once('.').unwrap_or((&exact, ""));
    let digit = |at: u32| {
        fraction
            .as_bytes()
            .get(at as usize)
            .map_or(0, |digit| u128::from(digit - b'0'))
    };
    let mut scaled: u128 = whole.parse().unwrap_or(0);
    for at in 0..digits {
        scaled = scaled * 10 + digit(at);
    }
    if digit(digits) >= 5 {
        scaled += 1;
    }
    let sign = if value < 0.0 { "-" } else { "" };
    if digits == 0 {
        return format!("{sign}{scaled}");
    }
    let unit = 10u128.pow(digits);
    format!(
        "{sign}{}.{:0width$}",
        scaled / unit,
        scaled % unit,
        width = digits as usize
    )
}

/// Serialises `value` as JSON text, byte for byte as `JSON.stringify` would.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let bytes = to_vec(value)?;
    // serde_json only ever writes valid UTF-8.
    String::from_utf8(bytes).map_err(|error| serde::ser::Error::custom(error.to_string()))
}

/// Serialises `value` as JSON bytes, byte for byte as `JSON.stringify` would.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(128);
    write_to(&mut out, value)?;
    Ok(out)
}

/// The length in bytes of `value` as [`write_to`] writes it, found without keeping the text.
pub fn encoded_len<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<usize> {
    struct Counter(usize);
    impl io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut counter,
        JsFormatter,
    ))?;
    Ok(counter.0)
}

/// Serialises `value` into `out`, byte for byte as `JSON.stringify` would.
pub fn write_to<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> serde_json::Result<()> {
    write_into(out, value)
}

/// [`write_to`] into any writer.
pub fn write_into<W: io::Write, T: Serialize + ?Sized>(
    out: W,
    value: &T,
) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, JsFormatter);
    value.serialize(&mut serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (1.5, "1.5"),
            (0.000015, "0.000015"),
            (0.000001, "0.000001"),
            (0.0000001, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (123456789.0, "123456789"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.2345e22, "1.2345e+22"),
            (-2.5, "-2.5"),
            (0.026, "0.026"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (100.0, "100"),
            (0.00105, "0.00105"),
        ];
        for (value, expected) in cases {
            assert_eq!(format_js_number(*value), *expected, "formatting {value:e}");
        }
    }

    #[test]
    fn strings_escape_as_json_stringify_does() {
        let text = "a/b \u{2028}\u{2029}\u{85} é 😀 \n\t\r\u{8}\u{c}\u{1b}\u{0}\u{7f} \"\\";
        let expected =
            "\"a/b \u{2028}\u{2029}\u{85} é 😀 \\n\\t\\r\\b\\f\\u001b\\u0000\u{7f} \\\"\\\\\"";
        assert_eq!(to_string(text).unwrap(), expected);
    }

    #[test]
    fn to_fixed_rounds_the_exact_value_halves_up() {
        assert_eq!(to_fixed(1.05, 2), "1.05");
        assert_eq!(to_fixed(1.125, 2), "1.13");
        assert_eq!(to_fixed(1.005, 2), "1.00");
        assert_eq!(to_fixed(8.192, 1), "8.2");
        assert_eq!(to_fixed(1.25, 1), "1.3");
        assert_eq!(to_fixed(1.15, 1), "1.1");
        assert_eq!(to_fixed(2.0, 2), "2.00");
        assert_eq!(to_fixed(-2.5, 0), "-3");
    }

    #[test]
    fn integers_beyond_the_safe_range_round_like_javascript() {
        assert_eq!(to_string(&9007199254740993u64).unwrap(), "9007199254740992");
        assert_eq!(to_string(&u64::MAX).unwrap(), "18446744073709552000");
        assert_eq!(to_string(&-42i64).unwrap(), "-42");
    }

    #[test]
    fn value_numbers_parsed_from_text_print_like_javascript() {
        let value: serde_json::Value =
            serde_json::from_str(r#"[1.0, 2.50, 1e3, -0.0, 1E-7]"#).unwrap();
        assert_eq!(to_string(&value).unwrap(), "[1,2.5,1000,0,1e-7]");
    }
}
