//! Literals: numbers, strings, booleans, NULL, `DATE '...'`, `TIMESTAMP '...'`,
//! `INTERVAL '...' unit`, typed as Flink types them (`'abc'` is
//! `CHAR(3) NOT NULL`, `1.50` is `DECIMAL(3, 2) NOT NULL`).

use sqlparser::ast::{self as sql, DateTimeField, Value};

use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Expr, ExprKind, Literal};
use crate::types::{DataType, TypeKind};
use crate::typing;

type BResult<T> = Result<T, Diagnostic>;

fn literal(value: Literal, ty: DataType, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Literal(value),
        ty,
        span,
    }
}

pub(crate) fn value(value: &Value, span: Span) -> BResult<Expr> {
    match value {
        Value::Number(text, _) => number(text, span),
        Value::SingleQuotedString(s) => Ok(string(s, span)),
        Value::Boolean(b) => Ok(literal(
            Literal::Boolean(*b),
            DataType::not_null(TypeKind::Boolean),
            span,
        )),
        Value::Null => Ok(literal(Literal::Null, DataType::null(), span)),
        Value::DoubleQuotedString(s) => Err(Diagnostic::error(
            span,
            format!("\"{s}\": double quotes are not Flink SQL"),
        )
        .with_help(format!(
            "quote identifiers with backticks (`{s}`) and strings with single quotes ('{s}')"
        ))),
        other => Err(Diagnostic::unsupported(
            span,
            &format!("the literal {other}"),
        )),
    }
}

pub(crate) fn string(s: &str, span: Span) -> Expr {
    let len = s.chars().count() as u32;
    literal(
        Literal::String(s.to_string()),
        DataType::not_null(TypeKind::Char(len)),
        span,
    )
}

fn number(text: &str, span: Span) -> BResult<Expr> {
    let ty = typing::numeric_literal_type(text).map_err(|m| Diagnostic::error(span, m))?;
    let value = match ty.kind {
        k if k.is_integer() => Literal::Integer(text.parse().map_err(|_| {
            Diagnostic::error(span, format!("numeric literal {text} is out of range"))
        })?),
        TypeKind::Decimal { .. } => Literal::Decimal(text.to_string()),
        TypeKind::Double | TypeKind::Float => Literal::Double(
            text.parse::<f64>()
                .map_err(|_| Diagnostic::error(span, format!("invalid numeric literal {text}")))?
                .to_bits(),
        ),
        _ => {
            return Err(Diagnostic::error(
                span,
                format!("invalid numeric literal {text}"),
            ))
        }
    };
    Ok(literal(value, ty, span))
}

/// Folds `-literal` into a literal of type `ty`, if `e` is a numeric literal.
pub(crate) fn negate_literal(e: &Expr, ty: DataType, span: Span) -> Option<Expr> {
    let value = match &e.kind {
        ExprKind::Literal(Literal::Integer(i)) => Literal::Integer(i.checked_neg()?),
        ExprKind::Literal(Literal::Decimal(d)) => Literal::Decimal(match d.strip_prefix('-') {
            Some(positive) => positive.to_string(),
            None => format!("-{d}"),
        }),
        ExprKind::Literal(Literal::Double(bits)) => {
            Literal::Double((-f64::from_bits(*bits)).to_bits())
        }
        _ => return None,
    };
    // `-2147483648` is INT in Flink: the literal 2147483648 is BIGINT, but its negation fits.
    let ty = match (&value, ty.kind) {
        (Literal::Integer(i), TypeKind::BigInt)
            if i32::try_from(*i).is_ok() && *i == i64::from(i32::MIN) =>
        {
            DataType::not_null(TypeKind::Int)
        }
        _ => ty,
    };
    Some(literal(value, ty, span))
}

