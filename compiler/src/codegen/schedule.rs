//! The schedule: which pipelines the job runs, and in what order.
//!
//! A pipeline starts at a source of rows (a scan, VALUES, a breaker's
//! output: aggregate results, sorted rows, outer-join leftovers, a replayed
//! spool) and pushes each row through streaming operators (calcs, unions,
//! window assignment, join probes) into breakers (aggregates, sorts, join
//! builds, sinks). A pipeline may run only once every join it probes is
//! built and every breaker it reads is complete.
//!
//! When that is impossible, because a join's probe rows and build rows come
//! from the same pipeline (a self-join, a table joined with its own
//! aggregate) or from pipelines that build each other's joins (crosswise
//! joins across INSERTs), the join's probe input is *spooled*: the pipeline
//! stores those rows, and a later pipeline replays them into the probe once
//! the build is complete. Sources are still read once. Spools are chosen
//! one at a time until the order exists: of the joins on a dependency
//! cycle, or of the joins above it whose probe every row on the cycle
//! passes, the one whose probe input is estimated smallest in bytes (the
//! rows that wait, times the width of their live columns); among equals a
//! join on the cycle, then the first in plan order. Once an order exists,
//! each spool is dropped again, the largest first, if an order still
//! exists without it: a spool chosen early may sit on cycles that later
//! ones broke.
//!
//! Every join also has a task that runs after all of its probe rows have
//! arrived: when the build side went beyond the memory budget and was
//! partitioned to disk, the probe rows waited in partitions too, and this
//! task joins them partition by partition (a grace hash join); otherwise it
//! does nothing.

use std::collections::{BTreeMap, BTreeSet};

use super::{Gen, GenResult, Task};
use crate::ir::JoinKind;
use crate::plan::{NodeId, NodeKind};

