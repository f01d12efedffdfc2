//! Query binding: SELECT (with joins, grouping, DISTINCT), set operations,
//! VALUES, ORDER BY / LIMIT, derived tables, CTEs and window table functions.
//!
//! Each function reports the errors it can recover from (one per select
//! item, say) and returns `None` when it cannot produce a relation; callers
//! then stop without reporting that failure again.

use sqlparser::ast::{
    self as sql, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, JoinConstraint,
    JoinOperator, LimitClause, OrderByKind, SelectItem, SetExpr, SetOperator, SetQuantifier,
    Spanned, TableFactor, Value,
};

use super::expr::{contains_aggregate, contains_call, ExprCx, Grouping};
use super::order_by::sorted_projection;
use super::scope::{Scope, ScopeColumn};
use super::{cast_to_kind, Binder, CatalogEntry};
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::strip_spans;
use crate::ir::{Expr, ExprKind, Field, JoinKind, Literal, Rel, RelKind, SortKey, WindowKind};
use crate::types::{DataType, TypeKind};
use crate::typing;

type BResult<T> = Result<T, Diagnostic>;

impl Binder<'_> {
    fn report<T>(&mut self, result: BResult<T>) -> Option<T> {
        result.map_err(|d| self.error(d)).ok()
    }

    /// Binds a query, reporting its errors; `None` if it did not bind.
    pub(crate) fn bind_query(&mut self, query: &sql::Query, fallback: Span) -> Option<Rel> {
        let span = self.span(query.span(), fallback);
        if !query.locks.is_empty()
            || query.for_clause.is_some()
            || query.settings.is_some()
            || query.format_clause.is_some()
            || !query.pipe_operators.is_empty()
        {
            self.error(Diagnostic::unsupported(
                span,
                "FOR, SETTINGS, FORMAT and pipe clauses",
            ));
            return None;
        }
        let ctes_before = self.ctes.len();
        let result = self.bind_query_inner(query, span);
        self.ctes.truncate(ctes_before);
        result
    }

    fn bind_query_inner(&mut self, query: &sql::Query, span: Span) -> Option<Rel> {
        if let Some(with) = &query.with {
            if with.recursive {
                self.error(Diagnostic::unsupported(span, "WITH RECURSIVE"));
                return None;
            }
            for cte in &with.cte_tables {
                let cte_span = self.span(cte.alias.name.span, span);
                let outer = self.begin_cte_values_from();
                let rel = self.bind_query(&cte.query, cte_span);
                self.end_cte_values_from(outer, self.ctes.len());
                let mut rel = rel?;
                if !cte.alias.columns.is_empty() {
                    if cte.alias.columns.len() != rel.schema.len() {
                        self.error(Diagnostic::error(
                            cte_span,
                            format!(
                                "`{}` names {} columns, but its query returns {}",
                                cte.alias.name.value,
                                cte.alias.columns.len(),
                                rel.schema.len()
                            ),
                        ));
                        return None;
                    }
                    for (f, c) in rel.schema.iter_mut().zip(&cte.alias.columns) {
                        f.name = c.name.value.clone();
                    }
                }
                self.ctes.push((cte.alias.name.value.clone(), rel));
            }
        }
        let body = match (query.body.as_ref(), &query.order_by) {
            // ORDER BY of a SELECT sees its FROM clause, aliases and aggregates.
            (SetExpr::Select(select), Some(order_by)) => {
                let rel = self.bind_select_ordered(select, Some(order_by), span)?;
                super::order_by::with_sort_span(rel, span)
            }
            (body, order_by) => {
                let body = self.bind_set_expr(body, span)?;
                match order_by {
                    None => body,
                    Some(order_by) => self.bind_order_by(order_by, body, span)?,
                }
            }
        };
        if query.limit_clause.is_none() && query.fetch.is_none() {
            return Some(body);
        }
        self.bind_limit(
            query.limit_clause.as_ref(),
            query.fetch.as_ref(),
            query.order_by.is_some(),
            body,
            span,
        )
    }

    fn bind_set_expr(&mut self, body: &SetExpr, span: Span) -> Option<Rel> {
        match body {
            SetExpr::Select(select) => self.bind_select(select, span),
            SetExpr::Query(query) => self.bind_query(query, span),
            SetExpr::Values(values) => self.bind_values(values, span),
            SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => {
                let distinct = match (op, set_quantifier) {
                    (SetOperator::Union, SetQuantifier::All) => false,
                    (SetOperator::Union, SetQuantifier::None | SetQuantifier::Distinct) => true,
                    (
                        SetOperator::Intersect | SetOperator::Except,
                        SetQuantifier::None | SetQuantifier::Distinct | SetQuantifier::All,
                    ) => {
                        use super::set_ops::SetOp;
                        let all = *set_quantifier == SetQuantifier::All;
                        let set_op = match (*op == SetOperator::Intersect, all) {
                            (true, false) => SetOp::Intersect,
                            (false, false) => SetOp::Except,
                            (true, true) => SetOp::IntersectAll,
                            (false, true) => SetOp::ExceptAll,
                        };
                        let spans = [self.span(left.span(), span), self.span(right.span(), span)];
                        let l = self.bind_set_expr(left, span);
                        let r = self.bind_set_expr(right, span);
                        return self.intersect_or_except(set_op, l?, r?, &spans, span);
                    }
                    (SetOperator::Minus, _) => {
                        // Flink's parser: "MINUS is not allowed under the current SQL conformance level".
                        self.error(Diagnostic::error(
                            span,
                            "MINUS is not allowed under Flink's SQL conformance level: write EXCEPT",
                        ));
                        return None;
                    }
                    (op, q) => {
                        self.error(Diagnostic::unsupported(span, format!("{op} {q}").trim()));
                        return None;
                    }
                };
                // A chain `a UNION ALL b UNION ALL c ...` is one n-ary union:
                // gather its operands without recursing down the chain.
                let mut operands = vec![right.as_ref()];
                let mut rest = left.as_ref();
                while let SetExpr::SetOperation {
                    left,
                    op: SetOperator::Union,
                    set_quantifier: q,
                    right,
                } = rest
                {
                    if *q != *set_quantifier {
                        break;
                    }
                    operands.push(right.as_ref());
                    rest = left.as_ref();
                }
                operands.push(rest);
                operands.reverse();
                let mut bound = Vec::with_capacity(operands.len());
                let mut spans = Vec::with_capacity(operands.len());
                let mut failed = false;
                for operand in operands {
                    spans.push(self.span(operand.span(), span));
                    match self.bind_set_expr(operand, span) {
                        Some(rel) => bound.push(rel),
                        None => failed = true,
                    }
                }
                if failed {
                    return None;
                }
                let union = self.union_all(bound, &spans, span)?;
                Some(if distinct { distinct_of(union) } else { union })
            }
            other => {
                self.error(Diagnostic::unsupported(
                    span,
                    &format!("`{other}` as a query"),
                ));
                None
            }
        }
    }

    /// UNION ALL: same column count, each column cast to the common type.
    /// `spans` are the operands' own spans: a count mismatch points at the
    /// shorter of the first operand and the first one that differs.
    pub(super) fn union_all(
        &mut self,
        inputs: Vec<Rel>,
        spans: &[Span],
        span: Span,
    ) -> Option<Rel> {
        let arity = inputs[0].schema.len();
        if let Some((i, bad)) = inputs
            .iter()
            .enumerate()
            .find(|(_, r)| r.schema.len() != arity)
        {
            let shorter = if bad.schema.len() < arity { i } else { 0 };
            self.error(Diagnostic::error(
                spans[shorter],
                format!(
                    "the inputs of UNION have different column counts: {arity} and {}",
                    bad.schema.len()
                ),
            ));
            return None;
        }
        let mut schema = Vec::with_capacity(arity);
        for c in 0..arity {
            let types: Vec<DataType> = inputs.iter().map(|r| r.schema[c].ty).collect();
            let Some(common) = typing::common_type(&types) else {
                self.error(Diagnostic::error(
                    span,
                    format!(
                        "column {} of UNION has incompatible types: {}",
                        c + 1,
                        types
                            .iter()
                            .map(|t| t.to_string())
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                ));
                return None;
            };
            schema.push(Field {
                name: inputs[0].schema[c].name.clone(),
                ty: common,
            });
        }
        let inputs: Vec<Rel> = inputs.into_iter().map(|r| conform(r, &schema)).collect();
        // Nested UNION ALLs flatten into one n-ary union.
        let mut flat = Vec::new();
        for input in inputs {
            let input: Rel = input;
            match input.kind {
                RelKind::UnionAll { inputs } if input.schema == schema => flat.extend(inputs),
                kind => flat.push(Rel { kind, ..input }),
            }
        }
        Some(Rel {
            kind: RelKind::UnionAll { inputs: flat },
            schema,
            span,
        })
    }

    fn bind_values(&mut self, values: &sql::Values, span: Span) -> Option<Rel> {
        let empty = Scope::default();
        let mut rows = Vec::new();
        let mut ok = true;
        for row in &values.rows {
            let mut bound = Vec::new();
            for e in &row.content {
                if let Some(d) = self.untyped_null(e, "VALUES", span) {
                    self.error(d);
                    ok = false;
                    continue;
                }
                let mut cx = ExprCx::plain(&empty, "VALUES");
                match self.bind_expr(e, &mut cx, span) {
                    Ok(b) => bound.push(b),
                    Err(d) => {
                        self.error(d);
                        ok = false;
                    }
                }
            }
            rows.push(bound);
        }
        if !ok || rows.is_empty() {
            return None;
        }
        let arity = rows[0].len();
        if rows.iter().any(|r| r.len() != arity) {
            self.error(Diagnostic::error(
                span,
                "the rows of VALUES have different numbers of columns",
            ));
            return None;
        }
        let mut schema = Vec::new();
        for c in 0..arity {
            let types: Vec<DataType> = rows.iter().map(|r| r[c].ty).collect();
            let Some(common) = typing::common_type(&types) else {
                self.error(Diagnostic::error(
                    span,
                    format!("column {} of VALUES has incompatible types", c + 1),
                ));
                return None;
            };
            schema.push(Field {
                name: format!("EXPR${c}"),
                ty: common,
            });
        }
        let rows = rows
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .zip(&schema)
                    .map(|(e, f)| cast_to_kind(e, f.ty.kind))
                    .collect()
            })
            .collect();
        self.note_values(span);
        Some(Rel {
            kind: RelKind::Values { rows },
            schema,
            span,
        })
    }

    /// A bare `NULL` as a VALUES item or a SELECT item: Flink refuses it
    /// ("Illegal use of 'NULL'"), in every row and whatever the other rows
    /// or the sink's column types are, because it infers no type for it.
    fn untyped_null(&self, e: &sql::Expr, place: &str, fallback: Span) -> Option<Diagnostic> {
        let mut inner = e;
        while let sql::Expr::Nested(n) = inner {
            inner = n;
        }
        let sql::Expr::Value(v) = inner else {
            return None;
        };
        (v.value == sql::Value::Null).then(|| {
            Diagnostic::error(
                self.span(e.span(), fallback),
                format!("illegal use of 'NULL': a bare NULL in {place} has no type"),
            )
            .with_help("give it a type, as Flink requires: CAST(NULL AS <type>)")
        })
    }

    fn bind_select(&mut self, select: &sql::Select, fallback: Span) -> Option<Rel> {
        self.bind_select_ordered(select, None, fallback)
    }

    fn bind_select_ordered(
        &mut self,
        select: &sql::Select,
        order_by: Option<&sql::OrderBy>,
        fallback: Span,
    ) -> Option<Rel> {
        // Window calls are allowed only in this SELECT's own list (set
        // below): not in its FROM or WHERE, nor in a query nested in them.
        let outer = self.over.take();
        // A correlated subquery's own SELECT takes the enclosing scope; its
        // clauses other than WHERE (and its derived tables) see no subquery
        // frame of an enclosing clause.
        let correlation = self.take_correlation();
        self.open_subquery_barrier();
        let rel = self.bind_select_body(select, order_by, fallback, correlation);
        self.close_subquery_barrier();
        self.over = outer;
        rel
    }

    fn bind_select_body(
        &mut self,
        select: &sql::Select,
        order_by: Option<&sql::OrderBy>,
        fallback: Span,
        correlation: Option<Scope>,
    ) -> Option<Rel> {
        let span = self.span(select.span(), fallback);
        let allow_outer = self.take_allow_select_outer() && correlation.is_some();
        let semi = self
            .take_allow_semi_select(select)
            .filter(|_| correlation.is_some());
        let semi_outer = semi.is_some();
        let unsupported_clause = [
            (select.top.is_some(), "TOP"),
            (select.into.is_some(), "SELECT INTO"),
            (!select.lateral_views.is_empty(), "LATERAL VIEW"),
            (select.prewhere.is_some(), "PREWHERE"),
            (!select.connect_by.is_empty(), "CONNECT BY"),
            (!select.cluster_by.is_empty(), "CLUSTER BY"),
            (!select.distribute_by.is_empty(), "DISTRIBUTE BY"),
            (!select.sort_by.is_empty(), "SORT BY"),
            (select.qualify.is_some(), "QUALIFY"),
            (select.exclude.is_some(), "EXCLUDE"),
        ];
        if let Some((_, what)) = unsupported_clause.iter().find(|(present, _)| *present) {
            self.error(Diagnostic::unsupported(span, &format!("the {what} clause")));
            return None;
        }
        if let Err(d) = self.check_window_clause(&select.named_window, span) {
            self.error(d);
            return None;
        }
        let distinct = match &select.distinct {
            None | Some(sql::Distinct::All) => false,
            Some(sql::Distinct::Distinct) => true,
            Some(_) => {
                self.error(Diagnostic::unsupported(span, "DISTINCT ON"));
                return None;
            }
        };

        // FROM
        let (mut input, scope) = if select.from.is_empty() {
            self.note_one_row(span);
            (one_row(span), Scope::default())
        } else {
            let mut acc: Option<(Rel, Scope)> = None;
            let mut failed = false;
            for twj in &select.from {
                match self.bind_table_with_joins(twj, span) {
                    Some((rel, scope)) => {
                        acc = Some(match acc {
                            None => (rel, scope),
                            Some((l, ls)) => cross_join(l, ls, rel, scope, span),
                        })
                    }
                    None => failed = true,
                }
            }
            if failed {
                return None;
            }
            acc?
        };

        // A scalar subquery's SELECT list may read the enclosing query: its
        // columns join the WHERE's value generator (subquery/select_outer.rs).
        // So may the aggregate arguments of a semi join's subquery's HAVING.
        let select_outer = (allow_outer && self.begin_select_outer(select, &scope))
            || (semi.is_some_and(|r| r.having) && self.begin_having_outer(select, &scope));
        // EXISTS does not read its SELECT list: window calls there go.
        let unread = semi.is_some_and(|r| r.exists);

        // WHERE (subqueries become joins; see subquery.rs)
        let mut correlated = Vec::new();
        if let Some(selection) = &select.selection {
            let mark = self.note_positive(selection);
            let bound = self.bind_where(
                selection,
                input,
                &scope,
                correlation.as_ref(),
                aggregates(select),
                span,
            );
            self.forget_positive(mark);
            let (rel, corr) = bound?;
            input = rel;
            correlated = corr;
        }

        let group_exprs: &[sql::Expr] = match &select.group_by {
            GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => exprs,
            // Both are parse errors in Flink 2.3 (Calcite's grammar).
            GroupByExpr::All(_) => {
                self.error(
                    Diagnostic::error(span, "GROUP BY ALL without grouping elements")
                        .with_note("Flink 2.3's parser refuses it (`Encountered \"<EOF>\"`); ALL is GROUP BY's default quantifier and needs the keys after it (`GROUP BY ALL k`)"),
                );
                return None;
            }
            GroupByExpr::Expressions(..) => {
                self.error(
                    Diagnostic::error(span, "GROUP BY ... WITH ROLLUP / WITH CUBE / WITH TOTALS")
                        .with_note("Flink 2.3's parser refuses it (`Encountered \"WITH\"`); write `GROUP BY ROLLUP(...)` or `CUBE(...)`"),
                );
                return None;
            }
        };
        let mut grouping_sets = super::grouping::expand_group_by(group_exprs);
        let start = select.select_token.0.span.start;
        if self.group_by_distinct.contains(&(start.line, start.column)) {
            // GROUP BY DISTINCT: each grouping set once, first kept.
            if let Some(g) = &mut grouping_sets {
                super::grouping::distinct_sets(&mut g.sets);
            }
        }
        if let Some(g) = &grouping_sets {
            if let Err(d) = super::grouping::check_repeated_sets(&g.sets, span) {
                self.error(d);
                return None;
            }
        }
        let expanded_keys;
        let (group_exprs, sets) = match &grouping_sets {
            Some(g) => {
                expanded_keys = g.keys.clone();
                let all = g.sets.len() == 1 && g.sets[0].len() == g.keys.len();
                (&expanded_keys[..], (!all).then_some(&g.sets[..]))
            }
            None => (group_exprs, None),
        };
        let grouped = !group_exprs.is_empty()
            || grouping_sets.is_some()
            || select.having.is_some()
            || select.projection.iter().any(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    contains_aggregate(e)
                }
                _ => false,
            });
        if select_outer {
            let (rel, corr) = match self.generate_select_outer(input, correlated, grouped, span) {
                Ok(found) => found,
                Err(d) => {
                    self.error(d);
                    return None;
                }
            };
            input = rel;
            correlated = corr;
        }

        let rel = if grouped {
            self.open_pre_aggregate();
            let rel = self.bind_grouped_select(
                select,
                group_exprs,
                sets,
                input,
                scope,
                order_by,
                distinct,
                span,
                correlated,
            );
            self.end_pre_aggregate();
            rel?
        } else {
            let mut exprs = Vec::new();
            let mut names = Vec::new();
            let mut ok = true;
            self.open_subquery_frame();
            self.over = Some(super::over::OverCollector::new(false, &select.named_window));
            self.set_select_outer_active(true);
            // A semi join's subquery: the SELECT list reads the enclosing
            // query like the WHERE (subquery/semi_select.rs).
            let saved_outer = semi_outer.then(|| self.resolve_outer_in_select(correlation.clone()));
            for (i, item) in select.projection.iter().enumerate() {
                match self
                    .select_item(item, i, &scope, None, span)
                    .and_then(|items| {
                        items
                            .iter()
                            .try_for_each(|(e, _)| self.check_select_outer(e))?;
                        Ok(items)
                    }) {
                    Ok(items) => {
                        for (e, n) in items {
                            exprs.push(e);
                            names.push(n);
                        }
                    }
                    Err(d) => {
                        self.error(d);
                        ok = false;
                    }
                }
            }
            self.set_select_outer_active(false);
            if let Some(saved) = saved_outer {
                self.resolve_outer_in_select(saved);
            }
            if !ok {
                self.drop_subquery_frame();
                return None;
            }
            let input = self.close_subquery_frame(input, &mut exprs);
            // ORDER BY may hold window calls too: the collector stays set.
            let (input, keys) = match order_by {
                Some(_) if !correlated.is_empty() => {
                    self.error(Diagnostic::unsupported(
                        span,
                        "ORDER BY in a correlated subquery",
                    ));
                    return None;
                }
                Some(order_by) => {
                    // Its subqueries join the input like the SELECT list's.
                    self.open_subquery_frame();
                    let Some(mut keys) = self.bind_select_order_by(
                        order_by, select, &exprs, &names, &scope, None, distinct, span,
                    ) else {
                        self.drop_subquery_frame();
                        return None;
                    };
                    let mut hidden = Vec::new();
                    let n = super::order_by::take_hidden(&mut keys, &mut hidden);
                    let input = self.close_subquery_frame(input, &mut hidden);
                    super::order_by::put_hidden(&mut keys, &mut hidden, n);
                    (input, Some(keys))
                }
                None => (input, None),
            };
            let mut windows = self.over.take().unwrap_or_default();
            let reads_outer = exprs.iter().any(super::subquery::reads_outer);
            if !windows.is_empty() && unread {
                windows = super::over::drop_windows(&mut exprs);
            }
            if !windows.is_empty() && (!correlated.is_empty() || reads_outer) {
                // Its correlation conditions become join keys above it, so
                // the windows would see the rows of every outer row.
                self.error(window_in_correlated(windows.first_call().unwrap_or(span)));
                return None;
            }
            let (input, keys) = self.apply_windows(windows, input, &mut exprs, keys, span);
            if let Some(keys) = keys {
                return Some(sorted_projection(input, exprs, names, keys, distinct, span));
            }
            if !correlated.is_empty() || reads_outer {
                self.correlate_plain(correlated, &mut exprs, &mut names, &input);
            }
            project(input, exprs, names, span)
        };
        Some(if distinct && order_by.is_none() {
            distinct_of(rel)
        } else {
            rel
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_grouped_select(
        &mut self,
        select: &sql::Select,
        group_exprs: &[sql::Expr],
        sets: Option<&[Vec<usize>]>,
        input: Rel,
        scope: Scope,
        order_by: Option<&sql::OrderBy>,
        distinct: bool,
        span: Span,
        correlated: Vec<Expr>,
    ) -> Option<Rel> {
        let mut keys = Vec::new();
        let mut key_names = Vec::new();
        let mut ok = true;
        // A correlated subquery groups by its correlation columns too (they
        // follow the SELECT list in its output).
        let correlation = if correlated.is_empty() {
            None
        } else {
            // With GROUP BY, HAVING filters the groups of each correlation
            // key; without, the one row of an empty set is lost, which is
            // checked once HAVING binds (subquery/empty_group.rs).
            let pairs = self.correlation_keys(correlated);
            Some(self.report(pairs)?)
        };
        let mut subquery_keys = Vec::new();
        for g in group_exprs {
            if contains_aggregate(g) {
                let gspan = self.span(g.span(), span);
                self.error(Diagnostic::error(
                    gspan,
                    "aggregate functions are not allowed in GROUP BY",
                ));
                ok = false;
                continue;
            }
            let mut cx = ExprCx::plain(&scope, "GROUP BY");
            // Its subqueries join the aggregate's input (pre_aggregate.rs).
            let opened = self.begin_group_key();
            let bound = self.bind_expr(g, &mut cx, span);
            match self.end_aggregate_arguments(opened, bound) {
                Ok(e) => {
                    // Written again in SELECT/HAVING/ORDER BY, such a key is
                    // read from the group, not computed anew: a rolled-up
                    // key is NULL there.
                    if contains_call(g, &|e| {
                        matches!(
                            e,
                            sql::Expr::Subquery(_)
                                | sql::Expr::Exists { .. }
                                | sql::Expr::In {
                                    target: sql::InTarget::Subquery(_),
                                    ..
                                }
                        )
                    }) {
                        subquery_keys.push((strip_parens(g).clone(), keys.len()));
                    }
                    key_names.push(match &e.kind {
                        ExprKind::Column(i) if *i < scope.columns.len() => {
                            scope.columns[*i].name.clone()
                        }
                        _ => format!("EXPR${}", keys.len()),
                    });
                    keys.push(e);
                }
                Err(d) => {
                    self.error(d);
                    ok = false;
                }
            }
        }
        if !ok {
            return None;
        }
        let user_keys = keys.len();
        let mut outer_sides = Vec::new();
        for (i, (inner, outer)) in correlation.into_iter().flatten().enumerate() {
            keys.push(inner);
            key_names.push(format!("$cor{i}"));
            outer_sides.push(outer);
        }
        let mut grouping = Grouping {
            input: scope.clone(),
            keys: keys.iter().cloned().map(strip_spans).collect(),
            args: Vec::new(),
            aggregates: Vec::new(),
            has_group_by: !group_exprs.is_empty(),
            grouping_sets: sets.is_some(),
            grouping_calls: Vec::new(),
            subquery_keys,
        };
        let mut exprs = Vec::new();
        let mut names = Vec::new();
        self.open_grouped_subquery_frame();
        // Window calls run over the aggregate's rows (after HAVING).
        self.over = Some(super::over::OverCollector::new(true, &select.named_window));
        self.set_select_outer_active(true);
        for (i, item) in select.projection.iter().enumerate() {
            match self.select_item(item, i, &scope, Some(&mut grouping), span) {
                Ok(items) => {
                    for (e, n) in items {
                        exprs.push(e);
                        names.push(n);
                    }
                }
                Err(d) => {
                    self.error(d);
                    ok = false;
                }
            }
        }
        self.set_select_outer_active(false);
        // Not in HAVING (Flink: "Aggregate functions over windows are not
        // supported yet."), again in ORDER BY.
        let windows = self.over.take();
        let having = match &select.having {
            Some(h) => {
                let mut cx = ExprCx {
                    scope: &scope,
                    clause: "HAVING",
                    grouping: Some(&mut grouping),
                };
                self.set_having_outer_active(true);
                let bound = self.bind_condition(h, &mut cx, span);
                self.set_having_outer_active(false);
                let bound = bound.and_then(|b| self.check_having_outer(&b, &grouping).map(|()| b));
                let no_group_by = group_exprs.is_empty() && !outer_sides.is_empty();
                let bound = bound.and_then(|b| {
                    if no_group_by
                        && super::subquery::empty_group::true_over_no_rows(
                            &b,
                            grouping.keys.len(),
                            &grouping.aggregates,
                        )
                    {
                        return Err(Diagnostic::unsupported(
                            b.span,
                            "HAVING without GROUP BY in a correlated subquery, TRUE over no rows",
                        )
                        .with_note("stmtc, like Flink 2.3, groups the subquery by its correlation, so an enclosing row without rows has no group (Flink's rows are wrong: `(SELECT COUNT(*) ... HAVING COUNT(*) = 0)` is NULL where SQL's is 0); write a HAVING that is not TRUE over no rows, or add GROUP BY"));
                    }
                    Ok(b)
                });
                match bound {
                    Ok(b) => Some(b),
                    Err(d) => {
                        self.error(d);
                        ok = false;
                        None
                    }
                }
            }
            None => None,
        };
        if !ok {
            self.drop_subquery_frame();
            return None;
        }
        self.over = windows;
        let order_keys = match order_by {
            Some(order_by) => Some(self.bind_select_order_by(
                order_by,
                select,
                &exprs,
                &names,
                &scope,
                Some(&mut grouping),
                distinct,
                span,
            )?),
            None => None,
        };
        let mut windows = self.over.take().unwrap_or_default();
        if !windows.is_empty() && !outer_sides.is_empty() {
            self.error(window_in_correlated(windows.first_call().unwrap_or(span)));
            return None;
        }
        // With grouping sets the SELECT list is retyped again once the
        // window columns are in place.
        let retype_windows = sets.is_some() && !windows.is_empty();
        // keys ++ args, then aggregate, then HAVING, then the windows, then
        // the SELECT list.
        let mut pre_exprs = keys;
        pre_exprs.extend(grouping.args.iter().cloned().map(|mut a| {
            a.span = span;
            a
        }));
        let mut pre_names = key_names.clone();
        pre_names.extend((0..grouping.args.len()).map(|i| format!("$arg{i}")));
        // Subqueries in aggregate arguments join the input (pre_aggregate.rs).
        let input = self.close_pre_aggregate(input, &mut pre_exprs);
        let pre = project(input, pre_exprs, pre_names, span);
        let key_count = grouping.keys.len();
        let mut schema: Vec<Field> = pre.schema[..key_count].to_vec();
        for (i, agg) in grouping.aggregates.iter_mut().enumerate() {
            agg.name = format!("EXPR${}", key_count + i);
            schema.push(Field {
                name: agg.name.clone(),
                ty: agg.ty,
            });
        }
        let (aggregate, having, mut exprs, order_keys) = match sets {
            None => (
                Rel {
                    kind: RelKind::Aggregate {
                        input: Box::new(pre),
                        group: (0..key_count).collect(),
                        aggregates: grouping.aggregates,
                    },
                    schema,
                    span,
                },
                having,
                exprs,
                order_keys,
            ),
            Some(sets) => {
                let aggregate = super::grouping::grouping_sets_aggregate(
                    pre,
                    key_count,
                    grouping.aggregates,
                    &grouping.grouping_calls,
                    sets,
                    span,
                );
                let having = having.map(|h| super::grouping::retype(&h, &aggregate.schema));
                // Group keys are nullable now: so are the windows' inputs
                // (some calls are refused, see OverCollector::retype).
                if let Err(d) = windows.retype(&aggregate.schema) {
                    self.error(d);
                    return None;
                }
                let (exprs, order_keys) =
                    super::grouping::retype_select(exprs, order_keys, &aggregate.schema);
                (aggregate, having, exprs, order_keys)
            }
        };
        // Scalar subqueries of SELECT, HAVING and ORDER BY join the
        // aggregate's rows.
        let mut order_keys = order_keys;
        let hidden = order_keys
            .as_mut()
            .map_or(0, |k| super::order_by::take_hidden(k, &mut exprs));
        let has_having = having.is_some();
        exprs.extend(having);
        let aggregate = self.close_subquery_frame(aggregate, &mut exprs);
        let having = if has_having { exprs.pop() } else { None };
        if let Some(keys) = order_keys.as_mut() {
            super::order_by::put_hidden(keys, &mut exprs, hidden);
        }
        let aggregate = match having {
            Some(h) => filter(aggregate, h),
            None => aggregate,
        };
        let (aggregate, order_keys) =
            self.apply_windows(windows, aggregate, &mut exprs, order_keys, span);
        let (mut exprs, order_keys) = if retype_windows {
            super::grouping::retype_select(exprs, order_keys, &aggregate.schema)
        } else {
            (exprs, order_keys)
        };
        if outer_sides.is_empty() {
            return Some(match order_keys {
                Some(keys) => sorted_projection(aggregate, exprs, names, keys, distinct, span),
                None => project(aggregate, exprs, names, span),
            });
        }
        if order_keys.is_some() {
            self.error(Diagnostic::unsupported(
                span,
                "ORDER BY in a correlated subquery",
            ));
            return None;
        }
        let visible = exprs.len();
        for (i, name) in key_names[user_keys..].iter().enumerate() {
            let k = user_keys + i;
            exprs.push(Expr {
                kind: ExprKind::Column(k),
                ty: aggregate.schema[k].ty,
                span,
            });
            names.push(name.clone());
        }
        let rel = project(aggregate, exprs, names, span);
        let global = group_exprs.is_empty() && !has_having;
        self.correlate_grouped(outer_sides, visible, &rel, global);
        Some(rel)
    }

    /// One SELECT item: an expression with its output name, or a `*` expansion.
    fn select_item(
        &mut self,
        item: &SelectItem,
        position: usize,
        scope: &Scope,
        grouping: Option<&mut Grouping>,
        span: Span,
    ) -> BResult<Vec<(Expr, String)>> {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(e) => {
                // Parentheses do not count: Calcite's parser drops them, so
                // `(col8)` is named `col8`, as Flink names it.
                let mut bare = e;
                while let sql::Expr::Nested(inner) = bare {
                    bare = inner;
                }
                let name = match bare {
                    sql::Expr::Identifier(i) => i.value.clone(),
                    sql::Expr::CompoundIdentifier(parts) => {
                        parts.last().map_or_else(String::new, |i| i.value.clone())
                    }
                    _ => format!("EXPR${position}"),
                };
                (e, name)
            }
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            SelectItem::Wildcard(options) | SelectItem::QualifiedWildcard(_, options) => {
                let item_span = self.span(item.span(), span);
                if options.opt_exclude.is_some()
                    || options.opt_except.is_some()
                    || options.opt_replace.is_some()
                    || options.opt_rename.is_some()
                    || options.opt_ilike.is_some()
                {
                    return Err(Diagnostic::unsupported(
                        item_span,
                        "`*` with EXCLUDE/EXCEPT/REPLACE/RENAME",
                    ));
                }
                let qualifier = match item {
                    SelectItem::QualifiedWildcard(
                        sql::SelectItemQualifiedWildcardKind::ObjectName(name),
                        _,
                    ) => Some(name.to_string().trim_matches('`').to_string()),
                    SelectItem::QualifiedWildcard(_, _) => {
                        return Err(Diagnostic::unsupported(item_span, "this form of `*`"));
                    }
                    _ => None,
                };
                if let Some(q) = &qualifier {
                    if !scope
                        .columns
                        .iter()
                        .any(|c| c.qualifier.as_deref() == Some(q.as_str()))
                    {
                        return Err(Diagnostic::error(
                            item_span,
                            format!("table `{q}` not found in this query"),
                        ));
                    }
                }
                let mut out = Vec::new();
                for (i, c) in scope.columns.iter().enumerate() {
                    if qualifier.is_some() && c.qualifier != qualifier {
                        continue;
                    }
                    let column = Expr {
                        kind: ExprKind::Column(i),
                        ty: c.ty,
                        span: item_span,
                    };
                    let expr = match grouping.as_deref() {
                        None => column,
                        Some(g) => {
                            let stripped = strip_spans(column.clone());
                            match g.keys.iter().position(|k| *k == stripped) {
                                Some(k) => Expr {
                                    kind: ExprKind::Column(k),
                                    ..column
                                },
                                None => {
                                    return Err(Diagnostic::error(
                                        item_span,
                                        format!("expression `{}` is not being grouped", c.name),
                                    )
                                    .with_help("list the columns instead of `*`, and GROUP BY or aggregate each"))
                                }
                            }
                        }
                    };
                    out.push((expr, c.name.clone()));
                }
                return Ok(out);
            }
            SelectItem::ExprWithAliases { .. } => {
                return Err(Diagnostic::unsupported(
                    self.span(item.span(), span),
                    "multiple aliases",
                ));
            }
        };
        if let Some(d) = self.untyped_null(expr, "a SELECT list", span) {
            return Err(d);
        }
        let mut cx = ExprCx {
            scope,
            clause: "SELECT",
            grouping,
        };
        let bound = self.bind_expr(expr, &mut cx, span)?;
        Ok(vec![(bound, name)])
    }

    fn bind_table_with_joins(
        &mut self,
        twj: &sql::TableWithJoins,
        span: Span,
    ) -> Option<(Rel, Scope)> {
        let (mut rel, mut scope) = self.bind_table_factor(&twj.relation, span)?;
        for join in &twj.joins {
            let jspan = self.span(join.span(), span);
            let (right, right_scope) = self.bind_table_factor(&join.relation, span)?;
            let (kind, constraint) = match &join.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinKind::Inner, Some(c)),
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinKind::Left, Some(c)),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinKind::Right, Some(c)),
                JoinOperator::FullOuter(c) => (JoinKind::Full, Some(c)),
                JoinOperator::CrossJoin(JoinConstraint::None) => (JoinKind::Inner, None),
                other => {
                    self.error(Diagnostic::unsupported(
                        jspan,
                        &format!("this join (`{other:?}`)").replace("(JoinConstraint::None)", ""),
                    ));
                    return None;
                }
            };
            let (left_nullable, right_nullable) = match kind {
                JoinKind::Inner | JoinKind::Semi | JoinKind::Anti => (false, false),
                JoinKind::Left => (false, true),
                JoinKind::Right => (true, false),
                JoinKind::Full => (true, true),
            };
            let joined_scope = scope.clone().concat(right_scope.clone());
            let left_width = rel.schema.len();
            let condition = match constraint {
                None => true_literal(jspan),
                Some(JoinConstraint::On(on)) => {
                    // Uncorrelated subqueries of ON join the left input.
                    self.open_subquery_frame();
                    let mut cx = ExprCx::plain(&joined_scope, "ON");
                    let bound = self.bind_condition(on, &mut cx, jspan);
                    let Some(condition) = self.report(bound) else {
                        self.drop_subquery_frame();
                        return None;
                    };
                    let (left, condition) = self.close_on_subqueries(rel, condition, jspan)?;
                    rel = left;
                    condition
                }
                Some(JoinConstraint::None) => {
                    self.error(
                        Diagnostic::error(jspan, "a JOIN needs an ON condition")
                            .with_help("add ON left.key = right.key, or write CROSS JOIN"),
                    );
                    return None;
                }
                Some(_) => {
                    self.error(Diagnostic::unsupported(
                        jspan,
                        "JOIN ... USING and NATURAL JOIN",
                    ));
                    return None;
                }
            };
            let extra = rel.schema.len() - left_width;
            let out_scope = Scope {
                columns: scope
                    .columns
                    .into_iter()
                    .map(|c| nullable_column(c, left_nullable))
                    .chain(
                        right_scope
                            .columns
                            .into_iter()
                            .map(|c| nullable_column(c, right_nullable)),
                    )
                    .collect(),
            };
            let schema = rel
                .schema
                .iter()
                .map(|f| nullable_field(f, left_nullable))
                .chain(
                    right
                        .schema
                        .iter()
                        .map(|f| nullable_field(f, right_nullable)),
                )
                .collect();
            rel = Rel {
                kind: RelKind::Join {
                    kind,
                    left: Box::new(rel),
                    right: Box::new(right),
                    condition,
                },
                schema,
                span: jspan,
            };
            if extra > 0 {
                // Drop the values that ON's subqueries appended to the left.
                let kept =
                    (0..rel.schema.len()).filter(|&i| i < left_width || i >= left_width + extra);
                let exprs = kept
                    .clone()
                    .map(|i| Expr {
                        kind: ExprKind::Column(i),
                        ty: rel.schema[i].ty,
                        span: jspan,
                    })
                    .collect();
                let names = kept.map(|i| rel.schema[i].name.clone()).collect();
                rel = project(rel, exprs, names, jspan);
            }
            scope = out_scope;
        }
        Some((rel, scope))
    }

    fn bind_table_factor(&mut self, factor: &TableFactor, fallback: Span) -> Option<(Rel, Scope)> {
        let span = self.span(factor.span(), fallback);
        let (rel, default_qualifier, alias) = match factor {
            TableFactor::Table {
                name,
                alias,
                args,
                with_hints,
                version,
                with_ordinality,
                partitions,
                sample,
                ..
            } => {
                if args.is_some() {
                    self.error(Diagnostic::unsupported(
                        span,
                        "table functions in FROM (other than TABLE(TUMBLE/HOP/CUMULATE(...)))",
                    ));
                    return None;
                }
                if !with_hints.is_empty()
                    || version.is_some()
                    || *with_ordinality
                    || !partitions.is_empty()
                    || sample.is_some()
                {
                    self.error(Diagnostic::unsupported(
                        span,
                        "table hints, versions, partitions and samples",
                    ));
                    return None;
                }
                let parts: Vec<&sql::Ident> = name.0.iter().filter_map(|p| p.as_ident()).collect();
                let [ident] = parts.as_slice() else {
                    self.error(Diagnostic::error(
                        span,
                        format!(
                            "qualified table names (`{name}`) are not supported; use the bare name"
                        ),
                    ));
                    return None;
                };
                let name_span = self.span(ident.span, span);
                let rel = self.resolve_relation(&ident.value, name_span)?;
                (rel, Some(ident.value.clone()), alias.as_ref())
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                sample,
            } => {
                if *lateral || sample.is_some() {
                    self.error(Diagnostic::unsupported(
                        span,
                        "LATERAL subqueries and samples",
                    ));
                    return None;
                }
                let rel = self.bind_query(subquery, span)?;
                (rel, None, alias.as_ref())
            }
            TableFactor::TableFunction { expr, alias } => {
                let (rel, qualifier) = self.bind_window_tvf(expr, span)?;
                (rel, qualifier, alias.as_ref())
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let (rel, scope) = self.bind_table_with_joins(table_with_joins, span)?;
                if alias.is_some() {
                    self.error(Diagnostic::unsupported(
                        span,
                        "an alias on a parenthesized join",
                    ));
                    return None;
                }
                return Some((rel, scope));
            }
            other => {
                let what = match other {
                    TableFactor::UNNEST { .. } => "UNNEST".to_string(),
                    TableFactor::Function { .. } => "LATERAL TABLE functions".to_string(),
                    _ => format!("`{other}` in FROM"),
                };
                self.error(Diagnostic::unsupported(span, &what));
                return None;
            }
        };
        let mut rel = rel;
        let qualifier = match alias {
            Some(alias) => {
                if !alias.columns.is_empty() {
                    if alias.columns.len() != rel.schema.len() {
                        self.error(Diagnostic::error(
                            span,
                            format!(
                                "the alias `{}` names {} columns, but the table has {}",
                                alias.name.value,
                                alias.columns.len(),
                                rel.schema.len()
                            ),
                        ));
                        return None;
                    }
                    for (f, c) in rel.schema.iter_mut().zip(&alias.columns) {
                        f.name = c.name.value.clone();
                    }
                }
                Some(alias.name.value.clone())
            }
            None => default_qualifier,
        };
        let scope = Scope::of_fields(qualifier.as_deref(), &rel.schema);
        Some((rel, scope))
    }

    /// A table, view or CTE by name: its rows with every column (computed
    /// columns evaluated).
    fn resolve_relation(&mut self, name: &str, span: Span) -> Option<Rel> {
        if let Some(i) = self.ctes.iter().rposition(|(n, _)| n == name) {
            self.read_cte_values_from(i);
            return Some(self.ctes[i].1.clone());
        }
        match self.names.get(name).map(|(entry, _)| *entry) {
            Some(CatalogEntry::Table(id)) => {
                let table = self.job.table(id);
                if table.connector.kind == crate::ir::ConnectorKind::Datagen
                    && !table.connector.options.contains_key("number-of-rows")
                {
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "datagen table `{name}` is unbounded: stmtc runs bounded (batch) jobs"
                        ),
                    )
                    .with_help("set 'number-of-rows' in its WITH options");
                    self.error(d);
                    return None;
                }
                Some(self.scan(id, span))
            }
            Some(CatalogEntry::View(i)) => {
                self.read_view_values_from(i);
                let mut rel = self.job.views[i].query.clone();
                rel.span = span;
                Some(rel)
            }
            Some(CatalogEntry::BrokenView) => None,
            None => {
                let d = self.unknown_table(name, span);
                self.error(d);
                None
            }
        }
    }

    /// A scan of a table's physical columns, with its computed columns added
    /// by a projection so the result has the table's declared columns.
    pub(crate) fn scan(&self, id: crate::ir::TableId, span: Span) -> Rel {
        let table = self.job.table(id);
        let physical: Vec<Field> = table
            .physical_columns()
            .map(|(_, c)| Field {
                name: c.name.clone(),
                ty: c.ty,
            })
            .collect();
        let scan = Rel {
            kind: RelKind::Scan { table: id },
            schema: physical,
            span,
        };
        if table.columns.iter().all(|c| c.computed.is_none()) {
            return scan;
        }
        let mut physical_index = 0;
        let mut exprs = Vec::new();
        let mut names = Vec::new();
        for c in &table.columns {
            let expr = match &c.computed {
                Some(e) => e.clone(),
                None => {
                    physical_index += 1;
                    Expr {
                        kind: ExprKind::Column(physical_index - 1),
                        ty: c.ty,
                        span,
                    }
                }
            };
            exprs.push(expr);
            names.push(c.name.clone());
        }
        project(scan, exprs, names, span)
    }

    /// `TABLE(TUMBLE(TABLE t, DESCRIPTOR(col), size [, offset]))` and HOP / CUMULATE.
    fn bind_window_tvf(&mut self, expr: &sql::Expr, span: Span) -> Option<(Rel, Option<String>)> {
        let sql::Expr::Function(function) = expr else {
            self.error(Diagnostic::unsupported(span, "this table function"));
            return None;
        };
        let name = function.name.to_string().to_uppercase();
        let interval_args = match name.as_str() {
            "TUMBLE" => 1..=2,
            "HOP" | "CUMULATE" => 2..=3,
            _ => {
                self.error(Diagnostic::unsupported(
                    span,
                    &format!("the table function {name}"),
                ));
                return None;
            }
        };
        let FunctionArguments::List(list) = &function.args else {
            self.error(Diagnostic::error(
                span,
                format!("{name} needs arguments: ({name}(TABLE t, DESCRIPTOR(time_col), ...))"),
            ));
            return None;
        };
        let args: Vec<&sql::Expr> = list
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect();
        if args.len() != list.args.len()
            || args.len() < 2
            || !interval_args.contains(&(args.len() - 2))
        {
            self.error(Diagnostic::error(
                span,
                format!(
                    "{name} takes TABLE t, DESCRIPTOR(time_col) and {} interval(s)",
                    match name.as_str() {
                        "TUMBLE" => "a size and an optional offset:",
                        "HOP" => "a slide, a size and an optional offset:",
                        _ => "a step, a size and an optional offset:",
                    }
                    .trim_end_matches(':')
                ),
            ));
            return None;
        }
        let (input, qualifier) = match args[0] {
            sql::Expr::Prefixed { prefix, value }
                if prefix.value == crate::parser::dialect::TABLE_ARGUMENT_PREFIX =>
            {
                let sql::Expr::Identifier(ident) = value.as_ref() else {
                    self.error(Diagnostic::error(
                        span,
                        "use a bare table name in TABLE ...",
                    ));
                    return None;
                };
                let ispan = self.span(ident.span, span);
                (
                    self.resolve_relation(&ident.value, ispan)?,
                    ident.value.clone(),
                )
            }
            other => {
                let ospan = self.span(other.span(), span);
                self.error(Diagnostic::error(
                    ospan,
                    format!("the first argument of {name} must be `TABLE name`"),
                ));
                return None;
            }
        };
        let descriptor_column = match args[1] {
            sql::Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("DESCRIPTOR") => {
                match &f.args {
                    FunctionArguments::List(l) => match l.args.as_slice() {
                        [FunctionArg::Unnamed(FunctionArgExpr::Expr(sql::Expr::Identifier(i)))] => {
                            Some(i.clone())
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(time_ident) = descriptor_column else {
            let dspan = self.span(args[1].span(), span);
            self.error(Diagnostic::error(
                dspan,
                format!("the second argument of {name} must be DESCRIPTOR(time_column)"),
            ));
            return None;
        };
        let tspan = self.span(time_ident.span, span);
        let scope = Scope::of_fields(Some(&qualifier), &input.schema);
        let (time_column, time_type) = match scope.resolve(&[(time_ident.value.as_str(), tspan)]) {
            Ok(r) => r,
            Err(d) => {
                self.error(d);
                return None;
            }
        };
        if !matches!(
            time_type.kind,
            TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_)
        ) {
            self.error(Diagnostic::error(
                tspan,
                format!(
                    "the time column `{}` of {name} must be TIMESTAMP or TIMESTAMP_LTZ, but it is {}",
                    time_ident.value, time_type
                ),
            ));
            return None;
        }
        let mut millis = Vec::new();
        for arg in &args[2..] {
            let aspan = self.span(arg.span(), span);
            let empty = Scope::default();
            let mut cx = ExprCx::plain(&empty, "a window size");
            let bound = self.bind_expr(arg, &mut cx, aspan);
            match self.report(bound)?.kind {
                ExprKind::Literal(Literal::IntervalMillis(ms)) => millis.push((ms, aspan)),
                _ => {
                    self.error(Diagnostic::error(
                        aspan,
                        format!(
                            "{name} sizes must be INTERVAL ... DAY/HOUR/MINUTE/SECOND literals"
                        ),
                    ));
                    return None;
                }
            }
        }
        if let Some((_, s)) = millis
            .iter()
            .take(interval_args.start().to_owned())
            .find(|(ms, _)| *ms <= 0)
        {
            self.error(Diagnostic::error(
                *s,
                format!("{name} sizes must be positive"),
            ));
            return None;
        }
        let offset = |i: usize| millis.get(i).map_or(0, |m| m.0);
        let window = match name.as_str() {
            "TUMBLE" => WindowKind::Tumble {
                size: millis[0].0,
                offset: offset(1),
            },
            _ => {
                let (step, size) = (millis[0].0, millis[1].0);
                if size % step != 0 {
                    self.error(Diagnostic::error(
                        millis[1].1,
                        format!(
                            "the {name} size must be an integral multiple of its {}",
                            if name == "HOP" { "slide" } else { "step" }
                        ),
                    ));
                    return None;
                }
                if name == "HOP" {
                    WindowKind::Hop {
                        slide: step,
                        size,
                        offset: offset(2),
                    }
                } else {
                    WindowKind::Cumulate {
                        step,
                        size,
                        offset: offset(2),
                    }
                }
            }
        };
        let window_kind = match time_type.kind {
            TypeKind::TimestampLtz(_) => TypeKind::TimestampLtz(3),
            _ => TypeKind::Timestamp(3),
        };
        let mut schema = input.schema.clone();
        for name in ["window_start", "window_end"] {
            schema.push(Field {
                name: name.to_string(),
                ty: DataType::not_null(TypeKind::Timestamp(3)),
            });
        }
        schema.push(Field {
            name: "window_time".to_string(),
            ty: DataType::not_null(window_kind),
        });
        Some((
            Rel {
                kind: RelKind::Window {
                    input: Box::new(input),
                    window,
                    time_column,
                },
                schema,
                span,
            },
            None,
        ))
    }

    fn bind_order_by(&mut self, order_by: &sql::OrderBy, input: Rel, span: Span) -> Option<Rel> {
        let OrderByKind::Expressions(items) = &order_by.kind else {
            self.error(Diagnostic::unsupported(span, "ORDER BY ALL"));
            return None;
        };
        if order_by.interpolate.is_some() {
            self.error(Diagnostic::unsupported(span, "INTERPOLATE"));
            return None;
        }
        let arity = input.schema.len();
        let scope = Scope::of_fields(None, &input.schema);
        let mut keys = Vec::new();
        let mut extra = Vec::new();
        for item in &order_by_items(items) {
            let ispan = self.span(item.expr.span(), span);
            let descending = match item.options.sort {
                None | Some(sql::OrderBySort::Asc) => false,
                Some(sql::OrderBySort::Desc) => true,
                Some(_) => {
                    self.error(Diagnostic::unsupported(ispan, "ORDER BY ... USING"));
                    return None;
                }
            };
            // Flink sorts NULLs first in ascending order and last in descending order.
            let nulls_first = item.options.nulls_first.unwrap_or(!descending);
            let column = match &item.expr {
                sql::Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                    let Value::Number(n, _) = &v.value else {
                        unreachable!()
                    };
                    match n.parse::<usize>() {
                        Ok(k) if k >= 1 && k <= arity => k - 1,
                        _ => {
                            self.error(Diagnostic::error(
                                ispan,
                                format!(
                                    "ORDER BY position {n} is not in the SELECT list (1..{arity})"
                                ),
                            ));
                            return None;
                        }
                    }
                }
                e => {
                    let mut cx = ExprCx::plain(&scope, "ORDER BY");
                    let bound = self.bind_expr(e, &mut cx, ispan);
                    let bound = self.report(bound)?;
                    match bound.kind {
                        ExprKind::Column(c) => c,
                        _ => {
                            extra.push(bound);
                            arity + extra.len() - 1
                        }
                    }
                }
            };
            keys.push(SortKey {
                column,
                descending,
                nulls_first,
            });
        }
        let original = input.schema.clone();
        let input = if extra.is_empty() {
            input
        } else {
            let mut exprs: Vec<Expr> = original
                .iter()
                .enumerate()
                .map(|(i, f)| Expr {
                    kind: ExprKind::Column(i),
                    ty: f.ty,
                    span,
                })
                .collect();
            let mut names: Vec<String> = original.iter().map(|f| f.name.clone()).collect();
            names.extend((0..extra.len()).map(|i| format!("$sort{i}")));
            exprs.extend(extra);
            project(input, exprs, names, span)
        };
        let schema = input.schema.clone();
        let sorted = Rel {
            kind: RelKind::Sort {
                input: Box::new(input),
                keys,
                offset: None,
                limit: None,
            },
            schema,
            span,
        };
        if sorted.schema.len() == arity {
            return Some(sorted);
        }
        let exprs = original
            .iter()
            .enumerate()
            .map(|(i, f)| Expr {
                kind: ExprKind::Column(i),
                ty: f.ty,
                span,
            })
            .collect();
        let names = original.iter().map(|f| f.name.clone()).collect();
        Some(project(sorted, exprs, names, span))
    }

    /// `LIMIT n [OFFSET m]`, `[OFFSET m ROW[S]] FETCH FIRST|NEXT n ROW[S] ONLY`.
    fn bind_limit(
        &mut self,
        limit: Option<&LimitClause>,
        fetch: Option<&sql::Fetch>,
        ordered: bool,
        input: Rel,
        span: Span,
    ) -> Option<Rel> {
        let (limit, offset) = match limit {
            None => (None, None),
            Some(LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if !limit_by.is_empty() {
                    self.error(Diagnostic::unsupported(span, "LIMIT BY"));
                    return None;
                }
                (limit.as_ref(), offset.as_ref().map(|o| &o.value))
            }
            Some(LimitClause::OffsetCommaLimit { .. }) => {
                self.error(Diagnostic::unsupported(span, "LIMIT offset, count"));
                return None;
            }
        };
        let mut count = |e: Option<&sql::Expr>, what: &str| -> Result<Option<u64>, ()> {
            match e {
                None => Ok(None),
                Some(sql::Expr::Value(v)) => match &v.value {
                    Value::Number(n, _) => n.parse::<u64>().map(Some).map_err(|_| {
                        self.error(Diagnostic::error(
                            span,
                            format!("{what} must be a non-negative integer, found {n}"),
                        ));
                    }),
                    _ => {
                        self.error(Diagnostic::error(
                            span,
                            format!("{what} must be an integer literal"),
                        ));
                        Err(())
                    }
                },
                Some(_) => {
                    self.error(Diagnostic::error(
                        span,
                        format!("{what} must be an integer literal"),
                    ));
                    Err(())
                }
            }
        };
        let limit = match fetch {
            None => count(limit, "LIMIT").ok()?,
            Some(fetch) => {
                let refused = if limit.is_some() {
                    Some("LIMIT and FETCH in one query")
                } else if fetch.with_ties {
                    Some("FETCH ... WITH TIES")
                } else if fetch.percent {
                    Some("FETCH ... PERCENT")
                } else if fetch.quantity.is_none() {
                    Some("FETCH FIRST ROW ONLY without a row count")
                } else {
                    None
                };
                if let Some(what) = refused {
                    // Flink's parser refuses each of these ("Encountered ...").
                    self.error(Diagnostic::error(
                        span,
                        format!("{what} is not valid Flink SQL (Flink's parser refuses it)"),
                    ));
                    return None;
                }
                count(fetch.quantity.as_ref(), "FETCH").ok()?
            }
        };
        let offset = count(offset, "OFFSET").ok()?;
        if ordered && offset.is_some() && limit.is_none() {
            // Flink 2.3's batch planner: "Not support limitEnd is max value now!"
            self.error(Diagnostic::error(
                span,
                "ORDER BY with OFFSET needs a LIMIT or FETCH: Flink does not support a sort \
                 limit without an end (\"Not support limitEnd is max value now!\")",
            ));
            return None;
        }
        // A LIMIT applies to the sort below it, if any (ORDER BY ... LIMIT is a top-N),
        // also below the projection that drops hidden sort keys.
        let mut input = input;
        if super::order_by::bound_hidden_sort(&mut input, offset, limit) {
            return Some(input);
        }
        let schema = input.schema.clone();
        match input.kind {
            RelKind::Sort {
                input: sort_input,
                keys,
                offset: None,
                limit: None,
            } => Some(Rel {
                kind: RelKind::Sort {
                    input: sort_input,
                    keys,
                    offset,
                    limit,
                },
                schema,
                span: input.span,
            }),
            kind => Some(Rel {
                kind: RelKind::Sort {
                    input: Box::new(Rel {
                        kind,
                        schema: schema.clone(),
                        span: input.span,
                    }),
                    keys: Vec::new(),
                    offset,
                    limit,
                },
                schema,
                span,
            }),
        }
    }
}

fn order_by_items(items: &[sql::OrderByExpr]) -> Vec<&sql::OrderByExpr> {
    items.iter().collect()
}

fn true_literal(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Boolean(true)),
        ty: DataType::not_null(TypeKind::Boolean),
        span,
    }
}

