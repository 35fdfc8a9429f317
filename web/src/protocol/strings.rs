//! A string table sent as two arrays: the UTF-8 bytes of every string one after the other, and
//! where each string ends. Cheap to transfer (no JS string per entry) and to look up.

/// Strings addressed by index; sent as `bytes` + `ends`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StringTable {
    bytes: Vec<u8>,
    ends: Vec<u32>,
}

impl StringTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a string; returns its index.
    pub fn push(&mut self, s: &str) -> u32 {
        self.bytes.extend_from_slice(s.as_bytes());
        // Tables above 4 GiB are not sent; clamp rather than wrap.
        self.ends
            .push(u32::try_from(self.bytes.len()).unwrap_or(u32::MAX));
        u32::try_from(self.ends.len() - 1).unwrap_or(u32::MAX)
    }

    /// Rebuilds a table from its two arrays. Out-of-order or out-of-range ends read as empty
    /// strings rather than failing: the table came from our own worker.
    pub fn from_parts(bytes: Vec<u8>, ends: Vec<u32>) -> Self {
        StringTable { bytes, ends }
    }

    /// The two arrays.
    pub fn into_parts(self) -> (Vec<u8>, Vec<u32>) {
        (self.bytes, self.ends)
    }

    /// String `i`; empty when `i` is out of range or not valid UTF-8.
    pub fn get(&self, i: u32) -> &str {
        let i = i as usize;
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 {
            0
        } else {
            self.ends.get(i - 1).copied().unwrap_or(0)
        };
        self.bytes
            .get(start as usize..end as usize)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no string.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Every string in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.ends.len()).map(|i| self.get(u32::try_from(i).unwrap_or(u32::MAX)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_its_parts() {
        let mut t = StringTable::new();
        assert_eq!(t.push("main"), 0);
        assert_eq!(t.push(""), 1);
        assert_eq!(t.push("ünïcode"), 2);
        let (bytes, ends) = t.clone().into_parts();
        assert_eq!(ends, vec![4, 4, 13]);
        let back = StringTable::from_parts(bytes, ends);
        assert_eq!(back, t);
        assert_eq!(back.iter().collect::<Vec<_>>(), vec!["main", "", "ünïcode"]);
        assert_eq!(back.get(3), "");
    }

    #[test]
    fn bad_ends_read_as_empty() {
        let t = StringTable::from_parts(b"abc".to_vec(), vec![2, 1, 99]);
        assert_eq!((t.get(0), t.get(1), t.get(2)), ("ab", "", ""));
    }
}
