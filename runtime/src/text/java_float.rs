//! The digits JDK 17's `Double.toString` and `Float.toString` print.
//!
//! Flink runs on Java 17, whose `FloatingDecimal` is not a shortest-digits
//! algorithm: a FLOAT integer above 2^25 keeps only the digits its precision
//! vouches for, rounded (`1.5E10f` prints `1.50000005E10`, `123456792f`
//! `1.23456792E8`), the digit loop stops on a symmetric half-ulp test
//! (`Float.MIN_VALUE` prints `1.4E-45`), and E-notation always gets a second
//! digit. Shortest-digits printers (ryu, Rust's `Display`) differ on such
//! values, so this module reproduces the JDK's steps exactly: the same
//! decimal-exponent estimate, the same int, long and big-integer digit loops
//! with their stopping tests (the int and long ones with Java's wrapping
//! arithmetic), and the same final rounding. The tests compare it with
//! outputs of Java 17 itself (`testdata/java17_float_strings.txt`).

/// Decimal digits of a positive finite value: `0.d1d2...dn × 10^exponent`.
pub(crate) struct JavaDigits {
    pub digits: [u8; 20],
    pub len: usize,
    pub exponent: i32,
}

impl JavaDigits {
    pub fn as_slice(&self) -> &[u8] {
        &self.digits[..self.len]
    }
}

/// The digits of `Double.toString(v)` for a finite, non-zero `v` (sign ignored).
pub(crate) fn double_digits(v: f64) -> JavaDigits {
    double_digits_with::<true>(v)
}

/// [`double_digits`], with (`FAST`) or without the [`short_digits`]
/// shortcut (without: the JDK's loops alone, the reference the shortcut is
/// tested against).
pub(crate) fn double_digits_with<const FAST: bool>(v: f64) -> JavaDigits {
    let bits = v.to_bits();
    // Normal doubles but powers of two (see `short_digits`).
    if FAST && bits & ((1 << 52) - 1) != 0 {
        if let Some(short) = short_digits(v.abs()) {
            return short;
        }
    }
    let mut fraction = bits & ((1 << 52) - 1);
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let (exponent, significant_bits) = if biased == 0 {
        // Subnormal: normalise so the high bit sits at bit 52.
        let zeros = fraction.leading_zeros() as i32;
        let shift = zeros - 11;
        fraction <<= shift;
        (1 - shift, 64 - zeros)
    } else {
        fraction |= 1 << 52;
        (biased, 53)
    };
    digits(exponent - 1023, fraction, significant_bits)
}

/// The digits of `Float.toString(v)` for a finite, non-zero `v` (sign ignored).
pub(crate) fn float_digits(v: f32) -> JavaDigits {
    let bits = v.to_bits();
    let mut fraction = bits & ((1 << 23) - 1);
    let biased = ((bits >> 23) & 0xff) as i32;
    let (exponent, significant_bits) = if biased == 0 {
        let zeros = fraction.leading_zeros() as i32;
        let shift = zeros - 8;
        fraction <<= shift;
        (1 - shift, 32 - zeros)
    } else {
        fraction |= 1 << 23;
        (biased, 24)
    };
    // Java runs the double algorithm on the float's bits, aligned to bit 52,
    // with the float's precision.
    digits(exponent - 127, u64::from(fraction) << 29, significant_bits)
}

/// `ceil(log2(5^i))`, as the JDK approximates it, for sizing the loops.
const FIVE_POW_BITS: [i32; 27] = [
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56,
    59, 61,
];

fn five_pow_bits(i: i32) -> i32 {
    FIVE_POW_BITS.get(i as usize).copied().unwrap_or(i * 3)
}

