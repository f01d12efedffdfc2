//! Expression code generation: a typed `ir::Expr` becomes a Rust expression
//! of type `Option<T>` (NULL = `None`) that calls the runtime's functions.
//!
//! Contract with the pipeline generator (`codegen/mod.rs`):
//! - [`value_type`] is the Rust type of a non-NULL value of a SQL type;
//! - [`expr`] returns tokens evaluating to `Option<value_type(e.ty)>`; they
//!   may use `?` on `rt::Result` (they run inside a function returning
//!   `rt::Result<_>`), refer to the runtime as `rt`, and read input column `i`
//!   through `column(i)`, a place expression of type `Option<value_type(..)>`
//!   (`row.c3`): the generator clones it where it needs an owned value and
//!   borrows it where it can;
//! - values computed once per job (compiled LIKE patterns, date patterns, the
//!   query start time, constant subexpressions that call the runtime such as
//!   `DATE '1994-01-01' + INTERVAL '1' YEAR`) go into [`Statics`], which the
//!   caller emits at module level.
//!
//! How the generated code is shaped, and why:
//! - NULL propagation is a `match` over the operands (`match (a, b) {
//!   (Some(v0), Some(v1)) => ..., _ => None }`), never a closure, so `?` inside
//!   reports run-time errors (division by zero, a failed CAST) to the caller.
//! - Every operand is evaluated once, left to right, as Flink's generated Java
//!   does; CASE, COALESCE, IF, AND and OR evaluate lazily, as Flink does (so
//!   `CASE WHEN b <> 0 THEN a / b END` never divides by zero).
//! - Locals are named `v0`, `v1`, ... (unique within one call of [`expr`]);
//!   column tokens of the caller must not rely on such names.
//! - Integer arithmetic wraps like Java's; DECIMAL arithmetic rounds HALF_UP
//!   and gives NULL on overflow; integer and DECIMAL division by zero fail the
//!   job with Java's messages (`/ by zero`, `Division by zero`).
//! - Anything without an exact Flink equivalent yet (regular expressions,
//!   hashes, time-zone dependent TIMESTAMP_LTZ conversions, random numbers)
//!   is an `Err` naming the construct, never an approximation.

mod call;
mod cast;
#[cfg(test)]
mod tests;

use proc_macro2::{Ident, Literal as Lit, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{BinaryOp, Expr, ExprKind, Literal, TimeUnit, UnaryOp};
use crate::types::{DataType, TypeKind};
pub(crate) use call::{int_kinds, to_i32, BoundCall};

/// Module-level items the generated expressions refer to.
#[derive(Default)]
pub(crate) struct Statics {
    items: Vec<TokenStream>,
    /// Suffix of the next generated static's name (`LIKE_3`).
    next_id: usize,
    /// Whether the `QUERY_START` static (CURRENT_TIMESTAMP) was emitted.
    query_start: bool,
    /// The `CONST_<n>` statics by their type and initializer's text: equal
    /// constant subexpressions (of different INSERTs) share one static.
    constants: std::collections::BTreeMap<String, Ident>,
    /// Optional runtime features the generated code needs (`regex`).
    features: std::collections::BTreeSet<&'static str>,
}

impl Statics {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn into_items(self) -> Vec<TokenStream> {
        self.items
    }

    /// Runtime features to enable in the job's `Cargo.toml`.
    pub fn features(&self) -> Vec<&'static str> {
        self.features.iter().copied().collect()
    }

    pub(crate) fn need_feature(&mut self, feature: &'static str) {
        self.features.insert(feature);
    }

    /// Adds `static NAME_<n>: LazyLock<ty> = LazyLock::new(|| init);`, returns its name.
    pub(crate) fn lazy(&mut self, prefix: &str, ty: TokenStream, init: TokenStream) -> Ident {
        let name = format_ident!("{}_{}", prefix, self.next_id);
        self.next_id += 1;
        self.items.push(quote! {
            static #name: std::sync::LazyLock<#ty> = std::sync::LazyLock::new(|| #init);
        });
        name
    }

    /// A static holding the constant `init` of type `ty`, shared with every
    /// equal one; its name.
    fn constant(&mut self, ty: TokenStream, init: TokenStream) -> Ident {
        let key = format!("{ty} = {init}");
        if let Some(name) = self.constants.get(&key) {
            return name.clone();
        }
        let name = self.lazy("CONST", ty, init);
        self.constants.insert(key, name.clone());
        name
    }

    /// The time the job started: Flink evaluates CURRENT_TIMESTAMP once per
    /// batch query, so every row (and every expression) sees the same instant.
    pub(crate) fn query_start(&mut self) -> TokenStream {
        if !self.query_start {
            self.query_start = true;
            self.items.push(quote! {
                static QUERY_START: std::sync::LazyLock<rt::value::Timestamp> =
                    std::sync::LazyLock::new(rt::func::temporal::current_timestamp);
            });
        }
        quote!(*QUERY_START)
    }
}

/// The Rust type of a non-NULL value of `ty`.
pub(crate) fn value_type(ty: &DataType) -> TokenStream {
    match ty.kind {
        TypeKind::Null => quote!(()),
        TypeKind::Boolean => quote!(bool),
        TypeKind::TinyInt => quote!(i8),
        TypeKind::SmallInt => quote!(i16),
        TypeKind::Int => quote!(i32),
        TypeKind::BigInt => quote!(i64),
        TypeKind::Float => quote!(f32),
        TypeKind::Double => quote!(f64),
        TypeKind::Decimal { .. } => quote!(rt::value::Decimal),
        TypeKind::Char(_) | TypeKind::Varchar(_) => quote!(rt::value::Str),
        TypeKind::Binary(_) | TypeKind::Varbinary(_) => quote!(Vec<u8>),
        TypeKind::Date => quote!(rt::value::Date),
        TypeKind::Time(_) => quote!(rt::value::Time),
        TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => quote!(rt::value::Timestamp),
        TypeKind::IntervalDayTime => quote!(i64),
        TypeKind::IntervalYearMonth => quote!(i32),
    }
}

