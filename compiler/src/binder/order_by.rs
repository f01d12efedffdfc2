//! ORDER BY of a SELECT, bound where SQL lets it see: select aliases,
//! ordinals, grouped expressions and aggregates (computed even when not
//! selected), and — in a query without DISTINCT — any expression over the
//! FROM clause. Keys that are not select items are computed as hidden
//! columns, sorted on, then projected away.
//!
//! Name resolution follows Calcite (Flink 2.3's validator): a bare name in
//! ORDER BY is first a select alias (`SELECT k AS v, v AS k ... ORDER BY k`
//! sorts by the second item), then a column of the FROM clause; a name
//! given to two select items is ambiguous. With SELECT DISTINCT every key
//! must be an expression over the select items ("Expression 'v' is not in
//! the select clause").

use sqlparser::ast::{self as sql, SelectItem, Spanned, Value};

use super::expr::{ExprCx, Grouping};
use super::query::project;
use super::scope::Scope;
use super::Binder;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{strip_spans, Expr, ExprKind, Rel, RelKind, SortKey};

type BResult<T> = Result<T, Diagnostic>;

/// One bound ORDER BY item.
pub(crate) struct OrderKey {
    pub key: KeyExpr,
    pub descending: bool,
    pub nulls_first: bool,
}

/// Where an ORDER BY key is computed.
pub(crate) enum KeyExpr {
    /// Over the select items' output columns.
    Output(Expr),
    /// Over the input of the select projection (FROM columns, or group keys
    /// and aggregates); computed as a hidden column.
    Hidden(Expr),
}

impl Binder<'_> {
    /// Binds the ORDER BY items of a SELECT whose items are `exprs` (over
    /// the projection's input) named `names`. `grouping` is the grouped
    /// query's state (aggregates the keys need are added to it); `distinct`
    /// restricts keys to expressions over the select items.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bind_select_order_by(
        &mut self,
        order_by: &sql::OrderBy,
        select: &sql::Select,
        exprs: &[Expr],
        names: &[String],
        scope: &Scope,
        mut grouping: Option<&mut Grouping>,
        distinct: bool,
        span: Span,
    ) -> Option<Vec<OrderKey>> {
        let sql::OrderByKind::Expressions(items) = &order_by.kind else {
            self.error(Diagnostic::unsupported(span, "ORDER BY ALL"));
            return None;
        };
        if order_by.interpolate.is_some() {
            self.error(Diagnostic::unsupported(span, "INTERPOLATE"));
            return None;
        }
        let aliases = select_aliases(select, names);
        let select_items = select_item_exprs(select);
        let mut keys = Vec::new();
        let mut ok = true;
        for item in items {
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
            let key = self.order_key(
                &item.expr,
                ispan,
                exprs,
                &aliases,
                &select_items,
                scope,
                grouping.as_deref_mut(),
                distinct,
            );
            match key {
                Ok(key) => keys.push(OrderKey {
                    key,
                    descending,
                    nulls_first,
                }),
                Err(d) => {
                    self.error(d);
                    ok = false;
                }
            }
        }
        ok.then_some(keys)
    }

    #[allow(clippy::too_many_arguments)]
    fn order_key(
        &mut self,
        expr: &sql::Expr,
        ispan: Span,
        exprs: &[Expr],
        aliases: &[(String, usize)],
        items: &[sql::Expr],
        scope: &Scope,
        grouping: Option<&mut Grouping>,
        distinct: bool,
    ) -> BResult<KeyExpr> {
        let arity = exprs.len();
        let output = |i: usize| Expr {
            kind: ExprKind::Column(i),
            ty: exprs[i].ty,
            span: ispan,
        };
        if let sql::Expr::Value(v) = expr {
            if let Value::Number(n, _) = &v.value {
                return match n.parse::<usize>() {
                    Ok(k) if k >= 1 && k <= arity => Ok(KeyExpr::Output(output(k - 1))),
                    _ => Err(Diagnostic::error(
                        ispan,
                        format!("ORDER BY position {n} is not in the SELECT list (1..{arity})"),
                    )),
                };
            }
        }
        if let sql::Expr::Identifier(ident) = expr {
            if let Some(i) = resolve_alias(aliases, &ident.value, ispan)? {
                return Ok(KeyExpr::Output(output(i)));
            }
        }
        let expanded = expand_aliases(expr, aliases, items, ispan)?;
        let expanded = expanded.as_ref().unwrap_or(expr);
        let bound = {
            let mut cx = ExprCx {
                scope,
                clause: "ORDER BY",
                grouping,
            };
            self.bind_expr(expanded, &mut cx, ispan)?
        };
        match onto_outputs(&bound, exprs) {
            Ok(e) => Ok(KeyExpr::Output(e)),
            Err(column_span) if distinct => Err(Diagnostic::error(
                column_span,
                format!(
                    "expression `{}` is not in the select clause",
                    self.file
                        .text
                        .get(column_span.start..column_span.end)
                        .unwrap_or("?")
                ),
            )
            .with_help("with SELECT DISTINCT, ORDER BY may only use the selected expressions")),
            Err(_) => Ok(KeyExpr::Hidden(bound)),
        }
    }
}

