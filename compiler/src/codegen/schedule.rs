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
//! cycle, the one whose probe input is estimated smallest (the rows that
//! wait), the first in plan order among equals.
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
        loop {
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
            if let Some(join) = self.join_on_cycle(&reachers, &needs) {
                self.spooled.insert(join);
                continue;
            }
            let order = topological(&needs).map_err(|cyclic| {
                format!(
                    "internal: no pipeline order exists around {}",
                    self.descriptions[tasks[cyclic].node().index()]
                )
            })?;
            return Ok(order.into_iter().map(|i| tasks[i]).collect());
        }
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
        let rows = crate::plan::cost::estimate_rows(self.plan, self.plan.base_dir.as_deref());
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
            let on_cycle = tasks_of(1)
                .iter()
                .any(|&a| probers.iter().any(|&p| p == a || runs_before(a, p)));
            if on_cycle {
                cyclic.push((rows[left.index()].unwrap_or(f64::INFINITY), n));
            }
        }
        cyclic
            .into_iter()
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, n)| n)
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