/// `value = fraction × 2^(exponent - 52)`, `fraction` with its bit 52 set;
/// `significant_bits` is the precision of the source type at this value.
fn digits(exponent: i32, fraction: u64, significant_bits: i32) -> JavaDigits {
    let tail_zeros = fraction.trailing_zeros() as i32;
    let fraction_bits = 53 - tail_zeros;
    // Bits to the right of the binary point.
    let tiny_bits = (fraction_bits - exponent - 1).max(0);
    if tiny_bits == 0 && (-21..=62).contains(&exponent) {
        // An integer that fits a long: its digits, less those below the
        // type's precision (rounded half up).
        let insignificant = if exponent > significant_bits {
            insignificant_digits_for_pow2(exponent - significant_bits - 1)
        } else {
            0
        };
        let value = if exponent >= 52 {
            fraction << (exponent - 52)
        } else {
            fraction >> (52 - exponent)
        };
        return long_digits(value, insignificant);
    }
    let Scaled {
        mut decimal_exponent,
        fraction,
        b5,
        b2,
        m5,
        m2,
        s5,
        s2,
        b_bits,
        ten_s_bits,
    } = scale(exponent, fraction, significant_bits);
    let mut out = JavaDigits {
        digits: [0; 20],
        len: 0,
        exponent: 0,
    };
    // E-notation (and not the plain form) needs two digits at least.
    let needs_two = |e: i32| !(-3..8).contains(&e);
    let (high, low, low_digit_difference);
    if b_bits < 64 && ten_s_bits < 64 {
        // The JDK's int and long loops: same steps, Java's wrapping arithmetic.
        macro_rules! small_loop {
            ($t:ty) => {{
                let mut b = (fraction as $t)
                    .wrapping_mul(pow5_wrapping(b5) as $t)
                    .wrapping_shl(b2 as u32);
                let s = (pow5_wrapping(s5) as $t).wrapping_shl(s2 as u32);
                let mut m = (pow5_wrapping(m5) as $t).wrapping_shl(m2 as u32);
                let tens = s.wrapping_mul(10);
                let mut q = b / s;
                b = (b % s).wrapping_mul(10);
                m = m.wrapping_mul(10);
                let mut lo = b < m;
                let mut hi = b.wrapping_add(m) > tens;
                if q == 0 && !hi {
                    decimal_exponent -= 1;
                } else {
                    out.push(q as u8);
                }
                if needs_two(decimal_exponent) {
                    hi = false;
                    lo = false;
                }
                while !lo && !hi {
                    q = b / s;
                    b = (b % s).wrapping_mul(10);
                    m = m.wrapping_mul(10);
                    if m > 0 {
                        lo = b < m;
                        hi = b.wrapping_add(m) > tens;
                    } else {
                        // m overflowed: it is certainly past both bounds.
                        lo = true;
                        hi = true;
                    }
                    out.push(q as u8);
                }
                let diff = b.wrapping_shl(1).wrapping_sub(tens);
                (hi, lo, diff.signum() as i32)
            }};
        }
        (high, low, low_digit_difference) = if b_bits < 32 && ten_s_bits < 32 {
            small_loop!(i32)
        } else {
            small_loop!(i64)
        };
    } else if ten_s_bits < 120 && b_bits < 120 {
        // The JDK's big-integer loop; every value (10 M and B + M included)
        // stays below 2^124 here, so u128 arithmetic is exact.
        (high, low, low_digit_difference) = exact_loop::<u128>(
            &mut out,
            &mut decimal_exponent,
            fraction,
            [b5, b2, m5, m2, s5, s2],
        );
    } else {
        (high, low, low_digit_difference) = exact_loop::<Big>(
            &mut out,
            &mut decimal_exponent,
            fraction,
            [b5, b2, m5, m2, s5, s2],
        );
    }
    out.exponent = decimal_exponent + 1;
    // The last digit is rounded by which bound stopped the loop.
    if high
        && (!low || low_digit_difference > 0 || (low_digit_difference == 0 && out.last_is_odd()))
    {
        out.round_up();
    }
    out
}

/// A value as the JDK's digit loop sees it: `B / S × 10^decimal_exponent`
/// with `1 <= B/S < 10` (the estimate may be one too high), `M` half an ulp
/// scaled like `B`; `B = fraction × 5^b5 × 2^b2`, `S = 5^s5 × 2^s2`,
/// `M = 5^m5 × 2^m2`. `b_bits` and `ten_s_bits` are the JDK's size estimates
/// of `B` and `10 S`, which choose the int, long or big-integer loop.
struct Scaled {
    decimal_exponent: i32,
    /// The fraction without its trailing zero bits.
    fraction: u64,
    b5: i32,
    b2: i32,
    m5: i32,
    m2: i32,
    s5: i32,
    s2: i32,
    b_bits: i32,
    ten_s_bits: i32,
}

