//! Small shared helpers: a deterministic PRNG, unique ids, the fast hash map type.

use std::time::{SystemTime, UNIX_EPOCH};

/// The hash map every operator uses: std's map with foldhash (fast, no extra
/// dependency tree). The seed is fixed, so a job iterates its groups in the
/// same order on every run over the same data: output files and the order of
/// floating-point additions (hence the last digits of a DOUBLE sum over
/// partial aggregates) are reproducible. Batch inputs are the user's own
/// data, so hash flooding is not a threat model here.
pub type FastMap<K, V> = std::collections::HashMap<K, V, FastState>;
/// The hash set counterpart of [`FastMap`].
pub type FastSet<K> = std::collections::HashSet<K, FastState>;

/// foldhash's fixed-seed hasher, with `hash_one` (the map's only way of
/// hashing a key) inlined into each lookup together with the key's `Hash`:
/// the same writes to the same hasher, so the same hash values (and group
/// order) as `foldhash::fast::FixedState` itself.
#[derive(Clone, Default, Debug)]
pub struct FastState(foldhash::fast::FixedState);

impl std::hash::BuildHasher for FastState {
    type Hasher = foldhash::fast::FoldHasher<'static>;

    #[inline(always)]
    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }

    // Written out (not `self.0.hash_one(x)`) so that it inlines.
    #[allow(clippy::manual_hash_one)]
    #[inline(always)]
    fn hash_one<T: std::hash::Hash>(&self, x: T) -> u64 {
        use std::hash::Hasher;
        let mut hasher = self.0.build_hasher();
        x.hash(&mut hasher);
        hasher.finish()
    }
}

/// A new empty [`FastMap`].
pub fn fast_map<K, V>() -> FastMap<K, V> {
    FastMap::with_hasher(Default::default())
}

/// A new empty [`FastSet`].
pub fn fast_set<K>() -> FastSet<K> {
    FastSet::with_hasher(Default::default())
}

/// SplitMix64: tiny, fast, statistically fine for test data and datagen, and
/// trivially seekable (`mix(seed + n)`), which makes parallel generation
/// reproducible regardless of thread count.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi]` (inclusive), for any span up to the full i64 range.
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (self.next() as u128 % span) as i128) as i64
    }
}

/// The SplitMix64 finalizer: a good 64-bit mixing function.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hints the CPU to load the cache line at `p` (a no-op where there is no
/// such instruction). `p` need not be dereferenceable: a prefetch never
/// faults.
#[inline(always)]
pub fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` reads nothing the program sees and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The process's resident memory in bytes (`VmRSS` of `/proc/self/status`),
/// or its peak (`VmHWM`) with `peak`; `None` where there is no such file.
pub fn resident_bytes_of(peak: bool) -> Option<u64> {
    let key = if peak { "VmHWM:" } else { "VmRSS:" };
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The process's resident memory now, in bytes (see [`resident_bytes_of`]).
pub fn resident_bytes() -> Option<u64> {
    resident_bytes_of(false)
}

/// A random version-4 style UUID string (`8-4-4-4-12` hex), seeded from the clock
/// and process id: part-file names only need to be unique, not secret.
pub fn random_uuid() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut rng = SplitMix64::new(nanos ^ ((std::process::id() as u64) << 32));
    let (a, b) = (rng.next(), rng.next());
    let b = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
    let a = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xFFFF,
        a & 0xFFFF,
        b >> 48,
        b & 0xFFFF_FFFF_FFFF
    )
}

/// Fixes the size from which glibc's `malloc` gives each allocation pages
/// of its own (and returns them to the system when it is freed) at its
/// default of 128 KiB. glibc raises that threshold whenever a mapped block
/// is freed, up to 32 MiB; past it, hash table shards, growing row vectors
/// and spool buffers came from its heaps, where freed blocks stay resident
/// and later, larger ones need new pages. The TPC-H SF 1 set peaked at
/// 432-441 MB resident that way and at 367 MB with the threshold fixed, for
/// about 80k more page faults (0.1-0.2 s of system time over 7 s of CPU;
/// bench/RESULTS.md, issue 13 step 19). `MALLOC_MMAP_THRESHOLD_`, when
/// set, is left to glibc.
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        // SAFETY: sets one allocator parameter; called before the job starts
        // its threads, and glibc takes the allocator's lock for it anyway.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_shape() {
        let u = random_uuid();
        assert_eq!(u.len(), 36);
        assert_eq!(u.as_bytes()[14], b'4');
        assert_ne!(u, random_uuid());
    }

    #[test]
    fn range_is_inclusive_and_bounded() {
        let mut r = SplitMix64::new(1);
        for _ in 0..1000 {
            let v = r.range_i64(-2, 2);
            assert!((-2..=2).contains(&v));
        }
        let v = r.range_i64(i64::MIN, i64::MAX);
        let _ = v;
    }
}
