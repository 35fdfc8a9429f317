//! The byte order of the functions' names ([`name_ranks`]), which orders siblings in the pruned
//! layout.
//!
//! Most names of an unsymbolized profile are `file+0xoffset` (one per distinct address: 6.5M
//! of them in a 1.5 GB system-wide recording). Sorted as strings, names of one file share
//! their start, and every place after the first read each name's bytes again at random. Here
//! such a name sorts by its file's group and its hex digits, read once in the order the names
//! were made; only the other names and one text per group go through the string sort. The
//! order is the same byte order: see [`offset_form`] for why, and the cases that fall back to
//! sorting every name as a string.

use std::collections::HashMap;

use crate::ids::{FuncIndex, ModuleIndex, StringIndex};
use crate::msd::msd_sort;
use crate::profile::Profile;
use crate::stack_table::module_file_name;
use crate::string_table::may_be_offset_name;

/// Per function of `profile`, the rank of its name among the functions' names in byte order:
/// equal names have equal ranks, and the empty name (also that of a missing function) is 0.
/// The string table holds each text once, so ranks are given to string indices.
pub(crate) fn name_ranks(profile: &Profile) -> Vec<u32> {
    let order = offset_order(profile).unwrap_or_else(|| string_order(profile));
    let strings = &profile.strings;
    // Rank 0 is the empty name's, present or not.
    let first = u32::from(
        order
            .first()
            .is_some_and(|&s| !strings.get(StringIndex(s)).is_empty()),
    );
    let mut rank_of = vec![0u32; strings.len()];
    for (r, &s) in order.iter().enumerate() {
        if let Some(slot) = rank_of.get_mut(s as usize) {
            *slot = r as u32 + first;
        }
    }
    (0..profile.funcs.len())
        .map(|f| {
            name_of(profile, f)
                .and_then(|n| rank_of.get(n.index()).copied())
                .unwrap_or(0)
        })
        .collect()
}

fn name_of(profile: &Profile, f: usize) -> Option<StringIndex> {
    profile.funcs.get(FuncIndex(f as u32)).map(|f| f.name)
}

/// 7 bytes of `text` from `depth` (zeros past the end) and how many of them there are (a text
/// sorts before the texts it starts; a zero byte in a text would look like the padding).
fn key7(text: &[u8], depth: usize) -> u64 {
    let tail = text.get(depth..).unwrap_or(&[]);
    let count = tail.len().min(7);
    let mut bytes = [0u8; 8];
    if let (Some(to), Some(from)) = (bytes.get_mut(..count), tail.get(..count)) {
        to.copy_from_slice(from);
    }
    if let Some(last) = bytes.last_mut() {
        *last = count as u8;
    }
    u64::from_be_bytes(bytes)
}

/// Whether [`key7`] keys that are equal need the next place compared.
fn key7_more(k: u64) -> bool {
    k & 0xff == 7
}

/// The names in use, each once, sorted as strings, most significant bytes first ([`msd_sort`]).
fn string_order(profile: &Profile) -> Vec<u32> {
    let strings = &profile.strings;
    // The names in use, once each: counted first, so that the sort's items take one block of
    // their size (a doubling `Vec` of 1.26M items took 67 MB, and grew the wasm memory).
    let mut used = vec![false; strings.len()];
    for name in (0..profile.funcs.len()).filter_map(|f| name_of(profile, f)) {
        if let Some(seen) = used.get_mut(name.index()) {
            *seen = true;
        }
    }
    // 16-byte items (an 8-byte key): 20 MB for 1.26M names, 40 MB with 16-byte keys.
    let mut items: Vec<(u64, u32)> = Vec::with_capacity(used.iter().filter(|&&u| u).count());
    items.extend(
        used.iter()
            .enumerate()
            .filter(|(_, &u)| u)
            .map(|(s, _)| (0, s as u32)),
    );
    drop(used);
    let key = |s: u32, depth: usize| key7(strings.get(StringIndex(s)).as_bytes(), depth);
    msd_sort(&mut items, 7, &key, &key7_more, false);
    items.into_iter().map(|(_, s)| s).collect()
}

/// Hex digits of an offset name that fit [`digits_key`] (a `u64` written out).
const MAX_DIGITS: usize = 16;