/// The JDK's scaling of a value that is not an integer of a long:
/// `value = fraction × 2^(exponent - 52)`, as in [`digits`].
fn scale(exponent: i32, fraction: u64, significant_bits: i32) -> Scaled {
    let tail_zeros = fraction.trailing_zeros() as i32;
    let fraction_bits = 53 - tail_zeros;
    let tiny_bits = (fraction_bits - exponent - 1).max(0);
    let decimal_exponent = estimate_decimal_exponent(fraction, exponent);
    let b5 = (-decimal_exponent).max(0);
    let mut b2 = b5 + tiny_bits + exponent;
    let s5 = decimal_exponent.max(0);
    let mut s2 = s5 + tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - significant_bits;
    let fraction = fraction >> tail_zeros;
    b2 -= fraction_bits - 1;
    let common = b2.min(s2);
    b2 -= common;
    s2 -= common;
    m2 -= common;
    if fraction_bits == 1 {
        // A power of two: the next value below is half as far.
        m2 -= 1;
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }
    Scaled {
        decimal_exponent,
        fraction,
        b5,
        b2,
        m5,
        m2,
        s5,
        s2,
        b_bits: fraction_bits + b2 + five_pow_bits(b5),
        ten_s_bits: s2 + 1 + five_pow_bits(s5 + 1),
    }
}

/// Whether the JDK prints a double of the plain range `[10^-3, 10^7)`
/// (positive, normal, not an integer, not a power of two) as the shortest
/// decimal that reads back as it, the nearest of them: what ryu prints.
///
/// The JDK's loop stops at the first digit where the truncated decimal or
/// the next one up lies strictly within half an ulp `M` of the value, and
/// rounds to the nearer (see [`short_digits`]): in exact arithmetic that is
/// the shortest decimal inside, and of that length only those two can be
/// inside. In this range no decimal of 17 digits or fewer is on the
/// interval's edge or halfway between two such decimals (either would need
/// as many significant digits as the value's exact binary fraction, over
/// 20 here), so ryu's choice, which may include the edges, is the same. The
/// JDK's arithmetic is exact unless its long loop wraps: `true` when the
/// big-integer loops run (exact), or the long loop does and `B`, `10 S` and
/// `10^18 M + 10 S` stay below 2^63 (17 digits and one leading zero step
/// at most); the int loop is left to the caller's slow path.
#[inline]
pub(crate) fn prints_shortest(value: f64) -> bool {
    let bits = value.to_bits();
    let fraction = (bits & ((1 << 52) - 1)) | (1 << 52);
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let s = scale(exponent, fraction, 53);
    if s.b_bits < 32 && s.ten_s_bits < 32 {
        return false;
    }
    if s.b_bits >= 64 || s.ten_s_bits >= 64 {
        return true;
    }
    // The long loop's b_bits < 64 keeps every 5^p here within the table.
    let pow5 = |p: i32| u128::from(pow5_wrapping(p));
    let b = (u128::from(s.fraction) * pow5(s.b5)) << s.b2;
    let ten_s = 10 * (pow5(s.s5) << s.s2);
    let m = pow5(s.m5) << s.m2;
    const LIMIT: u128 = 1 << 63;
    b < LIMIT && b < ten_s && m * 1_000_000_000_000_000_000 + ten_s < LIMIT
}

/// `5^p` modulo 2^64 (a table up to 5^27, which a long holds); truncated
/// to an int it is also the int loop's wrapping `5^p`.
#[inline]
fn pow5_wrapping(p: i32) -> u64 {
    const POW5: [u64; 28] = {
        let mut t = [1u64; 28];
        let mut i = 1;
        while i < 28 {
            t[i] = t[i - 1] * 5;
            i += 1;
        }
        t
    };
    match POW5.get(p as usize) {
        Some(&v) => v,
        None => 5u64.wrapping_pow(p as u32),
    }
}

/// `10^i` as doubles (all exact).
const TENS: [f64; 18] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17,
];

