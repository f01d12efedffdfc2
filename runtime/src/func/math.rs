//! Math functions. Integer arithmetic wraps like Java (Flink does not check
//! INT overflow: `2147483647 + 1` is `-2147483648`); integer division
//! truncates toward zero and division by zero is an error; DECIMAL rounding
//! is HALF_UP; DOUBLE rounding goes through the decimal value, as Flink's
//! `ROUND(double, n)` uses `BigDecimal` with HALF_UP.

use crate::value::decimal::{pow10, Decimal, DecimalType};

/// `a / b` for integers: truncating; `None` on division by zero (the caller
/// raises Flink's error).
#[inline]
pub fn int_div<T: num_like::Int>(a: T, b: T) -> Option<T> {
    a.checked_div_wrapping(b)
}

/// `MOD(a, b)` / `a % b` for integers (sign of the dividend).
#[inline]
pub fn int_mod<T: num_like::Int>(a: T, b: T) -> Option<T> {
    a.checked_rem_wrapping(b)
}

/// Minimal integer abstraction so the helpers work for TINYINT..BIGINT.
pub mod num_like {
    pub trait Int: Copy {
        fn checked_div_wrapping(self, b: Self) -> Option<Self>;
        fn checked_rem_wrapping(self, b: Self) -> Option<Self>;
    }
    macro_rules! int {
        ($($t:ty),*) => {$(
            impl Int for $t {
                #[inline]
                fn checked_div_wrapping(self, b: Self) -> Option<Self> {
                    (b != 0).then(|| self.wrapping_div(b))
                }
                #[inline]
                fn checked_rem_wrapping(self, b: Self) -> Option<Self> {
                    (b != 0).then(|| self.wrapping_rem(b))
                }
            }
        )*};
    }
    int!(i8, i16, i32, i64);
}

/// ROUND(integer, n): HALF_UP to `n` decimal digits; only a negative `n`
/// changes the value (`ROUND(125, -1)` = 130). Wraps like Java on overflow.
pub fn round_i64(v: i64, n: i32) -> i64 {
    if n >= 0 {
        return v;
    }
    if n < -18 {
        return 0;
    }
    let unit = 10i128.pow((-n) as u32);
    (crate::value::decimal::div_half_up(v as i128, unit) * unit) as i64
}

/// TRUNCATE(integer, n): toward zero to `n` decimal digits (`TRUNCATE(1234, -2)` = 1200).
pub fn truncate_i64(v: i64, n: i32) -> i64 {
    if n >= 0 {
        return v;
    }
    if n < -18 {
        return 0;
    }
    let unit = 10i64.pow((-n) as u32);
    v / unit * unit
}

/// ROUND(decimal, n) into the result type `tr` (Flink: scale min(s, max(n, 0))).
pub fn round_decimal(v: Decimal, t: DecimalType, n: i32, tr: DecimalType) -> Option<Decimal> {
    let s = t.scale as i32;
    let rounded = if n >= s {
        v.0
    } else {
        let drop = (s - n).min(38) as u32;
        let unit = pow10(drop);
        let q = crate::value::decimal::div_half_up(v.0, unit);
        q.checked_mul(unit)?
    };
    crate::value::decimal::rescale(rounded, t.scale, tr.scale).and_then(|u| tr.checked(u))
}

/// TRUNCATE(decimal, n): toward zero.
pub fn truncate_decimal(v: Decimal, t: DecimalType, n: i32, tr: DecimalType) -> Option<Decimal> {
    let s = t.scale as i32;
    let cut = if n >= s {
        v.0
    } else {
        let unit = pow10((s - n).min(38) as u32);
        (v.0 / unit) * unit
    };
    crate::value::decimal::rescale(cut, t.scale, tr.scale).and_then(|u| tr.checked(u))
}

/// FLOOR(decimal) → DECIMAL(p, 0).
pub fn floor_decimal(v: Decimal, t: DecimalType) -> Decimal {
    let unit = pow10(t.scale as u32);
    Decimal(v.0.div_euclid(unit))
}

/// CEIL(decimal) → DECIMAL(p, 0).
pub fn ceil_decimal(v: Decimal, t: DecimalType) -> Decimal {
    let unit = pow10(t.scale as u32);
    Decimal(-((-v.0).div_euclid(unit)))
}

