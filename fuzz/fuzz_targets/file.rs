//! Entry point: a whole input in memory, as `perfscope info` / `stats` and the web page read it.
//!
//! - `walk::walk`: file or pipe mode, every record framed, COMPRESSED records decompressed;
//! - `PerfFile::parse` and every feature section through `parse_feature` (for a pipe-mode
//!   input, the HEADER_FEATURE payloads the walk collected);
//! - `Summary::from_bytes`, the header summary of `perfscope info`.
#![no_main]

use core::fmt::Write;

use libfuzzer_sys::fuzz_target;
use perfscope_format::bytes::Bytes;
use perfscope_format::PerfFile;

#[path = "common.rs"]
mod common;
use common::{parse_features, Sink};

fuzz_target!(|data: &[u8]| {
    let mut sink = Sink::default();

    let mut records = 0u64;
    let mut errors = Sink::default();
    let walked = perfscope_format::walk::walk(
        data,
        &[],
        |_, rec| {
            records += 1;
            let _ = write!(sink, "{:?}", rec.header);
        },
        |e| {
            let _ = write!(errors, "{e}");
        },
    );
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
    std::hint::black_box((records, sink.0, errors.0));
});
