//! Canonical-form checks: whether the text a csv field was read from is
//! exactly the text Flink's csv format writes for the value read from it.
//!
//! A sink column that passes a csv source column through untouched can then
//! copy the field's bytes instead of formatting the value again (issue 13).
//! Each check is conservative: `true` only for text that the formatter of
//! the sink (`sink::format::CsvFormat`) provably reproduces byte for byte
//! from the parsed value; any other text (`007`, `1.50`, `1e3`, a TIMESTAMP
//! with trailing fraction zeros) is formatted from the value as before. The
//! tests compare every check with the formatter.
//!
//! The caller guarantees that the value was parsed from this very text (a
//! csv field of the current record, read by the `Record` getter of the
//! column's type, and not NULL).

use crate::value::temporal::days_in_month;

/// An integer (TINYINT..BIGINT) as `Long.toString` prints it: an optional
/// `-`, then digits without a leading zero (`0` alone; never `-0`).
#[inline]
pub fn int_is_canonical(t: &[u8]) -> bool {
    let digits = match t {
        [b'-', rest @ ..] => rest,
        _ => t,
    };
    match digits {
        [b'0'] => t.len() == 1,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// A DOUBLE as Java 17's `Double.toString` prints it, for the plain range
/// `[10^-3, 10^7)` (and zero): an optional `-`, an integer part of 1-7
/// digits without a leading zero, a `.`, and a fraction that is `0` alone
/// or ends in a non-zero digit; at most 15 significant digits; at least
/// `0.001`.
///
/// Why the formatter prints this text again: a decimal of at most 15
/// significant digits in the plain range reads back as a double that no
/// other decimal of at most 15 digits reads back as (such decimals are
/// farther apart than an ulp), and the JDK prints that decimal without
/// trailing zeros (`java_float::short_decimal`); integers print as
/// `<digits>.0`, zero as `0.0` / `-0.0`. The tests check it against the
/// JDK's digit loop (`double_digits_with::<false>`) and `write_f64`.
#[inline]
pub fn double_is_java(t: &[u8]) -> bool {
    let body = match t {
        [b'-', rest @ ..] => rest,
        _ => t,
    };
    let Some(dot) = body.iter().position(|&c| c == b'.') else {
        return false;
    };
    let (whole, fraction) = (&body[..dot], &body[dot + 1..]);
    if whole.is_empty() || whole.len() > 7 || fraction.is_empty() {
        return false;
    }
    if !whole.iter().all(u8::is_ascii_digit) || !fraction.iter().all(u8::is_ascii_digit) {
        return false;
    }
    if whole[0] == b'0' && whole.len() > 1 {
        return false;
    }
    if fraction == b"0" {
        // An integer (or zero): `<digits>.0`.
        return true;
    }
    if fraction[fraction.len() - 1] == b'0' {
        return false;
    }
    let significant = if whole == b"0" {
        let zeros = fraction.iter().take_while(|&&c| c == b'0').count();
        if zeros > 2 {
            // Below 10^-3: Java writes E-notation.
            return false;
        }
        fraction.len() - zeros
    } else {
        whole.len() + fraction.len()
    };
    significant <= 15
}

/// A TIMESTAMP as Flink's csv format writes it, inside the quotes:
/// `yyyy-MM-dd HH:mm:ss` with a valid date and time of day, and a fraction
/// of 1-9 digits ending in a non-zero digit, or none.
#[inline(always)]
pub fn timestamp_is_flink_csv(t: &[u8]) -> bool {
    let (b, fraction) = match t.split_first_chunk::<19>() {
        Some((b, [])) => (b, None),
        Some((b, [b'.', fraction @ ..])) if (1..=9).contains(&fraction.len()) => {
            (b, Some(fraction))
        }
        _ => return false,
    };
    // `yyyy-MM-dd HH:mm:ss` as three little-endian words (bytes 0-7, 8-15
    // and 15-18), checked a word at a time: each digit byte XOR '0' is at
    // most 9 (no bit above the low nibble, and adding 6 does not reach 16;
    // a byte that carries into its neighbour has failed already), and the
    // separators are exactly `-`, `-`, ` `, `:`, `:`.
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const SIX: u64 = 0x0606_0606_0606_0606;
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let w0 = word(0) ^ ZEROS; // yyyy-MM-
    let w1 = word(8) ^ ZEROS; // dd HH:mm
    let w2 = u64::from(u32::from_le_bytes(b[15..19].try_into().expect("4 bytes"))) ^ 0x3030_3030; // m:ss
    const D0: u64 = 0x00FF_FF00_FFFF_FFFF; // digits of w0
    const D1: u64 = 0xFFFF_00FF_FF00_FFFF; // digits of w1
    const D2: u64 = 0xFFFF_00FF; // digits of w2
    let bad = |w: u64, digits: u64| ((w & HIGH) | ((w + SIX) & HIGH)) & digits;
    if bad(w0, D0) | bad(w1, D1) | bad(w2, D2) != 0 {
        return false;
    }
    // Separators XOR '0': '-' ^ '0' = 0x1D, ' ' ^ '0' = 0x10, ':' ^ '0' = 0x0A.
    if w0 & !D0 != 0x1D00_001D_0000_0000
        || w1 & !D1 != 0x0000_0A00_0010_0000
        || w2 & !D2 != 0x0000_0A00
    {
        return false;
    }
    // Byte i of `pairs(w)` is the two-digit number of bytes i and i + 1
    // (digit bytes are 0-9 now, separators masked off: at most 99, no
    // carry between bytes).
    let pairs = |w: u64, digits: u64| {
        let w = w & digits;
        w * 10 + (w >> 8)
    };
    let byte = |w: u64, i: u32| (w >> (8 * i)) as u32 & 0xFF;
    let (p0, p1) = (pairs(w0, D0), pairs(w1, D1));
    let (m, day) = (byte(p0, 5), byte(p1, 0));
    if byte(p1, 3) > 23 || byte(p1, 6) > 59 || byte(pairs(w2, D2), 2) > 59 {
        return false;
    }
    if !(1..=12).contains(&m) || day == 0 {
        return false;
    }
    if day > 28 {
        let y = byte(p0, 0) * 100 + byte(p0, 2);
        if day > days_in_month(y as i32, m) {
            return false;
        }
    }
    match fraction {
        None => true,
        Some(f) => f.iter().all(u8::is_ascii_digit) && f[f.len() - 1] != b'0',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::format::{CsvFormat, RowFormat};
    use crate::source::parse_sql_date_value_of;
    use crate::text::number::{parse_f64, parse_int_range, write_f64};
    use crate::value::Timestamp;

    /// A small deterministic generator (xorshift), so the fuzz-style
    /// comparisons below are reproducible.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// The csv text the sink writes for one value.
    fn csv_of<V: crate::sink::format::SinkValue>(v: V) -> Vec<u8> {
        let mut f = CsvFormat::default();
        let mut out = Vec::new();
        f.begin_row(&mut out);
        f.field(&mut out, &v);
        out
    }

    #[test]
    fn integers() {
        for t in ["0", "7", "-7", "10", "-2147483648", "9223372036854775807"] {
            assert!(int_is_canonical(t.as_bytes()), "{t}");
        }
        for t in [
            "", "-", "-0", "00", "007", "+7", " 7", "7 ", "1a", "--1", "1.0",
        ] {
            assert!(!int_is_canonical(t.as_bytes()), "{t}");
        }
        // Every text the check accepts prints back as itself, and every
        // integer's own text is accepted.
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let alphabet = b"0123456789-+ ";
        for _ in 0..200_000 {
            let len = 1 + rng.below(21) as usize;
            let t: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                .collect();
            if let Some(v) = parse_int_range(&t, i64::MIN, i64::MAX) {
                if int_is_canonical(&t) {
                    assert_eq!(csv_of(Some(v)), t, "{}", String::from_utf8_lossy(&t));
                }
            }
            let v = rng.next() as i64 >> rng.below(64);
            assert!(int_is_canonical(&csv_of(v)), "{v}");
        }
    }

    #[test]
    fn doubles_examples() {
        for t in [
            "0.0",
            "-0.0",
            "1.0",
            "40.51",
            "-40.51",
            "0.001",
            "0.5",
            "0.25",
            "9999999.0",
            "9999999.5",
            "123456.789012345",
            "0.123456789012345",
        ] {
            assert!(double_is_java(t.as_bytes()), "{t}");
            let v = parse_f64(t.as_bytes()).unwrap();
            assert_eq!(csv_of(v), t.as_bytes(), "{t}");
        }
        for t in [
            "",
            ".5",
            "5.",
            "5",
            "05.5",
            "40.50",
            "1.00",
            "0.0001",
            "1e3",
            "1.0E7",
            "10000000.0",
            "+1.5",
            " 1.5",
            "1.5 ",
            "1234567.123456789",
            "0.1234567890123456",
            "NaN",
            "-",
        ] {
            assert!(!double_is_java(t.as_bytes()), "{t}");
        }
    }

    /// Random decimals in and around the plain range: whenever the check
    /// accepts the text, the sink prints the parsed value as that text.
    #[test]
    fn doubles_against_the_formatter() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut accepted = 0;
        for _ in 0..400_000 {
            let whole_len = rng.below(9) as usize;
            let frac_len = rng.below(18) as usize;
            let mut t = Vec::new();
            if rng.below(4) == 0 {
                t.push(b'-');
            }
            for i in 0..whole_len {
                let d = if i == 0 && rng.below(3) > 0 {
                    0
                } else {
                    rng.below(10)
                };
                t.push(b'0' + d as u8);
            }
            if whole_len == 0 {
                t.push(b'0');
            }
            t.push(b'.');
            for _ in 0..frac_len {
                // Zeros often: leading and trailing zeros are the edge cases.
                let d = if rng.below(3) == 0 { 0 } else { rng.below(10) };
                t.push(b'0' + d as u8);
            }
            let Some(v) = parse_f64(&t) else { continue };
            if double_is_java(&t) {
                accepted += 1;
                let mut out = Vec::new();
                write_f64(&mut out, v);
                assert_eq!(out, t, "{}", String::from_utf8_lossy(&t));
            }
        }
        assert!(accepted > 50_000, "{accepted}");
        // Powers of two and integers (the JDK's narrower interval and its
        // integer path) in the plain range.
        for e in -9..24 {
            let v = 2f64.powi(e);
            let mut out = Vec::new();
            write_f64(&mut out, v);
            assert!(double_is_java(&out), "{}", String::from_utf8_lossy(&out));
            assert_eq!(parse_f64(&out), Some(v));
        }
        // The formatter's own text of random plain values with few digits
        // is accepted when it has at most 15 significant digits.
        for _ in 0..200_000 {
            let cents = rng.below(1_000_000_000) as f64;
            let v = cents / 10f64.powi(rng.below(6) as i32);
            let mut out = Vec::new();
            write_f64(&mut out, v);
            if (1e-3..1e7).contains(&v) || v == 0.0 {
                assert!(double_is_java(&out), "{}", String::from_utf8_lossy(&out));
            }
        }
    }

    /// The JDK's digit loop itself (not the formatter's shortcuts) gives the
    /// accepted text's digits.
    #[test]
    fn doubles_against_the_jdk_loop() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        for _ in 0..100_000 {
            let digits = 1 + rng.below(15) as u32;
            let n = rng.below(10u64.pow(digits)).max(1);
            let p = rng.below(u64::from(digits) + 3) as i32;
            let v = n as f64 / 10f64.powi(p);
            let t = {
                let mut out = Vec::new();
                write_f64(&mut out, v);
                out
            };
            if !double_is_java(&t) {
                continue;
            }
            let d = crate::text::java_float::double_digits_with::<false>(v);
            let mut reference = Vec::new();
            crate::text::number::write_java(&mut reference, false, &d);
            assert_eq!(reference, t, "{v}");
        }
    }

    #[test]
    fn timestamps() {
        for t in [
            "2024-01-05 08:01:29",
            "2024-01-05 08:01:29.363",
            "2024-01-05 08:01:29.36",
            "2024-02-29 23:59:59.9",
            "0000-01-01 00:00:00",
            "9999-12-31 23:59:59.123456789",
        ] {
            assert!(timestamp_is_flink_csv(t.as_bytes()), "{t}");
            let v = Timestamp::parse_sql(t.as_bytes()).unwrap();
            assert_eq!(csv_of(v), format!("\"{t}\"").as_bytes(), "{t}");
        }
        for t in [
            "2024-01-05 08:01:29.360",
            "2024-01-05 08:01:29.",
            "2024-01-05 08:01:29.000",
            "2023-02-29 00:00:00",
            "2024-04-31 00:00:00",
            "2024-13-01 00:00:00",
            "2024-00-01 00:00:00",
            "2024-01-00 00:00:00",
            "2024-01-05 24:00:00",
            "2024-01-05 08:60:00",
            "2024-01-05 08:01:60",
            "2024-1-05 08:01:29",
            "2024-01-05T08:01:29",
            " 2024-01-05 08:01:29",
            "2024-01-05 08:01:29.1234567890",
        ] {
            assert!(!timestamp_is_flink_csv(t.as_bytes()), "{t}");
        }
        // Random valid and invalid shapes: accepted text prints back as itself.
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        let mut accepted = 0;
        for _ in 0..200_000 {
            let mut t = format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
                rng.below(10_000),
                rng.below(14),
                rng.below(33),
                rng.below(25),
                rng.below(61),
                rng.below(61)
            )
            .into_bytes();
            let frac = rng.below(11);
            if frac > 0 {
                t.push(b'.');
                for _ in 1..frac {
                    let d = if rng.below(3) == 0 { 0 } else { rng.below(10) };
                    t.push(b'0' + d as u8);
                }
            }
            if rng.below(3) == 0 {
                // One byte changed: separators, digits, anything.
                let i = rng.below(t.len() as u64) as usize;
                t[i] = b"0123456789-: .T/+\x7f\xff"[rng.below(19) as usize];
            }
            if !timestamp_is_flink_csv(&t) {
                continue;
            }
            accepted += 1;
            let v = Timestamp::parse_sql_fixed(&t).expect("accepted text parses");
            let mut quoted = vec![b'"'];
            quoted.extend_from_slice(&t);
            quoted.push(b'"');
            assert_eq!(csv_of(v), quoted, "{}", String::from_utf8_lossy(&t));
            // The date part is what `java.sql.Date.valueOf` reads too.
            assert!(parse_sql_date_value_of(&t[..10]).is_some());
        }
        assert!(accepted > 20_000, "{accepted}");
    }
}
