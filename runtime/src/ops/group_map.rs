//! The hash map behind [`GroupTable`](super::group_table::GroupTable): open
//! addressing with linear probing, each key stored beside its accumulator
//! in one slot, so that finding an existing group reads one place in memory
//! (one or two cache lines), not a control byte array and then a bucket as
//! `std`'s map (hashbrown) does.
//!
//! Why it matters: a table of 100k groups is larger than a core's caches
//! and each input row looks up a random group, so the lookup waits on
//! memory. bench/job.sql at 10M rows on one thread (bench/RESULTS.md, issue
//! 13 step 9) took 4.0 s of CPU with `std`'s map and 3.0 s with this one,
//! at the same slot count and entry size (131,072 slots of 72 bytes for the
//! 100k users).
//!
//! The map never removes a key. Like `std`'s, it grows (doubling,
//! rehashing every key) when more than 7/8 of its slots would be full: the
//! table's size decides whether it stays in the cache, and the same map at
//! most half full (twice the slots) was no faster than `std`'s.
//!
//! Keys are hashed by [`GroupHasher`]: foldhash over every write but the
//! last integer, which is added to that and the sum multiplied by 2^64/φ
//! (Fibonacci hashing); a key's slot is the product's top bits. Group keys
//! are often one integer column of dense ids (users, products, orders):
//! there the product spreads consecutive keys evenly over the slots, and
//! finding a key reads about one slot, where a random hash at 100k keys in
//! 131,072 slots read 2.6 adjacent slots on average (a new key reads more,
//! once per group). Other keys hash as foldhash does. Iteration is in slot
//! order, which depends only on the keys (a fixed-seed hash), the capacity
//! and the order of insertion.

use std::hash::{BuildHasher, Hash, Hasher};

/// The hash of a key in a [`GroupMap`], or of a view of it that hashes
/// alike (see [`GroupMap::get_mut_by`]).
#[inline(always)]
pub fn hash<Q: Hash + ?Sized>(key: &Q) -> u64 {
    let mut h = GroupHasher {
        inner: foldhash::fast::FixedState::default().build_hasher(),
        last: None,
    };
    key.hash(&mut h);
    h.finish()
}

/// A bijective mix of all of a hash's bits into its top bits (MurmurHash3's
/// 64-bit finalizer), for a map whose keys the product spreads badly.
#[inline(always)]
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// 2^64 divided by the golden ratio, odd: Fibonacci hashing's multiplier.
const FIBONACCI: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hasher of [`hash`]: every write goes to foldhash except the last
/// integer, held back and added to foldhash's result before the product
/// with [`FIBONACCI`]. For a key of one integer (`Option<i32>`'s
/// discriminant, then the value) the hash is `(c + x) * FIBONACCI`, whose
/// top bits spread consecutive `x` evenly; any other key ends in a
/// foldhash value of everything before its last integer (a string's
/// bytes, the other columns), which the product keeps well mixed.
pub struct GroupHasher {
    inner: foldhash::fast::FoldHasher<'static>,
    last: Option<u64>,
}

impl GroupHasher {
    #[inline(always)]
    fn hold(&mut self, x: u64) {
        if let Some(earlier) = self.last.replace(x) {
            self.inner.write_u64(earlier);
        }
    }

    #[inline(always)]
    fn flush(&mut self) {
        if let Some(earlier) = self.last.take() {
            self.inner.write_u64(earlier);
        }
    }
}

impl Hasher for GroupHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.inner
            .finish()
            .wrapping_add(self.last.unwrap_or(0))
            .wrapping_mul(FIBONACCI)
    }
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        self.flush();
        self.inner.write(bytes);
    }
    #[inline(always)]
    fn write_u8(&mut self, x: u8) {
        self.hold(x as u64);
    }
    #[inline(always)]
    fn write_u16(&mut self, x: u16) {
        self.hold(x as u64);
    }
    #[inline(always)]
    fn write_u32(&mut self, x: u32) {
        self.hold(x as u64);
    }
    #[inline(always)]
    fn write_u64(&mut self, x: u64) {
        self.hold(x);
    }
    #[inline(always)]
    fn write_usize(&mut self, x: usize) {
        self.hold(x as u64);
    }
    #[inline(always)]
    fn write_i8(&mut self, x: i8) {
        self.hold(x as i64 as u64);
    }
    #[inline(always)]
    fn write_i16(&mut self, x: i16) {
        self.hold(x as i64 as u64);
    }
    #[inline(always)]
    fn write_i32(&mut self, x: i32) {
        self.hold(x as i64 as u64);
    }
    #[inline(always)]
    fn write_i64(&mut self, x: i64) {
        self.hold(x as u64);
    }
    #[inline(always)]
    fn write_isize(&mut self, x: isize) {
        self.hold(x as i64 as u64);
    }
    #[inline(always)]
    fn write_u128(&mut self, x: u128) {
        self.flush();
        self.inner.write_u128(x);
    }
    #[inline(always)]
    fn write_i128(&mut self, x: i128) {
        self.flush();
        self.inner.write_i128(x);
    }
}

