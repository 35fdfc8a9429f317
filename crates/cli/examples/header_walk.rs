//! The floor for `perfscope stats` (issue #6): map a perf.data and step from record header to
//! record header through its data section, counting records by type, nothing else.
//!
//! ```text
//! cargo run --release -p perfscope-cli --example header_walk -- FILE
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

fn main() {
    let path = std::env::args().nth(1).expect("usage: header_walk FILE");
    let file = std::fs::File::open(&path).expect("a readable file");
    // SAFETY: read-only mapping of a file nobody writes while the benchmark runs.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("a mappable file");
    let start = std::time::Instant::now();
    // perf_file_header: data section at 40 (offset) and 48 (size); little-endian files only.
    let offset = u64::from_le_bytes(map[40..48].try_into().unwrap()) as usize;
    let size = u64::from_le_bytes(map[48..56].try_into().unwrap()) as usize;
    let end = if size == 0 {
        map.len()
    } else {
        (offset + size).min(map.len())
    };
    let data = &map[offset..end];
    let mut counts = [0u64; 256];
    let mut pos = 0usize;
    while let Some(h) = data.get(pos..pos + 8) {
        let size = u16::from_le_bytes([h[6], h[7]]) as usize;
        if size < 8 {
            break;
        }
        counts[h[0] as usize] += 1;
        pos += size;
    }
    let total: u64 = counts.iter().sum();
    println!(
        "{total} records, {} samples, {:.3} s",
        counts[9],
        start.elapsed().as_secs_f64()
    );
}
