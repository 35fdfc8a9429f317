//! `stats` and `collapse` over a big recording, each beside the floor it is measured against
//! (issue #6): a bare walk over the record headers of the same bytes.
//!
//! Make a recording with `scripts/make-big-profile.sh 300 /tmp/big.data` and run
//! `PERFSCOPE_BIG_PROFILE=/tmp/big.data cargo bench -p perfscope-analysis`. Without the
//! variable every benchmark is skipped with a message. The figures to read are the ratios
//! against the header walk; `scripts/bench.sh` measures the command-line tools end to end.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::collapse::{collapse, collapse_threaded, Collapsed, Unsupported};
use perfscope_analysis::delivery::SampleDelivery;
use perfscope_analysis::export::folded::{write_folded, FoldedOptions};
use perfscope_analysis::load::{load_profile, load_sectioned, EventNames, LoadError, LoadOptions};
use perfscope_analysis::samples::SampleFilter;
use perfscope_format::file::ReadAt;
use perfscope_format::walk::{walk, Item};
use perfscope_format::{PerfFile, Record, RecordType};

#[path = "../../format/benches/common/mod.rs"]
mod common;

use common::{big_profile, header_walk};

/// What `perfscope stats` does: count records by type, decode every sample to count it for its
/// event (leader sampling delivers one per read value), name the events.
fn stats(bytes: &[u8]) -> (usize, Vec<u64>, Vec<String>) {
    let mut counts = [0u64; 128];
    let mut other_counts = std::collections::BTreeMap::<u32, u64>::new();
    let mut per_event = vec![0u64; 64];
    let mut delivery = SampleDelivery::new();
    let mut names = EventNames::default();
    let meta = walk(bytes, &[], |meta, _, item| {
        let Item::Record(rec) = item else { return };
        names.observe(rec);
        match counts.get_mut(rec.type_().0 as usize) {
            Some(n) => *n += 1,
            None => *other_counts.entry(rec.type_().0).or_default() += 1,
        }
        if rec.type_() == RecordType::SAMPLE {
            if let Ok(Record::Sample(s)) = meta.parse(rec) {
                delivery.deliver(&meta.events, &s, |e, _| {
                    if let Some(n) = per_event.get_mut(e.index()) {
                        *n += 1;
                    }
                });
            }
        }
    })
    .unwrap();
    let names = (0..meta.attrs.len())
        .map(|i| names.name(&meta, i))
        .collect();
    (
        counts.iter().filter(|n| **n > 0).count() + other_counts.len(),
        per_event,
        names,
    )
}

fn no_symbols() -> LoadOptions {
    LoadOptions {
        symbolize: false,
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    }
}

struct Slices<'a>(&'a [u8]);

impl ReadAt for Slices<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> perfscope_format::Result<Vec<u8>> {
        Ok(self.0[offset as usize..(offset + size) as usize].to_vec())
    }
}

