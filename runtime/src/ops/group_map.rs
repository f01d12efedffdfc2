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
//! Keys go to one of sixteen shards by the top bits of their hash (slots
//! by the low ones), each with its own slots. A shard grows apart from the
//! others, and merging two maps goes shard by shard, freeing each merged
//! shard: growing or merging never holds a second copy of the whole table,
//! only of one shard. (TPC-H q18 at SF 1 merges two threads' halves of 1.5M
//! groups: unsharded, both halves and the merged table were alive at
//! once, 50 MB more at the job's peak; bench/RESULTS.md, issue 13 step 19.)
//!
//! The map never removes a key. Like `std`'s, a shard grows (doubling,
//! rehashing every key) when more than 7/8 of its slots would be full: the
//! table's size decides whether it stays in the cache, and the same map at
//! most half full (twice the slots) was no faster than `std`'s. At 100k keys
//! in 131,072 slots, finding an existing key reads 2.6 adjacent slots on
//! average; a new key reads more, once per group. Iteration is in slot
//! order, which depends only on the keys (a fixed-seed hash), the capacity
//! and the order of insertion.

use std::hash::{BuildHasher, Hash};

use crate::util::FastState;

/// Shards of a map, chosen by a key's top hash bits: each grows (and is
/// merged) apart, so that growing or merging a large table never holds a
/// second copy of all of it, only of one shard.
const SHARD_BITS: u32 = 4;
const SHARDS: usize = 1 << SHARD_BITS;

/// The hash of a key in a [`GroupMap`], or of a view of it that hashes
/// alike (see [`GroupMap::get_mut_by`]).
#[inline(always)]
pub fn hash<Q: Hash + ?Sized>(key: &Q) -> u64 {
    FastState::default().hash_one(key)
}

/// The shard of a key with hash `hash` (its top bits; slots use the low ones).
#[inline(always)]
fn shard_of(hash: u64) -> usize {
    (hash >> (64 - SHARD_BITS)) as usize
}

/// One shard's slots, as [`GroupMap::into_shards`] gives them out.
pub type Slots<K, V> = Box<[Option<(K, V)>]>;

/// Key → value in open-addressed slots (see the module documentation).
pub struct GroupMap<K, V> {
    shards: [Shard<K, V>; SHARDS],
    len: usize,
    /// Slots of all shards together, kept so that `GroupTable::push`'s
    /// per-row size check reads one field, not sixteen.
    slots: usize,
}

/// One shard's slots: a power of two of them, or none before its first key.
struct Shard<K, V> {
    slots: Slots<K, V>,
    len: usize,
}

impl<K, V> Default for GroupMap<K, V> {
    fn default() -> Self {
        GroupMap {
            shards: std::array::from_fn(|_| Shard {
                slots: Box::new([]),
                len: 0,
            }),
            len: 0,
            slots: 0,
        }
    }
}

/// Where a key is, or where it would go (a slot of the key's shard).
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
    lens: [&'a mut usize; 2],
    key: K,
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    pub fn key(&self) -> &K {
        &self.key
    }

    pub fn insert(self, value: V) -> &'a mut V {
        for len in self.lens {
            *len += 1;
        }
        &mut self.slot.insert((self.key, value)).1
    }
}