/// The digits of a double in the plain range `[10^-3, 10^7)` that some
/// decimal of at most 15 significant digits reads back as, without the
/// JDK's digit loop; `None` for every other value. The caller excludes
/// powers of two (the JDK's interval is narrower there: it uses the lower,
/// smaller half-gap on both sides); subnormals are out of the range.
///
/// The JDK's loop stops at the first digit where the truncated digits or
/// the next decimal up lie strictly within half an ulp of the value, and
/// prints that one (the nearer when both do): the shortest decimal in that
/// open interval, without trailing zeros (it would have stopped before a
/// zero). A decimal of 15 significant digits or fewer is never on the
/// interval's edge (a midpoint between two doubles needs 54 significant
/// bits, more than 10^15 holds), and 15-digit decimals are farther apart
/// than an ulp (10^-15 against 2^-52, relative), so at most one of them is
/// inside: the value times 10^p rounded to an integer, p = 14 -
/// floor(log10(value)), when dividing it by 10^p gives the value back (both
/// are exact doubles below 2^53, so that division is the correctly rounded
/// decimal-to-double conversion). A shorter decimal inside is this one
/// with trailing zeros dropped.
///
/// That is the loop in exact arithmetic; the JDK's int and long loops wrap
/// around 2^31 and 2^63. In this range they never do. Integers take the
/// JDK's integer path instead, whose digits (the integer's, trailing zeros
/// dropped) are the same decimal. For the other values B carries at least
/// 54 bits, so the long loop (or the big-integer one) runs, never the int
/// loop, with S at most 20·2^53 and the half-ulp M at most 5^3; for 15
/// digits (16 steps when the exponent estimate was one too high) 10^16·M +
/// 10·S stays below 2^61. The tests compare this with the loops on
/// millions of values.
fn short_digits(value: f64) -> Option<JavaDigits> {
    let (n, p) = short_decimal(value)?;
    let mut text = itoa::Buffer::new();
    let text = text.format(n).as_bytes();
    let mut out = JavaDigits {
        digits: [0; 20],
        len: text.len(),
        exponent: text.len() as i32 - p,
    };
    out.digits[..text.len()].copy_from_slice(text);
    Some(out)
}

/// The decimal of [`short_digits`] as `n × 10^-p`, `n` without trailing
/// zeros, for a positive double (the caller excludes powers of two).
#[inline]
pub(crate) fn short_decimal(value: f64) -> Option<(u64, i32)> {
    if !(1e-3..1e7).contains(&value) {
        return None;
    }
    // p = 14 - floor(log10(value)), from 17 at 10^-3 down to 8 at 10^6.
    let mut p = 17;
    for bound in [1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6] {
        p -= i32::from(value >= bound);
    }
    let scale = TENS[p as usize];
    let n = (value * scale + 0.5) as u64;
    if n as f64 / scale != value {
        return None;
    }
    // Trailing zeros off, halving the step (n < 10^16: at most 15).
    let mut n = n;
    for (pow, zeros) in [(100_000_000, 8), (10_000, 4), (100, 2), (10, 1)] {
        if n % pow == 0 {
            n /= pow;
            p -= zeros;
        }
    }
    Some((n, p))
}

/// The JDK's digits of a double in `[1, 10^7)` (the caller excludes
/// powers of two, whose interval is narrower below), as `n × 10^-p` with
/// `n` of 15 to 17 digits, trailing zeros included (the printer drops
/// them).
///
/// Integers take the JDK's integer path, whose digits are the integer's;
/// for the others the JDK's long loop runs without wrapping (see
/// [`prints_shortest`], whose test is always true in this range: `B` has
/// 54 bits, `M` is 1 and `10 S` is below 200·2^53; the tests check it), so
/// its digits are those of exact arithmetic: the loop stops at the first
/// length where the value's truncation or the next decimal up lies
/// strictly within half an ulp, and prints the nearer (an exact tie: the
/// even one). This computes the same thing directly: with `k =
/// floor(log10(value))` and `p = 16 - k`, the exact `value × 10^p × 2^s =
/// fraction × 5^p` (`s = 52 - exponent - p`, between 19 and 36; the
/// product is below 2^91) gives the 17-digit truncation `t` and its
/// remainder, in units where the half ulp is `5^p` and a 17-digit step is
/// `2^(s+1)`. Length 15 is tried first: 15-digit decimals are farther
/// apart than an ulp, so at most one of them is inside, and when one is,
/// the JDK stops there or earlier on the same decimal without its trailing
/// zeros (an integer is its own 15-digit truncation). Then 16, then 17,
/// which always stops the loop (half an ulp is more than half a 17-digit
/// step). No bound is ever on the interval's edge: remainders are even
/// multiples of the unit and `5^p` is odd.
#[inline]
pub(crate) fn plain_decimal(value: f64) -> Option<(u64, i32)> {
    if !(1.0..1e7).contains(&value) {
        return None;
    }
    let bits = value.to_bits();
    let fraction = (bits & ((1 << 52) - 1)) | (1 << 52);
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let mut p = 16;
    for bound in [1e1, 1e2, 1e3, 1e4, 1e5, 1e6] {
        p -= i32::from(value >= bound);
    }
    let s = (52 - exponent - p) as u32;
    let half_ulp = pow5_wrapping(p);
    let scaled = u128::from(fraction) * u128::from(half_ulp);
    let t17 = (scaled >> s) as u64;
    // The remainder below the 17-digit truncation and one 17-digit step,
    // in units of 2^-(s+1) (half the remainder's unit).
    let rem = ((scaled as u64) & ((1u64 << s) - 1)) << 1;
    let step = 1u64 << (s + 1);
    // Lengths 15 and 16: the truncations and their remainders.
    for (pow, zeros) in [(100, 2), (10, 1)] {
        let (t, rem) = (t17 / pow, t17 % pow * step + rem);
        let (low, high) = (rem < half_ulp, pow * step - rem < half_ulp);
        if low || high {
            return Some((pick(t, low, high, rem, pow * step), p - zeros));
        }
    }
    let (low, high) = (rem < half_ulp, step - rem < half_ulp);
    Some((pick(t17, low, high, rem, step), p))
}

