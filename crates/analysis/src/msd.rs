//! Sorting items by a sequence of keys, most significant first: each item's key for the
//! first places, sorted; then each run of equal keys by the keys of the next places. Items
//! sort in a compact array of (key, item) pairs, and an item's data is read once per step
//! (the strings and lines sorted here share long starts, which a comparison sort would read
//! again at every comparison).

/// Sorts `elems` (key, item) by the sequence `key(item, 0)`, `key(item, step)`,
/// `key(item, 2 · step)`, …; `more(key)` tells whether items with equal `key` have further
/// places to compare (not when they ended). With `threads`, the runs after the first step
/// are shared with a second thread. Keys are `u128` (16-byte places) or `u64` (items half
/// the size, 8-byte places).
pub(crate) fn msd_sort<T, K, M>(
    elems: &mut [(T, u32)],
    step: usize,
    key: &K,
    more: &M,
    threads: bool,
) where
    T: Copy + Ord + Default + Send,
    K: Fn(u32, usize) -> T + Sync,
    M: Fn(T) -> bool + Sync,
{
    let fill = |range: &mut [(T, u32)], depth: usize| {
        for e in range.iter_mut() {
            e.0 = key(e.1, depth);
        }
        range.sort_unstable_by_key(|e| e.0);
    };
    // The runs of equal keys in `part` (sorted at `depth`) still to sort, as (start, stop,
    // next depth).
    let runs =
        |part: &[(T, u32)], depth: usize, offset: usize, todo: &mut Vec<(usize, usize, usize)>| {
            let mut i = 0;
            while i < part.len() {
                let k = part.get(i).map_or(T::default(), |e| e.0);
                let run = part
                    .get(i..)
                    .map_or(0, |r| r.iter().take_while(|e| e.0 == k).count())
                    .max(1);
                if run > 1 && more(k) {
                    todo.push((offset + i, offset + i + run, depth + step));
                }
                i += run;
            }
        };
    let refine = |part: &mut [(T, u32)], mut todo: Vec<(usize, usize, usize)>| {
        while let Some((start, stop, depth)) = todo.pop() {
            let Some(range) = part.get_mut(start..stop) else {
                continue;
            };
            fill(range, depth);
            runs(range, depth, start, &mut todo);
        }
    };
    if threads && elems.len() > 1024 {
        // The first keys in two halves, then one sort.
        let (a, b) = elems.split_at_mut(elems.len() / 2);
        let keys = |part: &mut [(T, u32)]| {
            for e in part.iter_mut() {
                e.0 = key(e.1, 0);
            }
        };
        std::thread::scope(|scope| {
            scope.spawn(|| keys(b));
            keys(a);
        });
        elems.sort_unstable_by_key(|e| e.0);
    } else {
        fill(elems, 0);
    }
    if threads && elems.len() > 1024 {
        let len = elems.len();
        let half = len / 2;
        let mut todo = Vec::new();
        runs(elems, 0, 0, &mut todo);
        // A big run across the middle is sorted further here first, so that the halves are
        // about even (lines often share their first places: a command and its roots).
        while let Some(k) = todo
            .iter()
            .position(|&(s, e, _)| s <= half && half < e && e - s > len / 8)
        {
            let (start, stop, depth) = todo.swap_remove(k);
            let Some(range) = elems.get_mut(start..stop) else {
                break;
            };
            fill(range, depth);
            runs(range, depth, start, &mut todo);
        }
        // Split at the middle, or at the end of the (small) run across it.
        let mid = todo
            .iter()
            .find(|&&(s, e, _)| s <= half && half < e)
            .map_or(half, |&(_, e, _)| e);
        let (left_todo, right_todo): (Vec<_>, Vec<_>) =
            todo.into_iter().partition(|&(_, e, _)| e <= mid);
        let right_todo: Vec<_> = right_todo
            .into_iter()
            .map(|(s, e, d)| (s - mid, e - mid, d))
            .collect();
        let (left, right) = elems.split_at_mut(mid);
        std::thread::scope(|scope| {
            scope.spawn(|| refine(right, right_todo));
            refine(left, left_todo);
        });
    } else {
        let mut todo = Vec::new();
        runs(elems, 0, 0, &mut todo);
        refine(elems, todo);
    }
}

