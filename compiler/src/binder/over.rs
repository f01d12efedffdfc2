//! OVER windows in a SELECT list and its ORDER BY (batch mode).
//!
//! While a SELECT list and then its ORDER BY bind, [`OverCollector`]
//! gathers their window function calls (`OVER w` resolved against the
//! WINDOW clause): each call's value becomes a placeholder column
//! (`PLACEHOLDER + k`) in the item's expression, its arguments, PARTITION BY
//! and ORDER BY expressions become columns of a projection below the
//! windows, and calls with the same window specification share one
//! `RelKind::Over`. In a grouped query the calls bind in grouped mode and
//! run over the aggregate's rows (after HAVING). [`Binder::apply_windows`]
//! builds that chain above the input and points the placeholders at the
//! calls' columns. Refusals follow Flink 2.3's wording
//! (`docs/sql-reference/over-windows.md`).

use sqlparser::ast::{
    self as sql, FunctionArg, FunctionArgExpr, FunctionArguments, Spanned, Value, WindowFrameBound,
    WindowFrameUnits, WindowType,
};

use super::expr::ExprCx;
use super::order_by::{KeyExpr, OrderKey};
use super::query::project;
use super::{cast_to_kind, Binder};
use crate::diagnostics::{Diagnostic, Span};
use crate::functions::{self, AggregateFunction};
use crate::ir::over::{Frame, FrameBound, FrameUnit, OverCall, OverFunction};
use crate::ir::{map_children, strip_spans, Expr, ExprKind, Field, Literal, Rel, RelKind, SortKey};
use crate::types::{DataType, TypeKind};
use crate::typing;

type BResult<T> = Result<T, Diagnostic>;

pub(super) mod listagg;
mod variance;

/// Window call `k` of a SELECT list is `Column(PLACEHOLDER + k)` until the
/// OVER nodes exist.
const PLACEHOLDER: usize = usize::MAX / 2;

/// Expression `i` computed below the windows is `Column(EXTRA + i)` in the
/// calls until the input's width is known: in a grouped query the input is
/// the aggregate, which gains columns while the SELECT list binds, and
/// scalar subqueries of the SELECT list append theirs.
const EXTRA: usize = usize::MAX / 4;

/// The window calls of one SELECT list (and its ORDER BY).
#[derive(Debug, Default)]
pub(crate) struct OverCollector {
    /// Expressions computed below the windows (arguments and keys that are
    /// not plain input columns), spans cleared; column `EXTRA + i`.
    extras: Vec<Expr>,
    /// Each call with its specification (partition columns, order keys).
    calls: Vec<(Vec<usize>, Vec<SortKey>, OverCall)>,
    /// The SELECT is grouped: the calls run over the aggregate's rows and
    /// their arguments and keys bind in grouped mode.
    grouped: bool,
    /// The SELECT's `WINDOW w AS (...)` definitions.
    named: Vec<sql::NamedWindowDefinition>,
    /// Where the first call is written, for refusals of the whole set.
    first_call: Option<Span>,
    /// The LAG/LEAD call that binds has an offset (or default) written.
    offset_pending: Option<Span>,
    /// The calls (positions in `calls`) of LAG/LEAD with an offset written.
    offset_calls: Vec<(usize, Span)>,
}