/// `DATE '2024-01-05'`, `TIME '12:00:00'`, `TIMESTAMP '2024-01-05 12:00:00.123'`.
pub(crate) fn typed_string(data_type: &sql::DataType, value: &Value, span: Span) -> BResult<Expr> {
    let Value::SingleQuotedString(text) = value else {
        return Err(Diagnostic::error(
            span,
            "a typed literal needs a quoted string",
        ));
    };
    let kind = crate::types::from_sql(data_type).map_err(|m| Diagnostic::error(span, m))?;
    let bad = |what: &str| Diagnostic::error(span, format!("invalid {what} literal '{text}'"));
    match kind {
        TypeKind::Date => {
            let days = parse_date(text.trim()).ok_or_else(|| bad("DATE"))?;
            Ok(literal(
                Literal::Date(days),
                DataType::not_null(TypeKind::Date),
                span,
            ))
        }
        TypeKind::Time(_) => {
            let (nanos, digits) = parse_time(text.trim()).ok_or_else(|| bad("TIME"))?;
            Ok(literal(
                Literal::Time(nanos),
                DataType::not_null(TypeKind::Time(digits.min(3))),
                span,
            ))
        }
        TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => {
            let (seconds, nanos, digits) =
                parse_timestamp(text.trim()).ok_or_else(|| bad("TIMESTAMP"))?;
            let precision = digits.max(if digits == 0 { 0 } else { 3 });
            let kind = match kind {
                TypeKind::TimestampLtz(_) => TypeKind::TimestampLtz(precision),
                _ => TypeKind::Timestamp(precision),
            };
            Ok(literal(
                Literal::Timestamp { seconds, nanos },
                DataType::not_null(kind),
                span,
            ))
        }
        other => Err(Diagnostic::unsupported(
            span,
            &format!("a typed literal of type {other}"),
        )),
    }
}

/// `INTERVAL '1' HOUR`, `INTERVAL '1:30' HOUR TO MINUTE`, `INTERVAL '1-2' YEAR TO MONTH`.
pub(crate) fn interval(interval: &sql::Interval, span: Span) -> BResult<Expr> {
    let text = match interval.value.as_ref() {
        sql::Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.clone(),
            Value::Number(n, _) => n.clone(),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "an INTERVAL needs a quoted value, like INTERVAL '1' HOUR",
                ))
            }
        },
        _ => {
            return Err(Diagnostic::error(
                span,
                "an INTERVAL needs a quoted value, like INTERVAL '1' HOUR",
            ))
        }
    };
    let Some(leading) = &interval.leading_field else {
        return Err(Diagnostic::error(
            span,
            "an INTERVAL needs a unit, like INTERVAL '1' HOUR",
        ));
    };
    let bad = || {
        Diagnostic::error(
            span,
            format!("invalid INTERVAL value '{text}' for the unit {leading}"),
        )
    };
    let (negative, body) = match text.trim().strip_prefix('-') {
        Some(rest) => (true, rest.trim()),
        None => (false, text.trim().strip_prefix('+').unwrap_or(text.trim())),
    };
    let sign = if negative { -1 } else { 1 };
    use DateTimeField as F;
    let month_unit = |f: &F| match f {
        F::Year | F::Years => Some(12),
        F::Month | F::Months => Some(1),
        _ => None,
    };
    if let Some(months_per) = month_unit(leading) {
        let months = match (&interval.last_field, body.split_once('-')) {
            (Some(F::Month | F::Months), Some((y, m))) if months_per == 12 => {
                let y: i32 = y.parse().map_err(|_| bad())?;
                let m: i32 = m.parse().map_err(|_| bad())?;
                y.checked_mul(12)
                    .and_then(|y| y.checked_add(m))
                    .ok_or_else(bad)?
            }
            (None, None) => body
                .parse::<i32>()
                .ok()
                .and_then(|v| v.checked_mul(months_per))
                .ok_or_else(bad)?,
            _ => return Err(bad()),
        };
        return Ok(literal(
            Literal::IntervalMonths(sign * months),
            DataType::not_null(TypeKind::IntervalYearMonth),
            span,
        ));
    }
    let millis_of = |f: &F| -> Option<i64> {
        Some(match f {
            F::Day | F::Days => 86_400_000,
            F::Hour | F::Hours => 3_600_000,
            F::Minute | F::Minutes => 60_000,
            F::Second | F::Seconds => 1_000,
            _ => return None,
        })
    };
    let lead = millis_of(leading)
        .ok_or_else(|| Diagnostic::unsupported(span, &format!("INTERVAL unit {leading}")))?;
    let millis = match &interval.last_field {
        None => {
            if lead == 1_000 {
                let seconds: f64 = body.parse().map_err(|_| bad())?;
                (seconds * 1000.0).round() as i64
            } else {
                body.parse::<i64>()
                    .ok()
                    .and_then(|v| v.checked_mul(lead))
                    .ok_or_else(bad)?
            }
        }
        Some(last) => {
            let last = millis_of(last).ok_or_else(bad)?;
            // `D HH:MM:SS.fff` with the parts from `leading` down to `last`.
            let mut parts: Vec<&str> = Vec::new();
            let (day, rest) = if lead == 86_400_000 {
                match body.split_once(' ') {
                    Some((d, r)) => (Some(d), r),
                    None => (Some(body), ""),
                }
            } else {
                (None, body)
            };
            if let Some(d) = day {
                parts.push(d);
            }
            if !rest.is_empty() {
                parts.extend(rest.split(':'));
            }
            let units: Vec<i64> = [86_400_000, 3_600_000, 60_000, 1_000]
                .into_iter()
                .filter(|&u| u <= lead && u >= last)
                .collect();
            if parts.len() != units.len() {
                return Err(bad());
            }
            let mut total = 0i64;
            for (part, unit) in parts.iter().zip(units) {
                let v = if unit == 1_000 {
                    (part.parse::<f64>().map_err(|_| bad())? * 1000.0).round() as i64
                } else {
                    part.parse::<i64>().map_err(|_| bad())? * unit
                };
                total = total.checked_add(v).ok_or_else(bad)?;
            }
            total
        }
    };
    Ok(literal(
        Literal::IntervalMillis(i64::from(sign) * millis),
        DataType::not_null(TypeKind::IntervalDayTime),
        span,
    ))
}

