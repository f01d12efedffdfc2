//! Expression binding: sqlparser expressions to typed `ir::Expr`.
//!
//! In a grouped query (GROUP BY or aggregate calls) expressions are bound in
//! *grouped mode*: a sub-expression equal to a GROUP BY key becomes a
//! reference to that key, an aggregate call becomes a reference to its result
//! column, and any other column reference is an error ("not being grouped"),
//! as in Flink.

use sqlparser::ast::{
    self as sql, BinaryOperator, CastKind, CeilFloorKind, DateTimeField, FunctionArg,
    FunctionArgExpr, FunctionArguments, Spanned, TrimWhereField, UnaryOperator, Value,
};

use super::literals;
use super::scope::Scope;
use super::{cast_to, cast_to_kind, Binder};
use crate::diagnostics::{did_you_mean, Diagnostic, Span};
use crate::functions::{self, FunctionError};
use crate::ir::{
    strip_spans, visit, AggregateCall, BinaryOp, Expr, ExprKind, Literal, TimeUnit, UnaryOp,
};
use crate::types::{DataType, TypeKind};
use crate::typing::{self, ArithOp};

type BResult<T> = Result<T, Diagnostic>;

/// The state of a grouped query while its SELECT, HAVING and ORDER BY bind.
#[derive(Clone, Debug)]
pub(crate) struct Grouping {
    /// The scope the GROUP BY keys and aggregate arguments are bound in.
    pub input: Scope,
    /// GROUP BY keys over `input`, spans cleared for comparison.
    pub keys: Vec<Expr>,
    /// Aggregate arguments (and filters) to compute before aggregating; the
    /// pre-aggregation projection is `keys ++ args`.
    pub args: Vec<Expr>,
    /// The aggregate calls; their `args` index into `keys ++ args`.
    pub aggregates: Vec<AggregateCall>,
    /// False for a global aggregate (no GROUP BY): Flink then makes every
    /// aggregate but COUNT nullable (an empty input gives NULL).
    pub has_group_by: bool,
    /// The GROUP BY has grouping sets (GROUPING() then varies by row).
    pub grouping_sets: bool,
    /// Positions in `aggregates` of GROUPING() / GROUPING_ID() calls (see
    /// `grouping.rs`): no aggregate computes them.
    pub grouping_calls: Vec<usize>,
    /// GROUP BY keys that are or hold subqueries, as written (spans do not
    /// count in comparisons), with their key positions: the same expression
    /// in SELECT or HAVING is that key.
    pub subquery_keys: Vec<(sql::Expr, usize)>,
}

impl Grouping {
    pub(crate) fn key_position(&self, expr: &Expr) -> Option<usize> {
        let stripped = strip_spans(expr.clone());
        self.keys.iter().position(|k| *k == stripped)
    }

    /// Position of an argument expression in `keys ++ args`, adding it if new.
    fn arg_position(&mut self, expr: Expr) -> usize {
        let stripped = strip_spans(expr);
        if let Some(k) = self.keys.iter().position(|k| *k == stripped) {
            return k;
        }
        let i = match self.args.iter().position(|a| *a == stripped) {
            Some(i) => i,
            None => {
                self.args.push(stripped);
                self.args.len() - 1
            }
        };
        self.keys.len() + i
    }
}

/// Where an expression is bound.
pub(crate) struct ExprCx<'a> {
    pub scope: &'a Scope,
    /// The clause, for messages such as "aggregate functions are not allowed in WHERE".
    pub clause: &'static str,
    pub grouping: Option<&'a mut Grouping>,
}

impl<'a> ExprCx<'a> {
    pub fn plain(scope: &'a Scope, clause: &'static str) -> Self {
        ExprCx {
            scope,
            clause,
            grouping: None,
        }
    }
}

