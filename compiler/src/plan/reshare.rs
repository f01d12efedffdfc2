//! Cost-based resharing: twins that are cheaper computed once.
//!
//! `normalize` places each INSERT's filters below its own joins, so two
//! INSERTs that join the same tables but filter them differently get one
//! join each over the shared scans ("twins", see `sharing.rs`). That is the
//! right default when the filters are selective: each join builds and
//! probes only the rows its INSERT wants. It is the wrong one when they are
//! not (or when the twins differ only in the columns they carry): then one
//! join over the rows of either, with each INSERT's own filters above it,
//! does less work and holds one hash table instead of several.
//!
//! For each join, `lift` computes its *unfiltered* form: the same join tree
//! over the same leaves with every filter and projection between them moved
//! above it (`join ≡ project(P) ∘ filter(F) ∘ base`). Joins whose bases are
//! the same node are twins. For each group of twins the rewrite builds
//!
//! ```text
//! Calc(F1 \ C, P1)   Calc(F2 \ C, P2)   ...
//!          \              /
//!           Calc(C) over base            C = the conjuncts every Fi has
//! ```
//!
//! re-optimizes (so `C` goes down into the base join and pruning narrows it
//! to the columns some INSERT reads) and keeps the result only when the
//! estimated cost of the whole plan is lower (`plan_cost`). Without row
//! estimates (a source of unknown size) nothing changes. Filters are lifted
//! only across the sides of a join where that keeps the result (both sides
//! of an inner join; the preserved side of an outer, semi or anti join),
//! and never with a nondeterministic expression.

use std::collections::{HashMap, HashSet};

use crate::ir::{Expr, ExprKind, Field, JoinKind};
use crate::types::TypeKind;

use super::cost::estimate_rows;
use super::rewrite::{and_all, column, conjuncts, remap, substitute};
use super::{is_deterministic, NodeId, NodeKind, Plan};

/// Each round lifts every join again (ids change when a rewrite is taken),
/// so the number of rounds is bounded.
const MAX_ROUNDS: usize = 8;
/// Groups with more twins than this are not tried.
const MAX_TWINS: usize = 32;

/// The optimizers `reshare` uses: `estimate` runs the rewrites that change
/// row counts (pushdown, Calc merging) on every candidate; `full` is the
/// whole fixpoint, run on what is taken.
pub(crate) struct Optimizers<'a> {
    pub estimate: &'a (dyn Fn(Plan) -> Plan + Sync),
    pub full: &'a (dyn Fn(Plan) -> Plan + Sync),
}

/// Shares twins wherever that lowers the estimated cost. Each round
/// estimates every group alone against the plan as it is, then takes all
/// the groups that gain together (or, if together they gain less, the best
/// one alone), until no group gains.
pub(crate) fn reshare(mut plan: Plan, opt: &Optimizers<'_>) -> Plan {
    // Groups found not to gain, by where their twins were written: a later
    // round (after other groups were shared) does not try them again.
    let mut rejected: HashSet<Vec<Vec<crate::diagnostics::Span>>> = HashSet::new();
    for _ in 0..MAX_ROUNDS {
        let Some(current) = plan_cost(&plan) else {
            return plan;
        };
        let (lifted, groups) = twin_groups(&plan);
        let signatures: Vec<Vec<Vec<crate::diagnostics::Span>>> = groups
            .iter()
            .map(|group| {
                group
                    .iter()
                    .map(|t| lifted.node(t.join).provenance.clone())
                    .collect()
            })
            .collect();
        // Each group's cost alone (the groups are independent), then the
        // verdicts in order.
        let tried: Vec<usize> = (0..groups.len())
            .filter(|&i| !rejected.contains(&signatures[i]))
            .collect();
        let costs = crate::parallel_map(&tried, |&i| {
            merge(&lifted, &[&groups[i]]).and_then(|m| plan_cost(&(opt.estimate)(m)))
        });
        let mut gains: Vec<(f64, usize)> = Vec::new();
        for (&i, cost) in tried.iter().zip(costs) {
            if rejected.contains(&signatures[i]) {
                continue;
            }
            match cost.filter(|&c| c < current * (1.0 - 1e-9)) {
                Some(cost) => gains.push((current - cost, i)),
                None => {
                    rejected.insert(signatures[i].clone());
                }
            }
        }
        if gains.is_empty() {
            return plan;
        }
        gains.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // The best group alone and all that gain together, side by side.
        let mut choices: Vec<Vec<&[Twin]>> = vec![vec![&groups[gains[0].1][..]]];
        if gains.len() > 1 {
            choices.push(gains.iter().map(|&(_, i)| &groups[i][..]).collect());
        }
        let mut plans =
            crate::parallel_map(&choices, |chosen| merge(&lifted, chosen).map(opt.full))
                .into_iter();
        let best = plans.next().flatten();
        let all = plans.next().flatten();
        let cost = |p: &Option<Plan>| p.as_ref().and_then(plan_cost).unwrap_or(f64::INFINITY);
        let (all_cost, best_cost) = (cost(&all), cost(&best));
        let (next, next_cost) = if all_cost <= best_cost {
            (all, all_cost)
        } else {
            (best, best_cost)
        };
        match next {
            Some(next) if next_cost < current * (1.0 - 1e-9) => plan = next,
            _ => return plan,
        }
    }
    plan
}

