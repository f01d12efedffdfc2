//! The merged plan: one DAG for the whole statement set.
//!
//! Nodes live in an arena and are created only through [`Plan::intern`],
//! which looks a node up by its structure (spans and column names excluded):
//! the same subtree written in two INSERTs, or reached through a view, is one
//! node with several consumers. Inputs always have smaller ids than their
//! consumers, so id order is a topological order. Nondeterministic nodes
//! (`RAND()`, `CURRENT_TIMESTAMP`) are never merged.
//!
//! `lower.rs` builds the DAG from the bound statement set; each rewrite is a
//! file of its own (`passes.rs` lists them); `explain.rs` prints the plan.

pub(crate) mod cost;
pub(crate) mod explain;
mod join_order;
mod lower;
mod never_null;
mod normalize;
pub(crate) mod passes;
mod reshare;
pub(crate) mod rewrite;
mod sharing;
mod verify;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

use crate::diagnostics::Span;
use crate::ir::over::{OverCall, RankLimit};
use crate::ir::{
    AggregateCall, BoundJob, Expr, ExprKind, Field, JoinKind, SortKey, TableId, WindowKind,
};

pub(crate) use lower::lower;
pub(crate) use never_null::never_null;

/// A plan node's id, printed `#3` as explain prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum NodeKind {
    /// Reads a source table once: the physical columns `columns` (positions
    /// in the table's physical columns), keeping rows where `filter` (over the
    /// read columns) is TRUE. The filter holds only what every consumer of the
    /// scan applies.
    Scan {
        table: TableId,
        columns: Vec<usize>,
        filter: Option<Expr>,
    },
    Values {
        rows: Vec<Vec<Expr>>,
    },
    /// Keeps rows of `input` where `filter` is TRUE, then computes `projections`.
    Calc {
        input: NodeId,
        projections: Vec<Expr>,
        filter: Option<Expr>,
    },
    /// Output: the group columns, then one column per aggregate call.
    Aggregate {
        input: NodeId,
        group: Vec<usize>,
        aggregates: Vec<AggregateCall>,
    },
    /// Equi-join on `left_keys[i] = right_keys[i]`, then `residual` over the
    /// concatenated row; output is left columns then right columns.
    Join {
        kind: JoinKind,
        left: NodeId,
        right: NodeId,
        left_keys: Vec<usize>,
        right_keys: Vec<usize>,
        residual: Option<Expr>,
    },
    Union {
        inputs: Vec<NodeId>,
    },
    Sort {
        input: NodeId,
        keys: Vec<SortKey>,
        offset: Option<u64>,
        limit: Option<u64>,
    },
    /// OVER windows of one specification: input columns plus one column
    /// per call. With `limit` it is a Top-N: `calls` is one ranking
    /// function and only rows ranked in `limit` are kept, in memory
    /// O(partitions x N) (`passes/top_n.rs` sets it).
    Over {
        input: NodeId,
        partition: Vec<usize>,
        order: Vec<SortKey>,
        calls: Vec<OverCall>,
        limit: Option<RankLimit>,
    },
    /// Window TVF: input columns plus window_start, window_end, window_time.
    Window {
        input: NodeId,
        window: WindowKind,
        time_column: usize,
    },
    Sink {
        input: NodeId,
        table: TableId,
        overwrite: bool,
        /// Position of the INSERT in the job file (sinks never merge).
        statement: usize,
    },
}

impl NodeKind {
    pub fn inputs(&self) -> Vec<NodeId> {
        match self {
            NodeKind::Scan { .. } | NodeKind::Values { .. } => Vec::new(),
            NodeKind::Calc { input, .. }
            | NodeKind::Aggregate { input, .. }
            | NodeKind::Sort { input, .. }
            | NodeKind::Window { input, .. }
            | NodeKind::Over { input, .. }
            | NodeKind::Sink { input, .. } => vec![*input],
            NodeKind::Join { left, right, .. } => vec![*left, *right],
            NodeKind::Union { inputs } => inputs.clone(),
        }
    }

    pub fn inputs_mut(&mut self) -> Vec<&mut NodeId> {
        match self {
            NodeKind::Scan { .. } | NodeKind::Values { .. } => Vec::new(),
            NodeKind::Calc { input, .. }
            | NodeKind::Aggregate { input, .. }
            | NodeKind::Sort { input, .. }
            | NodeKind::Window { input, .. }
            | NodeKind::Over { input, .. }
            | NodeKind::Sink { input, .. } => vec![input],
            NodeKind::Join { left, right, .. } => vec![left, right],
            NodeKind::Union { inputs } => inputs.iter_mut().collect(),
        }
    }

