//! [`StringTable`]: interned strings addressed by [`StringIndex`].
//!
//! The texts sit end to end in one buffer with one `u32` end offset each, and the index is a
//! [`ProbeTable`] of (index, 32-bit hash) pairs: growing it never reads a text again, and a
//! probe reads a text only when the 32-bit hashes agree. 4 bytes per string besides its text,
//! plus 8–16 for the index (a `Vec<Box<str>>` plus a `HashMap<Box<str>, _>` held every text
//! twice, each in an allocation of its own).
//!
//! The profile builder's `module+0xoffset` names (one per address of a module without symbols:
//! 1.5M of them in a 300 MB recording) skip the index ([`StringTable::push_distinct`]): probing
//! it for texts known to be new was a tenth of the records pass. The index takes them in only
//! when a text that could equal one of them is interned.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use crate::ids::{CapacityError, StringIndex};
use crate::probe::{ProbeTable, Slot};

/// Interned strings; equal strings share one index.
#[derive(Clone, Debug, Default)]
pub struct StringTable {
    /// Every text, end to end.
    bytes: String,
    /// Per string, the end of its text in `bytes` (the start is the previous one's end).
    ends: Vec<u32>,
    /// Every string by its [`hash32`], except those in `unindexed`.
    index: ProbeTable<StringSlot>,
    /// Strings added by [`StringTable::push_distinct`] and not yet in `index`, as runs of
    /// indices `start..end` (most strings of a profile without symbols are such names).
    unindexed: Vec<(u32, u32)>,
}

/// Whether `s` could be a text that [`StringTable::push_distinct`] is given: an offset name,
/// `module+0xoffset` or `0xoffset`. (The name order's blocks of offset names,
/// `pruned_tree::name_rank`, rely on the same test.)
pub(crate) fn may_be_offset_name(s: &str) -> bool {
    s.starts_with("0x") || s.contains("+0x")
}

/// An entry of the index: (index into `ends`, [`hash32`] of its text); index `u32::MAX` (never
/// handed out) marks a free slot.
#[derive(Clone, Copy, Debug)]
struct StringSlot {
    string: u32,
    hash: u32,
}

impl Slot for StringSlot {
    const FREE: Self = StringSlot {
        string: u32::MAX,
        hash: 0,
    };

    fn is_free(&self) -> bool {
        self.string == u32::MAX
    }
}

/// The 32-bit hash of a text.
fn hash32(s: &str) -> u32 {
    let h = FxBuildHasher.hash_one(s);
    (h >> 32) as u32 ^ h as u32
}

/// The text of string `i` in (`bytes`, `ends`).
#[inline]
fn text<'a>(bytes: &'a str, ends: &[u32], i: usize) -> &'a str {
    let start = match i.checked_sub(1) {
        Some(p) => ends.get(p).copied().unwrap_or(0),
        None => 0,
    };
    let end = ends.get(i).copied().unwrap_or(0);
    bytes.get(start as usize..end as usize).unwrap_or("")
}

