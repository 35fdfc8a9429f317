//! The benchmark baseline of issue #6: the `linux-perf-data` crate (the parser samply uses)
//! iterating the samples of a perf.data in time order (its own round sorter) into a hash map
//! of (pid, callchain addresses) → sample count: the least a `collapse --no-symbols` must do,
//! without naming anything.
//!
//! ```text
//! cargo run --release -p perfscope-cli --example baseline_linux_perf_data -- FILE [--std-hash]
//! ```
//!
//! The file is memory-mapped, as `perfscope` maps it. The map uses FxHash (what perfscope uses)
//! unless `--std-hash` asks for the standard library's SipHash. Prints the samples and the
//! distinct stacks, and the time spent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::io::Cursor;

use linux_perf_data::linux_perf_event_reader::EventRecord;
use linux_perf_data::{PerfFileReader, PerfFileRecord};

fn count<S: BuildHasher + Default>(bytes: &[u8]) -> (u64, usize) {
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = PerfFileReader::parse_file(Cursor::new(bytes)).expect("a file-mode perf.data");
    let mut stacks: HashMap<(i32, Vec<u64>), u64, S> = HashMap::default();
    let mut samples = 0u64;
    let mut chain = Vec::new();
    while let Some(record) = record_iter
        .next_record(&mut perf_file)
        .expect("a readable record")
    {
        let PerfFileRecord::EventRecord { record, .. } = record else {
            continue;
        };
        let Ok(EventRecord::Sample(s)) = record.parse() else {
            continue;
        };
        samples += 1;
        chain.clear();
        match &s.callchain {
            Some(c) => chain.extend((0..c.len()).filter_map(|i| c.get(i))),
            None => chain.extend(s.ip),
        }
        let key = (s.pid.unwrap_or(-1), std::mem::take(&mut chain));
        match stacks.get_mut(&key) {
            Some(n) => *n += 1,
            None => {
                stacks.insert(key, 1);
            }
        }
    }
    (samples, stacks.len())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: baseline_linux_perf_data FILE [--std-hash]");
    let std_hash = args.next().as_deref() == Some("--std-hash");
    let file = std::fs::File::open(&path).expect("a readable file");
    // SAFETY: read-only mapping of a file nobody writes while the benchmark runs.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("a mappable file");
    let start = std::time::Instant::now();
    let (samples, stacks) = if std_hash {
        count::<std::collections::hash_map::RandomState>(&map)
    } else {
        count::<rustc_hash::FxBuildHasher>(&map)
    };
    println!(
        "{samples} samples, {stacks} distinct (pid, callchain) stacks, {:.3} s",
        start.elapsed().as_secs_f64()
    );
}
