//! [`StringTable`]: interned strings addressed by [`StringIndex`].
//!
//! The texts sit end to end in one buffer with one `u32` end offset each, and the index is a
//! [`ProbeTable`] of (index, 32-bit hash) pairs: growing it never reads a text again, and a
//! probe reads a text only when the 32-bit hashes agree. 4 bytes per string besides its text,
//! plus 8–16 for the index (a `Vec<Box<str>>` plus a `HashMap<Box<str>, _>` held every text
//! twice, each in an allocation of its own).

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
    /// Every string by its [`hash32`].
    index: ProbeTable<StringSlot>,
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
        let h = hash32(s);
        if let Some(i) = self.find_hashed(s, h) {
            return Ok(i);
        }
        let i = StringIndex::from_len(self.ends.len())
            .ok()
            .filter(|i| i.0 != u32::MAX)
            .ok_or(CapacityError { table: "string" })?;
        let end = u32::try_from(self.bytes.len() + s.len()).map_err(|_| CapacityError {
            table: "string bytes",
        })?;
        self.bytes.push_str(s);
        self.ends.push(end);
        let slot = StringSlot {
            string: i.0,
            hash: h,
        };
        self.index.insert(u64::from(h), slot, |s| u64::from(s.hash));
        Ok(i)
    }

    /// The string at `i` (empty for an index from another table).
    #[inline]
    pub fn get(&self, i: StringIndex) -> &str {
        if i.index() >= self.ends.len() {
            return "";
        }
        text(&self.bytes, &self.ends, i.index())
    }

    /// The index of `s` if it was interned.
    pub fn find(&self, s: &str) -> Option<StringIndex> {
        self.find_hashed(s, hash32(s))
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
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + crate::heap::vec_bytes(&self.ends) + self.index.heap_bytes()
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