/// Sorts `elems` by key (equal keys in no given order): with `threads`, each half on a
/// thread, then the halves merged on two.
pub(crate) fn sort_by_key<T: Copy + Ord + Default + Send + Sync>(
    elems: &mut [(T, u32)],
    threads: bool,
) {
    if !threads || elems.len() < 1 << 14 {
        return elems.sort_unstable_by_key(|e| e.0);
    }
    let (a, b) = elems.split_at_mut(elems.len() / 2);
    std::thread::scope(|scope| {
        scope.spawn(|| b.sort_unstable_by_key(|e| e.0));
        a.sort_unstable_by_key(|e| e.0);
    });
    let (a, b) = elems.split_at(elems.len() / 2);
    // The first half's middle key splits both halves.
    let mid = a.len() / 2;
    let pivot = a.get(mid).map_or(T::default(), |e| e.0);
    let j = b.partition_point(|e| e.0 < pivot);
    let mut out = vec![(T::default(), 0u32); elems.len()];
    let (low, high) = out.split_at_mut(mid + j);
    let (a_low, a_high) = a.split_at(mid);
    let (b_low, b_high) = b.split_at(j);
    std::thread::scope(|scope| {
        scope.spawn(|| merge(a_high, b_high, high));
        merge(a_low, b_low, low);
    });
    elems.copy_from_slice(&out);
}

/// Merges the sorted `a` and `b` into `out` (their total length).
fn merge<T: Copy + Ord>(mut a: &[(T, u32)], mut b: &[(T, u32)], out: &mut [(T, u32)]) {
    for slot in out.iter_mut() {
        let next = match (a.split_first(), b.split_first()) {
            (Some((x, rest)), Some((y, _))) if x.0 <= y.0 => {
                a = rest;
                x
            }
            (_, Some((y, rest))) => {
                b = rest;
                y
            }
            (Some((x, rest)), None) => {
                a = rest;
                x
            }
            (None, None) => return,
        };
        *slot = *next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_sequences_place_by_place_on_one_or_two_threads() {
        // Items are indices into `seqs`; one place per step; 0 ends a sequence.
        let mut seqs: Vec<Vec<u128>> = Vec::new();
        let mut x = 12345u64;
        for _ in 0..5000 {
            let mut s = Vec::new();
            for _ in 0..(x % 7) + 1 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push(u128::from((x >> 60) % 3 + 1));
            }
            seqs.push(s);
        }
        let mut want: Vec<u32> = (0..seqs.len() as u32).collect();
        want.sort_by(|&a, &b| seqs[a as usize].cmp(&seqs[b as usize]));
        let want: Vec<&Vec<u128>> = want.iter().map(|&i| &seqs[i as usize]).collect();
        for threads in [false, true] {
            let mut elems: Vec<(u128, u32)> = (0..seqs.len() as u32).map(|i| (0, i)).collect();
            let key = |i: u32, depth: usize| seqs[i as usize].get(depth).copied().unwrap_or(0);
            msd_sort(&mut elems, 1, &key, &|k| k != 0, threads);
            let got: Vec<&Vec<u128>> = elems.iter().map(|e| &seqs[e.1 as usize]).collect();
            assert_eq!(got, want, "threads: {threads}");
            // The same with 8-byte keys.
            let mut elems: Vec<(u64, u32)> = (0..seqs.len() as u32).map(|i| (0, i)).collect();
            let key = |i: u32, depth: usize| seqs[i as usize].get(depth).map_or(0, |&k| k as u64);
            msd_sort(&mut elems, 1, &key, &|k| k != 0, threads);
            let got: Vec<&Vec<u128>> = elems.iter().map(|e| &seqs[e.1 as usize]).collect();
            assert_eq!(got, want, "threads: {threads}, u64 keys");
        }
    }

    #[test]
    fn sorts_by_key_on_one_or_two_threads() {
        let mut x = 99u64;
        let elems: Vec<(u64, u32)> = (0..40_000u32)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 50, i)
            })
            .collect();
        let mut want = elems.clone();
        want.sort();
        for threads in [false, true] {
            let mut got = elems.clone();
            sort_by_key(&mut got, threads);
            let keys: Vec<u64> = got.iter().map(|e| e.0).collect();
            let want_keys: Vec<u64> = want.iter().map(|e| e.0).collect();
            assert_eq!(keys, want_keys, "threads: {threads}");
            got.sort();
            assert_eq!(got, want, "the same items, threads: {threads}");
        }
    }
}
