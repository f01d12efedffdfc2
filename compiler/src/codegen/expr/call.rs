//! Built-in scalar function calls (`ExprKind::Call`). The binder already cast
//! the arguments to the signature's types (`functions.rs`), except where the
//! signature takes them as they are (`MOD`, `NULLIF`, integer counts).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{decimal_type, unsupported, value_type, Gen, GenResult};
use crate::functions::ScalarFunction as F;
use crate::ir::{BinaryOp, Expr, ExprKind, Literal, TimeUnit};
use crate::types::{DataType, TypeKind};

impl Gen<'_> {
    /// REGEXP, REGEXP_REPLACE, REGEXP_EXTRACT: a literal pattern is compiled
    /// once (a static); NULL in any argument gives NULL, as in Flink.
    fn regex_call(&mut self, f: F, args: &[Expr]) -> GenResult {
        self.statics.need_feature("regex");
        let pattern = args
            .get(1)
            .ok_or_else(|| unsupported(format!("{} without a pattern", f.name())))?;
        let compiled = match super::literal_string(pattern) {
            Some(p) => {
                let name = self.statics.lazy(
                    "REGEX",
                    quote!(Result<rt::func::regex::Regex, String>),
                    quote!(rt::func::regex::Regex::new(#p)),
                );
                Some(quote!(#name.as_ref().map_err(|e| rt::Error::new(e.clone()))?))
            }
            None => None,
        };
        let mut values = vec![self.expr(&args[0])?];
        if compiled.is_none() {
            values.push(self.expr(pattern)?);
        }
        for a in &args[2..] {
            values.push(self.expr(a)?);
        }
        let per_row = compiled.is_none();
        Ok(self.strict(values, |v| {
            let s = &v[0];
            let (re, rest) = if per_row {
                let p = &v[1];
                (
                    quote!((&rt::func::regex::Regex::new(&#p).map_err(rt::Error::new)?)),
                    &v[2..],
                )
            } else {
                (compiled.clone().unwrap_or_default(), &v[1..])
            };
            match f {
                F::RegexpReplace => {
                    let r = &rest[0];
                    quote!(Some(#re.replace_all(&#s, &#r)?))
                }
                F::RegexpExtract => match rest.first() {
                    Some(i) => quote!(#re.extract(&#s, usize::try_from(#i).unwrap_or(usize::MAX))?),
                    None => quote!(#re.extract(&#s, 0)?),
                },
                _ => quote!(Some(#re.is_match(&#s))),
            }
        }))
    }

    pub(super) fn call(&mut self, f: F, args: &[Expr], ty: &DataType) -> GenResult {
        let what = || {
            let types: Vec<String> = args.iter().map(|a| a.ty.kind.to_string()).collect();
            unsupported(format!("{}({})", f.name(), types.join(", ")))
        };
        let string = quote!(rt::func::string);
        let math = quote!(rt::func::math);
        let temporal = quote!(rt::func::temporal);
        match f {
            F::Coalesce | F::IfNull => {
                // Lazy: later arguments are evaluated only when needed.
                let (last, rest) = args.split_last().ok_or_else(what)?;
                let mut out = self.expr(last)?;
                for a in rest.iter().rev() {
                    let a = self.expr(a)?;
                    let v = self.local();
                    out = quote!(match #a { Some(#v) => Some(#v), None => #out });
                }
                Ok(out)
            }
            F::If => {
                let [c, a, b] = args else { return Err(what()) };
                let (c, a, b) = (self.expr(c)?, self.expr(a)?, self.expr(b)?);
                Ok(quote!(if rt::value::logic::is_true(#c) { #a } else { #b }))
            }
            F::NullIf => {
                let [a, b] = args else { return Err(what()) };
                // Compared as their common type, but the result is `a` itself.
                let common = crate::typing::comparison_type(&a.ty, &b.ty).map_err(|_| what())?;
                let (x, y) = (self.local(), self.local());
                let (av, bv) = (self.expr(a)?, self.expr(b)?);
                let xa = self.cast(quote!(#x.clone()), &a.ty, &common, false)?;
                let yb = self.cast(quote!(#y), &b.ty, &common, false)?;
                let equal = self.compare(BinaryOp::Eq, xa, &common, yb, &common)?;
                Ok(quote!({
                    let #x = #av;
                    let #y = #bv;
                    if #equal == Some(true) { None } else { #x }
                }))
            }
            F::Greatest | F::Least => {
                let vals = self.exprs(args)?;
                let greater = if f == F::Greatest {
                    quote!(>)
                } else {
                    quote!(<)
                };
                if !args.iter().all(|a| a.ty.kind == ty.kind) {
                    return Err(what());
                }
                Ok(self.strict(vals, |v| {
                    let (first, rest) = v.split_first().expect("at least one argument");
                    quote!({
                        let mut best = #first;
                        #( if #rest #greater best { best = #rest; } )*
                        Some(best)
                    })
                }))
            }

            // Strings.
            F::Upper | F::Lower | F::Initcap | F::Reverse | F::CharLength | F::CharacterLength => {
                let name = match f {
                    F::Upper => quote!(upper),
                    F::Lower => quote!(lower),
                    F::Initcap => quote!(initcap),
                    F::Reverse => quote!(reverse),
                    _ => quote!(char_length),
                };
                self.strict_call(args, |v| quote!(Some(#string::#name(&#(#v)*))))
            }
            F::Trim | F::Btrim | F::Ltrim | F::Rtrim => {
                let (leading, trailing) = match f {
                    F::Ltrim => (true, false),
                    F::Rtrim => (false, true),
                    _ => (true, true),
                };
                let one = match f {
                    F::Ltrim => quote!(ltrim),
                    F::Rtrim => quote!(rtrim),
                    _ => quote!(trim),
                };
                self.strict_call(args, |v| match v {
                    [s] => quote!(Some(#string::#one(&#s).to_string())),
                    [s, chars, ..] => quote!(Some(
                        #string::trim_chars(&#s, &#chars, #leading, #trailing).to_string()
                    )),
                    [] => quote!(None),
                })
            }
            F::Substring | F::Substr => {
                let kinds = int_kinds(&args[1..]);
                self.strict_call(args, |v| {
                    let pos = to_i32(&v[1], kinds[0]);
                    let len = match v.get(2) {
                        Some(l) => {
                            let l = to_i32(l, kinds[1]);
                            quote!(Some(#l))
                        }
                        None => quote!(None),
                    };
                    let s = &v[0];
                    quote!(#string::substring(&#s, #pos, #len).map(str::to_string))
                })
            }
            F::Left | F::Right => {
                let kinds = int_kinds(&args[1..]);
                let name = if f == F::Left {
                    quote!(left)
                } else {
                    quote!(right)
                };
                self.strict_call(args, |v| {
                    let (s, n) = (&v[0], to_i32(&v[1], kinds[0]));
                    quote!(Some(#string::#name(&#s, #n).to_string()))
                })
            }
            F::Repeat => {
                let kinds = int_kinds(&args[1..]);
                self.strict_call(args, |v| {
                    let (s, n) = (&v[0], to_i32(&v[1], kinds[0]));
                    // Flink: a negative count repeats zero times.
                    quote!(Some(#s.repeat(#n.max(0) as usize)))
                })
            }
            F::Concat => self.strict_call(args, |v| quote!(Some([#(#v.as_str()),*].concat()))),
            F::ConcatWs => {
                // NULL arguments are skipped, a NULL separator gives NULL.
                let vals = self.exprs(args)?;
                let names: Vec<Ident> = vals.iter().map(|_| self.local()).collect();
                let (sep, parts) = names.split_first().ok_or_else(what)?;
                Ok(quote!({
                    #( let #names = #vals; )*
                    #string::concat_ws(#sep.as_deref(), &[#(#parts.as_deref()),*])
                }))
            }
            F::Replace => self.strict_call(args, |v| {
                let (s, from, to) = (&v[0], &v[1], &v[2]);
                quote!(Some(#string::replace(&#s, &#from, &#to)))
            }),
            F::Position => self.strict_call(args, |v| {
                let (needle, s) = (&v[0], &v[1]);
                quote!(Some(#string::position(&#needle, &#s)))
            }),
            F::Instr => self.strict_call(args, |v| {
                let (s, needle) = (&v[0], &v[1]);
                quote!(Some(#string::position(&#needle, &#s)))
            }),
            F::Locate => {
                let kinds = int_kinds(&args[2..]);
                self.strict_call(args, |v| {
                    let (needle, s) = (&v[0], &v[1]);
                    let from = match v.get(2) {
                        Some(n) => to_i32(n, kinds[0]),
                        None => quote!(1),
                    };
                    quote!(Some(#string::locate(&#needle, &#s, #from)))
                })
            }
            F::Lpad | F::Rpad => {
                let kinds = int_kinds(&args[1..2]);
                let name = if f == F::Lpad {
                    quote!(lpad)
                } else {
                    quote!(rpad)
                };
                self.strict_call(args, |v| {
                    let (s, n, pad) = (&v[0], to_i32(&v[1], kinds[0]), &v[2]);
                    // Fails where the result would split a surrogate pair.
                    quote!(#string::#name(&#s, #n, &#pad).map_err(rt::Error::new)?)
                })
            }
            F::SplitIndex => {
                let kinds = int_kinds(&args[2..]);
                self.strict_call(args, |v| {
                    let (s, sep, n) = (&v[0], &v[1], to_i32(&v[2], kinds[0]));
                    quote!(#string::split_index(&#s, &#sep, #n))
                })
            }
            F::Ascii => self.strict_call(args, |v| quote!(Some(#string::ascii(&#(#v)*)))),
            F::Chr => {
                let kinds = int_kinds(args);
                self.strict_call(args, |v| {
                    let n = &v[0];
                    let n = match kinds[0] {
                        TypeKind::BigInt => quote!(#n),
                        _ => quote!(i64::from(#n)),
                    };
                    quote!(Some(#string::chr(#n)))
                })
            }
            F::ToBase64 => self.strict_call(args, |v| quote!(Some(#string::to_base64(&#(#v)*)))),
            F::FromBase64 => self.strict_call(
                args,
                |v| quote!(Some(#string::from_base64(&#(#v)*).map_err(rt::Error::new)?)),
            ),
            F::Md5 | F::Sha256 => {
                let name = if f == F::Md5 {
                    quote!(md5)
                } else {
                    quote!(sha256)
                };
                self.strict_call(args, |v| quote!(Some(rt::func::hash::#name(&#(#v)*))))
            }
            F::IsDigit | F::IsAlpha | F::IsDecimal => {
                // NOT NULL: a NULL argument is FALSE.
                let name = match f {
                    F::IsDigit => quote!(is_digit),
                    F::IsAlpha => quote!(is_alpha),
                    _ => quote!(is_decimal),
                };
                let a = self.expr(&args[0])?;
                Ok(quote!(Some(#a.is_some_and(|s| #string::#name(&s)))))
            }

            // Math.
            F::Abs => {
                let body = match ty.kind {
                    k if k.is_integer() || k.is_interval() => quote!(wrapping_abs()),
                    TypeKind::Float | TypeKind::Double => quote!(abs()),
                    TypeKind::Decimal { .. } => {
                        return self.strict_call(
                            args,
                            |v| quote!(Some(rt::value::Decimal(#(#v)*.0.abs()))),
                        )
                    }
                    _ => return Err(what()),
                };
                self.strict_call(args, |v| quote!(Some(#(#v)*.#body)))
            }
            F::Sign => {
                let t = value_type(ty);
                match ty.kind {
                    k if k.is_integer() => {
                        self.strict_call(args, |v| quote!(Some(#(#v)*.signum())))
                    }
                    TypeKind::Double | TypeKind::Float => self
                        .strict_call(args, |v| quote!(Some(#math::sign_f64(#(#v)* as f64) as #t))),
                    TypeKind::Decimal { .. } => {
                        let dt = decimal_type(ty).ok_or_else(what)?;
                        self.strict_call(args, |v| quote!(Some(#math::sign_decimal(#(#v)*, #dt))))
                    }
                    _ => Err(what()),
                }
            }
            F::Round | F::Truncate => self.round(f, args, ty).ok_or_else(what)?,
            F::Floor | F::Ceil | F::Ceiling => {
                let ceil = f != F::Floor;
                match args[0].ty.kind {
                    k if k.is_integer() => self.strict_call(args, |v| quote!(Some(#(#v)*))),
                    TypeKind::Float | TypeKind::Double => {
                        let m = if ceil { quote!(ceil) } else { quote!(floor) };
                        self.strict_call(args, |v| quote!(Some(#(#v)*.#m())))
                    }
                    TypeKind::Decimal { .. } => {
                        let t = decimal_type(&args[0].ty).ok_or_else(what)?;
                        let m = if ceil {
                            quote!(ceil_decimal)
                        } else {
                            quote!(floor_decimal)
                        };
                        self.strict_call(args, |v| quote!(Some(#math::#m(#(#v)*, #t))))
                    }
                    _ => Err(what()),
                }
            }
            F::Mod => self.modulo(args, ty).ok_or_else(what)?,
            F::Power | F::Atan2 | F::Log if args.len() == 2 => {
                let body: fn(&Ident, &Ident) -> TokenStream = match f {
                    // Java's Math.pow, Math.atan2; LOG(b, x) = ln(x) / ln(b).
                    F::Power => |a: &Ident, b: &Ident| quote!(#a.powf(#b)),
                    F::Atan2 => |a: &Ident, b: &Ident| quote!(#a.atan2(#b)),
                    _ => |a: &Ident, b: &Ident| quote!(#b.ln() / #a.ln()),
                };
                self.strict_call(args, |v| {
                    let b = body(&v[0], &v[1]);
                    quote!(Some(#b))
                })
            }
            F::Sqrt
            | F::Ln
            | F::Log
            | F::Log10
            | F::Log2
            | F::Exp
            | F::Sin
            | F::Cos
            | F::Tan
            | F::Cot
            | F::Asin
            | F::Acos
            | F::Atan
            | F::Degrees
            | F::Radians => {
                let body = match f {
                    // Flink computes SQRT as POWER(x, 0.5): SQRT(-0.0) is 0.0.
                    F::Sqrt => quote!(powf(0.5)),
                    F::Ln | F::Log => quote!(ln()),
                    F::Log10 => quote!(log10()),
                    // Flink: Math.log(x) / Math.log(2), not a true log2.
                    F::Log2 => quote!(ln() / 2f64.ln()),
                    F::Exp => quote!(exp()),
                    F::Sin => quote!(sin()),
                    F::Cos => quote!(cos()),
                    F::Tan => quote!(tan()),
                    F::Cot => quote!(tan().recip()),
                    F::Asin => quote!(asin()),
                    F::Acos => quote!(acos()),
                    F::Atan => quote!(atan()),
                    F::Degrees => quote!(to_degrees()),
                    _ => quote!(to_radians()),
                };
                self.strict_call(args, |v| quote!(Some(#(#v)*.#body)))
            }
            F::Pi => Ok(quote!(Some(std::f64::consts::PI))),
            F::E => Ok(quote!(Some(std::f64::consts::E))),

            // Date and time.
            F::DateFormat => {
                let ts = match args[0].ty.kind {
                    TypeKind::Timestamp(_) => quote!(Some(v)),
                    // Text is read as Flink does (lenient `yyyy-MM-dd HH:mm:ss`); NULL if it is not.
                    k if k.is_string() => quote!(#temporal::date_format_input(&v)),
                    _ => return Err(what()),
                };
                self.with_pattern(&args[0], &args[1], |p| quote!(#ts.map(|ts| #p.format(ts))))
            }
            F::ToDate | F::ToTimestamp => {
                let name = if f == F::ToDate {
                    quote!(to_date)
                } else {
                    quote!(to_timestamp)
                };
                match args {
                    // Flink fails the job on a date part beyond `int`.
                    [_] if f == F::ToDate => self.strict_call(
                        args,
                        |v| quote!(#temporal::to_date_or_fail(&#(#v)*).map_err(rt::Error::new)?),
                    ),
                    [_] => self.strict_call(args, |v| quote!(#temporal::#name(&#(#v)*, None))),
                    [s, p] => self.with_pattern(s, p, |p| quote!(#temporal::#name(&v, Some(&#p)))),
                    _ => Err(what()),
                }
            }
            // UNIX_TIMESTAMP() reads the clock: not generated yet.
            F::UnixTimestamp => match args {
                [_] => self.strict_call(
                    args,
                    |v| quote!(Some(#temporal::unix_timestamp(&#(#v)*, None))),
                ),
                [s, p] => self.with_pattern(
                    s,
                    p,
                    |p| quote!(Some(#temporal::unix_timestamp(&v, Some(&#p)))),
                ),
                _ => Err(what()),
            },
            F::FromUnixtime => {
                if !args[0].ty.kind.is_integer() {
                    return Err(what());
                }
                match args {
                    [_] => self.strict_call(
                        args,
                        |v| quote!(Some(#temporal::from_unixtime(#(#v)* as i64, None))),
                    ),
                    // Flink formats with `SimpleDateFormat`, the runtime with
                    // DATE_FORMAT's `DateTimeFormatter` letters: only a literal
                    // pattern whose letters mean the same in both.
                    [n, p] if super::literal_string(p).is_some_and(simple_date_format_agrees) => {
                        self.with_pattern(
                            n,
                            p,
                            |p| quote!(Some(#temporal::from_unixtime(v as i64, Some(&#p)))),
                        )
                    }
                    _ => Err(what()),
                }
            }
            F::ToTimestampLtz => {
                // Epoch seconds (precision 0) or milliseconds (3, the default).
                let scale = match args.get(1).map(|a| &a.kind) {
                    None | Some(ExprKind::Literal(Literal::Integer(3))) => 1i64,
                    Some(ExprKind::Literal(Literal::Integer(0))) => 1000,
                    _ => return Err(what()),
                };
                if !args[0].ty.kind.is_integer() {
                    return Err(what());
                }
                let value = self.expr(&args[0])?;
                Ok(
                    quote!(#value.map(|n| rt::value::Timestamp::from_millis((n as i64).wrapping_mul(#scale)))),
                )
            }
            F::CurrentTimestamp | F::Now => {
                let now = self.statics.query_start();
                Ok(quote!(Some(#now)))
            }
            F::CurrentRowTimestamp => Ok(quote!(Some(#temporal::current_timestamp()))),
            F::Extract
            | F::Year
            | F::Quarter
            | F::Month
            | F::Week
            | F::DayOfYear
            | F::DayOfMonth
            | F::DayOfWeek
            | F::Hour
            | F::Minute
            | F::Second => {
                let unit = match f {
                    F::Year => TimeUnit::Year,
                    F::Quarter => TimeUnit::Quarter,
                    F::Month => TimeUnit::Month,
                    F::Week => TimeUnit::Week,
                    F::DayOfYear => TimeUnit::DayOfYear,
                    F::DayOfMonth => TimeUnit::Day,
                    F::DayOfWeek => TimeUnit::DayOfWeek,
                    F::Hour => TimeUnit::Hour,
                    F::Minute => TimeUnit::Minute,
                    F::Second => TimeUnit::Second,
                    // EXTRACT's unit is bound as `ExprKind::Extract`.
                    _ => return Err(what()),
                };
                let value = self.expr(&args[0])?;
                self.extract(unit, value, &args[0].ty)
            }
            F::RegexpReplace | F::RegexpExtract | F::Regexp => self.regex_call(f, args),
            // No randomness or UUIDs in the runtime yet; the rest read the
            // session time zone or the clock.
            F::Uuid
            | F::Rand
            | F::RandInteger
            | F::ConvertTz
            | F::CurrentDate
            | F::CurrentTime
            | F::LocalTimestamp
            | F::LocalTime
            | F::Power
            | F::Atan2 => Err(what()),
        }
    }

    fn exprs(&mut self, args: &[Expr]) -> Result<Vec<TokenStream>, String> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    /// A NULL-propagating call over all arguments.
    fn strict_call(
        &mut self,
        args: &[Expr],
        body: impl FnOnce(&[Ident]) -> TokenStream,
    ) -> GenResult {
        let vals = self.exprs(args)?;
        Ok(self.strict(vals, body))
    }

    /// `body` over the value of `operand` (bound to `v`) and a compiled
    /// `DatePattern` (the tokens `body` receives): a static for a literal
    /// pattern, compiled per row otherwise. NULL if either is NULL.
    fn with_pattern(
        &mut self,
        operand: &Expr,
        pattern: &Expr,
        body: impl FnOnce(&TokenStream) -> TokenStream,
    ) -> GenResult {
        let value = self.expr(operand)?;
        if let Some(p) = super::literal_string(pattern) {
            let name = self.statics.lazy(
                "DATE_PATTERN",
                quote!(rt::func::temporal::DatePattern),
                quote!(rt::func::temporal::DatePattern::new(#p)),
            );
            let body = body(&quote!(#name));
            return Ok(quote!(match #value { Some(v) => #body, None => None }));
        }
        let p = self.expr(pattern)?;
        let body = body(&quote!(pattern));
        Ok(quote!(match (#value, #p) {
            (Some(v), Some(p)) => {
                let pattern = rt::func::temporal::DatePattern::new(&p);
                #body
            }
            _ => None,
        }))
    }

    /// ROUND / TRUNCATE with an optional digit count (0 by default).
    fn round(&mut self, f: F, args: &[Expr], ty: &DataType) -> Option<GenResult> {
        let round = f == F::Round;
        let math = quote!(rt::func::math);
        let kinds = int_kinds(&args[1..]);
        let digits = |v: &[Ident]| match v.get(1) {
            Some(n) => to_i32(n, kinds[0]),
            None => quote!(0),
        };
        let t = value_type(ty);
        Some(match args[0].ty.kind {
            k if k.is_integer() => {
                let name = if round {
                    quote!(round_i64)
                } else {
                    quote!(truncate_i64)
                };
                self.strict_call(args, |v| {
                    let (x, n) = (&v[0], digits(v));
                    quote!(Some(#math::#name(#x as i64, #n) as #t))
                })
            }
            TypeKind::Double | TypeKind::Float => self.strict_call(args, |v| {
                let (x, n) = (&v[0], digits(v));
                if round {
                    quote!(Some(#math::round_f64(#x as f64, #n) as #t))
                } else {
                    // Fails where Flink's detour through DECIMAL(38, 18) does.
                    quote!(Some(#math::truncate_f64(#x as f64, #n).map_err(rt::Error::new)? as #t))
                }
            }),
            TypeKind::Decimal { .. } => {
                let (from, to) = (decimal_type(&args[0].ty)?, decimal_type(ty)?);
                let name = if round {
                    quote!(round_decimal)
                } else {
                    quote!(truncate_decimal)
                };
                self.strict_call(args, |v| {
                    let (x, n) = (&v[0], digits(v));
                    quote!(#math::#name(#x, #from, #n, #to))
                })
            }
            _ => return None,
        })
    }

    /// MOD(a, b): the arguments keep their own types (`MOD(BIGINT, INT)` is
    /// an INT); Java computes in the wider type and narrows the result.
    fn modulo(&mut self, args: &[Expr], ty: &DataType) -> Option<GenResult> {
        let [a, b] = args else { return None };
        let t = value_type(ty);
        if a.ty.kind.is_integer() && b.ty.kind.is_integer() && ty.kind.is_integer() {
            return Some(self.strict_call(args, |v| {
                let (x, y) = (&v[0], &v[1]);
                quote!(Some(rt::func::math::int_mod::<i64>(#x as i64, #y as i64).ok_or_else(|| rt::Error::new("/ by zero"))? as #t))
            }));
        }
        let tr = decimal_type(ty)?;
        // Integers take part as DECIMAL(p, 0).
        let as_decimal = |e: &Expr, v: &Ident| -> Option<(TokenStream, TokenStream)> {
            match e.ty.kind {
                TypeKind::Decimal { .. } => Some((quote!(#v), decimal_type(&e.ty)?)),
                k => {
                    let (p, _) = k.decimal_precision_scale()?;
                    Some((
                        quote!(rt::value::Decimal(#v as i128)),
                        quote!(rt::value::DecimalType::new(#p, 0)),
                    ))
                }
            }
        };
        let names = (self.local(), self.local());
        let (x, tx) = as_decimal(a, &names.0)?;
        let (y, ty_) = as_decimal(b, &names.1)?;
        let (av, bv) = match (self.expr(a), self.expr(b)) {
            (Ok(av), Ok(bv)) => (av, bv),
            (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
        };
        let (n0, n1) = names;
        Some(Ok(quote!(match (#av, #bv) {
            (Some(#n0), Some(#n1)) => rt::value::decimal::rem(#x, #tx, #y, #ty_, #tr)
                .map_err(|_| rt::Error::new("Division by zero"))?,
            _ => None,
        })))
    }
}

/// Whether `SimpleDateFormat` (FROM_UNIXTIME) and `DateTimeFormatter`
/// (DATE_FORMAT, whose formatter the runtime has) print every letter of a
/// pattern alike for a whole second: `yyyy-MM-dd HH:mm:ss`, `EEE, d MMM yyyy
/// h:mm a`, ... Letters such as `u` (a year in one, a weekday in the other),
/// `w`, `z` or five-letter names differ, so those patterns are refused.
fn simple_date_format_agrees(pattern: &str) -> bool {
    let pieces = {
        let mut out = Vec::new();
        let mut quoted = false;
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                quoted = !quoted;
            } else if !quoted && c.is_ascii_alphabetic() {
                let mut n = 1;
                while chars.peek() == Some(&c) {
                    chars.next();
                    n += 1;
                }
                out.push((c, n));
            }
        }
        out
    };
    pieces.iter().all(|&(c, n)| match c {
        'M' | 'E' => n <= 4,
        'y' | 'd' | 'H' | 'h' | 'k' | 'K' | 'm' | 's' | 'S' | 'a' | 'D' => true,
        _ => false,
    })
}

fn int_kinds(args: &[Expr]) -> Vec<TypeKind> {
    args.iter().map(|a| a.ty.kind).collect()
}

/// An integer argument as `i32` (a BIGINT count saturates, so a huge length
/// still means "all").
fn to_i32(v: &Ident, kind: TypeKind) -> TokenStream {
    match kind {
        TypeKind::BigInt => quote!(rt::value::saturating_i32(#v)),
        _ => quote!(i32::from(#v)),
    }
}
