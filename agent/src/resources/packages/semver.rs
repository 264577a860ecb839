//! npm's versions and ranges, as far as a package's installed version is checked against the
//! settings' `npm:name@range`: `1.2.3`, `^1.2`, `~1.2.3`, `1.x`, `>=1 <2`, `1 - 2`, `a || b`.
//! A version with a prerelease tag only satisfies a range that names one of the same
//! `major.minor.patch`, as in npm.

use std::cmp::Ordering;

/// A version: `major.minor.patch`, an optional `-prerelease` (build metadata is ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    numbers: [u64; 3],
    prerelease: Vec<String>,
}

impl Version {
    /// A full version (`1.2.3`, `v1.2.3-beta.1`, `=1.2.3+build`), or `None`.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let text = text.strip_prefix('=').unwrap_or(text).trim_start();
        let text = text.strip_prefix('v').unwrap_or(text);
        let text = text.split_once('+').map_or(text, |(version, _)| version);
        let (core, prerelease) = match text.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (text, None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        let [major, minor, patch] = parts.as_slice() else {
            return None;
        };
        let prerelease = match prerelease {
            Some(pre) => {
                let ids: Vec<String> = pre.split('.').map(str::to_owned).collect();
                let valid = |id: &String| {
                    !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                };
                if !ids.iter().all(valid) {
                    return None;
                }
                ids
            }
            None => Vec::new(),
        };
        Some(Self {
            numbers: [number(major)?, number(minor)?, number(patch)?],
            prerelease,
        })
    }

    fn floor(numbers: [u64; 3]) -> Self {
        Self {
            numbers,
            prerelease: vec!["0".into()],
        }
    }

    fn release(numbers: [u64; 3]) -> Self {
        Self {
            numbers,
            prerelease: Vec::new(),
        }
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.numbers.cmp(&other.numbers).then_with(|| {
            match (self.prerelease.is_empty(), other.prerelease.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.prerelease, &other.prerelease),
            }
        })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn compare_prerelease(left: &[String], right: &[String]) -> Ordering {
    for (a, b) in left.iter().zip(right) {
        let order = match (a.parse::<u64>(), b.parse::<u64>()) {
            (Ok(a), Ok(b)) => a.cmp(&b),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => a.cmp(b),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    left.len().cmp(&right.len())
}

/// A number without leading zeros.
fn number(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.chars().all(|c| c.is_ascii_digit());
    (digits && (text == "0" || !text.starts_with('0')))
        .then(|| text.parse().ok())
        .flatten()
}

/// One bound of a range.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Comparator {
    op: Ordering,
    inclusive: bool,
    version: Version,
}

impl Comparator {
    fn test(&self, version: &Version) -> bool {
        let order = version.cmp(&self.version);
        order == self.op || (self.inclusive && order == Ordering::Equal)
    }
}

/// A range: alternatives (`||`), each a set of bounds that must all hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    sets: Vec<Vec<Comparator>>,
}

impl Range {
    /// A range, or `None` when the text is none (a dist-tag such as `latest`).
    pub fn parse(text: &str) -> Option<Self> {
        let sets = text
            .split("||")
            .map(parse_set)
            .collect::<Option<Vec<_>>>()?;
        Some(Self { sets })
    }

    /// Whether `version` is in the range.
    pub fn satisfies(&self, version: &Version) -> bool {
        self.sets.iter().any(|set| {
            set.iter().all(|bound| bound.test(version))
                && (version.prerelease.is_empty()
                    || set.iter().any(|bound| {
                        !bound.version.prerelease.is_empty()
                            && bound.version.numbers == version.numbers
                    }))
        })
    }
}

/// A partial version: `1`, `1.2`, `1.2.3-pre`, with `x`, `X` or `*` for what is left open.
struct Partial {
    numbers: Vec<u64>,
    prerelease: Vec<String>,
}

impl Partial {
    fn parse(text: &str) -> Option<Self> {
        let text = text.strip_prefix('v').unwrap_or(text);
        let text = text.split_once('+').map_or(text, |(version, _)| version);
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (text, None),
        };
        let mut numbers = Vec::new();
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() > 3 {
            return None;
        }
        for part in parts {
            if matches!(part, "x" | "X" | "*") {
                break;
            }
            numbers.push(number(part)?);
        }
        let prerelease = match pre {
            Some(_) if numbers.len() < 3 => return None,
            Some(pre) => Version::parse(&format!("0.0.0-{pre}"))?.prerelease,
            None => Vec::new(),
        };
        Some(Self {
            numbers,
            prerelease,
        })
    }