/// The sort key of the hex digits `digits` (lowercase, 1 to [`MAX_DIGITS`] of them): the
/// digits' values left-aligned in 64 bits, then their count. Lowercase hex digits have the
/// byte order of their values, so these keys compare as the digit strings' bytes do (a string
/// before the longer ones it starts).
fn digits_key(digits: &[u8]) -> Option<(u64, u8)> {
    if digits.is_empty() || digits.len() > MAX_DIGITS {
        return None;
    }
    // Selects, not a branch per digit: the digits of addresses are random.
    let mut v = 0u64;
    let mut hex = true;
    for &d in digits {
        let digit = d.wrapping_sub(b'0') < 10;
        let letter = d.wrapping_sub(b'a') < 6;
        hex &= digit | letter;
        let n = if digit {
            d.wrapping_sub(b'0')
        } else {
            d.wrapping_sub(b'a' - 10)
        };
        v = (v << 4) | u64::from(n & 0xf);
    }
    if !hex {
        return None;
    }
    // (`checked_shl`: no shift for 16 digits.)
    let aligned = v
        .checked_shl(4 * (MAX_DIGITS - digits.len()) as u32)
        .unwrap_or(v);
    Some((aligned, digits.len() as u8))
}

/// If `text` is `start` followed by hex digits (lowercase, 1 to [`MAX_DIGITS`]), their key.
///
/// The texts `start + digits` of one start (`file+0x`, or `0x` for an address without a
/// module) sort among themselves as their digits do, and as a block among all other names,
/// where `start` itself would sort, provided that:
/// - no other name starts with `start` (no other name contains `+0x` or starts with `0x`);
/// - no start is the start of another (no file name contains `+0x` or starts with `0x`).
///
/// A name `n` that does not start with `start` differs from it at a place both have, which
/// then decides against every text of the block; or `n` is shorter, a start of `start`, and so
/// sorts before all of them. [`offset_order`] checks both conditions, and otherwise the names
/// are sorted as strings.
fn offset_form(text: &[u8], start: &[u8]) -> Option<(u64, u8)> {
    digits_key(text.strip_prefix(start)?)
}

/// [`string_order`], with the offset names sorted by group and digits (see the module's
/// documentation); `None` when the names do not meet [`offset_form`]'s conditions or there are
/// few offset names.
fn offset_order(profile: &Profile) -> Option<Vec<u32>> {
    let strings = &profile.strings;
    // Groups by file name; the modules' groups (`usize::MAX` for none).
    let mut starts: Vec<String> = vec!["0x".into()];
    let mut by_file: HashMap<&str, usize> = HashMap::new();
    let mut group_of = Vec::with_capacity(profile.modules.len());
    for m in 0..profile.modules.len() {
        let Some(module) = profile.modules.get(ModuleIndex(m as u32)) else {
            group_of.push(usize::MAX);
            continue;
        };
        let path = strings.get(module.path);
        let file = module_file_name(path);
        if may_be_offset_name(file) {
            return None;
        }
        let next = starts.len();
        let g = *by_file.entry(file).or_insert(next);
        if g == next {
            starts.push(format!("{file}+0x"));
        }
        group_of.push(g);
    }
    // Each name once, in order of first use: an offset name as (digits key, string, digit
    // count, group), 16 bytes; any other as its string.
    let group_count = u16::try_from(starts.len()).ok()?;
    let mut seen = vec![false; strings.len()];
    let mut members: Vec<OffsetName> = Vec::with_capacity(profile.funcs.len());
    let mut others: Vec<u32> = Vec::new();
    for f in 0..profile.funcs.len() {
        let Some(func) = profile.funcs.get(FuncIndex(f as u32)) else {
            continue;
        };
        let Some(first) = seen.get_mut(func.name.index()) else {
            continue;
        };
        if std::mem::replace(first, true) {
            continue;
        }
        let group = match func.module {
            Some(m) => group_of.get(m.index()).copied().unwrap_or(usize::MAX),
            None => 0,
        };
        let text = strings.get(func.name);
        let key = starts
            .get(group)
            .and_then(|start| offset_form(text.as_bytes(), start.as_bytes()));
        match key {
            Some((digits, len)) => members.push((digits, func.name.0, len, group as u16)),
            None if may_be_offset_name(text) => return None,
            None => others.push(func.name.0),
        }
    }
    drop(seen);
    if members.len() < others.len() {
        // Mostly named functions: no gain.
        return None;
    }
    // By group, then digits: each group a run.
    let bounds = sort_members(&mut members, usize::from(group_count));
    // The other names and the groups' starts, sorted as strings: items below `others.len()`
    // are names, the rest groups.
    let n_others = others.len();
    let mut items: Vec<(u64, u32)> = (0..(n_others + starts.len()) as u32)
        .map(|i| (0, i))
        .collect();
    let text = |i: u32| -> &[u8] {
        let i = i as usize;
        match others.get(i) {
            Some(&s) => strings.get(StringIndex(s)).as_bytes(),
            None => starts.get(i - n_others).map_or(&[], |s| s.as_bytes()),
        }
    };
    msd_sort(
        &mut items,
        7,
        &|i, depth| key7(text(i), depth),
        &key7_more,
        false,
    );
    let mut order = Vec::with_capacity(n_others + members.len());
    for &(_, i) in &items {
        let i = i as usize;
        match others.get(i) {
            Some(&s) => order.push(s),
            None => {
                let g = i - n_others;
                let (Some(&lo), Some(&hi)) = (bounds.get(g), bounds.get(g + 1)) else {
                    continue;
                };
                if let Some(run) = members.get(lo..hi) {
                    order.extend(run.iter().map(|&(_, s, _, _)| s));
                }
            }
        }
    }
    Some(order)
}

