//! An experiment for issue #6: the records pass in two halves on two threads
//! ([`ProfileLoader::delivery_writer`] on one, [`ProfileLoader::take_deliveries`] on the
//! other, as the page's two workers would run them). Prints the time of one loader pushed
//! every record, and of the two halves, alternating, and checks that both give the same
//! profile.
//!
//! ```text
//! cargo run --release -p perfscope-analysis --example handover -- FILE [RUNS]
//! ```
//!
//! File-mode perf.data (a pipe stream's metadata grows with its records).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::sync::mpsc::sync_channel;
use std::time::Instant;

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{LoadExtras, LoadOptions, Loaded, ProfileLoader};
use perfscope_format::metadata::Metadata;
use perfscope_format::walk::{walk, Item};

/// The page's loader.
fn loader() -> ProfileLoader {
    let options = LoadOptions {
        unknown_names: UnknownNames::Module,
        ..LoadOptions::default()
    };
    ProfileLoader::with_extras(
        options,
        LoadExtras {
            timeline: true,
            off_cpu: false,
        },
    )
    .without_timeline_sample_times()
    .timeline_samples_for_switches()
}

fn one(data: &[u8]) -> Loaded {
    let mut l = loader();
    let meta = walk(data, &[], |meta, _, item| match item {
        Item::Record(rec) => l.push(meta, rec),
        Item::Error(e) => l.push_error(*e),
    })
    .unwrap();
    l.finish_loaded(&meta).unwrap()
}

/// Operations handed over in buffers of about this many bytes.
const BATCH: usize = 4 << 20;

fn two(data: &[u8]) -> (Loaded, usize) {
    let (send, receive) = sync_channel::<(Metadata, Vec<u8>)>(4);
    let (send_writer, writer) = sync_channel(1);
    std::thread::scope(|scope| {
        // The loader is made on its thread (its resolver is not `Send`); its writer is sent.
        let consumer = scope.spawn(move || {
            let mut l = loader();
            send_writer.send(l.delivery_writer()).unwrap();
            let mut last = None;
            let mut batches = 0;
            while let Ok((meta, ops)) = receive.recv() {
                l.take_deliveries(&meta, &ops).unwrap();
                last = Some(meta);
                batches += 1;
            }
            (l.finish_loaded(&last.unwrap()).unwrap(), batches)
        });
        let mut w = writer.recv().unwrap();
        let mut ops = Vec::with_capacity(BATCH + (64 << 10));
        let mut meta_sent: Option<Metadata> = None;
        let meta = walk(data, &[], |meta, _, item| {
            if let Item::Record(rec) = item {
                w.push(meta, rec, &mut ops);
                if ops.len() >= BATCH {
                    let m = meta_sent.get_or_insert_with(|| meta.clone()).clone();
                    let full = std::mem::replace(&mut ops, Vec::with_capacity(BATCH + (64 << 10)));
                    send.send((m, full)).unwrap();
                }
            }
        })
        .unwrap();
        w.finish(&meta, &mut ops);
        send.send((meta, ops)).unwrap();
        drop(send);
        consumer.join().unwrap()
    })
}

/// The writer's half alone, and the loader's alone (from the writer's buffers).
fn halves_alone(data: &[u8]) -> (f64, f64) {
    let mut l = loader();
    let mut w = l.delivery_writer();
    let mut buffers = Vec::new();
    let mut ops = Vec::with_capacity(BATCH + (64 << 10));
    let t = Instant::now();
    let meta = walk(data, &[], |meta, _, item| {
        if let Item::Record(rec) = item {
            w.push(meta, rec, &mut ops);
            if ops.len() >= BATCH {
                buffers.push(std::mem::replace(
                    &mut ops,
                    Vec::with_capacity(BATCH + (64 << 10)),
                ));
            }
        }
    })
    .unwrap();
    w.finish(&meta, &mut ops);
    buffers.push(ops);
    let writer = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for b in &buffers {
        l.take_deliveries(&meta, b).unwrap();
    }
    let _ = l.finish_loaded(&meta).unwrap();
    (writer, t.elapsed().as_secs_f64())
}

fn main() {
    if std::env::args().any(|a| a == "--alone") {
        let path = std::env::args().nth(1).expect("a perf.data file");
        let data = std::fs::read(path).unwrap();
        // `HANDOVER_RUNS=N`: N runs (3 by default; 1 under cachegrind).
        let runs = std::env::var("HANDOVER_RUNS").map_or(3, |r| r.parse().expect("a number"));
        for _ in 0..runs {
            let (w, l) = halves_alone(&data);
            println!("writer alone {w:.3} s, loader alone {l:.3} s");
        }
        return;
    }
    let path = std::env::args().nth(1).expect("a perf.data file");
    let runs: usize = std::env::args()
        .nth(2)
        .map_or(3, |r| r.parse().expect("a number of runs"));
    let data = std::fs::read(path).unwrap();
    let (mut t1, mut t2) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let a = one(&data);
        t1.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let (b, batches) = two(&data);
        t2.push(t.elapsed().as_secs_f64());
        assert_eq!(a.profile.samples.len(), b.profile.samples.len());
        assert_eq!(a.profile.stacks.len(), b.profile.stacks.len());
        assert_eq!(a.diagnostics, b.diagnostics);
        let d = &a.diagnostics;
        println!(
            "queue: at most {} records, {} bytes held, {} allocated",
            d.max_queued, d.max_queued_bytes, d.max_queue_allocated
        );
        println!(
            "one loader {:.3} s, two halves {:.3} s ({batches} buffers): {:.3}×",
            t1.last().unwrap(),
            t2.last().unwrap(),
            t2.last().unwrap() / t1.last().unwrap()
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (m1, m2) = (median(&mut t1), median(&mut t2));
    println!("median: one {m1:.3} s, two {m2:.3} s: {:.3}×", m2 / m1);
}