impl OverCollector {
    pub fn new(grouped: bool, named: &[sql::NamedWindowDefinition]) -> Self {
        OverCollector {
            grouped,
            named: named.to_vec(),
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
        EXTRA + i
    }

    /// LAG/LEAD with an offset (or a default) written, beside calls of
    /// another window specification (PARTITION BY and ORDER BY): Flink 2.3
    /// fails on it (`IndexOutOfBoundsException: index (1) must be less than
    /// size (1)`) unless that specification is the first of Calcite's
    /// window groups, which are sorted by partition keys, then order keys
    /// (docs/flink-observed/over-offset-probe/RESULTS.md). Accepted where
    /// one such specification sorts before every other in that observed
    /// order; refused otherwise (also where the order was not observed).
    pub fn offset_beside_other_windows(&self) -> Option<Diagnostic> {
        let &(first, at) = self.offset_calls.first()?;
        let spec = |k: usize| (&self.calls[k].0, &self.calls[k].1);
        let offset_spec = spec(first);
        let refuse = || {
            Some(
                Diagnostic::unsupported(
                    at,
                    "LAG or LEAD with an offset beside window calls of another PARTITION BY / ORDER BY",
                )
                .with_note("Flink 2.3 fails on most such queries: `java.lang.IndexOutOfBoundsException: index (1) must be less than size (1)`; it runs them only when this window sorts first among Calcite's window groups; write the calls over one window specification, or LAG/LEAD without an offset"),
            )
        };
        if self
            .offset_calls
            .iter()
            .any(|&(k, _)| spec(k) != offset_spec)
        {
            return refuse();
        }
        // Calcite's order of window groups (observed, over-offset-probe):
        // partition keys as a sorted set, then order keys, each compared
        // lexicographically with a prefix first; a key by column, then
        // ascending before descending, then (ascending) NULLS FIRST before
        // LAST. Computed expressions as keys, and DESC NULLS FIRST, were not
        // observed: unknown.
        type Key = (Vec<usize>, Vec<(usize, bool, bool)>);
        let key = |(p, o): (&Vec<usize>, &Vec<SortKey>)| -> Option<Key> {
            let mut partition = p.clone();
            partition.sort_unstable();
            partition.dedup();
            if partition.iter().any(|&c| c >= EXTRA) {
                return None;
            }
            let order = o
                .iter()
                .map(|k| {
                    (k.column < EXTRA && !(k.descending && k.nulls_first)).then_some((
                        k.column,
                        k.descending,
                        !k.nulls_first,
                    ))
                })
                .collect::<Option<Vec<_>>>()?;
            Some((partition, order))
        };
        let Some(offset_key) = key(offset_spec) else {
            return refuse();
        };
        for k in 0..self.calls.len() {
            let other = spec(k);
            if other != offset_spec && key(other).is_none_or(|o| o <= offset_key) {
                return refuse();
            }
        }
        None
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    pub fn first_call(&self) -> Option<Span> {
        self.first_call
    }

    /// After GROUPING SETS made group keys nullable (`schema` is the
    /// aggregate's): the expressions below the windows take the new
    /// nullability. A call typed NOT NULL from an argument that became
    /// nullable is refused: Flink 2.3's planner fails on `MAX(k) OVER ()`
    /// over a ROLLUP key k ("Conversion to relational algebra failed to
    /// preserve datatypes", observed); LAG/LEAD without a default are
    /// nullable anyway.
    pub fn retype(&mut self, schema: &[Field]) -> BResult<()> {
        self.extras = self
            .extras
            .iter()
            .map(|e| super::grouping::retype(e, schema))
            .collect();
        let nullable = |c: usize| {
            if c >= EXTRA {
                self.extras[c - EXTRA].ty.nullable
            } else {
                schema.get(c).is_some_and(|f| f.ty.nullable)
            }
        };
        let span = self.first_call.unwrap_or_default();
        for (_, _, call) in &self.calls {
            let widened = call.args.first().is_some_and(|&v| nullable(v)) && !call.ty.nullable;
            match call.function {
                _ if !widened => {}
                OverFunction::Lag(_) | OverFunction::Lead(_) => {
                    // A default over a nullable value, see bind_window_call.
                    return Err(Diagnostic::unsupported(
                        span,
                        "LAG/LEAD with a default over a group key that GROUPING SETS, ROLLUP or CUBE make nullable (Flink 2.3 replaces NULL values with a default)",
                    ));
                }
                OverFunction::Aggregate(AggregateFunction::Count) => {}
                _ => {
                    return Err(Diagnostic::error(
                        span,
                        "Conversion to relational algebra failed to preserve datatypes",
                    )
                    .with_note("this is Flink's message: its planner fails on a window call over a group key that GROUPING SETS, ROLLUP or CUBE make nullable"));
                }
            }
        }
        Ok(())
    }
}

/// What a window function is, before its arguments bind.
enum Kind {
    Ranking(OverFunction),
    Ntile,
    Offset { lead: bool },
    Value(OverFunction),
    Aggregate(AggregateFunction),
    ListAgg,
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
        "LISTAGG" => Kind::ListAgg,
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
        if let Some(expanded) = self.variance_window(function, cx, span) {
            return expanded;
        }
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
                "SELECT" => Diagnostic::error(span, "Aggregate expressions cannot be nested")
                    .with_note(
                        "this is Flink's message (for a window call inside another's arguments)",
                    ),
                clause => Diagnostic::unsupported(span, &format!("an OVER window in {clause}")),
            });
        };
        if collector.grouped && cx.grouping.is_none() {
            // In a grouped query a window call binds in grouped mode; in
            // plain mode it is inside an aggregate's argument.
            self.over = Some(collector);
            return Err(
                Diagnostic::error(span, "Aggregate expressions cannot be nested").with_note(
                    "this is Flink's message (for a window call inside an aggregate's argument)",
                ),
            );
        }
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
        let spec = &resolve_window(&collector.named, window, span, 0)?;
        let within_group = !function.within_group.is_empty();
        if function.filter.is_some() || within_group {
            let clause = if within_group {
                "WITHIN GROUP"
            } else {
                "FILTER"
            };
            return Err(
                Diagnostic::error(span, "OVER must be applied to aggregate function").with_note(
                    format!("this is Flink's message: it takes no {clause} on a window call"),
                ),
            );
        }
        // Flink 2.3 accepts IGNORE/RESPECT NULLS on LAG and LEAD and then
        // ignores it: `LAG(v) IGNORE NULLS` is `LAG(v)` (observed), so stmtc
        // does the same. Other functions refuse it.
        if function.null_treatment.is_some() && !matches!(kind, Kind::Offset { .. }) {
            return Err(Diagnostic::error(
                span,
                format!("Cannot specify IGNORE NULLS or RESPECT NULLS following '{upper}'"),
            )
            .with_note("this is Flink's message"));
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
                    let mut arg_cx = sub_cx(cx, "SELECT");
                    let bound = self.bind_expr(e, &mut arg_cx, span)?;
                    args.push((no_subquery(bound)?, e));
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
            let mut key_cx = sub_cx(cx, "PARTITION BY");
            let bound = no_subquery(self.bind_expr(p, &mut key_cx, span)?)?;
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
            let mut key_cx = sub_cx(cx, "ORDER BY");
            let bound = no_subquery(self.bind_expr(&item.expr, &mut key_cx, ispan)?)?;
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
                        // Flink accepts NTILE(0); its job fails on the first
                        // row (observed), so stmtc refuses the job up front.
                        return Err(Diagnostic::error(
                            span,
                            "NTILE(0): the number of buckets must be positive",
                        )
                        .with_note(
                            "Flink 2.3 accepts it and its job fails at run time (\"/ by zero\")",
                        ));
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
                // A negative offset looks the other way (`LAG(v, -1)` is
                // `LEAD(v, 1)`, as Flink 2.3 computes it).
                let (offset, lead) = match args.next() {
                    None => (1, lead),
                    Some((o, _)) => {
                        collector.offset_pending = Some(span);
                        let n = lag_offset(&o, &upper)?;
                        (n.unsigned_abs(), lead != (n < 0))
                    }
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
            Kind::ListAgg => {
                let args = args.into_iter().map(|(e, _)| e).collect();
                let (value, separator) = listagg::check_args(args, span)?;
                let ty = value.ty;
                let mut columns = vec![collector.column_of(value)];
                if let Some(sep) = separator {
                    columns.push(collector.column_of(sep));
                }
                (OverFunction::ListAgg, columns, ty)
            }
        };
        let call = OverCall {
            function,
            args: arg_columns,
            frame,
            ty,
            name: String::new(),
        };
        // The same call twice (a SELECT item and its ORDER BY, say) is
        // computed once, so ORDER BY can sort on the item's column.
        let k = match collector
            .calls
            .iter()
            .position(|(p, o, c)| *p == partition && *o == order && *c == call)
        {
            Some(k) => k,
            None => {
                collector.calls.push((partition, order, call));
                collector.first_call.get_or_insert(span);
                collector.calls.len() - 1
            }
        };
        if let Some(at) = collector.offset_pending.take() {
            collector.offset_calls.push((k, at));
        }
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
            // Flink 2.3's parser does not know GROUPS (observed).
            WindowFrameUnits::Groups => {
                return Err(Diagnostic::error(
                    self.keyword_after(span, "GROUPS"),
                    "SQL parse failed. Encountered \"GROUPS\"",
                )
                .with_note("this is Flink's message: Flink 2.3 has no GROUPS frames"))
            }
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
        let (start, start_scale) = self.frame_bound(&frame.start_bound, unit, key, span)?;
        let (end_bound, end_scale) = self.frame_bound(&end, unit, key, span)?;
        // Both offsets and the key at one scale: the largest of theirs.
        let key_scale = key
            .and_then(|t| t.kind.decimal_precision_scale())
            .map_or(0, |(_, s)| s);
        let scale = key_scale.max(start_scale).max(end_scale);
        let rescale = |b: FrameBound, from: u8| -> BResult<FrameBound> {
            let up = |n: i64| {
                10i64
                    .checked_pow(u32::from(scale - from))
                    .and_then(|f| n.checked_mul(f))
                    .ok_or_else(|| Diagnostic::unsupported(span, "a RANGE offset this large"))
            };
            Ok(match b {
                B::Preceding(n) => B::Preceding(up(n)?),
                B::Following(n) => B::Following(up(n)?),
                other => other,
            })
        };
        use FrameBound as B;
        let start = rescale(start, start_scale)?;
        let end_bound = rescale(end_bound, end_scale)?;
        if let Some(ty) = key {
            // The key, scaled to `scale`, must fit DECIMAL(38).
            let digits = ty
                .kind
                .decimal_precision_scale()
                .map_or(0, |(p, s)| u32::from(p - s));
            if digits + u32::from(scale) > 38 {
                return Err(Diagnostic::unsupported(
                    span,
                    &format!("a RANGE offset with {scale} decimals over a {ty} key (more than 38 digits)"),
                ));
            }
        }
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
            scale,
        })
    }

    /// The span of the first `word` (an upper-case keyword, written in any
    /// case) from `span` on within its statement (a window's frame follows
    /// its call), or `span` itself.
    fn keyword_after(&self, span: Span, word: &str) -> Span {
        let rest = self.file.text.get(span.start..).unwrap_or("");
        let statement = &rest[..rest.find(';').unwrap_or(rest.len())];
        match statement.to_ascii_uppercase().find(word) {
            Some(at) => Span {
                start: span.start + at,
                end: span.start + at + word.len(),
            },
            None => span,
        }
    }

    fn frame_bound(
        &mut self,
        bound: &WindowFrameBound,
        unit: FrameUnit,
        key: Option<DataType>,
        span: Span,
    ) -> BResult<(FrameBound, u8)> {
        let (offset, preceding) = match bound {
            WindowFrameBound::CurrentRow => return Ok((FrameBound::CurrentRow, 0)),
            WindowFrameBound::Preceding(None) => return Ok((FrameBound::UnboundedPreceding, 0)),
            WindowFrameBound::Following(None) => return Ok((FrameBound::UnboundedFollowing, 0)),
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
            (FrameUnit::Range, Some(k)) => {
                let (n, scale) = self.range_offset(offset, k, ospan)?;
                let bound = if preceding {
                    FrameBound::Preceding(n)
                } else {
                    FrameBound::Following(n)
                };
                return Ok((bound, scale));
            }
            (FrameUnit::Range, None) => {
                return Err(Diagnostic::error(
                    ospan,
                    "Window specification must contain an ORDER BY clause",
                ))
            }
        };
        Ok((
            if preceding {
                FrameBound::Preceding(n)
            } else {
                FrameBound::Following(n)
            },
            0,
        ))
    }

    /// A RANGE offset over an ORDER BY key of kind `key`: its value and
    /// scale (`1.5` is 15 at scale 1; an INTERVAL over a DATE key is in
    /// milliseconds at scale 0).
    fn range_offset(
        &mut self,
        offset: &sql::Expr,
        key: TypeKind,
        ospan: Span,
    ) -> BResult<(i64, u8)> {
        let mismatch = || {
            Diagnostic::error(
                ospan,
                "Data Type mismatch between ORDER BY and RANGE clause",
            )
            .with_note("this is Flink's message")
        };
        match (key, offset) {
            (TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_), sql::Expr::Interval(_)) => {
                // Flink 2.3 plans it, then its job fails: "Cannot cast
                // TimestampData to Long" in the generated RangeBoundComparator.
                Err(Diagnostic::unsupported(
                    ospan,
                    "a RANGE offset over a TIMESTAMP ORDER BY key (Flink 2.3 fails to run it: \"Cannot cast TimestampData to Long\")",
                ))
            }
            (TypeKind::Date, sql::Expr::Interval(interval)) => {
                let bound = super::literals::interval(interval, ospan)?;
                match bound.kind {
                    // Flink compares the dates' milliseconds (observed:
                    // INTERVAL '36' HOUR reaches back one day, not two).
                    ExprKind::Literal(Literal::IntervalMillis(ms)) if ms >= 0 => Ok((ms, 0)),
                    ExprKind::Literal(Literal::IntervalMillis(_)) => {
                        Err(Diagnostic::unsupported(ospan, "a negative RANGE offset"))
                    }
                    // Flink 2.3 plans the window, then its physical rule
                    // refuses it (observed).
                    _ => Err(Diagnostic::error(
                        ospan,
                        "INTERVAL_YEAR_MONTH type is not allowed for window boundary",
                    )
                    .with_note("this is Flink's message")),
                }
            }
            (k, sql::Expr::Interval(_)) if k.is_numeric() => Err(mismatch()),
            (TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) | TypeKind::Date, _) => {
                Err(mismatch())
            }
            (k, sql::Expr::Value(v)) if k.is_numeric() => {
                let Value::Number(text, _) = &v.value else {
                    return Err(mismatch());
                };
                decimal_text(text).ok_or_else(|| {
                    Diagnostic::unsupported(
                        ospan,
                        &format!("the RANGE offset {text} (stmtc takes plain decimal digits that fit 18 digits)"),
                    )
                })
            }
            (k, sql::Expr::Value(_)) if k.is_numeric() => Err(mismatch()),
            _ => Err(Diagnostic::unsupported(
                ospan,
                "a RANGE offset that is not a non-negative literal",
            )),
        }
    }

    /// Builds the OVER nodes above `input` for the collected calls; the
    /// placeholders of the SELECT list and ORDER BY then resolve through
    /// [`WindowColumns::resolve`].
    fn finish_over(
        &mut self,
        collector: OverCollector,
        input: Rel,
        span: Span,
    ) -> (Rel, WindowColumns) {
        let OverCollector { extras, calls, .. } = collector;
        let base = input.schema.len();
        let extra = |c: usize| if c >= EXTRA { base + (c - EXTRA) } else { c };
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
        let calls: Vec<(Vec<usize>, Vec<SortKey>, OverCall)> = calls
            .into_iter()
            .map(|(p, o, mut call)| {
                call.args = call.args.iter().map(|&c| extra(c)).collect();
                let p = p.into_iter().map(extra).collect();
                let o = o
                    .into_iter()
                    .map(|k| SortKey {
                        column: extra(k.column),
                        ..k
                    })
                    .collect();
                (p, o, call)
            })
            .collect();
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
        (rel, WindowColumns { position })
    }
}