/// The JDK's last-digit rounding where its loop stopped: the truncation
/// `t` (`low`), the next decimal up (`high`), or the nearer of the two
/// when both are within half an ulp, the even one on a tie.
#[inline]
fn pick(t: u64, low: bool, high: bool, rem: u64, step: u64) -> u64 {
    let up = if low && high {
        match (2 * rem).cmp(&step) {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => t & 1 == 1,
        }
    } else {
        high
    };
    t + u64::from(up)
}

/// Exact non-negative integers for the JDK's big-integer digit loop.
trait Exact: Ord + Sized {
    /// `5^p5 × 2^p2`.
    fn pow52(p5: i32, p2: i32) -> Self;
    fn mul_small(&self, k: u64) -> Self;
    fn add(&self, other: &Self) -> Self;
    /// `q = self / s` (below 10), then `self = 10 × (self mod s)`.
    fn quo_rem_times_ten(&mut self, s: &Self) -> u32;
}

impl Exact for u128 {
    fn pow52(p5: i32, p2: i32) -> u128 {
        5u128.pow(p5 as u32) << p2
    }
    fn mul_small(&self, k: u64) -> u128 {
        self * u128::from(k)
    }
    fn add(&self, other: &u128) -> u128 {
        self + other
    }
    fn quo_rem_times_ten(&mut self, s: &u128) -> u32 {
        let q = *self / s;
        *self = *self % s * 10;
        q as u32
    }
}

/// The JDK's `FDBigInteger` loop: B = fraction × 5^b5 × 2^b2, S = 5^s5 × 2^s2,
/// M = 5^m5 × 2^m2 (half an ulp); digits of B / S until the remainder is
/// within M of either neighbour. Returns (high, low, sign of 2B - 10S).
fn exact_loop<N: Exact>(
    out: &mut JavaDigits,
    decimal_exponent: &mut i32,
    fraction: u64,
    [b5, b2, m5, m2, s5, s2]: [i32; 6],
) -> (bool, bool, i32) {
    let s = N::pow52(s5, s2);
    let mut b = N::pow52(b5, b2).mul_small(fraction);
    let mut m = N::pow52(m5 + 1, m2 + 1); // 10 M
    let ten_s = N::pow52(s5 + 1, s2 + 1);
    let mut q = b.quo_rem_times_ten(&s);
    let mut low = b < m;
    let mut high = b.add(&m) >= ten_s;
    if q == 0 && !high {
        *decimal_exponent -= 1;
    } else {
        out.push(q as u8);
    }
    if !(-3..8).contains(decimal_exponent) {
        high = false;
        low = false;
    }
    while !low && !high {
        q = b.quo_rem_times_ten(&s);
        m = m.mul_small(10);
        low = b < m;
        high = b.add(&m) >= ten_s;
        out.push(q as u8);
    }
    let diff = if high && low {
        b.add(&b).cmp(&ten_s) as i32
    } else {
        0
    };
    (high, low, diff)
}

impl JavaDigits {
    fn push(&mut self, digit: u8) {
        self.digits[self.len] = b'0' + digit;
        self.len += 1;
    }

    fn last_is_odd(&self) -> bool {
        self.digits[self.len - 1] & 1 != 0
    }

    /// Adds one to the last digit; a carry out of the first digit leaves
    /// `1` followed by zeros (the count of digits does not change).
    fn round_up(&mut self) {
        let mut i = self.len - 1;
        while self.digits[i] == b'9' && i > 0 {
            self.digits[i] = b'0';
            i -= 1;
        }
        if self.digits[i] == b'9' {
            self.exponent += 1;
            self.digits[0] = b'1';
        } else {
            self.digits[i] += 1;
        }
    }
}

