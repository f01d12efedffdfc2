//! Top-N: a filter that bounds the rank column of a lone ROW_NUMBER, RANK
//! or DENSE_RANK (`WHERE rn <= N`, `rn < N`, `rn = 1`, `rn BETWEEN a AND b`)
//! turns the OVER node below it into a Top-N (`NodeKind::Over` with a
//! `limit`), which keeps at most N rows per partition instead of sorting
//! every row. The rank conjuncts leave the filter: the Top-N guarantees them.
//! An OVER node shared by several filters gives each its own Top-N (each
//! bounded by its N); the full OVER stays only for consumers that need it.

use crate::ir::over::{OverFunction, RankLimit};
use crate::ir::{BinaryOp, Expr, ExprKind, Literal};
use crate::plan::rewrite::{and_all, conjuncts};
use crate::plan::{keep, rebuild, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    // Only a filtered Calc over an OVER node without a limit can change
    // (the rewrite changes nothing else): without one, no rebuild.
    let candidate = plan.nodes.iter().any(|node| {
        matches!(&node.kind, NodeKind::Calc { input, filter: Some(_), .. }
            if matches!(plan.node(*input).kind, NodeKind::Over { limit: None, .. }))
    });
    if !candidate {
        return None;
    }
    let mut changed = false;
    let new = rebuild(plan, |new, _, mut node| {
        let (input, filter) = match &node.kind {
            NodeKind::Calc {
                input,
                filter: Some(filter),
                ..
            } => (*input, filter.clone()),
            _ => return keep(new, node),
        };
        let over = new.node(input).clone();
        let NodeKind::Over {
            input: over_input,
            partition,
            order,
            calls,
            limit: None,
        } = &over.kind
        else {
            return keep(new, node);
        };
        let ranking = matches!(
            calls.as_slice(),
            [c] if matches!(c.function, OverFunction::RowNumber | OverFunction::Rank | OverFunction::DenseRank)
        );
        if !ranking || order.is_empty() {
            return keep(new, node);
        }
        let rank_column = new.node(*over_input).schema.len();
        let (mut lo, mut hi) = (1u64, None::<i64>);
        let mut rest = Vec::new();
        for part in conjuncts(filter) {
            match rank_bound(&part, rank_column) {
                Some(Bound::AtMost(n)) => hi = Some(hi.map_or(n, |h| h.min(n))),
                Some(Bound::AtLeast(n)) => lo = lo.max(n),
                Some(Bound::Exactly(n)) => {
                    lo = lo.max(n.max(1) as u64);
                    hi = Some(hi.map_or(n, |h| h.min(n)));
                }
                None => rest.push(part),
            }
        }
        let Some(hi) = hi else {
            return keep(new, node);
        };
        let mut provenance = node.provenance.clone();
        provenance.dedup();
        let limited = new.intern(
            NodeKind::Over {
                input: *over_input,
                partition: partition.clone(),
                order: order.clone(),
                calls: calls.clone(),
                limit: Some(RankLimit { lo, hi }),
            },
            over.schema.clone(),
            // Where the filter that bounds it was written (a shared OVER
            // has the provenance of every query that uses it).
            &provenance,
        );
        if let NodeKind::Calc { input, filter, .. } = &mut node.kind {
            *input = limited;
            *filter = and_all(rest);
        }
        changed = true;
        keep(new, node)
    });
    changed.then_some(new)
}

/// What a conjunct says about the rank (ranks are 1, 2, ...). Upper
/// bounds stay as written (`rn < 0` is at most -1).
enum Bound {
    AtMost(i64),
    AtLeast(u64),
    Exactly(i64),
}

/// `rank <op> literal` or `literal <op> rank` as a bound on the rank.
fn rank_bound(e: &Expr, rank_column: usize) -> Option<Bound> {
    let ExprKind::Binary { op, left, right } = &e.kind else {
        return None;
    };
    let (op, value) = if is_column(left, rank_column) {
        (*op, integer(right)?)
    } else if is_column(right, rank_column) {
        (flip(*op)?, integer(left)?)
    } else {
        return None;
    };
    // Below 1 no rank qualifies (`rn <= 0`, `rn < 1`): an empty Top-N.
    Some(match op {
        BinaryOp::LtEq => Bound::AtMost(value),
        BinaryOp::Lt => Bound::AtMost(value.saturating_sub(1)),
        BinaryOp::Eq => Bound::Exactly(value),
        BinaryOp::GtEq => Bound::AtLeast(value.max(1) as u64),
        BinaryOp::Gt => Bound::AtLeast(value.saturating_add(1).max(1) as u64),
        _ => return None,
    })
}

fn flip(op: BinaryOp) -> Option<BinaryOp> {
    Some(match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::LtEq => BinaryOp::GtEq,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::GtEq => BinaryOp::LtEq,
        BinaryOp::Eq => BinaryOp::Eq,
        _ => return None,
    })
}

fn is_column(e: &Expr, c: usize) -> bool {
    match &e.kind {
        ExprKind::Column(i) => *i == c,
        _ => false,
    }
}

/// An integer literal, possibly behind implicit casts.
fn integer(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Literal(Literal::Integer(v)) => Some(*v),
        ExprKind::Cast {
            operand,
            try_cast: false,
        } if operand.ty.kind.is_integer() && e.ty.kind.is_integer() => integer(operand),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_optimized;

    const TABLES: &str = "
        CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE s (k STRING, v INT, rn BIGINT) WITH ('connector' = 'blackhole');";

    #[test]
    fn a_bounded_rank_filter_becomes_a_top_n() {
        check_optimized(
            &format!(
                "{TABLES}
                INSERT INTO s SELECT * FROM (
                  SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t)
                WHERE rn <= 3 AND v > 0;"
            ),
            "
Sink #3 s [blackhole] INSERT INTO
+- Calc #2 where=[(v > 0)] select=[k, v, w0$o0 AS rn]
   +- TopN #1 partition=[k] order=[v DESC] calls=[ROW_NUMBER() : BIGINT NOT NULL] rank=[1..3]
      +- Scan #0 t [datagen] read=[k, v]",
        );
    }

    #[test]
    fn a_lower_bound_alone_stays_a_filter_and_partition_filters_go_below() {
        check_optimized(
            &format!(
                "{TABLES}
                INSERT INTO s SELECT * FROM (
                  SELECT k, v, RANK() OVER (PARTITION BY k ORDER BY v) AS rn FROM t)
                WHERE rn > 1 AND k <> 'x';"
            ),
            "
Sink #3 s [blackhole] INSERT INTO
+- Calc #2 where=[(w0$o0 > 1)] select=[k, v, w0$o0 AS rn]
   +- Over #1 partition=[k] order=[v ASC] calls=[RANK() : BIGINT NOT NULL]
      +- Scan #0 t [datagen] read=[k, v] where=[(k <> 'x')]",
        );
    }
}