/// For `explain`: the groups of twins that stay apart, each with the
/// estimated cost of the plan as it is and with the group shared.
pub(crate) fn twin_costs(
    plan: &Plan,
    estimate: &(dyn Fn(Plan) -> Plan + Sync),
) -> Vec<(Vec<NodeId>, f64, f64)> {
    let Some(current) = plan_cost(plan) else {
        return Vec::new();
    };
    let (lifted, groups) = twin_groups(plan);
    let costs = crate::parallel_map(&groups, |group| {
        merge(&lifted, &[group]).and_then(|merged| plan_cost(&estimate(merged)))
    });
    groups
        .iter()
        .zip(costs)
        .filter_map(|(group, cost)| Some((group.iter().map(|t| t.join).collect(), current, cost?)))
        .collect()
}

/// A join as `project(proj) ∘ filter(filter) ∘ base`.
#[derive(Clone)]
struct Lifted {
    base: NodeId,
    /// Conjuncts over `base`'s output.
    filter: Vec<Expr>,
    /// The node's output columns over `base`'s output.
    proj: Vec<Expr>,
}

/// One twin: the join and its lifted form.
#[derive(Clone)]
struct Twin {
    join: NodeId,
    lifted: Lifted,
}

/// The plan with every join's base interned (unreachable until a merge
/// uses them), and the groups of twins, biggest subtree first.
fn twin_groups(plan: &Plan) -> (Plan, Vec<Vec<Twin>>) {
    let mut work = plan.clone();
    let original = plan.nodes.len();
    let mut memo: HashMap<NodeId, Lifted> = HashMap::new();
    let mut by_base: HashMap<NodeId, Vec<Twin>> = HashMap::new();
    for i in 0..original {
        let id = NodeId(i as u32);
        if !matches!(plan.node(id).kind, NodeKind::Join { .. }) {
            continue;
        }
        let lifted = lift(&mut work, id, &mut memo);
        // A join that is its own base (nothing to lift) is a twin too:
        // the unfiltered one.
        by_base
            .entry(lifted.base)
            .or_default()
            .push(Twin { join: id, lifted });
    }
    let mut groups: Vec<Vec<Twin>> = by_base
        .into_values()
        .filter(|g| g.len() > 1 && g.len() <= MAX_TWINS)
        .collect();
    let size = |g: &Vec<Twin>| subtree_size(&work, g[0].lifted.base);
    groups.sort_by_key(|g| (std::cmp::Reverse(size(g)), g[0].join));
    (work, groups)
}

/// The number of distinct nodes `id` is computed from, itself included
/// (each shared input once, so a DAG of self-joins stays linear).
fn subtree_size(plan: &Plan, id: NodeId) -> usize {
    let mut seen = HashSet::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(plan.node(n).kind.inputs());
        }
    }
    seen.len()
}

/// The node as it is: its own base, no filter, every column.
fn leaf(plan: &Plan, id: NodeId) -> Lifted {
    Lifted {
        base: id,
        filter: Vec::new(),
        proj: identity(&plan.node(id).schema),
    }
}

fn identity(schema: &[Field]) -> Vec<Expr> {
    schema
        .iter()
        .enumerate()
        .map(|(i, f)| column(i, f.ty))
        .collect()
}