/// ROUND(double, n): Flink's `SqlFunctionUtils.sround`, i.e.
/// `BigDecimal.valueOf(v).movePointRight(n).setScale(0, HALF_UP).movePointLeft(n)
/// .doubleValue()`: HALF_UP on the double's shortest decimal text (`1.005` → 1.01,
/// `2.675` → 2.68, where the binary values lie just below), so a value with n
/// decimals comes back unchanged. A FLOAT is widened to DOUBLE first, as Java
/// does (`ROUND(CAST(1.15 AS FLOAT), 1)` sees 1.149999976158142).
pub fn round_f64(v: f64, n: i32) -> f64 {
    decimal_places(v, n, true)
}

/// TRUNCATE(double, n) as Flink 2.3 runs it: the double becomes a
/// DECIMAL(38, 18) first (`BigDecimal.valueOf`, HALF_UP at 18 places), which
/// is cut to n places (toward zero) and read back as a double. So
/// `TRUNCATE(1.15, 2)` = 1.15 (never 1.14) and `TRUNCATE(1.5E-18, 18)` =
/// 2.0E-18. A value the DECIMAL cannot hold (|v| of 10^20 or more, NaN,
/// infinities) fails: Flink's generated code then dereferences a null
/// DECIMAL (a NullPointerException), or `BigDecimal.valueOf` rejects NaN.
pub fn truncate_f64(v: f64, n: i32) -> Result<f64, String> {
    let t = DecimalType::new(38, 18);
    let d = t.from_f64(v).ok_or_else(|| {
        let mut text = Vec::new();
        crate::text::number::write_f64(&mut text, v);
        format!(
            "TRUNCATE({}, {n}): Flink truncates a DOUBLE or FLOAT through DECIMAL(38, 18), \
             which cannot hold this value (Flink fails with a NullPointerException)",
            String::from_utf8_lossy(&text)
        )
    })?;
    let cut = if n >= 18 {
        d.0
    } else {
        let unit = pow10((18 - n).min(38) as u32);
        (d.0 / unit) * unit
    };
    Ok(t.to_f64(Decimal(cut)))
}

/// Keeps `n` decimal places (negative: rounds to tens, hundreds, ...) of
/// Java's decimal text of `v`, HALF_UP or toward zero, then reads the result
/// back as a double. NaN and infinities stay (Java's `BigDecimal.valueOf` would
/// throw; Flink's generated code never reaches it with them in our probes), and
/// the result is never -0.0: a `BigDecimal` has no negative zero.
fn decimal_places(v: f64, n: i32, half_up: bool) -> f64 {
    if !v.is_finite() {
        return v;
    }
    if v == 0.0 {
        return 0.0;
    }
    // BigDecimal.valueOf: Java's Double.toString digits.
    let mut buf = Vec::with_capacity(32);
    crate::text::number::write_f64(&mut buf, v.abs());
    let text = std::str::from_utf8(&buf).unwrap_or("0");
    // text = mantissa [e exponent]; value = 0.<digits> * 10^point.
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int_part.bytes().chain(frac_part.bytes()).collect();
    let mut point = int_part.len() as i32 + exponent;
    let leading = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..leading);
    point -= leading as i32;
    // Digits kept: those before the point plus n after it.
    let keep = point.saturating_add(n);
    if keep >= digits.len() as i32 {
        return v + 0.0;
    }
    let round_up = half_up && keep >= 0 && digits[keep as usize] >= b'5';
    let mut kept: Vec<u8> = if keep > 0 {
        digits[..keep as usize].to_vec()
    } else {
        Vec::new()
    };
    if round_up {
        // Add one unit in the last kept place (which may be a new leading digit).
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, b'1');
                point += 1;
                break;
            }
            i -= 1;
            if kept[i] == b'9' {
                kept[i] = b'0';
            } else {
                kept[i] += 1;
                break;
            }
        }
        if keep <= 0 {
            // Nothing was kept: the unit is 10^-n itself.
            kept = vec![b'1'];
            point = 1 - n;
        }
    }
    if kept.is_empty() {
        return 0.0;
    }
    let mut out = String::with_capacity(kept.len() + 8);
    if v < 0.0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&kept).unwrap_or("0"));
    out.push('e');
    out.push_str(&(point - kept.len() as i32).to_string());
    out.parse::<f64>().map_or(v, |r| r + 0.0)
}

/// SIGN for doubles: -1.0, 0.0 or 1.0.
pub fn sign_f64(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        v
    }
}

/// SIGN(decimal) keeps the decimal type: -1, 0 or 1 at its scale.
pub fn sign_decimal(v: Decimal, t: DecimalType) -> Decimal {
    Decimal(v.0.signum() * pow10(t.scale as u32))
}

/// `MOD(decimal, decimal)` delegates to [`crate::value::decimal::rem`].
pub use crate::value::decimal::rem as mod_decimal;