    /// The versioned type name used by the JSON plan (`calc_1`).
    pub fn type_name(&self) -> &'static str {
        match self {
            NodeKind::Scan { .. } => "scan_1",
            NodeKind::Values { .. } => "values_1",
            NodeKind::Calc { .. } => "calc_1",
            NodeKind::Aggregate { .. } => "aggregate_1",
            NodeKind::Join { .. } => "join_1",
            NodeKind::Union { .. } => "union_1",
            NodeKind::Sort { .. } => "sort_1",
            NodeKind::Window { .. } => "window_1",
            NodeKind::Over { limit: None, .. } => "over_1",
            NodeKind::Over { .. } => "rank_1",
            NodeKind::Sink { .. } => "sink_1",
        }
    }

    /// Every expression of the node, for analyses.
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            NodeKind::Scan { filter, .. } => filter.iter().collect(),
            NodeKind::Values { rows } => rows.iter().flatten().collect(),
            NodeKind::Calc {
                projections,
                filter,
                ..
            } => projections.iter().chain(filter.iter()).collect(),
            NodeKind::Join { residual, .. } => residual.iter().collect(),
            _ => Vec::new(),
        }
    }
}

/// A node's output columns.
pub(crate) type Schema = Arc<Vec<Field>>;

#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub kind: NodeKind,
    /// Shared by the copies of the node that rewrites make.
    pub schema: Schema,
    /// Where the SQL that produced this node was written (all merged copies).
    pub provenance: Vec<Span>,
    /// Nodes with a nondeterministic expression get a unique salt so that
    /// interning never merges them.
    salt: u32,
    /// The hash of the node's structure (`kind` with its inputs left out,
    /// the column types, `salt`), set when it is interned: renumbering
    /// inputs (`compact`) re-indexes a node without hashing its expressions
    /// again.
    shape: u64,
}

/// The DAG of a whole job.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// Shared by every rebuilt plan (a rewrite never changes the catalog).
    pub job: Arc<BoundJob>,
    /// Where relative source paths resolve, for size estimates (`None`:
    /// sizes unknown).
    pub base_dir: Option<Arc<std::path::Path>>,
    pub nodes: Vec<Node>,
    /// Sink nodes in INSERT order.
    pub sinks: Vec<NodeId>,
    /// Nodes by the hash of their structure with their inputs (`key_hash`);
    /// a lookup compares the node itself. Keys that two different nodes
    /// share (64-bit collisions) list the later ones in `collisions`.
    index: HashMap<u64, NodeId, BuildHasherDefault<PrehashedHasher>>,
    collisions: HashMap<u64, Vec<NodeId>, BuildHasherDefault<PrehashedHasher>>,
    next_salt: u32,
    /// The provenance of nodes with many spans (a scan or a calc shared by
    /// thousands of INSERTs) as sets, so that merging one more span costs
    /// O(1). A cache by node id: cleared when ids change.
    provenance_sets: HashMap<NodeId, HashSet<Span>>,
    /// `reshare::twin_costs` of this plan, for `explain` (text and JSON
    /// both print it); emptied whenever a node is added.
    pub(crate) twin_costs: std::sync::OnceLock<Vec<(Vec<NodeId>, f64, f64)>>,
    /// Estimated rows of each source read from `base_dir` (`cost.rs`),
    /// shared by every rebuilt plan: sized once per compile.
    pub(crate) source_rows: SourceRows,
}

/// Rows of sources by table, as `cost::estimate_rows` found them.
pub(crate) type SourceRows = Arc<std::sync::Mutex<HashMap<crate::ir::TableId, Option<f64>>>>;

/// Provenance lists up to this long are searched linearly.
const SMALL_PROVENANCE: usize = 16;

impl Plan {
    pub fn new(job: BoundJob, base_dir: Option<&std::path::Path>) -> Plan {
        Plan::sharing(
            Arc::new(job),
            base_dir.map(Arc::from),
            SourceRows::default(),
        )
    }