impl Binder<'_> {
    pub(crate) fn span(&self, span: sqlparser::tokenizer::Span, fallback: Span) -> Span {
        let s = crate::parser::span_of(self.file, span);
        if span.start.line == 0 {
            fallback
        } else {
            s
        }
    }

    /// A function call's span extended to its closing parenthesis: sqlparser's
    /// span of `SUM(COUNT(*))` ends inside the arguments.
    pub(crate) fn through_closing_paren(&self, call: Span) -> Span {
        let text = self.file.text.as_bytes();
        let Some(open) = text[call.start..].iter().position(|&b| b == b'(') else {
            return call;
        };
        let mut depth = 0usize;
        let mut quote = None;
        for (i, &b) in text.iter().enumerate().skip(call.start + open) {
            match (quote, b) {
                (Some(q), _) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'\'' | b'`') => quote = Some(b),
                (None, b'(') => depth += 1,
                (None, b')') => {
                    depth -= 1;
                    if depth == 0 {
                        return Span::new(call.start, (i + 1).max(call.end));
                    }
                }
                _ => {}
            }
        }
        call
    }

    /// The source span of an expression. sqlparser computes a span by walking
    /// the whole subtree, so asking at every level of a long operator chain
    /// (`a + b + ... `, 10,000 deep) would be quadratic: operator nodes are
    /// memoized by address, from their operands' spans.
    pub(crate) fn expr_span(&mut self, expr: &sql::Expr, fallback: Span) -> Span {
        use sql::Expr as E;
        let key = expr as *const sql::Expr as usize;
        if let Some(&s) = self.span_memo.get(&key) {
            return s;
        }
        let s = match expr {
            E::BinaryOp { left, right, .. } => {
                let (l, r) = (
                    self.expr_span(left, fallback),
                    self.expr_span(right, fallback),
                );
                if l == fallback || r == fallback {
                    self.span(expr.span(), fallback)
                } else {
                    l.to(r)
                }
            }
            // The operand's span (without the parentheses or the operator
            // token): asking sqlparser would walk the operand again.
            E::Nested(inner) | E::UnaryOp { expr: inner, .. } => self.expr_span(inner, fallback),
            _ => self.span(expr.span(), fallback),
        };
        self.span_memo.insert(key, s);
        s
    }

    /// Binds a standalone scalar expression (computed column, watermark),
    /// reporting its error. Aggregates are not allowed.
    pub(crate) fn bind_scalar(
        &mut self,
        expr: &sql::Expr,
        scope: &Scope,
        fallback: Span,
        clause: &'static str,
    ) -> Option<Expr> {
        let mut cx = ExprCx::plain(scope, clause);
        match self.bind_expr(expr, &mut cx, fallback) {
            Ok(e) => Some(e),
            Err(d) => {
                self.error(d);
                None
            }
        }
    }

    /// Binds a condition (WHERE, ON, HAVING): it must be BOOLEAN.
    pub(crate) fn bind_condition(
        &mut self,
        expr: &sql::Expr,
        cx: &mut ExprCx<'_>,
        fallback: Span,
    ) -> BResult<Expr> {
        let bound = self.bind_expr(expr, cx, fallback)?;
        match bound.ty.kind {
            TypeKind::Boolean => Ok(bound),
            TypeKind::Null => Ok(cast_to_kind(bound, TypeKind::Boolean)),
            _ => Err(Diagnostic::error(
                bound.span,
                format!(
                    "the {} condition must be BOOLEAN, but it is {}",
                    cx.clause, bound.ty
                ),
            )),
        }
    }

    pub(crate) fn bind_expr(
        &mut self,
        expr: &sql::Expr,
        cx: &mut ExprCx<'_>,
        fallback: Span,
    ) -> BResult<Expr> {
        let span = self.expr_span(expr, fallback);
        // A GROUP BY key that holds a subquery, written as the key is.
        if let Some(g) = cx.grouping.as_deref() {
            let mut raw = expr;
            while let sql::Expr::Nested(inner) = raw {
                raw = inner;
            }
            if let Some(&(_, k)) = g.subquery_keys.iter().find(|(e, _)| e == raw) {
                return Ok(Expr {
                    kind: ExprKind::Column(k),
                    ty: g.keys[k].ty,
                    span,
                });
            }
        }
        if let sql::Expr::Subquery(query) = expr {
            return self.scalar_subquery(query, cx, span);
        }
        if cx.grouping.is_some() {
            if let Some(call) = super::grouping::grouping_function(expr) {
                return self.bind_grouping_function(call, cx, span);
            }
            if let Some(call) = aggregate_call(expr) {
                return self.bind_aggregate(call, cx, span);
            }
            // A window call binds its parts in grouped mode (over.rs).
            if !contains_aggregate(expr) && !super::over::contains_window(expr) {
                let grouping = cx.grouping.as_deref().expect("checked");
                let input = grouping.input.clone();
                let mut plain = ExprCx {
                    scope: &input,
                    clause: cx.clause,
                    grouping: None,
                };
                let mark = self.subquery_mark();
                let bound = self.bind_expr(expr, &mut plain, span)?;
                if let Some(k) = cx.grouping.as_deref().and_then(|g| g.key_position(&bound)) {
                    return Ok(Expr {
                        kind: ExprKind::Column(k),
                        ty: bound.ty,
                        span,
                    });
                }
                // (A subquery whose join reads this scope's columns, like the
                // operand of IN, must bind again over the grouped columns.)
                if !references_columns(&bound) && !self.subqueries_read_input(mark) {
                    return Ok(bound);
                }
                if matches!(
                    expr,
                    sql::Expr::Identifier(_) | sql::Expr::CompoundIdentifier(_)
                ) {
                    return Err(Diagnostic::error(
                        span,
                        format!("expression `{expr}` is not being grouped"),
                    )
                    .with_help("add it to GROUP BY, or aggregate it (e.g. MAX(...))"));
                }
                // Fall through: bind the parts, so that `key + 1` works
                // (and their subqueries once more).
                self.subquery_rewind(mark);
            }
        } else if let Some(call) = aggregate_call(expr) {
            return Err(Diagnostic::error(
                span,
                format!(
                    "aggregate function {} is not allowed in {}",
                    call.name, cx.clause
                ),
            ));
        }
        self.bind_structure(expr, cx, span)
    }

    fn bind_structure(
        &mut self,
        expr: &sql::Expr,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        use sql::Expr as E;
        match expr {
            E::Identifier(ident) => self.bind_column(std::slice::from_ref(ident), cx, span),
            E::CompoundIdentifier(idents) => self.bind_column(idents, cx, span),
            E::Nested(inner) => self.bind_expr(inner, cx, span),
            E::Value(v) => literals::value(&v.value, span),
            E::TypedString(ts) => literals::typed_string(&ts.data_type, &ts.value.value, span),
            E::Interval(interval) => literals::interval(interval, span),
            E::BinaryOp { left, op, right }
                if super::row_compare::is_row_value(left)
                    || super::row_compare::is_row_value(right) =>
            {
                self.bind_row_comparison(left, op, right, cx, span)
            }
            E::BinaryOp { left, op, right } => {
                let l = self.bind_expr(left, cx, span)?;
                let r = self.bind_expr(right, cx, span)?;
                self.binary(op, l, r, span)
            }
            E::UnaryOp { op, expr: operand } => {
                let e = self.bind_expr(operand, cx, span)?;
                match op {
                    UnaryOperator::Not => {
                        let e = expect_boolean(e, "NOT")?;
                        Ok(unary(UnaryOp::Not, e, span))
                    }
                    UnaryOperator::Minus => {
                        let ty = typing::negate(&e.ty).map_err(|m| Diagnostic::error(span, m))?;
                        // Fold `-literal` right away so `-2147483648` and `-1.5` stay literals.
                        if let Some(lit) = literals::negate_literal(&e, ty, span) {
                            return Ok(lit);
                        }
                        Ok(Expr {
                            kind: ExprKind::Unary {
                                op: UnaryOp::Negate,
                                operand: Box::new(e),
                            },
                            ty,
                            span,
                        })
                    }
                    UnaryOperator::Plus if e.ty.is_numeric() || e.ty.kind.is_interval() => Ok(e),
                    other => Err(Diagnostic::unsupported(
                        span,
                        &format!("the unary operator `{other}`"),
                    )),
                }
            }
            E::IsNull(e) => self.is_predicate(e, UnaryOp::IsNull, cx, span),
            E::IsNotNull(e) => self.is_predicate(e, UnaryOp::IsNotNull, cx, span),
            E::IsTrue(e) => self.is_predicate(e, UnaryOp::IsTrue, cx, span),
            E::IsNotTrue(e) => self.is_predicate(e, UnaryOp::IsNotTrue, cx, span),
            E::IsFalse(e) => self.is_predicate(e, UnaryOp::IsFalse, cx, span),
            E::IsNotFalse(e) => self.is_predicate(e, UnaryOp::IsNotFalse, cx, span),
            E::IsUnknown(e) => self.is_predicate(e, UnaryOp::IsNull, cx, span),
            E::IsNotUnknown(e) => self.is_predicate(e, UnaryOp::IsNotNull, cx, span),
            E::IsDistinctFrom(l, r) | E::IsNotDistinctFrom(l, r)
                if super::row_compare::is_row_value(l) || super::row_compare::is_row_value(r) =>
            {
                let distinct = matches!(expr, E::IsDistinctFrom(..));
                self.bind_row_distinct(l, r, distinct, cx, span)
            }
            E::IsDistinctFrom(l, r) | E::IsNotDistinctFrom(l, r) => {
                let l = self.bind_expr(l, cx, span)?;
                let r = self.bind_expr(r, cx, span)?;
                let op = if matches!(expr, E::IsDistinctFrom(..)) {
                    BinaryOp::IsDistinctFrom
                } else {
                    BinaryOp::IsNotDistinctFrom
                };
                let mut e = self.comparison(op, l, r, span)?;
                e.ty.nullable = false;
                Ok(e)
            }
            E::Between {
                expr: operand,
                negated,
                low,
                high,
            } => {
                let x = self.bind_expr(operand, cx, span)?;
                let lo = self.bind_expr(low, cx, span)?;
                let hi = self.bind_expr(high, cx, span)?;
                let ge = self.comparison(BinaryOp::GtEq, x.clone(), lo, span)?;
                let le = self.comparison(BinaryOp::LtEq, x, hi, span)?;
                let both = logical(BinaryOp::And, ge, le, span);
                Ok(if *negated {
                    unary(UnaryOp::Not, both, span)
                } else {
                    both
                })
            }
            E::In {
                expr: operand,
                target,
                negated,
                ..
            } => {
                let list = match target {
                    sql::InTarget::List(list) => list,
                    sql::InTarget::Subquery(query) => {
                        if let E::Tuple(fields) = operand.as_ref() {
                            return self.row_in_mark(fields, query, *negated, cx, span);
                        }
                        return self.in_mark(operand, query, *negated, cx, span);
                    }
                    _ => return Err(Diagnostic::unsupported(span, "IN with a subquery")),
                };
                if let Some(fields) = super::row_compare::row_fields(operand) {
                    return self.bind_row_in(&fields, list, *negated, cx, span);
                }
                let x = self.bind_expr(operand, cx, span)?;
                let mut items = Vec::with_capacity(list.len());
                for item in list {
                    items.push(self.bind_expr(item, cx, span)?);
                }
                // Flink folds string literals in an IN list to the operand's
                // type (`int_col IN ('1', '2')` is accepted), although it
                // refuses comparing a string column with a number.
                if x.ty.is_numeric() {
                    items = items
                        .into_iter()
                        .map(|i| match i.kind {
                            ExprKind::Literal(Literal::String(_)) => {
                                cast_to(i, DataType::not_null(x.ty.kind))
                            }
                            _ => i,
                        })
                        .collect();
                }
                let mut types = vec![x.ty];
                types.extend(items.iter().map(|i| i.ty));
                let common = typing::common_type(&types).ok_or_else(|| {
                    Diagnostic::error(
                        span,
                        format!(
                            "IN list values must have a type comparable with {}, found {}",
                            x.ty,
                            items
                                .iter()
                                .map(|i| i.ty.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
                let nullable = types.iter().any(|t| t.nullable);
                Ok(Expr {
                    kind: ExprKind::InList {
                        operand: Box::new(cast_to_kind(x, common.kind)),
                        list: items
                            .into_iter()
                            .map(|i| cast_to_kind(i, common.kind))
                            .collect(),
                        negated: *negated,
                    },
                    ty: DataType::new(TypeKind::Boolean, nullable),
                    span,
                })
            }
            E::Like {
                negated,
                any,
                expr: operand,
                pattern,
                escape_char,
            } => {
                if *any {
                    return Err(Diagnostic::unsupported(span, "LIKE ANY"));
                }
                let x = self.bind_expr(operand, cx, span)?;
                let p = self.bind_expr(pattern, cx, span)?;
                if x.ty.is_null_type() || p.ty.is_null_type() {
                    // Calcite's operand check, in its words (an untyped NULL
                    // pattern is typed like the operand in its message).
                    let op = if *negated { "NOT LIKE" } else { "LIKE" };
                    let left = if x.ty.is_null_type() {
                        "<NULL>".to_string()
                    } else {
                        format!("<{}>", typing::calcite_type_name(&x.ty))
                    };
                    let right = if p.ty.is_null_type() {
                        left.clone()
                    } else {
                        format!("<{}>", typing::calcite_type_name(&p.ty))
                    };
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "Cannot apply '{op}' to arguments of type '{op}({left}, {right})'. \
                             Supported form(s): '{op}(<STRING>, <STRING>, <STRING>)'"
                        ),
                    ));
                }
                for (e, what) in [(&x, "operand"), (&p, "pattern")] {
                    if !e.ty.is_string() {
                        return Err(Diagnostic::error(
                            e.span,
                            format!("the {what} of LIKE must be a string, but it is {}", e.ty),
                        ));
                    }
                }
                let escape = match escape_char.as_deref() {
                    None => None,
                    Some(sql::Expr::Value(v)) => match &v.value {
                        Value::SingleQuotedString(s) if s.chars().count() == 1 => s.chars().next(),
                        _ => {
                            return Err(Diagnostic::error(
                                span,
                                "the LIKE escape must be a single character",
                            ))
                        }
                    },
                    Some(_) => {
                        return Err(Diagnostic::error(
                            span,
                            "the LIKE escape must be a string literal",
                        ))
                    }
                };
                let nullable = x.ty.nullable || p.ty.nullable;
                Ok(Expr {
                    kind: ExprKind::Like {
                        operand: Box::new(cast_to(x, DataType::string())),
                        pattern: Box::new(cast_to(p, DataType::string())),
                        escape,
                        negated: *negated,
                    },
                    ty: DataType::new(TypeKind::Boolean, nullable),
                    span,
                })
            }
            E::ILike { .. } => Err(Diagnostic::unsupported(span, "ILIKE")),
            E::SimilarTo { .. } => Err(Diagnostic::unsupported(span, "SIMILAR TO")),
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.bind_case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                cx,
                span,
            ),
            E::Cast {
                kind,
                expr: operand,
                data_type,
                format,
            } => {
                if format.is_some() {
                    return Err(Diagnostic::unsupported(span, "CAST ... FORMAT"));
                }
                let try_cast = match kind {
                    CastKind::Cast => false,
                    CastKind::TryCast => true,
                    CastKind::SafeCast | CastKind::DoubleColon => {
                        return Err(Diagnostic::unsupported(
                            span,
                            &format!("the cast syntax of `{expr}`"),
                        ))
                    }
                };
                let e = self.bind_expr(operand, cx, span)?;
                let target =
                    crate::types::from_sql(data_type).map_err(|m| Diagnostic::error(span, m))?;
                let target = DataType::new(target, e.ty.nullable || try_cast);
                if !typing::can_cast(&e.ty, &target) {
                    let mut d =
                        Diagnostic::error(span, format!("cannot cast {} to {}", e.ty, target.kind));
                    if e.ty.is_numeric() && matches!(target.kind, TypeKind::Timestamp(_)) {
                        d = d.with_help("for epoch seconds, use TO_TIMESTAMP(FROM_UNIXTIME(seconds)) as Flink recommends");
                    } else if e.ty.kind.is_timestamp() && target.is_numeric() {
                        d = d
                            .with_help("for epoch seconds, use UNIX_TIMESTAMP(CAST(ts AS STRING))");
                    }
                    return Err(d);
                }
                if e.ty.kind == target.kind && !try_cast {
                    return Ok(e);
                }
                Ok(Expr {
                    kind: ExprKind::Cast {
                        operand: Box::new(e),
                        try_cast,
                    },
                    ty: target,
                    span,
                })
            }
            E::Extract {
                field,
                expr: operand,
                ..
            } => {
                let unit = time_unit(field, span)?;
                let e = self.bind_expr(operand, cx, span)?;
                let valid = match e.ty.kind {
                    TypeKind::Date => {
                        unit <= TimeUnit::Day
                            || matches!(
                                unit,
                                TimeUnit::DayOfWeek | TimeUnit::DayOfYear | TimeUnit::Epoch
                            )
                    }
                    TypeKind::Time(_) => unit >= TimeUnit::Hour && unit <= TimeUnit::Nanosecond,
                    TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => true,
                    TypeKind::IntervalDayTime | TypeKind::IntervalYearMonth => true,
                    _ => false,
                };
                if !valid {
                    return Err(Diagnostic::error(
                        span,
                        format!("cannot EXTRACT {unit:?} from {}", e.ty)
                            .to_uppercase()
                            .replace("CANNOT EXTRACT", "cannot EXTRACT")
                            .replace(" FROM ", " from "),
                    ));
                }
                let nullable = e.ty.nullable;
                Ok(Expr {
                    kind: ExprKind::Extract {
                        unit,
                        operand: Box::new(e),
                    },
                    ty: DataType::new(TypeKind::BigInt, nullable),
                    span,
                })
            }
            E::Floor {
                expr: operand,
                field,
            }
            | E::Ceil {
                expr: operand,
                field,
            } => {
                let ceil = matches!(expr, E::Ceil { .. });
                let e = self.bind_expr(operand, cx, span)?;
                match field {
                    CeilFloorKind::DateTimeField(DateTimeField::NoDateTime) => {
                        self.call(if ceil { "CEIL" } else { "FLOOR" }, vec![e], span)
                    }
                    CeilFloorKind::DateTimeField(field) => {
                        let unit = time_unit(field, span)?;
                        if !e.ty.kind.is_temporal()
                            || matches!(
                                unit,
                                TimeUnit::Epoch | TimeUnit::DayOfWeek | TimeUnit::DayOfYear
                            )
                        {
                            return Err(Diagnostic::error(
                                span,
                                format!(
                                    "cannot round {} to {}",
                                    e.ty,
                                    format!("{unit:?}").to_uppercase()
                                ),
                            ));
                        }
                        let ty = e.ty;
                        Ok(Expr {
                            kind: ExprKind::RoundTime {
                                unit,
                                ceil,
                                operand: Box::new(e),
                            },
                            ty,
                            span,
                        })
                    }
                    CeilFloorKind::Scale(_) => {
                        Err(Diagnostic::unsupported(span, "FLOOR/CEIL with a scale"))
                    }
                }
            }
            E::Substring {
                expr: operand,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.bind_expr(operand, cx, span)?];
                if let Some(from) = substring_from {
                    args.push(self.bind_expr(from, cx, span)?);
                }
                if let Some(len) = substring_for {
                    args.push(self.bind_expr(len, cx, span)?);
                }
                self.call("SUBSTRING", args, span)
            }
            E::Trim {
                trim_where,
                trim_what,
                expr: operand,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return Err(Diagnostic::unsupported(span, "TRIM with a character list"));
                }
                let name = match trim_where {
                    None | Some(TrimWhereField::Both) => "TRIM",
                    Some(TrimWhereField::Leading) => "LTRIM",
                    Some(TrimWhereField::Trailing) => "RTRIM",
                };
                let mut args = vec![self.bind_expr(operand, cx, span)?];
                if let Some(what) = trim_what {
                    args.push(self.bind_expr(what, cx, span)?);
                }
                self.call(name, args, span)
            }
            E::Position { expr: needle, r#in } => {
                let args = vec![
                    self.bind_expr(needle, cx, span)?,
                    self.bind_expr(r#in, cx, span)?,
                ];
                self.call("POSITION", args, span)
            }
            E::Function(function) => self.bind_function(function, cx, span),
            E::Prefixed { prefix, .. }
                if prefix.value == crate::parser::dialect::TABLE_ARGUMENT_PREFIX =>
            {
                Err(Diagnostic::error(
                    span,
                    "`TABLE name` is only allowed as the first argument of a window table function",
                ))
            }
            E::Subquery(query) => self.scalar_subquery(query, cx, span),
            E::Exists { subquery, negated } => self.exists_mark(subquery, *negated, cx, span),
            // `= ANY` is IN, `<> ALL` is NOT IN.
            E::AnyOp {
                left,
                compare_op: BinaryOperator::Eq,
                right,
                ..
            } if matches!(**right, sql::Expr::Subquery(_)) => {
                let sql::Expr::Subquery(query) = &**right else {
                    unreachable!("matched")
                };
                self.in_mark(left, query, false, cx, span)
            }
            E::AllOp {
                left,
                compare_op: BinaryOperator::NotEq,
                right,
            } if matches!(**right, sql::Expr::Subquery(_)) => {
                let sql::Expr::Subquery(query) = &**right else {
                    unreachable!("matched")
                };
                self.in_mark(left, query, true, cx, span)
            }
            E::AnyOp {
                left,
                compare_op,
                right,
                ..
            }
            | E::AllOp {
                left,
                compare_op,
                right,
            } if matches!(**right, sql::Expr::Subquery(_)) => {
                let sql::Expr::Subquery(query) = &**right else {
                    unreachable!("matched")
                };
                let all = matches!(expr, E::AllOp { .. });
                match super::subquery::comparison_op(compare_op) {
                    Some(op) => self.quantified_mark(left, op, all, query, cx, span),
                    None => Err(Diagnostic::unsupported(
                        span,
                        &format!("the quantified comparison `{compare_op}`"),
                    )),
                }
            }
            E::Wildcard(_) | E::QualifiedWildcard(..) => Err(Diagnostic::error(
                span,
                "`*` is only allowed in the SELECT list and in COUNT(*)",
            )),
            E::AtTimeZone { .. } => Err(Diagnostic::unsupported(span, "AT TIME ZONE")),
            E::Array(_) | E::Map(_) | E::Struct { .. } | E::Tuple(_) => Err(
                Diagnostic::unsupported(span, "ARRAY, MAP, ROW and tuple values"),
            ),
            E::Overlay { .. } => Err(Diagnostic::unsupported(span, "OVERLAY")),
            other => Err(Diagnostic::unsupported(
                span,
                &format!("the expression `{other}`"),
            )),
        }
    }

    fn bind_column(
        &mut self,
        idents: &[sql::Ident],
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let parts: Vec<(&str, Span)> = idents
            .iter()
            .map(|i| (i.value.as_str(), self.span(i.span, span)))
            .collect();
        let (index, ty) = match cx.scope.resolve(&parts) {
            Ok(found) => found,
            Err(d) => match self.resolve_outer(&parts) {
                Some(found) => found,
                None => match self.resolve_select_outer(&parts, cx.clause, span) {
                    Some(found) => found?,
                    None => return Err(self.enclosing_reference(&parts, cx.clause).unwrap_or(d)),
                },
            },
        };
        Ok(Expr {
            kind: ExprKind::Column(index),
            ty,
            span,
        })
    }

    fn is_predicate(
        &mut self,
        operand: &sql::Expr,
        op: UnaryOp,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let e = self.bind_expr(operand, cx, span)?;
        let e = if matches!(op, UnaryOp::IsNull | UnaryOp::IsNotNull) {
            e
        } else {
            expect_boolean(e, "IS TRUE / IS FALSE")?
        };
        Ok(Expr {
            kind: ExprKind::Unary {
                op,
                operand: Box::new(e),
            },
            ty: DataType::not_null(TypeKind::Boolean),
            span,
        })
    }

    fn binary(&mut self, op: &BinaryOperator, l: Expr, r: Expr, span: Span) -> BResult<Expr> {
        let arith = |a| Some(a);
        let (bop, arith_op) = match op {
            BinaryOperator::Plus => (BinaryOp::Plus, arith(ArithOp::Plus)),
            BinaryOperator::Minus => (BinaryOp::Minus, arith(ArithOp::Minus)),
            BinaryOperator::Multiply => (BinaryOp::Multiply, arith(ArithOp::Multiply)),
            BinaryOperator::Divide => (BinaryOp::Divide, arith(ArithOp::Divide)),
            BinaryOperator::Modulo => (BinaryOp::Modulo, arith(ArithOp::Modulo)),
            BinaryOperator::Eq => return self.comparison(BinaryOp::Eq, l, r, span),
            BinaryOperator::NotEq => return self.comparison(BinaryOp::NotEq, l, r, span),
            BinaryOperator::Lt => return self.comparison(BinaryOp::Lt, l, r, span),
            BinaryOperator::LtEq => return self.comparison(BinaryOp::LtEq, l, r, span),
            BinaryOperator::Gt => return self.comparison(BinaryOp::Gt, l, r, span),
            BinaryOperator::GtEq => return self.comparison(BinaryOp::GtEq, l, r, span),
            BinaryOperator::And | BinaryOperator::Or => {
                let bop = if matches!(op, BinaryOperator::And) {
                    BinaryOp::And
                } else {
                    BinaryOp::Or
                };
                let l = expect_boolean(l, bop.symbol())?;
                let r = expect_boolean(r, bop.symbol())?;
                return Ok(logical(bop, l, r, span));
            }
            BinaryOperator::StringConcat => {
                let ty = typing::concat_operator(&l.ty, &r.ty)
                    .map_err(|m| Diagnostic::error(span, m))?;
                return Ok(Expr {
                    kind: ExprKind::Binary {
                        op: BinaryOp::Concat,
                        left: Box::new(l),
                        right: Box::new(r),
                    },
                    ty,
                    span,
                });
            }
            other => {
                return Err(Diagnostic::unsupported(
                    span,
                    &format!("the operator `{other}`"),
                ))
            }
        };
        let arith_op = arith_op.expect("arithmetic");
        if matches!(arith_op, ArithOp::Divide | ArithOp::Modulo) && is_zero_literal(&r) {
            return Err(Diagnostic::error(span, "division by zero").with_note(
                "Flink evaluates constant expressions while planning and fails the job",
            ));
        }
        let ty =
            typing::arithmetic(arith_op, &l.ty, &r.ty).map_err(|m| Diagnostic::error(span, m))?;
        let (l, r) = match ty.kind {
            TypeKind::Decimal { .. } => (as_decimal(l), as_decimal(r)),
            // Flink computes an integer `%` in the wider operand type and then
            // narrows to the result (the right operand's type): keep the operands.
            k if k.is_integer()
                && arith_op == ArithOp::Modulo
                && l.ty.kind.is_integer()
                && r.ty.kind.is_integer() =>
            {
                (l, r)
            }
            k if k.is_numeric() => (cast_to_kind(l, k), cast_to_kind(r, k)),
            _ => (l, r),
        };
        Ok(Expr {
            kind: ExprKind::Binary {
                op: bop,
                left: Box::new(l),
                right: Box::new(r),
            },
            ty,
            span,
        })
    }

    pub(crate) fn comparison(
        &mut self,
        op: BinaryOp,
        l: Expr,
        r: Expr,
        span: Span,
    ) -> BResult<Expr> {
        let common = typing::comparison_type_for(op.symbol(), &l.ty, &r.ty)
            .map_err(|m| Diagnostic::error(span, m))?;
        let nullable = l.ty.nullable || r.ty.nullable;
        Ok(Expr {
            kind: ExprKind::Binary {
                op,
                left: Box::new(cast_to_kind(l, common.kind)),
                right: Box::new(cast_to_kind(r, common.kind)),
            },
            ty: DataType::new(TypeKind::Boolean, nullable),
            span,
        })
    }

    fn bind_case(
        &mut self,
        operand: Option<&sql::Expr>,
        conditions: &[sql::CaseWhen],
        else_result: Option<&sql::Expr>,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let operand = match operand {
            Some(o) => Some(self.bind_expr(o, cx, span)?),
            None => None,
        };
        let mut branches = Vec::new();
        for when in conditions {
            let cond = match &operand {
                Some(x) => {
                    let v = self.bind_expr(&when.condition, cx, span)?;
                    let vspan = v.span;
                    self.comparison(BinaryOp::Eq, x.clone(), v, vspan)?
                }
                None => {
                    // Only tested for TRUE: an IN there may read the
                    // enclosing query in its SELECT list (semi_select.rs).
                    let mark = self.note_positive(&when.condition);
                    let bound = self.bind_condition(
                        &when.condition,
                        &mut ExprCx {
                            scope: cx.scope,
                            clause: "CASE WHEN",
                            grouping: cx.grouping.as_deref_mut(),
                        },
                        span,
                    );
                    self.forget_positive(mark);
                    bound?
                }
            };
            let result = self.bind_expr(&when.result, cx, span)?;
            branches.push((cond, result));
        }
        let otherwise = match else_result {
            Some(e) => Some(self.bind_expr(e, cx, span)?),
            None => None,
        };
        let mut types: Vec<DataType> = branches.iter().map(|(_, r)| r.ty).collect();
        // A missing ELSE is ELSE NULL, which takes part in the common type.
        types.push(otherwise.as_ref().map_or(DataType::null(), |o| o.ty));
        let common = typing::common_type(&types).ok_or_else(|| {
            Diagnostic::error(
                span,
                format!(
                    "CASE branches have incompatible types: {}",
                    types
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let branches = branches
            .into_iter()
            .map(|(c, r)| (c, cast_to_kind(r, common.kind)))
            .collect();
        Ok(Expr {
            kind: ExprKind::Case {
                branches,
                otherwise: otherwise.map(|o| Box::new(cast_to_kind(o, common.kind))),
            },
            ty: common,
            span,
        })
    }

    fn bind_function(
        &mut self,
        function: &sql::Function,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        if let Some(window) = &function.over {
            return self.bind_over_call(function, window, cx, span);
        }
        if function.filter.is_some() {
            return Err(Diagnostic::error(
                span,
                "FILTER (WHERE ...) is only allowed on aggregate functions",
            ));
        }
        let name = function_name(function, span)?;
        if name.eq_ignore_ascii_case("TIMESTAMPDIFF") || name.eq_ignore_ascii_case("TIMESTAMPADD") {
            return self.bind_timestamp_arith(&name.to_ascii_uppercase(), function, cx, span);
        }
        let args = match &function.args {
            FunctionArguments::None => Vec::new(),
            FunctionArguments::Subquery(_) => {
                return Err(Diagnostic::unsupported(
                    span,
                    "a subquery as a function argument",
                ))
            }
            FunctionArguments::List(list) => {
                if list.duplicate_treatment.is_some() {
                    return Err(Diagnostic::error(
                        span,
                        format!("DISTINCT is only allowed in aggregate functions, not in {name}"),
                    ));
                }
                if !list.clauses.is_empty() {
                    return Err(Diagnostic::unsupported(
                        span,
                        &format!("clauses inside {name}(...)"),
                    ));
                }
                let mut args = Vec::with_capacity(list.args.len());
                for arg in &list.args {
                    match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => {
                            args.push(self.bind_expr(e, cx, span)?)
                        }
                        FunctionArg::Unnamed(_) => {
                            return Err(Diagnostic::error(
                                span,
                                format!("`*` is not a valid argument of {name}"),
                            ))
                        }
                        _ => return Err(Diagnostic::unsupported(span, "named function arguments")),
                    }
                }
                args
            }
        };
        self.call(&name, args, span)
    }

    /// `TIMESTAMPDIFF(unit, start, end)` and `TIMESTAMPADD(unit, count, ts)`:
    /// the first argument is a time unit keyword, not an expression.
    fn bind_timestamp_arith(
        &mut self,
        name: &str,
        function: &sql::Function,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let args: Vec<&sql::Expr> = match &function.args {
            FunctionArguments::List(list) => list
                .args
                .iter()
                .filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let [unit, a, b] = args.as_slice() else {
            return Err(Diagnostic::error(
                span,
                format!("wrong number of arguments for {name}: expected 3 (unit, ...)"),
            ));
        };
        let unit = match unit {
            sql::Expr::Identifier(i) => match i.value.to_ascii_uppercase().as_str() {
                "YEAR" => TimeUnit::Year,
                "QUARTER" => TimeUnit::Quarter,
                "MONTH" => TimeUnit::Month,
                "WEEK" => TimeUnit::Week,
                "DAY" => TimeUnit::Day,
                "HOUR" => TimeUnit::Hour,
                "MINUTE" => TimeUnit::Minute,
                "SECOND" => TimeUnit::Second,
                _ => return Err(Diagnostic::error(span, format!("{name} needs a time unit (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND) first, found `{}`", i.value))),
            },
            other => return Err(Diagnostic::error(span, format!("{name} needs a time unit first, found `{other}`"))),
        };
        let a = self.bind_expr(a, cx, span)?;
        let b = self.bind_expr(b, cx, span)?;
        if name == "TIMESTAMPDIFF" {
            for e in [&a, &b] {
                if !matches!(
                    e.ty.kind,
                    TypeKind::Date | TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_)
                ) {
                    return Err(Diagnostic::error(
                        e.span,
                        format!(
                            "TIMESTAMPDIFF compares dates or timestamps, but this is {}",
                            e.ty
                        ),
                    ));
                }
            }
            let nullable = a.ty.nullable || b.ty.nullable;
            return Ok(Expr {
                kind: ExprKind::TimestampDiff {
                    unit,
                    start: Box::new(a),
                    end: Box::new(b),
                },
                ty: DataType::new(TypeKind::Int, nullable),
                span,
            });
        }
        if !a.ty.kind.is_integer() {
            return Err(Diagnostic::error(
                a.span,
                format!(
                    "the count of TIMESTAMPADD must be an integer, but it is {}",
                    a.ty
                ),
            ));
        }
        if !matches!(
            b.ty.kind,
            TypeKind::Date | TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_)
        ) {
            return Err(Diagnostic::error(
                b.span,
                format!(
                    "TIMESTAMPADD adds to a date or timestamp, but this is {}",
                    b.ty
                ),
            ));
        }
        let ty = DataType::new(b.ty.kind, a.ty.nullable || b.ty.nullable);
        Ok(Expr {
            kind: ExprKind::TimestampAdd {
                unit,
                count: Box::new(cast_to_kind(a, TypeKind::Int)),
                operand: Box::new(b),
            },
            ty,
            span,
        })
    }

    /// Resolves and type-checks a scalar function call.
    pub(crate) fn call(&mut self, name: &str, args: Vec<Expr>, span: Span) -> BResult<Expr> {
        let types: Vec<DataType> = args.iter().map(|a| a.ty).collect();
        let int_literals: Vec<Option<i64>> = args
            .iter()
            .map(|a| match a.kind {
                ExprKind::Literal(Literal::Integer(v)) => Some(v),
                _ => None,
            })
            .collect();
        match functions::resolve_scalar_with_literals(name, &types, &int_literals) {
            Ok(sig) => {
                let args = args
                    .into_iter()
                    .zip(&sig.arg_types)
                    .map(|(a, t)| {
                        if t.is_null_type() {
                            a
                        } else {
                            cast_to_kind(a, t.kind)
                        }
                    })
                    .collect();
                Ok(Expr {
                    kind: ExprKind::Call {
                        function: sig.function,
                        args,
                    },
                    ty: sig.result,
                    span,
                })
            }
            Err(e) => Err(function_error(name, &types, e, span)),
        }
    }

    fn bind_aggregate(
        &mut self,
        function: &sql::Function,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let name = function_name(function, span)?;
        if function.over.is_some() {
            return Err(Diagnostic::unsupported(span, "OVER windows"));
        }
        if !function.within_group.is_empty() {
            return Err(Diagnostic::error(
                span,
                format!(
                    "Aggregate expression '{}' must not contain a WITHIN GROUP clause",
                    name.to_ascii_uppercase()
                ),
            )
            .with_note("this is Flink's message"));
        }
        let grouping = cx.grouping.as_deref_mut().expect("grouped mode");
        let input = grouping.input.clone();
        let (distinct, raw_args) = match &function.args {
            FunctionArguments::List(list) => {
                if !list.clauses.is_empty() {
                    return Err(Diagnostic::unsupported(
                        span,
                        &format!("clauses inside {name}(...)"),
                    ));
                }
                (
                    matches!(
                        list.duplicate_treatment,
                        Some(sql::DuplicateTreatment::Distinct)
                    ),
                    list.args.as_slice(),
                )
            }
            _ => (false, &[][..]),
        };
        // Their subqueries join the aggregate's input (pre_aggregate.rs).
        let opened = self.begin_aggregate_arguments();
        let bound = self.bind_aggregate_arguments(function, &name, raw_args, &input, span);
        let (args, filter) = self.end_aggregate_arguments(opened, bound)?;
        // LISTAGG's separator is a literal (checked as over a window): the
        // call keeps its text, not an input column.
        let (args, separator) = if name.eq_ignore_ascii_case("LISTAGG") {
            let (value, separator) =
                super::over::listagg::check_args(args, self.through_closing_paren(span))?;
            let text = separator.map(|s| match s.kind {
                ExprKind::Literal(Literal::String(text)) => text,
                _ => unreachable!("check_args accepts a string literal only"),
            });
            (vec![value], text)
        } else {
            (args, None)
        };
        let types: Vec<DataType> = args.iter().map(|a| a.ty).collect();
        let has_group_by = cx.grouping.as_deref().is_some_and(|g| g.has_group_by);
        let sig = match functions::resolve_aggregate_in(&name, distinct, &types, has_group_by) {
            Some(Ok(sig)) => sig,
            Some(Err(e)) => return Err(function_error(&name, &types, e, span)),
            None => {
                return Err(Diagnostic::error(
                    span,
                    format!("{name} is not an aggregate function"),
                ))
            }
        };
        let grouping = cx.grouping.as_deref_mut().expect("grouped mode");
        let arg_positions = args
            .into_iter()
            .zip(&sig.arg_types)
            .map(|(a, t)| {
                grouping.arg_position(if t.is_null_type() {
                    a
                } else {
                    cast_to_kind(a, t.kind)
                })
            })
            .collect();
        let filter = filter.map(|f| grouping.arg_position(f));
        let call = AggregateCall {
            function: sig.function,
            distinct: sig.distinct,
            args: arg_positions,
            filter,
            ty: sig.result,
            separator,
            name: String::new(),
        };
        let index = match grouping.aggregates.iter().position(|a| {
            a.function == call.function
                && a.distinct == call.distinct
                && a.args == call.args
                && a.filter == call.filter
                && a.separator == call.separator
                && a.ty == call.ty
        }) {
            Some(i) => i,
            None => {
                grouping.aggregates.push(AggregateCall {
                    name: format!("EXPR${}", grouping.aggregates.len()),
                    ..call
                });
                grouping.aggregates.len() - 1
            }
        };
        Ok(Expr {
            kind: ExprKind::Column(grouping.keys.len() + index),
            ty: sig.result,
            span,
        })
    }

    /// An aggregate call's arguments and FILTER, over its input scope.
    fn bind_aggregate_arguments(
        &mut self,
        function: &sql::Function,
        name: &str,
        raw_args: &[FunctionArg],
        input: &Scope,
        span: Span,
    ) -> BResult<(Vec<Expr>, Option<Expr>)> {
        let mut args = Vec::new();
        for arg in raw_args {
            match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Wildcard)
                    if raw_args.len() == 1 && name.eq_ignore_ascii_case("COUNT") => {}
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => {
                    if contains_aggregate(e) {
                        // At the outer call, as Flink reports it.
                        return Err(Diagnostic::error(
                            self.through_closing_paren(span),
                            "aggregate function calls cannot be nested",
                        )
                        .with_related(self.span(e.span(), span), "the inner aggregate call"));
                    }
                    let mut plain = ExprCx::plain(input, "an aggregate argument");
                    self.select_outer_args(true);
                    let bound = self.bind_expr(e, &mut plain, span);
                    self.select_outer_args(false);
                    let bound = bound?;
                    self.check_select_outer(&bound)?;
                    args.push(bound);
                }
                _ => {
                    return Err(Diagnostic::error(
                        span,
                        format!("invalid argument for {name}"),
                    ))
                }
            }
        }
        let filter = match &function.filter {
            Some(f) => {
                let mut plain = ExprCx::plain(input, "FILTER");
                Some(self.bind_condition(f, &mut plain, span)?)
            }
            None => None,
        };
        Ok((args, filter))
    }
}

