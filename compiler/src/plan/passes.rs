//! The optimizer: a list of named rewrites, each in its own file, run to a
//! fixpoint. Each returns a new plan and whether it changed anything. In
//! debug builds the DAG is verified after every pass.
//!
//! Order matters and follows "reuse first": lowering already shared every
//! equal subtree; rewrites never split a shared node (they only change a node
//! when all its consumers agree, or when it has a single consumer).

use super::{NodeId, Plan};

mod aggregate_join_transpose;
mod constant_folding;
mod identity_calc;
mod left_join_preaggregate;
mod merge_aggregates;
mod merge_calcs;
mod predicate_pushdown;
mod projection_into_aggregate;
mod projection_pruning;
mod semi_join_reduction;
mod subexpression_reuse;
mod top_n;

pub(crate) struct Pass {
    pub name: &'static str,
    pub run: fn(&Plan) -> Option<Plan>,
}

pub(crate) const PASSES: &[Pass] = &[
    Pass {
        name: "constant_folding",
        run: constant_folding::run,
    },
    Pass {
        name: "merge_calcs",
        run: merge_calcs::run,
    },
    Pass {
        name: "predicate_pushdown",
        run: predicate_pushdown::run,
    },
    Pass {
        name: "top_n",
        run: top_n::run,
    },
    Pass {
        name: "projection_pruning",
        run: projection_pruning::run,
    },
    Pass {
        name: "projection_into_aggregate",
        run: projection_into_aggregate::run,
    },
    Pass {
        name: "merge_aggregates",
        run: merge_aggregates::run,
    },
    Pass {
        name: "aggregate_join_transpose",
        run: aggregate_join_transpose::run,
    },
    Pass {
        name: "left_join_preaggregate",
        run: left_join_preaggregate::run,
    },
    Pass {
        name: "semi_join_reduction",
        run: semi_join_reduction::run,
    },
    Pass {
        name: "identity_calc",
        run: identity_calc::run,
    },
    Pass {
        name: "subexpression_reuse",
        run: subexpression_reuse::run,
    },
];

/// Runs the passes until none changes the plan (at most a few rounds), then
/// shares the twins that are cheaper computed once (`plan::reshare`, which
/// re-runs the passes on each candidate). `trace` sees the plan after every
/// pass that changed it.
pub(crate) fn optimize(mut plan: Plan, trace: &mut dyn FnMut(&str, &Plan)) -> Plan {
    plan.compact();
    super::verify::verify(&plan, "lowering");
    let plan = fixpoint(plan, trace);
    let before = plan.nodes.len();
    let opt = super::reshare::Optimizers {
        estimate: &estimate,
        full: &|p| fixpoint(p, &mut |_, _| {}),
    };
    let plan = super::reshare::reshare(plan, &opt);
    if plan.nodes.len() != before {
        super::verify::verify(&plan, "reshare");
        trace("reshare", &plan);
    }
    plan
}

/// The passes that change row estimates (where filters sit), until none
/// changes the plan: enough to compare the cost of candidate plans.
pub(crate) fn estimate(plan: Plan) -> Plan {
    const MOVING: &[&str] = &["merge_calcs", "predicate_pushdown", "identity_calc"];
    let passes: Vec<&Pass> = PASSES.iter().filter(|p| MOVING.contains(&p.name)).collect();
    until_stable(plan, &passes, &mut |_, _| {})
}

/// The passes, in order, until none changes the plan.
pub(crate) fn fixpoint(plan: Plan, trace: &mut dyn FnMut(&str, &Plan)) -> Plan {
    let passes: Vec<&Pass> = PASSES.iter().collect();
    until_stable(plan, &passes, &mut |pass, plan| {
        super::verify::verify(plan, pass);
        trace(pass, plan);
    })
}

/// Runs `passes` in rounds (at most `MAX_ROUNDS`) until a whole round
/// changes nothing. A pass is a function of the plan alone, so one that
/// left the plan unchanged would leave it unchanged again: the runs stop
/// as soon as every pass in a row has seen the plan as it is, without
/// finishing the round. `changed` sees the plan after each pass that
/// changed it.
fn until_stable(mut plan: Plan, passes: &[&Pass], changed: &mut dyn FnMut(&str, &Plan)) -> Plan {
    const MAX_ROUNDS: usize = 8;
    let mut unchanged = 0;
    for pass in passes.iter().cycle().take(MAX_ROUNDS * passes.len()) {
        if unchanged == passes.len() {
            break;
        }
        match (pass.run)(&plan) {
            Some(next) => {
                plan = next;
                unchanged = 0;
                changed(pass.name, &plan);
            }
            None => unchanged += 1,
        }
    }
    plan
}

#[cfg(test)]
pub(crate) mod test_support;

/// Each node that `rewrite` computes anew (from nodes it appends to the
/// plan) replaced by its substitute in every consumer and sink; the plan
/// compacted and re-interned, or `None` when `rewrite` changed nothing.
/// Only the nodes of the plan as given are offered to `rewrite`.
fn substitute_nodes(
    plan: &Plan,
    mut rewrite: impl FnMut(&mut Plan, NodeId) -> Option<NodeId>,
) -> Option<Plan> {
    let mut plan = plan.clone();
    let mut changed = false;
    for t in 0..plan.nodes.len() {
        let t = NodeId(t as u32);
        let Some(f) = rewrite(&mut plan, t) else {
            continue;
        };
        changed = true;
        // `f` itself reads the new nodes, never `t`.
        for node in &mut plan.nodes {
            for input in node.kind.inputs_mut() {
                if *input == t {
                    *input = f;
                }
            }
        }
        for sink in &mut plan.sinks {
            if *sink == t {
                *sink = f;
            }
        }
    }
    if !changed {
        return None;
    }
    // New nodes were appended after their consumers' old positions:
    // compaction restores input-before-consumer order, the rebuild re-interns.
    plan.compact();
    Some(super::rebuild(&plan, |new, _, node| super::keep(new, node)))
}
