//! The DAG verifier, run after lowering and after every pass in debug
//! builds: inputs come before consumers (so the graph is acyclic), every
//! column reference is in range with the type the input produces, schemas
//! match what each node computes, and every sink reaches a source.

use crate::ir::{Expr, ExprKind, Field};

use super::{NodeKind, Plan};

/// Panics with the pass name on a broken plan (debug builds only): a broken
/// plan is a compiler bug, and `lib.rs` turns the panic into an internal error.
pub(crate) fn verify(plan: &Plan, after: &str) {
    if cfg!(debug_assertions) {
        if let Err(problem) = check(plan) {
            panic!("plan verification failed after {after}: {problem}");
        }
    }
}

pub(crate) fn check(plan: &Plan) -> Result<(), String> {
    for (i, node) in plan.nodes.iter().enumerate() {
        let here = format!("#{i}");
        for input in node.kind.inputs() {
            if input.index() >= i {
                return Err(format!(
                    "{here} consumes {input}, which does not come before it"
                ));
            }
        }
        let input_schema = |k: usize| -> &[Field] { &plan.node(node.kind.inputs()[k]).schema };
        let check_expr = |e: &Expr, fields: &[Field]| -> Result<(), String> {
            let mut problem = None;
            crate::ir::visit(e, &mut |x| {
                if let ExprKind::Column(c) = x.kind {
                    match fields.get(c) {
                        None => {
                            problem = Some(format!(
                                "{here} reads column {c} of {} columns",
                                fields.len()
                            ))
                        }
                        Some(f) if f.ty.kind != x.ty.kind => {
                            problem = Some(format!(
                                "{here} reads column {c} as {} but it is {}",
                                x.ty, f.ty
                            ))
                        }
                        _ => {}
                    }
                }
            });
            problem.map_or(Ok(()), Err)
        };
        let arity = |n: usize| -> Result<(), String> {
            if node.schema.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "{here} has {} schema columns but computes {n}",
                    node.schema.len()
                ))
            }
        };
        match &node.kind {
            NodeKind::Scan {
                table,
                columns,
                filter,
            } => {
                let physical = plan.job.table(*table).physical_columns().count();
                if let Some(c) = columns.iter().find(|&&c| c >= physical) {
                    return Err(format!("{here} reads physical column {c} of {physical}"));
                }
                arity(columns.len())?;
                if let Some(f) = filter {
                    check_expr(f, &node.schema)?;
                }
            }
            NodeKind::Values { rows } => {
                for row in rows {
                    arity(row.len())?;
                }
            }
            NodeKind::Calc {
                projections,
                filter,
                ..
            } => {
                arity(projections.len())?;
                for e in projections.iter().chain(filter.iter()) {
                    check_expr(e, input_schema(0))?;
                }
                for (p, f) in projections.iter().zip(node.schema.iter()) {
                    if p.ty.kind != f.ty.kind {
                        return Err(format!("{here} computes {} for a {} column", p.ty, f.ty));
                    }
                }
            }
            NodeKind::Aggregate {
                group, aggregates, ..
            } => {
                arity(group.len() + aggregates.len())?;
                let n = input_schema(0).len();
                let bad = group
                    .iter()
                    .chain(
                        aggregates
                            .iter()
                            .flat_map(|a| a.args.iter().chain(a.filter.iter())),
                    )
                    .find(|&&c| c >= n);
                if let Some(c) = bad {
                    return Err(format!("{here} groups or aggregates column {c} of {n}"));
                }
            }
            NodeKind::Join {
                kind,
                left_keys,
                right_keys,
                residual,
                ..
            } => {
                let (l, r) = (input_schema(0), input_schema(1));
                arity(if kind.outputs_right() {
                    l.len() + r.len()
                } else {
                    l.len()
                })?;
                if left_keys.len() != right_keys.len() {
                    return Err(format!("{here} has unequal key lists"));
                }
                for (&a, &b) in left_keys.iter().zip(right_keys) {
                    match (l.get(a), r.get(b)) {
                        (Some(x), Some(y)) if x.ty.kind == y.ty.kind => {}
                        _ => return Err(format!("{here} joins mismatched keys {a} and {b}")),
                    }
                }
                if let Some(e) = residual {
                    let both: Vec<Field> = l.iter().chain(r).cloned().collect();
                    check_expr(e, &both)?;
                }
            }
            NodeKind::Union { inputs } => {
                for input in inputs {
                    let s = &plan.node(*input).schema;
                    if s.len() != node.schema.len()
                        || s.iter()
                            .zip(node.schema.iter())
                            .any(|(a, b)| a.ty.kind != b.ty.kind)
                    {
                        return Err(format!("{here}: union input {input} has another shape"));
                    }
                }
            }
            NodeKind::Sort { keys, .. } => {
                arity(input_schema(0).len())?;
                if keys.iter().any(|k| k.column >= node.schema.len()) {
                    return Err(format!("{here} sorts on a missing column"));
                }
            }
            NodeKind::Over {
                partition,
                order,
                calls,
                ..
            } => {
                let n = input_schema(0).len();
                arity(n + calls.len())?;
                let used = partition
                    .iter()
                    .copied()
                    .chain(order.iter().map(|k| k.column))
                    .chain(calls.iter().flat_map(|c| c.args.iter().copied()));
                if used.into_iter().any(|c| c >= n) {
                    return Err(format!("{here} reads a missing column"));
                }
            }
            NodeKind::Window { time_column, .. } => {
                arity(input_schema(0).len() + 3)?;
                if *time_column >= input_schema(0).len() {
                    return Err(format!("{here} windows on a missing column"));
                }
            }
            NodeKind::Sink { table, .. } => {
                let sink: Vec<_> = plan
                    .job
                    .table(*table)
                    .physical_columns()
                    .map(|(_, c)| c.ty.kind)
                    .collect();
                let input: Vec<_> = input_schema(0).iter().map(|f| f.ty.kind).collect();
                if sink != input {
                    return Err(format!("{here} writes a row that does not match its table"));
                }
            }
        }
    }
    // Ids are topological, so one forward sweep finds what reaches a source.
    let mut reaches = vec![false; plan.nodes.len()];
    for (i, node) in plan.nodes.iter().enumerate() {
        reaches[i] = match &node.kind {
            NodeKind::Scan { .. } | NodeKind::Values { .. } => true,
            kind => kind.inputs().iter().any(|input| reaches[input.index()]),
        };
    }
    for sink in &plan.sinks {
        if !reaches[sink.index()] {
            return Err(format!("sink {sink} reaches no source"));
        }
    }
    Ok(())
}