/// The digits of a positive long, trailing zeros dropped, after discarding
/// `insignificant` low digits with half-up rounding.
fn long_digits(mut value: u64, insignificant: i32) -> JavaDigits {
    let mut exponent = 0;
    if insignificant != 0 {
        let pow10 = 10u64.pow(insignificant as u32);
        let residue = value % pow10;
        value /= pow10;
        exponent += insignificant;
        if residue >= pow10 / 2 {
            value += 1;
        }
    }
    let mut out = JavaDigits {
        digits: [0; 20],
        len: 0,
        exponent: 0,
    };
    let mut text = itoa::Buffer::new();
    let text = text.format(value).as_bytes();
    exponent += text.len() as i32;
    let kept = text.len() - text.iter().rev().take_while(|&&c| c == b'0').count();
    out.digits[..kept].copy_from_slice(&text[..kept]);
    out.len = kept;
    out.exponent = exponent;
    out
}

/// `insignificantDigits(1 << p)`: decimal digits of 2^p, less one, for p > 1.
fn insignificant_digits_for_pow2(p: i32) -> i32 {
    if p > 1 && p < 64 {
        // The count of times 2^p can be divided by 10 while at least 10.
        let mut v = 1u64 << p;
        let mut i = 0;
        while v >= 10 {
            v /= 10;
            i += 1;
        }
        i
    } else {
        0
    }
}

/// The JDK's estimate of floor(log10(value)) from a linear approximation of
/// log10 of the mantissa (it may be one too high; the digit loop corrects it).
// The JDK's truncated log10(2) (0.301029995663981), not `LOG10_2`: the
// estimate must round as Java's does.
#[allow(clippy::approx_constant)]
fn estimate_decimal_exponent(fraction: u64, exponent: i32) -> i32 {
    let mantissa = f64::from_bits((1023 << 52) | (fraction & ((1 << 52) - 1)));
    let d = (mantissa - 1.5) * 0.289529654 + 0.176091259 + f64::from(exponent) * 0.301029995663981;
    // floor without the libm call (|d| is below 400 here).
    let t = d as i32;
    if f64::from(t) > d {
        t - 1
    } else {
        t
    }
}

/// A non-negative integer of up to 1280 bits (the digit loop needs ~770),
/// little-endian 32-bit limbs, `len` of them in use.
#[derive(Clone)]
struct Big {
    limbs: [u32; 40],
    len: usize,
}

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut out = Big {
            limbs: [0; 40],
            len: 2,
        };
        out.limbs[0] = v as u32;
        out.limbs[1] = (v >> 32) as u32;
        out.trim();
        out
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limbs[self.len - 1] == 0 {
            self.len -= 1;
        }
    }

    fn shl(&self, n: u32) -> Big {
        let (words, bits) = ((n / 32) as usize, n % 32);
        let mut out = Big {
            limbs: [0; 40],
            len: (self.len + words + 1).min(40),
        };
        for i in 0..self.len {
            let v = u64::from(self.limbs[i]) << bits;
            out.limbs[i + words] |= v as u32;
            if i + words + 1 < 40 {
                out.limbs[i + words + 1] |= (v >> 32) as u32;
            }
        }
        out.trim();
        out
    }

    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.len {
            let d = i64::from(self.limbs[i]) - i64::from(other.limbs[i]) - borrow;
            self.limbs[i] = d as u32;
            borrow = i64::from(d < 0);
        }
        self.trim();
    }

    /// The top 64 bits of `self >> shift` (the value must have at most
    /// `shift + 64` bits).
    fn bits_from(&self, shift: usize) -> u64 {
        let (word, bit) = (shift / 32, shift % 32);
        let limb = |i: usize| u128::from(*self.limbs.get(i).unwrap_or(&0));
        let v = limb(word) | limb(word + 1) << 32 | limb(word + 2) << 64 | limb(word + 3) << 96;
        (v >> bit) as u64
    }

    fn bit_len(&self) -> usize {
        match self.len {
            0 => 0,
            n => n * 32 - self.limbs[n - 1].leading_zeros() as usize,
        }
    }
}

impl Exact for Big {
    fn pow52(p5: i32, p2: i32) -> Big {
        let mut v = Big::from_u64(1);
        let mut p5 = p5;
        while p5 > 0 {
            let step = p5.min(27);
            v = v.mul_small(5u64.pow(step as u32));
            p5 -= step;
        }
        v.shl(p2 as u32)
    }