impl<K: Hash + Eq, V> Shard<K, V> {
    /// The slot of the key with hash `hash` that `is_key` accepts, or the
    /// first empty one of its probe sequence. There is one: at most 7/8 of
    /// the slots are full.
    #[inline(always)]
    fn probe_by(&self, hash: u64, is_key: impl Fn(&K) -> bool) -> Probe {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match &self.slots[i] {
                None => return Probe::Vacant(i),
                Some((k, _)) if is_key(k) => return Probe::Found(i),
                Some(_) => i = (i + 1) & mask,
            }
        }
    }

    /// The slot of the key `is_key` accepts, if it is in the shard.
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

    /// The value in full slot `i` (one a probe found).
    #[inline(always)]
    fn value_at(&mut self, i: usize) -> &mut V {
        &mut self.slots[i].as_mut().expect("a found slot is full").1
    }

    /// Whether one more key would fill more than 7/8 of the slots.
    #[inline(always)]
    fn is_full(&self) -> bool {
        (self.len + 1) * 8 > self.slots.len() * 7
    }

    /// Makes room for `more` keys beyond those in the shard; gives the
    /// number of slots it added.
    fn reserve(&mut self, more: usize) -> usize {
        let want = ((self.len + more).saturating_mul(8) / 7 + 1)
            .max(8)
            .next_power_of_two();
        let had = self.slots.len();
        if want <= had {
            return 0;
        }
        let old = std::mem::replace(&mut self.slots, (0..want).map(|_| None).collect());
        for (k, v) in old.into_vec().into_iter().flatten() {
            let i = self.vacant_for(hash(&k));
            self.slots[i] = Some((k, v));
        }
        want - had
    }

    /// The first empty slot of the probe sequence of a key with `hash`
    /// that is not in the shard.
    #[inline(always)]
    fn vacant_for(&self, hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i].is_some() {
            i = (i + 1) & mask;
        }
        i
    }
}

impl<K: Hash + Eq, V> GroupMap<K, V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of the key that `is_key` accepts, found by `hash`: a
    /// lookup by a borrowed view of the key (say `(Option<&str>, i32)` for
    /// `(Option<Str>, i32)`), so that no owned key is built for an existing
    /// group. `hash` must be the hash of the key itself: a tuple of views
    /// that each hash as their owned value (`&str` as `Str`, `&[u8]` as
    /// `Vec<u8>`, `Option<&T>` as `Option<T>`) hashes as the tuple of them.
    #[inline(always)]
    pub fn get_mut_by(&mut self, hash: u64, is_key: impl Fn(&K) -> bool) -> Option<&mut V> {
        let shard = &mut self.shards[shard_of(hash)];
        let i = shard.find_by(hash, is_key)?;
        Some(shard.value_at(i))
    }

    /// Starts loading the slot where the probe for a key with `hash`
    /// begins (its first two cache lines), so that a lookup issued a few
    /// rows later finds it in the cache; see
    /// [`GroupTable::push`](super::group_table::GroupTable::push).
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        let slots = &self.shards[shard_of(hash)].slots;
        if slots.is_empty() {
            return;
        }
        let slot = &slots[hash as usize & (slots.len() - 1)];
        let p = (slot as *const Option<(K, V)>).cast::<u8>();
        crate::util::prefetch(p);
        // A slot that starts near a line's end reaches into the next one.
        crate::util::prefetch(p.wrapping_add(64));
    }

    /// Bytes of the slots (the table's part that lookups touch).
    #[inline(always)]
    pub fn slot_bytes(&self) -> usize {
        self.slots * std::mem::size_of::<Option<(K, V)>>()
    }

    /// The value of `key`, if it is in the map.
    #[inline(always)]
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.get_mut_by(hash(key), |k| k == key)
    }

    /// The entry of `key`, making room for it first if it is new.
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let h = hash(&key);
        let shard = &mut self.shards[shard_of(h)];
        if shard.is_full() {
            if let Some(i) = shard.find_by(h, |k| *k == key) {
                return Entry::Occupied(shard.value_at(i));
            }
            self.slots += shard.reserve(1);
        }
        match shard.probe_by(h, |k| *k == key) {
            Probe::Found(i) => Entry::Occupied(shard.value_at(i)),
            Probe::Vacant(i) => Entry::Vacant(VacantEntry {
                slot: &mut shard.slots[i],
                lens: [&mut shard.len, &mut self.len],
                key,
            }),
        }
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

    /// Moves every key of `other` into this map, `merge` folding the values
    /// of keys in both: shard by shard, each of `other`'s freed once moved,
    /// so the two maps never take more than their own slots plus one
    /// shard's growth.
    pub fn absorb(&mut self, other: GroupMap<K, V>, mut merge: impl FnMut(&mut V, V)) {
        if self.is_empty() {
            *self = other;
            return;
        }
        for (mine, theirs) in self.shards.iter_mut().zip(other.shards) {
            if theirs.len == 0 {
                continue;
            }
            self.slots += mine.reserve(theirs.len);
            for (k, v) in theirs.slots.into_vec().into_iter().flatten() {
                let h = hash(&k);
                match mine.probe_by(h, |x| *x == k) {
                    Probe::Found(i) => merge(mine.value_at(i), v),
                    Probe::Vacant(i) => {
                        mine.slots[i] = Some((k, v));
                        mine.len += 1;
                        self.len += 1;
                    }
                }
            }
        }
    }

    /// The keys and values shard by shard, each shard's slots a part of
    /// their own (empty shards left out): parts that threads can take.
    pub fn into_shards(self) -> Vec<Slots<K, V>> {
        self.shards
            .into_iter()
            .filter(|s| s.len > 0)
            .map(|s| s.slots)
            .collect()
    }

    /// Every key and value, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.shards
            .iter()
            .flat_map(|s| s.slots.iter().flatten().map(|(k, v)| (k, v)))
    }
}