fn function_name(function: &sql::Function, span: Span) -> BResult<String> {
    let parts: Vec<&str> = function
        .name
        .0
        .iter()
        .filter_map(|p| p.as_ident().map(|i| i.value.as_str()))
        .collect();
    match parts.as_slice() {
        [name] => Ok(name.to_string()),
        _ => Err(Diagnostic::error(
            span,
            format!(
                "catalog functions (`{}`) are not supported; only built-in functions",
                function.name
            ),
        )),
    }
}

pub(crate) fn function_error(
    name: &str,
    types: &[DataType],
    e: FunctionError,
    span: Span,
) -> Diagnostic {
    let signature = format!(
        "{}({})",
        name.to_uppercase(),
        types
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    match e {
        FunctionError::Unknown { suggestion } => {
            let mut d = Diagnostic::error(span, format!("unknown function `{name}`"));
            let suggestion = suggestion.or_else(|| {
                did_you_mean(
                    &name.to_uppercase(),
                    functions::known_function_names().iter().copied(),
                )
            });
            if let Some(s) = suggestion {
                d = d.with_help(format!("did you mean {s}?"));
            }
            d
        }
        FunctionError::Arity { expected } => Diagnostic::error(
            span,
            format!(
                "wrong number of arguments for {}: expected {expected}, found {}",
                name.to_uppercase(),
                types.len()
            ),
        ),
        FunctionError::ArgumentTypes { message } => {
            Diagnostic::error(span, format!("invalid argument types for {signature}"))
                .with_note(message)
        }
    }
}

fn is_zero_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Literal(Literal::Integer(0)) => true,
        ExprKind::Literal(Literal::Decimal(d)) => {
            d.chars().all(|c| matches!(c, '0' | '.' | '-' | '+'))
        }
        _ => false,
    }
}