/// Days since 1970-01-01 of `YYYY-MM-DD` (years 0001-9999).
pub(crate) fn parse_date(text: &str) -> Option<i32> {
    let mut it = text.splitn(3, '-');
    let y: i32 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok()?;
    let d: u32 = it.next()?.parse().ok()?;
    if !(1..=9999).contains(&y) || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Howard Hinnant's days-from-civil algorithm.
fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = (y - era * 400) as u32;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe as i32 - 719_468
}

/// Nanoseconds since midnight of `HH:MM[:SS[.fffffffff]]`, and the number of fractional digits.
pub(crate) fn parse_time(text: &str) -> Option<(i64, u8)> {
    let (hms, frac) = match text.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let mut it = hms.split(':');
    let h: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let s: i64 = match it.next() {
        Some(s) => s.parse().ok()?,
        None => 0,
    };
    if it.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&m)
        || !(0..60).contains(&s)
    {
        return None;
    }
    let (nanos, digits) = match frac {
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
            let padded = format!("{f:0<9}");
            (padded.parse::<i64>().ok()?, f.len() as u8)
        }
        Some(_) => return None,
        None => (0, 0),
    };
    Some((((h * 60 + m) * 60 + s) * 1_000_000_000 + nanos, digits))
}

/// Seconds since the epoch, nanoseconds, and fractional digits of `YYYY-MM-DD[ HH:MM:SS[.f]]`.
pub(crate) fn parse_timestamp(text: &str) -> Option<(i64, u32, u8)> {
    let (date, time) = match text.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let days = i64::from(parse_date(date)?);
    let (nanos_of_day, digits) = match time {
        Some(t) => parse_time(t)?,
        None => (0, 0),
    };
    let seconds = days * 86_400 + nanos_of_day / 1_000_000_000;
    Some((seconds, (nanos_of_day % 1_000_000_000) as u32, digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dates_and_timestamps() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2024-02-29"), Some(19_782));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(
            parse_timestamp("1970-01-02 00:00:01.5"),
            Some((86_401, 500_000_000, 1))
        );
        assert_eq!(parse_time("25:00:00"), None);
    }
}