/// An offset name: (digits key, string, digit count, group).
type OffsetName = (u64, u32, u8, u16);

/// Places `src`'s items in `dst` (as long) by `bucket` (below `buckets`), in `src`'s order
/// within each bucket; returns each bucket's start in `dst`, and `dst`'s length last.
fn scatter<T: Copy>(
    src: &[T],
    dst: &mut [T],
    buckets: usize,
    bucket: impl Fn(&T) -> usize,
) -> Vec<usize> {
    let mut counts = vec![0usize; buckets];
    for x in src {
        if let Some(c) = counts.get_mut(bucket(x)) {
            *c += 1;
        }
    }
    scatter_counted(src, dst, &counts, bucket)
}

/// [`scatter`] given how many items each bucket has.
fn scatter_counted<T: Copy>(
    src: &[T],
    dst: &mut [T],
    counts: &[usize],
    bucket: impl Fn(&T) -> usize,
) -> Vec<usize> {
    let mut bounds = Vec::with_capacity(counts.len() + 1);
    let mut sum = 0;
    for &n in counts {
        bounds.push(sum);
        sum += n;
    }
    bounds.push(sum);
    let mut at = bounds.clone();
    for x in src {
        if let Some(c) = at.get_mut(bucket(x)) {
            if let Some(slot) = dst.get_mut(*c) {
                *slot = *x;
            }
            *c += 1;
        }
    }
    bounds
}

/// Sorts `members` by group (below `groups`), then digits key and count; returns each
/// group's start, and the length last. Counting sorts: by group, then each group's items by
/// count and by each byte of the digits key, least significant first (a byte all items share,
/// such as the top bytes of kernel addresses, is skipped).
fn sort_members(members: &mut [OffsetName], groups: usize) -> Vec<usize> {
    let mut by_group = vec![(0, 0, 0, 0); members.len()];
    let bounds = scatter(members, &mut by_group, groups, |m| usize::from(m.3));
    for g in 0..groups {
        let (Some(&lo), Some(&hi)) = (bounds.get(g), bounds.get(g + 1)) else {
            continue;
        };
        let (Some(src), Some(dst)) = (by_group.get_mut(lo..hi), members.get_mut(lo..hi)) else {
            continue;
        };
        radix_sort(src, dst);
    }
    bounds
}