    fn sharing(
        job: Arc<BoundJob>,
        base_dir: Option<Arc<std::path::Path>>,
        source_rows: SourceRows,
    ) -> Plan {
        Plan {
            job,
            base_dir,
            source_rows,
            nodes: Vec::new(),
            sinks: Vec::new(),
            index: HashMap::default(),
            collisions: HashMap::default(),
            next_salt: 1,
            provenance_sets: HashMap::new(),
            twin_costs: std::sync::OnceLock::new(),
        }
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Returns the node with this structure, creating it if it is new.
    /// Spans are stripped from expressions for the lookup (they go to
    /// `provenance`), and column names do not count: only types do.
    pub fn intern(
        &mut self,
        kind: NodeKind,
        schema: impl Into<Schema>,
        provenance: &[Span],
    ) -> NodeId {
        self.intern_owned(kind, schema.into(), provenance.to_vec())
    }

    fn intern_owned(
        &mut self,
        mut kind: NodeKind,
        schema: Schema,
        provenance: Vec<Span>,
    ) -> NodeId {
        strip_kind_spans(&mut kind);
        let salt = if kind.exprs().iter().any(|e| !is_deterministic(e)) {
            self.next_salt += 1;
            self.next_salt
        } else {
            0
        };
        let shape = shape_hash(&mut kind, &schema, salt);
        let key = key_hash(shape, &kind);
        if let Some(id) = self.find(key, &kind, &schema, salt) {
            self.add_provenance(id, &provenance);
            return id;
        }
        self.push_new(kind, schema, provenance, salt, shape, key)
    }

    /// Adds a node known to be new (hashes given), indexed by `key`.
    fn push_new(
        &mut self,
        kind: NodeKind,
        schema: Schema,
        provenance: Vec<Span>,
        salt: u32,
        shape: u64,
        key: u64,
    ) -> NodeId {
        self.push_indexed(
            Node {
                kind,
                schema,
                provenance,
                salt,
                shape,
            },
            key,
        )
    }

    /// The node equal to (`kind`, the types of `schema`, `salt`), whose
    /// `key_hash` is `key`.
    fn find(&self, key: u64, kind: &NodeKind, schema: &[Field], salt: u32) -> Option<NodeId> {
        let same = |id: &NodeId| {
            let node = &self.nodes[id.index()];
            node.salt == salt
                && node.schema.len() == schema.len()
                && node.schema.iter().zip(schema).all(|(a, b)| a.ty == b.ty)
                && node.kind == *kind
        };
        let first = *self.index.get(&key)?;
        if same(&first) {
            return Some(first);
        }
        self.collisions.get(&key)?.iter().copied().find(same)
    }

    /// Appends a node that is not in the index yet, indexed under `key`.
    fn push_indexed(&mut self, node: Node, key: u64) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.twin_costs = std::sync::OnceLock::new();
        self.nodes.push(node);
        self.index_node(id, key);
        id
    }

    fn index_node(&mut self, id: NodeId, key: u64) {
        match self.index.entry(key) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(id);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collisions.entry(key).or_default().push(id);
            }
        }
    }

    /// Appends the spans `node` does not have yet, in order.
    fn add_provenance(&mut self, id: NodeId, spans: &[Span]) {
        let node = &mut self.nodes[id.index()];
        if node.provenance.len() + spans.len() <= SMALL_PROVENANCE {
            for span in spans {
                if !node.provenance.contains(span) {
                    node.provenance.push(*span);
                }
            }
            return;
        }
        let set = self
            .provenance_sets
            .entry(id)
            .or_insert_with(|| node.provenance.iter().copied().collect());
        for span in spans {
            if set.insert(*span) {
                node.provenance.push(*span);
            }
        }
    }

    /// How many consumers (edges) each node has.
    pub fn consumer_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.nodes.len()];
        for node in &self.nodes {
            for input in node.kind.inputs() {
                counts[input.index()] += 1;
            }
        }
        counts
    }

    /// The consumers of every node, in id order.
    pub fn consumers(&self) -> Vec<Vec<NodeId>> {
        let mut consumers = vec![Vec::new(); self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            for input in node.kind.inputs() {
                // A node reading one input twice (a self-join) is listed
                // once; its edges are consecutive, as ids are in order.
                let list = &mut consumers[input.index()];
                if list.last() != Some(&NodeId(i as u32)) {
                    list.push(NodeId(i as u32));
                }
            }
        }
        consumers
    }

    /// Drops unreachable nodes and renumbers the rest in a deterministic
    /// order: depth-first from the sinks in INSERT order, inputs first.
    pub fn compact(&mut self) {
        self.twin_costs = std::sync::OnceLock::new();
        let mut order = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        fn visit(plan: &Plan, id: NodeId, seen: &mut Vec<bool>, order: &mut Vec<NodeId>) {
            if seen[id.index()] {
                return;
            }
            seen[id.index()] = true;
            for input in plan.node(id).kind.inputs() {
                visit(plan, input, seen, order);
            }
            order.push(id);
        }
        for &sink in &self.sinks {
            visit(self, sink, &mut seen, &mut order);
        }
        let mut new_id = vec![None; self.nodes.len()];
        for (i, id) in order.iter().enumerate() {
            new_id[id.index()] = Some(NodeId(i as u32));
        }
        let old = std::mem::take(&mut self.nodes);
        let mut slots: Vec<Option<Node>> = old.into_iter().map(Some).collect();
        self.index.clear();
        self.index.reserve(order.len());
        self.collisions.clear();
        self.provenance_sets.clear();
        for id in &order {
            let mut node = slots[id.index()].take().expect("each node once");
            for input in node.kind.inputs_mut() {
                *input = new_id[input.index()].expect("inputs are reachable");
            }
            let key = key_hash(node.shape, &node.kind);
            let id = NodeId(self.nodes.len() as u32);
            self.nodes.push(node);
            self.index_node(id, key);
        }
        for sink in &mut self.sinks {
            *sink = new_id[sink.index()].expect("sinks are reachable");
        }
    }
}