fn bench(c: &mut Criterion) {
    let Some(bytes) = big_profile() else {
        eprintln!(
            "SKIPPED: set PERFSCOPE_BIG_PROFILE to a big perf.data (scripts/make-big-profile.sh)"
        );
        return;
    };
    let file = PerfFile::parse(&bytes).expect("a file-mode perf.data");
    let (data, _) = file.data_section();
    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("baseline: record header walk", |b| {
        b.iter(|| header_walk(data))
    });
    g.bench_function("stats", |b| b.iter(|| stats(&bytes)));
    g.bench_function("collapse --no-symbols: load_profile", |b| {
        b.iter(|| {
            load_profile(&bytes, &[], no_symbols())
                .unwrap()
                .0
                .samples
                .len()
        })
    });
    g.bench_function("collapse --no-symbols: load_sectioned, 4 MiB chunks", |b| {
        b.iter(|| {
            load_sectioned(&mut Slices(&bytes), 4 << 20, no_symbols(), |_, _| {})
                .unwrap()
                .0
                .samples
                .len()
        })
    });
    // What `perfscope collapse --no-symbols` runs (the fast path, without building a
    // profile): counted on one thread, and on the command's threads, then written.
    type Collapse = fn(&[u8], &[&[u8]]) -> Result<Result<Collapsed, Unsupported>, LoadError>;
    for (name, run) in [
        ("one thread", collapse as Collapse),
        ("threads", collapse_threaded),
    ] {
        g.bench_function(format!("collapse --no-symbols: command, {name}"), |b| {
            b.iter(|| {
                let folded = run(&bytes, &[]).unwrap().unwrap();
                let mut out = CountingSink(0);
                folded.write(&mut out).unwrap();
                out.0
            })
        });
    }
    let (profile, _) = load_profile(&bytes, &[], no_symbols()).unwrap();
    g.bench_function("collapse --no-symbols: folded text", |b| {
        b.iter(|| {
            let mut out = CountingSink(0);
            write_folded(
                &profile,
                &SampleFilter::all(),
                FoldedOptions::default(),
                &mut out,
            )
            .unwrap();
            out.0
        })
    });
    g.finish();
    tree(c, &profile);
}

/// The flame-graph queries of the page on the loaded profile: the first (the index, the whole
/// time's weights, the pruned layout), and a refilter to 90 % of the time (from the whole
/// time's weights less the samples outside it, beside computing it afresh) and to 2 %. The
/// browser target (a refilter drawn in < 200 ms) is checked by scripts/bench-browser.sh; these
/// are the parts, natively.
fn tree(c: &mut Criterion, profile: &perfscope_analysis::profile::Profile) {
    use perfscope_analysis::flame_graph::WeightKind;
    use perfscope_analysis::pruned_tree::{
        pruned_flame, PruneOptions, StackChildren, StackWeights,
    };
    let layout = |children: &StackChildren, weights: &StackWeights| {
        pruned_flame(
            profile,
            children,
            weights,
            PruneOptions {
                inverted: false,
                kind: WeightKind::Samples,
                detail: 8192,
                root: &[],
            },
        )
        .nodes
        .len()
    };
    let (lo, hi) = (
        profile.samples.times().first().unwrap_or(0),
        profile.samples.times().last().unwrap_or(0),
    );
    let at = |f: f64| lo + ((hi - lo) as f64 * f) as u64;
    let range = |a: f64, b: f64| SampleFilter {
        time_range: Some((at(a), at(b))),
        ..SampleFilter::all()
    };
    let mut g = c.benchmark_group("tree");
    g.sample_size(10);
    g.bench_function("index (StackChildren, name order)", |b| {
        b.iter(|| StackChildren::new(profile).heap_bytes())
    });
    let children = StackChildren::new(profile);
    let whole = StackWeights::new(profile, &SampleFilter::all());
    g.bench_function("whole time: weights", |b| {
        b.iter(|| StackWeights::new(profile, &SampleFilter::all()).heap_bytes())
    });
    g.bench_function("whole time: layout", |b| {
        b.iter(|| layout(&children, &whole))
    });
    g.bench_function("90 %: weights afresh", |b| {
        b.iter(|| StackWeights::new(profile, &range(0.05, 0.95)).heap_bytes())
    });
    g.bench_function("90 %: weights from the whole time's", |b| {
        b.iter(|| {
            StackWeights::narrowed(&whole, profile, &range(0.05, 0.95)).map(|w| w.heap_bytes())
        })
    });
    let w90 = StackWeights::new(profile, &range(0.05, 0.95));
    g.bench_function("90 %: layout", |b| b.iter(|| layout(&children, &w90)));
    g.bench_function("2 %: weights", |b| {
        b.iter(|| StackWeights::new(profile, &range(0.5, 0.52)).heap_bytes())
    });
    g.finish();
}

/// Counts the bytes written.
struct CountingSink(u64);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
