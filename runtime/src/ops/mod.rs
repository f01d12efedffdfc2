//! Operators generic over the row types the generated code defines: the
//! parallel driver, hash aggregate, hash join, sort / top-N and distinct,
//! sort buffers that spill sorted runs beyond the memory budget,
//! OVER windows and Top-N per partition,
//! spools (rows waiting for a join build), and the memory budget they and
//! the join builds share (beyond it, spools spill and builds partition to disk).
//! UNION ALL needs no operator: generated code feeds both inputs to the same
//! consumer.

pub mod aggregate;
pub mod external_sort;
pub mod grace;
pub mod group_map;
pub mod group_table;
pub mod join;
pub mod memory;
pub mod over;
pub mod parallel;
pub mod sort;
pub mod spool;
