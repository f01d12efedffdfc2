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

/// ROUND(double, n) HALF_UP on the double's exact decimal expansion
/// (`BigDecimal(double).setScale(n, HALF_UP)` as Flink does).
pub fn round_f64(v: f64, n: i32) -> f64 {
    if !v.is_finite() {
        return v;
    }
    // Use the shortest repr (what Java's BigDecimal.valueOf would see): `1.235`
    // rounds to 1.24 rather than the binary 1.2349999...
    let t = DecimalType::new(38, (n.clamp(0, 18)) as u8);
    if n >= 0 && v.abs() < 1e18 {
        if let Some(d) = t.from_f64(v) {
            return t.to_f64(d);
        }
    }
    let f = 10f64.powi(n);
    // `+ 0.0` turns -0.0 into 0.0: Flink rounds through BigDecimal, which has no -0.
    (v * f).round() / f + 0.0
}

/// TRUNCATE(double, n).
pub fn truncate_f64(v: f64, n: i32) -> f64 {
    let f = 10f64.powi(n);
    // Flink: TRUNCATE(-0.5) is 0.0, not -0.0 (BigDecimal has no negative zero).
    (v * f).trunc() / f + 0.0
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
        assert!(truncate_f64(-0.5, 0).is_sign_positive());
        assert_eq!(truncate_i64(-9000000000, -3), -9000000000);
    }
}
