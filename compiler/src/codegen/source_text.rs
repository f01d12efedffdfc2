//! Csv text passed through to csv sinks (issue 13): where a sink column is
//! a csv source column carried untouched (through Calcs that only filter
//! or project it), the sink may copy the field's bytes from the record the
//! scan is reading instead of formatting the parsed value again — when the
//! text is exactly what the value formats as (`rt::text::canonical`
//! decides per value; other text is formatted as before).
//!
//! The record is only there while the scan pushes the row: every node on
//! the way runs inside the scan's loop (Calcs and the sink, each with one
//! input), so the push functions from the scan to such a sink take the
//! record as an extra parameter `rec`.

use crate::ir::{ConnectorKind, ExprKind, Format};
use crate::plan::{NodeId, NodeKind, Plan};
use crate::types::TypeKind;

use super::expr::value_type;

/// The kinds of values whose csv text a sink can copy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum TextKind {
    /// TINYINT, SMALLINT, INT, BIGINT.
    Int,
    Double,
    /// TIMESTAMP(p), not TIMESTAMP_LTZ.
    Timestamp,
}

impl TextKind {
    pub(super) fn of(kind: TypeKind) -> Option<TextKind> {
        match kind {
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt => {
                Some(TextKind::Int)
            }
            TypeKind::Double => Some(TextKind::Double),
            TypeKind::Timestamp(_) => Some(TextKind::Timestamp),
            _ => None,
        }
    }
}

/// Per node: `None` unless its rows are pushed from inside a csv scan's
/// loop; else per output column the csv field it is the untouched value of
/// (and the field's kind).
pub(super) type SourceText = Vec<Option<Vec<Option<(usize, TextKind)>>>>;

pub(super) fn source_text(plan: &Plan) -> SourceText {
    let mut out: SourceText = vec![None; plan.nodes.len()];
    // Inputs come before their consumers except through cycles that this
    // analysis does not follow: iterate to a fixed point (a few rounds).
    loop {
        let mut changed = false;
        for (i, node) in plan.nodes.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let computed = match &node.kind {
                NodeKind::Scan { table, columns, .. } => {
                    let t = plan.job.table(*table);
                    match &t.connector.kind {
                        ConnectorKind::Filesystem {
                            format: Format::Csv,
                            ..
                        } => Some(
                            columns
                                .iter()
                                .zip(node.schema.iter())
                                .map(|(&p, f)| TextKind::of(f.ty.kind).map(|k| (p, k)))
                                .collect(),
                        ),
                        _ => None,
                    }
                }
                NodeKind::Calc {
                    input, projections, ..
                } => out[input.index()].as_ref().map(|from| {
                    let input_schema = &plan.node(*input).schema;
                    projections
                        .iter()
                        .zip(node.schema.iter())
                        .map(|(p, f)| match p.kind {
                            ExprKind::Column(c)
                                if value_type(&input_schema[c].ty).to_string()
                                    == value_type(&f.ty).to_string() =>
                            {
                                from[c].filter(|&(_, k)| TextKind::of(f.ty.kind) == Some(k))
                            }
                            _ => None,
                        })
                        .collect()
                }),
                _ => None,
            };
            if computed.is_some() {
                out[i] = computed;
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

/// `wants[n]`: the push into `n` takes the scan's record — `n` is a csv
/// sink with a column to copy, or a Calc inside a scan's loop with such a
/// consumer. Sinks fed by anything else never take it.
pub(super) fn wants_record(
    plan: &Plan,
    text: &SourceText,
    consumers: &[Vec<(NodeId, usize)>],
) -> Vec<bool> {
    let n = plan.nodes.len();
    let mut wants = vec![false; n];
    for (i, node) in plan.nodes.iter().enumerate() {
        if let NodeKind::Sink { table, input, .. } = &node.kind {
            let t = plan.job.table(*table);
            let csv = matches!(
                t.connector.kind,
                ConnectorKind::Filesystem {
                    format: Format::Csv,
                    ..
                }
            );
            wants[i] = csv
                && text[input.index()]
                    .as_ref()
                    .is_some_and(|cols| cols.iter().any(Option::is_some));
        }
    }
    // Calcs between a scan and such a sink, consumers first.
    loop {
        let mut changed = false;
        for (i, node) in plan.nodes.iter().enumerate() {
            if wants[i] || !matches!(node.kind, NodeKind::Calc { .. }) || text[i].is_none() {
                continue;
            }
            if consumers[i].iter().any(|&(c, _)| wants[c.index()]) {
                wants[i] = true;
                changed = true;
            }
        }
        if !changed {
            return wants;
        }
    }
}
