//! Common-subexpression reuse inside a Calc: a non-trivial deterministic
//! expression used more than once (`quantity * price` in two projections and
//! the filter) is computed once by a Calc below, and referenced above.

use crate::ir::{strip_spans, visit};
use crate::ir::{Expr, ExprKind, Field};
use crate::plan::rewrite::column;
use crate::plan::{is_deterministic, keep, rebuild, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let mut changed = false;
    let new = rebuild(plan, |new, _, node| {
        let NodeKind::Calc {
            input,
            projections,
            filter,
        } = &node.kind
        else {
            return keep(new, node);
        };
        // Keying every subtree is quadratic in an expression's size: a Calc
        // with a giant expression (a 10,000-term chain) is left as written.
        let size: usize = projections.iter().chain(filter.iter()).map(expr_size).sum();
        if size > MAX_CSE_NODES {
            return keep(new, node);
        }
        let repeated = repeated_subexpressions(projections.iter().chain(filter.iter()));
        if repeated.is_empty() {
            return keep(new, node);
        }
        changed = true;
        let input_schema = new.node(*input).schema.clone();
        let arity = input_schema.len();
        let mut lower: Vec<Expr> = input_schema
            .iter()
            .enumerate()
            .map(|(i, f)| column(i, f.ty))
            .collect();
        lower.extend(repeated.iter().cloned());
        let mut lower_schema = input_schema.to_vec();
        lower_schema.extend(repeated.iter().enumerate().map(|(k, e)| Field {
            name: format!("$cse{k}"),
            ty: e.ty,
        }));
        let below = new.intern(
            NodeKind::Calc {
                input: *input,
                projections: lower,
                filter: None,
            },
            lower_schema,
            &node.provenance,
        );
        let replace = |e: &Expr| replace_all(e.clone(), &repeated, arity);
        let kind = NodeKind::Calc {
            input: below,
            projections: projections.iter().map(replace).collect(),
            filter: filter.as_ref().map(replace),
        };
        new.intern(kind, node.schema, &node.provenance)
    });
    changed.then_some(new)
}

/// Expression nodes of one Calc above which subexpression reuse is skipped.
const MAX_CSE_NODES: usize = 2_000;

fn expr_size(e: &Expr) -> usize {
    let mut n = 0;
    visit(e, &mut |_| n += 1);
    n
}

/// Largest-first list of non-trivial expressions that occur at least twice.
fn repeated_subexpressions<'a>(exprs: impl Iterator<Item = &'a Expr>) -> Vec<Expr> {
    let mut seen: Vec<(Expr, usize)> = Vec::new();
    for e in exprs {
        visit(e, &mut |x| {
            if matches!(x.kind, ExprKind::Column(_) | ExprKind::Literal(_)) || !is_deterministic(x)
            {
                return;
            }
            let key = strip_spans(x.clone());
            match seen.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => seen.push((key, 1)),
            }
        });
    }
    // Keep only maximal repeats: drop a repeat that is inside another repeat
    // occurring as often (it is computed inside that one).
    let repeats: Vec<(Expr, usize)> = seen.into_iter().filter(|(_, n)| *n > 1).collect();
    repeats
        .iter()
        .filter(|(e, n)| {
            !repeats
                .iter()
                .any(|(outer, m)| outer != e && m >= n && contains(outer, e))
        })
        .map(|(e, _)| e.clone())
        .collect()
}

fn contains(outer: &Expr, inner: &Expr) -> bool {
    let mut found = false;
    visit(outer, &mut |x| found |= strip_spans(x.clone()) == *inner);
    found
}

fn replace_all(e: Expr, repeated: &[Expr], arity: usize) -> Expr {
    if let Some(k) = repeated.iter().position(|r| *r == strip_spans(e.clone())) {
        return Expr {
            kind: ExprKind::Column(arity + k),
            ty: e.ty,
            span: e.span,
        };
    }
    let mut e = e;
    crate::ir::map_children(&mut e, &mut |c| {
        *c = replace_all(c.clone(), repeated, arity)
    });
    e
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_pass;

    const TABLES: &str = "CREATE TABLE t (a INT, b INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE u (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE k1 (a INT, s STRING) WITH ('connector' = 'blackhole');
        CREATE TABLE k2 (a INT, s STRING) WITH ('connector' = 'blackhole');
        CREATE TABLE k3 (s STRING, n BIGINT) WITH ('connector' = 'blackhole');";

    #[test]
    fn computes_a_repeated_expression_once() {
        check_pass(
            "subexpression_reuse",
            &format!("{TABLES} INSERT INTO k1 SELECT (a + b) * (a + b), s FROM t;"),
            "
Sink #3 k1 [blackhole] INSERT INTO
+- Calc #2 select=[($cse0 * $cse0) AS EXPR$0, s]
   +- Calc #1 select=[a, b, s, (a + b) AS $cse0]
      +- Scan #0 t [datagen] read=[a, b, s]
",
        );
    }
}