/// Moves the hidden keys' expressions to the end of `exprs` (for a
/// subquery frame to fill in their subqueries' values); returns how many.
pub(crate) fn take_hidden(keys: &mut [OrderKey], exprs: &mut Vec<Expr>) -> usize {
    let mut n = 0;
    for k in keys.iter_mut() {
        if let KeyExpr::Hidden(e) = &mut k.key {
            exprs.push(e.clone());
            n += 1;
        }
    }
    n
}

/// Puts back the `n` hidden key expressions `take_hidden` moved to the end
/// of `exprs`.
pub(crate) fn put_hidden(keys: &mut [OrderKey], exprs: &mut Vec<Expr>, n: usize) {
    let mut taken = exprs.split_off(exprs.len() - n).into_iter();
    for k in keys.iter_mut() {
        if let KeyExpr::Hidden(e) = &mut k.key {
            *e = taken.next().expect("one per hidden key");
        }
    }
}

/// The select-item names ORDER BY can use as aliases: each item's output
/// name with its position (a `*` item names nothing here).
fn select_aliases(select: &sql::Select, names: &[String]) -> Vec<(String, usize)> {
    let plain = select.projection.iter().all(|i| {
        matches!(
            i,
            SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
        )
    });
    if !plain {
        // With `*` the output positions do not follow the items: use the
        // output names themselves.
        return names.iter().cloned().zip(0..).collect();
    }
    let mut out = Vec::new();
    for (i, item) in select.projection.iter().enumerate() {
        let name = match item {
            SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
            _ => names[i].clone(),
        };
        out.push((name, i));
    }
    out
}

/// The select items' expressions alias expansion substitutes; empty when
/// a `*` item makes output positions differ from item positions.
fn select_item_exprs(select: &sql::Select) -> Vec<sql::Expr> {
    let mut out = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                out.push(e.clone())
            }
            _ => return Vec::new(),
        }
    }
    out
}

fn resolve_alias(aliases: &[(String, usize)], name: &str, span: Span) -> BResult<Option<usize>> {
    let found: Vec<usize> = aliases
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, i)| *i)
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [i] => Ok(Some(*i)),
        _ => Err(Diagnostic::error(
            span,
            format!("column `{name}` is ambiguous: it names several SELECT items"),
        )),
    }
}

/// Rewrites an ORDER BY expression over the select items: `e` with
/// `Column(i)` of the outputs for each sub-expression equal to select item
/// `i`. Fails with the span of the first input column that is not inside
/// such a sub-expression.
pub(crate) fn onto_outputs(e: &Expr, exprs: &[Expr]) -> Result<Expr, Span> {
    let stripped = strip_spans(e.clone());
    if let Some(i) = exprs
        .iter()
        .position(|x| strip_spans(x.clone()) == stripped)
    {
        return Ok(Expr {
            kind: ExprKind::Column(i),
            ty: exprs[i].ty,
            span: e.span,
        });
    }
    if let ExprKind::Column(_) = e.kind {
        return Err(e.span);
    }
    let mut out = e.clone();
    let mut failure = None;
    crate::ir::map_children(&mut out, &mut |child| {
        if failure.is_some() {
            return;
        }
        match onto_outputs(child, exprs) {
            Ok(c) => *child = c,
            Err(s) => failure = Some(s),
        }
    });
    match failure {
        Some(s) => Err(s),
        None => Ok(out),
    }
}

/// Replaces each bare name inside `expr` that is a select alias by that
/// select item's expression; `None` when nothing was replaced.
fn expand_aliases(
    expr: &sql::Expr,
    aliases: &[(String, usize)],
    items: &[sql::Expr],
    span: Span,
) -> BResult<Option<sql::Expr>> {
    if items.is_empty() || aliases.is_empty() {
        return Ok(None);
    }
    let mut changed = false;
    let out = expand(expr, aliases, items, span, &mut changed)?;
    Ok(changed.then_some(out))
}

