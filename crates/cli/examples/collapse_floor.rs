//! Floors under `perfscope collapse --no-symbols` (issue #4's benchmark): steps that any
//! collapse of a recording must take, each timed alone on one thread, with nothing else done.
//!
//! ```text
//! cargo run --release -p perfscope-cli --example collapse_floor -- FILE [FOLDED]
//! ```
//!
//! - `walk`: step over the records of the mapped file and read each sample's pid and
//!   callchain (file order, no time order).
//! - `hash64`: also count a 64-bit hash of each (pid, callchain) in a hash map (collisions
//!   ignored: less than an exact count).
//! - `hash`: also count each (pid, callchain) exactly, keys borrowed from the file.
//! - With `FOLDED` (a folded file, e.g. `perfscope collapse --no-symbols FILE`): `sort` its
//!   lines by their bytes from a shuffled order, as every collapse ends (inferno's and
//!   stackcollapse-perf.pl's output is sorted), and `concatenate` them into one buffer.
//!
//! Little-endian perf.data files whose events share one sample format without
//! PERF_SAMPLE_READ. Each step's time is the best of three.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::time::Instant;

use rustc_hash::{FxBuildHasher, FxHashMap};

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Where the pid and the callchain are in a sample of this `sample_type`.
fn layout(sample_type: u64) -> (usize, usize) {
    const READ: u64 = 1 << 4;
    assert!(sample_type & READ == 0, "PERF_SAMPLE_READ is not handled");
    assert!(sample_type & (1 << 5) != 0, "samples without callchains");
    // IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD come before the callchain.
    let before = |bits: &[u32]| {
        bits.iter()
            .filter(|&&b| sample_type & (1 << b) != 0)
            .count()
    };
    let pid = 8 + 8 * before(&[16, 0]);
    let chain = 8 + 8 * before(&[16, 0, 1, 2, 3, 6, 9, 7, 8]);
    assert!(sample_type & 2 != 0, "samples without pid");
    (pid, chain)
}

/// Calls `f(pid, callchain bytes)` for each sample record.
fn samples<'a>(map: &'a [u8], mut f: impl FnMut(u32, &'a [u8])) {
    let attr_size = u64_at(map, 16) as usize;
    let (attrs, attrs_len) = (u64_at(map, 24) as usize, u64_at(map, 32) as usize);
    let mut types = (0..attrs_len / attr_size).map(|i| u64_at(map, attrs + i * attr_size + 24));
    let sample_type = types.next().expect("an event");
    assert!(
        types.all(|t| t == sample_type),
        "events with different sample formats"
    );
    let (pid_at, chain_at) = layout(sample_type);
    let (offset, size) = (u64_at(map, 40) as usize, u64_at(map, 48) as usize);
    let data = &map[offset..(offset + size).min(map.len())];
    let mut pos = 0;
    while let Some(h) = data.get(pos..pos + 8) {
        let len = u16::from_le_bytes([h[6], h[7]]) as usize;
        if len < 8 {
            break;
        }
        if h[0] == 9 {
            let r = &data[pos..pos + len];
            let pid = u32::from_le_bytes(r[pid_at..pid_at + 4].try_into().unwrap());
            let nr = u64_at(r, chain_at) as usize;
            f(pid, &r[chain_at + 8..chain_at + 8 + 8 * nr]);
        }
        pos += len;
    }
}

/// The best of three runs of `f`, in seconds, and its result.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = None;
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (best, out.unwrap())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: collapse_floor FILE [FOLDED]");
    let file = std::fs::File::open(&path).expect("a readable file");
    // SAFETY: read-only mapping of a file nobody writes while the benchmark runs.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("a mappable file");
    let (walk, (n, words)) = best(|| {
        let (mut n, mut words) = (0u64, 0usize);
        samples(&map, |_, chain| {
            n += 1;
            words += chain.len() / 8;
        });
        (n, words)
    });
    println!("{path}: {n} samples, {words} callchain words");
    println!("  walk                 {walk:.3} s");
    let (hash64, distinct64) = best(|| {
        let mut table: FxHashMap<u64, u32> = FxHashMap::default();
        samples(&map, |pid, chain| {
            let mut h = FxBuildHasher.build_hasher();
            pid.hash(&mut h);
            chain.hash(&mut h);
            *table.entry(h.finish()).or_default() += 1;
        });
        table.len()
    });
    println!("  walk + hash64        {hash64:.3} s   ({distinct64} distinct hashes)");
    let (hash, distinct) = best(|| {
        let mut table: HashMap<(u32, &[u8]), u32, FxBuildHasher> = HashMap::default();
        samples(&map, |pid, chain| {
            *table.entry((pid, chain)).or_default() += 1
        });
        table.len()
    });
    println!("  walk + hash          {hash:.3} s   ({distinct} distinct (pid, callchain))");
    let Some(folded) = args.next() else { return };
    let text = std::fs::read(&folded).expect("a readable folded file");
    let mut lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..lines.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        lines.swap(i, (x % (i as u64 + 1)) as usize);
    }
    let (sort, sorted) = best(|| {
        let mut l = lines.clone();
        l.sort_unstable();
        l
    });
    let (concatenate, bytes) = best(|| {
        let mut out = Vec::with_capacity(text.len());
        for l in &sorted {
            out.extend_from_slice(l);
            out.push(b'\n');
        }
        out.len()
    });
    println!(
        "  sort lines           {sort:.3} s   ({} lines of {folded})",
        sorted.len()
    );
    println!("  concatenate          {concatenate:.3} s   ({bytes} bytes)");
}
