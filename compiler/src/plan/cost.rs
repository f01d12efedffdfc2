//! Row-count estimates for `explain --detail cost`: sources from file sizes
//! (bytes / an estimated row width) or datagen's `number-of-rows`, then
//! Calcite-style selectivities (equality 0.15, range 0.5, ...). Estimates are
//! for reading plans, not promises; they never affect what the job computes.

use std::path::Path;

use crate::ir::{BinaryOp, ConnectorKind, Expr, ExprKind, Format, UnaryOp};
use crate::types::TypeKind;

use super::{NodeKind, Plan};

/// Estimated output rows of every node (`None` where a source size is unknown).
pub(crate) fn estimate_rows(plan: &Plan, base: &Path) -> Vec<Option<f64>> {
    let mut rows: Vec<Option<f64>> = Vec::with_capacity(plan.nodes.len());
    for node in &plan.nodes {
        let input = |k: usize| rows[node.kind.inputs()[k].index()];
        let estimate = match &node.kind {
            NodeKind::Scan { table, filter, .. } => source_rows(plan, *table, base)
                .map(|r| r * filter.as_ref().map_or(1.0, selectivity)),
            NodeKind::Values { rows } => Some(rows.len() as f64),
            NodeKind::Calc { filter, .. } => {
                input(0).map(|r| r * filter.as_ref().map_or(1.0, selectivity))
            }
            NodeKind::Aggregate { group, .. } => {
                if group.is_empty() {
                    Some(1.0)
                } else {
                    input(0).map(|r| (r * 0.1).max(1.0))
                }
            }
            NodeKind::Join {
                kind,
                left_keys,
                residual,
                ..
            } => match (input(0), input(1)) {
                (Some(l), Some(r)) => {
                    let joined = if left_keys.is_empty() {
                        l * r
                    } else {
                        l.max(r)
                    };
                    let joined = joined * residual.as_ref().map_or(1.0, selectivity);
                    Some(match kind {
                        crate::ir::JoinKind::Inner => joined,
                        crate::ir::JoinKind::Left => joined.max(l),
                        crate::ir::JoinKind::Right => joined.max(r),
                        crate::ir::JoinKind::Full => joined.max(l + r),
                    })
                }
                _ => None,
            },
            NodeKind::Union { inputs } => inputs.iter().map(|i| rows[i.index()]).sum(),
            NodeKind::Sort { limit, offset, .. } => input(0).map(|r| {
                let r = (r - offset.unwrap_or(0) as f64).max(0.0);
                limit.map_or(r, |l| r.min(l as f64))
            }),
            NodeKind::Window { window, .. } => input(0).map(|r| match window {
                crate::ir::WindowKind::Tumble { .. } => r,
                crate::ir::WindowKind::Hop { slide, size, .. } => {
                    r * (*size as f64 / *slide as f64)
                }
                crate::ir::WindowKind::Cumulate { step, size, .. } => {
                    r * (*size as f64 / *step as f64)
                }
            }),
            NodeKind::Sink { .. } => input(0),
        };
        rows.push(estimate);
    }
    rows
}

fn source_rows(plan: &Plan, table: crate::ir::TableId, base: &Path) -> Option<f64> {
    let table = plan.job.table(table);
    match &table.connector.kind {
        ConnectorKind::Datagen => table
            .connector
            .options
            .get("number-of-rows")
            .and_then(|n| n.trim().parse::<f64>().ok()),
        ConnectorKind::Filesystem { path, format } => {
            let bytes = path_size(&base.join(path))?;
            let mut width: f64 = table
                .physical_columns()
                .map(|(_, c)| text_width(c.ty.kind) + 1.0)
                .sum();
            if *format == Format::Json {
                width += table
                    .physical_columns()
                    .map(|(_, c)| c.name.len() as f64 + 4.0)
                    .sum::<f64>()
                    + 2.0;
            }
            Some((bytes as f64 / width.max(1.0)).round())
        }
        ConnectorKind::Print | ConnectorKind::Blackhole => None,
    }
}

fn path_size(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        return Some(meta.len());
    }
    let mut total = 0;
    for entry in std::fs::read_dir(path).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        // Like the runtime's file listing: descend into real directories
        // only, so a symlink loop cannot recurse forever.
        let kind = entry.file_type().ok()?;
        if kind.is_dir() {
            total += path_size(&entry.path()).unwrap_or(0);
        } else if let Ok(meta) = std::fs::metadata(entry.path()) {
            if meta.is_file() {
                total += meta.len();
            }
        }
    }
    Some(total)
}

/// Typical width in characters of a value in a csv file.
fn text_width(kind: TypeKind) -> f64 {
    match kind {
        TypeKind::Boolean => 5.0,
        TypeKind::TinyInt => 3.0,
        TypeKind::SmallInt => 4.0,
        TypeKind::Int => 6.0,
        TypeKind::BigInt => 10.0,
        TypeKind::Float | TypeKind::Double => 10.0,
        TypeKind::Decimal { precision, .. } => f64::from(precision.min(12)) + 1.0,
        TypeKind::Char(n) | TypeKind::Varchar(n) | TypeKind::Binary(n) | TypeKind::Varbinary(n) => {
            f64::from(n.min(12))
        }
        TypeKind::Date => 10.0,
        TypeKind::Time(_) => 12.0,
        TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => 23.0,
        _ => 8.0,
    }
}

/// Fraction of rows for which a predicate is TRUE (Calcite's defaults).
pub(crate) fn selectivity(e: &Expr) -> f64 {
    match &e.kind {
        ExprKind::Binary { op, left, right } => match op {
            BinaryOp::And => selectivity(left) * selectivity(right),
            BinaryOp::Or => {
                let (a, b) = (selectivity(left), selectivity(right));
                (a + b - a * b).min(1.0)
            }
            BinaryOp::Eq | BinaryOp::IsNotDistinctFrom => 0.15,
            BinaryOp::NotEq | BinaryOp::IsDistinctFrom => 0.85,
            BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq => 0.5,
            _ => 0.25,
        },
        ExprKind::Unary { op, operand } => match op {
            UnaryOp::Not => 1.0 - selectivity(operand),
            UnaryOp::IsNull => 0.1,
            UnaryOp::IsNotNull => 0.9,
            _ => 0.5,
        },
        ExprKind::InList { list, negated, .. } => {
            let s = (0.15 * list.len() as f64).min(0.5);
            if *negated {
                1.0 - s
            } else {
                s
            }
        }
        ExprKind::Like { .. } => 0.25,
        ExprKind::Literal(crate::ir::Literal::Boolean(true)) => 1.0,
        ExprKind::Literal(crate::ir::Literal::Boolean(false)) => 0.0,
        _ => 0.25,
    }
}
