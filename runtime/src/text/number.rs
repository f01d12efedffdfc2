//! Numbers to and from text the way Java (and so Flink) does it, without allocating.
//!
//! Formatting: Java 17's `Double.toString`/`Float.toString` (`1000000.0`,
//! `1.23456789E7`, `1.0E-5`, `NaN`, `Infinity`), digits and all: its digits
//! are not always the shortest (`1.50000005E10` for the FLOAT 1.5E10), so
//! they come from [`java_float`], which follows the JDK's algorithm.
//!
//! Parsing: `Integer.parseInt`-style integers (optional sign, digits only, range
//! checked) and `Double.parseDouble`-style floats (surrounding whitespace, `NaN`,
//! `Infinity`, optional `f`/`d` suffix).

use super::append::{append_point_number, append_short};
use super::java_float;

/// Appends an integer (any primitive) in decimal.
#[inline]
pub fn write_int<I: itoa::Integer>(out: &mut Vec<u8>, v: I) {
    let mut b = itoa::Buffer::new();
    append_short(out, b.format(v).as_bytes());
}

/// Appends `Double.toString(v)` as Java 17 prints it.
#[inline]
pub fn write_f64(out: &mut Vec<u8>, v: f64) {
    // The common plain-range values: the text straight from the decimal.
    if v.to_bits() & ((1 << 52) - 1) != 0 {
        // From 1 up: the JDK's digits straight from the exact product with
        // a power of ten; below 1, the ones that 15 digits hold.
        if let Some((n, p)) =
            java_float::plain_decimal(v.abs()).or_else(|| java_float::short_decimal(v.abs()))
        {
            if v < 0.0 {
                out.push(b'-');
            }
            write_plain(out, n, p);
            return;
        }
        // 16 and 17 digits below 1: the shortest digits,
        // when the JDK's loop gives them too. ryu lays this range out as Java
        // does (`0.001234`, `1234.5678`).
        if (1e-3..1e7).contains(&v.abs()) && java_float::prints_shortest(v.abs()) {
            out.extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
            return;
        }
    }
    write_f64_general(out, v);
}

/// `n × 10^-p` in Java's plain layout (`123.45`, `0.005`, `1200.0`): what
/// [`write_java`] prints for these digits when the value is in `[10^-3,
/// 10^7)`. Zeros at the end of the fraction are dropped but one.
#[inline]
fn write_plain(out: &mut Vec<u8>, n: u64, p: i32) {
    if n < 100_000_000_000_000_000 && p >= 1 {
        // The digits, 17 with leading zeros: `n` itself has `len`, the
        // last `zeros` of them zeros.
        let (top, rest) = (n / 10_u64.pow(16), n % 10_u64.pow(16));
        let (high, low) = (rest / 100_000_000, rest % 100_000_000);
        let (high, low) = (eight_digits(high as u32), eight_digits(low as u32));
        let len = if top != 0 {
            17
        } else if high != 0 {
            16 - high.trailing_zeros() as usize / 8
        } else {
            8 - low.trailing_zeros() as usize / 8
        };
        let zeros = if low != 0 {
            low.leading_zeros() as usize / 8
        } else {
            8 + high.leading_zeros() as usize / 8
        };
        let whole = len as i32 - p;
        if (1..=8).contains(&whole) {
            let (whole, p) = (whole as usize, p as usize);
            let fraction = p.saturating_sub(zeros).max(1);
            // The 16 digits after the first as text, in order from the low
            // byte. Built and cut in registers: assembling the text in a
            // stack buffer and copying pieces of it back out stalled on
            // store forwarding (a quarter of this function's samples).
            let digits = u128::from(high | ASCII_ZEROS) | (u128::from(low | ASCII_ZEROS) << 64);
            let (int_part, fraction_part) = if top != 0 {
                // 17 digits: `top` and the first `whole - 1` of `digits`.
                let first = u64::from(b'0' + top as u8);
                (first | ((digits as u64) << 8), digits >> (8 * (whole - 1)))
            } else {
                // `len` digits, the last `len` of `digits`.
                let from = digits >> (8 * (16 - len));
                (from as u64, from >> (8 * whole))
            };
            append_point_number(out, int_part, whole, fraction_part, fraction);
            return;
        }
    }
    write_plain_itoa(out, n, p);
}

