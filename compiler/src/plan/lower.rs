//! Lowering: the bound INSERT trees become one DAG. Every node goes through
//! `Plan::intern`, so equal subtrees of different INSERTs (or one view used
//! twice) become one node by construction.

use super::cost::RelEstimator;
use super::normalize::normalize;
use super::rewrite::{and_all, column, columns, conjuncts, remap};
use super::{NodeId, NodeKind, Plan};
use crate::ir::{BinaryOp, BoundJob, Expr, ExprKind, Field, Rel, RelKind};

/// Lowers every INSERT, its predicates placed first (`normalize`, which
/// orders joins by estimates; `base_dir` is where relative source paths
/// resolve for them).
pub(crate) fn lower(job: BoundJob, base_dir: Option<&std::path::Path>) -> Plan {
    let mut plan = Plan::new(job, base_dir);
    let job = std::sync::Arc::clone(&plan.job);
    let estimates = RelEstimator::new(&job, base_dir);
    for (statement, insert) in job.inserts.iter().enumerate() {
        let query = normalize(insert.query.clone(), &estimates);
        let input = lower_rel(&mut plan, &query);
        let schema = plan.node(input).schema.clone();
        let sink = plan.intern(
            NodeKind::Sink {
                input,
                table: insert.target,
                overwrite: insert.overwrite,
                statement,
            },
            schema,
            &[insert.span],
        );
        plan.sinks.push(sink);
    }
    plan
}

fn lower_rel(plan: &mut Plan, rel: &Rel) -> NodeId {
    let span = [rel.span];
    match &rel.kind {
        RelKind::Scan { table } => {
            let columns = (0..rel.schema.len()).collect();
            plan.intern(
                NodeKind::Scan {
                    table: *table,
                    columns,
                    filter: None,
                },
                rel.schema.clone(),
                &span,
            )
        }
        RelKind::Values { rows } => plan.intern(
            NodeKind::Values { rows: rows.clone() },
            rel.schema.clone(),
            &span,
        ),
        RelKind::Filter { input, predicate } => {
            let input = lower_rel(plan, input);
            let projections = identity(&plan.node(input).schema);
            plan.intern(
                NodeKind::Calc {
                    input,
                    projections,
                    filter: Some(predicate.clone()),
                },
                rel.schema.clone(),
                &span,
            )
        }
        RelKind::Project { input, exprs } => {
            let input = lower_rel(plan, input);
            plan.intern(
                NodeKind::Calc {
                    input,
                    projections: exprs.clone(),
                    filter: None,
                },
                rel.schema.clone(),
                &span,
            )
        }
        RelKind::Aggregate {
            input,
            group,
            aggregates,
        } => {
            let input = lower_rel(plan, input);
            plan.intern(
                NodeKind::Aggregate {
                    input,
                    group: group.clone(),
                    aggregates: aggregates.clone(),
                },
                rel.schema.clone(),
                &span,
            )
        }
        RelKind::Join {
            kind,
            left,
            right,
            condition,
        } => {
            let left = lower_rel(plan, left);
            let right = lower_rel(plan, right);
            lower_join(plan, *kind, left, right, condition.clone(), rel)
        }
        RelKind::UnionAll { inputs } => {
            let inputs = inputs.iter().map(|i| lower_rel(plan, i)).collect();
            plan.intern(NodeKind::Union { inputs }, rel.schema.clone(), &span)
        }
        RelKind::Sort {
            input,
            keys,
            offset,
            limit,
        } => {
            let input = lower_rel(plan, input);
            plan.intern(
                NodeKind::Sort {
                    input,
                    keys: keys.clone(),
                    offset: *offset,
                    limit: *limit,
                },
                rel.schema.clone(),
                &span,
            )
        }
        RelKind::Window {
            input,
            window,
            time_column,
        } => {
            let input = lower_rel(plan, input);
            plan.intern(
                NodeKind::Window {
                    input,
                    window: *window,
                    time_column: *time_column,
                },
                rel.schema.clone(),
                &span,
            )
        }
        RelKind::Over {
            input,
            partition,
            order,
            calls,
        } => {
            let input = lower_rel(plan, input);
            plan.intern(
                NodeKind::Over {
                    input,
                    partition: partition.clone(),
                    order: order.clone(),
                    calls: calls.clone(),
                    limit: None,
                },
                rel.schema.clone(),
                &span,
            )
        }
    }
}

fn identity(schema: &[Field]) -> Vec<Expr> {
    schema
        .iter()
        .enumerate()
        .map(|(i, f)| column(i, f.ty))
        .collect()
}