impl Binder<'_> {
    /// A WINDOW clause names each window once.
    pub(crate) fn check_window_clause(
        &self,
        named: &[sql::NamedWindowDefinition],
        span: Span,
    ) -> BResult<()> {
        for (i, def) in named.iter().enumerate() {
            if named[..i].iter().any(|d| d.0.value == def.0.value) {
                return Err(Diagnostic::error(
                    self.span(def.0.span, span),
                    "Duplicate window names not allowed",
                )
                .with_note("this is Flink's message"));
            }
        }
        Ok(())
    }

    /// The OVER nodes of `windows` above `input` (nothing when it has no
    /// calls), with the placeholders of the SELECT list `exprs` and of the
    /// hidden ORDER BY `keys` pointed at their columns.
    pub(crate) fn apply_windows(
        &mut self,
        windows: OverCollector,
        input: Rel,
        exprs: &mut [Expr],
        keys: Option<Vec<OrderKey>>,
        span: Span,
    ) -> (Rel, Option<Vec<OrderKey>>) {
        if windows.is_empty() {
            return (input, keys);
        }
        if let Some(d) = windows.offset_beside_other_windows() {
            self.error(d);
        }
        let (rel, columns) = self.finish_over(windows, input, span);
        for e in exprs.iter_mut() {
            columns.resolve(e);
        }
        let keys = keys.map(|keys| {
            keys.into_iter()
                .map(|mut k| {
                    if let KeyExpr::Hidden(e) = &mut k.key {
                        columns.resolve(e);
                    }
                    k
                })
                .collect()
        });
        (rel, keys)
    }
}

