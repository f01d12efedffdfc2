//! Memory sizes as Flink writes them: `1048576`, `512k`, `64mb`, `2 GiB`
//! (powers of 1024, case-insensitive). Self-contained: the compiler includes
//! this file too (`SET 'stmtc.memory-budget'` is checked by `stmtc check`).

/// The bytes of a memory size, or `None` when it is not one.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let scale: u64 = match unit.trim() {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kib" | "kibibytes" => 1 << 10,
        "m" | "mb" | "mib" | "mebibytes" => 1 << 20,
        "g" | "gb" | "gib" | "gibibytes" => 1 << 30,
        "t" | "tb" | "tib" | "tebibytes" => 1 << 40,
        _ => return None,
    };
    number.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_like_flink_memory_sizes() {
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("64mb"), Some(64 << 20));
        assert_eq!(parse_size("2 GiB"), Some(2 << 30));
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("12 parsecs"), None);
        assert_eq!(parse_size("99999999999999 tb"), None);
    }
}