/// Splits a join condition into equi-join keys and a residual predicate.
/// A key side that is an expression (`CAST(a AS BIGINT) = b`) is computed by
/// a Calc below the join and dropped by a Calc above it.
fn lower_join(
    plan: &mut Plan,
    kind: crate::ir::JoinKind,
    left: NodeId,
    right: NodeId,
    condition: Expr,
    rel: &Rel,
) -> NodeId {
    let span = [rel.span];
    let left_schema = plan.node(left).schema.clone();
    let right_schema = plan.node(right).schema.clone();
    let left_arity = left_schema.len();
    let mut left_extra: Vec<Expr> = Vec::new();
    let mut right_extra: Vec<Expr> = Vec::new();
    let mut keys = Vec::new();
    let mut residual = Vec::new();
    for conjunct in conjuncts(condition) {
        let pair = match &conjunct.kind {
            ExprKind::Binary {
                op: BinaryOp::Eq,
                left: a,
                right: b,
            } => {
                let (ca, cb) = (columns(a), columns(b));
                let only_left = |c: &std::collections::BTreeSet<usize>| {
                    !c.is_empty() && c.iter().all(|&i| i < left_arity)
                };
                let only_right = |c: &std::collections::BTreeSet<usize>| {
                    !c.is_empty() && c.iter().all(|&i| i >= left_arity)
                };
                if only_left(&ca) && only_right(&cb) {
                    Some(((**a).clone(), (**b).clone()))
                } else if only_right(&ca) && only_left(&cb) {
                    Some(((**b).clone(), (**a).clone()))
                } else {
                    None
                }
            }
            _ => None,
        };
        match pair {
            Some((l, r)) => {
                let r = remap(r, &|i| i - left_arity);
                let lk = key_column(l, left_arity, &mut left_extra);
                let rk = key_column(r, right_schema.len(), &mut right_extra);
                keys.push((lk, rk));
            }
            None => residual.push(conjunct),
        }
    }
    let widen = |plan: &mut Plan, input: NodeId, schema: &[Field], extra: &[Expr]| -> NodeId {
        if extra.is_empty() {
            return input;
        }
        let mut projections = identity(schema);
        projections.extend(extra.iter().cloned());
        let mut fields = schema.to_vec();
        fields.extend(extra.iter().enumerate().map(|(i, e)| Field {
            name: format!("$key{i}"),
            ty: e.ty,
        }));
        plan.intern(
            NodeKind::Calc {
                input,
                projections,
                filter: None,
            },
            fields,
            &span,
        )
    };
    let new_left = widen(plan, left, &left_schema, &left_extra);
    let new_right = widen(plan, right, &right_schema, &right_extra);
    let new_left_arity = left_arity + left_extra.len();
    // Residual column refs: right columns shift past the left's extra keys.
    let residual = and_all(residual).map(|r| {
        remap(r, &|i| {
            if i < left_arity {
                i
            } else {
                i + left_extra.len()
            }
        })
    });
    let mut schema: Vec<Field> = plan.node(new_left).schema.to_vec();
    if kind.outputs_right() {
        schema.extend(plan.node(new_right).schema.iter().cloned());
    }
    // Outer joins make the other side nullable.
    let (ln, rn) = match kind {
        crate::ir::JoinKind::Inner | crate::ir::JoinKind::Semi | crate::ir::JoinKind::Anti => {
            (false, false)
        }
        crate::ir::JoinKind::Left => (false, true),
        crate::ir::JoinKind::Right => (true, false),
        crate::ir::JoinKind::Full => (true, true),
    };
    for (i, f) in schema.iter_mut().enumerate() {
        f.ty.nullable |= if i < new_left_arity { ln } else { rn };
    }
    let join = plan.intern(
        NodeKind::Join {
            kind,
            left: new_left,
            right: new_right,
            left_keys: keys.iter().map(|k| k.0).collect(),
            right_keys: keys.iter().map(|k| k.1).collect(),
            residual,
        },
        schema.clone(),
        &span,
    );
    if left_extra.is_empty() && right_extra.is_empty() {
        return join;
    }
    // Drop the computed key columns again.
    let right_kept = if kind.outputs_right() {
        right_schema.len()
    } else {
        0
    };
    let keep: Vec<usize> = (0..left_arity)
        .chain((0..right_kept).map(|i| new_left_arity + i))
        .collect();
    let projections = keep.iter().map(|&i| column(i, schema[i].ty)).collect();
    plan.intern(
        NodeKind::Calc {
            input: join,
            projections,
            filter: None,
        },
        rel.schema.clone(),
        &span,
    )
}

/// The input column holding a join key: the column itself, or a new
/// computed column appended after the input's `arity` columns.
fn key_column(e: Expr, arity: usize, extra: &mut Vec<Expr>) -> usize {
    if let ExprKind::Column(i) = e.kind {
        return i;
    }
    let stripped = crate::ir::strip_spans(e);
    if let Some(k) = extra.iter().position(|x| *x == stripped) {
        return arity + k;
    }
    extra.push(stripped);
    arity + extra.len() - 1
}