impl<K, V> IntoIterator for GroupMap<K, V> {
    type Item = (K, V);
    type IntoIter = IntoIter<K, V>;

    /// Every key and value, in slot order; each shard's slots are freed
    /// once iterated.
    fn into_iter(self) -> Self::IntoIter {
        IntoIter {
            shards: self.shards.into_iter(),
            slots: Vec::new().into_iter(),
        }
    }
}

/// [`GroupMap::into_iter`]'s iterator.
pub struct IntoIter<K, V> {
    shards: std::array::IntoIter<Shard<K, V>, SHARDS>,
    slots: std::vec::IntoIter<Option<(K, V)>>,
}

impl<K, V> Iterator for IntoIter<K, V> {
    type Item = (K, V);

    fn next(&mut self) -> Option<(K, V)> {
        loop {
            for slot in self.slots.by_ref() {
                if slot.is_some() {
                    return slot;
                }
            }
            self.slots = self.shards.next()?.slots.into_vec().into_iter();
        }
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
                assert!(m.shards.iter().all(|s| s.len * 8 <= s.slots.len() * 7));
                assert_eq!(
                    m.slots,
                    m.shards.iter().map(|s| s.slots.len()).sum::<usize>()
                );
            }
        }
        assert_eq!(m.len(), 1_000);
        assert!(m.iter().all(|(_, v)| *v == 2));
        m.insert(31, 9);
        assert_eq!(m.get_mut(&31), Some(&mut 9));
        assert_eq!(m.len(), 1_000);
        assert_eq!(m.get_mut(&31), Some(&mut 9));
    }

    #[test]
    fn absorbing_a_map_adds_its_keys_and_folds_shared_ones() {
        let mut a: GroupMap<i64, i64> = GroupMap::default();
        let mut b: GroupMap<i64, i64> = GroupMap::default();
        for k in 0..30_000i64 {
            a.insert(k, 1);
        }
        for k in 20_000..50_000i64 {
            b.insert(k, 10);
        }
        a.absorb(b, |x, y| *x += y);
        assert_eq!(a.len(), 50_000);
        assert_eq!(
            a.slots,
            a.shards.iter().map(|s| s.slots.len()).sum::<usize>()
        );
        for k in 0..50_000i64 {
            let want = match k {
                ..20_000 => 1,
                20_000..30_000 => 11,
                _ => 10,
            };
            assert_eq!(a.get_mut(&k), Some(&mut { want }), "{k}");
        }
        // Every shard holds keys, each within 7/8 of its slots.
        assert!(a
            .shards
            .iter()
            .all(|s| s.len > 0 && s.len * 8 <= s.slots.len() * 7));
        let mut empty: GroupMap<i64, i64> = GroupMap::default();
        empty.absorb(a, |_, _| unreachable!("nothing to fold into an empty map"));
        assert_eq!(empty.len(), 50_000);
        let sum: i64 = empty.into_iter().map(|(_, v)| v).sum();
        assert_eq!(sum, 20_000 + 10_000 * 11 + 20_000 * 10);
    }
}
