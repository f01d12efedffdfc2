//! Join order for a group of inner (and comma) joins.
//!
//! The group is flattened into its inputs (the leaves: anything that is not
//! an inner join) and the conjuncts of every ON and WHERE over it. A
//! conjunct on one leaf goes down to that leaf; the others are join
//! conditions (an OR among them whose every branch constrains one leaf also
//! filters that leaf: `implied_filters`). Leaves are then joined greedily (Fegaras' greedy operator
//! ordering): at each step the pair of partial results that an equi-join
//! condition connects and whose join is estimated smallest, so a cross
//! product is only built when nothing connects the remaining parts. The
//! smaller side of each join is its build side (the right input). A
//! projection restores the group's column order on top.
//!
//! Estimates come from `cost::RelEstimator`: rows per source, the
//! selectivity of the pushed filters, and key uniqueness (a PRIMARY KEY, the
//! keys of a GROUP BY): a join on a unique key of one side keeps at most the
//! other side's rows. Groups larger than `MAX_REORDERED` keep the written
//! order, with each condition placed on the lowest join that sees it.

use std::collections::{BTreeMap, BTreeSet};

use super::cost::RelEstimator;
use super::is_deterministic;
use super::normalize::{filter_over, push};
use super::rewrite::{
    and_all, columns, conjuncts, disjuncts, or_all, pull_factors, remap, true_literal,
};
use crate::ir::{BinaryOp, Expr, ExprKind, Field, JoinKind, Rel, RelKind};

/// Groups with more leaves than this are not reordered (greedy ordering is
/// cubic in the number of leaves).
const MAX_REORDERED: usize = 16;

struct Leaf {
    rel: Rel,
    /// First column of the leaf in the group's output.
    offset: usize,
    preds: Vec<Expr>,
}

/// A partial result: joined leaves.
struct Part {
    rel: Rel,
    /// Group column of each output column.
    layout: Vec<usize>,
    /// The same columns, for membership tests.
    cols: BTreeSet<usize>,
    rows: f64,
    /// Selectivity of the filters inside (for joins on a unique key).
    selectivity: f64,
    /// Sets of group columns that are unique in this part.
    unique: Vec<BTreeSet<usize>>,
    /// An upper bound of the distinct values of each group column: a
    /// leaf's rows, lowered to the other side's bound by each equi-join on
    /// the column (`s_nationkey` joined with the 25 rows of nation has at
    /// most 25 values, however many rows the part has).
    distinct: BTreeMap<usize, f64>,
}