fn strip_kind_spans(kind: &mut NodeKind) {
    let strip = |e: &mut Expr| *e = crate::ir::strip_spans(std::mem::replace(e, placeholder()));
    match kind {
        NodeKind::Scan { filter, .. } => filter.iter_mut().for_each(strip),
        NodeKind::Values { rows } => rows.iter_mut().flatten().for_each(strip),
        NodeKind::Calc {
            projections,
            filter,
            ..
        } => {
            projections.iter_mut().for_each(strip);
            filter.iter_mut().for_each(strip);
        }
        NodeKind::Join { residual, .. } => residual.iter_mut().for_each(strip),
        _ => {}
    }
}

fn placeholder() -> Expr {
    Expr {
        kind: ExprKind::Literal(crate::ir::Literal::Null),
        ty: crate::types::DataType::null(),
        span: Span::default(),
    }
}

/// False if the expression calls a nondeterministic function.
pub(crate) fn is_deterministic(e: &Expr) -> bool {
    let mut deterministic = true;
    crate::ir::visit(e, &mut |x| {
        if let ExprKind::Call { function, .. } = &x.kind {
            deterministic &= function.is_deterministic();
        }
    });
    deterministic
}

/// Rebuilds the plan bottom-up into a fresh arena. `f` receives each old
/// node with its inputs already mapped to new ids and returns the node's new
/// id (usually `new.intern(...)` of a possibly changed node). Interning in the
/// fresh arena re-merges whatever a rewrite made equal.
pub(crate) fn rebuild(plan: &Plan, mut f: impl FnMut(&mut Plan, NodeId, Node) -> NodeId) -> Plan {
    let mut new = Plan::sharing(
        Arc::clone(&plan.job),
        plan.base_dir.clone(),
        Arc::clone(&plan.source_rows),
    );
    new.index.reserve(plan.nodes.len());
    new.nodes.reserve(plan.nodes.len());
    new.next_salt = plan.next_salt;
    let mut map: Vec<NodeId> = Vec::with_capacity(plan.nodes.len());
    for (i, node) in plan.nodes.iter().enumerate() {
        let mut node = node.clone();
        for input in node.kind.inputs_mut() {
            *input = map[input.index()];
        }
        map.push(f(&mut new, NodeId(i as u32), node));
    }
    new.sinks = plan.sinks.iter().map(|s| map[s.index()]).collect();
    new.compact();
    new
}

/// The default step of a rebuild: the node as it is.
pub(crate) fn keep(new: &mut Plan, node: Node) -> NodeId {
    let Node {
        mut kind,
        schema,
        provenance,
        salt,
        shape: _,
    } = node;
    if salt != 0 {
        // Nondeterministic: stays a node of its own.
        let shape = shape_hash(&mut kind, &schema, salt);
        let key = key_hash(shape, &kind);
        return new.push_new(kind, schema, provenance, salt, shape, key);
    }
    new.intern_owned(kind, schema, provenance)
}

/// The hash of a node's structure without its inputs: `kind` with every
/// input set to `#0` (restored before returning), the column types, the salt.
fn shape_hash(kind: &mut NodeKind, schema: &[Field], salt: u32) -> u64 {
    let mut inputs = kind.inputs_mut();
    let saved: Vec<NodeId> = inputs.iter().map(|i| **i).collect();
    for input in &mut inputs {
        **input = NodeId(0);
    }
    let mut h = TreeHasher::default();
    kind.hash(&mut h);
    for field in schema {
        field.ty.hash(&mut h);
    }
    salt.hash(&mut h);
    for (input, id) in kind.inputs_mut().into_iter().zip(saved) {
        *input = id;
    }
    h.finish()
}

/// The index key of a node: its shape hash combined with its inputs.
fn key_hash(shape: u64, kind: &NodeKind) -> u64 {
    let mut h = TreeHasher(shape);
    for input in kind.inputs() {
        h.write_u32(input.0);
    }
    h.finish()
}

/// A fast, deterministic hasher for plan trees (FxHash's step, with a
/// final mix so that every bit of the result depends on every input bit:
/// the index uses the hash as it is). Not resistant to chosen collisions,
/// which only cost a lookup more comparisons here.
#[derive(Default)]
struct TreeHasher(u64);

impl TreeHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for TreeHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // murmur3's fmix64.
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

/// The hasher of maps keyed by a finished `TreeHasher` hash: the key as it is.
#[derive(Default)]
struct PrehashedHasher(u64);

impl Hasher for PrehashedHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