/// POWER, SQRT, LN, LOG10, EXP: DOUBLE in, DOUBLE out (Java's `Math`).
pub fn power(a: f64, b: f64) -> f64 {
    a.powf(b)
}
pub fn sqrt(a: f64) -> f64 {
    a.sqrt()
}
pub fn ln(a: f64) -> f64 {
    a.ln()
}
pub fn log10(a: f64) -> f64 {
    a.log10()
}
pub fn exp(a: f64) -> f64 {
    a.exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        let t = DecimalType::new(4, 3);
        assert_eq!(
            round_decimal(Decimal(1235), t, 2, DecimalType::new(4, 2)),
            Some(Decimal(124))
        );
        assert_eq!(
            round_decimal(Decimal(-1235), t, 2, DecimalType::new(4, 2)),
            Some(Decimal(-124))
        );
        let t1 = DecimalType::new(2, 1);
        assert_eq!(
            round_decimal(Decimal(25), t1, 0, DecimalType::new(2, 0)),
            Some(Decimal(3))
        );
        assert_eq!(
            round_decimal(Decimal(-25), t1, 0, DecimalType::new(2, 0)),
            Some(Decimal(-3))
        );
        assert_eq!(
            truncate_decimal(Decimal(-1789), t, 1, DecimalType::new(4, 1)),
            Some(Decimal(-17))
        );
        assert_eq!(floor_decimal(Decimal(-27), t1), Decimal(-3));
        assert_eq!(ceil_decimal(Decimal(21), t1), Decimal(3));
        assert_eq!(round_f64(1.235, 2), 1.24);
        assert_eq!(round_f64(2.5, 0), 3.0);
        assert_eq!(round_f64(-2.5, 0), -3.0);
        assert_eq!(round_f64(1.005, 2), 1.01);
        assert_eq!(round_f64(9.995, 2), 10.0);
        assert_eq!(round_f64(0.5, 0), 1.0);
        assert_eq!(round_f64(0.04, 1), 0.0);
        assert_eq!(round_f64(0.05, 1), 0.1);
        assert_eq!(round_f64(125.0, -1), 130.0);
        assert_eq!(round_f64(4.0, -1), 0.0);
        assert_eq!(round_f64(5.0, -1), 10.0);
        assert_eq!(round_f64(1.5e10, -12), 0.0);
        assert_eq!(round_f64(1e308, 2), 1e308);
        assert_eq!(truncate_f64(1.15, 2).unwrap(), 1.15);
        assert_eq!(truncate_f64(4.35, 2).unwrap(), 4.35);
        assert_eq!(truncate_f64(-1.15, 1).unwrap(), -1.1);
        assert_eq!(truncate_f64(0.30000000000000004, 2).unwrap(), 0.3);
        assert_eq!(truncate_f64(123456789.125, 2).unwrap(), 123456789.12);
        assert_eq!(truncate_f64(1234.5678, -2).unwrap(), 1200.0);
        assert!(round_f64(-0.4, 0).is_sign_positive());
        assert!(truncate_f64(-0.0, 1).unwrap().is_sign_positive());
        // Through DECIMAL(38, 18), as Flink 2.3 computes (observed with its runner).
        assert_eq!(truncate_f64(1.5e-18, 18).unwrap(), 2.0e-18);
        assert_eq!(
            truncate_f64(1.2345678901234567e-5, 20).unwrap(),
            1.2345678901235e-5
        );
        assert_eq!(truncate_f64(9.9e19, 2).unwrap(), 9.9e19);
        assert!(truncate_f64(1.0e20, 2).is_err());
        assert!(truncate_f64(-1.0e20, 0).is_err());
        assert!(truncate_f64(f64::NAN, 0).is_err());
        assert_eq!(int_div(-7i32, 2), Some(-3));
        assert_eq!(int_mod(-7i32, 3), Some(-1));
        assert_eq!(int_div(1i32, 0), None);
        assert_eq!(int_div(i32::MIN, -1), Some(i32::MIN));
        // Flink: ROUND(125, -1) = 130, ROUND(1234, -2) = 1200, ROUND(-125, -1) = -130.
        assert_eq!(round_i64(125, -1), 130);
        assert_eq!(round_i64(1234, -2), 1200);
        assert_eq!(round_i64(-125, -1), -130);
        assert_eq!(round_i64(7, 2), 7);
        assert_eq!(truncate_i64(2147483647, -3), 2147483000);
        assert!(truncate_f64(-0.5, 0).unwrap().is_sign_positive());
        assert_eq!(truncate_i64(-9000000000, -3), -9000000000);
    }
}
