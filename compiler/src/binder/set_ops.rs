//! INTERSECT and EXCEPT (distinct), planned as one aggregate over a tagged
//! UNION ALL of both inputs, as Calcite's `IntersectToDistinctRule` /
//! `MinusToDistinctRule` do: each row carries `$left` / `$right` flags,
//! the aggregate groups by every column (NULLs group together, so NULLs
//! compare equal, as SQL's set operations require) and counts each side's
//! rows; a filter keeps the groups seen on both sides (INTERSECT) or on the
//! left only (EXCEPT). Each input is read once; the column types are the
//! common types, as for UNION (observed: `k INT NOT NULL EXCEPT v INT`
//! gives `k INT`).

use crate::diagnostics::{Diagnostic, Span};
use crate::functions::AggregateFunction;
use crate::ir::{AggregateCall, BinaryOp, Expr, ExprKind, Field, Literal, Rel, RelKind};
use crate::types::{DataType, TypeKind};
use crate::typing;

use super::query::{filter, project};
use super::Binder;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetOp {
    Intersect,
    Except,
    IntersectAll,
    ExceptAll,
}

impl Binder<'_> {
    pub(crate) fn intersect_or_except(
        &mut self,
        op: SetOp,
        left: Rel,
        right: Rel,
        spans: &[Span],
        span: Span,
    ) -> Option<Rel> {
        let name = match op {
            SetOp::Intersect => "INTERSECT",
            SetOp::Except => "EXCEPT",
            SetOp::IntersectAll => "INTERSECT ALL",
            SetOp::ExceptAll => "EXCEPT ALL",
        };
        if left.schema.len() != right.schema.len() {
            let shorter = if right.schema.len() < left.schema.len() {
                1
            } else {
                0
            };
            self.error(Diagnostic::error(
                spans[shorter],
                format!(
                    "the inputs of {name} have different column counts: {} and {}",
                    left.schema.len(),
                    right.schema.len()
                ),
            ));
            return None;
        }
        for (c, (l, r)) in left.schema.iter().zip(&right.schema).enumerate() {
            if typing::common_type(&[l.ty, r.ty]).is_none() {
                self.error(Diagnostic::error(
                    span,
                    format!(
                        "column {} of {name} has incompatible types: {} and {}",
                        c + 1,
                        l.ty,
                        r.ty
                    ),
                ));
                return None;
            }
        }
        // Common types, as for UNION ALL.
        let union = self.union_all(vec![left, right], spans, span)?;
        let schema = union.schema.clone();
        let RelKind::UnionAll { inputs } = union.kind else {
            unreachable!("union_all builds a UnionAll")
        };
        if matches!(op, SetOp::IntersectAll | SetOp::ExceptAll) {
            return Some(intersect_or_except_all(
                op == SetOp::IntersectAll,
                inputs,
                schema,
                span,
            ));
        }
        let arity = schema.len();
        let flag = |b: bool| Expr {
            kind: ExprKind::Literal(Literal::Boolean(b)),
            ty: DataType::not_null(TypeKind::Boolean),
            span,
        };
        let column = |i: usize, ty: DataType| Expr {
            kind: ExprKind::Column(i),
            ty,
            span,
        };
        let mut names: Vec<String> = schema.iter().map(|f| f.name.clone()).collect();
        names.push("$left".into());
        names.push("$right".into());
        let tagged: Vec<Rel> = inputs
            .into_iter()
            .enumerate()
            .map(|(side, input)| {
                let mut exprs: Vec<Expr> = input
                    .schema
                    .iter()
                    .enumerate()
                    .map(|(i, f)| column(i, f.ty))
                    .collect();
                exprs.push(flag(side == 0));
                exprs.push(flag(side == 1));
                project(input, exprs, names.clone(), span)
            })
            .collect();
        let union_schema = tagged[0].schema.clone();
        let tagged_union = Rel {
            kind: RelKind::UnionAll { inputs: tagged },
            schema: union_schema,
            span,
        };
        let count_ty = DataType::not_null(TypeKind::BigInt);
        let count = |filter_column: usize, name: &str| AggregateCall {
            function: AggregateFunction::Count,
            distinct: false,
            args: Vec::new(),
            filter: Some(filter_column),
            ty: count_ty,
            separator: None,
            name: name.to_string(),
        };
        let mut agg_schema: Vec<Field> = schema.clone();
        agg_schema.push(Field {
            name: "$left_rows".into(),
            ty: count_ty,
        });
        agg_schema.push(Field {
            name: "$right_rows".into(),
            ty: count_ty,
        });
        let aggregate = Rel {
            kind: RelKind::Aggregate {
                input: Box::new(tagged_union),
                group: (0..arity).collect(),
                aggregates: vec![count(arity, "$left_rows"), count(arity + 1, "$right_rows")],
            },
            schema: agg_schema,
            span,
        };
        let zero = Expr {
            kind: ExprKind::Literal(Literal::Integer(0)),
            ty: count_ty,
            span,
        };
        let compare = |op: BinaryOp, c: usize| Expr {
            kind: ExprKind::Binary {
                op,
                left: Box::new(column(c, count_ty)),
                right: Box::new(zero.clone()),
            },
            ty: DataType::not_null(TypeKind::Boolean),
            span,
        };
        let right_test = match op {
            SetOp::Intersect | SetOp::IntersectAll => compare(BinaryOp::Gt, arity + 1),
            SetOp::Except | SetOp::ExceptAll => compare(BinaryOp::Eq, arity + 1),
        };
        let predicate = Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::And,
                left: Box::new(compare(BinaryOp::Gt, arity)),
                right: Box::new(right_test),
            },
            ty: DataType::not_null(TypeKind::Boolean),
            span,
        };
        let kept = filter(aggregate, predicate);
        let exprs = schema
            .iter()
            .enumerate()
            .map(|(i, f)| column(i, f.ty))
            .collect();
        Some(project(
            kept,
            exprs,
            schema.iter().map(|f| f.name.clone()).collect(),
            span,
        ))
    }
}