fn expect_boolean(e: Expr, op: &str) -> BResult<Expr> {
    match e.ty.kind {
        TypeKind::Boolean => Ok(e),
        // Flink refuses an untyped NULL operand of NOT, AND, OR and IS TRUE
        // (`CAST(NULL AS BOOLEAN)` is fine).
        TypeKind::Null => Err(Diagnostic::error(e.span, typing::ILLEGAL_NULL)
            .with_help("write CAST(NULL AS BOOLEAN)")),
        _ => Err(Diagnostic::error(
            e.span,
            format!("{op} expects BOOLEAN operands, but this is {}", e.ty),
        )),
    }
}

fn unary(op: UnaryOp, e: Expr, span: Span) -> Expr {
    let ty = e.ty;
    Expr {
        kind: ExprKind::Unary {
            op,
            operand: Box::new(e),
        },
        ty,
        span,
    }
}

fn logical(op: BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
    let nullable = l.ty.nullable || r.ty.nullable;
    Expr {
        kind: ExprKind::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
        },
        ty: DataType::new(TypeKind::Boolean, nullable),
        span,
    }
}

/// Integers meet decimals as DECIMAL(p, 0); decimals stay as they are.
fn as_decimal(e: Expr) -> Expr {
    match e.ty.kind {
        TypeKind::Decimal { .. } => e,
        k => match k.decimal_precision_scale() {
            Some((precision, scale)) => cast_to_kind(e, TypeKind::Decimal { precision, scale }),
            None => e,
        },
    }
}