    fn full(&self) -> [u64; 3] {
        let at = |index: usize| self.numbers.get(index).copied().unwrap_or(0);
        [at(0), at(1), at(2)]
    }

    fn version(&self) -> Version {
        Version {
            numbers: self.full(),
            prerelease: self.prerelease.clone(),
        }
    }

    /// The first version after what the partial leaves open (`1.2` → `1.3.0-0`).
    fn next_floor(&self) -> Option<Version> {
        let [major, minor, _] = self.full();
        match self.numbers.len() {
            1 => Some(Version::floor([major + 1, 0, 0])),
            2 => Some(Version::floor([major, minor + 1, 0])),
            _ => None,
        }
    }
}

fn bound(op: Ordering, inclusive: bool, version: Version) -> Comparator {
    Comparator {
        op,
        inclusive,
        version,
    }
}

/// One alternative: a hyphen range or bounds separated by spaces.
fn parse_set(text: &str) -> Option<Vec<Comparator>> {
    let tokens = tokens(text);
    if let [low, dash, high] = tokens.as_slice()
        && dash == "-"
    {
        let (low, high) = (Partial::parse(low)?, Partial::parse(high)?);
        let mut set = vec![bound(Ordering::Greater, true, low.version())];
        if !high.numbers.is_empty() {
            set.push(match high.next_floor() {
                Some(next) => bound(Ordering::Less, false, next),
                None => bound(Ordering::Less, true, high.version()),
            });
        }
        return Some(set);
    }
    let mut set = Vec::new();
    for token in tokens {
        set.extend(parse_comparator(&token)?);
    }
    Some(set)
}

/// The words of an alternative, an operator joined to the version after it (`>= 1` is `>=1`).
fn tokens(text: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut pending = String::new();
    for word in text.split_whitespace() {
        if matches!(word, "<" | "<=" | ">" | ">=" | "=" | "~" | "~>" | "^") {
            pending.push_str(word);
        } else {
            tokens.push(format!("{pending}{word}"));
            pending.clear();
        }
    }
    if !pending.is_empty() {
        tokens.push(pending);
    }
    tokens
}