/// [`write_plain`] for every `n` and `p`, from itoa's digits.
fn write_plain_itoa(out: &mut Vec<u8>, n: u64, p: i32) {
    let mut text = itoa::Buffer::new();
    let text = text.format(n).as_bytes();
    if p <= 0 {
        append_short(out, text);
        out.extend_from_slice(&b"0000000"[..(-p) as usize]);
        out.extend_from_slice(b".0");
    } else if text.len() > p as usize {
        let (whole, fraction) = text.split_at(text.len() - p as usize);
        append_short(out, whole);
        out.push(b'.');
        let zeros = fraction.iter().rev().take_while(|&&c| c == b'0').count();
        append_short(out, &fraction[..(fraction.len() - zeros).max(1)]);
    } else {
        let zeros = text.iter().rev().take_while(|&&c| c == b'0').count();
        out.extend_from_slice(b"0.");
        append_short(out, &b"00"[..p as usize - text.len()]);
        append_short(out, &text[..text.len() - zeros]);
    }
}

/// `'0'` in each byte.
const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// The eight decimal digits of `x < 10^8` (leading zeros included) as the
/// bytes 0..=9, the first digit in the lowest byte: the halves, quarters
/// and single digits of all lanes at once, each division by 10^k a
/// multiplication and shift that is exact below the lanes' bounds
/// (`x / 100 = x * 10486 >> 20` for `x < 10^4`, `x / 10 = x * 103 >> 10`
/// for `x < 100`); the bits a lane's product spills into the lane below
/// are masked off.
#[inline]
fn eight_digits(x: u32) -> u64 {
    let x = u64::from(x);
    let halves = (x / 10_000) | ((x % 10_000) << 32);
    let hundreds = ((halves * 10_486) >> 20) & 0x0000_007F_0000_007F;
    let pairs = hundreds | ((halves - hundreds * 100) << 16);
    let tens = ((pairs * 103) >> 10) & 0x000F_000F_000F_000F;
    tens | ((pairs - tens * 10) << 8)
}

fn write_f64_general(out: &mut Vec<u8>, v: f64) {
    if !v.is_finite() {
        write_non_finite(out, v.is_nan(), v < 0.0);
    } else if v == 0.0 {
        write_zero(out, v.is_sign_negative());
    } else {
        write_java(out, v < 0.0, &java_float::double_digits(v));
    }
}

/// Appends `Float.toString(v)` as Java 17 prints it.
pub fn write_f32(out: &mut Vec<u8>, v: f32) {
    if !v.is_finite() {
        write_non_finite(out, v.is_nan(), v < 0.0);
    } else if v == 0.0 {
        write_zero(out, v.is_sign_negative());
    } else {
        write_java(out, v < 0.0, &java_float::float_digits(v));
    }
}

fn write_zero(out: &mut Vec<u8>, negative: bool) {
    out.extend_from_slice(if negative { b"-0.0" } else { b"0.0" });
}

/// Java's layout of `0.d1d2... × 10^e`: plain from 10^-3 up to 10^7
/// (`0.001`, `1234567.0`), else `d1.d2...E<e-1>` with at least one digit
/// after the point (`1.0E7`, `1.5E-5`).
pub(crate) fn write_java(out: &mut Vec<u8>, negative: bool, d: &java_float::JavaDigits) {
    let digits = d.as_slice();
    let e = d.exponent;
    if negative {
        out.push(b'-');
    }
    if e > 0 && e < 8 {
        let whole = digits.len().min(e as usize);
        out.extend_from_slice(&digits[..whole]);
        if whole < e as usize {
            out.extend(std::iter::repeat_n(b'0', e as usize - whole));
            out.extend_from_slice(b".0");
        } else {
            out.push(b'.');
            match &digits[whole..] {
                [] => out.push(b'0'),
                rest => out.extend_from_slice(rest),
            }
        }
    } else if e <= 0 && e > -3 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-e) as usize));
        out.extend_from_slice(digits);
    } else {
        out.push(digits[0]);
        out.push(b'.');
        match &digits[1..] {
            [] => out.push(b'0'),
            rest => out.extend_from_slice(rest),
        }
        out.push(b'E');
        write_int(out, e - 1);
    }
}

fn write_non_finite(out: &mut Vec<u8>, nan: bool, negative: bool) {
    out.extend_from_slice(match (nan, negative) {
        (true, _) => b"NaN",
        (false, true) => b"-Infinity",
        (false, false) => b"Infinity",
    });
}