/// Key → value in open-addressed slots (see the module documentation).
pub struct GroupMap<K, V> {
    /// A power of two slots, or none before the first insert.
    slots: Box<[Option<(K, V)>]>,
    len: usize,
    /// 64 minus log2 of the slot count: a hash's top bits are its slot.
    shift: u32,
    /// The hashes are mixed further before their top bits are taken: set
    /// for good when the keys read more slots than a random hash would
    /// (integer keys in a stride the product spreads badly, say multiples
    /// of 65,536; see `spread_badly`).
    mixed: bool,
    /// The slots read to find every key once: each key's distance from
    /// its first slot, plus one.
    read: usize,
}

impl<K, V> Default for GroupMap<K, V> {
    fn default() -> Self {
        GroupMap {
            slots: Box::new([]),
            len: 0,
            shift: 64,
            mixed: false,
            read: 0,
        }
    }
}

/// Where a key is, or where it would go.
enum Probe {
    Found(usize),
    Vacant(usize),
}

/// A key's slot: its value, or the empty slot it would take.
pub enum Entry<'a, K, V> {
    Occupied(&'a mut V),
    Vacant(VacantEntry<'a, K, V>),
}

/// An empty slot for `key` (capacity for it is already reserved).
pub struct VacantEntry<'a, K, V> {
    slot: &'a mut Option<(K, V)>,
    len: &'a mut usize,
    key: K,
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    pub fn key(&self) -> &K {
        &self.key
    }

    pub fn insert(self, value: V) -> &'a mut V {
        *self.len += 1;
        &mut self.slot.insert((self.key, value)).1
    }
}

