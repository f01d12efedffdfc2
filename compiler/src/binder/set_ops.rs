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
            SetOp::Intersect => compare(BinaryOp::Gt, arity + 1),
            SetOp::Except => compare(BinaryOp::Eq, arity + 1),
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
