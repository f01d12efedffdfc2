//! Exact DECIMAL(p, s) values, p ≤ 38, as an unscaled `i128`.
//!
//! The scale is not stored in the value: the generated code knows every
//! column's type statically and passes a [`DecimalType`] where it matters
//! (parsing, rescaling, arithmetic, formatting). This keeps a decimal 16 bytes
//! and its operations branch-free in the common case.
//!
//! Flink semantics followed here:
//! - rounding is HALF_UP (away from zero on a tie), as `BigDecimal.setScale`;
//! - a result that does not fit its type's precision is NULL (`None`), as
//!   `DecimalData.fromBigDecimal` returns null on overflow;
//! - division first computes the exact quotient rounded to the result scale
//!   (Flink rounds to 38 significant digits, then to the scale; the two differ
//!   only for quotients that tie at the 39th digit).

use std::cmp::Ordering;

/// Why a decimal operation failed (as opposed to overflowing, which is NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalError {
    /// The text is not a number.
    Syntax,
    /// Division or remainder by zero (an error in Flink).
    DivisionByZero,
}

/// Largest supported precision (Flink's `DecimalType.MAX_PRECISION`).
pub const MAX_PRECISION: u8 = 38;

/// A decimal value: the unscaled integer. `Decimal(12345)` with scale 2 is 123.45.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Decimal(pub i128);

/// The static type of a decimal column: precision and scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecimalType {
    pub precision: u8,
    pub scale: u8,
}

const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^n for n ≤ 38.
#[inline]
pub fn pow10(n: u32) -> i128 {
    POW10[n as usize]
}

impl std::fmt::Display for DecimalType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DECIMAL({}, {})", self.precision, self.scale)
    }
}

impl DecimalType {
    pub const fn new(precision: u8, scale: u8) -> Self {
        DecimalType { precision, scale }
    }

    /// Whether `v` has at most `precision` digits.
    #[inline]
    pub fn fits(self, v: i128) -> bool {
        let limit = POW10[self.precision as usize];
        v > -limit && v < limit
    }

    /// `Some(Decimal(v))` when `v` fits the precision, else NULL (Flink's overflow rule).
    #[inline]
    pub fn checked(self, v: i128) -> Option<Decimal> {
        self.fits(v).then_some(Decimal(v))
    }

    /// Parses decimal text with `java.math.BigDecimal` syntax (`-1.5`, `+.5`, `5.`,
    /// `1E+2`, `1.5e-3`), rounds HALF_UP to this type's scale. `Err` on bad syntax,
    /// `Ok(None)` when the value overflows the precision (Flink yields NULL).
    pub fn parse(self, text: &[u8]) -> Result<Option<Decimal>, DecimalError> {
        let parsed = ParsedNumber::parse(text).map_err(|()| DecimalError::Syntax)?;
        Ok(parsed
            .to_unscaled(self.scale as i32)
            .and_then(|v| self.checked(v)))
    }

    /// Rescales a value of type `from` to this type, HALF_UP; NULL on overflow.
    pub fn cast_from(self, v: Decimal, from: DecimalType) -> Option<Decimal> {
        rescale(v.0, from.scale, self.scale).and_then(|u| self.checked(u))
    }

    /// From an integer (TINYINT..BIGINT); NULL on overflow.
    pub fn from_i64(self, v: i64) -> Option<Decimal> {
        (v as i128)
            .checked_mul(POW10[self.scale as usize])
            .and_then(|u| self.checked(u))
    }

    /// From a DOUBLE the way Flink casts (`BigDecimal.valueOf(d)`, i.e. through
    /// Java's `Double.toString`), HALF_UP; NULL for NaN/infinite or overflow.
    pub fn from_f64(self, v: f64) -> Option<Decimal> {
        if !v.is_finite() {
            return None;
        }
        let mut text = Vec::with_capacity(32);
        crate::text::number::write_f64(&mut text, v);
        self.parse(&text).ok().flatten()
    }