/// Orders the inner-join group rooted at `join` (an inner join whose own
/// condition is TRUE), applying `preds` (conjuncts over its output).
pub(super) fn inner_joins(join: Rel, preds: Vec<Expr>, est: &RelEstimator<'_>) -> Rel {
    let schema = join.schema.clone();
    let span = join.span;
    let mut leaves = Vec::new();
    let mut conditions = Vec::new();
    flatten(join, 0, &mut leaves, &mut conditions);
    conditions.extend(preds);
    let conditions: Vec<Expr> = conditions.into_iter().flat_map(pull_factors).collect();
    let leaf_of = |c: usize| {
        leaves
            .iter()
            .rposition(|l: &Leaf| l.offset <= c)
            .unwrap_or(0)
    };
    // Conjuncts on one leaf go down; constants and nondeterministic ones stay on top.
    let mut top = Vec::new();
    let mut joining: Vec<(Expr, BTreeSet<usize>)> = Vec::new();
    let mut down: Vec<(usize, Expr)> = Vec::new();
    for c in conditions {
        let cols = columns(&c);
        let used: BTreeSet<usize> = cols.iter().map(|&i| leaf_of(i)).collect();
        if !is_deterministic(&c) || used.is_empty() {
            top.push(c);
        } else if used.len() == 1 {
            let leaf = *used.iter().next().expect("one leaf");
            down.push((leaf, c));
        } else {
            joining.push((c, cols));
        }
    }
    for (c, _) in &joining {
        down.extend(implied_filters(c, &leaf_of));
    }
    for (leaf, c) in down {
        let offset = leaves[leaf].offset;
        leaves[leaf].preds.push(remap(c, &|i| i - offset));
    }
    let mut parts: Vec<Part> = leaves
        .into_iter()
        .map(|leaf| {
            let width = leaf.rel.schema.len();
            let unfiltered = est.rows(&leaf.rel);
            let unique_local = est.unique_keys(&leaf.rel);
            let rel = push(leaf.rel, leaf.preds, est);
            let rows = est.rows(&rel);
            Part {
                layout: (leaf.offset..leaf.offset + width).collect(),
                cols: (leaf.offset..leaf.offset + width).collect(),
                selectivity: if unfiltered > 0.0 {
                    (rows / unfiltered).min(1.0)
                } else {
                    1.0
                },
                unique: unique_local
                    .into_iter()
                    .map(|k| k.into_iter().map(|c| c + leaf.offset).collect())
                    .collect(),
                distinct: (leaf.offset..leaf.offset + width)
                    .map(|c| (c, rows))
                    .collect(),
                rel,
                rows,
            }
        })
        .collect();
    let reorder = parts.len() <= MAX_REORDERED;
    while parts.len() > 1 {
        let (i, j) = if reorder {
            best_pair(&parts, &joining)
        } else {
            (0, 1)
        };
        let b = parts.remove(j);
        let a = parts.remove(i);
        let merged = join_parts(a, b, &mut joining, span, !reorder);
        parts.insert(i, merged);
    }
    let part = parts.pop().expect("a join group has leaves");
    // Conditions the written order never saw whole (none when reordered).
    let rest: Vec<Expr> = joining.into_iter().map(|(c, _)| c).collect();
    let mut rel = part.rel;
    let identity = part.layout.iter().enumerate().all(|(i, &g)| i == g);
    if !identity {
        let mut at = vec![0; schema.len()];
        for (i, &g) in part.layout.iter().enumerate() {
            at[g] = i;
        }
        let exprs = at
            .iter()
            .map(|&i| super::rewrite::column(i, rel.schema[i].ty))
            .collect();
        rel = Rel {
            kind: RelKind::Project {
                input: Box::new(rel),
                exprs,
            },
            schema: schema.clone(),
            span,
        };
    }
    top.extend(rest);
    let mut out = filter_over(rel, top);
    out.schema = schema;
    out
}

/// The filters on one leaf that a join condition implies: when every
/// branch of an OR has conjuncts on the same leaf alone, the OR of those
/// conjuncts holds wherever the condition does, so the leaf can be
/// filtered by it before the join (the condition itself stays).
/// `(n1 = 'FRANCE' AND n2 = 'GERMANY') OR (n1 = 'GERMANY' AND n2 = 'FRANCE')`
/// implies `n1 = 'FRANCE' OR n1 = 'GERMANY'`, and the same for `n2`, as
/// Calcite and DuckDB derive. Returns (leaf, filter) pairs, in group columns.
fn implied_filters(c: &Expr, leaf_of: &dyn Fn(usize) -> usize) -> Vec<(usize, Expr)> {
    if !matches!(
        c.kind,
        ExprKind::Binary {
            op: BinaryOp::Or,
            ..
        }
    ) {
        return Vec::new();
    }
    let on_one_leaf = |x: &Expr| {
        let leaves: BTreeSet<usize> = columns(x).into_iter().map(leaf_of).collect();
        match (leaves.len(), is_deterministic(x)) {
            (1, true) => leaves.into_iter().next(),
            _ => None,
        }
    };
    let branches: Vec<Vec<Expr>> = disjuncts(c.clone()).into_iter().map(conjuncts).collect();
    let leaves_of = |b: &[Expr]| -> BTreeSet<usize> { b.iter().filter_map(on_one_leaf).collect() };
    let mut common = leaves_of(&branches[0]);
    for b in &branches[1..] {
        common = common.intersection(&leaves_of(b)).copied().collect();
    }
    common
        .into_iter()
        .filter_map(|leaf| {
            let parts: Option<Vec<Expr>> = branches
                .iter()
                .map(|b| {
                    and_all(
                        b.iter()
                            .filter(|x| on_one_leaf(x) == Some(leaf))
                            .cloned()
                            .collect(),
                    )
                })
                .collect();
            parts.map(|p| (leaf, or_all(p)))
        })
        .collect()
}

