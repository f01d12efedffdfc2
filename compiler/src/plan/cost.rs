//! Row-count estimates for `explain --detail cost`: sources from file sizes
//! (bytes / an estimated row width) or datagen's `number-of-rows`, then
//! Calcite-style selectivities (equality 0.15, range 0.5, ...). Estimates are
//! for reading plans, not promises; they never affect what the job computes.

use std::path::Path;

use crate::ir::{BinaryOp, ConnectorKind, Expr, ExprKind, Format, UnaryOp};
use crate::types::TypeKind;

use super::{NodeKind, Plan};

/// Estimated output rows of every node (`None` where a source size is unknown).
pub(crate) fn estimate_rows(plan: &Plan, base: Option<&Path>) -> Vec<Option<f64>> {
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
                        // At most the left rows; half of them, unknowing.
                        crate::ir::JoinKind::Semi | crate::ir::JoinKind::Anti => l * 0.5,
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
            NodeKind::Over { limit: None, .. } => input(0),
            // A Top-N keeps at most N rows of each partition (a tenth of the
            // rows as partitions, as for an aggregate).
            NodeKind::Over {
                limit: Some(l),
                partition,
                ..
            } => input(0).map(|r| {
                let partitions = if partition.is_empty() {
                    1.0
                } else {
                    (r * 0.1).max(1.0)
                };
                r.min(partitions * l.hi.max(0) as f64)
            }),
            NodeKind::Sink { .. } => input(0),
        };
        rows.push(estimate);
    }
    rows
}

/// The filesystem sources the plan reads whose size cannot be read from
/// `base` (name and path, in the order of the plan): the planner assumed
/// [`UNKNOWN_SOURCE_ROWS`] for them, which may choose a much worse join
/// order than their real sizes would.
pub(crate) fn unsized_sources(plan: &Plan, base: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for node in &plan.nodes {
        let NodeKind::Scan { table, .. } = &node.kind else {
            continue;
        };
        let table = plan.job.table(*table);
        let ConnectorKind::Filesystem { path, .. } = &table.connector.kind else {
            continue;
        };
        if !out.iter().any(|(n, _)| *n == table.name) && path_size(&base.join(path)).is_none() {
            out.push((table.name.clone(), path.clone()));
        }
    }
    out
}

fn source_rows(plan: &Plan, table: crate::ir::TableId, base: Option<&Path>) -> Option<f64> {
    // The plan's own base directory: sized once per compile.
    if base.is_some() && base == plan.base_dir.as_deref() {
        let mut known = plan.source_rows.lock().unwrap_or_else(|p| p.into_inner());
        return *known
            .entry(table)
            .or_insert_with(|| table_source_rows(plan.job.table(table), base));
    }
    table_source_rows(plan.job.table(table), base)
}

/// Rows of a source table: datagen's `number-of-rows`, or a filesystem
/// table's size on disk (when `base` says where relative paths resolve).
fn table_source_rows(table: &crate::ir::Table, base: Option<&Path>) -> Option<f64> {
    match (&table.connector.kind, base) {
        (ConnectorKind::Datagen, _) => table
            .connector
            .options
            .get("number-of-rows")
            .and_then(|n| n.trim().parse::<f64>().ok()),
        (ConnectorKind::Filesystem { .. }, Some(base)) => table_rows(table, base),
        _ => None,
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

/// Bytes read from the start of a source to measure its rows' width.
const SAMPLE_BYTES: usize = 64 * 1024;

/// The average width in bytes of a line (a csv or json row) in the first
/// [`SAMPLE_BYTES`] of `path` (of its first file, for a folder), counted
/// over whole lines only; `None` when the sample holds no line end (then
/// the declared types give a width). A file shorter than the sample is
/// counted exactly. Guessing a row's width from its column types can be
/// off by 3x (a `VARCHAR` comment of 100 characters); the sample is one
/// small read per source at compile time.
fn sampled_row_width(path: &Path) -> Option<f64> {
    type Key = (std::path::PathBuf, u64, Option<std::time::SystemTime>);
    // The planner estimates rows many times per compile; each file is read
    // once (again only if it changed).
    static SAMPLED: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<Key, Option<f64>>>,
    > = std::sync::OnceLock::new();
    let file = first_file(path)?;
    let meta = std::fs::metadata(&file).ok()?;
    let key = (file, meta.len(), meta.modified().ok());
    let cache = SAMPLED.get_or_init(Default::default);
    if let Some(width) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return *width;
    }
    let width = measure_row_width(&key.0);
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, width);
    width
}

