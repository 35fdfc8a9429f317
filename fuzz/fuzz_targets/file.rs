//! Entry point: a whole input in memory, as `perfscope info` / `stats` / `script` and the web
//! page read it.
//!
//! - `walk::walk`: file or pipe mode, every record framed, COMPRESSED records decompressed, and
//!   every record decoded with `Metadata::parse` (samples delivered as `perfscope stats` does);
//!   the timestamp read without decoding (`EventTable::record_time`) must be the decoded one;
//! - `PerfFile::parse` and every feature section through `parse_feature` (for a pipe-mode
//!   input, the HEADER_FEATURE payloads the walk collected);
//! - `FileLayout::read_from` + `Metadata::from_layout`, the browser's random-access path: only
//!   reads inside the file, and the same layout, errors and metadata as `PerfFile::parse`;
//! - `Summary::from_bytes`, the header summary of `perfscope info`.
#![no_main]

use core::fmt::Write;

use libfuzzer_sys::fuzz_target;
use perfscope_analysis::delivery::SampleDelivery;
use perfscope_format::bytes::Bytes;
use perfscope_format::file::FileLayout;
use perfscope_format::metadata::Metadata;
use perfscope_format::walk::Item;
use perfscope_format::{PerfFile, Record};

#[path = "common.rs"]
mod common;
use common::{exercise_record, parse_features, Reader, Sink};

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

    let file = PerfFile::parse(data);
    if let Ok(file) = &file {
        for w in &file.warnings {
            let _ = write!(sink, "{w}");
        }
        parse_features(file.feature_sections(), &mut sink);
    }
    if perfscope_format::Magic::parse(data).is_ok_and(|m| !m.pipe) {
        random_access(data, &file);
    }

    let summary = perfscope_analysis::summary::Summary::from_bytes(data);
    let _ = write!(sink, "{summary:?}");
    std::hint::black_box((sink.0, delivered));
});

/// Reads the file as the browser does and checks it against the whole-file reading.
fn random_access(data: &[u8], file: &perfscope_format::Result<PerfFile<'_>>) {
    let mut r = Reader::new(data);
    let layout = FileLayout::read_from(&mut r);
    let (layout, file) = match (layout, file) {
        (Ok(l), Ok(f)) => (l, f),
        (Err(a), Err(b)) => {
            assert_eq!(&a, b, "read_from and PerfFile::parse fail differently");
            return;
        }
        (l, f) => panic!("read_from gives {:?}, PerfFile::parse {:?}", l.err(), f.as_ref().err()),
    };
    assert_eq!(layout.header, file.header);
    assert_eq!(layout.attrs, file.attrs);
    assert_eq!(layout.warnings, file.warnings);
    let (section, offset) = file.data_section();
    assert_eq!((layout.data.offset, layout.data.size), (offset, section.len() as u64));
    let (meta, errors) = Metadata::from_layout(&layout, &mut r);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(meta.features, Metadata::from_file(file).features);
}
