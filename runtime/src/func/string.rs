//! String functions with Flink's semantics: positions and lengths count
//! characters (code points), 1-based; NULL handling is left to the caller
//! (`Option::map`/`and_then`), except for the functions whose NULL rule is
//! special (CONCAT_WS skips NULL arguments).

/// UPPER (Unicode-aware, as Java's `toUpperCase`).
pub fn upper(s: &str) -> String {
    s.to_uppercase()
}

/// LOWER.
pub fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// TRIM(BOTH ' ' FROM s): removes spaces only (not tabs), as Flink.
pub fn trim(s: &str) -> &str {
    s.trim_matches(' ')
}

pub fn ltrim(s: &str) -> &str {
    s.trim_start_matches(' ')
}

pub fn rtrim(s: &str) -> &str {
    s.trim_end_matches(' ')
}

/// TRIM(BOTH/LEADING/TRAILING chars FROM s): removes any of `chars`.
pub fn trim_chars<'a>(s: &'a str, chars: &str, leading: bool, trailing: bool) -> &'a str {
    let mut out = s;
    if leading {
        out = out.trim_start_matches(|c| chars.contains(c));
    }
    if trailing {
        out = out.trim_end_matches(|c| chars.contains(c));
    }
    out
}

/// CHAR_LENGTH / CHARACTER_LENGTH.
pub fn char_length(s: &str) -> i32 {
    s.chars().count() as i32
}

/// Byte offset of the `n`-th char (0-based), or the string length.
fn char_offset(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

/// SUBSTRING(s FROM pos [FOR len]): 1-based; a negative `pos` counts from the
/// end; 0 behaves as 1; a negative length yields NULL (as Flink).
pub fn substring(s: &str, pos: i32, len: Option<i32>) -> Option<&str> {
    let n = s.chars().count() as i64;
    if len.is_some_and(|l| l < 0) {
        return None;
    }
    let start = match pos {
        p if p > 0 => p as i64 - 1,
        0 => 0,
        p => n + p as i64,
    };
    if start >= n || start < 0 && len.is_none() && n + (pos as i64) < 0 {
        return Some(if start >= n { "" } else { s });
    }
    let start = start.max(0);
    let end = match len {
        Some(l) => (start + l as i64).min(n),
        None => n,
    };
    if end <= start {
        return Some("");
    }
    let b0 = char_offset(s, start as usize);
    let b1 = char_offset(s, end as usize);
    Some(&s[b0..b1])
}

/// CONCAT: NULL if any argument is NULL.
pub fn concat(parts: &[Option<&str>]) -> Option<String> {
    let mut out = String::new();
    for p in parts {
        out.push_str((*p)?);
    }
    Some(out)
}

/// CONCAT_WS: NULL separator gives NULL; NULL arguments are skipped.
pub fn concat_ws(sep: Option<&str>, parts: &[Option<&str>]) -> Option<String> {
    let sep = sep?;
    let mut out = String::new();
    let mut first = true;
    for p in parts.iter().flatten() {
        if !first {
            out.push_str(sep);
        }
        out.push_str(p);
        first = false;
    }
    Some(out)
}

/// REPLACE(s, from, to); an empty `from` leaves `s` unchanged.
pub fn replace(s: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return s.to_string();
    }
    s.replace(from, to)
}

/// POSITION(needle IN s): 1-based char position, 0 when absent.
pub fn position(needle: &str, s: &str) -> i32 {
    match s.find(needle) {
        Some(b) => s[..b].chars().count() as i32 + 1,
        None => 0,
    }
}

/// LPAD(s, len, pad): pads on the left, or truncates to `len` chars; NULL for
/// a negative length or an empty pad that would be needed.
pub fn lpad(s: &str, len: i32, pad: &str) -> Option<String> {
    pad_impl(s, len, pad, true)
}

/// RPAD(s, len, pad).
pub fn rpad(s: &str, len: i32, pad: &str) -> Option<String> {
    pad_impl(s, len, pad, false)
}

fn pad_impl(s: &str, len: i32, pad: &str, left: bool) -> Option<String> {
    if len < 0 {
        return None;
    }
    let len = len as usize;
    let n = s.chars().count();
    if n >= len {
        return Some(s[..char_offset(s, len)].to_string());
    }
    if pad.is_empty() {
        return Some(s.to_string());
    }
    let fill: String = pad.chars().cycle().take(len - n).collect();
    Some(if left {
        fill + s
    } else {
        s.to_string() + &fill
    })
}

/// INITCAP: first letter of each word upper-case, the rest lower-case; words
/// are runs of letters and digits.
pub fn initcap(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = true;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if start {
                out.extend(c.to_uppercase());
            } else {
                out.extend(c.to_lowercase());
            }
            start = false;
        } else {
            out.push(c);
            start = true;
        }
    }
    out
}

/// REVERSE (by chars).
pub fn reverse(s: &str) -> String {
    s.chars().rev().collect()
}

/// Flink compares strings by their UTF-8 bytes (`BinaryStringData.compareTo`),
/// which is Rust's `str` ordering.
pub fn compare(a: &str, b: &str) -> std::cmp::Ordering {
    a.as_bytes().cmp(b.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings() {
        assert_eq!(substring("hello", 2, Some(3)), Some("ell"));
        assert_eq!(substring("hello", -2, None), Some("lo"));
        assert_eq!(substring("hello", 0, Some(2)), Some("he"));
        assert_eq!(substring("hello", 10, None), Some(""));
        assert_eq!(substring("héllo", 2, None), Some("éllo"));
        assert_eq!(concat(&[Some("a"), None]), None);
        assert_eq!(
            concat_ws(Some("-"), &[Some("a"), None, Some("b")]).as_deref(),
            Some("a-b")
        );
        assert_eq!(char_length("héllo"), 5);
        assert_eq!(position("b", "abc"), 2);
        assert_eq!(position("z", "abc"), 0);
        assert_eq!(lpad("ab", 5, "xy").as_deref(), Some("xyxab"));
        assert_eq!(rpad("ab", 5, "xy").as_deref(), Some("abxyx"));
        assert_eq!(lpad("abcdef", 3, "x").as_deref(), Some("abc"));
        assert_eq!(reverse("abc"), "abc".chars().rev().collect::<String>());
        assert_eq!(trim_chars("xxaxx", "x", true, false), "axx");
    }
}