fn lift(plan: &mut Plan, id: NodeId, memo: &mut HashMap<NodeId, Lifted>) -> Lifted {
    if let Some(l) = memo.get(&id) {
        return l.clone();
    }
    let node = plan.node(id).clone();
    let lifted = match &node.kind {
        NodeKind::Calc {
            input,
            projections,
            filter,
        } if projections.iter().chain(filter).all(is_deterministic) => {
            let below = lift(plan, *input, memo);
            let mut conj = below.filter.clone();
            if let Some(f) = filter {
                conj.extend(conjuncts(substitute(f.clone(), &below.proj)));
            }
            Lifted {
                base: below.base,
                filter: conj,
                proj: projections
                    .iter()
                    .map(|p| substitute(p.clone(), &below.proj))
                    .collect(),
            }
        }
        NodeKind::Join {
            kind,
            left,
            right,
            left_keys,
            right_keys,
            residual,
        } if residual.iter().all(is_deterministic) => {
            let (lift_left, lift_right) = match kind {
                JoinKind::Inner => (true, true),
                JoinKind::Left | JoinKind::Semi | JoinKind::Anti => (true, false),
                JoinKind::Right => (false, true),
                JoinKind::Full => (false, false),
            };
            let mut side = |plan: &mut Plan, input: NodeId, keys: &[usize], lifted: bool| {
                let mut l = if lifted {
                    lift(plan, input, memo)
                } else {
                    leaf(plan, input)
                };
                // Keys must be columns of the base: a computed key (a cast
                // to the other side's type) becomes a column of a Calc over it.
                let mut extra: Vec<Expr> = Vec::new();
                let width = plan.node(l.base).schema.len();
                let keys: Vec<usize> = keys
                    .iter()
                    .map(|&k| match l.proj[k].kind {
                        ExprKind::Column(c) => c,
                        _ => {
                            extra.push(l.proj[k].clone());
                            width + extra.len() - 1
                        }
                    })
                    .collect();
                if !extra.is_empty() {
                    let mut schema = plan.node(l.base).schema.to_vec();
                    let mut projections = identity(&schema);
                    for (j, e) in extra.iter().enumerate() {
                        schema.push(Field {
                            name: format!("$key{j}"),
                            ty: e.ty,
                        });
                    }
                    projections.extend(extra);
                    l.base = plan.intern(
                        NodeKind::Calc {
                            input: l.base,
                            projections,
                            filter: None,
                        },
                        schema,
                        &[],
                    );
                }
                (l, keys)
            };
            let (l, lk) = side(plan, *left, left_keys, lift_left);
            let (r, rk) = side(plan, *right, right_keys, lift_right);
            // An inner join is the same join with its sides swapped (the
            // join order builds the side it estimates smaller, and equal
            // estimates keep the written order): twins must meet whichever
            // side each INSERT built, so the base is oriented by its
            // unfiltered sides alone: the larger one probes (left), the
            // smaller one is built, the lower node left on a tie.
            if *kind == JoinKind::Inner && probes_first(plan, r.base, l.base) {
                return swapped(plan, id, memo, &node, (r, rk), (l, lk));
            }
            let (ln, rn) = match kind {
                JoinKind::Inner | JoinKind::Semi | JoinKind::Anti => (false, false),
                JoinKind::Left => (false, true),
                JoinKind::Right => (true, false),
                JoinKind::Full => (true, true),
            };
            let mut schema: Vec<Field> = plan.node(l.base).schema.to_vec();
            let la = schema.len();
            for f in &mut schema {
                f.ty.nullable |= ln;
            }
            let mut right_schema = plan.node(r.base).schema.to_vec();
            for f in &mut right_schema {
                f.ty.nullable |= rn;
            }
            // Over the concatenated base rows: both sides' projections.
            let mut both: Vec<Expr> = l.proj.clone();
            both.extend(r.proj.iter().map(|e| shift(e.clone(), la)));
            let residual = residual.clone().map(|e| substitute(e, &both));
            let mut filter = l.filter.clone();
            filter.extend(r.filter.iter().map(|e| shift(e.clone(), la)));
            let outputs_right = kind.outputs_right();
            if outputs_right {
                schema.extend(right_schema);
            }
            // Outer sides are leaves, so their columns are the base's own
            // (with the join's nullability).
            let proj: Vec<Expr> = if outputs_right {
                let mut p: Vec<Expr> = retype(l.proj, &schema, !lift_left);
                p.extend(retype(
                    r.proj.iter().map(|e| shift(e.clone(), la)).collect(),
                    &schema,
                    !lift_right,
                ));
                p
            } else {
                l.proj
            };
            let base = plan.intern(
                NodeKind::Join {
                    kind: *kind,
                    left: l.base,
                    right: r.base,
                    left_keys: lk,
                    right_keys: rk,
                    residual,
                },
                schema,
                &node.provenance,
            );
            Lifted { base, filter, proj }
        }
        _ => leaf(plan, id),
    };
    memo.insert(id, lifted.clone());
    lifted
}

