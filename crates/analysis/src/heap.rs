//! Heap accounting: how many bytes a table holds on the heap, counted from the capacities of
//! its allocations (what the allocator reserved, used or not), not from the process. On wasm32
//! the profile lives in linear memory that never shrinks, so capacity is what costs.
//!
//! Hash tables are counted as hashbrown lays them out: one slot of `(K, V)` plus one control
//! byte per bucket, buckets = capacity rounded up to the table's load factor (7/8) and a power
//! of two. Allocator headers are not counted.

use std::collections::HashMap;

/// How many more items a full growing column of `len` items gets room for: a quarter more
/// (at least 1024), where `Vec` would double. The sample columns grow this way (the other big
/// columns are in fixed blocks, [`crate::chunked`]): they end at most 25% larger than needed
/// instead of up to 100%, and on wasm32, where a grown buffer is copied and its old block stays in the heap, the blocks freed by
/// earlier growths add up to more than the next size, so the allocator can reuse them instead
/// of growing the memory (with doubling they never suffice). The cost is more copies: about 5
/// times the final size in all instead of 2.
pub fn growth(len: usize) -> usize {
    (len / 4).max(1024)
}

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

    /// Pushes `item` onto `v`, growing it by [`growth`] when full (as the sample table does).
    fn push_growing<T>(v: &mut Vec<T>, item: T) {
        if v.len() == v.capacity() {
            v.reserve_exact(growth(v.len()));
        }
        v.push(item);
    }

    #[test]
    fn growing_columns_end_at_most_a_quarter_too_big() {
        let mut v = Vec::new();
        for n in 1..=1_000_000u32 {
            push_growing(&mut v, n);
            let n = n as usize;
            assert!(
                v.capacity() <= n + (n / 4).max(1024),
                "{} for {n}",
                v.capacity()
            );
        }
        assert_eq!(
            v.iter().map(|&x| u64::from(x)).sum::<u64>(),
            1_000_000 * 1_000_001 / 2
        );
        // 1M items: at most 1.25M slots (doubling: 2^20 = 1,048,576 here, but up to 2M).
        assert!(v.capacity() <= 1_250_000, "{}", v.capacity());
    }
}
