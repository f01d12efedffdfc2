//! OVER windows in a SELECT list (batch mode).
//!
//! While a non-grouped SELECT list binds, [`OverCollector`] gathers its
//! window function calls: each call's value becomes a placeholder column
//! (`PLACEHOLDER + k`) in the item's expression, its arguments, PARTITION BY
//! and ORDER BY expressions become columns of a projection below the
//! windows, and calls with the same window specification share one
//! `RelKind::Over`. [`Binder::finish_over`] builds that chain and points the
//! placeholders at the calls' columns. Refusals follow Flink 2.3's wording
//! (`docs/sql-reference/over-windows.md`).

use sqlparser::ast::{
    self as sql, FunctionArg, FunctionArgExpr, FunctionArguments, Spanned, Value, WindowFrameBound,
    WindowFrameUnits, WindowType,
};

use super::expr::ExprCx;
use super::query::project;
use super::{cast_to_kind, Binder};
use crate::diagnostics::{Diagnostic, Span};
use crate::functions::{self, AggregateFunction};
use crate::ir::over::{Frame, FrameBound, FrameUnit, OverCall, OverFunction};
use crate::ir::{map_children, strip_spans, Expr, ExprKind, Field, Literal, Rel, RelKind, SortKey};
use crate::types::{DataType, TypeKind};
use crate::typing;

type BResult<T> = Result<T, Diagnostic>;

/// Window call `k` of a SELECT list is `Column(PLACEHOLDER + k)` until the
/// OVER nodes exist.
const PLACEHOLDER: usize = usize::MAX / 2;

/// The window calls of one SELECT list.
#[derive(Debug, Default)]
pub(crate) struct OverCollector {
    /// Columns of the FROM/WHERE input.
    input_arity: usize,
    /// Expressions computed below the windows (arguments and keys that are
    /// not plain input columns), spans cleared; column `input_arity + i`.
    extras: Vec<Expr>,
    /// Each call with its specification (partition columns, order keys).
    calls: Vec<(Vec<usize>, Vec<SortKey>, OverCall)>,
}

impl OverCollector {
    pub fn new(input_arity: usize) -> Self {
        OverCollector {
            input_arity,
            ..Default::default()
        }
    }

    /// The column holding `expr` below the windows.
    fn column_of(&mut self, expr: Expr) -> usize {
        if let ExprKind::Column(c) = expr.kind {
            return c;
        }
        let stripped = strip_spans(expr);
        let i = match self.extras.iter().position(|e| *e == stripped) {
            Some(i) => i,
            None => {
                self.extras.push(stripped);
                self.extras.len() - 1
            }
        };
        self.input_arity + i
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}

/// What a window function is, before its arguments bind.
enum Kind {
    Ranking(OverFunction),
    Ntile,
    Offset { lead: bool },
    Value(OverFunction),
    Aggregate(AggregateFunction),
}

fn kind_of(name: &str) -> Option<Kind> {
    Some(match name.to_ascii_uppercase().as_str() {
        "ROW_NUMBER" => Kind::Ranking(OverFunction::RowNumber),
        "RANK" => Kind::Ranking(OverFunction::Rank),
        "DENSE_RANK" => Kind::Ranking(OverFunction::DenseRank),
        "PERCENT_RANK" => Kind::Ranking(OverFunction::PercentRank),
        "CUME_DIST" => Kind::Ranking(OverFunction::CumeDist),
        "NTILE" => Kind::Ntile,
        "LAG" => Kind::Offset { lead: false },
        "LEAD" => Kind::Offset { lead: true },
        "FIRST_VALUE" => Kind::Value(OverFunction::FirstValue),
        "LAST_VALUE" => Kind::Value(OverFunction::LastValue),
        "COUNT" => Kind::Aggregate(AggregateFunction::Count),
        "SUM" => Kind::Aggregate(AggregateFunction::Sum),
        "AVG" => Kind::Aggregate(AggregateFunction::Avg),
        "MIN" => Kind::Aggregate(AggregateFunction::Min),
        "MAX" => Kind::Aggregate(AggregateFunction::Max),
        _ => return None,
    })
}

impl Binder<'_> {
    /// A call with an OVER clause, met while an expression binds.
    pub(crate) fn bind_over_call(
        &mut self,
        function: &sql::Function,
        window: &WindowType,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let span = self.through_closing_paren(span);
        let Some(mut collector) = self.over.take() else {
            return Err(match cx.clause {
                "WHERE" | "GROUP BY" => Diagnostic::error(
                    span,
                    format!(
                        "Windowed aggregate expression is illegal in {} clause",
                        cx.clause
                    ),
                )
                .with_note("this is Flink's message"),
                "HAVING" => Diagnostic::error(
                    span,
                    "Aggregate functions over windows are not supported yet.",
                )
                .with_note("this is Flink's message"),
                _ if cx.grouping.is_some() => Diagnostic::unsupported(
                    span,
                    "an OVER window in a grouped query (with GROUP BY or aggregate functions)",
                ),
                "SELECT" => Diagnostic::unsupported(span, "a window function call inside another"),
                clause => Diagnostic::unsupported(span, &format!("an OVER window in {clause}")),
            });
        };
        let result = self.bind_window_call(&mut collector, function, window, cx, span);
        self.over = Some(collector);
        result
    }