/// Whether base `a` belongs on the probe (left) side of a join with `b`:
/// more estimated rows, or as many (or unknown) and a lower node.
fn probes_first(plan: &Plan, a: NodeId, b: NodeId) -> bool {
    let rows = estimate_rows(plan, plan.base_dir.as_deref());
    match (rows[a.index()], rows[b.index()]) {
        (Some(x), Some(y)) if x != y => x > y,
        _ => a < b,
    }
}

/// The lifted form of inner join `node` whose sides `l` and `r` (lifted,
/// with their keys as base columns) are swapped in the base: the base is
/// `r ⋈ l`, and the projection puts `node`'s own columns (left then right)
/// back in place.
fn swapped(
    plan: &mut Plan,
    id: NodeId,
    memo: &mut HashMap<NodeId, Lifted>,
    node: &super::Node,
    (r, rk): (Lifted, Vec<usize>),
    (l, lk): (Lifted, Vec<usize>),
) -> Lifted {
    let NodeKind::Join { residual, .. } = &node.kind else {
        unreachable!("swapped() is called for joins only")
    };
    let mut schema: Vec<Field> = plan.node(r.base).schema.to_vec();
    let ra = schema.len();
    schema.extend(plan.node(l.base).schema.iter().cloned());
    let mut proj: Vec<Expr> = l.proj.iter().map(|e| shift(e.clone(), ra)).collect();
    proj.extend(r.proj);
    let residual = residual.clone().map(|e| substitute(e, &proj));
    let mut filter = r.filter;
    filter.extend(l.filter.into_iter().map(|e| shift(e, ra)));
    let base = plan.intern(
        NodeKind::Join {
            kind: JoinKind::Inner,
            left: r.base,
            right: l.base,
            left_keys: rk,
            right_keys: lk,
            residual,
        },
        schema,
        &node.provenance,
    );
    let lifted = Lifted { base, filter, proj };
    memo.insert(id, lifted.clone());
    lifted
}

/// Column references of a leaf side take the base join's types (an outer
/// join makes the padded side nullable); `schema` is the whole base row.
fn retype(proj: Vec<Expr>, schema: &[Field], leaf: bool) -> Vec<Expr> {
    if !leaf {
        return proj;
    }
    proj.into_iter()
        .map(|mut e| {
            if let ExprKind::Column(c) = e.kind {
                e.ty = schema[c].ty;
            }
            e
        })
        .collect()
}

fn shift(e: Expr, by: usize) -> Expr {
    remap(e, &|c| c + by)
}

/// The plan with each group shared over its base, or `None` when the
/// types of a twin's lifted form do not match its own.
fn merge(lifted: &Plan, groups: &[&[Twin]]) -> Option<Plan> {
    let mut work = lifted.clone();
    let mut replace: HashMap<NodeId, NodeId> = HashMap::new();
    for group in groups {
        share(&mut work, group, &mut replace)?;
    }
    Some(redirect(work, &replace))
}

