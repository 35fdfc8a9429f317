//! Address spaces: the MMAP/MMAP2 mappings of each process and of the kernel, and the
//! translation of a run-time address into (module, file-relative address).
//!
//! A new mapping replaces the parts of older ones it overlaps (perf's
//! `maps__fixup_overlappings`): the pieces left and right survive with adjusted pgoff.

use crate::ids::ModuleIndex;

/// One mapping: `[start, end)` of a process maps the module's file from `pgoff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// File offset mapped at `start`.
    pub pgoff: u64,
    /// The module.
    pub module: ModuleIndex,
    /// Whether addresses translate one to one (kernel, JIT/anonymous memory): the file-relative
    /// address is then the run-time address.
    pub identity: bool,
}

impl Mapping {
    /// The file-relative address of `addr` (perf's `map__map_ip`).
    pub fn map_ip(&self, addr: u64) -> u64 {
        if self.identity {
            addr
        } else {
            addr.wrapping_sub(self.start).wrapping_add(self.pgoff)
        }
    }
}

/// The mappings of one address space, sorted by start, never overlapping.
#[derive(Clone, Debug, Default)]
pub struct AddressSpace {
    maps: Vec<Mapping>,
}

impl AddressSpace {
    /// Inserts a mapping, cutting older mappings where they overlap.
    pub fn insert(&mut self, m: Mapping) {
        if m.end <= m.start {
            return;
        }
        let mut kept = Vec::with_capacity(self.maps.len() + 2);
        for old in self.maps.drain(..) {
            if old.end <= m.start || old.start >= m.end {
                kept.push(old);
                continue;
            }
            if old.start < m.start {
                kept.push(Mapping {
                    end: m.start,
                    ..old
                });
            }
            if old.end > m.end {
                let cut = m.end - old.start;
                let pgoff = if old.identity {
                    old.pgoff
                } else {
                    old.pgoff.wrapping_add(cut)
                };
                kept.push(Mapping {
                    start: m.end,
                    pgoff,
                    ..old
                });
            }
        }
        let pos = kept.partition_point(|x| x.start < m.start);
        kept.insert(pos, m);
        self.maps = kept;
    }

    /// The mapping containing `addr`.
    pub fn find(&self, addr: u64) -> Option<&Mapping> {
        let i = self
            .maps
            .partition_point(|m| m.start <= addr)
            .checked_sub(1)?;
        self.maps.get(i).filter(|m| addr < m.end)
    }

    /// The mapping containing `addr` (if any) and the range of addresses [`AddressSpace::find`]
    /// answers the same way: the mapping's, or the gap between mappings around `addr`.
    pub fn find_range(&self, addr: u64) -> (Option<&Mapping>, (u64, u64)) {
        let i = self.maps.partition_point(|m| m.start <= addr);
        let before = i.checked_sub(1).and_then(|b| self.maps.get(b));
        match before {
            Some(m) if addr < m.end => (Some(m), (m.start, m.end)),
            _ => {
                let lo = before.map_or(0, |m| m.end);
                let hi = self.maps.get(i).map_or(u64::MAX, |m| m.start);
                (None, (lo, hi))
            }
        }
    }

    /// All mappings in address order.
    pub fn mappings(&self) -> &[Mapping] {
        &self.maps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_the_mapping_or_the_gap_around_an_address() {
        let mut s = AddressSpace::default();
        let m = |start, end| Mapping {
            start,
            end,
            pgoff: 0,
            module: ModuleIndex(0),
            identity: false,
        };
        s.insert(m(0x1000, 0x2000));
        s.insert(m(0x3000, 0x4000));
        let range = |a| s.find_range(a).1;
        assert_eq!(range(0x10), (0, 0x1000));
        assert_eq!(range(0x1000), (0x1000, 0x2000));
        assert_eq!(range(0x1fff), (0x1000, 0x2000));
        assert_eq!(range(0x2000), (0x2000, 0x3000));
        assert_eq!(range(0x4000), (0x4000, u64::MAX));
        assert_eq!(range(u64::MAX), (0x4000, u64::MAX));
        assert!(s.find_range(0x2800).0.is_none());
        assert_eq!(s.find_range(0x3800).0.map(|m| m.start), Some(0x3000));
        assert_eq!(AddressSpace::default().find_range(5), (None, (0, u64::MAX)));
    }

    #[test]
    fn overlapping_mappings_are_cut() {
        let mut s = AddressSpace::default();
        let m = |start, end, pgoff, module| Mapping {
            start,
            end,
            pgoff,
            module: ModuleIndex(module),
            identity: false,
        };
        s.insert(m(0x1000, 0x5000, 0x0, 0));
        s.insert(m(0x2000, 0x3000, 0x0, 1));
        assert_eq!(
            s.mappings(),
            &[
                m(0x1000, 0x2000, 0, 0),
                m(0x2000, 0x3000, 0, 1),
                m(0x3000, 0x5000, 0x2000, 0)
            ]
        );
        // ip 0x3010 in the right piece keeps its file offset: 0x3010 - 0x1000 = 0x2010.
        assert_eq!(s.find(0x3010).map(|x| x.map_ip(0x3010)), Some(0x2010));
        assert_eq!(s.find(0x5000), None);
        assert_eq!(s.find(0xfff), None);
    }
}