/// A relation with one row and no columns: the input of `SELECT` without FROM.
fn one_row(span: Span) -> Rel {
    Rel {
        kind: RelKind::Values {
            rows: vec![Vec::new()],
        },
        schema: Vec::new(),
        span,
    }
}

fn cross_join(
    left: Rel,
    left_scope: Scope,
    right: Rel,
    right_scope: Scope,
    span: Span,
) -> (Rel, Scope) {
    let schema = left.schema.iter().chain(&right.schema).cloned().collect();
    (
        Rel {
            kind: RelKind::Join {
                kind: JoinKind::Inner,
                left: Box::new(left),
                right: Box::new(right),
                condition: true_literal(span),
            },
            schema,
            span,
        },
        left_scope.concat(right_scope),
    )
}

fn nullable_column(mut c: ScopeColumn, nullable: bool) -> ScopeColumn {
    c.ty.nullable |= nullable;
    c
}

fn nullable_field(f: &Field, nullable: bool) -> Field {
    Field {
        name: f.name.clone(),
        ty: DataType::new(f.ty.kind, f.ty.nullable || nullable),
    }
}

/// A window call in a correlated subquery whose SELECT list is read.
fn window_in_correlated(at: Span) -> Diagnostic {
    Diagnostic::unsupported(at, "a window call in a correlated subquery")
        .with_note("Flink 2.3 computes the window over the subquery's rows of every enclosing row together, not per enclosing row (observed: `(SELECT ROW_NUMBER() OVER (ORDER BY u.w) FROM u WHERE u.k = t.k AND u.w > 10)` numbers across keys; docs/flink-observed/subquery-probes/correlated-select/RESULTS.md C94-C101); in EXISTS, whose SELECT list is not read, it is accepted")
}