/// Adds the shared form of one group to `work`: the base, a Calc with the
/// conjuncts every twin has, and per twin a Calc with the rest of its
/// filter and its projection, which replaces it.
fn share(work: &mut Plan, group: &[Twin], replace: &mut HashMap<NodeId, NodeId>) -> Option<()> {
    let base = group[0].lifted.base;
    for t in group {
        let schema = &work.node(t.join).schema;
        if t.lifted.proj.len() != schema.len()
            || t.lifted
                .proj
                .iter()
                .zip(schema.iter())
                .any(|(e, f)| e.ty != f.ty)
        {
            return None;
        }
    }
    let strip = |e: &Expr| crate::ir::strip_spans(e.clone());
    let mut common: Vec<Expr> = Vec::new();
    for c in &group[0].lifted.filter {
        let s = strip(c);
        if !common.iter().any(|x| strip(x) == s)
            && group[1..]
                .iter()
                .all(|t| t.lifted.filter.iter().any(|x| strip(x) == s))
        {
            common.push(c.clone());
        }
    }
    let base_schema = work.node(base).schema.clone();
    let shared = match and_all(common.clone()) {
        Some(f) => work.intern(
            NodeKind::Calc {
                input: base,
                projections: identity(&base_schema),
                filter: Some(f),
            },
            base_schema,
            &[],
        ),
        None => base,
    };
    for t in group.iter().filter(|t| t.join != base) {
        let own: Vec<Expr> = t
            .lifted
            .filter
            .iter()
            .filter(|x| !common.iter().any(|c| strip(c) == strip(x)))
            .cloned()
            .collect();
        let node = work.node(t.join).clone();
        let calc = work.intern(
            NodeKind::Calc {
                input: shared,
                projections: t.lifted.proj.clone(),
                filter: and_all(own),
            },
            node.schema,
            &node.provenance,
        );
        replace.insert(t.join, calc);
    }
    Some(())
}

/// Every edge into a key of `replace` goes to its value instead; then the
/// plan is rebuilt in dependency order (replacements have higher ids than
/// the nodes they replace, so a plain in-order rebuild cannot do it).
fn redirect(plan: Plan, replace: &HashMap<NodeId, NodeId>) -> Plan {
    let target = |id: NodeId| *replace.get(&id).unwrap_or(&id);
    let mut new = Plan::sharing(
        std::sync::Arc::clone(&plan.job),
        plan.base_dir.clone(),
        std::sync::Arc::clone(&plan.source_rows),
    );
    new.next_salt = plan.next_salt;
    let mut map: Vec<Option<NodeId>> = vec![None; plan.nodes.len()];
    fn copy(
        plan: &Plan,
        new: &mut Plan,
        id: NodeId,
        map: &mut Vec<Option<NodeId>>,
        target: &dyn Fn(NodeId) -> NodeId,
    ) -> NodeId {
        if let Some(done) = map[id.index()] {
            return done;
        }
        let mut node = plan.node(id).clone();
        for input in node.kind.inputs_mut() {
            *input = copy(plan, new, target(*input), map, target);
        }
        let out = super::keep(new, node);
        map[id.index()] = Some(out);
        out
    }
    new.sinks = plan
        .sinks
        .iter()
        .map(|&s| copy(&plan, &mut new, s, &mut map, &target))
        .collect();
    new.compact();
    new
}

/// Estimated work of the whole plan, in row-operations: a join builds its
/// right input (hashing and storing each row costs about twice a probe),
/// probes with its left one and builds its output rows; a Calc evaluates
/// its condition per input row and builds its output rows; an aggregate
/// updates a group per input row; a sort or OVER window buffers and
/// compares its input. Building a row costs a tenth per column, three
/// tenths per string column (strings are copied). Scans and sinks are the
/// same whatever is shared, so they count nothing. `None` when a source's
/// size is unknown.
pub(crate) fn plan_cost(plan: &Plan) -> Option<f64> {
    let rows = join_aware_rows(plan)?;
    let mut total = 0.0;
    for (i, node) in plan.nodes.iter().enumerate() {
        let input = |k: usize| rows[node.kind.inputs()[k].index()].0;
        let build = || rows[i].0 * row_width(&node.schema);
        total += match &node.kind {
            NodeKind::Scan { .. } | NodeKind::Values { .. } | NodeKind::Sink { .. } => 0.0,
            NodeKind::Calc { .. } => 0.25 * input(0) + build(),
            NodeKind::Join { .. } => 2.0 * input(1) + input(0) + build(),
            NodeKind::Aggregate { .. } => input(0),
            NodeKind::Union { .. } => 0.0,
            NodeKind::Sort { .. } | NodeKind::Over { .. } => 2.0 * input(0),
            NodeKind::Window { .. } => rows[i].0,
        };
    }
    Some(total)
}

/// What building one row of this schema costs, in probes.
fn row_width(schema: &[Field]) -> f64 {
    schema
        .iter()
        .map(|f| match f.ty.kind {
            TypeKind::Char(_)
            | TypeKind::Varchar(_)
            | TypeKind::Binary(_)
            | TypeKind::Varbinary(_) => 0.3,
            _ => 0.1,
        })
        .sum()
}