/// INTERSECT ALL / EXCEPT ALL over the two inputs of a UNION ALL with the
/// common types: each row is tagged with its side (`$side` 0 left, 1 right)
/// and an indicator per side (`$left` / `$right`, 1 or NULL); one OVER
/// window partitioned by every column (NULLs are one partition, so NULLs
/// compare equal) and ordered by `$side` numbers the rows (the left ones
/// first: 1..m) and counts each side's rows over the whole partition (m, n);
/// a filter keeps the left rows with `rn <= n` (min(m, n) copies) or
/// `rn + n <= m` (max(m - n, 0) copies). Flink replicates the aggregated
/// counts with a table function instead; the rows are the same.
fn intersect_or_except_all(
    intersect: bool,
    inputs: Vec<Rel>,
    schema: Vec<Field>,
    span: Span,
) -> Rel {
    use crate::ir::over::{Frame, FrameBound, FrameUnit, OverCall, OverFunction};
    use crate::ir::SortKey;
    let arity = schema.len();
    let column = |i: usize, ty: DataType| Expr {
        kind: ExprKind::Column(i),
        ty,
        span,
    };
    let int = DataType::not_null(TypeKind::Int);
    let indicator_ty = DataType::new(TypeKind::Int, true);
    let bigint = DataType::not_null(TypeKind::BigInt);
    let boolean = DataType::not_null(TypeKind::Boolean);
    let literal = |l: Literal, ty: DataType| Expr {
        kind: ExprKind::Literal(l),
        ty,
        span,
    };
    let indicator = |on: bool| {
        if on {
            literal(Literal::Integer(1), indicator_ty)
        } else {
            literal(Literal::Null, indicator_ty)
        }
    };
    let mut names: Vec<String> = schema.iter().map(|f| f.name.clone()).collect();
    names.extend(["$side", "$left", "$right"].map(String::from));
    let tagged: Vec<Rel> = inputs
        .into_iter()
        .enumerate()
        .map(|(side, input)| {
            let mut exprs: Vec<Expr> = input
                .schema
                .iter()
                .enumerate()
                .map(|(i, f)| column(i, f.ty))
                .collect();
            exprs.push(literal(Literal::Integer(side as i64), int));
            exprs.push(indicator(side == 0));
            exprs.push(indicator(side == 1));
            project(input, exprs, names.clone(), span)
        })
        .collect();
    let union_schema = tagged[0].schema.clone();
    let union = Rel {
        kind: RelKind::UnionAll { inputs: tagged },
        schema: union_schema.clone(),
        span,
    };
    let whole = Frame {
        unit: FrameUnit::Rows,
        start: FrameBound::UnboundedPreceding,
        end: FrameBound::UnboundedFollowing,
        scale: 0,
    };
    let call = |function: OverFunction, args: Vec<usize>, name: &str| OverCall {
        function,
        args,
        frame: whole,
        ty: bigint,
        name: name.to_string(),
    };
    let calls = vec![
        call(OverFunction::RowNumber, Vec::new(), "$rn"),
        call(
            OverFunction::Aggregate(AggregateFunction::Count),
            vec![arity + 1],
            "$left_rows",
        ),
        call(
            OverFunction::Aggregate(AggregateFunction::Count),
            vec![arity + 2],
            "$right_rows",
        ),
    ];
    let mut over_schema = union_schema;
    over_schema.extend(calls.iter().map(|c| Field {
        name: c.name.clone(),
        ty: c.ty,
    }));
    let over = Rel {
        kind: RelKind::Over {
            input: Box::new(union),
            partition: (0..arity).collect(),
            order: vec![SortKey {
                column: arity,
                descending: false,
                nulls_first: true,
            }],
            calls,
        },
        schema: over_schema,
        span,
    };
    let binary = |op: BinaryOp, left: Expr, right: Expr, ty: DataType| Expr {
        kind: ExprKind::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
        ty,
        span,
    };
    let (rn, m, n) = (
        column(arity + 3, bigint),
        column(arity + 4, bigint),
        column(arity + 5, bigint),
    );
    let copies = if intersect {
        binary(BinaryOp::LtEq, rn, n, boolean)
    } else {
        binary(
            BinaryOp::LtEq,
            binary(BinaryOp::Plus, rn, n, bigint),
            m,
            boolean,
        )
    };
    let left_row = binary(
        BinaryOp::Eq,
        column(arity, int),
        literal(Literal::Integer(0), int),
        boolean,
    );
    let kept = filter(over, binary(BinaryOp::And, left_row, copies, boolean));
    let exprs = schema
        .iter()
        .enumerate()
        .map(|(i, f)| column(i, f.ty))
        .collect();
    project(
        kept,
        exprs,
        schema.iter().map(|f| f.name.clone()).collect(),
        span,
    )
}
