//! Helpers shared by the fuzz targets (included with `#[path]`, not a crate of its own).
#![allow(dead_code)]

use core::fmt::{self, Write};

use perfscope_format::bytes::Bytes;
use perfscope_format::features::{parse_feature, Feature, FeatureContext};
use perfscope_format::HeaderFeature;

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