impl StringTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every text end to end, and each one's end in it (string `i` is
    /// `texts[ends[i - 1]..ends[i]]`, from 0 for the first): the table as two arrays, to copy
    /// whole.
    pub fn as_parts(&self) -> (&str, &[u32]) {
        (&self.bytes, &self.ends)
    }

    /// The index of `s`, adding it when new.
    pub fn intern(&mut self, s: &str) -> Result<StringIndex, CapacityError> {
        if !self.unindexed.is_empty() && may_be_offset_name(s) {
            self.index_unindexed();
        }
        let h = hash32(s);
        if let Some(i) = self.find_hashed(s, h) {
            return Ok(i);
        }
        let i = self.push(s)?;
        self.insert(i, h);
        Ok(i)
    }

    /// Adds `s` as a new string without looking for it: for a caller that knows no string
    /// equal to it is in the table, nor will be added this way again (the profile builder's
    /// `module+0xoffset` names, one per module and offset, of modules with distinct file
    /// names). `s` must start with "0x" or hold "+0x": [`StringTable::intern`] and
    /// [`StringTable::find`] look for such texts among these strings too.
    pub fn push_distinct(&mut self, s: &str) -> Result<StringIndex, CapacityError> {
        debug_assert!(may_be_offset_name(s), "not an offset name: {s:?}");
        let i = self.push(s)?;
        match self.unindexed.last_mut() {
            Some((_, end)) if *end == i.0 => *end += 1,
            _ => self.unindexed.push((i.0, i.0 + 1)),
        }
        Ok(i)
    }

    /// Puts the strings added by [`StringTable::push_distinct`] in the index.
    fn index_unindexed(&mut self) {
        let unindexed = std::mem::take(&mut self.unindexed);
        for i in unindexed.into_iter().flat_map(|(start, end)| start..end) {
            let i = StringIndex(i);
            let h = hash32(self.get(i));
            self.insert(i, h);
        }
    }

    /// Appends the text of a new string.
    fn push(&mut self, s: &str) -> Result<StringIndex, CapacityError> {
        let i = StringIndex::from_len(self.ends.len())
            .ok()
            .filter(|i| i.0 != u32::MAX)
            .ok_or(CapacityError { table: "string" })?;
        let end = u32::try_from(self.bytes.len() + s.len()).map_err(|_| CapacityError {
            table: "string bytes",
        })?;
        self.bytes.push_str(s);
        self.ends.push(end);
        Ok(i)
    }

    /// Adds string `i`, whose text has hash `h`, to the index.
    fn insert(&mut self, i: StringIndex, h: u32) {
        let slot = StringSlot {
            string: i.0,
            hash: h,
        };
        self.index.insert(u64::from(h), slot, |s| u64::from(s.hash));
    }

    /// The string at `i` (empty for an index from another table).
    #[inline]
    pub fn get(&self, i: StringIndex) -> &str {
        if i.index() >= self.ends.len() {
            return "";
        }
        text(&self.bytes, &self.ends, i.index())
    }

    /// The index of `s` if it is in the table.
    pub fn find(&self, s: &str) -> Option<StringIndex> {
        if let Some(i) = self.find_hashed(s, hash32(s)) {
            return Some(i);
        }
        if !may_be_offset_name(s) {
            return None;
        }
        // Strings not in the index are searched one by one: for a caller that looks up an
        // offset name after loading, which the views do not.
        let (bytes, ends) = (&self.bytes, &self.ends);
        self.unindexed
            .iter()
            .flat_map(|&(start, end)| start..end)
            .find(|&i| text(bytes, ends, i as usize) == s)
            .map(StringIndex)
    }

    /// [`StringTable::find`] given the text's [`hash32`].
    #[inline]
    fn find_hashed(&self, s: &str, h: u32) -> Option<StringIndex> {
        let (bytes, ends) = (&self.bytes, &self.ends);
        self.index
            .find(u64::from(h), |e| {
                e.hash == h && text(bytes, ends, e.string as usize) == s
            })
            .map(|e| StringIndex(e.string))
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no string was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Frees the unused capacity (the index stays: strings are looked up after loading).
    pub fn shrink(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.unindexed.shrink_to_fit();
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
            + crate::heap::vec_bytes(&self.ends)
            + self.index.heap_bytes()
            + crate::heap::vec_bytes(&self.unindexed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_share_an_index_and_read_back() {
        let mut t = StringTable::new();
        let words = ["", "main", "libc.so.6+0x1f00", "main", "", "ä;b", "mai"];
        let ids: Vec<StringIndex> = words.iter().map(|w| t.intern(w).unwrap()).collect();
        assert_eq!(
            ids.iter().map(|i| i.0).collect::<Vec<_>>(),
            vec![0, 1, 2, 1, 0, 3, 4]
        );
        for (w, i) in words.iter().zip(&ids) {
            assert_eq!(t.get(*i), *w);
            assert_eq!(t.find(w), Some(*i));
        }
        assert_eq!(t.len(), 5);
        assert_eq!(t.find("ma"), None);
        assert_eq!(t.get(StringIndex(5)), "");
        // As two arrays: the distinct texts in order, and where each ends (by hand).
        let (texts, ends) = t.as_parts();
        assert_eq!(texts, "mainlibc.so.6+0x1f00ä;bmai");
        assert_eq!(ends, [0, 4, 20, 24, 27]);
    }

    #[test]
    fn distinct_offset_names_are_found_and_interned_to_themselves() {
        let mut t = StringTable::new();
        assert_eq!(t.intern("main").unwrap(), StringIndex(0));
        assert_eq!(t.push_distinct("a.so+0x10").unwrap(), StringIndex(1));
        assert_eq!(t.push_distinct("0x20").unwrap(), StringIndex(2));
        assert_eq!(t.intern("b.so").unwrap(), StringIndex(3));
        assert_eq!(t.push_distinct("b.so+0x30").unwrap(), StringIndex(4));
        // Two runs of strings outside the index: 1..3 and 4..5.
        assert_eq!(t.unindexed, [(1, 3), (4, 5)]);
        // Found without the index; a text that is not an offset name is not searched there.
        assert_eq!(t.find("0x20"), Some(StringIndex(2)));
        assert_eq!(t.find("b.so+0x30"), Some(StringIndex(4)));
        assert_eq!(t.find("b.so+0x3"), None);
        assert_eq!(t.find("b.so"), Some(StringIndex(3)));
        // Interning a text that is not an offset name leaves them out of the index.
        assert_eq!(t.intern("free").unwrap(), StringIndex(5));
        assert_eq!(t.unindexed.len(), 2);
        // Interning an offset name puts them in it first, so an equal text is not added again.
        assert_eq!(t.intern("a.so+0x10").unwrap(), StringIndex(1));
        assert!(t.unindexed.is_empty());
        assert_eq!(t.intern("0x20").unwrap(), StringIndex(2));
        assert_eq!(t.len(), 6);
        let (texts, ends) = t.as_parts();
        assert_eq!(texts, "maina.so+0x100x20b.sob.so+0x30free");
        assert_eq!(ends, [4, 13, 17, 21, 30, 34]);
    }

    #[test]
    fn many_strings_survive_growth_and_shrinking() {
        let mut t = StringTable::new();
        for i in 0..10_000u32 {
            assert_eq!(t.intern(&format!("f{i:x}")).unwrap(), StringIndex(i));
        }
        t.shrink();
        for i in (0..10_000u32).rev() {
            assert_eq!(t.find(&format!("f{i:x}")), Some(StringIndex(i)));
            assert_eq!(t.get(StringIndex(i)), format!("f{i:x}"));
        }
        assert_eq!(t.intern("new").unwrap(), StringIndex(10_000));
    }
}