/// For a SELECT list that is not read (EXISTS's): the items that hold a
/// window call become NULLs of their type; no window is computed.
pub(crate) fn drop_windows(exprs: &mut [Expr]) -> OverCollector {
    for e in exprs.iter_mut() {
        let mut windowed = false;
        crate::ir::visit(e, &mut |x| {
            windowed |= matches!(x.kind, ExprKind::Column(c) if c >= PLACEHOLDER);
        });
        if windowed {
            *e = Expr {
                kind: ExprKind::Literal(crate::ir::Literal::Null),
                ty: crate::types::DataType::new(e.ty.kind, true),
                span: e.span,
            };
        }
    }
    OverCollector::default()
}

/// Where each window call's value is, once the OVER nodes exist.
pub(crate) struct WindowColumns {
    position: Vec<usize>,
}

impl WindowColumns {
    /// Points the window placeholders of `e` at the calls' columns.
    pub(crate) fn resolve(&self, e: &mut Expr) {
        if let ExprKind::Column(c) = &mut e.kind {
            if *c >= PLACEHOLDER {
                *c = self.position[*c - PLACEHOLDER];
            }
            return;
        }
        map_children(e, &mut |child| self.resolve(child));
    }
}

/// The specification of `OVER w` or `OVER (w ...)`: the named window's,
/// with what the reference adds, as Calcite (Flink's validator) merges them.
fn resolve_window(
    named: &[sql::NamedWindowDefinition],
    window: &WindowType,
    span: Span,
    depth: usize,
) -> BResult<sql::WindowSpec> {
    let flink =
        |message: String| Diagnostic::error(span, message).with_note("this is Flink's message");
    let lookup = |name: &sql::Ident| -> BResult<sql::WindowSpec> {
        if depth > named.len() {
            return Err(Diagnostic::error(
                span,
                format!("window '{name}' is defined through itself"),
            ));
        }
        let def = named
            .iter()
            .find(|d| d.0.value == name.value)
            .ok_or_else(|| flink(format!("Window '{}' not found", name.value)))?;
        let window = match &def.1 {
            sql::NamedWindowExpr::NamedWindow(other) => WindowType::NamedWindow(other.clone()),
            sql::NamedWindowExpr::WindowSpec(spec) => WindowType::WindowSpec(spec.clone()),
        };
        resolve_window(named, &window, span, depth + 1)
    };
    match window {
        WindowType::NamedWindow(name) => lookup(name),
        WindowType::WindowSpec(spec) => {
            let Some(base) = &spec.window_name else {
                return Ok(spec.clone());
            };
            let base = lookup(base)?;
            if !spec.partition_by.is_empty() {
                return Err(flink(
                    "PARTITION BY not allowed with existing window reference".into(),
                ));
            }
            if !spec.order_by.is_empty() && !base.order_by.is_empty() {
                return Err(flink(
                    "ORDER BY not allowed in both base and referenced windows".into(),
                ));
            }
            if base.window_frame.is_some() {
                return Err(flink(
                    "Referenced window cannot have framing declarations".into(),
                ));
            }
            if spec.window_frame.is_some() {
                // Flink 2.3 drops such a frame: `COUNT(*) OVER (w ROWS 1
                // PRECEDING)` counted every row up to the current one
                // (observed), as `ROWS UNBOUNDED PRECEDING` would.
                return Err(Diagnostic::unsupported(
                    span,
                    "a frame on a reference to a named window, OVER (w ROWS ...) (Flink 2.3 ignores the frame; put it in the WINDOW definition)",
                ));
            }
            Ok(sql::WindowSpec {
                window_name: None,
                partition_by: base.partition_by,
                order_by: if spec.order_by.is_empty() {
                    base.order_by
                } else {
                    spec.order_by.clone()
                },
                window_frame: spec.window_frame.clone(),
            })
        }
    }
}