impl Gen<'_> {
    /// Orders the pipelines so that every operator a task pushes into is
    /// ready, spooling join probes where a cycle would need it (fills
    /// `self.spooled`).
    pub(super) fn schedule(&mut self) -> GenResult<Vec<Task>> {
        let mut chosen = Vec::new();
        while let Some(join) = self.analyse().2 {
            self.spooled.insert(join);
            chosen.push(join);
        }
        // Spools are chosen one cycle at a time, so one chosen early can
        // be needless once later ones broke the cycles it was on (TPC-H
        // q10's lineitem rows waited for a build the orders scan makes,
        // on a cycle through q12's join that its own spool broke later).
        // Each is dropped again, the largest first, where an order exists
        // without it.
        let mut chosen: Vec<(f64, NodeId)> = {
            let waiting = self.waiting_bytes();
            let probe = |join: NodeId| match self.plan.node(join).kind {
                NodeKind::Join { left, .. } => waiting(left),
                _ => 0.0,
            };
            chosen.into_iter().map(|j| (probe(j), j)).collect()
        };
        chosen.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, join) in chosen {
            self.spooled.remove(&join);
            let (_, needs, cycle) = self.analyse();
            if cycle.is_some() || topological(&needs).is_err() {
                self.spooled.insert(join);
            }
        }
        let (tasks, needs, _) = self.analyse();
        let order = topological(&needs).map_err(|cyclic| {
            format!(
                "internal: no pipeline order exists around {}",
                self.descriptions[tasks[cyclic].node().index()]
            )
        })?;
        Ok(order.into_iter().map(|i| tasks[i]).collect())
    }

    /// The tasks with the spools chosen so far, the tasks each must run
    /// after, and a join whose probe must still be spooled, if any.
    fn analyse(&self) -> (Vec<Task>, Vec<Vec<usize>>, Option<NodeId>) {
        let tasks = self.tasks();
        let reach: Vec<BTreeSet<(NodeId, usize)>> =
            tasks.iter().map(|t| self.reached_edges(*t)).collect();
        // Edge -> the tasks whose rows reach it (in task order).
        let mut reachers: BTreeMap<(NodeId, usize), Vec<usize>> = BTreeMap::new();
        for (a, r) in reach.iter().enumerate() {
            for &e in r {
                reachers.entry(e).or_default().push(a);
            }
        }
        let needs: Vec<Vec<usize>> = (0..tasks.len())
            .map(|b| self.needs(&tasks, &reach, &reachers, b))
            .collect();
        let cycle = self.join_on_cycle(&reachers, &needs);
        (tasks, needs, cycle)
    }

    /// Estimated bytes of the rows of a join's probe input that wait when
    /// the join is spooled: its rows times the width of their live columns.
    fn waiting_bytes(&self) -> impl Fn(NodeId) -> f64 + '_ {
        let rows = crate::plan::cost::estimate_rows(self.plan, self.plan.base_dir.as_deref());
        move |input: NodeId| rows[input.index()].unwrap_or(f64::INFINITY) * self.row_bytes(input)
    }

    /// Every pipeline source of the plan, in node order.
    fn tasks(&self) -> Vec<Task> {
        let mut tasks = Vec::new();
        for (i, node) in self.plan.nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            match &node.kind {
                NodeKind::Scan { .. } => tasks.push(Task::Scan(n)),
                NodeKind::Values { .. } => tasks.push(Task::Values(n)),
                NodeKind::Aggregate { .. } => tasks.push(Task::AggregateResults(n)),
                NodeKind::Sort { .. } | NodeKind::Over { .. } => tasks.push(Task::SortedRows(n)),
                NodeKind::Join { kind, .. } => {
                    if self.spooled.contains(&n) {
                        tasks.push(Task::SpoolReplay(n));
                    }
                    if matches!(kind, JoinKind::Right | JoinKind::Full) {
                        tasks.push(Task::UnmatchedBuildRows(n));
                    }
                    tasks.push(Task::PartitionedJoin(n));
                }
                _ => {}
            }
        }
        tasks
    }

    /// The tasks that must run before task `b`.
    fn needs(
        &self,
        tasks: &[Task],
        reach: &[BTreeSet<(NodeId, usize)>],
        reachers: &BTreeMap<(NodeId, usize), Vec<usize>>,
        b: usize,
    ) -> Vec<usize> {
        let plan = self.plan;
        // Breaker outputs need all their inputs; a replay needs its spool
        // filled and its join built.
        let own_inputs: Vec<(NodeId, usize)> = match tasks[b] {
            Task::AggregateResults(n) | Task::SortedRows(n) => vec![(n, 0)],
            Task::UnmatchedBuildRows(n) | Task::SpoolReplay(n) | Task::PartitionedJoin(n) => {
                vec![(n, 0), (n, 1)]
            }
            Task::Scan(_) | Task::Values(_) => Vec::new(),
        };
        // Probing a join needs its build side.
        let probes: Vec<(NodeId, usize)> = reach[b]
            .iter()
            .filter(|(n, k)| {
                *k == 0
                    && matches!(plan.node(*n).kind, NodeKind::Join { .. })
                    && !self.spooled.contains(n)
            })
            .map(|(n, _)| (*n, 1))
            .collect();
        let mut before: BTreeSet<usize> = own_inputs
            .iter()
            .chain(&probes)
            .filter_map(|e| reachers.get(e))
            .flatten()
            .copied()
            .filter(|&a| a != b)
            .collect();
        // Unmatched build rows are known once the replayed probe ran too.
        // So are a partitioned build's probe rows.
        if let Task::UnmatchedBuildRows(y) | Task::PartitionedJoin(y) = tasks[b] {
            before.extend((0..tasks.len()).filter(|&a| tasks[a] == Task::SpoolReplay(y)));
        }
        let mut before: Vec<usize> = before.into_iter().collect();
        if probes.iter().any(|e| reach[b].contains(e)) {
            before.push(b); // a task that builds and probes the same join
        }
        before
    }

    /// A join whose probe must be spooled: some task probing it depends,
    /// directly or through other tasks, on a task building it.
    ///
    /// The probers and builders of a join come from `reachers`, and the
    /// tasks that must run before a builder are walked only for builders
    /// (once each): the schedule calls this once per spooled join, so a
    /// chain of self-joins must not cost the square of its tasks each time.
    fn join_on_cycle(
        &self,
        reachers: &BTreeMap<(NodeId, usize), Vec<usize>>,
        needs: &[Vec<usize>],
    ) -> Option<NodeId> {
        // before[a]: every task that must run before a (transitively).
        let mut before: Vec<Option<BTreeSet<usize>>> = vec![None; needs.len()];
        let mut runs_before = |a: usize, p: usize| -> bool {
            before[a]
                .get_or_insert_with(|| {
                    let mut seen = BTreeSet::new();
                    let mut stack = needs[a].clone();
                    while let Some(t) = stack.pop() {
                        if seen.insert(t) {
                            stack.extend(needs[t].iter().copied());
                        }
                    }
                    seen
                })
                .contains(&p)
        };
        let waiting = self.waiting_bytes();
        // (bytes waiting, spooled above the cyclic join, join to spool)
        let mut cyclic = Vec::new();
        for (i, node) in self.plan.nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            let NodeKind::Join { left, .. } = node.kind else {
                continue;
            };
            if self.spooled.contains(&n) {
                continue;
            }
            let tasks_of = |k: usize| reachers.get(&(n, k)).map_or(&[][..], Vec::as_slice);
            let probers = tasks_of(0);
            let cycling: Vec<usize> = probers
                .iter()
                .copied()
                .filter(|&p| tasks_of(1).iter().any(|&a| p == a || runs_before(a, p)))
                .collect();
            if cycling.is_empty() {
                continue;
            }
            cyclic.push((waiting(left), false, n));
            // A join that every cycling prober's rows pass on their way to
            // this probe breaks the cycle as well when spooled: its probe
            // rows wait there instead, narrower ones (TPC-H q18 spools
            // lineitem's key and quantity before the join with orders and
            // customers, not the joined rows). Only above joins that keep
            // (about) every probe row: the estimates do not see a filtered
            // build side drop probe rows, and a filter above the spool
            // would be no help to the rows that wait.
            let mut m = left;
            loop {
                match &self.plan.node(m).kind {
                    NodeKind::Calc {
                        input,
                        filter: None,
                        ..
                    }
                    | NodeKind::Window { input, .. } => m = *input,
                    NodeKind::Join {
                        kind,
                        left: above,
                        right,
                        residual,
                        ..
                    } if !self.spooled.contains(&m)
                        && match kind {
                            JoinKind::Left | JoinKind::Full => true,
                            JoinKind::Inner => residual.is_none() && !self.filters_below(*right),
                            JoinKind::Right | JoinKind::Semi | JoinKind::Anti => false,
                        } =>
                    {
                        let reached = reachers.get(&(m, 0)).map_or(&[][..], Vec::as_slice);
                        if !cycling.iter().all(|p| reached.contains(p)) {
                            break;
                        }
                        cyclic.push((waiting(*above), true, m));
                        m = *above;
                    }
                    _ => break,
                }
            }
        }
        cyclic
            .into_iter()
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)))
            .map(|(_, _, n)| n)
    }

    /// Whether some node at or below `n` drops rows by a condition (a
    /// filter, a join residual, a semi or anti join).
    fn filters_below(&self, n: NodeId) -> bool {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            let kind = &self.plan.node(n).kind;
            let drops = match kind {
                NodeKind::Scan { filter, .. } | NodeKind::Calc { filter, .. } => filter.is_some(),
                NodeKind::Join { kind, residual, .. } => {
                    residual.is_some() || matches!(kind, JoinKind::Semi | JoinKind::Anti)
                }
                _ => false,
            };
            if drops {
                return true;
            }
            stack.extend(kind.inputs());
        }
        false
    }

    /// Estimated bytes of one stored row of `n`: its live columns' values
    /// (nullable, as the row structs hold them) and the row's own word.
    fn row_bytes(&self, n: NodeId) -> f64 {
        use crate::types::TypeKind;
        let schema = &self.plan.node(n).schema;
        let values: f64 = self
            .live_cols(n)
            .map(|c| match schema[c].ty.kind {
                TypeKind::Null => 0.0,
                TypeKind::Boolean
                | TypeKind::TinyInt
                | TypeKind::SmallInt
                | TypeKind::Int
                | TypeKind::Float
                | TypeKind::Date
                | TypeKind::Time(_)
                | TypeKind::IntervalYearMonth => 8.0,
                TypeKind::BigInt
                | TypeKind::Double
                | TypeKind::Timestamp(_)
                | TypeKind::TimestampLtz(_)
                | TypeKind::IntervalDayTime => 16.0,
                TypeKind::Char(_)
                | TypeKind::Varchar(_)
                | TypeKind::Binary(_)
                | TypeKind::Varbinary(_) => 24.0,
                TypeKind::Decimal { .. } => 32.0,
            })
            .sum();
        values + 8.0
    }

    /// The consumer edges a task's rows flow into, through streaming nodes.
    pub(super) fn reached_edges(&self, task: Task) -> BTreeSet<(NodeId, usize)> {
        let mut out = BTreeSet::new();
        let start = task.node();
        let mut stack = vec![start];
        let mut seen = BTreeSet::new();
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            for &(c, k) in &self.consumers[n.index()] {
                out.insert((c, k));
                let streams = match &self.plan.node(c).kind {
                    NodeKind::Calc { .. } | NodeKind::Union { .. } | NodeKind::Window { .. } => {
                        true
                    }
                    NodeKind::Join { .. } => k == 0 && !self.spooled.contains(&c),
                    _ => false,
                };
                if streams {
                    stack.push(c);
                }
            }
        }
        out
    }
}