/// The leaves and conditions of an inner-join tree (and of filters directly
/// on inner joins), with columns numbered in the tree's output.
fn flatten(rel: Rel, offset: usize, leaves: &mut Vec<Leaf>, conditions: &mut Vec<Expr>) {
    match rel.kind {
        RelKind::Join {
            kind: JoinKind::Inner,
            left,
            right,
            condition,
        } => {
            let la = left.schema.len();
            flatten(*left, offset, leaves, conditions);
            flatten(*right, offset + la, leaves, conditions);
            conditions.extend(
                super::rewrite::conjuncts(condition)
                    .into_iter()
                    .filter(|c| !super::rewrite::is_true(c))
                    .map(|c| remap(c, &|i| i + offset)),
            );
        }
        RelKind::Filter { input, predicate }
            if matches!(
                input.kind,
                RelKind::Join {
                    kind: JoinKind::Inner,
                    ..
                }
            ) && is_deterministic(&predicate) =>
        {
            conditions.extend(
                super::rewrite::conjuncts(predicate)
                    .into_iter()
                    .map(|c| remap(c, &|i| i + offset)),
            );
            flatten(*input, offset, leaves, conditions);
        }
        kind => leaves.push(Leaf {
            rel: Rel {
                kind,
                schema: rel.schema,
                span: rel.span,
            },
            offset,
            preds: Vec::new(),
        }),
    }
}

/// Group columns of the two sides of each equi-join conjunct between `a` and `b`.
fn equi_keys(
    a: &Part,
    b: &Part,
    joining: &[(Expr, BTreeSet<usize>)],
) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let (in_a, in_b) = (
        |c: &BTreeSet<usize>| !c.is_empty() && c.is_subset(&a.cols),
        |c: &BTreeSet<usize>| !c.is_empty() && c.is_subset(&b.cols),
    );
    let mut keys = (BTreeSet::new(), BTreeSet::new());
    for (c, _) in joining {
        if let ExprKind::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } = &c.kind
        {
            let (l, r) = (columns(left), columns(right));
            if in_a(&l) && in_b(&r) {
                keys.0.extend(l);
                keys.1.extend(r);
            } else if in_b(&l) && in_a(&r) {
                keys.0.extend(r);
                keys.1.extend(l);
            }
        }
    }
    keys
}

/// Pairs of plain columns that an equi-join conjunct between `a` and `b`
/// makes equal (column of `a`, column of `b`).
fn equal_columns(a: &Part, b: &Part, joining: &[(Expr, BTreeSet<usize>)]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (c, _) in joining {
        if let ExprKind::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } = &c.kind
        {
            if let (ExprKind::Column(l), ExprKind::Column(r)) = (&left.kind, &right.kind) {
                if a.cols.contains(l) && b.cols.contains(r) {
                    pairs.push((*l, *r));
                } else if b.cols.contains(l) && a.cols.contains(r) {
                    pairs.push((*r, *l));
                }
            }
        }
    }
    pairs
}

/// An upper bound of the distinct values of `keys` in `p`.
fn distinct_keys(p: &Part, keys: &BTreeSet<usize>) -> f64 {
    keys.iter()
        .map(|k| p.distinct.get(k).copied().unwrap_or(p.rows))
        .product::<f64>()
        .min(p.rows)
}

/// Estimated rows of `a` joined with `b` on those keys.
fn joined_rows(a: &Part, b: &Part, keys: &(BTreeSet<usize>, BTreeSet<usize>)) -> f64 {
    if keys.0.is_empty() {
        return a.rows * b.rows;
    }
    let unique = |p: &Part, k: &BTreeSet<usize>| p.unique.iter().any(|u| u.is_subset(k));
    match (unique(a, &keys.0), unique(b, &keys.1)) {
        (true, true) => (a.rows * b.selectivity).min(b.rows * a.selectivity),
        (false, true) => a.rows * b.selectivity,
        (true, false) => b.rows * a.selectivity,
        (false, false) => {
            // Neither side unique: at least the larger side (each of its
            // rows meets one row of the other, as a foreign key would), and
            // more when a side's key has fewer distinct values than rows:
            // then each of those values meets many rows of the other side
            // (customers and suppliers joined on their nation: rows of both
            // divided by the 25 nations, not the larger side's rows).
            let larger = a.rows.max(b.rows);
            let values = distinct_keys(a, &keys.0).min(distinct_keys(b, &keys.1));
            if values > 0.0 {
                (a.rows * b.rows / values).max(larger)
            } else {
                larger
            }
        }
    }
}

