//! Entry point: a whole input in memory, as `perfscope info` / `stats` / `script` and the web
//! page read it.
//!
//! - `walk::walk`: file or pipe mode, every record framed, COMPRESSED records decompressed, and
//!   every record decoded with `Metadata::parse` (samples delivered as `perfscope stats` does);
//!   the timestamp read without decoding (`EventTable::record_time`) must be the decoded one;
//! - `PerfFile::parse` and every feature section through `parse_feature` (for a pipe-mode
//!   input, the HEADER_FEATURE payloads the walk collected);
//! - `Summary::from_bytes`, the header summary of `perfscope info`.
#![no_main]

use core::fmt::Write;

use libfuzzer_sys::fuzz_target;
use perfscope_analysis::delivery::SampleDelivery;
use perfscope_format::bytes::Bytes;
use perfscope_format::walk::Item;
use perfscope_format::{PerfFile, Record};

#[path = "common.rs"]
mod common;
use common::{exercise_record, parse_features, Sink};

fuzz_target!(|data: &[u8]| {
    let mut sink = Sink::default();
    let mut delivery = SampleDelivery::new();
    let mut delivered = 0u64;

    let walked = perfscope_format::walk::walk(data, &[], |meta, _, item| match item {
        Item::Record(raw) => match meta.parse(raw) {
            Ok(rec) => {
                assert_eq!(
                    meta.events.record_time(raw),
                    rec.time(),
                    "record_time and the decoded time differ for the record at {:#x}",
                    raw.offset
                );
                if let Record::Sample(s) = &rec {
                    delivery.deliver(&meta.events, s, |_, p| delivered = delivered.wrapping_add(p));
                }
                exercise_record(&rec, &mut sink);
            }
            Err(e) => {
                let _ = write!(sink, "{e}");
            }
        },
        Item::Error(e) => {
            let _ = write!(sink, "{e}");
        }
    });
    match walked {
        Ok(meta) if meta.pipe => {
            let sections = meta
                .features
                .iter()
                .map(|s| (s.feature, Bytes::new(&s.bytes, s.offset, meta.endian)));
            parse_features(sections, &mut sink);
        }
        Ok(_) => {}
        Err(e) => {
            let _ = write!(sink, "{e}");
        }
    }

    if let Ok(file) = PerfFile::parse(data) {
        for w in &file.warnings {
            let _ = write!(sink, "{w}");
        }
        parse_features(file.feature_sections(), &mut sink);
    }

    let summary = perfscope_analysis::summary::Summary::from_bytes(data);
    let _ = write!(sink, "{summary:?}");
    std::hint::black_box((sink.0, delivered));
});
