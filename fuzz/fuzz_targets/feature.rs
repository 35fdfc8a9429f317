//! Entry point: one header feature section, `features::parse_feature`.
//!
//! Input layout (see ../seed.sh, which writes real sections this way):
//! - byte 0: bits 0-5 the feature id (0-63: every known id, 1-32, and unknown ones), bit 7
//!   big-endian;
//! - byte 1: bit 0 gives a `FeatureContext` (the NRCPUS values) from bytes 2-9
//!   (`nr_cpus_avail`, `nr_cpus_online`, u32 little-endian), which are present either way;
//! - bytes 10..: the section, at absolute offset 0x1000.
#![no_main]

use core::fmt::Write;

use libfuzzer_sys::fuzz_target;
use perfscope_format::bytes::Bytes;
use perfscope_format::features::{parse_feature, FeatureContext};
use perfscope_format::{Endianness, HeaderFeature};

#[path = "common.rs"]
mod common;
use common::Sink;

fuzz_target!(|data: &[u8]| {
    let Some((head, section)) = data.split_at_checked(10) else {
        return;
    };
    let id = HeaderFeature(u32::from(head[0] & 0x3f));
    let endian = if head[0] & 0x80 != 0 { Endianness::Big } else { Endianness::Little };
    let ctx = if head[1] & 1 != 0 {
        FeatureContext {
            nr_cpus_avail: Some(u32::from_le_bytes([head[2], head[3], head[4], head[5]])),
            nr_cpus_online: Some(u32::from_le_bytes([head[6], head[7], head[8], head[9]])),
        }
    } else {
        FeatureContext::default()
    };
    let mut sink = Sink::default();
    match parse_feature(id, Bytes::new(section, 0x1000, endian), &ctx) {
        Ok(f) => {
            assert_eq!(f.id(), id, "a feature comes back with the id it was parsed as");
            let _ = write!(sink, "{f:?}");
        }
        Err(e) => {
            assert!(
                (0x1000..=0x1000 + section.len() as u64).contains(&e.offset),
                "error offset {:#x} outside the section [0x1000, {:#x}]: {e}",
                e.offset,
                0x1000 + section.len() as u64
            );
            let _ = write!(sink, "{e}");
        }
    }
    std::hint::black_box(sink.0);
});
