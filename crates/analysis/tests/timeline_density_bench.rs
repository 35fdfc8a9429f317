//! Density queries on a lane of 2M samples at every zoom, checked against binary searches and
//! timed. Run with `cargo test --release -p perfscope-analysis --test timeline_density_bench --
//! --ignored --nocapture`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::time::Instant;

use perfscope_analysis::timeline::SampleDensity;

/// 2M sample times over 10 s: 4 kHz with jitter, bursts and a gap (deterministic LCG).
fn times() -> Vec<u64> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x >> 33
    };
    let mut v = Vec::with_capacity(2_100_000);
    for i in 0..1_900_000u64 {
        let base = i * 5_000;
        if (3_000_000_000..3_500_000_000).contains(&base) {
            continue; // a gap
        }
        v.push(base + next() % 5_000);
    }
    for _ in 0..200_000 {
        v.push(7_000_000_000 + next() % 1_000_000); // a burst in 1 ms
    }
    v
}

#[test]
#[ignore = "a benchmark"]
fn two_million_samples_at_any_zoom() {
    let v = times();
    let n = v.len();
    let t = Instant::now();
    let d = SampleDensity::new(v);
    let build = t.elapsed();
    let sorted = d.times().to_vec();
    let naive =
        |a: u64, b: u64| sorted.partition_point(|&x| x < b) - sorted.partition_point(|&x| x < a);
    let (end, bins) = (10_000_000_000u64, 2_000usize);
    let zooms: Vec<(u64, u64)> = (0..24)
        .map(|z| {
            (
                7_000_000_000 - (end >> z) / 2,
                7_000_000_000 + (end >> z) / 2,
            )
        })
        .collect();
    let t = Instant::now();
    let mut total = 0u64;
    let rounds = 50;
    for _ in 0..rounds {
        for &(a, b) in &zooms {
            total += d
                .density(a, b, bins)
                .iter()
                .map(|&c| u64::from(c))
                .sum::<u64>();
        }
    }
    let per_query = t.elapsed() / (rounds * zooms.len() as u32);
    // The same counts by a binary search over all samples per bin bound.
    let t = Instant::now();
    let mut check = 0u64;
    for _ in 0..rounds {
        for &(a, b) in &zooms {
            let w = (b - a) as u128;
            let mut prev = sorted.partition_point(|&x| x < a);
            for i in 1..=bins as u128 {
                let next = sorted.partition_point(|&x| x < a + (w * i / bins as u128) as u64);
                check += (next - prev) as u64;
                prev = next;
            }
        }
    }
    let per_search = t.elapsed() / (rounds * zooms.len() as u32);
    assert_eq!(check, total);
    let mut expect = 0u64;
    for &(a, b) in &zooms {
        let got = d.density(a, b, bins);
        for (i, &c) in got.iter().enumerate() {
            let lo = a + ((b - a) as u128 * i as u128 / bins as u128) as u64;
            let hi = a + ((b - a) as u128 * (i as u128 + 1) / bins as u128) as u64;
            assert_eq!(c as usize, naive(lo, hi));
        }
        expect += got.iter().map(|&c| u64::from(c)).sum::<u64>();
    }
    assert_eq!(total, expect * rounds as u64);
    eprintln!("{n} samples: index built in {build:?}; {bins} bins at 24 zooms (10 s to 0.6 us): {per_query:?} per query ({per_search:?} by binary searches)");
}

/// What building the timeline adds to loading a big recording: set `PERFSCOPE_BIG` to a
/// perf.data and run `cargo test --release -p perfscope-analysis --test timeline_density_bench
/// -- --ignored --nocapture load`.
#[test]
#[ignore = "a benchmark"]
fn load_with_and_without_the_timeline() {
    use perfscope_analysis::builder::UnknownNames;
    use perfscope_analysis::load::{load, LoadExtras, LoadOptions};
    let Some(path) = std::env::var_os("PERFSCOPE_BIG") else {
        eprintln!("skipped: set PERFSCOPE_BIG to a perf.data");
        return;
    };
    let data = std::fs::read(&path).unwrap();
    for extras in [
        LoadExtras::default(),
        LoadExtras {
            timeline: true,
            off_cpu: false,
        },
        LoadExtras::default(),
        LoadExtras {
            timeline: true,
            off_cpu: false,
        },
    ] {
        let options = LoadOptions {
            unwind: false,
            unknown_names: UnknownNames::ModuleOffset,
            ..LoadOptions::default()
        };
        let t = Instant::now();
        let loaded = load(&data, &[], options, extras).unwrap();
        let lanes = loaded
            .timeline
            .as_ref()
            .map_or(0, |t| t.tasks.len() + t.cpus.len());
        eprintln!(
            "timeline {}: {:?} ({} samples, {lanes} lanes)",
            extras.timeline,
            t.elapsed(),
            loaded.profile.samples.len()
        );
    }
}