fn measure_row_width(file: &Path) -> Option<f64> {
    use std::io::Read;
    let mut sample = Vec::with_capacity(SAMPLE_BYTES);
    std::fs::File::open(file)
        .ok()?
        .take(SAMPLE_BYTES as u64)
        .read_to_end(&mut sample)
        .ok()?;
    let whole = sample.iter().rposition(|&b| b == b'\n')? + 1;
    let lines = sample[..whole].iter().filter(|&&b| b == b'\n').count();
    Some(whole as f64 / lines as f64)
}

/// `path` itself if it is a non-empty file, else the first such visible
/// file under it (by name).
fn first_file(path: &Path) -> Option<std::path::PathBuf> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        return (meta.len() > 0).then(|| path.to_path_buf());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && !name.starts_with('_')
        })
        .collect();
    entries.sort_by_key(|e| e.file_name());
    entries.into_iter().find_map(|e| first_file(&e.path()))
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
        ExprKind::Like { negated: true, .. } => 0.75,
        ExprKind::Like { .. } => 0.25,
        ExprKind::Literal(crate::ir::Literal::Boolean(true)) => 1.0,
        ExprKind::Literal(crate::ir::Literal::Boolean(false)) => 0.0,
        _ => 0.25,
    }
}

/// Estimates over bound trees, for the join order: rows per relation and
/// the column sets known to be unique (a PRIMARY KEY, GROUP BY keys).
pub(crate) struct RelEstimator<'a> {
    job: &'a crate::ir::BoundJob,
    /// Where relative source paths resolve; `None` estimates every file
    /// source at `UNKNOWN_SOURCE_ROWS`.
    base: Option<&'a Path>,
    sizes: std::cell::RefCell<std::collections::BTreeMap<crate::ir::TableId, f64>>,
}

/// Rows assumed for a source whose size cannot be known at compile time.
pub(crate) const UNKNOWN_SOURCE_ROWS: f64 = 1e6;

impl<'a> RelEstimator<'a> {
    pub(crate) fn new(job: &'a crate::ir::BoundJob, base: Option<&'a Path>) -> Self {
        RelEstimator {
            job,
            base,
            sizes: Default::default(),
        }
    }

    fn source(&self, table: crate::ir::TableId) -> f64 {
        if let Some(&rows) = self.sizes.borrow().get(&table) {
            return rows;
        }
        let rows =
            table_source_rows(self.job.table(table), self.base).unwrap_or(UNKNOWN_SOURCE_ROWS);
        self.sizes.borrow_mut().insert(table, rows);
        rows
    }

    /// Estimated rows of a relation.
    pub(crate) fn rows(&self, rel: &crate::ir::Rel) -> f64 {
        use crate::ir::RelKind;
        match &rel.kind {
            RelKind::Scan { table } => self.source(*table),
            RelKind::Values { rows } => rows.len() as f64,
            RelKind::Filter { input, predicate } => self.rows(input) * selectivity(predicate),
            RelKind::Project { input, .. }
            | RelKind::Window { input, .. }
            | RelKind::Over { input, .. } => self.rows(input),
            RelKind::Aggregate { input, group, .. } => {
                if group.is_empty() {
                    1.0
                } else {
                    (self.rows(input) * 0.1).max(1.0)
                }
            }
            RelKind::Join {
                kind,
                left,
                right,
                condition,
            } => {
                let (l, r) = (self.rows(left), self.rows(right));
                let keyed = !matches!(
                    condition.kind,
                    ExprKind::Literal(crate::ir::Literal::Boolean(true))
                );
                let joined = if keyed { l.max(r) } else { l * r };
                match kind {
                    crate::ir::JoinKind::Inner => joined,
                    crate::ir::JoinKind::Left => joined.max(l),
                    crate::ir::JoinKind::Right => joined.max(r),
                    crate::ir::JoinKind::Full => joined.max(l + r),
                    crate::ir::JoinKind::Semi | crate::ir::JoinKind::Anti => l * 0.5,
                }
            }
            RelKind::UnionAll { inputs } => inputs.iter().map(|i| self.rows(i)).sum(),
            RelKind::Sort {
                input,
                offset,
                limit,
                ..
            } => {
                let r = (self.rows(input) - offset.unwrap_or(0) as f64).max(0.0);
                limit.map_or(r, |l| r.min(l as f64))
            }
        }
    }

