//! Identity-projection removal: a Calc without a filter that passes every
//! input column through unchanged (same order, same types) is replaced by its
//! input.

use crate::ir::ExprKind;
use crate::plan::{keep, rebuild, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let mut changed = false;
    let new = rebuild(plan, |new, _, node| {
        if let NodeKind::Calc {
            input,
            projections,
            filter: None,
        } = &node.kind
        {
            let input_schema = &new.node(*input).schema;
            let identity = projections.len() == input_schema.len()
                && projections
                    .iter()
                    .enumerate()
                    .all(|(i, p)| p.kind == ExprKind::Column(i) && p.ty == input_schema[i].ty);
            if identity {
                changed = true;
                return *input;
            }
        }
        keep(new, node)
    });
    changed.then_some(new)
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_pass;

    #[test]
    fn removes_a_projection_that_changes_nothing() {
        check_pass(
            "identity_calc",
            "CREATE TABLE t (a INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
             CREATE TABLE k (a INT, s STRING) WITH ('connector' = 'blackhole');
             INSERT INTO k SELECT * FROM t;",
            "
Sink #1 k [blackhole] INSERT INTO
+- Scan #0 t [datagen] read=[a, s]
",
        );
    }
}