/// Sorts `items` by (digits key, count) into `out` (as long; `items` is scratch after).
fn radix_sort(items: &mut [OffsetName], out: &mut [OffsetName]) {
    // The passes: the count, then the key's bytes from the least significant; each pass's
    // histogram from one read.
    let byte = |m: &OffsetName, pass: usize| -> usize {
        match pass {
            0 => usize::from(m.2),
            p => ((m.0 >> (8 * (p - 1))) & 0xff) as usize,
        }
    };
    let mut counts = [[0usize; 256]; 9];
    for m in items.iter() {
        for (pass, c) in counts.iter_mut().enumerate() {
            if let Some(n) = c.get_mut(byte(m, pass)) {
                *n += 1;
            }
        }
    }
    // Where the items are now: `items` (false) or `out` (true).
    let mut in_out = false;
    for (pass, c) in counts.iter().enumerate() {
        if c.contains(&items.len()) {
            continue;
        }
        let (src, dst): (&[OffsetName], &mut [OffsetName]) =
            if in_out { (out, items) } else { (items, out) };
        scatter_counted(src, dst, c, |m| byte(m, pass));
        in_out = !in_out;
    }
    if !in_out {
        out.copy_from_slice(items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack_table::Func;

    /// A profile of functions named `names`, each in the module of the same position in
    /// `modules` (a path, or none).
    fn profile(names: &[&str], modules: &[Option<&str>]) -> Profile {
        let mut p = Profile::new();
        for (name, module) in names.iter().zip(modules) {
            let module = module.map(|m| p.intern_module(m, None).unwrap());
            let name = p.strings.intern(name).unwrap();
            p.funcs.intern(Func { name, module }).unwrap();
        }
        p
    }

    /// The ranks as the functions' names sorted by `str`'s order (bytes), equal names with
    /// equal ranks, from 1 (0 for the empty name).
    fn expected(p: &Profile) -> Vec<u32> {
        let mut names: Vec<&str> = (0..p.funcs.len())
            .map(|f| p.strings.get(name_of(p, f).unwrap()))
            .collect();
        names.sort_unstable();
        names.dedup();
        let first = u32::from(names.first().is_some_and(|n| !n.is_empty()));
        (0..p.funcs.len())
            .map(|f| {
                let n = p.strings.get(name_of(p, f).unwrap());
                names.binary_search(&n).unwrap() as u32 + first
            })
            .collect()
    }

    #[test]
    fn digit_keys_compare_as_the_digit_strings() {
        let mut texts: Vec<String> = ["0", "1", "10", "100", "1f", "2", "a", "ab", "f", "ff"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        texts.push("f".repeat(MAX_DIGITS));
        texts.push(format!("1{}", "0".repeat(MAX_DIGITS - 1)));
        let mut by_key = texts.clone();
        by_key.sort_by_key(|t| digits_key(t.as_bytes()).unwrap());
        assert_eq!(std::mem::size_of::<(u64, u32, u8, u16)>(), 16);
        texts.sort();
        assert_eq!(by_key, texts);
        assert_eq!(digits_key(b""), None);
        assert_eq!(digits_key(b"A"), None);
        assert_eq!(digits_key("1".repeat(MAX_DIGITS + 1).as_bytes()), None);
    }

    #[test]
    fn offset_names_rank_in_the_byte_order_of_all_names() {
        // Two modules of one file name, file names that start one another ("libc.so" and
        // "libc.so.6"; "a" and "a+b"), names without a module, named functions between and
        // around the blocks, the empty name, offsets of 1 to 16 digits.
        let mut names = Vec::new();
        let mut modules = Vec::new();
        let paths = [
            Some("/usr/lib/libc.so.6"),
            Some("/usr/lib/libc.so"),
            Some("/opt/x/libc.so.6"),
            Some("/bin/a"),
            Some("/bin/a+b"),
            Some("[kernel.kallsyms]"),
            None,
        ];
        let mut x = 0x9e3779b97f4a7c15u64;
        for i in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let path = paths[i % paths.len()];
            let digits = (x % 16) as u32 + 1;
            let offset = x.rotate_left(8) & (u64::MAX >> (64 - 4 * digits));
            let file = path.map(|p| p.rsplit('/').next().unwrap());
            names.push(match file {
                Some(f) => format!("{f}+0x{offset:x}"),
                None => format!("0x{offset:x}"),
            });
            modules.push(path);
        }
        for (name, module) in [
            ("", None),
            ("main", Some("/bin/a")),
            ("libc.so.6", Some("/usr/lib/libc.so.6")),
            ("libc.so.6+", Some("/usr/lib/libc.so.6")),
            ("libc.so.6+1", None),
            ("[unknown]", None),
            ("a", Some("/bin/a")),
            ("0", None),
            ("0y", None),
            // Leading zeros (not written by the builder, but in the same order).
            ("libc.so.6+0x01", Some("/usr/lib/libc.so.6")),
            ("libc.so.6+0x0", Some("/usr/lib/libc.so.6")),
            ("libc.so.6+0x00", Some("/usr/lib/libc.so.6")),
        ] {
            names.push(name.to_string());
            modules.push(module);
        }
        let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let p = profile(&refs, &modules);
        assert!(offset_order(&p).is_some(), "the offset path is taken");
        assert_eq!(name_ranks(&p), expected(&p));
        // The same by the string sort.
        let strings = string_order(&p);
        assert_eq!(offset_order(&p).unwrap(), strings);
    }

    #[test]
    fn names_that_break_the_block_rule_are_sorted_as_strings() {
        let base: Vec<String> = (0..20).map(|i| format!("libc.so.6+0x{i:x}")).collect();
        let libc = Some("/usr/lib/libc.so.6");
        for (odd, module) in [
            // A named function inside the block; uppercase digits; a start of another file's
            // block; 17 digits.
            ("libc.so.6+0x1_x", libc),
            ("libc.so.6+0xA", libc),
            ("0x10", Some("/usr/lib/libc.so.6")),
            ("libc.so.6+0x10000000000000000", libc),
        ] {
            let mut names: Vec<&str> = base.iter().map(|s| s.as_str()).collect();
            names.push(odd);
            let mut modules = vec![libc; base.len()];
            modules.push(module);
            let p = profile(&names, &modules);
            assert!(offset_order(&p).is_none(), "{odd}");
            assert_eq!(name_ranks(&p), expected(&p), "{odd}");
        }
        // A file name that holds `+0x`.
        let p = profile(
            &["f+0x1+0x2", "f+0x1+0x3"],
            &[Some("/f+0x1"), Some("/f+0x1")],
        );
        assert!(offset_order(&p).is_none());
        assert_eq!(name_ranks(&p), expected(&p));
    }
}