pub(crate) fn filter(input: Rel, predicate: Expr) -> Rel {
    let schema = input.schema.clone();
    let span = input.span;
    Rel {
        kind: RelKind::Filter {
            input: Box::new(input),
            predicate,
        },
        schema,
        span,
    }
}

pub(crate) fn project(input: Rel, exprs: Vec<Expr>, names: Vec<String>, span: Span) -> Rel {
    let schema = exprs
        .iter()
        .zip(names)
        .map(|(e, name)| Field { name, ty: e.ty })
        .collect();
    Rel {
        kind: RelKind::Project {
            input: Box::new(input),
            exprs,
        },
        schema,
        span,
    }
}

/// `SELECT DISTINCT`: group by every column, no aggregate calls.
pub(crate) fn distinct_of(input: Rel) -> Rel {
    let schema = input.schema.clone();
    let span = input.span;
    let group = (0..schema.len()).collect();
    Rel {
        kind: RelKind::Aggregate {
            input: Box::new(input),
            group,
            aggregates: Vec::new(),
        },
        schema,
        span,
    }
}

/// Casts each column of `rel` to the kind in `schema` (a projection if any differs).
fn conform(rel: Rel, schema: &[Field]) -> Rel {
    if rel
        .schema
        .iter()
        .zip(schema)
        .all(|(a, b)| a.ty.kind == b.ty.kind)
    {
        return rel;
    }
    let span = rel.span;
    let exprs = rel
        .schema
        .iter()
        .zip(schema)
        .enumerate()
        .map(|(i, (f, target))| {
            cast_to_kind(
                Expr {
                    kind: ExprKind::Column(i),
                    ty: f.ty,
                    span,
                },
                target.ty.kind,
            )
        })
        .collect();
    let names = rel.schema.iter().map(|f| f.name.clone()).collect();
    project(rel, exprs, names, span)
}

/// `e` without enclosing parentheses.
fn strip_parens(e: &sql::Expr) -> &sql::Expr {
    match e {
        sql::Expr::Nested(inner) => strip_parens(inner),
        _ => e,
    }
}

/// Whether a SELECT aggregates (GROUP BY, HAVING or an aggregate call in its
/// list), known before its WHERE binds.
fn aggregates(select: &sql::Select) -> bool {
    select.having.is_some()
        || !matches!(&select.group_by, GroupByExpr::Expressions(e, _) if e.is_empty())
        || select.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                contains_aggregate(e)
            }
            _ => false,
        })
}