/// Whether a window function call appears anywhere inside `expr`.
pub(crate) fn contains_window(expr: &sql::Expr) -> bool {
    super::expr::contains_call(
        expr,
        &|e| matches!(e, sql::Expr::Function(f) if f.over.is_some()),
    )
}

/// Where a window call's arguments and keys bind: over the FROM clause, or
/// in grouped mode over the aggregate's rows.
fn sub_cx<'c>(cx: &'c mut ExprCx<'_>, clause: &'static str) -> ExprCx<'c> {
    ExprCx {
        scope: cx.scope,
        clause,
        grouping: cx.grouping.as_deref_mut(),
    }
}

/// Refuses a scalar subquery inside a window call: its value is joined to
/// the rows only after the windows' inputs are computed.
fn no_subquery(e: Expr) -> BResult<Expr> {
    if super::subquery::has_placeholder(&e) {
        // Flink 2.3 fails while planning it: "not found: $SCALAR_QUERY(...)".
        return Err(Diagnostic::error(
            e.span,
            "a scalar subquery inside a window function's arguments, PARTITION BY or ORDER BY",
        )
        .with_note("Flink 2.3's planner fails on it (\"not found: $SCALAR_QUERY\")"));
    }
    Ok(e)
}

/// A non-negative decimal literal's digits and scale (`1.50` is 150 at
/// scale 2), if it has no exponent and fits an i64.
fn decimal_text(text: &str) -> Option<(i64, u8)> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || int.len() + frac.len() > 18
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    Some((digits.parse().ok()?, u8::try_from(frac.len()).ok()?))
}

