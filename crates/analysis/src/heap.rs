//! Heap accounting: how many bytes a table holds on the heap, counted from the capacities of
//! its allocations (what the allocator reserved, used or not), not from the process. On wasm32
//! the profile lives in linear memory that never shrinks, so capacity is what costs.
//!
//! Hash tables are counted as hashbrown lays them out: one slot of `(K, V)` plus one control
//! byte per bucket, buckets = capacity rounded up to the table's load factor (7/8) and a power
//! of two. Allocator headers are not counted.

use std::collections::HashMap;

/// Bytes of a `Vec<T>`'s buffer.
pub fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}

/// Buckets of a hashbrown table that can hold `capacity` items.
pub fn buckets(capacity: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    if capacity < 8 {
        return if capacity < 4 { 4 } else { 8 };
    }
    (capacity.saturating_mul(8) / 7).next_power_of_two()
}

/// Bytes of a hashbrown table of `capacity` items of `slot` bytes each.
pub fn table_bytes(capacity: usize, slot: usize) -> usize {
    let b = buckets(capacity);
    if b == 0 {
        return 0;
    }
    // Control bytes: one per bucket plus a group's worth (16) at the end.
    b * slot + b + 16
}

/// Bytes of a `HashMap<K, V, S>`'s table (not of what its keys and values point to).
pub fn map_bytes<K, V, S>(m: &HashMap<K, V, S>) -> usize {
    table_bytes(m.capacity(), std::mem::size_of::<(K, V)>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_round_up_to_powers_of_two_at_seven_eighths() {
        assert_eq!(buckets(0), 0);
        assert_eq!(buckets(3), 4);
        assert_eq!(buckets(7), 8);
        // 14 items fit 16 buckets (14 = 16 * 7/8); 15 need 32.
        assert_eq!(buckets(14), 16);
        assert_eq!(buckets(15), 32);
        let mut m: HashMap<u64, u32> = HashMap::new();
        m.insert(1, 2);
        // hashbrown's smallest table for a few items has 3 usable of 4 buckets.
        assert_eq!(m.capacity(), 3);
        assert_eq!(map_bytes(&m), 4 * 16 + 4 + 16);
        let v: Vec<u32> = Vec::with_capacity(10);
        assert_eq!(vec_bytes(&v), 40);
    }
}