    fn bind_window_call(
        &mut self,
        collector: &mut OverCollector,
        function: &sql::Function,
        window: &WindowType,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let name = match function.name.0.as_slice() {
            [part] => part.as_ident().map(|i| i.value.clone()).unwrap_or_default(),
            _ => String::new(),
        };
        let kind = kind_of(&name).ok_or_else(|| {
            Diagnostic::unsupported(span, &format!("{} as a window function", function.name))
        })?;
        let upper = name.to_ascii_uppercase();
        let WindowType::WindowSpec(spec) = window else {
            return Err(Diagnostic::unsupported(span, "named windows (OVER w)"));
        };
        if spec.window_name.is_some() {
            return Err(Diagnostic::unsupported(span, "named windows (OVER w)"));
        }
        if function.filter.is_some() {
            return Err(Diagnostic::unsupported(span, "FILTER on a window function"));
        }
        if function.null_treatment.is_some() {
            return Err(match kind {
                Kind::Value(_) => Diagnostic::error(
                    span,
                    format!("Cannot specify IGNORE NULLS or RESPECT NULLS following '{upper}'"),
                )
                .with_note("this is Flink's message"),
                _ => Diagnostic::unsupported(span, &format!("IGNORE/RESPECT NULLS on {upper}")),
            });
        }
        // Arguments bind over the input; a window call inside one is refused
        // (the collector is taken out meanwhile).
        let (distinct, raw_args): (bool, &[FunctionArg]) = match &function.args {
            FunctionArguments::None => (false, &[]),
            FunctionArguments::List(list) => {
                if !list.clauses.is_empty() {
                    return Err(Diagnostic::unsupported(
                        span,
                        &format!("clauses inside {upper}(...)"),
                    ));
                }
                (
                    matches!(
                        list.duplicate_treatment,
                        Some(sql::DuplicateTreatment::Distinct)
                    ),
                    &list.args,
                )
            }
            FunctionArguments::Subquery(_) => {
                return Err(Diagnostic::unsupported(
                    span,
                    "a subquery as a function argument",
                ))
            }
        };
        if distinct {
            // Flink's planner fails on DISTINCT over a window (an internal
            // error, "Error while applying rule BatchPhysicalOverAggregateRule").
            return Err(Diagnostic::error(
                span,
                format!(
                    "{upper}(DISTINCT ...) over a window is not supported by Flink's batch planner"
                ),
            ));
        }
        let mut args = Vec::new();
        for a in raw_args {
            match a {
                // COUNT(*): no argument.
                FunctionArg::Unnamed(FunctionArgExpr::Wildcard)
                    if matches!(kind, Kind::Aggregate(AggregateFunction::Count))
                        && raw_args.len() == 1 => {}
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => {
                    let mut plain = ExprCx::plain(cx.scope, "SELECT");
                    args.push((self.bind_expr(e, &mut plain, span)?, e));
                }
                _ => {
                    return Err(Diagnostic::error(
                        span,
                        format!("invalid argument for {upper}"),
                    ))
                }
            }
        }

        // PARTITION BY and ORDER BY.
        let mut partition = Vec::new();
        for p in &spec.partition_by {
            let mut plain = ExprCx::plain(cx.scope, "PARTITION BY");
            let bound = self.bind_expr(p, &mut plain, span)?;
            let c = collector.column_of(bound);
            if !partition.contains(&c) {
                partition.push(c);
            }
        }
        let mut order = Vec::new();
        let mut order_types = Vec::new();
        for item in &spec.order_by {
            let ispan = self.span(item.expr.span(), span);
            let descending = match item.options.sort {
                None | Some(sql::OrderBySort::Asc) => false,
                Some(sql::OrderBySort::Desc) => true,
                Some(_) => return Err(Diagnostic::unsupported(ispan, "ORDER BY ... USING")),
            };
            let mut plain = ExprCx::plain(cx.scope, "ORDER BY");
            let bound = self.bind_expr(&item.expr, &mut plain, ispan)?;
            let is_constant = matches!(bound.kind, ExprKind::Literal(_));
            order_types.push((bound.ty, is_constant));
            order.push(SortKey {
                column: collector.column_of(bound),
                descending,
                // Flink: NULLs first ascending, last descending.
                nulls_first: item.options.nulls_first.unwrap_or(!descending),
            });
        }
        let has_order = order_types.iter().any(|(_, constant)| !constant);

        let frame = match &spec.window_frame {
            None => Frame::DEFAULT,
            Some(f) => self.bind_frame(f, &order_types, span)?,
        };
        let frame_given = spec.window_frame.is_some();
        let arity_error = |expected: &str| {
            Diagnostic::error(
                span,
                format!(
                    "Invalid number of arguments to function '{upper}'. Was expecting {expected} arguments"
                ),
            )
        };
        let (function, arg_columns, ty) = match kind {
            Kind::Ranking(f) => {
                if !args.is_empty() {
                    return Err(arity_error("0"));
                }
                if frame_given {
                    return Err(Diagnostic::error(
                        span,
                        "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions",
                    )
                    .with_note("this is Flink's message"));
                }
                if f == OverFunction::RowNumber && !has_order {
                    return Err(Diagnostic::error(
                        span,
                        "Over Agg: The window rank function requires order by clause with non-constant fields. please re-check the over window statement.",
                    )
                    .with_note("this is Flink's message"));
                }
                if spec.order_by.is_empty() {
                    return Err(Diagnostic::error(
                        span,
                        "RANK or DENSE_RANK functions require ORDER BY clause in window specification",
                    )
                    .with_note("this is Flink's message"));
                }
                let kind = match f {
                    OverFunction::PercentRank | OverFunction::CumeDist => TypeKind::Double,
                    _ => TypeKind::BigInt,
                };
                (f, Vec::new(), DataType::not_null(kind))
            }
            Kind::Ntile => {
                let [(arg, _)] = args.as_slice() else {
                    return Err(arity_error("1"));
                };
                let n = match integer_literal(arg) {
                    Some(n) if n > 0 => n as u64,
                    Some(0) => {
                        // Flink accepts NTILE(0) and fails at run time.
                        return Err(Diagnostic::unsupported(span, "NTILE(0)"));
                    }
                    Some(_) => {
                        return Err(Diagnostic::error(
                            span,
                            "Argument to function 'NTILE' must be a positive integer literal",
                        )
                        .with_note("this is Flink's message"))
                    }
                    None => {
                        return Err(Diagnostic::error(
                            span,
                            "Argument to function 'NTILE' must be a literal",
                        )
                        .with_note("this is Flink's message"))
                    }
                };
                (
                    OverFunction::Ntile(n),
                    Vec::new(),
                    DataType::not_null(TypeKind::BigInt),
                )
            }
            Kind::Offset { lead } => {
                if frame_given {
                    return Err(Diagnostic::error(
                        span,
                        "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions",
                    )
                    .with_note("this is Flink's message"));
                }
                if args.is_empty() || args.len() > 3 {
                    return Err(arity_error("1, 2 or 3"));
                }
                let mut args = args.into_iter();
                let (value, _) = args.next().expect("checked");
                let offset = match args.next() {
                    None => 1,
                    Some((o, _)) => match integer_literal(&o) {
                        Some(n) if n >= 0 => n as u64,
                        _ => {
                            return Err(Diagnostic::unsupported(
                                o.span,
                                &format!(
                                "{upper} with an offset that is not a non-negative integer literal"
                            ),
                            ))
                        }
                    },
                };
                let ty = value.ty;
                let mut columns = vec![collector.column_of(value)];
                // The default takes the value's type; the result is NOT NULL
                // when the default is (Flink's type, observed).
                let nullable = match args.next() {
                    Some((default, _)) => {
                        if default.ty.is_null_type() {
                            true
                        } else {
                            if typing::common_type(&[ty, default.ty]).is_none() {
                                return Err(Diagnostic::error(
                                    default.span,
                                    format!(
                                        "{upper}'s default value of type {} does not fit its value of type {ty}",
                                        default.ty
                                    ),
                                ));
                            }
                            // Flink 2.3 replaces a NULL value of a LAG/LEAD
                            // that has a default with a default, and not
                            // always this call's (observed: `LAG(a, 1, 0)` gave
                            // -1, the default of a `LAG(a, 2, -1)` beside it).
                            if ty.nullable {
                                return Err(Diagnostic::unsupported(
                                    span,
                                    &format!("{upper} with a default over a nullable value (Flink 2.3 replaces its NULL values with a default, not always this one; wrap the value in COALESCE)"),
                                ));
                            }
                            let nullable = default.ty.nullable;
                            let d = cast_to_kind(default, ty.kind);
                            columns.push(collector.column_of(d));
                            nullable
                        }
                    }
                    None => true,
                };
                let f = if lead {
                    OverFunction::Lead(offset)
                } else {
                    OverFunction::Lag(offset)
                };
                (f, columns, ty.with_nullable(nullable))
            }
            Kind::Value(f) => {
                let [(value, _)] = <[_; 1]>::try_from(args).map_err(|_| arity_error("1"))?;
                let ty = value.ty;
                (f, vec![collector.column_of(value)], ty)
            }
            Kind::Aggregate(a) => {
                let types: Vec<DataType> = args.iter().map(|(e, _)| e.ty).collect();
                let sig = match functions::resolve_aggregate_in(&name, false, &types, true) {
                    Some(Ok(sig)) => sig,
                    Some(Err(e)) => {
                        return Err(super::expr::function_error(&name, &types, e, span));
                    }
                    None => {
                        return Err(Diagnostic::error(
                            span,
                            format!("{name} is not an aggregate function"),
                        ))
                    }
                };
                let columns = args
                    .into_iter()
                    .zip(&sig.arg_types)
                    .map(|((e, _), t)| collector.column_of(cast_to_kind(e, t.kind)))
                    .collect();
                (OverFunction::Aggregate(a), columns, sig.result)
            }
        };
        let k = collector.calls.len();
        collector.calls.push((
            partition,
            order,
            OverCall {
                function,
                args: arg_columns,
                frame,
                ty,
                name: String::new(),
            },
        ));
        Ok(Expr {
            kind: ExprKind::Column(PLACEHOLDER + k),
            ty,
            span,
        })
    }

