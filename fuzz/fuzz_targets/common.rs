//! Helpers shared by the fuzz targets (included with `#[path]`, not a crate of its own).
#![allow(dead_code)]

use core::fmt::{self, Write};

use perfscope_format::bytes::Bytes;
use perfscope_format::features::{parse_feature, Feature, FeatureContext};
use perfscope_format::records::ReadValues;
use perfscope_format::{HeaderFeature, Record};

/// A `fmt::Write` that throws the text away but counts it, so `Display` and `Debug` impls run
/// over every decoded value (they read input-derived data too).
#[derive(Default)]
pub struct Sink(pub usize);

impl Write for Sink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.wrapping_add(s.len());
        Ok(())
    }
}

/// Decodes feature sections in order, as perf does: NRCPUS, once read, is the context of the
/// features after it (CPU_TOPOLOGY, CPU_DOMAIN_INFO).
pub fn parse_features<'a>(sections: impl Iterator<Item = (HeaderFeature, Bytes<'a>)>, sink: &mut Sink) {
    let mut ctx = FeatureContext::default();
    for (id, bytes) in sections {
        match parse_feature(id, bytes, &ctx) {
            Ok(f) => {
                if let Feature::NrCpus(n) = &f {
                    ctx.nr_cpus_avail = Some(n.available);
                    ctx.nr_cpus_online = Some(n.online);
                }
                let _ = write!(sink, "{f:?}");
            }
            Err(e) => {
                let _ = write!(sink, "{e}");
            }
        }
    }
}

/// Runs every accessor of a decoded record that reads more of the input lazily (callchain
/// items and frames, branch entries, read groups, registers, the user stack).
pub fn exercise_record(rec: &Record<'_>, sink: &mut Sink) {
    let _ = write!(sink, "{rec:?} {:?} {:?} {:?}", rec.time(), rec.event(), rec.sample_id());
    let Record::Sample(s) = rec else {
        return;
    };
    if let Some(c) = &s.callchain {
        let _ = write!(sink, "{:?}", c.deferred_cookie());
        for item in c.items() {
            let _ = write!(sink, "{item:?}");
        }
        for frame in c.frames() {
            let _ = write!(sink, "{frame:?}");
        }
    }
    if let Some(b) = &s.branch_stack {
        for e in b.entries() {
            let _ = write!(sink, "{e:?}");
        }
        let _ = write!(sink, "{:?}", b.get(usize::MAX));
    }
    if let Some(r) = &s.read {
        if let ReadValues::Group(g) = r.values {
            let n = g.iter().count();
            assert_eq!(n, g.len(), "a read group yields as many values as it says");
        }
    }
    for regs in [&s.regs_user, &s.regs_intr].into_iter().flatten() {
        for reg in 0..=64 {
            let _ = write!(sink, "{:?}", regs.get(reg));
        }
        let _ = write!(sink, "{}", regs.values.iter().count());
    }
    if let Some(st) = &s.stack_user {
        let _ = write!(sink, "{}", st.valid().len());
    }
    if let Some(w) = &s.weight {
        let _ = write!(sink, "{} {}", w.var1_dw(), w.var2_w());
    }
}

/// A `ReadAt` over the input that holds its callers to the contract (reads inside the file),
/// counting the bytes read.
pub struct Reader<'a> {
    pub data: &'a [u8],
    pub read: u64,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, read: 0 }
    }
}

impl perfscope_format::file::ReadAt for Reader<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> perfscope_format::Result<Vec<u8>> {
        let end = offset.checked_add(size).expect("read_at range overflows");
        assert!(end <= self.len(), "read_at({offset:#x}, {size:#x}) past the end {:#x}", self.len());
        self.read += size;
        Ok(self.data[offset as usize..end as usize].to_vec())
    }
}