    /// Column sets of the relation's output whose values are unique.
    pub(crate) fn unique_keys(
        &self,
        rel: &crate::ir::Rel,
    ) -> Vec<std::collections::BTreeSet<usize>> {
        use crate::ir::RelKind;
        match &rel.kind {
            RelKind::Scan { table } => {
                let t = self.job.table(*table);
                if t.primary_key.is_empty() {
                    return Vec::new();
                }
                // Key positions among the physical columns the scan reads.
                let physical: Vec<usize> = t.physical_columns().map(|(i, _)| i).collect();
                let key: Option<std::collections::BTreeSet<usize>> = t
                    .primary_key
                    .iter()
                    .map(|k| physical.iter().position(|p| p == k))
                    .collect();
                key.into_iter().collect()
            }
            RelKind::Filter { input, .. } | RelKind::Sort { input, .. } => self.unique_keys(input),
            RelKind::Project { input, exprs } => {
                let below = self.unique_keys(input);
                below
                    .into_iter()
                    .filter_map(|key| {
                        key.iter()
                            .map(|&c| {
                                exprs
                                    .iter()
                                    .position(|e| matches!(e.kind, ExprKind::Column(i) if i == c))
                            })
                            .collect::<Option<_>>()
                    })
                    .collect()
            }
            RelKind::Aggregate { group, .. } => vec![(0..group.len()).collect()],
            _ => Vec::new(),
        }
    }
}

/// Estimated rows of a filesystem table from its size on disk.
fn table_rows(table: &crate::ir::Table, base: &Path) -> Option<f64> {
    let ConnectorKind::Filesystem { path, format } = &table.connector.kind else {
        return None;
    };
    let path = base.join(path);
    let bytes = path_size(&path)?;
    if let Some(width) = sampled_row_width(&path) {
        return Some((bytes as f64 / width).round());
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    /// A scratch folder of its own under the system's temporary folder.
    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("stmtc-cost-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_short_file_is_counted_by_its_lines() {
        let dir = scratch("short");
        let file = dir.join("t.csv");
        // Rows of 120 bytes: the declared types alone would guess ~60.
        let row = format!("1,{}\n", "x".repeat(117));
        std::fs::write(&file, row.repeat(50)).unwrap();
        assert_eq!(sampled_row_width(&file), Some(120.0));
        // A folder is sampled through its first visible file.
        std::fs::write(dir.join(".hidden"), "a\n".repeat(1000)).unwrap();
        assert_eq!(sampled_row_width(&dir), Some(120.0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_long_file_is_measured_on_whole_lines_of_its_start() {
        let dir = scratch("long");
        let file = dir.join("t.csv");
        let row = "12345,abc\n"; // 10 bytes; the sample ends mid-row
        std::fs::write(&file, row.repeat(SAMPLE_BYTES / 10 * 3 + 5)).unwrap();
        assert_eq!(sampled_row_width(&file), Some(10.0));
        // One line longer than the sample: no line end, no width.
        std::fs::write(&file, "y".repeat(SAMPLE_BYTES + 10)).unwrap();
        assert_eq!(sampled_row_width(&file), None);
        // Empty files and folders have none either.
        std::fs::write(&file, "").unwrap();
        assert_eq!(sampled_row_width(&file), None);
        assert_eq!(sampled_row_width(&dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn not_like_keeps_the_rows_like_drops() {
        let text = DataType::not_null(TypeKind::Varchar(u32::MAX));
        let expr = |kind: ExprKind, ty: DataType| Expr {
            kind,
            ty,
            span: Default::default(),
        };
        let like = |negated: bool| {
            expr(
                ExprKind::Like {
                    operand: Box::new(expr(ExprKind::Column(0), text)),
                    pattern: Box::new(expr(
                        ExprKind::Literal(crate::ir::Literal::String("%x%".into())),
                        text,
                    )),
                    escape: None,
                    negated,
                },
                DataType::not_null(TypeKind::Boolean),
            )
        };
        assert_eq!(selectivity(&like(false)), 0.25);
        assert_eq!(selectivity(&like(true)), 0.75);
    }
}
