//! Regular expressions for REGEXP, REGEXP_REPLACE and REGEXP_EXTRACT
//! (feature `regex`, enabled only for jobs that use them).
//!
//! Flink uses `java.util.regex`; the engine here (regex-lite) covers the
//! common syntax — classes, quantifiers, groups, alternation, anchors — but
//! not backreferences or look-around: such a pattern fails the job with a
//! clear error instead of matching differently.

use crate::error::{Error, Result};

/// A compiled pattern.
pub struct Regex(regex_lite::Regex);

impl Regex {
    pub fn new(pattern: &str) -> std::result::Result<Regex, String> {
        regex_lite::Regex::new(pattern)
            .map(Regex)
            .map_err(|e| format!("unsupported regular expression '{pattern}': {e}"))
    }

    /// `REGEXP(s, pattern)`: whether the pattern matches anywhere in `s`
    /// (Java's `Matcher.find`).
    /// An empty pattern matches nothing (Flink's `SqlFunctionUtils.regExp`;
    /// observed: `REGEXP('', '')` is FALSE).
    pub fn is_match(&self, s: &str) -> bool {
        !self.0.as_str().is_empty() && self.0.is_match(s)
    }

    /// `REGEXP_REPLACE(s, pattern, replacement)` with Java's `replaceAll`
    /// replacement syntax (`$1` refers to a group, `\$` is a literal `$`).
    pub fn replace_all(&self, s: &str, replacement: &str) -> Result<String> {
        let replacement = java_replacement(replacement)?;
        Ok(self.0.replace_all(s, replacement.as_str()).into_owned())
    }

    /// `REGEXP_EXTRACT(s, pattern, group)`: the group of the first match, or
    /// NULL when nothing matches (an invalid group index fails the job).
    pub fn extract(&self, s: &str, group: usize) -> Result<Option<String>> {
        if group >= self.0.captures_len() {
            return Err(Error::new(format!(
                "REGEXP_EXTRACT: group {group} does not exist in the pattern (it has {})",
                self.0.captures_len() - 1
            )));
        }
        Ok(self
            .0
            .captures(s)
            .and_then(|c| c.get(group))
            .map(|m| m.as_str().to_string()))
    }
}

/// Java's replacement string in regex-lite's syntax.
fn java_replacement(r: &str) -> Result<String> {
    let mut out = String::with_capacity(r.len());
    let mut chars = r.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('$') => out.push_str("$$"),
                Some(other) => out.push(other),
                None => return Err(Error::new("REGEXP_REPLACE: the replacement ends with '\\'")),
            },
            '$' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                if digits.is_empty() {
                    return Err(Error::new("REGEXP_REPLACE: '$' in the replacement must be followed by a group number (write \\$ for a dollar)"));
                }
                out.push_str(&format!("${{{digits}}}"));
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_java_for_common_patterns() {
        let vowels = Regex::new("[aeiou]").unwrap();
        assert_eq!(vowels.replace_all("flink sql", "").unwrap(), "flnk sql");
        let digits = Regex::new("(\\d+)-(\\d+)").unwrap();
        assert_eq!(digits.replace_all("10-20", "$2:$1").unwrap(), "20:10");
        assert_eq!(
            digits.extract("a 10-20 b", 2).unwrap().as_deref(),
            Some("20")
        );
        assert_eq!(digits.extract("none", 1).unwrap(), None);
        assert!(digits.extract("10-20", 3).is_err());
        assert!(Regex::new("(a)\\1").is_err());
        assert_eq!(
            Regex::new("a").unwrap().replace_all("a", "\\$").unwrap(),
            "$"
        );
    }
}
