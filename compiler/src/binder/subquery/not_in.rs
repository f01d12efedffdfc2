//! `x NOT IN (subquery)` and `x <> ALL (subquery)` over nullable values, as
//! a NULL-aware hash anti join (Calcite's SubQueryRemoveRule rewrite of NOT
//! IN, which Flink plans): a row of the enclosing query is kept iff the set
//! is empty, or `x` is not NULL, the set holds no NULL and `x` is not in it.
//!
//! Planned as plain operators, so the planner sees an equi join and shares
//! the subquery's scan:
//!
//! ```text
//! Project(input columns)
//!   Filter(c = 0 OR (x IS NOT NULL AND ck = c))
//!     Join(inner, true)                      -- one row: the set's flags
//!       Join(anti, x = y)                    -- hash anti join on x = y
//!         input
//!         subquery
//!       Aggregate(c = COUNT(*), ck = COUNT(y)) over subquery
//! ```
//!
//! `c = 0` is the empty set, `ck = c` a set without NULL; the anti join
//! removes the rows whose `x` is in the set (a NULL `x` matches nothing, and
//! the filter then keeps it only for an empty set).

use super::{and, column, join, true_literal, unary, BResult};
use crate::binder::query::{filter, project};
use crate::binder::Binder;
use crate::diagnostics::Span;
use crate::functions::AggregateFunction;
use crate::ir::{
    AggregateCall, BinaryOp, Expr, ExprKind, Field, JoinKind, Literal, Rel, RelKind, UnaryOp,
};
use crate::types::{DataType, TypeKind};

/// `l op r`, BOOLEAN, nullable when either side is.
pub(super) fn binary(op: BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
    Expr {
        ty: DataType::new(TypeKind::Boolean, l.ty.nullable || r.ty.nullable),
        kind: ExprKind::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
        },
        span,
    }
}

/// `COUNT(args)` (COUNT(*) when empty) named `name`.
pub(super) fn count(args: Vec<usize>, name: &str) -> AggregateCall {
    AggregateCall {
        function: AggregateFunction::Count,
        distinct: false,
        args,
        filter: None,
        ty: DataType::not_null(TypeKind::BigInt),
        separator: None,
        name: name.to_string(),
    }
}

impl Binder<'_> {
    /// `x NOT IN sub` (`x <> ALL sub`) for an uncorrelated one-column
    /// subquery where `x` or the subquery's column is nullable; `sub`'s
    /// column 0 is the value. The result has `input`'s schema.
    pub(super) fn null_aware_not_in(
        &mut self,
        input: Rel,
        x: Expr,
        sub: Rel,
        span: Span,
    ) -> BResult<Rel> {
        let n = input.schema.len();
        let schema = input.schema.clone();
        let y = column(n, sub.schema[0].ty, span);
        let x_nullable = x.ty.nullable;
        let y_nullable = y.ty.nullable;
        let key = self.comparison(BinaryOp::Eq, x.clone(), y, span)?;
        let anti = join(JoinKind::Anti, input, sub.clone(), key);
        let bigint = DataType::not_null(TypeKind::BigInt);
        let flags = Rel {
            kind: RelKind::Aggregate {
                input: Box::new(sub),
                group: Vec::new(),
                aggregates: vec![count(Vec::new(), "$c"), count(vec![0], "$ck")],
            },
            schema: vec![
                Field {
                    name: "$c".to_string(),
                    ty: bigint,
                },
                Field {
                    name: "$ck".to_string(),
                    ty: bigint,
                },
            ],
            span,
        };
        let with_flags = join(JoinKind::Inner, anti, flags, true_literal(span));
        let c = column(n, bigint, span);
        let ck = column(n + 1, bigint, span);
        let zero = Expr {
            kind: ExprKind::Literal(Literal::Integer(0)),
            ty: bigint,
            span,
        };
        let empty = binary(BinaryOp::Eq, c.clone(), zero, span);
        let mut kept = Vec::new();
        if x_nullable {
            kept.push(unary(UnaryOp::IsNotNull, x, span));
        }
        if y_nullable {
            kept.push(binary(BinaryOp::Eq, ck, c, span));
        }
        let predicate = match kept.into_iter().reduce(and) {
            Some(k) => binary(BinaryOp::Or, empty, k, span),
            None => true_literal(span),
        };
        let filtered = filter(with_flags, predicate);
        let exprs = schema
            .iter()
            .enumerate()
            .map(|(i, f)| column(i, f.ty, span))
            .collect();
        let names = schema.iter().map(|f| f.name.clone()).collect();
        Ok(project(filtered, exprs, names, span))
    }
}
