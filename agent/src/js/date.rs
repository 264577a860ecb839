//! Timestamps as the reference writes them: `Date.prototype.toISOString()` (UTC, milliseconds,
//! `Z`), and the few ISO 8601 forms `Date.parse` reads back from session files.

/// `Date.now()`: milliseconds since the Unix epoch (the crate's one clock).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as u64)
        .unwrap_or(0)
}

/// The current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn now_iso() -> String {
    format_iso(i64::try_from(now_ms()).unwrap_or(i64::MAX))
}

/// Formats milliseconds since the epoch as `toISOString()` does (years 0..=9999).
pub fn format_iso(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let in_day = millis.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let hour = in_day / 3_600_000;
    let minute = in_day / 60_000 % 60;
    let second = in_day / 1000 % 60;
    let milli = in_day % 1000;
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}

/// Parses the ISO 8601 forms found in session files (`2024-12-03T14:00:01.000Z`, without
/// fraction, with any number of fraction digits, or with a `±HH:MM` offset) into milliseconds
/// since the epoch. Anything else is `None`, where JavaScript would give `NaN`.
pub fn parse_iso(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    let number = |from: usize, len: usize| -> Option<i64> {
        let part = bytes.get(from..from + len)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let expect = |at: usize, byte: u8| bytes.get(at) == Some(&byte);
    let year = number(0, 4)?;
    if !(expect(4, b'-') && expect(7, b'-') && expect(10, b'T') && expect(13, b':')) {
        return None;
    }
    let (month, day, hour, minute) = (number(5, 2)?, number(8, 2)?, number(11, 2)?, number(14, 2)?);
    let mut at = 16;
    let mut second = 0;
    let mut milli = 0;
    if expect(at, b':') {
        second = number(at + 1, 2)?;
        at += 3;
        if expect(at, b'.') {
            at += 1;
            let start = at;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == start {
                return None;
            }
            let digits = &text[start..at.min(start + 3)];
            milli = format!("{digits:0<3}").parse().ok()?;
        }
    }
    let offset_minutes = match bytes.get(at) {
        Some(b'Z') if at + 1 == bytes.len() => 0,
        Some(sign @ (b'+' | b'-')) if bytes.len() == at + 6 && expect(at + 3, b':') => {
            let minutes = number(at + 1, 2)? * 60 + number(at + 4, 2)?;
            if *sign == b'+' { minutes } else { -minutes }
        }
        _ => return None,
    };
    let valid = (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour <= 24
        && minute <= 59
        && second <= 59
        && (hour < 24 || (minute == 0 && second == 0 && milli == 0));
    if !valid {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(
        days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli
            - offset_minutes * 60_000,
    )
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day number since 1970-01-01 (inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_to_iso_string() {
        assert_eq!(format_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_iso(1_796_064_859_702), "2026-11-30T18:54:19.702Z");
        assert_eq!(format_iso(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(format_iso(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn parses_what_it_formats_and_common_variants() {
        for millis in [0, 1_796_064_859_702, 951_782_400_000, 1_733_234_401_000] {
            assert_eq!(parse_iso(&format_iso(millis)), Some(millis));
        }
        assert_eq!(parse_iso("2024-12-03T14:00:01Z"), Some(1_733_234_401_000));
        assert_eq!(parse_iso("2024-12-03T14:00:01.5Z"), Some(1_733_234_401_500));
        assert_eq!(
            parse_iso("2024-12-03T15:00:01.000+01:00"),
            Some(1_733_234_401_000)
        );
        assert_eq!(parse_iso("2024-02-30T00:00:00.000Z"), None);
        assert_eq!(parse_iso("yesterday"), None);
        assert_eq!(parse_iso(""), None);
    }
}
