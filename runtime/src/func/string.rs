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
    // A start before the first char (a negative position past the text's
    // length) gives '' in Flink: `SUBSTR('x', -2)`, `SUBSTRING('x' FROM -3 FOR 2)`.
    if start >= n || start < 0 {
        return Some("");
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

/// REPLACE(s, from, to). An empty `from` matches between every two chars,
/// as Java's `String.replace` (Flink: `REPLACE('abc', '', 'x')` = `xaxbxcx`).
pub fn replace(s: &str, from: &str, to: &str) -> String {
    s.replace(from, to)
}

/// POSITION(needle IN s): 1-based char position, 0 when absent.
pub fn position(needle: &str, s: &str) -> i32 {
    match s.find(needle) {
        Some(b) => s[..b].chars().count() as i32 + 1,
        None => 0,
    }
}

/// LPAD(s, len, pad): pads on the left, or truncates to `len`; NULL for a
/// negative length or an empty pad that would be needed. Unlike SUBSTRING or
/// CHAR_LENGTH, Flink counts UTF-16 units here (Java `String` lengths):
/// `LPAD('😀', 8, 'x')` is six `x` and the emoji. A result that would end or
/// start inside a surrogate pair is an error: Flink builds such a string but
/// fails the job when it writes it ("Broken surrogate pair"), and a Rust
/// string cannot hold half a character.
pub fn lpad(s: &str, len: i32, pad: &str) -> Result<Option<String>, String> {
    pad_impl(s, len, pad, true)
}

/// RPAD(s, len, pad), in UTF-16 units as [`lpad`].
pub fn rpad(s: &str, len: i32, pad: &str) -> Result<Option<String>, String> {
    pad_impl(s, len, pad, false)
}

fn pad_impl(s: &str, len: i32, pad: &str, left: bool) -> Result<Option<String>, String> {
    if len < 0 {
        return Ok(None);
    }
    let n = len as usize;
    let units: Vec<u16> = s.encode_utf16().collect();
    let out: Vec<u16> = if units.len() >= n {
        units[..n].to_vec()
    } else {
        let pad_units: Vec<u16> = pad.encode_utf16().collect();
        if pad_units.is_empty() {
            // Flink: `LPAD('abc', 5, '')` is NULL.
            return Ok(None);
        }
        let fill = pad_units.iter().copied().cycle().take(n - units.len());
        if left {
            fill.chain(units.iter().copied()).collect()
        } else {
            units.iter().copied().chain(fill).collect()
        }
    };
    String::from_utf16(&out).map(Some).map_err(|_| {
        format!(
            "{}('{s}', {len}, '{pad}'): the result would split a character in two (its UTF-16 \
             surrogate pair): Flink counts UTF-16 units here and fails the job writing such \
             a string (\"Broken surrogate pair\")",
            if left { "LPAD" } else { "RPAD" }
        )
    })
}

/// INITCAP: Flink's (Calcite's) ASCII-only rule. A word starts after any
/// character that is not an ASCII letter or digit; its first ASCII letter is
/// upper-cased, the ASCII letters after it lower-cased; every other character
/// is kept and ends the word (`'straße'` → `StraßE`, `'éCOLE'` → `éCole`).
pub fn initcap(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = true;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(if start {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            });
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

/// CAST(s AS CHAR(n)) / CAST(s AS VARCHAR(n)): cut to `n` chars; CHAR (`pad`)
/// also pads with spaces to `n` (`CAST('abc' AS CHAR(5)) || '|'` = `abc  |`).
pub fn cast_length(mut s: String, n: u32, pad: bool) -> String {
    let n = n as usize;
    let len = s.chars().count();
    if len > n {
        s.truncate(char_offset(&s, n));
    } else if pad {
        s.extend(std::iter::repeat_n(' ', n - len));
    }
    s
}

/// CAST(b AS BINARY(n)) / CAST(b AS VARBINARY(n)): cut to `n` bytes; BINARY
/// (`pad`) also pads with zero bytes (`X'0102'` as BINARY(4) is `01020000`).
pub fn cast_bytes_length(mut b: Vec<u8>, n: u32, pad: bool) -> Vec<u8> {
    let n = n as usize;
    if b.len() > n {
        b.truncate(n);
    } else if pad {
        b.resize(n, 0);
    }
    b
}

/// LEFT(s, n): the first `n` chars; empty for a negative `n`.
pub fn left(s: &str, n: i32) -> &str {
    &s[..char_offset(s, n.max(0) as usize)]
}

/// RIGHT(s, n): the last `n` chars; empty for a negative `n`.
pub fn right(s: &str, n: i32) -> &str {
    let len = s.chars().count();
    let n = (n.max(0) as usize).min(len);
    &s[char_offset(s, len - n)..]
}

/// LOCATE(needle, s, from): 1-based char position of `needle` in `s` at or
/// after char `from`, 0 when absent or when `from` is out of range.
pub fn locate(needle: &str, s: &str, from: i32) -> i32 {
    if from < 1 {
        return 0;
    }
    let n = s.chars().count();
    if from as usize > n + 1 && !needle.is_empty() {
        return 0;
    }
    // Java's `indexOf(needle, from)`: a start past the end is the end, where
    // an empty needle is found (observed: `LOCATE('', '', 3)` is 1).
    let start = char_offset(s, (from as usize - 1).min(n));
    match s[start..].find(needle) {
        Some(b) => s[..start + b].chars().count() as i32 + 1,
        None => 0,
    }
}

/// SPLIT_INDEX(s, sep, i): the `i`-th (0-based) token of `s` split at every
/// `sep` (commons-lang `splitByWholeSeparatorPreserveAllTokens`: empty tokens
/// count, an empty `sep` splits at whitespace); NULL when out of range.
pub fn split_index(s: &str, sep: &str, index: i32) -> Option<String> {
    if index < 0 || s.is_empty() {
        return None;
    }
    let token = if sep.is_empty() {
        s.split(char::is_whitespace).nth(index as usize)
    } else {
        s.split(sep).nth(index as usize)
    };
    token.map(str::to_string)
}

/// ASCII(s): Flink's value is the first UTF-8 byte as a signed byte
/// (`ASCII('é')` is -61), 0 for an empty string.
pub fn ascii(s: &str) -> i32 {
    s.as_bytes().first().map_or(0, |&b| b as i8 as i32)
}

/// CHR(n): the char with code `n & 0xFF`; empty for a negative `n`.
pub fn chr(n: i64) -> String {
    if n < 0 {
        return String::new();
    }
    char::from((n & 0xFF) as u8).to_string()
}

/// TO_BASE64(s): base64 of the UTF-8 bytes.
pub fn to_base64(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len().div_ceil(3) * 4);
    crate::text::base64::encode(&mut out, s.as_bytes());
    String::from_utf8(out).unwrap_or_default()
}

/// FROM_BASE64(s): the decoded bytes as UTF-8 text; an error for bad base64.
pub fn from_base64(s: &str) -> Result<String, String> {
    match crate::text::base64::decode(s.as_bytes()) {
        Some(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        None => Err(format!("FROM_BASE64: '{s}' is not valid base64")),
    }
}

/// IS_DIGIT(s): non-empty and all decimal digits.
pub fn is_digit(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// IS_DECIMAL(s): Flink's `SqlFunctionUtils.isDecimal` of a string: not
/// empty, and `Integer.parseInt`, `Long.parseLong` or `Double.parseDouble`
/// accepts it (`' 1.5 '`, `'1e3'`, `'NaN'`, `'-Infinity'` and `'2d'` are
/// decimals; `'1,5'` is not).
pub fn is_decimal(s: &str) -> bool {
    use crate::text::number;
    !s.is_empty()
        && (number::parse_i64(s.as_bytes()).is_some() || number::parse_f64(s.as_bytes()).is_some())
}

/// IS_ALPHA(s): non-empty and all letters.
pub fn is_alpha(s: &str) -> bool {
    !s.is_empty() && s.chars().all(char::is_alphabetic)
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
        assert_eq!(lpad("ab", 5, "xy").unwrap().as_deref(), Some("xyxab"));
        assert_eq!(rpad("ab", 5, "xy").unwrap().as_deref(), Some("abxyx"));
        assert_eq!(lpad("abcdef", 3, "x").unwrap().as_deref(), Some("abc"));
        assert_eq!(reverse("abc"), "abc".chars().rev().collect::<String>());
        assert_eq!(trim_chars("xxaxx", "x", true, false), "axx");
        // From docs/flink-observed/runtime-probe-results.md.
        assert_eq!(replace("abc", "", "x"), "xaxbxcx");
        assert_eq!(replace("aaa", "aa", "b"), "ba");
        assert_eq!(lpad("abc", 5, ""), Ok(None));
        // From the function probe (Flink 2.3): LPAD/RPAD count UTF-16 units.
        assert_eq!(lpad("😀", 8, "x").unwrap().as_deref(), Some("xxxxxx😀"));
        assert_eq!(rpad("a😀b", 8, "b").unwrap().as_deref(), Some("a😀bbbbb"));
        assert_eq!(lpad("😀", 5, "x😀y").unwrap().as_deref(), Some("x😀😀"));
        assert_eq!(lpad("a😀b", 3, "*").unwrap().as_deref(), Some("a😀"));
        // Half a surrogate pair: Flink fails writing it, stmtc fails at once.
        assert!(lpad("a😀b", 2, "*").is_err());
        assert!(rpad("abc", 4, "😀").is_err());
        assert!(lpad("x😀y😀z", 8, "😀").is_err());
        assert_eq!(
            initcap("straße ǅ éCOLE hELLO-wORLD"),
            "StraßE ǅ éCole Hello-World"
        );
        assert_eq!(ascii("é"), -61);
        assert!(is_decimal("12.5") && is_decimal(" 1e3 ") && is_decimal("NaN") && is_decimal("+7"));
        assert!(!is_decimal("") && !is_decimal("x") && !is_decimal("1,5") && !is_decimal("１２"));
        assert_eq!(cast_length("abc".into(), 5, true), "abc  ");
        assert_eq!(cast_length("abcdef".into(), 3, false), "abc");
        assert_eq!(cast_length("abcdef".into(), 3, true), "abc");
        assert_eq!(split_index("a,b,c", ",", 5), None);
    }

    #[test]
    fn more_strings() {
        // From codegen/expr/testdata/probe (Flink 2.3).
        assert_eq!(left("Hello World", 7), "Hello W");
        assert_eq!(right("Hello World", 7), "o World");
        assert_eq!(left("abc", -1), "");
        assert_eq!(right("abc", 5), "abc");
        assert_eq!(locate("l", "Hello World", 1), 3);
        assert_eq!(locate("l", "Hello World", 5), 10);
        assert_eq!(locate(",", "a,b,,c", 5), 5);
        assert_eq!(locate("x", "123", 1), 0);
        assert_eq!(split_index("Hello World", "l", 1).as_deref(), Some(""));
        assert_eq!(split_index("a,b,,c", ",", 1).as_deref(), Some("b"));
        assert_eq!(split_index("a,b,,c", ",", 2).as_deref(), Some(""));
        assert_eq!(ascii("  padded"), 32);
        assert_eq!(chr(67), "C");
        assert_eq!(chr(185), "\u{b9}");
        assert_eq!(to_base64("Hello World"), "SGVsbG8gV29ybGQ=");
        assert_eq!(from_base64("YSxiLCxj").as_deref(), Ok("a,b,,c"));
        assert!(is_digit("123") && !is_digit("") && !is_digit("1a"));
        assert!(!is_alpha("Hello World") && is_alpha("abc"));
    }
}