    /// From a FLOAT (through Java's `Float.toString`, as Flink's `BigDecimal(Float.toString)`).
    pub fn from_f32(self, v: f32) -> Option<Decimal> {
        if !v.is_finite() {
            return None;
        }
        let mut text = Vec::with_capacity(32);
        crate::text::number::write_f32(&mut text, v);
        self.parse(&text).ok().flatten()
    }

    /// To DOUBLE, correctly rounded (as `BigDecimal.doubleValue()`).
    pub fn to_f64(self, v: Decimal) -> f64 {
        if self.scale == 0 || v.0 == 0 {
            return v.0 as f64;
        }
        let mut buf = [0u8; 64];
        let n = write_unscaled_exp(&mut buf, v.0, self.scale);
        std::str::from_utf8(&buf[..n])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(f64::NAN)
    }

    /// To an integer, truncating toward zero (CAST(dec AS BIGINT)); wraps like Java's
    /// `BigDecimal.longValue()` when out of range.
    pub fn to_i64(self, v: Decimal) -> i64 {
        (v.0 / POW10[self.scale as usize]) as i64
    }

    /// Writes the value like `BigDecimal.toPlainString()`: all `scale` fraction digits.
    pub fn write_plain(self, v: Decimal, out: &mut Vec<u8>) {
        write_plain(out, v.0, self.scale as i32);
    }

    /// Writes like `BigDecimal.toString()` (Flink's print sink): scientific notation
    /// when the adjusted exponent is below -6.
    pub fn write_java(self, v: Decimal, out: &mut Vec<u8>) {
        write_java(out, v.0, self.scale as i32);
    }

    /// Writes like `BigDecimal.stripTrailingZeros().toString()` (Flink's csv and json
    /// formats): `351.80` → `351.8`, `0.00` → `0`, `100` → `1E+2`.
    pub fn write_stripped(self, v: Decimal, out: &mut Vec<u8>) {
        let (mut u, mut s) = (v.0, self.scale as i32);
        if u == 0 {
            out.push(b'0');
            return;
        }
        while u % 10 == 0 {
            u /= 10;
            s -= 1;
        }
        write_java(out, u, s);
    }

    /// Writes `stripTrailingZeros().toPlainString()` (json with
    /// `json.encode.decimal-as-plain-number`).
    pub fn write_stripped_plain(self, v: Decimal, out: &mut Vec<u8>) {
        let (mut u, mut s) = (v.0, self.scale as i32);
        if u == 0 {
            out.push(b'0');
            return;
        }
        while s > 0 && u % 10 == 0 {
            u /= 10;
            s -= 1;
        }
        write_plain(out, u, s);
    }