fn time_unit(field: &DateTimeField, span: Span) -> BResult<TimeUnit> {
    use DateTimeField as F;
    Ok(match field {
        F::Millennium | F::Millenium => TimeUnit::Millennium,
        F::Century => TimeUnit::Century,
        F::Decade => TimeUnit::Decade,
        F::Year | F::Years => TimeUnit::Year,
        F::Quarter => TimeUnit::Quarter,
        F::Month | F::Months => TimeUnit::Month,
        F::Week(None) | F::Weeks => TimeUnit::Week,
        F::Day | F::Days => TimeUnit::Day,
        F::Hour | F::Hours => TimeUnit::Hour,
        F::Minute | F::Minutes => TimeUnit::Minute,
        F::Second | F::Seconds => TimeUnit::Second,
        F::Millisecond | F::Milliseconds => TimeUnit::Millisecond,
        F::Microsecond | F::Microseconds => TimeUnit::Microsecond,
        F::Nanosecond | F::Nanoseconds => TimeUnit::Nanosecond,
        F::Dow | F::DayOfWeek => TimeUnit::DayOfWeek,
        F::Doy | F::DayOfYear => TimeUnit::DayOfYear,
        F::Epoch => TimeUnit::Epoch,
        other => {
            return Err(Diagnostic::unsupported(
                span,
                &format!("the time unit {other}"),
            ))
        }
    })
}