    fn mul_small(&self, k: u64) -> Big {
        let mut out = Big {
            limbs: [0; 40],
            len: 0,
        };
        let mut carry: u128 = 0;
        for i in 0..self.len {
            let p = u128::from(self.limbs[i]) * u128::from(k) + carry;
            out.limbs[i] = p as u32;
            carry = p >> 32;
        }
        let mut n = self.len;
        while carry > 0 {
            out.limbs[n] = carry as u32;
            carry >>= 32;
            n += 1;
        }
        out.len = n;
        out.trim();
        out
    }

    fn add(&self, other: &Big) -> Big {
        let n = self.len.max(other.len);
        let mut out = Big {
            limbs: [0; 40],
            len: n + 1,
        };
        let mut carry = 0u64;
        for i in 0..n {
            let s = u64::from(self.limbs[i]) + u64::from(other.limbs[i]) + carry;
            out.limbs[i] = s as u32;
            carry = s >> 32;
        }
        out.limbs[n] = carry as u32;
        out.trim();
        out
    }

    fn quo_rem_times_ten(&mut self, s: &Big) -> u32 {
        // Estimate from the top bits (at most one too small), then correct.
        let shift = s.bit_len().saturating_sub(60);
        let mut q = (self.bits_from(shift) / (s.bits_from(shift) + 1)) as u32;
        if q > 0 {
            self.sub_assign(&s.mul_small(u64::from(q)));
        }
        while *self >= *s {
            self.sub_assign(s);
            q += 1;
        }
        *self = self.mul_small(10);
        q
    }
}

impl PartialEq for Big {
    fn eq(&self, other: &Big) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Big {}

impl Ord for Big {
    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.len.cmp(&other.len).then_with(|| {
            self.limbs[..self.len]
                .iter()
                .rev()
                .cmp(other.limbs[..other.len].iter().rev())
        })
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Big) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use crate::text::number::{write_f32, write_f64};

    /// Every line of a file `d|f <hex bits> <Java 17's toString>` (made by
    /// `testdata/JavaFloatStrings.java`) prints the same here.
    fn check_file(text: &str) -> usize {
        let mut failures = Vec::new();
        for line in text.lines() {
            let mut parts = line.splitn(3, ' ');
            let (kind, bits, want) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            let mut out = Vec::new();
            let bits = u64::from_str_radix(bits, 16).expect("hex bits");
            if kind == "d" {
                write_f64(&mut out, f64::from_bits(bits));
            } else {
                write_f32(&mut out, f32::from_bits(bits as u32));
            }
            if out != want.as_bytes() {
                failures.push(format!("{line}: got {}", String::from_utf8_lossy(&out)));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} differ from Java 17:\n{}",
            failures.len(),
            text.lines().count(),
            failures[..failures.len().min(30)].join("\n")
        );
        text.lines().count()
    }

    use super::{double_digits_with, JavaDigits};

    fn same(a: &JavaDigits, b: &JavaDigits) -> bool {
        a.as_slice() == b.as_slice() && a.exponent == b.exponent
    }