/// The offset of a LAG/LEAD: a constant integer expression (`2`, `-1`,
/// `1 + 1`, `CAST(1 AS BIGINT)`), as Flink's planner folds it.
fn lag_offset(o: &Expr, function: &str) -> BResult<i64> {
    if o.ty.is_null_type() {
        // Flink 2.3 fails planning it (a NullPointerException).
        return Err(Diagnostic::error(
            o.span,
            format!("the offset of {function} must not be NULL"),
        ));
    }
    if !o.ty.is_numeric() {
        return Err(Diagnostic::error(
            o.span,
            format!("Cannot apply '{function}' to arguments of this type: its offset must be an integer"),
        )
        .with_note("Flink refuses it: \"Cannot apply 'LAG' to arguments of type 'LAG(<INTEGER>, <CHAR(1)>)'\""));
    }
    if !o.ty.kind.is_integer() {
        return Err(Diagnostic::unsupported(
            o.span,
            &format!("{function} with a non-integer offset (Flink 2.3 gives NULL for every row)"),
        ));
    }
    constant_integer(o).ok_or_else(|| {
        Diagnostic::unsupported(
            o.span,
            &format!("{function} with an offset that is not constant (Flink 2.3 plans it and its job then fails: \"cannot assign instance of java.lang.invoke.SerializedLambda to field ...OffsetOverFrame.calcOffsetFunc\")"),
        )
    })
}

/// The value of a constant integer expression: literals, negation, `+ - *`
/// and casts between integer types (None on overflow or anything else).
fn constant_integer(e: &Expr) -> Option<i64> {
    use crate::ir::{BinaryOp, UnaryOp};
    if !e.ty.kind.is_integer() {
        return None;
    }
    match &e.kind {
        ExprKind::Literal(Literal::Integer(v)) => Some(*v),
        ExprKind::Unary {
            op: UnaryOp::Negate,
            operand,
        } => constant_integer(operand)?.checked_neg(),
        ExprKind::Binary { op, left, right } => {
            let (l, r) = (constant_integer(left)?, constant_integer(right)?);
            match op {
                BinaryOp::Plus => l.checked_add(r),
                BinaryOp::Minus => l.checked_sub(r),
                BinaryOp::Multiply => l.checked_mul(r),
                _ => None,
            }
        }
        ExprKind::Cast { operand, .. } => constant_integer(operand),
        _ => None,
    }
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
