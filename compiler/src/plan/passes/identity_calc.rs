//! Identity-projection removal: a Calc without a filter that passes every
//! input column through unchanged (same order, same types) is replaced by its
//! input.

use crate::ir::ExprKind;
use crate::plan::{keep, rebuild, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    // Removing a Calc leaves its consumers' inputs with the same column
    // types, so the identities found in `plan` are the ones the rebuild
    // finds: without one, no rebuild.
    if !plan.nodes.iter().any(|node| is_identity(plan, &node.kind)) {
        return None;
    }
    let mut changed = false;
    let new = rebuild(plan, |new, _, node| match node.kind {
        NodeKind::Calc { input, .. } if is_identity(new, &node.kind) => {
            changed = true;
            input
        }
        _ => keep(new, node),
    });
    changed.then_some(new)
}

/// A Calc without a filter that passes its input's columns through as
/// they are (in `plan`, where its input id points).
fn is_identity(plan: &Plan, kind: &NodeKind) -> bool {
    let NodeKind::Calc {
        input,
        projections,
        filter: None,
    } = kind
    else {
        return false;
    };
    let input_schema = &plan.node(*input).schema;
    projections.len() == input_schema.len()
        && projections
            .iter()
            .enumerate()
            .all(|(i, p)| p.kind == ExprKind::Column(i) && p.ty == input_schema[i].ty)
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