    /// The plain text as a `String` (CAST(dec AS STRING) keeps all scale digits in Flink).
    pub fn to_plain_string(self, v: Decimal) -> String {
        let mut out = Vec::with_capacity(42);
        self.write_plain(v, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Rescales an unscaled value from scale `from` to scale `to` with HALF_UP rounding.
/// `None` when the value does not fit an i128 (always an overflow for p ≤ 38).
pub fn rescale(v: i128, from: u8, to: u8) -> Option<i128> {
    match from.cmp(&to) {
        Ordering::Equal => Some(v),
        Ordering::Less => v.checked_mul(POW10[(to - from) as usize]),
        Ordering::Greater => Some(div_half_up(v, POW10[(from - to) as usize])),
    }
}

/// `a / b` rounded HALF_UP (b > 0 or b < 0; b ≠ 0).
#[inline]
pub fn div_half_up(a: i128, b: i128) -> i128 {
    let q = a / b;
    let r = a % b;
    // Compare 2|r| with |b| without overflow: |r| >= |b| - |r|.
    let (ra, ba) = (r.unsigned_abs(), b.unsigned_abs());
    if ra >= ba - ra {
        if (a < 0) != (b < 0) {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

/// `a + b` for operands of types `ta`, `tb` into type `tr`; NULL on overflow.
pub fn add(
    a: Decimal,
    ta: DecimalType,
    b: Decimal,
    tb: DecimalType,
    tr: DecimalType,
) -> Option<Decimal> {
    let s = ta.scale.max(tb.scale);
    let x = rescale(a.0, ta.scale, s);
    let y = rescale(b.0, tb.scale, s);
    match (x, y) {
        (Some(x), Some(y)) => match x.checked_add(y) {
            Some(sum) => rescale(sum, s, tr.scale).and_then(|u| tr.checked(u)),
            None => wide::add_rescale(a.0, ta.scale, b.0, tb.scale, tr),
        },
        _ => wide::add_rescale(a.0, ta.scale, b.0, tb.scale, tr),
    }
}

/// `a - b`; see [`add`].
pub fn sub(
    a: Decimal,
    ta: DecimalType,
    b: Decimal,
    tb: DecimalType,
    tr: DecimalType,
) -> Option<Decimal> {
    add(a, ta, Decimal(-b.0), tb, tr)
}

/// `a * b` into type `tr` (exact product rounded HALF_UP to `tr.scale`); NULL on overflow.
pub fn mul(
    a: Decimal,
    ta: DecimalType,
    b: Decimal,
    tb: DecimalType,
    tr: DecimalType,
) -> Option<Decimal> {
    let s = ta.scale + tb.scale;
    match a.0.checked_mul(b.0) {
        Some(p) if s <= 38 => rescale(p, s, tr.scale).and_then(|u| tr.checked(u)),
        _ => wide::mul_rescale(a.0, b.0, s as u32, tr),
    }
}

/// `a / b` into type `tr`, HALF_UP; NULL on overflow. Division by zero is an
/// error in Flink, reported by the caller.
pub fn div(
    a: Decimal,
    ta: DecimalType,
    b: Decimal,
    tb: DecimalType,
    tr: DecimalType,
) -> Result<Option<Decimal>, DecimalError> {
    if b.0 == 0 {
        return Err(DecimalError::DivisionByZero);
    }
    // q = a/10^sa / (b/10^sb) * 10^sr = a * 10^(sr - sa + sb) / b
    let shift = tr.scale as i32 - ta.scale as i32 + tb.scale as i32;
    if shift >= 0 {
        if shift <= 38 {
            if let Some(n) = a.0.checked_mul(POW10[shift as usize]) {
                return Ok(tr.checked(div_half_up(n, b.0)));
            }
        }
        Ok(wide::div_rescale(a.0, shift as u32, 0, b.0, tr))
    } else {
        let neg = (-shift) as u32;
        if neg <= 38 {
            if let Some(d) = b.0.checked_mul(POW10[neg as usize]) {
                return Ok(tr.checked(div_half_up(a.0, d)));
            }
        }
        Ok(wide::div_rescale(a.0, 0, neg, b.0, tr))
    }
}

/// `a % b` (sign of the dividend, as `BigDecimal.remainder`) into type `tr`.
pub fn rem(
    a: Decimal,
    ta: DecimalType,
    b: Decimal,
    tb: DecimalType,
    tr: DecimalType,
) -> Result<Option<Decimal>, DecimalError> {
    if b.0 == 0 {
        return Err(DecimalError::DivisionByZero);
    }
    let s = ta.scale.max(tb.scale);
    match (rescale(a.0, ta.scale, s), rescale(b.0, tb.scale, s)) {
        (Some(x), Some(y)) => Ok(rescale(x % y, s, tr.scale).and_then(|u| tr.checked(u))),
        _ => Ok(None),
    }
}

/// Compares values of two decimal types numerically.
pub fn cmp(a: Decimal, ta: DecimalType, b: Decimal, tb: DecimalType) -> Ordering {
    if ta.scale == tb.scale {
        return a.0.cmp(&b.0);
    }
    let s = ta.scale.max(tb.scale);
    match (rescale(a.0, ta.scale, s), rescale(b.0, tb.scale, s)) {
        (Some(x), Some(y)) => x.cmp(&y),
        // Overflow while aligning means the magnitude of that side is larger.
        (None, _) => {
            if a.0 < 0 {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (_, None) => {
            if b.0 < 0 {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

/// A decimal number in text, split into sign, significant digits and exponent.
#[derive(Debug)]
pub(crate) struct ParsedNumber<'a> {
    negative: bool,
    /// Integer-part digits followed by fraction digits (may have leading zeros).
    int_digits: &'a [u8],
    frac_digits: &'a [u8],
    exponent: i64,
}

impl<'a> ParsedNumber<'a> {
    /// `BigDecimal(String)` syntax: sign? digits? ('.' digits?)? ([eE] sign? digits)?
    /// with at least one digit in the mantissa.
    pub(crate) fn parse(text: &'a [u8]) -> Result<Self, ()> {
        let mut i = 0;
        let mut negative = false;
        if let Some(&c) = text.first() {
            if c == b'-' || c == b'+' {
                negative = c == b'-';
                i = 1;
            }
        }
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        let int_digits = &text[start..i];
        let mut frac_digits: &[u8] = &[];
        if i < text.len() && text[i] == b'.' {
            i += 1;
            let fs = i;
            while i < text.len() && text[i].is_ascii_digit() {
                i += 1;
            }
            frac_digits = &text[fs..i];
        }
        if int_digits.is_empty() && frac_digits.is_empty() {
            return Err(());
        }
        let mut exponent: i64 = 0;
        if i < text.len() && (text[i] == b'e' || text[i] == b'E') {
            i += 1;
            let mut eneg = false;
            if i < text.len() && (text[i] == b'-' || text[i] == b'+') {
                eneg = text[i] == b'-';
                i += 1;
            }
            let es = i;
            while i < text.len() && text[i].is_ascii_digit() {
                exponent = exponent
                    .saturating_mul(10)
                    .saturating_add((text[i] - b'0') as i64);
                i += 1;
            }
            if es == i {
                return Err(());
            }
            if eneg {
                exponent = -exponent;
            }
        }
        if i != text.len() {
            return Err(());
        }
        Ok(ParsedNumber {
            negative,
            int_digits,
            frac_digits,
            exponent,
        })
    }

    /// The value times 10^scale, rounded HALF_UP; `None` if beyond 38 digits.
    pub(crate) fn to_unscaled(&self, scale: i32) -> Option<i128> {
        // value = D * 10^e where D is int_digits ++ frac_digits.
        let e = self.exponent.saturating_sub(self.frac_digits.len() as i64);
        let k = e.saturating_add(scale as i64);
        let digits = self
            .int_digits
            .iter()
            .chain(self.frac_digits.iter())
            .copied();
        let total = self.int_digits.len() + self.frac_digits.len();
        let mut acc: i128 = 0;
        if k >= 0 {
            for d in digits {
                acc = acc.checked_mul(10)?.checked_add((d - b'0') as i128)?;
            }
            if acc != 0 {
                if k > 38 {
                    return None;
                }
                acc = acc.checked_mul(POW10[k as usize])?;
            }
        } else {
            if -k > total as i64 {
                // Every digit is below the rounding position: |value| < 0.1 ulp.
                return Some(0);
            }
            let keep = total - (-k) as usize;
            let mut round_digit = 0u8;
            for (idx, d) in digits.enumerate() {
                if idx < keep {
                    acc = acc.checked_mul(10)?.checked_add((d - b'0') as i128)?;
                } else {
                    if idx == keep {
                        round_digit = d - b'0';
                    }
                    break;
                }
            }
            if round_digit >= 5 {
                acc = acc.checked_add(1)?;
            }
        }
        Some(if self.negative { -acc } else { acc })
    }
}

/// Writes `u * 10^-scale` as `<u>e-<scale>` (for float parsing).
fn write_unscaled_exp(buf: &mut [u8; 64], u: i128, scale: u8) -> usize {
    let mut b = itoa::Buffer::new();
    let s = b.format(u).as_bytes();
    let mut n = s.len();
    buf[..n].copy_from_slice(s);
    buf[n] = b'e';
    buf[n + 1] = b'-';
    n += 2;
    let e = b.format(scale).as_bytes();
    buf[n..n + e.len()].copy_from_slice(e);
    n + e.len()
}

/// `BigDecimal.toPlainString()` of unscaled `u` and `scale` (may be negative).
fn write_plain(out: &mut Vec<u8>, u: i128, scale: i32) {
    let mut b = itoa::Buffer::new();
    let digits = b.format(u.unsigned_abs()).as_bytes();
    if u < 0 {
        out.push(b'-');
    }
    if scale <= 0 {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(b'0', (-scale) as usize));
        return;
    }
    let s = scale as usize;
    if digits.len() > s {
        out.extend_from_slice(&digits[..digits.len() - s]);
        out.push(b'.');
        out.extend_from_slice(&digits[digits.len() - s..]);
    } else {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', s - digits.len()));
        out.extend_from_slice(digits);
    }
}

/// `BigDecimal.toString()`: plain when scale ≥ 0 and the adjusted exponent ≥ -6,
/// otherwise `d.dddE±n`.
fn write_java(out: &mut Vec<u8>, u: i128, scale: i32) {
    let mut b = itoa::Buffer::new();
    let digits = b.format(u.unsigned_abs()).as_bytes();
    let adjusted = -(scale as i64) + (digits.len() as i64 - 1);
    if scale >= 0 && adjusted >= -6 {
        write_plain(out, u, scale);
        return;
    }
    if u < 0 {
        out.push(b'-');
    }
    out.push(digits[0]);
    if digits.len() > 1 {
        out.push(b'.');
        out.extend_from_slice(&digits[1..]);
    }
    out.push(b'E');
    if adjusted >= 0 {
        out.push(b'+');
    }
    let mut e = itoa::Buffer::new();
    out.extend_from_slice(e.format(adjusted).as_bytes());
}

/// 256-bit fallbacks for intermediates that overflow i128 (rare: only when
/// operands use most of the 38 digits).
mod wide {
    use super::{DecimalType, POW10};

    /// Unsigned 256-bit integer as (high, low).
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    struct U256(u128, u128);

    impl U256 {
        fn from(v: u128) -> Self {
            U256(0, v)
        }
        fn mul_u128(a: u128, b: u128) -> Self {
            let (a1, a0) = (a >> 64, a & u64::MAX as u128);
            let (b1, b0) = (b >> 64, b & u64::MAX as u128);
            let p00 = a0 * b0;
            let p01 = a0 * b1;
            let p10 = a1 * b0;
            let p11 = a1 * b1;
            let mid = (p00 >> 64) + (p01 & u64::MAX as u128) + (p10 & u64::MAX as u128);
            let lo = (p00 & u64::MAX as u128) | (mid << 64);
            let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
            U256(hi, lo)
        }
        fn mul(self, m: u128) -> Option<Self> {
            let lo = Self::mul_u128(self.1, m);
            let hi = Self::mul_u128(self.0, m);
            if hi.0 != 0 {
                return None;
            }
            let (h, c) = hi.1.overflowing_add(lo.0);
            if c {
                return None;
            }
            Some(U256(h, lo.1))
        }
        fn add(self, o: Self) -> Option<Self> {
            let (lo, c) = self.1.overflowing_add(o.1);
            let hi = self.0.checked_add(o.0)?.checked_add(c as u128)?;
            Some(U256(hi, lo))
        }
        fn sub(self, o: Self) -> Self {
            let (lo, b) = self.1.overflowing_sub(o.1);
            U256(self.0.wrapping_sub(o.0).wrapping_sub(b as u128), lo)
        }
        fn shl1(self) -> Self {
            U256((self.0 << 1) | (self.1 >> 127), self.1 << 1)
        }
        fn bit(self, i: u32) -> bool {
            if i >= 128 {
                (self.0 >> (i - 128)) & 1 == 1
            } else {
                (self.1 >> i) & 1 == 1
            }
        }
        /// (self / d, self % d) by binary long division.
        fn div_rem(self, d: Self) -> (Self, Self) {
            let mut q = U256(0, 0);
            let mut r = U256(0, 0);
            for i in (0..256).rev() {
                r = r.shl1();
                if self.bit(i) {
                    r.1 |= 1;
                }
                if r >= d {
                    r = r.sub(d);
                    if i >= 128 {
                        q.0 |= 1 << (i - 128);
                    } else {
                        q.1 |= 1 << i;
                    }
                }
            }
            (q, r)
        }
        /// Rounds self / d HALF_UP.
        fn div_half_up(self, d: Self) -> Self {
            let (q, r) = self.div_rem(d);
            let twice = r.shl1();
            if r.0 >> 127 == 1 || twice >= d {
                q.add(U256::from(1)).unwrap_or(q)
            } else {
                q
            }
        }
        fn to_i128(self, negative: bool) -> Option<i128> {
            if self.0 != 0 || self.1 > i128::MAX as u128 {
                return None;
            }
            let v = self.1 as i128;
            Some(if negative { -v } else { v })
        }
    }

    /// Scales |v| by 10^k, k may exceed 38.
    fn scale_up(v: U256, k: u32) -> Option<U256> {
        let mut v = v;
        let mut k = k;
        while k > 0 {
            let step = k.min(38);
            v = v.mul(POW10[step as usize] as u128)?;
            k -= step;
        }
        Some(v)
    }

    fn pow10_wide(k: u32) -> Option<U256> {
        scale_up(U256::from(1), k)
    }

    fn finish(
        mag: U256,
        negative: bool,
        from_scale: u32,
        tr: DecimalType,
    ) -> Option<super::Decimal> {
        let to = tr.scale as u32;
        let mag = if from_scale > to {
            mag.div_half_up(pow10_wide(from_scale - to)?)
        } else {
            scale_up(mag, to - from_scale)?
        };
        mag.to_i128(negative).and_then(|v| tr.checked(v))
    }

    pub(super) fn add_rescale(
        a: i128,
        sa: u8,
        b: i128,
        sb: u8,
        tr: DecimalType,
    ) -> Option<super::Decimal> {
        let s = sa.max(sb) as u32;
        let x = scale_up(U256::from(a.unsigned_abs()), s - sa as u32)?;
        let y = scale_up(U256::from(b.unsigned_abs()), s - sb as u32)?;
        let (mag, neg) = match ((a < 0), (b < 0)) {
            (false, false) => (x.add(y)?, false),
            (true, true) => (x.add(y)?, true),
            (an, _) => {
                if x >= y {
                    (x.sub(y), an)
                } else {
                    (y.sub(x), !an)
                }
            }
        };
        finish(mag, neg, s, tr)
    }

    pub(super) fn mul_rescale(a: i128, b: i128, s: u32, tr: DecimalType) -> Option<super::Decimal> {
        let mag = U256::mul_u128(a.unsigned_abs(), b.unsigned_abs());
        finish(mag, (a < 0) != (b < 0), s, tr)
    }

    /// round(a * 10^up / (b * 10^down)) HALF_UP.
    pub(super) fn div_rescale(
        a: i128,
        up: u32,
        down: u32,
        b: i128,
        tr: DecimalType,
    ) -> Option<super::Decimal> {
        let n = scale_up(U256::from(a.unsigned_abs()), up)?;
        let d = scale_up(U256::from(b.unsigned_abs()), down)?;
        let q = n.div_half_up(d);
        q.to_i128((a < 0) != (b < 0)).and_then(|v| tr.checked(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: fn(DecimalType, Decimal, &mut Vec<u8>), t: DecimalType, v: i128) -> String {
        let mut out = Vec::new();
        f(t, Decimal(v), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn parse_rounds_half_up_and_overflows_to_null() {
        let t = DecimalType::new(10, 2);
        let cases: &[(&str, Result<Option<i128>, DecimalError>)] = &[
            ("351.8", Ok(Some(35180))),
            ("1.005", Ok(Some(101))),
            ("-1.005", Ok(Some(-101))),
            ("1.004999", Ok(Some(100))),
            ("+.5", Ok(Some(50))),
            ("5.", Ok(Some(500))),
            ("1E+2", Ok(Some(10000))),
            ("1e-3", Ok(Some(0))),
            ("5e-3", Ok(Some(1))),
            ("99999999.99", Ok(Some(9999999999))),
            ("99999999.995", Ok(None)),
            ("123456789012345678901234567890", Ok(None)),
            (
                "0.000000000000000000000000000000000000000000001",
                Ok(Some(0)),
            ),
            ("", Err(DecimalError::Syntax)),
            ("abc", Err(DecimalError::Syntax)),
            ("1.2.3", Err(DecimalError::Syntax)),
            ("1e", Err(DecimalError::Syntax)),
            (".", Err(DecimalError::Syntax)),
            (" 1", Err(DecimalError::Syntax)),
        ];
        for (text, want) in cases {
            assert_eq!(
                t.parse(text.as_bytes()).map(|o| o.map(|d| d.0)),
                *want,
                "{text}"
            );
        }
    }

    #[test]
    fn formats_like_java_big_decimal() {
        let t2 = DecimalType::new(10, 2);
        assert_eq!(fmt(DecimalType::write_stripped, t2, 35180), "351.8");
        assert_eq!(fmt(DecimalType::write_stripped, t2, 0), "0");
        assert_eq!(fmt(DecimalType::write_stripped, t2, 10000), "1E+2");
        assert_eq!(fmt(DecimalType::write_stripped, t2, -50), "-0.5");
        assert_eq!(fmt(DecimalType::write_stripped, t2, 1), "0.01");
        assert_eq!(fmt(DecimalType::write_plain, t2, 1), "0.01");
        assert_eq!(fmt(DecimalType::write_plain, t2, -10000), "-100.00");
        assert_eq!(fmt(DecimalType::write_java, t2, 10000), "100.00");
        let t10 = DecimalType::new(38, 10);
        assert_eq!(fmt(DecimalType::write_java, t10, 1000), "1.000E-7");
        assert_eq!(fmt(DecimalType::write_stripped, t10, 1000), "1E-7");
        assert_eq!(fmt(DecimalType::write_stripped, t10, 10000), "0.000001");
        assert_eq!(
            fmt(
                DecimalType::write_stripped_plain,
                DecimalType::new(5, 0),
                100
            ),
            "100"
        );
    }

    #[test]
    fn arithmetic_rounds_and_overflows() {
        let t = DecimalType::new(10, 2);
        let r = DecimalType::new(21, 4);
        assert_eq!(
            mul(Decimal(150), t, Decimal(-250), t, r),
            Some(Decimal(-37500))
        );
        let q = DecimalType::new(23, 13);
        assert_eq!(
            div(Decimal(100), t, Decimal(300), t, q),
            Ok(Some(Decimal(3333333333333)))
        );
        assert_eq!(
            div(Decimal(200), t, Decimal(300), t, DecimalType::new(10, 2)),
            Ok(Some(Decimal(67)))
        );
        assert_eq!(
            div(Decimal(1), t, Decimal(0), t, q),
            Err(DecimalError::DivisionByZero)
        );
        let big = DecimalType::new(38, 0);
        let max = pow10(38) - 1;
        assert_eq!(add(Decimal(max), big, Decimal(1), big, big), None);
        assert_eq!(
            add(Decimal(max), big, Decimal(-1), big, big),
            Some(Decimal(max - 1))
        );
        // Intermediate overflow in alignment, result representable after rounding.
        let frac = DecimalType::new(38, 38);
        let r = DecimalType::new(38, 0);
        assert_eq!(
            add(Decimal(5), big, Decimal(pow10(37) * 6), frac, r),
            Some(Decimal(6))
        );
        assert_eq!(mul(Decimal(max), big, Decimal(max), big, big), None);
        let wide_r = DecimalType::new(38, 2);
        assert_eq!(
            mul(
                Decimal(pow10(20)),
                DecimalType::new(38, 20),
                Decimal(pow10(20) * 3),
                DecimalType::new(38, 20),
                wide_r
            ),
            Some(Decimal(300))
        );
        assert_eq!(
            rem(Decimal(-750), t, Decimal(200), t, t),
            Ok(Some(Decimal(-150)))
        );
    }

    /// Property: wide-path arithmetic agrees with the i128 fast path where both apply.
    #[test]
    fn wide_paths_agree_with_fast_paths() {
        let mut rng = crate::util::SplitMix64::new(42);
        for _ in 0..20_000 {
            let a = (rng.next() as i64 as i128) % pow10(15);
            let b = (rng.next() as i64 as i128) % pow10(15);
            let (sa, sb) = ((rng.next() % 8) as u8, (rng.next() % 8) as u8);
            let tr = DecimalType::new(38, (rng.next() % 10) as u8);
            let fast = add(
                Decimal(a),
                DecimalType::new(38, sa),
                Decimal(b),
                DecimalType::new(38, sb),
                tr,
            );
            assert_eq!(
                fast,
                wide::add_rescale(a, sa, b, sb, tr),
                "{a} {sa} + {b} {sb}"
            );
            let fast = mul(
                Decimal(a),
                DecimalType::new(38, sa),
                Decimal(b),
                DecimalType::new(38, sb),
                tr,
            );
            assert_eq!(
                fast,
                wide::mul_rescale(a, b, (sa + sb) as u32, tr),
                "{a} * {b}"
            );
            if b != 0 {
                let shift = tr.scale as i32 - sa as i32 + sb as i32;
                let fast = div(
                    Decimal(a),
                    DecimalType::new(38, sa),
                    Decimal(b),
                    DecimalType::new(38, sb),
                    tr,
                )
                .unwrap();
                let slow = if shift >= 0 {
                    wide::div_rescale(a, shift as u32, 0, b, tr)
                } else {
                    wide::div_rescale(a, 0, (-shift) as u32, b, tr)
                };
                assert_eq!(fast, slow, "{a} / {b}");
            }
            // parse(format(x)) == x
            let t = DecimalType::new(38, sa);
            let mut out = Vec::new();
            t.write_plain(Decimal(a), &mut out);
            assert_eq!(t.parse(&out), Ok(Some(Decimal(a))));
            out.clear();
            t.write_stripped(Decimal(a), &mut out);
            assert_eq!(
                t.parse(&out),
                Ok(Some(Decimal(a))),
                "{}",
                String::from_utf8_lossy(&out)
            );
        }
    }

    #[test]
    fn conversions() {
        let t = DecimalType::new(10, 2);
        assert_eq!(t.from_f64(1.005), Some(Decimal(101)));
        assert_eq!(t.from_f64(0.1 + 0.2), Some(Decimal(30)));
        assert_eq!(t.from_f64(f64::NAN), None);
        assert_eq!(t.to_f64(Decimal(35180)), 351.8);
        assert_eq!(t.to_i64(Decimal(-35180)), -351);
        assert_eq!(t.from_i64(99_999_999), Some(Decimal(9_999_999_900)));
        assert_eq!(t.from_i64(100_000_000), None);
        assert_eq!(
            DecimalType::new(5, 0).cast_from(Decimal(12345), t),
            Some(Decimal(123))
        );
        assert_eq!(
            cmp(Decimal(10), DecimalType::new(5, 1), Decimal(100), t),
            Ordering::Equal
        );
    }
}
