//! [`StringTable`]: interned strings addressed by [`StringIndex`].

use rustc_hash::FxHashMap as HashMap;

use crate::ids::{CapacityError, StringIndex};

/// Interned strings; equal strings share one index.
#[derive(Clone, Debug, Default)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, StringIndex>,
}

impl StringTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The index of `s`, adding it when new.
    pub fn intern(&mut self, s: &str) -> Result<StringIndex, CapacityError> {
        if let Some(&i) = self.index.get(s) {
            return Ok(i);
        }
        let i = StringIndex::from_len(self.strings.len())?;
        self.strings.push(s.into());
        self.index.insert(s.into(), i);
        Ok(i)
    }

    /// The string at `i` (empty for an index from another table).
    pub fn get(&self, i: StringIndex) -> &str {
        self.strings.get(i.index()).map_or("", |s| s)
    }

    /// The index of `s` if it was interned.
    pub fn find(&self, s: &str) -> Option<StringIndex> {
        self.index.get(s).copied()
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether no string was interned.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}