/// The aggregate function call this expression is, if it is one.
fn aggregate_call(expr: &sql::Expr) -> Option<&sql::Function> {
    match expr {
        sql::Expr::Function(f) if f.over.is_none() => {
            let name = f.name.0.last()?.as_ident()?.value.as_str();
            (functions::resolve_aggregate(name, false, &[]).is_some()
                || super::grouping::is_grouping_function(name))
            .then_some(f)
        }
        _ => None,
    }
}

/// Whether an aggregate call appears anywhere inside (subqueries excluded).
pub(crate) fn contains_aggregate(expr: &sql::Expr) -> bool {
    contains_call(expr, &|e| aggregate_call(e).is_some())
}

/// Whether a function call that `is_call` accepts appears anywhere inside
/// (subqueries excluded), in arguments and OVER specifications too.
pub(crate) fn contains_call(expr: &sql::Expr, is_call: &dyn Fn(&sql::Expr) -> bool) -> bool {
    use sql::Expr as E;
    if is_call(expr) {
        return true;
    }
    let inside = |e: &sql::Expr| contains_call(e, is_call);
    let any = |es: &[&sql::Expr]| es.iter().any(|e| inside(e));
    match expr {
        E::Nested(e)
        | E::IsNull(e)
        | E::IsNotNull(e)
        | E::IsTrue(e)
        | E::IsNotTrue(e)
        | E::IsFalse(e)
        | E::IsNotFalse(e)
        | E::IsUnknown(e)
        | E::IsNotUnknown(e)
        | E::UnaryOp { expr: e, .. }
        | E::Cast { expr: e, .. }
        | E::Extract { expr: e, .. }
        | E::Floor { expr: e, .. }
        | E::Ceil { expr: e, .. } => inside(e),
        E::BinaryOp { left, right, .. }
        | E::IsDistinctFrom(left, right)
        | E::IsNotDistinctFrom(left, right) => any(&[left, right]),
        E::Between {
            expr, low, high, ..
        } => any(&[expr, low, high]),
        E::In { expr, target, .. } => {
            inside(expr) || matches!(target, sql::InTarget::List(l) if l.iter().any(inside))
        }
        E::Like { expr, pattern, .. } => any(&[expr, pattern]),
        // The operand of `SUM(v) > ALL (subquery)`.
        E::AnyOp { left, .. } | E::AllOp { left, .. } => inside(left),
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().is_some_and(inside)
                || conditions
                    .iter()
                    .any(|w| inside(&w.condition) || inside(&w.result))
                || else_result.as_deref().is_some_and(inside)
        }
        E::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            inside(expr)
                || substring_from.as_deref().is_some_and(inside)
                || substring_for.as_deref().is_some_and(inside)
        }
        E::Trim {
            expr, trim_what, ..
        } => inside(expr) || trim_what.as_deref().is_some_and(inside),
        E::Position { expr, r#in } => any(&[expr, r#in]),
        E::Function(f) => {
            let in_args = match &f.args {
                FunctionArguments::List(list) => list.args.iter().any(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => inside(e),
                    _ => false,
                }),
                _ => false,
            };
            // `RANK() OVER (ORDER BY SUM(v))` aggregates too.
            let in_window = match &f.over {
                Some(sql::WindowType::WindowSpec(spec)) => {
                    spec.partition_by.iter().any(inside)
                        || spec.order_by.iter().any(|o| inside(&o.expr))
                }
                _ => false,
            };
            in_args || in_window
        }
        _ => false,
    }
}

fn references_columns(expr: &Expr) -> bool {
    let mut found = false;
    visit(
        expr,
        &mut |e| found |= matches!(e.kind, ExprKind::Column(c) if c < super::subquery::VALUE),
    );
    found
}
