//! Calc merge: a Calc over a Calc that has no other consumer becomes one Calc
//! (filters AND-ed, projections inlined). A shared Calc is never merged into
//! its consumers — that would compute it once per consumer. Nor is a merge
//! done when it would duplicate a non-trivial expression (the outer Calc uses
//! it twice): `subexpression_reuse` splits such Calcs on purpose.

use std::collections::BTreeMap;

use crate::ir::{Expr, ExprKind};
use crate::plan::rewrite::{and_all, conjuncts, substitute};
use crate::plan::{is_deterministic, keep, rebuild, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let consumers = plan.consumer_counts();
    // Until a first merge, the rebuild sees the Calcs of `plan` as they
    // are: if no pair merges in `plan`, none merges in the rebuild either,
    // and there is nothing to rebuild.
    let candidate = plan.nodes.iter().any(|node| {
        let NodeKind::Calc {
            input,
            projections,
            filter,
        } = &node.kind
        else {
            return false;
        };
        let NodeKind::Calc {
            projections: inner, ..
        } = &plan.node(*input).kind
        else {
            return false;
        };
        consumers[input.index()] == 1 && mergeable(inner, projections, filter.as_ref())
    });
    if !candidate {
        return None;
    }
    let mut changed = false;
    let new = rebuild(plan, |new, old, node| {
        let NodeKind::Calc {
            input,
            projections,
            filter,
        } = &node.kind
        else {
            return keep(new, node);
        };
        // `input` is already a new id; look at the new node.
        let inner = new.node(*input).clone();
        let NodeKind::Calc {
            input: inner_input,
            projections: inner_projections,
            filter: inner_filter,
        } = &inner.kind
        else {
            return keep(new, node);
        };
        let old_input = plan.node(old).kind.inputs()[0];
        if consumers[old_input.index()] != 1
            || !mergeable(inner_projections, projections, filter.as_ref())
        {
            return keep(new, node);
        }
        let mut parts: Vec<Expr> = inner_filter.iter().cloned().flat_map(conjuncts).collect();
        if let Some(f) = filter {
            parts.extend(conjuncts(substitute(f.clone(), inner_projections)));
        }
        let merged = NodeKind::Calc {
            input: *inner_input,
            projections: projections
                .iter()
                .map(|p| substitute(p.clone(), inner_projections))
                .collect(),
            filter: and_all(parts),
        };
        changed = true;
        let mut provenance = inner.provenance.clone();
        provenance.extend(node.provenance.iter().copied());
        new.intern(merged, node.schema, &provenance)
    });
    changed.then_some(new)
}

/// Whether inlining `inner` into the outer expressions is safe and cheap:
/// every inner expression is deterministic, and each non-trivial one is used
/// at most once by the outer Calc.
fn mergeable(inner: &[Expr], outer: &[Expr], outer_filter: Option<&Expr>) -> bool {
    if !inner.iter().all(is_deterministic) {
        return false;
    }
    let mut uses: BTreeMap<usize, usize> = BTreeMap::new();
    for e in outer.iter().chain(outer_filter) {
        crate::ir::visit(e, &mut |x| {
            if let ExprKind::Column(i) = x.kind {
                *uses.entry(i).or_default() += 1;
            }
        });
    }
    uses.iter().all(|(&i, &n)| {
        n <= 1 || matches!(inner[i].kind, ExprKind::Column(_) | ExprKind::Literal(_))
    })
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
    fn merges_a_calc_into_its_only_consumer() {
        check_pass(
            "merge_calcs",
            &format!("{TABLES} INSERT INTO k1 SELECT a, s FROM (SELECT a + 1 AS a, s FROM t WHERE b > 0) WHERE a > 5;"),
            "
Sink #3 k1 [blackhole] INSERT INTO
+- Calc #2 where=[(a > 5)] select=[a, s]
   +- Calc #1 where=[(b > 0)] select=[(a + 1) AS a, s]
      +- Scan #0 t [datagen] read=[a, b, s]
",
        );
    }

    #[test]
    fn never_merges_a_shared_calc_into_its_consumers() {
        // The shared Calc absorbs its own single-consumer input, but the
        // consumers' filters stay above it.
        check_pass(
            "merge_calcs",
            &format!(
                "{TABLES} CREATE VIEW v AS SELECT a * 2 AS a, s FROM t WHERE b > 0;
                 INSERT INTO k1 SELECT a, s FROM v WHERE a > 1;
                 INSERT INTO k2 SELECT a, s FROM v WHERE a < 1;"
            ),
            "
Sink #3 k1 [blackhole] INSERT INTO
+- Calc #2 where=[(a > 1)] select=[a, s]
   +- Calc #1 where=[(b > 0)] select=[(a * 2) AS a, s] shared=[k1, k2]
      +- Scan #0 t [datagen] read=[a, b, s]

Sink #5 k2 [blackhole] INSERT INTO
+- Calc #4 where=[(a < 1)] select=[a, s]
   +- Calc #1 (reused, see above)
",
        );
    }
}