/// The bounds one comparator stands for.
fn parse_comparator(token: &str) -> Option<Vec<Comparator>> {
    let (op, rest) = ["<=", ">=", "~>", "<", ">", "=", "~", "^"]
        .iter()
        .find_map(|op| token.strip_prefix(op).map(|rest| (*op, rest)))
        .unwrap_or(("", token));
    let partial = Partial::parse(rest.trim())?;
    let open = partial.numbers.is_empty();
    let [major, minor, patch] = partial.full();
    let at_least = |version: Version| bound(Ordering::Greater, true, version);
    let below = |version: Version| bound(Ordering::Less, false, version);
    let any = || vec![at_least(Version::release([0, 0, 0]))];
    Some(match op {
        "" | "=" => match partial.next_floor() {
            _ if open => any(),
            Some(next) => vec![at_least(partial.version()), below(next)],
            None => vec![
                at_least(partial.version()),
                bound(Ordering::Less, true, partial.version()),
            ],
        },
        "~" | "~>" => match partial.numbers.len() {
            0 => any(),
            1 => vec![
                at_least(partial.version()),
                below(Version::floor([major + 1, 0, 0])),
            ],
            _ => vec![
                at_least(partial.version()),
                below(Version::floor([major, minor + 1, 0])),
            ],
        },
        "^" => {
            let next = match partial.numbers.len() {
                0 => return Some(any()),
                1 => [major + 1, 0, 0],
                2 if major == 0 => [0, minor + 1, 0],
                2 => [major + 1, 0, 0],
                _ if major > 0 => [major + 1, 0, 0],
                _ if minor > 0 => [0, minor + 1, 0],
                _ => [0, 0, patch + 1],
            };
            vec![at_least(partial.version()), below(Version::floor(next))]
        }
        ">" => match partial.next_floor() {
            _ if open => vec![below(Version::floor([0, 0, 0]))],
            Some(next) => vec![at_least(Version::release(next.numbers))],
            None => vec![bound(Ordering::Greater, false, partial.version())],
        },
        ">=" => vec![at_least(partial.version())],
        "<" => match open {
            true => vec![below(Version::floor([0, 0, 0]))],
            false => vec![below(match partial.numbers.len() {
                3 => partial.version(),
                _ => Version::floor(partial.full()),
            })],
        },
        _ => match partial.next_floor() {
            _ if open => any(),
            Some(next) => vec![below(next)],
            None => vec![bound(Ordering::Less, true, partial.version())],
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn satisfies(version: &str, range: &str) -> bool {
        let version = Version::parse(version).unwrap();
        Range::parse(range).unwrap().satisfies(&version)
    }

    #[test]
    fn versions_parse_strictly_and_order_prereleases_first() {
        assert!(Version::parse("1.2.3").is_some());
        assert!(Version::parse("v1.2.3-beta.1+sha").is_some());
        assert!(Version::parse("1.2").is_none());
        assert!(Version::parse("01.2.3").is_none());
        assert!(Version::parse("latest").is_none());
        let v = |text: &str| Version::parse(text).unwrap();
        assert!(v("1.0.0-alpha") < v("1.0.0-alpha.1"));
        assert!(v("1.0.0-alpha.1") < v("1.0.0-beta"));
        assert!(v("1.0.0-2") < v("1.0.0-10"));
        assert!(v("1.0.0-rc.1") < v("1.0.0"));
    }

    #[test]
    fn ranges_hold_as_npm_s_do() {
        assert!(satisfies("1.2.3", "1.2.3"));
        assert!(!satisfies("1.2.4", "1.2.3"));
        assert!(satisfies("1.9.0", "^1.2.0"));
        assert!(!satisfies("2.0.0", "^1.2.0"));
        assert!(satisfies("0.3.9", "^0.3.1"));
        assert!(!satisfies("0.4.0", "^0.3.1"));
        assert!(!satisfies("0.0.4", "^0.0.3"));
        assert!(satisfies("1.2.9", "~1.2.3"));
        assert!(!satisfies("1.3.0", "~1.2.3"));
        assert!(satisfies("1.7.0", "1"));
        assert!(satisfies("1.7.0", "1.x"));
        assert!(!satisfies("1.7.0", "1.6"));
        assert!(satisfies("3.0.0", "*"));
        assert!(satisfies("3.0.0", ""));
        assert!(satisfies("1.5.0", ">=1.0.0 <2"));
        assert!(!satisfies("2.0.0", ">=1.0.0 <2"));
        assert!(satisfies("2.3.9", "1.2 - 2.3"));
        assert!(!satisfies("2.4.0", "1.2 - 2.3"));
        assert!(satisfies("3.1.0", "^1 || ^3"));
        assert!(satisfies("2.0.0", ">1"));
        assert!(!satisfies("1.9.9", ">1"));
        assert!(satisfies("1.2.9", "<=1.2"));
        assert!(satisfies("1.5.0", ">= 1.2"));
    }

    #[test]
    fn prereleases_only_satisfy_ranges_naming_their_release() {
        assert!(!satisfies("2.0.0-beta.1", "^1.0.0"));
        assert!(!satisfies("1.5.0-beta.1", "^1.0.0"));
        assert!(satisfies("1.5.0-beta.2", "^1.5.0-beta.1"));
        assert!(!satisfies("1.6.0-beta.2", "^1.5.0-beta.1"));
    }

    #[test]
    fn tags_are_no_ranges() {
        assert!(Range::parse("latest").is_none());
        assert!(Range::parse("next").is_none());
        assert!(Range::parse("1.2.3.4").is_none());
    }
}
