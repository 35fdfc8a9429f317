//! [`ProbeTable`]: the open-addressing hash table behind the loader's hottest lookups (the
//! builder's frame cache, the stack table's index, the string table's index).
//!
//! Each slot holds what a probe compares — the key, or a fingerprint of it, with the value — in
//! a few bytes, and collisions go to the next slot (linear probing), so a lookup reads one slot,
//! usually one cache line. A hashbrown table reads its control bytes, then the bucket: two places
//! in memory, neither in any cache once a recording has made millions of frames and stacks, and
//! the loader looks them up for every stack entry it does not share with a recent stack. (With
//! the three tables moved here, the records pass of a 300 MB unsymbolized system-wide recording
//! took 15–18 % less time; see BENCHMARKS.md, session 9.)

/// A slot of a [`ProbeTable`].
pub(crate) trait Slot: Copy {
    /// A free slot (a value the table's user never stores).
    const FREE: Self;

    /// Whether this is [`Slot::FREE`].
    fn is_free(&self) -> bool;
}

/// A table of a power of two of slots, at most 3/4 full.
#[derive(Clone, Debug)]
pub(crate) struct ProbeTable<T> {
    slots: Vec<T>,
    len: usize,
}

impl<T> Default for ProbeTable<T> {
    fn default() -> Self {
        ProbeTable {
            slots: Vec::new(),
            len: 0,
        }
    }
}

/// Slots of a table's first allocation.
const FIRST_CAPACITY: usize = 1 << 10;

/// The first slot of `hash`'s probe: the high half of a multiplication (tables have fewer than
/// 2^32 slots), so any 64-bit hash will do, even one whose low bits are alike.
#[inline]
fn start(hash: u64, mask: usize) -> usize {
    ((hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize) & mask
}

impl<T: Slot> ProbeTable<T> {
    /// The first slot on `hash`'s probe for which `eq` holds, before a free slot.
    #[inline]
    pub fn find(&self, hash: u64, mut eq: impl FnMut(&T) -> bool) -> Option<T> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = start(hash, mask);
        // Bounded by the table's size; a free slot comes first (the load stays ≤ 3/4).
        for _ in 0..self.slots.len() {
            let s = self.slots.get(i)?;
            if s.is_free() {
                return None;
            }
            if eq(s) {
                return Some(*s);
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Adds `slot` under `hash` (its key must not be in the table: [`ProbeTable::find`] first).
    /// When the table grows, `rehash` gives each entry's hash again. A free `slot` is not stored.
    pub fn insert(&mut self, hash: u64, slot: T, mut rehash: impl FnMut(&T) -> u64) {
        if slot.is_free() {
            return;
        }
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            let capacity = (self.slots.len() * 2).max(FIRST_CAPACITY);
            let old = std::mem::replace(&mut self.slots, vec![T::FREE; capacity]);
            for s in old.into_iter().filter(|s| !s.is_free()) {
                self.place(rehash(&s), s);
            }
        }
        self.place(hash, slot);
        self.len += 1;
    }

    /// Puts `slot` in the first free slot of `hash`'s probe.
    fn place(&mut self, hash: u64, slot: T) {
        let Some(mask) = self.slots.len().checked_sub(1) else {
            return;
        };
        let mut i = start(hash, mask);
        for _ in 0..self.slots.len() {
            match self.slots.get_mut(i) {
                Some(s) if s.is_free() => {
                    *s = slot;
                    return;
                }
                Some(_) => i = (i + 1) & mask,
                None => return,
            }
        }
    }

    /// Entries stored.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (key, value); value `u32::MAX` is free.
    impl Slot for (u64, u32) {
        const FREE: Self = (0, u32::MAX);
        fn is_free(&self) -> bool {
            self.1 == u32::MAX
        }
    }

    #[test]
    fn finds_what_was_inserted_across_growth_and_nothing_else() {
        let mut t: ProbeTable<(u64, u32)> = ProbeTable::default();
        assert_eq!(t.find(7, |_| true), None);
        // Kernel-range keys four apart; a hash with alike low bits (the identity).
        let key = |i: u32| 0xffff_ffff_8100_0000 + u64::from(i) * 4;
        for i in 0..10_000u32 {
            t.insert(key(i), (key(i), i), |s| s.0);
        }
        assert_eq!(t.len(), 10_000);
        assert!(t.slots.len() * 3 >= 10_000 * 4);
        for i in 0..10_000u32 {
            let k = key(i);
            assert_eq!(t.find(k, |s| s.0 == k), Some((k, i)), "{i}");
            assert_eq!(t.find(k + 1, |s| s.0 == k + 1), None);
        }
    }

    #[test]
    fn equal_hashes_probe_on_and_a_free_slot_is_not_stored() {
        let mut t: ProbeTable<(u64, u32)> = ProbeTable::default();
        // Every key under one hash: found by the comparison alone.
        for i in 0..100u32 {
            t.insert(42, (u64::from(i), i), |_| 42);
        }
        for i in 0..100u32 {
            assert_eq!(t.find(42, |s| s.0 == u64::from(i)), Some((u64::from(i), i)));
        }
        t.insert(1, (5, u32::MAX), |s| s.0);
        assert_eq!(t.len(), 100);
        assert_eq!(t.find(1, |s| s.0 == 5), None);
    }
}