fn expand(
    expr: &sql::Expr,
    aliases: &[(String, usize)],
    items: &[sql::Expr],
    span: Span,
    changed: &mut bool,
) -> BResult<sql::Expr> {
    use sql::Expr as E;
    let mut go = |e: &sql::Expr| -> BResult<Box<sql::Expr>> {
        expand(e, aliases, items, span, changed).map(Box::new)
    };
    Ok(match expr {
        E::Identifier(ident) => match resolve_alias(aliases, &ident.value, span)? {
            Some(i) if i < items.len() => {
                *changed = true;
                E::Nested(Box::new(items[i].clone()))
            }
            _ => expr.clone(),
        },
        E::Nested(e) => E::Nested(go(e)?),
        E::BinaryOp { left, op, right } => E::BinaryOp {
            left: go(left)?,
            op: op.clone(),
            right: go(right)?,
        },
        E::UnaryOp { op, expr: e } => E::UnaryOp {
            op: *op,
            expr: go(e)?,
        },
        E::IsNull(e) => E::IsNull(go(e)?),
        E::IsNotNull(e) => E::IsNotNull(go(e)?),
        E::Cast {
            kind,
            expr: e,
            data_type,
            format,
        } => E::Cast {
            kind: kind.clone(),
            expr: go(e)?,
            data_type: data_type.clone(),
            format: format.clone(),
        },
        _ => expr.clone(),
    })
}

/// The select projection with ORDER BY: `exprs` (named `names`) plus one
/// hidden column per hidden key, sorted, then the hidden columns projected
/// away. `distinct` groups the select items before sorting.
pub(crate) fn sorted_projection(
    input: Rel,
    mut exprs: Vec<Expr>,
    mut names: Vec<String>,
    keys: Vec<OrderKey>,
    distinct: bool,
    span: Span,
) -> Rel {
    let arity = exprs.len();
    let mut key_exprs = Vec::new();
    for k in keys {
        let e = match k.key {
            KeyExpr::Output(e) => e,
            KeyExpr::Hidden(e) => {
                let ty = e.ty;
                exprs.push(e);
                names.push(format!("$sort{}", exprs.len() - arity - 1));
                Expr {
                    kind: ExprKind::Column(exprs.len() - 1),
                    ty,
                    span,
                }
            }
        };
        key_exprs.push((e, k.descending, k.nulls_first));
    }
    let projected = project(input, exprs, names, span);
    let projected = if distinct {
        super::query::distinct_of(projected)
    } else {
        projected
    };
    sort_on(projected, key_exprs, arity, span)
}

/// Sorts `input` on `keys` (expressions over its columns) and keeps its
/// first `visible` columns.
pub(crate) fn sort_on(
    input: Rel,
    keys: Vec<(Expr, bool, bool)>,
    visible: usize,
    span: Span,
) -> Rel {
    let original = input.schema.clone();
    let mut extra = Vec::new();
    let mut sort_keys = Vec::new();
    for (e, descending, nulls_first) in keys {
        let column = match e.kind {
            ExprKind::Column(c) => c,
            _ => {
                extra.push(e);
                original.len() + extra.len() - 1
            }
        };
        sort_keys.push(SortKey {
            column,
            descending,
            nulls_first,
        });
    }
    let column = |i: usize| Expr {
        kind: ExprKind::Column(i),
        ty: original[i].ty,
        span,
    };
    let input = if extra.is_empty() {
        input
    } else {
        let mut exprs: Vec<Expr> = (0..original.len()).map(column).collect();
        let mut names: Vec<String> = original.iter().map(|f| f.name.clone()).collect();
        names.extend((0..extra.len()).map(|i| format!("$sortexpr{i}")));
        exprs.extend(extra);
        project(input, exprs, names, span)
    };
    let schema = input.schema.clone();
    let sorted = Rel {
        kind: RelKind::Sort {
            input: Box::new(input),
            keys: sort_keys,
            offset: None,
            limit: None,
        },
        schema,
        span,
    };
    if sorted.schema.len() == visible {
        return sorted;
    }
    let exprs = (0..visible).map(column).collect();
    let names = original[..visible].iter().map(|f| f.name.clone()).collect();
    project(sorted, exprs, names, span)
}

/// `rel` with the span of its sort (at the top, or below the projection
/// that drops hidden keys) set to `span`, the whole query's.
pub(crate) fn with_sort_span(mut rel: Rel, span: Span) -> Rel {
    match &mut rel.kind {
        RelKind::Sort { .. } => rel.span = span,
        RelKind::Project { input, .. } if matches!(input.kind, RelKind::Sort { .. }) => {
            input.span = span
        }
        _ => {}
    }
    rel
}

/// A LIMIT/OFFSET over `Project(Sort)` (a sort on hidden keys) bounds that
/// sort; false when `rel` is not of that shape.
pub(crate) fn bound_hidden_sort(
    rel: &mut Rel,
    new_offset: Option<u64>,
    new_limit: Option<u64>,
) -> bool {
    let RelKind::Project { input, .. } = &mut rel.kind else {
        return false;
    };
    match &mut input.kind {
        RelKind::Sort {
            offset: offset @ None,
            limit: limit @ None,
            ..
        } => {
            *offset = new_offset;
            *limit = new_limit;
            true
        }
        _ => false,
    }
}
