//! CAST and TRY_CAST between every pair of types the binder accepts.
//!
//! A conversion either always succeeds (`Total`), may give NULL (`Partial`:
//! DECIMAL overflow, as Flink), or may fail (`Fallible`: bad text). CAST turns
//! a failure into a job error with the runtime's message ("cannot cast 'abc'
//! to INT"); TRY_CAST turns it into NULL. A cast to CHAR(n) / VARCHAR(n) then
//! cuts the text to n characters, and CHAR(n) pads it with spaces: Flink
//! does both for explicit casts and for values written to such sink columns.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{decimal_type, null_of, unsupported, value_type, Gen, GenResult};
use crate::types::{DataType, TypeKind, MAX_LENGTH};

/// The generated conversion of a non-NULL value.
enum Conversion {
    /// Tokens of the target value.
    Total(TokenStream),
    /// Tokens of `Option<target>` (NULL on overflow).
    Partial(TokenStream),
    /// Tokens of `Result<target, rt::func::cast::CastError>`.
    Fallible(TokenStream),
    /// Tokens of `Result<Option<target>, CastError>` (string → DECIMAL).
    FallibleOrNull(TokenStream),
}

use Conversion::{Fallible, FallibleOrNull, Partial, Total};

impl Gen<'_> {
    /// Converts `value` (tokens of `Option<from>`) to `Option<to>`.
    pub(crate) fn cast(
        &mut self,
        value: TokenStream,
        from: &DataType,
        to: &DataType,
        try_cast: bool,
    ) -> GenResult {
        if from.kind == TypeKind::Null {
            // Only the untyped NULL literal has this type.
            let null = null_of(to);
            return Ok(quote!({ let _ = #value; #null }));
        }
        if from.kind == to.kind {
            return Ok(value);
        }
        let v = self.local();
        let conversion = conversion(&v, from.kind, to.kind).ok_or_else(|| {
            unsupported(format!(
                "{} from {} to {}",
                if try_cast { "TRY_CAST" } else { "CAST" },
                from.kind,
                to.kind
            ))
        })?;
        let converted = match conversion {
            Total(t) => quote!(Some(#t)),
            Partial(t) => t,
            Fallible(t) if try_cast => quote!(#t.ok()),
            Fallible(t) => quote!(Some(#t.map_err(|e| rt::Error::new(e.to_string()))?)),
            FallibleOrNull(t) if try_cast => quote!(#t.ok().flatten()),
            FallibleOrNull(t) => quote!(#t.map_err(|e| rt::Error::new(e.to_string()))?),
        };
        let converted = match fit_length(from.kind, to.kind) {
            Some(fit) => quote!(#converted.map(#fit)),
            None => converted,
        };
        Ok(quote!(match #value { Some(#v) => #converted, None => None }))
    }
}

/// `rt::func::string::cast_length(.., n, pad)` when a cast to a string type
/// may change the text's length.
fn fit_length(from: TypeKind, to: TypeKind) -> Option<TokenStream> {
    if from.is_binary() && to.is_binary() {
        return fit_bytes(from, to);
    }
    let source_length = match from {
        TypeKind::Char(n) | TypeKind::Varchar(n) => Some(n),
        _ => None,
    };
    let (n, pad) = match to {
        TypeKind::Varchar(MAX_LENGTH) => return None,
        TypeKind::Varchar(n) if source_length.is_some_and(|m| m <= n) => return None,
        TypeKind::Varchar(n) => (n, false),
        TypeKind::Char(_) if from == to => return None,
        TypeKind::Char(n) => (n, true),
        _ => return None,
    };
    Some(quote!(|s| rt::func::string::cast_length(String::from(s), #n, #pad)))
}

/// The same for BINARY(n) (cut, zero-padded) and VARBINARY(n) (cut), as
/// Flink's casts between binary types (observed: `X'0102030405'` into a
/// BINARY(3) column is `010203`, into BINARY(8) `0102030405000000`).
fn fit_bytes(from: TypeKind, to: TypeKind) -> Option<TokenStream> {
    let source_length = match from {
        TypeKind::Binary(n) | TypeKind::Varbinary(n) => n,
        _ => return None,
    };
    let (n, pad) = match to {
        TypeKind::Varbinary(MAX_LENGTH) => return None,
        TypeKind::Varbinary(n) if source_length <= n => return None,
        TypeKind::Varbinary(n) => (n, false),
        TypeKind::Binary(_) if from == to => return None,
        TypeKind::Binary(n) => (n, true),
        _ => return None,
    };
    Some(quote!(|b| rt::func::string::cast_bytes_length(b, #n, #pad)))
}

fn int_type(kind: TypeKind) -> Option<TokenStream> {
    Some(match kind {
        TypeKind::TinyInt => quote!(i8),
        TypeKind::SmallInt => quote!(i16),
        TypeKind::Int => quote!(i32),
        TypeKind::BigInt => quote!(i64),
        _ => return None,
    })
}

/// The conversion of the non-NULL value bound to `v` from `from` to `to`.
fn conversion(v: &Ident, from: TypeKind, to: TypeKind) -> Option<Conversion> {
    use TypeKind as K;
    let to_ty = DataType::not_null(to);
    let cast = quote!(rt::func::cast);
    Some(match (from, to) {
        // Same representation, nothing to do: CHAR/VARCHAR lengths are
        // handled by `fit_length`; TIME is millis whatever its precision.
        (f, t) if f.is_string() && t.is_string() => Total(quote!(#v)),
        (f, t) if f.is_binary() && t.is_binary() => Total(quote!(#v)),
        (K::Time(_), K::Time(_)) => Total(quote!(#v)),
        // The session time zone is UTC (the binder refuses any other
        // 'table.local-time-zone'), so a local timestamp and an instant share
        // their representation, and LTZ converts to and from text as
        // TIMESTAMP does.
        (K::Timestamp(p), K::TimestampLtz(q)) | (K::TimestampLtz(p), K::Timestamp(q)) => {
            return conversion(v, K::Timestamp(p), K::Timestamp(q));
        }
        (K::TimestampLtz(p), t) if t.is_string() => return conversion(v, K::Timestamp(p), t),
        (f, K::TimestampLtz(q)) if f.is_string() => return conversion(v, f, K::Timestamp(q)),
        (K::Timestamp(p), K::Timestamp(q)) | (K::TimestampLtz(p), K::TimestampLtz(q)) => {
            if q >= p {
                Total(quote!(#v))
            } else {
                Total(quote!(#v.truncate(#q)))
            }
        }

        // Integers: Java's primitive conversions (narrowing wraps).
        (f, t) if f.is_integer() && t.is_integer() => {
            let t = int_type(t)?;
            Total(quote!(#v as #t))
        }
        (f, K::Float | K::Double) if f.is_integer() => {
            let t = value_type(&to_ty);
            Total(quote!(#v as #t))
        }
        (f, K::Decimal { .. }) if f.is_integer() => {
            let t = decimal_type(&to_ty)?;
            Partial(quote!(#t.from_i64(#v as i64)))
        }
        (f, K::Boolean) if f.is_integer() => Total(quote!(#v != 0)),
        (f, t) if f.is_integer() && t.is_string() => Total(quote!(#cast::i64_to_string(#v as i64))),

        // FLOAT / DOUBLE.
        (K::Float, K::Double) => Total(quote!(#v as f64)),
        (K::Double, K::Float) => Total(quote!(#v as f32)),
        // Java's (long) / (int) of a double saturate; (short) and (byte) go
        // through int and then wrap.
        (K::Float | K::Double, K::BigInt) => Total(quote!(#v as i64)),
        (K::Float | K::Double, K::Int) => Total(quote!(#v as i32)),
        (K::Float | K::Double, t) if t.is_integer() => {
            let t = int_type(t)?;
            Total(quote!((#v as i32) as #t))
        }
        (K::Double, K::Decimal { .. }) => {
            let t = decimal_type(&to_ty)?;
            Partial(quote!(#t.from_f64(#v)))
        }
        (K::Float, K::Decimal { .. }) => {
            let t = decimal_type(&to_ty)?;
            Partial(quote!(#t.from_f32(#v)))
        }
        (K::Float | K::Double, K::Boolean) => Total(quote!(#v != 0.0)),
        (K::Double, t) if t.is_string() => Total(quote!(#cast::f64_to_string(#v))),
        (K::Float, t) if t.is_string() => Total(quote!(#cast::f32_to_string(#v))),

        // DECIMAL.
        (K::Decimal { .. }, _) => {
            let f = decimal_type(&DataType::not_null(from))?;
            match to {
                K::Decimal { .. } => {
                    let t = decimal_type(&to_ty)?;
                    Partial(quote!(#t.cast_from(#v, #f)))
                }
                // `BigDecimal.longValue()` then Java's narrowing: both wrap.
                t if t.is_integer() => {
                    let t = int_type(t)?;
                    Total(quote!(#f.to_i64(#v) as #t))
                }
                K::Double => Total(quote!(#f.to_f64(#v))),
                K::Float => Total(quote!(#f.to_f64(#v) as f32)),
                K::Boolean => Total(quote!(#v.0 != 0)),
                t if t.is_string() => Total(quote!(#cast::decimal_to_string(#v, #f))),
                _ => return None,
            }
        }

        // BOOLEAN.
        (K::Boolean, t) if t.is_integer() => {
            let t = int_type(t)?;
            Total(quote!(#v as #t))
        }
        (K::Boolean, K::Float | K::Double) => {
            let t = value_type(&to_ty);
            Total(quote!(if #v { 1 as #t } else { 0 as #t }))
        }
        (K::Boolean, K::Decimal { .. }) => {
            let t = decimal_type(&to_ty)?;
            Partial(quote!(#t.from_i64(#v as i64)))
        }
        (K::Boolean, t) if t.is_string() => Total(quote!(#cast::bool_to_string(#v))),

        // Strings to everything.
        (f, t) if f.is_string() => match t {
            K::TinyInt | K::SmallInt | K::Int | K::BigInt => {
                let (min, max, name) = match t {
                    K::TinyInt => (i64::from(i8::MIN), i64::from(i8::MAX), "TINYINT"),
                    K::SmallInt => (i64::from(i16::MIN), i64::from(i16::MAX), "SMALLINT"),
                    K::Int => (i64::from(i32::MIN), i64::from(i32::MAX), "INT"),
                    _ => (i64::MIN, i64::MAX, "BIGINT"),
                };
                let t = int_type(t)?;
                Fallible(quote!(#cast::str_to_int(&#v, #min, #max, #name).map(|n| n as #t)))
            }
            K::Double => Fallible(quote!(#cast::str_to_f64(&#v))),
            K::Float => Fallible(quote!(#cast::str_to_f32(&#v))),
            K::Decimal { .. } => {
                let t = decimal_type(&to_ty)?;
                FallibleOrNull(quote!(#cast::str_to_decimal(&#v, #t)))
            }
            K::Boolean => Fallible(quote!(#cast::str_to_bool(&#v))),
            K::Date => Fallible(quote!(#cast::str_to_date(&#v))),
            K::Time(_) => Fallible(quote!(#cast::str_to_time(&#v))),
            K::Timestamp(p) => Fallible(quote!(#cast::str_to_timestamp(&#v, #p))),
            K::Binary(_) | K::Varbinary(_) => Total(quote!(#v.into_bytes())),
            // TIMESTAMP_LTZ reads the text in the session time zone.
            _ => return None,
        },
        (f, t) if f.is_binary() && t.is_string() => Total(quote!(#cast::bytes_to_string(&#v))),

        // Date and time.
        (K::Date, K::Timestamp(_)) => Total(quote!(#cast::date_to_timestamp(#v))),
        (K::Date, t) if t.is_string() => Total(quote!(#cast::date_to_string(#v))),
        (K::Time(p), t) if t.is_string() => Total(quote!(#cast::time_to_string(#v, #p))),
        (K::Timestamp(_), K::Date) => Total(quote!(#cast::timestamp_to_date(#v))),
        (K::Timestamp(_), K::Time(p)) => Total(quote!(#cast::timestamp_to_time(#v, #p))),
        (K::Timestamp(p), t) if t.is_string() => Total(quote!(#cast::timestamp_to_string(#v, #p))),
        // Everything involving TIMESTAMP_LTZ and a zone-less type depends on
        // the session time zone; intervals have no text form here yet.
        _ => return None,
    })
}