/// An order in which every task comes after what it needs, or a task on a cycle.
fn topological(needs: &[Vec<usize>]) -> Result<Vec<usize>, usize> {
    fn visit(
        t: usize,
        needs: &[Vec<usize>],
        state: &mut Vec<u8>,
        order: &mut Vec<usize>,
    ) -> Result<(), usize> {
        match state[t] {
            2 => return Ok(()),
            1 => return Err(t),
            _ => {}
        }
        state[t] = 1;
        for &a in &needs[t] {
            visit(a, needs, state, order)?;
        }
        state[t] = 2;
        order.push(t);
        Ok(())
    }
    let mut order = Vec::new();
    let mut state = vec![0u8; needs.len()]; // 0 new, 1 visiting, 2 done
    for t in 0..needs.len() {
        visit(t, needs, &mut state, &mut order)?;
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    /// The types of the spools in the generated program of `sql`.
    fn spools(sql: &str) -> Vec<String> {
        let main = crate::plan::passes::test_support::generated_main(sql);
        let mut found: Vec<String> = main
            .match_indices("rt::ops::spool::Spool<")
            .map(|(i, _)| {
                let rest = &main[i + "rt::ops::spool::Spool<".len()..];
                rest[..rest.find('>').expect("closed")].to_string()
            })
            .collect();
        found.sort();
        found.dedup();
        found
    }

    #[test]
    fn the_narrow_rows_before_a_join_wait_not_the_joined_ones() {
        // TPC-H q18's shape: f is joined with d, then semi-joined with its
        // own aggregate, which is complete only after f's scan. The semi
        // join (#6) is on the cycle; the join with d before it (#2) keeps
        // every f row, so f's two columns wait there (R0, the scan's row)
        // instead of the joined rows with d's four strings (R3).
        let sql = "
            SET 'execution.runtime-mode' = 'batch';
            CREATE TABLE f (a BIGINT, q DOUBLE, pad STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '100000');
            CREATE TABLE d (id BIGINT, n1 STRING, n2 STRING, n3 STRING, n4 STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
            CREATE TABLE k (n1 STRING, n2 STRING, n3 STRING, n4 STRING, a BIGINT, q DOUBLE)
              WITH ('connector' = 'filesystem', 'path' = 'out/k', 'format' = 'csv');
            INSERT INTO k SELECT d.n1, d.n2, d.n3, d.n4, f.a, f.q FROM f JOIN d ON f.a = d.id
            WHERE f.a IN (SELECT a FROM f GROUP BY a HAVING SUM(q) > 10);";
        assert_eq!(spools(sql), vec!["R0".to_string()]);
    }

    /// The joins whose probe rows the program of `sql` spools.
    fn spooled_joins(sql: &str) -> Vec<String> {
        let main = crate::plan::passes::test_support::generated_main(sql);
        main.lines()
            .filter_map(|l| l.trim().strip_prefix("/// Probe rows of "))
            .filter(|l| l.ends_with(" waiting for its build side"))
            .map(|l| l.split(' ').next().expect("a node").to_string())
            .collect()
    }

    #[test]
    fn a_spool_that_later_spools_made_needless_is_dropped() {
        // o's scan builds the sides that l's rows probe in k2 (#9) and k4
        // (#14); l's scan builds the side o's rows probe in k1 (#4). Both
        // #9 and #14 close a cycle with #4. #9's waiting rows are the
        // fewest, so it is spooled first; the cycle through #14 remains,
        // and #4 (fewer bytes than #14) is spooled next, which breaks both
        // cycles: #9's spool is needless then, and dropped.
        let sql = "
            SET 'execution.runtime-mode' = 'batch';
            CREATE TABLE o (id BIGINT, x INT, y INT, w BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
            CREATE TABLE l (oid BIGINT, a INT, b INT, c INT, s1 STRING, s2 STRING, s3 STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '4000000');
            CREATE TABLE k1 (id BIGINT, w BIGINT) WITH ('connector' = 'blackhole');
            CREATE TABLE k2 (oid BIGINT) WITH ('connector' = 'blackhole');
            CREATE TABLE k4 (oid BIGINT, s1 STRING, s2 STRING, s3 STRING) WITH ('connector' = 'blackhole');
            INSERT INTO k1 SELECT o.id, o.w FROM o JOIN (SELECT * FROM l WHERE a = 1 AND c = 2) f ON o.id = f.oid;
            INSERT INTO k2 SELECT f.oid FROM (SELECT * FROM l WHERE a = 3 AND c = 4) f
              JOIN (SELECT * FROM o WHERE x = 1 AND y = 2) g ON f.oid = g.id;
            INSERT INTO k4 SELECT f.oid, f.s1, f.s2, f.s3 FROM (SELECT * FROM l WHERE b > 3) f
              JOIN (SELECT * FROM o WHERE x = 3 AND y = 4) g ON f.oid = g.id;";
        assert_eq!(spooled_joins(sql), vec!["#4".to_string()]);
    }
}
