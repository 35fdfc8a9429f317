//! Parsing throughput over a big recording.
//!
//! Make one with `scripts/make-big-profile.sh 300 /tmp/big.data` and run
//! `PERFSCOPE_BIG_PROFILE=/tmp/big.data cargo bench -p perfscope-format`.
//! The baseline is a bare walk over the record headers of the same bytes, so the figures to
//! read are the ratios against it.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use perfscope_format::reader::RecordReader;
use perfscope_format::PerfFile;

mod common;

use common::{big_profile, header_walk};

fn bench(c: &mut Criterion) {
    let Some(bytes) = big_profile() else {
        eprintln!(
            "SKIPPED: set PERFSCOPE_BIG_PROFILE to a big perf.data (scripts/make-big-profile.sh)"
        );
        return;
    };
    let file = PerfFile::parse(&bytes).expect("a file-mode perf.data");
    let (data, offset) = file.data_section();
    let mut g = c.benchmark_group("parse");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("baseline: record header walk", |b| {
        b.iter(|| header_walk(data))
    });
    g.bench_function("framed records (RecordReader)", |b| {
        b.iter(|| {
            let mut r = RecordReader::new(data, offset, file.endian());
            let mut n = 0u64;
            while let Some(rec) = r.next_record() {
                n += rec.is_ok() as u64;
            }
            n
        })
    });
    let meta = perfscope_format::metadata::Metadata::from_file(&file);
    g.bench_function("decode every record and callchain", |b| {
        b.iter(|| {
            let mut r = RecordReader::new(data, offset, file.endian());
            let (mut samples, mut frames) = (0u64, 0u64);
            while let Some(Ok(raw)) = r.next_record() {
                if let Ok(perfscope_format::Record::Sample(s)) = meta.parse(&raw) {
                    samples += 1;
                    if let Some(chain) = s.callchain {
                        frames += chain.frames().count() as u64;
                    }
                }
            }
            (samples, frames)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