/// Whether `e` is computed without a column, deterministically, to a `Copy`
/// value, and is more than a literal: the same for every row, so it can be
/// computed once into a static (the rows see the same value).
fn hoistable(e: &Expr) -> bool {
    let copy = !matches!(
        e.ty.kind,
        TypeKind::Null
            | TypeKind::Char(_)
            | TypeKind::Varchar(_)
            | TypeKind::Binary(_)
            | TypeKind::Varbinary(_)
    );
    let mut reads_a_column = false;
    crate::ir::visit(e, &mut |x| {
        reads_a_column |= matches!(x.kind, ExprKind::Column(_))
    });
    copy && !matches!(e.kind, ExprKind::Literal(_) | ExprKind::Column(_))
        && !reads_a_column
        && crate::plan::is_deterministic(e)
}

/// Whether the tokens call into the runtime (a path `rt::...` other than a
/// literal's constructor such as `rt::value::Date(8582i32)`), at any depth:
/// such calls are opaque to the optimizer, plain Rust arithmetic is not.
fn calls_runtime(tokens: &TokenStream) -> bool {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    tokens.iter().enumerate().any(|(at, t)| match t {
        TokenTree::Ident(i) if i == "rt" => {
            // The path's segments: idents joined by `::` (two ':' puncts).
            let mut segments = vec![i.to_string()];
            let mut next = at + 1;
            while let [TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(segment), ..] =
                &tokens[next..]
            {
                if a.as_char() != ':' || b.as_char() != ':' {
                    break;
                }
                segments.push(segment.to_string());
                next += 3;
            }
            !matches!(
                segments.iter().map(String::as_str).collect::<Vec<_>>()[..],
                ["rt", "value", "Date" | "Decimal" | "Time" | "Timestamp"]
            )
        }
        TokenTree::Group(g) => calls_runtime(&g.stream()),
        _ => false,
    })
}

/// Whether the tokens use `?` (may return an error), at any depth.
fn has_question_mark(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Group(g) => has_question_mark(&g.stream()),
        _ => false,
    })
}

/// Tokens evaluating `e` to `Option<value_type(e.ty)>`; `Err` names the
/// construct code generation does not support.
pub(crate) fn expr(
    e: &Expr,
    column: &dyn Fn(usize) -> TokenStream,
    statics: &mut Statics,
) -> Result<TokenStream, String> {
    Gen {
        column,
        statics,
        next_local: 0,
        in_constant: false,
    }
    .expr(e)
}

pub(crate) type GenResult = Result<TokenStream, String>;

pub(crate) fn unsupported(what: impl std::fmt::Display) -> String {
    format!("{what} is not supported by code generation yet")
}

/// State of one [`expr`] call.
pub(crate) struct Gen<'a> {
    column: &'a dyn Fn(usize) -> TokenStream,
    pub(crate) statics: &'a mut Statics,
    next_local: usize,
    /// Inside a constant subexpression being considered for a static: its
    /// operands are not hoisted on their own.
    in_constant: bool,
}