/// Rows of every node with the fraction of its unfiltered rows they are:
/// `cost::estimate_rows`, except that a keyed join keeps the fractions its
/// inputs' filters kept (independence, as Calcite assumes), so that a join
/// with a filtered dimension table outputs fewer rows than its fact side.
/// `estimate_rows` takes the larger input instead, which is what `explain`
/// shows and the scheduler uses; for comparing plans the difference counts.
pub(crate) fn join_aware_rows(plan: &Plan) -> Option<Vec<(f64, f64)>> {
    let plain = estimate_rows(plan, plan.base_dir.as_deref());
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(plan.nodes.len());
    for (i, node) in plan.nodes.iter().enumerate() {
        let inputs = node.kind.inputs();
        let input = |k: usize| out[inputs[k].index()];
        let fraction = |(rows, frac): (f64, f64)| (rows, frac.clamp(1e-9, 1.0));
        let estimate = match &node.kind {
            NodeKind::Scan { filter, .. } => {
                let sel = filter.as_ref().map_or(1.0, super::cost::selectivity);
                (plain[i]?, sel)
            }
            NodeKind::Calc { filter, .. } => {
                let sel = filter.as_ref().map_or(1.0, super::cost::selectivity);
                let (r, f) = input(0);
                (r * sel, f * sel)
            }
            NodeKind::Join {
                kind,
                left_keys,
                residual,
                ..
            } => {
                let ((l, fl), (r, fr)) = (input(0), input(1));
                let sel = residual.as_ref().map_or(1.0, super::cost::selectivity);
                let joined = if left_keys.is_empty() {
                    l * r
                } else {
                    (l / fl).max(r / fr) * fl * fr
                } * sel;
                match kind {
                    JoinKind::Inner => (joined, fl * fr * sel),
                    JoinKind::Left => (joined.max(l), fl),
                    JoinKind::Right => (joined.max(r), fr),
                    JoinKind::Full => (joined.max(l + r), 1.0),
                    JoinKind::Semi | JoinKind::Anti => (l * 0.5, fl * 0.5),
                }
            }
            NodeKind::Sink { .. } => input(0),
            NodeKind::Sort { limit, offset, .. } => {
                let (r, f) = input(0);
                let r = (r - offset.unwrap_or(0) as f64).max(0.0);
                (limit.map_or(r, |l| r.min(l as f64)), f)
            }
            // Window TVFs multiply rows by the windows per row.
            NodeKind::Window { input: from, .. } => {
                let (r, f) = input(0);
                (r * plain[i]? / plain[from.index()]?.max(1.0), f)
            }
            _ => (plain[i]?, 1.0),
        };
        out.push(fraction(estimate));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::optimized_text;

    fn job(o_rows: u64, u_rows: u64, first: &str, second: &str) -> String {
        format!(
            "CREATE TABLE o (k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '{o_rows}');
             CREATE TABLE u (id INT, city STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '{u_rows}');
             CREATE TABLE a (x INT, city STRING) WITH ('connector' = 'blackhole');
             CREATE TABLE b (x INT, city STRING) WITH ('connector' = 'blackhole');
             INSERT INTO a SELECT o.x, u.city FROM o JOIN u ON o.k = u.id WHERE {first};
             INSERT INTO b SELECT o.x, u.city FROM o JOIN u ON o.k = u.id WHERE {second};"
        )
    }

    /// Joins computed (not reused) in the plan text.
    fn joins(plan: &str) -> usize {
        plan.lines()
            .filter(|l| l.contains("Join #") && !l.contains("(reused"))
            .count()
    }

    #[test]
    fn twins_with_weak_filters_share_one_join_and_filter_above_it() {
        // Both sides big, filters keeping about half the rows each: one join
        // over all rows costs less than two over half of them.
        let plan = optimized_text(&job(1_000_000, 1_000_000, "o.x > 0", "o.x < 100"));
        assert_eq!(joins(&plan), 1, "{plan}");
        assert!(plan.contains("shared=[a, b]"), "{plan}");
        assert!(
            plan.contains("where=[(x > 0)]") && plan.contains("where=[(x < 100)]"),
            "{plan}"
        );
    }

    #[test]
    fn twins_that_build_opposite_sides_share_one_join() {
        // The first INSERT's filter makes `o` the smaller side (built), the
        // second's makes `u` smaller: the same join with its sides swapped.
        let plan = optimized_text(&job(1_000_000, 1_000_000, "o.x > 0", "u.city <> 'x'"));
        assert_eq!(joins(&plan), 1, "{plan}");
        assert!(plan.contains("shared=[a, b]"), "{plan}");
        // The shared join builds the side with fewer rows (here `o`).
        let plan = optimized_text(&job(1_000_000, 2_000_000, "o.x > 0", "u.city <> 'x'"));
        assert_eq!(joins(&plan), 1, "{plan}");
        let join = &plan[plan.find("Join #").expect("a join")..];
        let (u, o) = (join.find(" u [datagen]"), join.find(" o [datagen]"));
        assert!(u.is_some() && o.is_some() && u < o, "{plan}");
    }

    #[test]
    fn twins_with_selective_filters_on_the_probe_side_stay_apart_and_say_why() {
        let plan = optimized_text(&job(1_000_000, 10, "o.x = 1", "o.x = 2"));
        assert_eq!(joins(&plan), 2, "{plan}");
        assert!(plan.contains("not shared: filters differ"), "{plan}");
        assert!(plan.contains("apart by cost (sharing adds est. "), "{plan}");
    }

    #[test]
    fn conjuncts_every_twin_has_stay_below_the_shared_join() {
        let plan = optimized_text(&job(
            1_000_000,
            1_000_000,
            "o.x > 0 AND u.city <> 'x'",
            "o.x < 100 AND u.city <> 'x'",
        ));
        assert_eq!(joins(&plan), 1, "{plan}");
        // The common filter is applied to u's rows before the join is built.
        let join = plan.find("Join #").expect("a join");
        let below = &plan[join..];
        assert!(below.contains("where=[(city <> 'x')]"), "{plan}");
        assert!(!plan[..join].contains("city <> 'x'"), "{plan}");
    }

    #[test]
    fn without_row_estimates_twins_stay_apart() {
        let sql = "CREATE TABLE o (k INT, x INT) WITH ('connector' = 'filesystem', 'path' = 'nowhere/o.csv', 'format' = 'csv');
             CREATE TABLE u (id INT, city STRING) WITH ('connector' = 'filesystem', 'path' = 'nowhere/u.csv', 'format' = 'csv');
             CREATE TABLE a (x INT, city STRING) WITH ('connector' = 'blackhole');
             CREATE TABLE b (x INT, city STRING) WITH ('connector' = 'blackhole');
             INSERT INTO a SELECT o.x, u.city FROM o JOIN u ON o.k = u.id WHERE o.x > 0;
             INSERT INTO b SELECT o.x, u.city FROM o JOIN u ON o.k = u.id WHERE o.x < 100;";
        let plan = optimized_text(sql);
        assert_eq!(joins(&plan), 2, "{plan}");
    }

    #[test]
    fn an_outer_join_lifts_only_its_preserved_side() {
        // A filter on the padded side of a LEFT JOIN cannot move above it:
        // these two are not twins of one base.
        let sql = "CREATE TABLE o (k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
             CREATE TABLE u (id INT, city STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
             CREATE TABLE a (x INT, city STRING) WITH ('connector' = 'blackhole');
             CREATE TABLE b (x INT, city STRING) WITH ('connector' = 'blackhole');
             INSERT INTO a SELECT o.x, v.city FROM o LEFT JOIN (SELECT * FROM u WHERE city <> 'p') v ON o.k = v.id;
             INSERT INTO b SELECT o.x, v.city FROM o LEFT JOIN (SELECT * FROM u WHERE city <> 'q') v ON o.k = v.id;";
        let plan = optimized_text(sql);
        assert_eq!(joins(&plan), 2, "{plan}");
        // Filters on the preserved side do move.
        let sql = sql
            .replace("(SELECT * FROM u WHERE city <> 'p') v", "u v")
            .replace("(SELECT * FROM u WHERE city <> 'q') v", "u v")
            .replace(
                "ON o.k = v.id;\n             INSERT INTO b",
                "ON o.k = v.id WHERE o.x > 0;\n             INSERT INTO b",
            )
            .replace("ON o.k = v.id;", "ON o.k = v.id WHERE o.x < 100;");
        let plan = optimized_text(&sql);
        assert_eq!(joins(&plan), 1, "{plan}");
    }
}
