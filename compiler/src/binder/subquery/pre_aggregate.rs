//! Subqueries inside an aggregate call's arguments or FILTER clause
//! (`SUM(CASE WHEN x IN (SELECT ...) THEN 1 END)`, `SUM((SELECT ...))`,
//! `COUNT(*) FILTER (WHERE k IN (SELECT ...))`) and in GROUP BY keys
//! (`GROUP BY (SELECT MAX(x) FROM b WHERE b.k = a.k)`): these are computed
//! per input row, before aggregating, so their subqueries join the
//! aggregate's input (after WHERE), not its rows as those of the SELECT
//! list and HAVING do. As Calcite's SubQueryRemoveRule does for Flink, the
//! join appends the subquery's value (or mark) to each input row and the
//! pre-aggregation projection reads it.
//!
//! A grouped SELECT opens one such frame for all its aggregate calls
//! (`open_pre_aggregate`); each call binds its arguments in a clause frame
//! of its own, whose joins move here (`end_aggregate_arguments`),
//! `close_pre_aggregate` applies them to the input and `end_pre_aggregate`
//! closes the frame.

use super::{BResult, Pending};
use crate::binder::Binder;
use crate::ir::{Expr, Rel};

impl Binder<'_> {
    /// Opens the frame of a grouped SELECT's aggregate arguments.
    pub(crate) fn open_pre_aggregate(&mut self) {
        self.subq.pre_aggregate.push(Vec::new());
    }

    /// Starts binding an aggregate call's arguments: they get a frame of
    /// their own when the clause takes subqueries (else a scalar subquery
    /// there is refused like one in its clause). Returns whether it opened.
    pub(crate) fn begin_aggregate_arguments(&mut self) -> bool {
        let takes =
            matches!(self.subq.frames.last(), Some(Some(_))) && !self.subq.pre_aggregate.is_empty();
        if takes {
            self.open_subquery_frame();
        }
        takes
    }

    /// Starts binding a GROUP BY key: its subqueries, too, join the input.
    pub(crate) fn begin_group_key(&mut self) -> bool {
        let takes = !self.subq.pre_aggregate.is_empty();
        if takes {
            self.open_subquery_frame();
        }
        takes
    }

    /// Ends an aggregate call's arguments (or a GROUP BY key): on success its subqueries' joins
    /// wait for the aggregate's input (`close_pre_aggregate`).
    pub(crate) fn end_aggregate_arguments<T>(
        &mut self,
        opened: bool,
        result: BResult<T>,
    ) -> BResult<T> {
        if !opened {
            return result;
        }
        let pending = self.pop_frame().flatten().unwrap_or_default();
        if result.is_ok() {
            self.subq
                .pre_aggregate
                .last_mut()
                .expect("checked by begin_aggregate_arguments")
                .extend(pending);
        }
        result
    }

    /// Joins the aggregate arguments' subqueries to the aggregate's `input`
    /// and puts their values into `exprs` (the pre-aggregation projection).
    pub(crate) fn close_pre_aggregate(&mut self, input: Rel, exprs: &mut [Expr]) -> Rel {
        let pending: Vec<Pending> = self
            .subq
            .pre_aggregate
            .last_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        Self::apply_pending(pending, input, exprs)
    }

    /// Closes the frame (after `close_pre_aggregate`, or an error).
    pub(crate) fn end_pre_aggregate(&mut self) {
        self.subq.pre_aggregate.pop();
    }
}