impl<K: Hash + Eq, V> GroupMap<K, V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of the key with hash `hash` that `is_key` accepts, or the
    /// first empty one of its probe sequence. There is one: at most 7/8 of
    /// the slots are full.
    #[inline(always)]
    fn probe_by(&self, hash: u64, is_key: impl Fn(&K) -> bool) -> Probe {
        debug_assert!(!self.slots.is_empty(), "a probe of a map without slots");
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            match &self.slots[i] {
                None => return Probe::Vacant(i),
                Some((k, _)) if is_key(k) => return Probe::Found(i),
                Some(_) => i = (i + 1) & mask,
            }
        }
    }

    /// The value of the key that `is_key` accepts, found by `hash`: a
    /// lookup by a borrowed view of the key (say `(Option<&str>, i32)` for
    /// `(Option<Str>, i32)`), so that no owned key is built for an existing
    /// group. `hash` must be the hash of the key itself: a tuple of views
    /// that each hash as their owned value (`&str` as `Str`, `&[u8]` as
    /// `Vec<u8>`, `Option<&T>` as `Option<T>`) hashes as the tuple of them.
    #[inline(always)]
    pub fn get_mut_by(&mut self, hash: u64, is_key: impl Fn(&K) -> bool) -> Option<&mut V> {
        let i = self.find_by(hash, is_key)?;
        Some(self.value_at(i))
    }

    /// The value of `key`, if it is in the map.
    #[inline(always)]
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.get_mut_by(hash(key), |k| k == key)
    }

    /// The entry of `key`, making room for it first if it is new.
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let h = hash(&key);
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            if let Some(i) = self.find_by(h, |k| *k == key) {
                return Entry::Occupied(self.value_at(i));
            }
            self.reserve(1);
        } else if self.len % 1024 == 0 && self.spread_badly() {
            self.remix();
        }
        match self.probe_by(h, |k| *k == key) {
            Probe::Found(i) => Entry::Occupied(self.value_at(i)),
            Probe::Vacant(i) => {
                let mask = self.slots.len() - 1;
                self.read += (i.wrapping_sub(self.home(h)) & mask) + 1;
                Entry::Vacant(VacantEntry {
                    slot: &mut self.slots[i],
                    len: &mut self.len,
                    key,
                })
            }
        }
    }

    /// The slot of the key `is_key` accepts, if it is in the map.
    #[inline(always)]
    fn find_by(&self, hash: u64, is_key: impl Fn(&K) -> bool) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        match self.probe_by(hash, is_key) {
            Probe::Found(i) => Some(i),
            Probe::Vacant(_) => None,
        }
    }

    /// The value in full slot `i`.
    #[inline(always)]
    fn value_at(&mut self, i: usize) -> &mut V {
        &mut self.slots[i].as_mut().expect("a found slot is full").1
    }

    /// Inserts `key` with `value` (replacing an existing value).
    pub fn insert(&mut self, key: K, value: V) {
        match self.entry(key) {
            Entry::Occupied(v) => *v = value,
            Entry::Vacant(e) => {
                e.insert(value);
            }
        }
    }

    /// The value of `key`, created by `init` if it is new.
    pub fn get_or_insert_with(&mut self, key: K, init: impl FnOnce() -> V) -> &mut V {
        match self.entry(key) {
            Entry::Occupied(v) => v,
            Entry::Vacant(e) => e.insert(init()),
        }
    }

    /// The first slot of a key's probe sequence.
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        let hash = if self.mixed { mix(hash) } else { hash };
        (hash >> self.shift) as usize
    }

    /// Makes room for `more` keys beyond those in the map.
    pub fn reserve(&mut self, more: usize) {
        let want = ((self.len + more).saturating_mul(8) / 7 + 1)
            .max(8)
            .next_power_of_two();
        if want <= self.slots.len() {
            return;
        }
        let old = std::mem::replace(&mut self.slots, (0..want).map(|_| None).collect());
        self.shift = 64 - want.trailing_zeros();
        self.read = self.place(old);
        if self.spread_badly() {
            self.remix();
        }
    }

    /// Whether the keys read more than a tenth more slots than a random
    /// hash would read on average to find a key at this load (linear
    /// probing: (1 + 1 / (1 - load)) / 2). Judged from a thousand keys on
    /// (small tables stay in the cache anyway), after each growth and each
    /// thousand new keys: a stride the product spreads badly can look fine
    /// while few keys are in (TPC-H's order keys, 8 of every 32 numbers,
    /// read 2.5 slots at 150k keys in 262,144 slots, a random hash 1.7).
    fn spread_badly(&self) -> bool {
        if self.mixed || self.len < 1024 {
            return false;
        }
        let load = self.len as f64 / self.slots.len() as f64;
        let random = self.len as f64 * (1.0 + 1.0 / (1.0 - load)) / 2.0;
        self.read as f64 > 1.1 * random
    }

    /// Mixes the hashes further from now on, and places the keys again.
    #[cold]
    fn remix(&mut self) {
        self.mixed = true;
        let n = self.slots.len();
        let old = std::mem::replace(&mut self.slots, (0..n).map(|_| None).collect());
        self.read = self.place(old);
    }

    /// Puts `entries` into the (larger, empty enough) slots; returns the
    /// slots read to place them, which is what finding them reads.
    fn place(&mut self, entries: Box<[Option<(K, V)>]>) -> usize {
        let mask = self.slots.len() - 1;
        let mut read = 0;
        for (k, v) in entries.into_vec().into_iter().flatten() {
            let h = hash(&k);
            let home = self.home(h);
            match self.probe_by(h, |_| false) {
                Probe::Vacant(i) => {
                    read += ((i.wrapping_sub(home)) & mask) + 1;
                    self.slots[i] = Some((k, v));
                }
                Probe::Found(_) => unreachable!("no key is accepted"),
            }
        }
        read
    }

    /// Every key and value, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.slots.iter().flatten().map(|(k, v)| (k, v))
    }
}