    /// The shortcut gives the digits of the JDK's loops: on random bit
    /// patterns, on prices with two decimals and their products with small
    /// quantities (the values sinks print most), and on short decimals of
    /// every magnitude.
    #[test]
    fn shortcut_matches_the_jdk_loops() {
        let mut rng = crate::util::SplitMix64::new(0x9E37_79B9_7F4A_7C15u64);
        let mut next = || rng.next();
        let mut failures = Vec::new();
        let mut check = |v: f64| {
            if v.is_finite() && v != 0.0 {
                let (fast, slow) = (
                    double_digits_with::<true>(v),
                    double_digits_with::<false>(v),
                );
                if !same(&fast, &slow) && failures.len() < 20 {
                    failures.push(format!("{v:e} ({:#x})", v.to_bits()));
                }
            }
        };
        for _ in
            0..std::env::var("STMTC_FLOAT_ROUNDS").map_or(100_000, |v| v.parse().expect("a count"))
        {
            check(f64::from_bits(next()));
            let cents = (next() % 100_000) as f64;
            let price = cents / 100.0;
            check(price);
            check(price * (next() % 21) as f64);
            check(price * (next() % 21) as f64 + price);
            let scale = [1e-5, 1e-3, 0.1, 10.0, 1e4, 1e8, 1e15, 1e22][(next() % 8) as usize];
            check((next() % 1_000_000) as f64 * scale);
            check((next() % 1000) as f64 / 7.0);
            // Any double of the shortcut's range, and its edges.
            let biased = 1013 + next() % 34;
            check(f64::from_bits(biased << 52 | next() >> 12));
            let edge: f64 = [1e-3, 1e-2, 0.1, 1.0, 10.0, 1e6, 1e7][(next() % 7) as usize];
            check(f64::from_bits(edge.to_bits() + (next() % 5) - 2));
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // The comparison covers the shortcut: every price takes it.
        for cents in 1..100_000 {
            let price = f64::from(cents) / 100.0;
            assert!(super::short_digits(price).is_some(), "{price}");
        }
    }

    /// [`super::plain_decimal`] gives the digits of the JDK's loops for
    /// every double of `[1, 10^7)` but powers of two (random bits of each
    /// binade, integers, short decimals, prices times quantities, sums, the
    /// neighbours of powers of ten and two, and ties: values `k + j/2^16`
    /// whose 17 digits are exact), and `prints_shortest` holds for each.
    #[test]
    fn plain_decimal_matches_the_jdk_loops() {
        let mut rng = crate::util::SplitMix64::new(0x5851_F42D_4C95_7F2Du64);
        let mut next = || rng.next();
        let mut failures = Vec::new();
        let mut lengths = [0u64; 18];
        let mut check = |v: f64| {
            if !(1.0..1e7).contains(&v) || v.to_bits() & ((1 << 52) - 1) == 0 {
                return;
            }
            let slow = double_digits_with::<false>(v);
            let fast = super::plain_decimal(v).map(|(n, p)| {
                let text = n.to_string();
                let digits = text.trim_end_matches('0').to_owned();
                lengths[digits.len()] += 1;
                (digits, text.len() as i32 - p)
            });
            let want = (
                String::from_utf8_lossy(slow.as_slice()).into_owned(),
                slow.exponent,
            );
            let integer = v.fract() == 0.0;
            if (fast.as_ref() != Some(&want) || !(integer || super::prints_shortest(v)))
                && failures.len() < 20
            {
                failures.push(format!("{v:e} ({:#x}): {fast:?} vs {want:?}", v.to_bits()));
            }
        };
        for _ in
            0..std::env::var("STMTC_FLOAT_ROUNDS").map_or(200_000, |v| v.parse().expect("a count"))
        {
            // Every binade of the range (2^0 .. 2^23).
            check(f64::from_bits((1023 + next() % 24) << 52 | next() >> 12));
            let r = next();
            let price = (r % 100_000) as f64 / 100.0;
            check(price);
            check(((r >> 17) % 10_000_000) as f64);
            check(price * ((r >> 20) % 21) as f64);
            check(price * ((r >> 40) % 1000) as f64 / 7.0);
            check(price + 0.1 + ((r >> 30) % 1000) as f64 / 1000.0);
            // Decimals of every length up to 15, 1 to 7 digits whole.
            let digits = (r >> 50) as u32 % 15 + 1;
            let whole = ((r >> 56) as u32 % 7 + 1).min(digits);
            let n = (r >> 3) % 10u64.pow(digits);
            check(n as f64 / 10u64.pow(digits - whole) as f64);
            // Exact 17-digit values: ties at 16 digits.
            check((r >> 40) as f64 % 10_000.0 + ((r >> 8) % 65536) as f64 / 65536.0);
            // Neighbours of powers of ten and two.
            let edge = [
                1.0f64, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 2.0, 1024.0, 4194304.0,
            ][(r % 11) as usize];
            check(f64::from_bits(edge.to_bits() + ((r >> 4) % 64) - 32));
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // Every length the lengths 15, 16 and 17 give, in numbers.
        assert!(lengths[1..15].iter().all(|&n| n > 1000), "{lengths:?}");
        assert!(lengths[15..].iter().all(|&n| n > 10_000), "{lengths:?}");
    }

    #[test]
    fn prints_like_java_17() {
        let n = check_file(include_str!("testdata/java17_float_strings.txt"));
        assert!(n > 3000);
        // A larger file from the same generator, when one is at hand.
        if let Some(path) = std::env::var_os("STMTC_JAVA_FLOAT_STRINGS") {
            check_file(&std::fs::read_to_string(path).expect("the file"));
        }
    }
}