/// Parses a Java integer (`Long.parseLong` rules: optional `+`/`-`, ASCII digits,
/// no spaces) within `[min, max]`.
#[inline(always)]
pub fn parse_int_range(text: &[u8], min: i64, max: i64) -> Option<i64> {
    // 4 to 8 digits without a sign (ids, counts): as one word.
    if (4..=8).contains(&text.len()) {
        if let Some(x) = digit_word(text) {
            let v = eight_digits_value(x) as i64;
            return (min..=max).contains(&v).then_some(v);
        }
    }
    let (neg, digits) = match text.first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    let digits = if digits.len() > 18 {
        // Leading zeros do not count towards the length (Long.parseLong).
        let zeros = digits.iter().take_while(|&&c| c == b'0').count();
        &digits[zeros.min(digits.len() - 1)..]
    } else {
        digits
    };
    if digits.len() > 19 {
        return None;
    }
    if digits.len() <= 18 {
        // Up to 18 digits cannot overflow an i64: no checks per digit.
        let mut acc: i64 = 0;
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            acc = acc * 10 + d as i64;
        }
        let v = if neg { -acc } else { acc };
        return (min..=max).contains(&v).then_some(v);
    }
    // 19 digits: accumulate negatively so i64::MIN parses.
    let mut acc: i64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        acc = acc.checked_mul(10)?.checked_sub(d as i64)?;
    }
    let v = if neg { acc } else { acc.checked_neg()? };
    (min..=max).contains(&v).then_some(v)
}

pub fn parse_i8(t: &[u8]) -> Option<i8> {
    parse_int_range(t, i8::MIN as i64, i8::MAX as i64).map(|v| v as i8)
}
pub fn parse_i16(t: &[u8]) -> Option<i16> {
    parse_int_range(t, i16::MIN as i64, i16::MAX as i64).map(|v| v as i16)
}
pub fn parse_i32(t: &[u8]) -> Option<i32> {
    parse_int_range(t, i32::MIN as i64, i32::MAX as i64).map(|v| v as i32)
}
pub fn parse_i64(t: &[u8]) -> Option<i64> {
    parse_int_range(t, i64::MIN, i64::MAX)
}

/// `Double.parseDouble`: trims ASCII whitespace/control chars, accepts `NaN`,
/// `[+-]Infinity`, decimal and exponent forms, a trailing `d`/`D`/`f`/`F`.
#[inline(always)]
pub fn parse_f64(text: &[u8]) -> Option<f64> {
    // Plain digits with nothing to trim, sign or suffix: straight to the
    // fast path (everything else takes the general one below).
    if let (Some(first), Some(last)) = (text.first(), text.last()) {
        if first.is_ascii_digit() && last.is_ascii_digit() {
            if let Some(v) = plain_decimal(text) {
                return Some(v);
            }
        }
    }
    parse_f64_general(text)
}

#[inline(never)]
fn parse_f64_general(text: &[u8]) -> Option<f64> {
    let t = java_trim(text);
    let t = match t.last() {
        Some(b'd' | b'D' | b'f' | b'F') => &t[..t.len() - 1],
        _ => t,
    };
    let (neg, body) = match t.first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if let Some(v) = plain_decimal(body) {
        return Some(if neg { -v } else { v });
    }
    let v = match body {
        b"NaN" => f64::NAN,
        b"Infinity" => f64::INFINITY,
        _ => {
            // Java requires a digit in the mantissa; Rust's parser also rejects
            // "inf"/"nan" spellings here because we only pass digits/./e forms.
            if !body
                .iter()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                return None;
            }
            std::str::from_utf8(body).ok()?.parse::<f64>().ok()?
        }
    };
    Some(if neg { -v } else { v })
}

/// Exact powers of ten as doubles (all below 2^53).
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// The common `123.45` form with at most 15 digits, without the general
/// parser: the digits as an integer `m < 2^53` and `10^k` are exact doubles,
/// so `m / 10^k` is the correctly rounded value (Clinger's fast path), the
/// same double `Double.parseDouble` and Rust's parser give. `None` for any
/// other form (exponents, more digits, no digit at all).
#[inline(always)]
fn plain_decimal(body: &[u8]) -> Option<f64> {
    if let Some((m, k)) = short_plain_decimal(body) {
        return Some(m as f64 / POW10[k]);
    }
    plain_decimal_bytewise(body)
}