impl<K, V> IntoIterator for GroupMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::iter::Flatten<std::vec::IntoIter<Option<(K, V)>>>;

    /// Every key and value, in slot order.
    fn into_iter(self) -> Self::IntoIter {
        self.slots.into_vec().into_iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn keeps_every_key_once_across_growth_like_a_hash_map() {
        let mut mine: GroupMap<(Option<i32>, String), u64> = GroupMap::default();
        let mut want: HashMap<(Option<i32>, String), u64> = HashMap::new();
        let mut x: u64 = 7;
        for i in 0..50_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 9_000) as i32;
            let key = ((n % 7 != 0).then_some(n), format!("k{}", n % 13));
            *mine.get_or_insert_with(key.clone(), || 0) += i;
            *want.entry(key).or_default() += i;
            assert_eq!(mine.len(), want.len());
        }
        for (k, v) in &want {
            assert_eq!(mine.get_mut(k), Some(&mut v.clone()), "{k:?}");
        }
        assert_eq!(mine.get_mut(&(Some(1), "absent".into())), None);
        let listed: HashMap<_, _> = mine.iter().map(|(k, v)| (k.clone(), *v)).collect();
        assert_eq!(listed, want);
        let owned: HashMap<_, _> = mine.into_iter().collect();
        assert_eq!(owned, want);
    }

    #[test]
    fn views_of_keys_hash_and_find_as_the_keys() {
        use crate::value::Str;
        type Key = (Option<Str>, Option<i32>, Option<Vec<u8>>, Option<u64>);
        let mut m: GroupMap<Key, usize> = GroupMap::default();
        let texts = ["", "EU", "a text longer than twenty-two bytes", "ü"];
        let mut keys = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            for n in [None, Some(0), Some(-7)] {
                let bytes = (i % 2 == 0).then(|| t.as_bytes().to_vec());
                let owned: Key = ((i != 3).then(|| Str::from(*t)), n, bytes, Some(i as u64));
                m.insert(owned.clone(), keys.len());
                keys.push(owned);
            }
        }
        for (want, key) in keys.iter().enumerate() {
            let view = (key.0.as_deref(), key.1, key.2.as_deref(), key.3);
            let h = hash(&view);
            assert_eq!(h, hash(key), "{key:?}");
            let found = m.get_mut_by(h, |k| {
                k.0.as_deref() == view.0
                    && k.1 == view.1
                    && k.2.as_deref() == view.2
                    && k.3 == view.3
            });
            assert_eq!(found, Some(&mut want.clone()), "{key:?}");
        }
        let absent = (Some("XX"), None::<i32>, None::<&[u8]>, None::<u64>);
        let h = hash(&absent);
        assert!(m
            .get_mut_by(h, |k| k.0.as_deref() == absent.0 && k.1.is_none())
            .is_none());
    }

    /// Slots read on average to find each key of `keys` in a map of them.
    fn slots_read<K: Hash + Eq + Clone>(keys: impl Iterator<Item = K>) -> f64 {
        let mut m: GroupMap<K, ()> = GroupMap::default();
        let keys: Vec<K> = keys.collect();
        for k in &keys {
            m.insert(k.clone(), ());
        }
        let mask = m.slots.len() - 1;
        let read: usize = keys
            .iter()
            .map(|k| {
                let home = m.home(hash(k));
                match m.probe_by(hash(k), |x| x == k) {
                    Probe::Found(i) => ((i + m.slots.len() - home) & mask) + 1,
                    Probe::Vacant(_) => panic!("a key went missing"),
                }
            })
            .sum();
        read as f64 / keys.len() as f64
    }

    /// Dense integer ids (one key column) land about one per slot; strided
    /// ids (some spread badly by the product alone: multiples of 65,536),
    /// negative ones and keys of several columns read no more slots than a
    /// random hash's 2.6 at this load (100k keys in 131,072 slots).
    #[test]
    fn dense_integer_keys_read_about_one_slot() {
        let dense = slots_read((1..=100_000).map(|i| (Some(i),)));
        assert!(dense < 1.1, "{dense}");
        let negative = slots_read((-50_000..50_000i64).map(|i| (Some(i),)));
        assert!(negative < 1.1, "{negative}");
        for stride in [
            2i64,
            3,
            7,
            64,
            1000,
            1 << 12,
            86_400,
            1 << 16,
            1 << 20,
            1 << 32,
            86_400_000,
            1 << 40,
        ] {
            let strided = slots_read((0..100_000i64).map(|i| (Some(i * stride),)));
            assert!(strided < 2.8, "stride {stride}: {strided}");
        }
        // TPC-H's order keys, 8 of every 32 numbers: 150k keys in 262,144
        // slots read 2.5 slots by the product alone, a random hash 1.7.
        let orders = slots_read((0..150_000i64).map(|i| (Some(i / 8 * 32 + i % 8 + 1),)));
        assert!(orders < 1.9, "{orders}");
        let pairs = slots_read((0..100_000).map(|i| (Some(i / 24), Some(i % 24))));
        assert!(pairs < 2.8, "{pairs}");
        let texts = slots_read((0..100_000).map(|i| (Some(format!("user_{i:06}")),)));
        assert!(texts < 2.8, "{texts}");
    }

    #[test]
    fn entries_insert_only_new_keys_and_at_most_seven_eighths_of_the_slots_fill() {
        let mut m: GroupMap<i64, i64> = GroupMap::default();
        assert!(m.get_mut(&1).is_none());
        for round in 0..3 {
            for k in 0..1_000i64 {
                match m.entry(k * 31) {
                    Entry::Occupied(v) => {
                        assert!(round > 0, "key {k} found before it was inserted");
                        *v += 1;
                    }
                    Entry::Vacant(e) => {
                        assert_eq!(round, 0, "key {k} lost");
                        assert_eq!(*e.key(), k * 31);
                        e.insert(0);
                    }
                }
                assert!(m.len() * 8 <= m.slots.len() * 7);
            }
        }
        assert_eq!(m.len(), 1_000);
        assert!(m.iter().all(|(_, v)| *v == 2));
        m.insert(31, 9);
        assert_eq!(m.get_mut(&31), Some(&mut 9));
        assert_eq!(m.len(), 1_000);
        m.reserve(10_000);
        assert!(m.slots.len() * 7 > 11_000 * 8);
        assert_eq!(m.get_mut(&31), Some(&mut 9));
    }
}
