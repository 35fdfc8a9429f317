//! Decoding throughput on a large in-memory run of records (the data section of a corpus file
//! repeated to ~300 MB). Ignored by default; run with
//! `cargo test --release -p perfscope-format --test decode_speed -- --ignored --nocapture`.
//! `PERFSCOPE_BENCH_FILE` picks another file-mode perf.data.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod oracle;

use std::time::Instant;

use perfscope_format::{parse_record, EventTable, PerfFile, RawRecords, Record};

#[test]
#[ignore]
fn decode_speed() {
    let path = match std::env::var_os("PERFSCOPE_BENCH_FILE") {
        Some(p) => std::path::PathBuf::from(p),
        None => match oracle::shared_dir() {
            Some(s) => s.join("corpus/gen/syswide-g.data"),
            None => {
                println!("skipped: no shared corpus");
                return;
            }
        },
    };
    let bytes = std::fs::read(&path).unwrap();
    let file = PerfFile::parse(&bytes).unwrap();
    let table = EventTable::from_file(&file);
    let (data, _) = file.data_section();
    let reps = (300usize << 20) / data.len().max(1);
    let big: Vec<u8> = data
        .iter()
        .copied()
        .cycle()
        .take(data.len() * reps.max(1))
        .collect();
    let mb = big.len() as f64 / 1e6;
    println!(
        "{}: {:.1} MB ({} copies of the data section)",
        path.display(),
        mb,
        reps
    );

    for round in 0..3 {
        let t = Instant::now();
        let n = RawRecords::new(&big, 0, file.endian())
            .map(|r| r.unwrap().header.size as usize)
            .sum::<usize>();
        let walk = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let (mut samples, mut frames, mut sum) = (0u64, 0u64, 0u64);
        for raw in RawRecords::new(&big, 0, file.endian()) {
            let raw = raw.unwrap();
            let rec = parse_record(&raw, &table);
            if let Ok(Record::Sample(s)) = &rec {
                samples += 1;
                sum = sum
                    .wrapping_add(s.ip.unwrap_or(0))
                    .wrapping_add(u64::from(s.tid.unwrap_or(0)));
                if let Some(cc) = s.callchain {
                    for f in cc.frames() {
                        frames += 1;
                        sum = sum.wrapping_add(f.addr);
                    }
                }
            }
        }
        let decode = t.elapsed().as_secs_f64();
        println!(
            "round {round}: walk {:.0} MB/s ({n} bytes); decode samples + callchain frames {:.0} MB/s, {:.1} M samples/s, {frames} frames (checksum {sum:x})",
            mb / walk,
            mb / decode,
            samples as f64 / decode / 1e6
        );
    }
}