/// [`plain_decimal`] a byte at a time (every length; the reference of the
/// word-at-a-time path).
#[inline(never)]
fn plain_decimal_bytewise(body: &[u8]) -> Option<f64> {
    if body.is_empty() || body.len() > 16 {
        return None;
    }
    let (mut m, mut digits, mut k, mut point) = (0u64, 0usize, 0usize, false);
    for &c in body {
        match c {
            b'0'..=b'9' => {
                m = m * 10 + u64::from(c - b'0');
                digits += 1;
                k += usize::from(point);
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    (digits > 0 && digits <= 15).then(|| m as f64 / POW10[k])
}

/// The digits `m` and the count `k` after the point of 1 to 8 bytes that
/// are digits with at most one `.` and at least one digit (`12.5`, `.5`,
/// `5.`, `125`), as one word; `None` for every other text (which the byte
/// loop then reads or refuses the same way).
#[inline]
fn short_plain_decimal(body: &[u8]) -> Option<(u64, usize)> {
    let n = body.len();
    if n == 0 || n > 8 {
        return None;
    }
    // The bytes XOR '0' in the high bytes of a word (the last one highest;
    // the shift drops the bytes above the text and brings in zero digits
    // below): eight digits with leading zeros, but for a point.
    let x = (load_short(body) ^ (ONES * u64::from(b'0'))) << (8 * (8 - n));
    // The point's byte ('.' ^ '0' = 0x1E; the zeros below are not one):
    // its lowest, the text's first, exactly (the zero-byte test is exact
    // for the lowest zero byte).
    let t = x ^ (ONES * 0x1E);
    let zero = t.wrapping_sub(ONES) & !t & (ONES * 0x80);
    let (x, digits, k) = if zero == 0 {
        (x, n, 0)
    } else {
        let at = zero.trailing_zeros() as usize / 8;
        let below = (1u64 << (8 * at)) - 1;
        // The bytes below the point one place up, over it (one more zero
        // comes in at the bottom).
        ((x & (!below << 8)) | ((x & below) << 8), n - 1, 7 - at)
    };
    // Every byte at most 9 (a second point fails here).
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    if digits == 0 || ((x.wrapping_add(ONES * 6) | x) & HIGH) != 0 {
        return None;
    }
    Some((eight_digits_value(x), k))
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// 1 to 8 bytes in the low bytes of a word, the first byte lowest (two
/// overlapping loads, or three single bytes below 4).
#[inline]
fn load_short(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if n >= 4 {
        let low = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
        let high = u32::from_le_bytes(bytes[n - 4..].try_into().expect("4 bytes"));
        u64::from(low) | (u64::from(high) << (8 * (n - 4)))
    } else {
        u64::from(bytes[0])
            | (u64::from(bytes[n / 2]) << (8 * (n / 2)))
            | (u64::from(bytes[n - 1]) << (8 * (n - 1)))
    }
}

/// 1 to 8 ASCII digits as their values in the high bytes of a word (the
/// last digit highest, zeros below: eight digits with leading zeros, as
/// [`eight_digits_value`] takes them); `None` when a byte is not a digit.
#[inline]
fn digit_word(bytes: &[u8]) -> Option<u64> {
    // The shift drops the bytes above the text (0x30 after the XOR) and
    // brings in zero digits below.
    let x = (load_short(bytes) ^ (ONES * u64::from(b'0'))) << (8 * (8 - bytes.len()));
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    ((x.wrapping_add(ONES * 6) | x) & HIGH == 0).then_some(x)
}

/// The number of eight digit values in the bytes of `x`, the first digit
/// in the lowest byte: pairs, fours and then all eight combined, each step
/// within its lanes (at most 99, 9999 and 99999999).
#[inline]
fn eight_digits_value(x: u64) -> u64 {
    let x = (x * 10 + (x >> 8)) & 0x00FF_00FF_00FF_00FF;
    let x = (x * 100 + (x >> 16)) & 0x0000_FFFF_0000_FFFF;
    (x * 10_000 + (x >> 32)) & 0xFFFF_FFFF
}

/// `Float.parseFloat` (same syntax as [`parse_f64`], rounded to f32 directly).
pub fn parse_f32(text: &[u8]) -> Option<f32> {
    let t = java_trim(text);
    let t = match t.last() {
        Some(b'd' | b'D' | b'f' | b'F') => &t[..t.len() - 1],
        _ => t,
    };
    let (neg, body) = match t.first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let v = match body {
        b"NaN" => f32::NAN,
        b"Infinity" => f32::INFINITY,
        _ => {
            if !body
                .iter()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                return None;
            }
            std::str::from_utf8(body).ok()?.parse::<f32>().ok()?
        }
    };
    Some(if neg { -v } else { v })
}

/// Java's `String.trim()`: strips chars ≤ U+0020 at both ends.
#[inline]
pub fn java_trim(t: &[u8]) -> &[u8] {
    let start = t.iter().position(|&c| c > b' ').unwrap_or(t.len());
    let end = t.iter().rposition(|&c| c > b' ').map_or(start, |i| i + 1);
    &t[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `v` as the JDK's digit loop prints it (the reference of the fast paths).
    fn jdk_loop_text(want: &mut Vec<u8>, v: f64) {
        want.clear();
        if v == 0.0 || !v.is_finite() {
            write_f64_general(want, v);
        } else {
            let digits = java_float::double_digits_with::<false>(v);
            write_java(want, v < 0.0, &digits);
        }
    }

    /// The eight-digits-at-once layout gives itoa's text: every length of
    /// `n` up to 18 digits (17 is the fast path's bound), every place of the
    /// point the plain range has (`n × 10^-p` in `[10^-3, 10^7)`).
    #[test]
    fn plain_layout_matches_itoa() {
        let mut rng = crate::util::SplitMix64::new(7);
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for i in 0..200_000u32 {
            let digits = i % 18 + 1;
            let mut n = rng.next() % 10u64.pow(digits);
            if i % 3 == 0 {
                // Zeros inside and at the end.
                n -= n % 10u64.pow(i / 3 % digits);
            }
            let n = n.max(1);
            let p = n.ilog10() as i32 + 1 - ((rng.next() % 10) as i32 - 2);
            got.clear();
            want.clear();
            got.extend_from_slice(b"x");
            want.extend_from_slice(b"x");
            write_plain(&mut got, n, p);
            write_plain_itoa(&mut want, n, p);
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{n} {p}"
            );
        }
    }

    /// The plain-layout shortcut prints what the digit loop's digits print.
    #[test]
    fn plain_doubles_print_like_the_general_path() {
        let mut rng = crate::util::SplitMix64::new(0x2545_F491_4F6C_DD1Du64);
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for i in 0..200_000u64 {
            let seed = rng.next();
            let v = match i % 4 {
                0 => (seed % 100_000) as f64 / 100.0 * (i % 21) as f64,
                1 => f64::from_bits((1013 + seed % 34) << 52 | seed >> 12),
                2 => (seed % 1_000_000) as f64 * [1e-6, 1e-3, 1.0][(i / 4 % 3) as usize],
                _ => -((seed % 100_000) as f64 / 100.0),
            };
            got.clear();
            write_f64(&mut got, v);
            jdk_loop_text(&mut want, v);
            assert_eq!(got, want, "{v:e}");
        }
    }

    /// The shortest-digits path (ryu) prints what the JDK's digit loop
    /// prints, byte for byte, over random doubles of every exponent in and
    /// around the plain range, products of prices and quantities, and the
    /// neighbours of the range's edges and of powers of ten.
    /// `STMTC_FLOAT_ROUNDS` sets the count (the commit ran 20M).
    #[test]
    fn shortest_doubles_print_like_the_jdk_loop() {
        let mut rng = crate::util::SplitMix64::new(0x9E37_79B9_7F4A_7C15u64);
        let mut next = || rng.next();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        let mut check = |v: f64| {
            got.clear();
            write_f64(&mut got, v);
            jdk_loop_text(&mut want, v);
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{v:e} ({:#x})",
                v.to_bits()
            );
        };
        let mut edges = vec![1e-3, 1e7];
        edges.extend((-3..7).map(|e| 10f64.powi(e)));
        for edge in edges {
            let mut v: f64 = edge;
            for _ in 0..2000 {
                check(v);
                check(-v);
                v = f64::from_bits(v.to_bits() + 1);
            }
            let mut v: f64 = edge;
            for _ in 0..2000 {
                v = f64::from_bits(v.to_bits() - 1);
                check(v);
            }
        }
        let rounds: u64 =
            std::env::var("STMTC_FLOAT_ROUNDS").map_or(200_000, |v| v.parse().expect("a count"));
        for _ in 0..rounds {
            // Any double of the range's binades (2^-11 .. 2^24) and beyond.
            let r = next();
            check(f64::from_bits((1011 + r % 36) << 52 | (r >> 12)));
            // Prices times quantities, like `bench/job.sql`'s total.
            let r = next();
            let price = (r % 100_000) as f64 / 100.0;
            check(price * ((r >> 20) % 21) as f64);
            check(price * ((r >> 40) % 1000) as f64 / 7.0);
            // Sums of prices (float drift leaves 16-17 digits).
            check(price + 0.1 + ((r >> 30) % 1000) as f64 / 1000.0);
        }
    }

    /// The word-at-a-time reading of 1-8 bytes gives what the byte loop
    /// gives (the same double, or none), on every text of up to 4 bytes over
    /// digits, point, a letter and a sign, and on random texts up to 10.
    #[test]
    fn short_plain_decimals_read_like_the_byte_loop() {
        let alphabet = b"0123456789.e-x/:";
        let check = |text: &[u8]| {
            let got = plain_decimal(text).map(f64::to_bits);
            let want = plain_decimal_bytewise(text).map(f64::to_bits);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(text));
        };
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            texts = texts
                .iter()
                .flat_map(|t| {
                    alphabet.iter().map(move |&c| {
                        let mut t = t.clone();
                        t.push(c);
                        t
                    })
                })
                .collect();
            texts.iter().for_each(|t| check(t));
        }
        let mut rng = crate::util::SplitMix64::new(5);
        for i in 0..500_000u64 {
            let len = (i % 11) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    let r = rng.next();
                    // Mostly digits, a point now and then.
                    if r % 7 == 0 {
                        alphabet[(r >> 8) as usize % alphabet.len()]
                    } else {
                        b'0' + (r >> 16) as u8 % 10
                    }
                })
                .collect();
            check(&text);
        }
    }

    /// The plain-decimal shortcut gives the same doubles as the general parser.
    #[test]
    fn plain_decimals_parse_like_the_general_parser() {
        let mut rng = crate::util::SplitMix64::new(11);
        let mut cases: Vec<String> = [
            "0",
            "0.0",
            "-0.0",
            ".5",
            "5.",
            ".",
            "",
            "-",
            "1.2.3",
            "007.50",
            "999999999999999",
            "9999999999999999",
            "0.000000000000001",
            "123456789012345.",
            "1e5",
            "+3.25",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..50_000 {
            let int_digits = (rng.next() % 10) as usize;
            let frac_digits = (rng.next() % 9) as usize;
            let digit =
                |rng: &mut crate::util::SplitMix64| char::from(b'0' + (rng.next() % 10) as u8);
            let mut s: String = (0..int_digits).map(|_| digit(&mut rng)).collect();
            if frac_digits > 0 || rng.next() % 4 == 0 {
                s.push('.');
                s.extend((0..frac_digits).map(|_| digit(&mut rng)));
            }
            cases.push(s);
        }
        for c in &cases {
            let general = {
                let t = c.as_bytes();
                let (neg, body) = match t.first() {
                    Some(b'-') => (true, &t[1..]),
                    Some(b'+') => (false, &t[1..]),
                    _ => (false, t),
                };
                std::str::from_utf8(body)
                    .ok()
                    .filter(|b| {
                        !b.is_empty()
                            && b.bytes()
                                .all(|x| x.is_ascii_digit() || x == b'.' || x == b'e')
                    })
                    .and_then(|b| b.parse::<f64>().ok())
                    .map(|v| if neg { -v } else { v })
            };
            let got = parse_f64(c.as_bytes());
            assert_eq!(got.map(f64::to_bits), general.map(f64::to_bits), "{c:?}");
        }
    }

    #[test]
    fn integers_parse_like_java_at_every_length() {
        let mut cases: Vec<String> = vec![
            "0",
            "-0",
            "+0",
            "+7",
            "-",
            "+",
            "",
            "1a",
            "--1",
            " 1",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
            "000000000000000000001",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        for n in 1..=19 {
            cases.push("9".repeat(n));
            cases.push(format!("-{}", "9".repeat(n)));
            cases.push(format!("1{}", "0".repeat(n - 1)));
        }
        for c in &cases {
            // Rust's parser agrees with Long.parseLong on these forms.
            let expected = c.parse::<i64>().ok();
            assert_eq!(parse_i64(c.as_bytes()), expected, "{c:?}");
            let expected32 = c.parse::<i32>().ok();
            assert_eq!(parse_i32(c.as_bytes()), expected32, "{c:?}");
        }
    }

    /// Short integers (the word-at-a-time path takes 4 to 8 digits) parse
    /// as Rust's parser does, within each range: random texts of digits,
    /// signs and other bytes.
    #[test]
    fn short_integers_parse_like_rusts_parser() {
        let alphabet = b"0123456789+-x .";
        let mut rng = crate::util::SplitMix64::new(17);
        for i in 0..400_000u64 {
            let len = (i % 11) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    let r = rng.next();
                    if r % 9 == 0 {
                        alphabet[(r >> 8) as usize % alphabet.len()]
                    } else {
                        b'0' + (r >> 16) as u8 % 10
                    }
                })
                .collect();
            let parsed = std::str::from_utf8(&text)
                .ok()
                .and_then(|t| t.parse::<i64>().ok());
            for (min, max) in [
                (i64::MIN, i64::MAX),
                (i64::from(i32::MIN), i64::from(i32::MAX)),
                (-128, 127),
                (0, 99_999),
            ] {
                let want = parsed.filter(|v| (min..=max).contains(v));
                let got = parse_int_range(&text, min, max);
                assert_eq!(
                    got,
                    want,
                    "{:?} in {min}..={max}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    fn d(v: f64) -> String {
        let mut o = Vec::new();
        write_f64(&mut o, v);
        String::from_utf8(o).unwrap()
    }
    fn f(v: f32) -> String {
        let mut o = Vec::new();
        write_f32(&mut o, v);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn java_double_to_string() {
        let cases: &[(f64, &str)] = &[
            (1000000.0, "1000000.0"),
            (1.23456789e7, "1.23456789E7"),
            (1.0e-5, "1.0E-5"),
            (0.001, "0.001"),
            (1.0e7, "1.0E7"),
            (9999999.0, "9999999.0"),
            (9999999.999, "9999999.999"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (123.456, "123.456"),
            (1.0e21, "1.0E21"),
            (2.5e-300, "2.5E-300"),
            (100.0, "100.0"),
            (-3.5, "-3.5"),
            (0.1, "0.1"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (1.0e-3, "0.001"),
            (9.99e-4, "9.99E-4"),
            (f64::MAX, "1.7976931348623157E308"),
            (4.9e-324, "4.9E-324"),
        ];
        for (v, want) in cases {
            assert_eq!(d(*v), *want);
        }
        assert_eq!(f(1.1), "1.1");
        // Java 17 keeps digits the shortest form drops.
        assert_eq!(f(1.5e10), "1.50000005E10");
        assert_eq!(f(123456789.125), "1.23456792E8");
        assert_eq!(f(f32::from_bits(1)), "1.4E-45");
        assert_eq!(f(1.0e10), "1.0E10");
        assert_eq!(f(9.999999e-4), "9.999999E-4");
        assert_eq!(f(f32::INFINITY), "Infinity");
    }

    #[test]
    fn java_number_parsing() {
        assert_eq!(parse_i32(b"+12"), Some(12));
        assert_eq!(parse_i32(b"-2147483648"), Some(i32::MIN));
        assert_eq!(parse_i32(b"2147483648"), None);
        assert_eq!(parse_i32(b""), None);
        assert_eq!(parse_i32(b" 1"), None);
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i8(b"128"), None);
        assert_eq!(parse_f64(b" 1.5d "), Some(1.5));
        assert_eq!(parse_f64(b"-Infinity"), Some(f64::NEG_INFINITY));
        assert!(parse_f64(b"NaN").unwrap().is_nan());
        assert_eq!(parse_f64(b"inf"), None);
        assert_eq!(parse_f64(b"1e5"), Some(1e5));
        assert_eq!(parse_f64(b".5"), Some(0.5));
        assert_eq!(parse_f64(b""), None);
        assert_eq!(parse_f32(b"3.4028235E38"), Some(f32::MAX));
    }
}