    /// `ROWS|RANGE BETWEEN ... AND ...`, checked as Flink (Calcite) checks it.
    fn bind_frame(
        &mut self,
        frame: &sql::WindowFrame,
        order: &[(DataType, bool)],
        span: Span,
    ) -> BResult<Frame> {
        let flink = |message: &str| {
            Diagnostic::error(span, message.to_string()).with_note("this is Flink's message")
        };
        let unit = match frame.units {
            WindowFrameUnits::Rows => FrameUnit::Rows,
            WindowFrameUnits::Range => FrameUnit::Range,
            WindowFrameUnits::Groups => return Err(Diagnostic::unsupported(span, "GROUPS frames")),
        };
        let has_offset = |b: &WindowFrameBound| {
            matches!(
                b,
                WindowFrameBound::Preceding(Some(_)) | WindowFrameBound::Following(Some(_))
            )
        };
        let end = frame
            .end_bound
            .clone()
            .unwrap_or(WindowFrameBound::CurrentRow);
        let range_offset =
            unit == FrameUnit::Range && (has_offset(&frame.start_bound) || has_offset(&end));
        // The unit of a RANGE offset: the ORDER BY key's.
        let key = if range_offset {
            match order {
                [] => {
                    return Err(flink(
                        "Window specification must contain an ORDER BY clause",
                    ))
                }
                [(ty, _)] => Some(*ty),
                _ => {
                    return Err(flink(
                        "RANGE clause cannot be used with compound ORDER BY clause",
                    ))
                }
            }
        } else {
            None
        };
        if let Some(ty) = key {
            if !(ty.is_numeric() || ty.kind.is_temporal()) {
                return Err(flink("Data type of ORDER BY prohibits use of RANGE clause"));
            }
        }
        let start = self.frame_bound(&frame.start_bound, unit, key, span)?;
        let end_bound = self.frame_bound(&end, unit, key, span)?;
        use FrameBound as B;
        // Flink 2.3 gives such RANGE frames no rows even when rows are in
        // reach (`RANGE BETWEEN 3 PRECEDING AND 1 PRECEDING`, observed).
        if unit == FrameUnit::Range
            && (matches!(end_bound, B::Preceding(_)) || matches!(start, B::Following(_)))
        {
            return Err(Diagnostic::unsupported(
                span,
                "a RANGE frame that ends before the current row or starts after it (Flink 2.3 computes it as empty)",
            ));
        }
        match (start, end_bound) {
            (B::UnboundedFollowing, _) => {
                return Err(flink(
                    "UNBOUNDED FOLLOWING cannot be specified for the lower frame boundary",
                ))
            }
            (_, B::UnboundedPreceding) => {
                return Err(flink(
                    "UNBOUNDED PRECEDING cannot be specified for the upper frame boundary",
                ))
            }
            (B::CurrentRow, B::Preceding(_)) => {
                return Err(flink(
                    "Upper frame boundary cannot be PRECEDING when lower boundary is CURRENT ROW",
                ))
            }
            (B::Following(_), B::CurrentRow) => {
                return Err(flink(
                    "Upper frame boundary cannot be CURRENT ROW when lower boundary is FOLLOWING",
                ))
            }
            (B::Following(_), B::Preceding(_)) => {
                return Err(flink(
                    "Upper frame boundary cannot be PRECEDING when lower boundary is FOLLOWING",
                ))
            }
            _ => {}
        }
        Ok(Frame {
            unit,
            start,
            end: end_bound,
        })
    }