/// The next two parts to join: connected first, then smallest result.
fn best_pair(parts: &[Part], joining: &[(Expr, BTreeSet<usize>)]) -> (usize, usize) {
    let mut best: Option<((bool, f64), (usize, usize))> = None;
    for i in 0..parts.len() {
        for j in i + 1..parts.len() {
            let keys = equi_keys(&parts[i], &parts[j], joining);
            // A cross product (no keys) only when nothing is connected.
            let score = (keys.0.is_empty(), joined_rows(&parts[i], &parts[j], &keys));
            let better = match &best {
                None => true,
                Some((s, _)) => (!score.0 && s.0) || (score.0 == s.0 && score.1 < s.1),
            };
            if better {
                best = Some((score, (i, j)));
            }
        }
    }
    best.expect("at least two parts").1
}

/// Joins two parts, the smaller one as the build side, with every condition
/// both together see. `keep_sides` keeps `a` on the left (written order).
fn join_parts(
    a: Part,
    b: Part,
    joining: &mut Vec<(Expr, BTreeSet<usize>)>,
    span: crate::diagnostics::Span,
    keep_sides: bool,
) -> Part {
    let keys = equi_keys(&a, &b, joining);
    let rows = joined_rows(&a, &b, &keys);
    let mut distinct = a.distinct.clone();
    distinct.extend(b.distinct.iter().map(|(&c, &d)| (c, d)));
    for (x, y) in equal_columns(&a, &b, joining) {
        let d = distinct
            .get(&x)
            .copied()
            .unwrap_or(a.rows)
            .min(distinct.get(&y).copied().unwrap_or(b.rows));
        distinct.insert(x, d);
        distinct.insert(y, d);
    }
    let unique = |p: &Part, k: &BTreeSet<usize>| p.unique.iter().any(|u| u.is_subset(k));
    let mut unique_keys = Vec::new();
    if !keys.0.is_empty() && unique(&b, &keys.1) {
        unique_keys.extend(a.unique.iter().cloned());
    }
    if !keys.1.is_empty() && unique(&a, &keys.0) {
        unique_keys.extend(b.unique.iter().cloned());
    }
    let (probe, build) = if keep_sides || a.rows >= b.rows {
        (a, b)
    } else {
        (b, a)
    };
    let mut layout = probe.layout.clone();
    layout.extend(build.layout.iter().copied());
    let mut cols = probe.cols.clone();
    cols.extend(build.cols.iter().copied());
    let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(joining)
        .into_iter()
        .partition(|(_, c)| c.is_subset(&cols));
    *joining = rest;
    let at: std::collections::BTreeMap<usize, usize> =
        layout.iter().enumerate().map(|(i, &g)| (g, i)).collect();
    let position = |g: usize| at[&g];
    let condition = and_all(mine.into_iter().map(|(c, _)| remap(c, &position)).collect())
        .unwrap_or_else(true_literal);
    let schema: Vec<Field> = probe
        .rel
        .schema
        .iter()
        .chain(build.rel.schema.iter())
        .cloned()
        .collect();
    Part {
        rel: Rel {
            kind: RelKind::Join {
                kind: JoinKind::Inner,
                left: Box::new(probe.rel),
                right: Box::new(build.rel),
                condition,
            },
            schema,
            span,
        },
        layout,
        cols,
        rows,
        selectivity: probe.selectivity * build.selectivity,
        unique: unique_keys,
        distinct,
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::lowered_text;

    /// A fact table and three dimensions, sizes from datagen row counts.
    const TABLES: &str = "
        CREATE TABLE f (a INT, b INT, c INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '100000');
        CREATE TABLE da (id INT, x STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '100');
        CREATE TABLE db (id INT, y STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
        CREATE TABLE dc (id INT, z STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
        CREATE TABLE k (x STRING, y STRING, z STRING, v INT) WITH ('connector' = 'blackhole');";

    #[track_caller]
    fn lowers_to(sql: &str, expected: &str) {
        let actual = lowered_text(&format!("{TABLES} {sql}"));
        assert_eq!(actual.trim(), expected.trim(), "\n{actual}\n");
    }

    #[test]
    fn a_written_cross_product_is_joined_through_its_keys() {
        // Written as (dc x da) x f x db: the planner never builds dc x da,
        // and each dimension is a build side of a join probed by the fact rows.
        lowers_to(
            "INSERT INTO k SELECT da.x, db.y, dc.z, f.v FROM dc, da, f, db
             WHERE f.a = da.id AND f.b = db.id AND f.c = dc.id AND da.x <> 'q';",
            "
Sink #10 k [blackhole] INSERT INTO
+- Calc #9 select=[x, y, z, v]
   +- Calc #8 select=[id, z, id, x, a, b, c, v, id, y]
      +- Join #7 inner on=[b = id]
         +- Join #5 inner on=[c = id]
            +- Join #3 inner on=[a = id]
               +- Scan #0 f [datagen] read=[a, b, c, v]
               +- Calc #2 where=[(x <> CAST('q' AS STRING NOT NULL))] select=[id, x]
                  +- Scan #1 da [datagen] read=[id, x]
            +- Scan #4 dc [datagen] read=[id, z]
         +- Scan #6 db [datagen] read=[id, y]
",
        );
    }

    #[test]
    fn two_sides_joined_on_a_few_values_are_not_built_first() {
        // cu (customers) and su (suppliers) share only their nation: 10,000
        // x 1,000 rows over 25 nations is 400,000 pairs, more than any join
        // through the fact table's keys. The nation keys are joined last,
        // with the supplier key (written as in TPC-H q05).
        lowers_to(
            "CREATE TABLE cu (id INT, nat INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10000');
             CREATE TABLE su (id INT, nat INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
             CREATE TABLE na (id INT, x STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '25');
             INSERT INTO k SELECT na.x, na.x, na.x, f.v FROM cu, f, su, na
             WHERE f.a = cu.id AND f.b = su.id AND cu.nat = su.nat AND su.nat = na.id;",
            "
Sink #9 k [blackhole] INSERT INTO
+- Calc #8 select=[x, x, x, v]
   +- Calc #7 select=[id, nat, a, b, c, v, id, nat, id, x]
      +- Join #6 inner on=[b = id, nat = nat]
         +- Join #2 inner on=[a = id]
            +- Scan #0 f [datagen] read=[a, b, c, v]
            +- Scan #1 cu [datagen] read=[id, nat]
         +- Join #5 inner on=[nat = id]
            +- Scan #3 su [datagen] read=[id, nat]
            +- Scan #4 na [datagen] read=[id, x]
",
        );
    }

    #[test]
    fn an_or_of_conditions_on_two_tables_filters_each_table() {
        // Each branch constrains da and db alone: da keeps the rows with
        // x in {p, q} before any join, db those with y in {p, q}; the OR
        // itself still pairs them.
        lowers_to(
            "INSERT INTO k SELECT da.x, db.y, da.x, f.v FROM f, da, db
             WHERE f.a = da.id AND f.b = db.id
             AND ((da.x = 'p' AND db.y = 'q' AND f.v > 0) OR (da.x = 'q' AND db.y = 'p'));",
            "
Sink #8 k [blackhole] INSERT INTO
+- Calc #7 select=[x, y, x, v]
   +- Join #6 inner on=[b = id] where=[((((x = CAST('p' AS STRING NOT NULL)) AND (y = CAST('q' AS STRING NOT NULL))) AND (v > 0)) OR ((x = CAST('q' AS STRING NOT NULL)) AND (y = CAST('p' AS STRING NOT NULL))))]
      +- Join #3 inner on=[a = id]
         +- Scan #0 f [datagen] read=[a, b, c, v]
         +- Calc #2 where=[((x = CAST('p' AS STRING NOT NULL)) OR (x = CAST('q' AS STRING NOT NULL)))] select=[id, x]
            +- Scan #1 da [datagen] read=[id, x]
      +- Calc #5 where=[((y = CAST('q' AS STRING NOT NULL)) OR (y = CAST('p' AS STRING NOT NULL)))] select=[id, y]
         +- Scan #4 db [datagen] read=[id, y]
",
        );
    }
}
