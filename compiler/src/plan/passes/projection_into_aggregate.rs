//! Projection into aggregate: an aggregate whose input is a Calc that only
//! picks columns (no filter, no computation) reads those columns from the
//! Calc's input directly, so no intermediate row is built per input row. The
//! Calc stays only if something else still consumes it.

use crate::ir::ExprKind;
use crate::plan::{keep, rebuild, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let mut changed = false;
    let new = rebuild(plan, |new, _, node| {
        let NodeKind::Aggregate {
            input,
            group,
            aggregates,
        } = &node.kind
        else {
            return keep(new, node);
        };
        let NodeKind::Calc {
            input: source,
            projections,
            filter: None,
        } = &new.node(*input).kind
        else {
            return keep(new, node);
        };
        let picks: Option<Vec<usize>> = projections
            .iter()
            .map(|p| match p.kind {
                ExprKind::Column(c) => Some(c),
                _ => None,
            })
            .collect();
        let Some(picks) = picks else {
            return keep(new, node);
        };
        changed = true;
        let kind = NodeKind::Aggregate {
            input: *source,
            group: group.iter().map(|&g| picks[g]).collect(),
            aggregates: aggregates
                .iter()
                .map(|a| {
                    let mut a = a.clone();
                    a.args = a.args.iter().map(|&c| picks[c]).collect();
                    a.filter = a.filter.map(|f| picks[f]);
                    a
                })
                .collect(),
        };
        new.intern(kind, node.schema, &node.provenance)
    });
    changed.then_some(new)
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_pass;

    #[test]
    fn aggregates_read_picked_columns_directly() {
        check_pass(
            "projection_into_aggregate",
            "CREATE TABLE t (a INT, b INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
             CREATE TABLE k (s STRING, n BIGINT, m INT) WITH ('connector' = 'blackhole');
             INSERT INTO k SELECT s, COUNT(*), MAX(b) FROM t GROUP BY s;",
            "
Sink #3 k [blackhole] INSERT INTO
+- Calc #2 select=[s, EXPR$1, EXPR$2]
   +- Aggregate #1 group=[s] aggs=[COUNT(*) AS EXPR$1, MAX(b) AS EXPR$2]
      +- Scan #0 t [datagen] read=[a, b, s]",
        );
    }
}