    fn frame_bound(
        &mut self,
        bound: &WindowFrameBound,
        unit: FrameUnit,
        key: Option<DataType>,
        span: Span,
    ) -> BResult<FrameBound> {
        let (offset, preceding) = match bound {
            WindowFrameBound::CurrentRow => return Ok(FrameBound::CurrentRow),
            WindowFrameBound::Preceding(None) => return Ok(FrameBound::UnboundedPreceding),
            WindowFrameBound::Following(None) => return Ok(FrameBound::UnboundedFollowing),
            WindowFrameBound::Preceding(Some(e)) => (e, true),
            WindowFrameBound::Following(Some(e)) => (e, false),
        };
        let ospan = self.span(offset.span(), span);
        let n = match (unit, key.map(|t| t.kind)) {
            (FrameUnit::Rows, _) => match offset.as_ref() {
                sql::Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                    let Value::Number(text, _) = &v.value else {
                        unreachable!()
                    };
                    text.parse::<i64>().map_err(|_| {
                        Diagnostic::error(
                            ospan,
                            "ROWS value must be a non-negative integral constant",
                        )
                        .with_note("this is Flink's message")
                    })?
                }
                sql::Expr::UnaryOp { .. } => {
                    return Err(Diagnostic::error(
                        ospan,
                        "ROWS value must be a non-negative integral constant",
                    )
                    .with_note("this is Flink's message"))
                }
                _ => {
                    return Err(Diagnostic::unsupported(
                        ospan,
                        "a frame offset that is not a literal",
                    ))
                }
            },
            (FrameUnit::Range, Some(k)) if k.is_integer() => match offset.as_ref() {
                sql::Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                    let Value::Number(text, _) = &v.value else {
                        unreachable!()
                    };
                    text.parse::<i64>().map_err(|_| {
                        Diagnostic::unsupported(
                            ospan,
                            "a RANGE offset that is not an integer over an integer ORDER BY key",
                        )
                    })?
                }
                _ => {
                    return Err(Diagnostic::unsupported(
                        ospan,
                        "a RANGE offset that is not a non-negative integer literal",
                    ))
                }
            },
            (
                FrameUnit::Range,
                Some(TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) | TypeKind::Date),
            ) => {
                // Flink 2.3 plans it, then its job fails: "Cannot cast
                // TimestampData to Long" in the generated RangeBoundComparator.
                return Err(Diagnostic::unsupported(
                    ospan,
                    "a RANGE offset over a TIMESTAMP or DATE ORDER BY key (Flink 2.3 fails to run it)",
                ));
            }
            (FrameUnit::Range, _) => {
                let ty = key.map_or_else(String::new, |t| format!(" {}", t.with_nullable(true)));
                return Err(Diagnostic::unsupported(
                    ospan,
                    &format!(
                        "a RANGE offset over a{ty} ORDER BY key (stmtc supports integer keys)"
                    ),
                ));
            }
        };
        Ok(if preceding {
            FrameBound::Preceding(n)
        } else {
            FrameBound::Following(n)
        })
    }

    /// Builds the OVER nodes above `input` for the collected calls and
    /// points the placeholders of `exprs` at their columns.
    pub(crate) fn finish_over(
        &mut self,
        collector: OverCollector,
        input: Rel,
        exprs: &mut [Expr],
        span: Span,
    ) -> Rel {
        let OverCollector {
            input_arity,
            extras,
            calls,
        } = collector;
        let mut rel = if extras.is_empty() {
            input
        } else {
            let mut items: Vec<Expr> = input
                .schema
                .iter()
                .enumerate()
                .map(|(i, f)| Expr {
                    kind: ExprKind::Column(i),
                    ty: f.ty,
                    span,
                })
                .collect();
            let mut names: Vec<String> = input.schema.iter().map(|f| f.name.clone()).collect();
            names.extend((0..extras.len()).map(|i| format!("$over{i}")));
            items.extend(extras.into_iter().map(|mut e| {
                e.span = span;
                e
            }));
            project(input, items, names, span)
        };
        // One OVER node per specification, in order of first use.
        let mut specs: Vec<(Vec<usize>, Vec<SortKey>)> = Vec::new();
        for (p, o, _) in &calls {
            if !specs.iter().any(|(sp, so)| sp == p && so == o) {
                specs.push((p.clone(), o.clone()));
            }
        }
        let mut position = vec![0usize; calls.len()];
        for (g, (p, o)) in specs.into_iter().enumerate() {
            let base = rel.schema.len();
            let mut group = Vec::new();
            for (k, (cp, co, call)) in calls.iter().enumerate() {
                if *cp == p && *co == o {
                    position[k] = base + group.len();
                    let mut call = call.clone();
                    // Flink's names: window g, call j.
                    call.name = format!("w{g}$o{}", group.len());
                    group.push(call);
                }
            }
            let mut schema = rel.schema.clone();
            schema.extend(group.iter().map(|c| Field {
                name: c.name.clone(),
                ty: c.ty,
            }));
            rel = Rel {
                kind: RelKind::Over {
                    input: Box::new(rel),
                    partition: p,
                    order: o,
                    calls: group,
                },
                schema,
                span,
            };
        }
        let _ = input_arity;
        for e in exprs.iter_mut() {
            resolve_placeholders(e, &position);
        }
        rel
    }
}

fn resolve_placeholders(e: &mut Expr, position: &[usize]) {
    if let ExprKind::Column(c) = &mut e.kind {
        if *c >= PLACEHOLDER {
            *c = position[*c - PLACEHOLDER];
        }
        return;
    }
    map_children(e, &mut |child| resolve_placeholders(child, position));
}

/// An integer literal (possibly negated) as written.
fn integer_literal(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Literal(Literal::Integer(v)) => Some(*v),
        ExprKind::Unary {
            op: crate::ir::UnaryOp::Negate,
            operand,
        } => integer_literal(operand).map(|v| -v),
        _ => None,
    }
}