impl Gen<'_> {
    /// A fresh local name (`v3`).
    pub(crate) fn local(&mut self) -> Ident {
        let name = format_ident!("v{}", self.next_local);
        self.next_local += 1;
        name
    }

    /// NULL-propagating application: evaluates every argument (left to
    /// right), and if all are non-NULL evaluates `body` (an `Option` expression)
    /// with the values bound to the names it receives; otherwise `None`.
    pub(crate) fn strict(
        &mut self,
        args: Vec<TokenStream>,
        body: impl FnOnce(&[Ident]) -> TokenStream,
    ) -> TokenStream {
        let names: Vec<Ident> = args.iter().map(|_| self.local()).collect();
        let body = body(&names);
        match args.len() {
            0 => body,
            1 => {
                let (a, n) = (&args[0], &names[0]);
                quote!(match #a { Some(#n) => #body, None => None })
            }
            _ => quote! {
                match (#(#args),*) { (#(Some(#names)),*) => #body, _ => None }
            },
        }
    }

    pub(crate) fn expr(&mut self, e: &Expr) -> GenResult {
        if !self.in_constant && hoistable(e) {
            // Its own locals from `v0`, so equal constants have equal text.
            let value = Gen {
                column: self.column,
                statics: &mut *self.statics,
                next_local: 0,
                in_constant: true,
            }
            .expr(e)?;
            // Only what calls the runtime (the optimizer cannot fold it) and
            // cannot fail: a failing one must fail where a row reaches it.
            if calls_runtime(&value) && !has_question_mark(&value) {
                let ty = value_type(&e.ty);
                let name = self.statics.constant(quote!(Option<#ty>), value);
                return Ok(quote!(*#name));
            }
            return Ok(value);
        }
        let value = self.expr_of_kind(e)?;
        Ok(match e.kind {
            // A computed string (a function's `String`, a borrowed `&str`)
            // becomes the row's string type; columns, literals and CASE
            // branches (each an expression of its own) already are.
            ExprKind::Column(_) | ExprKind::Literal(_) | ExprKind::Case { .. } => value,
            _ if e.ty.is_string() => quote!(#value.map(rt::value::Str::from)),
            _ => value,
        })
    }

    fn expr_of_kind(&mut self, e: &Expr) -> GenResult {
        match &e.kind {
            ExprKind::Column(i) => Ok(super::rows::copy_of((self.column)(*i), &e.ty)),
            ExprKind::Literal(lit) => literal(lit, &e.ty),
            ExprKind::Unary { op, operand } => self.unary(*op, operand, &e.ty),
            ExprKind::Binary { op, left, right } => self.binary(*op, left, right, &e.ty),
            ExprKind::Cast { operand, try_cast } => {
                let value = self.expr(operand)?;
                self.cast(value, &operand.ty, &e.ty, *try_cast)
            }
            ExprKind::Case {
                branches,
                otherwise,
            } => self.case(branches, otherwise.as_deref(), &e.ty),
            ExprKind::InList {
                operand,
                list,
                negated,
            } => self.in_list(operand, list, *negated),
            ExprKind::Like {
                operand,
                pattern,
                escape,
                negated,
            } => self.like(operand, pattern, *escape, *negated),
            ExprKind::Call { function, args } => self.call(*function, args, &e.ty),
            ExprKind::Extract { unit, operand } => {
                let value = self.expr(operand)?;
                self.extract(*unit, value, &operand.ty)
            }
            ExprKind::RoundTime {
                unit,
                ceil,
                operand,
            } => self.round_time(*unit, *ceil, operand),
            ExprKind::TimestampDiff { unit, start, end } => self.timestamp_diff(*unit, start, end),
            ExprKind::TimestampAdd {
                unit,
                count,
                operand,
            } => self.timestamp_add(*unit, count, operand, &e.ty),
        }
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr, ty: &DataType) -> GenResult {
        let a = self.expr(operand)?;
        Ok(match op {
            UnaryOp::Not => quote!(rt::value::logic::not(#a)),
            UnaryOp::IsNull => quote!(Some(#a.is_none())),
            UnaryOp::IsNotNull => quote!(Some(#a.is_some())),
            UnaryOp::IsTrue => quote!(Some(#a == Some(true))),
            UnaryOp::IsNotTrue => quote!(Some(#a != Some(true))),
            UnaryOp::IsFalse => quote!(Some(#a == Some(false))),
            UnaryOp::IsNotFalse => quote!(Some(#a != Some(false))),
            UnaryOp::Negate => {
                let body: fn(&Ident) -> TokenStream = match ty.kind {
                    // Java: -Integer.MIN_VALUE is Integer.MIN_VALUE.
                    k if k.is_integer() || k.is_interval() => |v: &Ident| quote!(#v.wrapping_neg()),
                    TypeKind::Float | TypeKind::Double => |v: &Ident| quote!(-#v),
                    // -x has the digits of x, so it fits the same precision.
                    TypeKind::Decimal { .. } => |v: &Ident| quote!(rt::value::Decimal(-#v.0)),
                    _ => return Err(unsupported(format!("negation of {}", ty.kind))),
                };
                self.strict(vec![a], |v| {
                    let b = body(&v[0]);
                    quote!(Some(#b))
                })
            }
        })
    }

    /// `Option<&str>` tokens for a string column (borrowed from the row) or a
    /// string literal; `None` for anything that must be computed.
    fn borrowed_str(&self, e: &Expr) -> Option<TokenStream> {
        match &e.kind {
            ExprKind::Column(i) => {
                let place = (self.column)(*i);
                Some(quote!(#place.as_deref()))
            }
            ExprKind::Literal(Literal::String(s)) => Some(quote!(Some(#s))),
            ExprKind::Cast { operand, .. } if e.ty.is_string() && operand.ty.is_string() => {
                // CHAR(n) -> STRING of a literal keeps its text.
                literal_string(e).map(|s| quote!(Some(#s)))
            }
            _ => None,
        }
    }

    fn binary(&mut self, op: BinaryOp, left: &Expr, right: &Expr, ty: &DataType) -> GenResult {
        match op {
            BinaryOp::And | BinaryOp::Or => {
                // Flink skips the right operand when the left decides.
                let l = self.expr(left)?;
                let r = self.expr(right)?;
                let v = self.local();
                Ok(if op == BinaryOp::And {
                    quote! {{
                        let #v = #l;
                        if #v == Some(false) { Some(false) } else { rt::value::logic::and(#v, #r) }
                    }}
                } else {
                    quote! {{
                        let #v = #l;
                        if #v == Some(true) { Some(true) } else { rt::value::logic::or(#v, #r) }
                    }}
                })
            }
            op if op.is_comparison()
                && !matches!(op, BinaryOp::IsDistinctFrom | BinaryOp::IsNotDistinctFrom)
                && left.ty.is_string()
                && right.ty.is_string()
                && self.borrowed_str(left).is_some()
                && self.borrowed_str(right).is_some() =>
            {
                // A string column against a literal or another column: compare
                // borrowed `&str`s, no copy and no allocation per row.
                let (l, r) = (self.borrowed_str(left), self.borrowed_str(right));
                let (a, b) = (self.local(), self.local());
                let test = match op {
                    BinaryOp::Eq => quote!(#a == #b),
                    BinaryOp::NotEq => quote!(#a != #b),
                    BinaryOp::Lt => quote!(#a < #b),
                    BinaryOp::LtEq => quote!(#a <= #b),
                    BinaryOp::Gt => quote!(#a > #b),
                    _ => quote!(#a >= #b),
                };
                Ok(quote!(match (#l, #r) { (Some(#a), Some(#b)) => Some(#test), _ => None }))
            }
            op if op.is_comparison() => {
                let l = self.expr(left)?;
                let r = self.expr(right)?;
                self.compare(op, l, &left.ty, r, &right.ty)
            }
            BinaryOp::Concat => {
                if !(left.ty.is_string() && right.ty.is_string()) {
                    return Err(unsupported(format!(
                        "`||` on {} and {}",
                        left.ty.kind, right.ty.kind
                    )));
                }
                let l = self.expr(left)?;
                let r = self.expr(right)?;
                Ok(self.strict(vec![l, r], |v| {
                    let (a, b) = (&v[0], &v[1]);
                    quote!(Some([#a.as_str(), #b.as_str()].concat()))
                }))
            }
            _ => self.arithmetic(op, left, right, ty),
        }
    }

    /// `l op r` for a comparison operator, as `Option<bool>`; `l` and `r` are
    /// tokens of the operands' `Option` values.
    pub(crate) fn compare(
        &mut self,
        op: BinaryOp,
        l: TokenStream,
        lt: &DataType,
        r: TokenStream,
        rt: &DataType,
    ) -> GenResult {
        if lt.kind == TypeKind::Null || rt.kind == TypeKind::Null {
            // Comparing with an untyped NULL: evaluate both, the result is NULL
            // (or, for IS [NOT] DISTINCT FROM, whether the other side is NULL).
            return Ok(match op {
                BinaryOp::IsDistinctFrom => quote!(Some(#l.is_some() != #r.is_some())),
                BinaryOp::IsNotDistinctFrom => quote!(Some(#l.is_some() == #r.is_some())),
                _ => quote!({ let _ = (#l, #r); None::<bool> }),
            });
        }
        let (a, b) = (self.local(), self.local());
        let test = compare_values(op, &a, lt, &b, rt)?;
        Ok(match op {
            BinaryOp::IsDistinctFrom | BinaryOp::IsNotDistinctFrom => {
                // NULL is not distinct from NULL; NULL is distinct from a value.
                let both_null = op == BinaryOp::IsNotDistinctFrom;
                quote! {
                    match (#l, #r) {
                        (Some(#a), Some(#b)) => Some(#test),
                        (None, None) => Some(#both_null),
                        _ => Some(!#both_null),
                    }
                }
            }
            _ => quote! {
                match (#l, #r) { (Some(#a), Some(#b)) => Some(#test), _ => None }
            },
        })
    }

    fn arithmetic(&mut self, op: BinaryOp, left: &Expr, right: &Expr, ty: &DataType) -> GenResult {
        let (lk, rk) = (left.ty.kind, right.ty.kind);
        let what = || {
            unsupported(format!(
                "`{}` on {} and {}",
                op.symbol(),
                left.ty.kind,
                right.ty.kind
            ))
        };
        if lk.is_temporal() || rk.is_temporal() {
            return self.temporal_arithmetic(op, left, right);
        }
        let l = self.expr(left)?;
        let r = self.expr(right)?;
        if lk.is_interval() || rk.is_interval() {
            return self
                .interval_arithmetic(op, l, lk, r, rk, ty)
                .ok_or_else(what);
        }
        match ty.kind {
            // `BIGINT % INT` is an INT computed in BIGINT (Java's `long % int`),
            // should the binder leave the operands their own types.
            k if k.is_integer() && op == BinaryOp::Modulo && lk.is_integer() && rk.is_integer() => {
                let t = value_type(ty);
                Ok(self.strict(vec![l, r], |v| {
                    let (a, b) = (&v[0], &v[1]);
                    quote!(Some(rt::func::math::int_mod::<i64>(#a as i64, #b as i64).ok_or_else(|| rt::Error::new("/ by zero"))? as #t))
                }))
            }
            k if k.is_integer() && lk == k && rk == k => {
                let t = value_type(ty);
                Ok(self.strict(vec![l, r], |v| {
                    let (a, b) = (&v[0], &v[1]);
                    match op {
                        BinaryOp::Plus => quote!(Some(#a.wrapping_add(#b))),
                        BinaryOp::Minus => quote!(Some(#a.wrapping_sub(#b))),
                        BinaryOp::Multiply => quote!(Some(#a.wrapping_mul(#b))),
                        BinaryOp::Divide => {
                            quote!(Some(rt::func::math::int_div::<#t>(#a, #b).ok_or_else(|| rt::Error::new("/ by zero"))?))
                        }
                        _ => {
                            quote!(Some(rt::func::math::int_mod::<#t>(#a, #b).ok_or_else(|| rt::Error::new("/ by zero"))?))
                        }
                    }
                }))
            }
            TypeKind::Float | TypeKind::Double if lk == ty.kind && rk == ty.kind => {
                let sym = match op {
                    BinaryOp::Plus => quote!(+),
                    BinaryOp::Minus => quote!(-),
                    BinaryOp::Multiply => quote!(*),
                    BinaryOp::Divide => quote!(/),
                    _ => return Err(what()),
                };
                Ok(self.strict(vec![l, r], |v| {
                    let (a, b) = (&v[0], &v[1]);
                    quote!(Some(#a #sym #b))
                }))
            }
            TypeKind::Decimal { .. } => {
                let (Some(ta), Some(tb)) = (decimal_type(&left.ty), decimal_type(&right.ty)) else {
                    return Err(what());
                };
                let tr = decimal_type(ty).ok_or_else(what)?;
                let f = match op {
                    BinaryOp::Plus => quote!(add),
                    BinaryOp::Minus => quote!(sub),
                    BinaryOp::Multiply => quote!(mul),
                    BinaryOp::Divide => quote!(div),
                    _ => quote!(rem),
                };
                let fails = matches!(op, BinaryOp::Divide | BinaryOp::Modulo);
                Ok(self.strict(vec![l, r], |v| {
                    let (a, b) = (&v[0], &v[1]);
                    let call = quote!(rt::value::decimal::#f(#a, #ta, #b, #tb, #tr));
                    if fails {
                        quote!(#call.map_err(|_| rt::Error::new("Division by zero"))?)
                    } else {
                        call
                    }
                }))
            }
            _ => Err(what()),
        }
    }

    /// Interval ± interval, interval × / ÷ integer (Flink computes in `long`).
    fn interval_arithmetic(
        &mut self,
        op: BinaryOp,
        l: TokenStream,
        lk: TypeKind,
        r: TokenStream,
        rk: TypeKind,
        ty: &DataType,
    ) -> Option<TokenStream> {
        let t = value_type(ty);
        if lk == rk && matches!(op, BinaryOp::Plus | BinaryOp::Minus) {
            return Some(self.strict(vec![l, r], |v| {
                let (a, b) = (&v[0], &v[1]);
                if op == BinaryOp::Plus {
                    quote!(Some(#a.wrapping_add(#b)))
                } else {
                    quote!(Some(#a.wrapping_sub(#b)))
                }
            }));
        }
        let ok = match op {
            BinaryOp::Multiply => {
                (lk.is_interval() && rk.is_integer()) || (lk.is_integer() && rk.is_interval())
            }
            BinaryOp::Divide => lk.is_interval() && rk.is_integer(),
            _ => false,
        };
        if !ok {
            return None;
        }
        Some(self.strict(vec![l, r], |v| {
            let (a, b) = (&v[0], &v[1]);
            if op == BinaryOp::Multiply {
                quote!(Some((#a as i64).wrapping_mul(#b as i64) as #t))
            } else {
                quote!(Some(rt::func::math::int_div::<i64>(#a as i64, #b as i64).ok_or_else(|| rt::Error::new("/ by zero"))? as #t))
            }
        }))
    }

    /// DATE / TIME / TIMESTAMP ± INTERVAL (and INTERVAL + datetime), keeping
    /// the datetime's type as Flink does.
    fn temporal_arithmetic(&mut self, op: BinaryOp, left: &Expr, right: &Expr) -> GenResult {
        // INTERVAL + datetime is datetime + INTERVAL.
        let (dt, iv) = if left.ty.kind.is_interval() && op == BinaryOp::Plus {
            (right, left)
        } else {
            (left, right)
        };
        let what = || {
            unsupported(format!(
                "`{}` on {} and {}",
                op.symbol(),
                left.ty.kind,
                right.ty.kind
            ))
        };
        if !matches!(op, BinaryOp::Plus | BinaryOp::Minus) || !iv.ty.kind.is_interval() {
            return Err(what());
        }
        let minus = op == BinaryOp::Minus;
        let months = iv.ty.kind == TypeKind::IntervalYearMonth;
        let d = self.expr(dt)?;
        let i = self.expr(iv)?;
        let body: fn(&Ident, &TokenStream) -> TokenStream = match dt.ty.kind {
            TypeKind::Timestamp(_) if months => {
                |a: &Ident, b: &TokenStream| quote!(rt::func::temporal::add_months(#a, #b))
            }
            // An instant plus a duration does not depend on the time zone.
            TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) if !months => {
                |a: &Ident, b: &TokenStream| quote!(rt::func::temporal::add_millis(#a, #b))
            }
            TypeKind::Date if months => {
                |a: &Ident, b: &TokenStream| quote!(rt::func::temporal::add_months_date(#a, #b))
            }
            // Flink: `date + (int) (interval / 86400000)`, truncating toward zero.
            TypeKind::Date => {
                |a: &Ident, b: &TokenStream| quote!(rt::value::Date(#a.0.wrapping_add((#b / 86_400_000) as i32)))
            }
            // TIME wraps around midnight.
            TypeKind::Time(_) if !months => {
                |a: &Ident, b: &TokenStream| quote!(rt::value::Time((#a.0 as i64).wrapping_add(#b).rem_euclid(86_400_000) as i32))
            }
            _ => return Err(what()),
        };
        Ok(self.strict(vec![d, i], |v| {
            let (a, b) = (&v[0], &v[1]);
            let b = if minus {
                quote!(#b.wrapping_neg())
            } else {
                quote!(#b)
            };
            let value = body(a, &b);
            quote!(Some(#value))
        }))
    }

    /// Searched CASE: the first TRUE condition's value, lazily, as Flink.
    fn case(
        &mut self,
        branches: &[(Expr, Expr)],
        otherwise: Option<&Expr>,
        ty: &DataType,
    ) -> GenResult {
        let mut out = match otherwise {
            Some(o) => self.expr(o)?,
            None => null_of(ty),
        };
        for (cond, value) in branches.iter().rev() {
            let c = self.expr(cond)?;
            let v = self.expr(value)?;
            out = quote!(if rt::value::logic::is_true(#c) { #v } else { #out });
        }
        Ok(out)
    }

    /// `x [NOT] IN (list)`: TRUE if found; NULL if not found and `x` or an
    /// element is NULL; else FALSE.
    fn in_list(&mut self, operand: &Expr, list: &[Expr], negated: bool) -> GenResult {
        let x = self.expr(operand)?;
        let found = if let Some(patterns) = literal_patterns(operand, list) {
            // Constant lists become one `match`: no per-row allocation.
            let v = self.local();
            let scrutinee = if operand.ty.is_string() {
                quote!(#v.as_deref())
            } else {
                quote!(#v)
            };
            quote! {{
                let #v = #x;
                match #scrutinee { Some(#(#patterns)|*) => Some(true), Some(_) => Some(false), None => None }
            }}
        } else {
            let items = list
                .iter()
                .map(|i| self.expr(i))
                .collect::<Result<Vec<_>, _>>()?;
            quote!(rt::value::logic::in_list(&#x, &[#(#items),*]))
        };
        Ok(if negated {
            quote!(rt::value::logic::not(#found))
        } else {
            found
        })
    }

    fn like(
        &mut self,
        operand: &Expr,
        pattern: &Expr,
        escape: Option<char>,
        negated: bool,
    ) -> GenResult {
        let not = if negated { quote!(!) } else { quote!() };
        let escape = match escape {
            Some(c) => quote!(Some(#c)),
            None => quote!(None),
        };
        let s = self.expr(operand)?;
        if let Some(p) = literal_string(pattern) {
            // Compiled once; an invalid escape sequence fails the job when the
            // pattern is first used, as in Flink.
            let like = self.statics.lazy(
                "LIKE",
                quote!(Result<rt::func::like::Like, String>),
                quote!(rt::func::like::Like::new(#p, #escape)),
            );
            return Ok(self.strict(vec![s], |v| {
                let a = &v[0];
                quote!(Some(#not #like.as_ref().map_err(|e| rt::Error::new(e.clone()))?.matches(&#a)))
            }));
        }
        let p = self.expr(pattern)?;
        Ok(self.strict(vec![s, p], |v| {
            let (a, b) = (&v[0], &v[1]);
            quote!(Some(#not rt::func::like::Like::new(&#b, #escape).map_err(rt::Error::new)?.matches(&#a)))
        }))
    }

    /// EXTRACT(unit FROM value) as BIGINT; `value` is tokens of `Option<ty>`.
    pub(crate) fn extract(
        &mut self,
        unit: TimeUnit,
        value: TokenStream,
        ty: &DataType,
    ) -> GenResult {
        let what = || unsupported(format!("EXTRACT({unit:?} FROM {})", ty.kind).to_uppercase());
        let body: Box<dyn Fn(&Ident) -> TokenStream> = match ty.kind {
            TypeKind::IntervalDayTime => {
                let ms = match unit {
                    TimeUnit::Day => quote!(86_400_000),
                    TimeUnit::Hour => quote!(3_600_000),
                    TimeUnit::Minute => quote!(60_000),
                    TimeUnit::Second => quote!(1000),
                    _ => return Err(what()),
                };
                // Calcite: the unit's field of the interval (DAY counts whole
                // days; HOUR is 0..23 of the remainder, and so on).
                let modulus = match unit {
                    TimeUnit::Day => None,
                    TimeUnit::Hour => Some(quote!(24)),
                    _ => Some(quote!(60)),
                };
                Box::new(move |v: &Ident| match &modulus {
                    None => quote!(#v / #ms),
                    Some(m) => quote!(#v / #ms % #m),
                })
            }
            TypeKind::IntervalYearMonth => match unit {
                TimeUnit::Year => Box::new(|v: &Ident| quote!((#v / 12) as i64)),
                TimeUnit::Month => Box::new(|v: &Ident| quote!((#v % 12) as i64)),
                _ => return Err(what()),
            },
            TypeKind::Date | TypeKind::Time(_) | TypeKind::Timestamp(_) => {
                let f = match ty.kind {
                    TypeKind::Date => quote!(rt::func::temporal::extract_date),
                    TypeKind::Time(_) => quote!(rt::func::temporal::extract_time),
                    _ => quote!(rt::func::temporal::extract),
                };
                let year =
                    |f: &TokenStream, v: &Ident| quote!(#f(rt::func::temporal::Unit::Year, #v));
                match unit {
                    TimeUnit::Epoch => match ty.kind {
                        TypeKind::Date => Box::new(|v: &Ident| quote!(#v.0 as i64 * 86_400)),
                        TypeKind::Timestamp(_) => {
                            Box::new(|v: &Ident| quote!(#v.millis.div_euclid(1000)))
                        }
                        _ => return Err(what()),
                    },
                    TimeUnit::Decade => Box::new(move |v: &Ident| {
                        let y = year(&f, v);
                        quote!(#y.div_euclid(10))
                    }),
                    TimeUnit::Century => Box::new(move |v: &Ident| {
                        let y = year(&f, v);
                        quote!((#y + 99).div_euclid(100))
                    }),
                    TimeUnit::Millennium => Box::new(move |v: &Ident| {
                        let y = year(&f, v);
                        quote!((#y + 999).div_euclid(1000))
                    }),
                    unit => {
                        let u = runtime_unit(unit).ok_or_else(what)?;
                        Box::new(move |v: &Ident| quote!(#f(#u, #v)))
                    }
                }
            }
            // TIMESTAMP_LTZ fields depend on the session time zone.
            _ => return Err(what()),
        };
        Ok(self.strict(vec![value], |v| {
            let b = body(&v[0]);
            quote!(Some(#b))
        }))
    }

    fn round_time(&mut self, unit: TimeUnit, ceil: bool, operand: &Expr) -> GenResult {
        let name = if ceil { "CEIL" } else { "FLOOR" };
        let what =
            || unsupported(format!("{name}({} TO {unit:?})", operand.ty.kind).to_uppercase());
        let u = runtime_unit(unit).ok_or_else(what)?;
        let f = if ceil {
            quote!(rt::func::temporal::ceil)
        } else {
            quote!(rt::func::temporal::floor)
        };
        let value = self.expr(operand)?;
        let body: fn(&TokenStream, &TokenStream, &Ident) -> TokenStream = match operand.ty.kind {
            TypeKind::Timestamp(_) => {
                |f: &TokenStream, u: &TokenStream, v: &Ident| quote!(#f(#v, #u))
            }
            // A date is already rounded to any unit below a day.
            TypeKind::Date if unit >= TimeUnit::Day => {
                |_: &TokenStream, _: &TokenStream, v: &Ident| quote!(#v)
            }
            TypeKind::Date => {
                |f: &TokenStream, u: &TokenStream, v: &Ident| quote!(#f(rt::func::cast::date_to_timestamp(#v), #u).date())
            }
            TypeKind::Time(_) if unit >= TimeUnit::Hour => {
                |f: &TokenStream, u: &TokenStream, v: &Ident| quote!(#f(rt::value::Timestamp::from_millis(#v.0 as i64), #u).time())
            }
            _ => return Err(what()),
        };
        Ok(self.strict(vec![value], |v| {
            let b = body(&f, &u, &v[0]);
            quote!(Some(#b))
        }))
    }

    /// A DATE or TIMESTAMP operand as `Option<Timestamp>` tokens.
    fn as_timestamp(&mut self, e: &Expr, what: &dyn Fn() -> String) -> GenResult {
        let value = self.expr(e)?;
        match e.ty.kind {
            TypeKind::Timestamp(_) => Ok(value),
            TypeKind::Date => Ok(quote!(#value.map(rt::func::cast::date_to_timestamp))),
            _ => Err(what()),
        }
    }

    fn timestamp_diff(&mut self, unit: TimeUnit, start: &Expr, end: &Expr) -> GenResult {
        let what = || {
            unsupported(format!(
                "TIMESTAMPDIFF({unit:?}, {}, {})",
                start.ty.kind, end.ty.kind
            ))
        };
        let u = runtime_unit(unit).ok_or_else(what)?;
        let a = self.as_timestamp(start, &what)?;
        let b = self.as_timestamp(end, &what)?;
        Ok(self.strict(vec![a, b], |v| {
            let (a, b) = (&v[0], &v[1]);
            quote!(Some(rt::func::temporal::timestamp_diff(#u, #a, #b) as i32))
        }))
    }

    fn timestamp_add(
        &mut self,
        unit: TimeUnit,
        count: &Expr,
        operand: &Expr,
        ty: &DataType,
    ) -> GenResult {
        let what = || {
            unsupported(format!(
                "TIMESTAMPADD({unit:?}, {}, {})",
                count.ty.kind, operand.ty.kind
            ))
        };
        if count.ty.kind != TypeKind::Int || operand.ty.kind != ty.kind {
            return Err(what());
        }
        let months = match unit {
            TimeUnit::Year => Some(12),
            TimeUnit::Quarter => Some(3),
            TimeUnit::Month => Some(1),
            _ => None,
        };
        let millis: Option<i64> = match unit {
            TimeUnit::Week => Some(7 * 86_400_000),
            TimeUnit::Day => Some(86_400_000),
            TimeUnit::Hour => Some(3_600_000),
            TimeUnit::Minute => Some(60_000),
            TimeUnit::Second => Some(1000),
            _ => None,
        };
        let n = self.expr(count)?;
        let value = self.expr(operand)?;
        type Body = Box<dyn Fn(&Ident, &Ident) -> TokenStream>;
        let body: Body = match (operand.ty.kind, months, millis) {
            (TypeKind::Timestamp(_), Some(m), _) => Box::new(
                move |n: &Ident, v: &Ident| quote!(rt::func::temporal::add_months(#v, #n.wrapping_mul(#m))),
            ),
            (TypeKind::Date, Some(m), _) => Box::new(
                move |n: &Ident, v: &Ident| quote!(rt::func::temporal::add_months_date(#v, #n.wrapping_mul(#m))),
            ),
            (TypeKind::Timestamp(_), None, Some(ms)) => Box::new(
                move |n: &Ident, v: &Ident| quote!(rt::func::temporal::add_millis(#v, (#n as i64).wrapping_mul(#ms))),
            ),
            // An instant moves by whole hours, minutes or seconds the same
            // way in every time zone.
            (TypeKind::TimestampLtz(_), None, Some(ms)) if ms <= 3_600_000 => Box::new(
                move |n: &Ident, v: &Ident| quote!(rt::func::temporal::add_millis(#v, (#n as i64).wrapping_mul(#ms))),
            ),
            (TypeKind::Date, None, Some(ms)) if ms >= 86_400_000 => {
                let days = (ms / 86_400_000) as i32;
                Box::new(
                    move |n: &Ident, v: &Ident| quote!(rt::value::Date(#v.0.wrapping_add(#n.wrapping_mul(#days)))),
                )
            }
            _ => return Err(what()),
        };
        Ok(self.strict(vec![n, value], |v| {
            let b = body(&v[0], &v[1]);
            quote!(Some(#b))
        }))
    }
}

/// `a op b` as a `bool`, for non-NULL values bound to `a` and `b`.
fn compare_values(op: BinaryOp, a: &Ident, lt: &DataType, b: &Ident, rt: &DataType) -> GenResult {
    if let (TypeKind::Decimal { .. }, TypeKind::Decimal { .. }) = (lt.kind, rt.kind) {
        if lt.kind != rt.kind {
            // Different scales: compare the numbers, not the unscaled digits.
            let (ta, tb) = (decimal_type(lt), decimal_type(rt));
            let test = match op {
                BinaryOp::Eq | BinaryOp::IsNotDistinctFrom => quote!(is_eq),
                BinaryOp::NotEq | BinaryOp::IsDistinctFrom => quote!(is_ne),
                BinaryOp::Lt => quote!(is_lt),
                BinaryOp::LtEq => quote!(is_le),
                BinaryOp::Gt => quote!(is_gt),
                _ => quote!(is_ge),
            };
            return Ok(quote!(rt::value::decimal::cmp(#a, #ta, #b, #tb).#test()));
        }
    }
    if value_type(lt).to_string() != value_type(rt).to_string() {
        return Err(unsupported(format!(
            "comparing {} with {}",
            lt.kind, rt.kind
        )));
    }
    // Same representation: Rust's order is Flink's (strings by UTF-8 bytes,
    // as `rt::func::string::compare`; temporal values chronologically;
    // doubles by IEEE rules like Java's primitive comparisons).
    Ok(match op {
        BinaryOp::Eq | BinaryOp::IsNotDistinctFrom => quote!(#a == #b),
        BinaryOp::NotEq | BinaryOp::IsDistinctFrom => quote!(#a != #b),
        BinaryOp::Lt => quote!(#a < #b),
        BinaryOp::LtEq => quote!(#a <= #b),
        BinaryOp::Gt => quote!(#a > #b),
        _ => quote!(#a >= #b),
    })
}

/// `rt::value::DecimalType::new(p, s)` of a DECIMAL type.
pub(crate) fn decimal_type(ty: &DataType) -> Option<TokenStream> {
    match ty.kind {
        TypeKind::Decimal { precision, scale } => {
            Some(quote!(rt::value::DecimalType::new(#precision, #scale)))
        }
        _ => None,
    }
}

/// `None::<T>` for a NULL of type `ty`.
fn null_of(ty: &DataType) -> TokenStream {
    let t = value_type(ty);
    quote!(None::<#t>)
}

/// The runtime's unit for EXTRACT / FLOOR / CEIL / TIMESTAMPDIFF.
fn runtime_unit(unit: TimeUnit) -> Option<TokenStream> {
    let name = match unit {
        TimeUnit::Year => "Year",
        TimeUnit::Quarter => "Quarter",
        TimeUnit::Month => "Month",
        TimeUnit::Week => "Week",
        TimeUnit::Day => "Day",
        TimeUnit::DayOfYear => "DayOfYear",
        TimeUnit::DayOfWeek => "DayOfWeek",
        TimeUnit::Hour => "Hour",
        TimeUnit::Minute => "Minute",
        TimeUnit::Second => "Second",
        TimeUnit::Millisecond => "Millisecond",
        TimeUnit::Microsecond => "Microsecond",
        TimeUnit::Nanosecond => "Nanosecond",
        TimeUnit::Millennium | TimeUnit::Century | TimeUnit::Decade | TimeUnit::Epoch => {
            return None
        }
    };
    let name = Ident::new(name, Span::call_site());
    Some(quote!(rt::func::temporal::Unit::#name))
}

/// A literal of type `ty` as `Option<value_type(ty)>` tokens.
fn literal(lit: &Literal, ty: &DataType) -> GenResult {
    let bad = || unsupported(format!("the literal {lit:?} of type {}", ty.kind));
    let value = match (lit, ty.kind) {
        (Literal::Null, _) => return Ok(null_of(ty)),
        (Literal::Boolean(b), TypeKind::Boolean) => quote!(#b),
        (Literal::Integer(v), kind) => integer_literal(*v, kind).ok_or_else(bad)?,
        (Literal::Decimal(digits), TypeKind::Decimal { scale, .. }) => {
            let unscaled = unscaled_decimal(digits, scale).ok_or_else(bad)?;
            let unscaled = Lit::i128_suffixed(unscaled);
            quote!(rt::value::Decimal(#unscaled))
        }
        (Literal::Double(bits), TypeKind::Double) => double_literal(f64::from_bits(*bits)),
        (Literal::Double(bits), TypeKind::Float) => float_literal(f64::from_bits(*bits) as f32),
        (Literal::String(s), kind) if kind.is_string() => quote!(rt::value::Str::from(#s)),
        (Literal::Date(days), TypeKind::Date) => quote!(rt::value::Date(#days)),
        // Flink keeps TIME as milliseconds of the day.
        (Literal::Time(nanos), TypeKind::Time(_)) => {
            let millis = (nanos / 1_000_000) as i32;
            quote!(rt::value::Time(#millis))
        }
        (
            Literal::Timestamp { seconds, nanos },
            TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_),
        ) => {
            let millis = seconds
                .checked_mul(1000)
                .and_then(|m| m.checked_add(i64::from(nanos / 1_000_000)))
                .ok_or_else(bad)?;
            let sub = nanos % 1_000_000;
            quote!(rt::value::Timestamp::new(#millis, #sub))
        }
        (Literal::IntervalMillis(ms), TypeKind::IntervalDayTime) => quote!(#ms),
        (Literal::IntervalMonths(m), TypeKind::IntervalYearMonth) => quote!(#m),
        _ => return Err(bad()),
    };
    Ok(quote!(Some(#value)))
}

fn integer_literal(v: i64, kind: TypeKind) -> Option<TokenStream> {
    Some(match kind {
        TypeKind::TinyInt => Lit::i8_suffixed(i8::try_from(v).ok()?).into_token_stream(),
        TypeKind::SmallInt => Lit::i16_suffixed(i16::try_from(v).ok()?).into_token_stream(),
        TypeKind::Int => Lit::i32_suffixed(i32::try_from(v).ok()?).into_token_stream(),
        TypeKind::BigInt => Lit::i64_suffixed(v).into_token_stream(),
        _ => return None,
    })
}

fn double_literal(v: f64) -> TokenStream {
    // `from_bits` keeps NaN, infinities and -0.0 exact.
    if v.is_finite() && (v != 0.0 || v.is_sign_positive()) {
        Lit::f64_suffixed(v).into_token_stream()
    } else {
        let bits = Lit::u64_suffixed(v.to_bits());
        quote!(f64::from_bits(#bits))
    }
}

fn float_literal(v: f32) -> TokenStream {
    if v.is_finite() && (v != 0.0 || v.is_sign_positive()) {
        Lit::f32_suffixed(v).into_token_stream()
    } else {
        let bits = Lit::u32_suffixed(v.to_bits());
        quote!(f32::from_bits(#bits))
    }
}

/// `-12.50` at scale 3 → -12500; `None` if it does not parse or has more
/// fraction digits than the scale.
fn unscaled_decimal(digits: &str, scale: u8) -> Option<i128> {
    let (negative, body) = match digits.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, digits.strip_prefix('+').unwrap_or(digits)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if frac.len() > usize::from(scale)
        || !(int.bytes().all(|b| b.is_ascii_digit()) && frac.bytes().all(|b| b.is_ascii_digit()))
        || int.is_empty() && frac.is_empty()
    {
        return None;
    }
    let padded = format!("{int}{frac:0<width$}", width = usize::from(scale));
    let v: i128 = padded.parse().ok()?;
    Some(if negative { -v } else { v })
}

/// The text of a string literal, looking through casts that only widen the
/// string type (the binder casts `'a%'`, a CHAR(2), to STRING for LIKE).
pub(crate) fn literal_string(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Literal(Literal::String(s)) => Some(s),
        ExprKind::Cast { operand, .. } if matches!(e.ty.kind, TypeKind::Varchar(n) if n as usize >= operand_length(operand)) => {
            literal_string(operand)
        }
        _ => None,
    }
}

fn operand_length(e: &Expr) -> usize {
    match e.ty.kind {
        TypeKind::Char(n) | TypeKind::Varchar(n) => n as usize,
        _ => usize::MAX,
    }
}

/// Match patterns for `x IN (literals)` when every element is a non-NULL
/// integer or string literal of the operand's type.
fn literal_patterns(operand: &Expr, list: &[Expr]) -> Option<Vec<TokenStream>> {
    let kind = operand.ty.kind;
    list.iter()
        .map(|item| {
            if kind.is_string() {
                let s = literal_string(item)?;
                Some(quote!(#s))
            } else if kind.is_integer() && item.ty.kind == kind {
                match item.kind {
                    ExprKind::Literal(Literal::Integer(v)) => integer_literal(v, kind),
                    _ => None,
                }
            } else {
                None
            }
        })
        .collect::<Option<Vec<TokenStream>>>()
        .map(|patterns| {
            // A repeated element adds nothing (and would be an unreachable pattern).
            let mut seen = std::collections::BTreeSet::new();
            patterns
                .into_iter()
                .filter(|p| seen.insert(p.to_string()))
                .collect()
        })
}

trait IntoTokens {
    fn into_token_stream(self) -> TokenStream;
}

impl IntoTokens for Lit {
    fn into_token_stream(self) -> TokenStream {
        quote!(#self)
    }
}
