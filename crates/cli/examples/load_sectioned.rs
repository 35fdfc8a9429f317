//! The browser's loading path on the command line: a perf.data read through
//! `perfscope_analysis::load::load_sectioned` with positioned reads of `CHUNK` bytes (never
//! mapped or read whole), as the web worker reads a `File` with `FileReaderSync`. Prints the
//! time, the samples and stacks, the queue's peak and the process's peak memory.
//!
//! ```text
//! cargo run --release -p perfscope-cli --example load_sectioned -- FILE [CHUNK_BYTES]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::FileExt;

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{load_sectioned, LoadOptions};
use perfscope_format::file::ReadAt;
use perfscope_format::{Error, ErrorKind};

struct Pread(std::fs::File, u64);

impl ReadAt for Pread {
    fn len(&self) -> u64 {
        self.1
    }
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
        let mut buf = vec![0; usize::try_from(size).unwrap()];
        self.0.read_exact_at(&mut buf, offset).map_err(|_| {
            Error::new(
                offset,
                ErrorKind::UnexpectedEof {
                    what: "file",
                    needed: size,
                    available: 0,
                },
            )
        })?;
        Ok(buf)
    }
}

/// VmHWM: the peak resident memory of this process, in MB.
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kb.unwrap_or(0) / 1024
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: load_sectioned FILE [CHUNK_BYTES]");
    let chunk: usize = args
        .next()
        .map_or(4 << 20, |c| c.parse().expect("a chunk size in bytes"));
    let file = std::fs::File::open(&path).expect("a readable file");
    let len = file.metadata().unwrap().len();
    let start = std::time::Instant::now();
    let options = LoadOptions {
        symbolize: false,
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    };
    let (profile, diag) =
        load_sectioned(&mut Pread(file, len), chunk, options, |_, _| {}).expect("a perf.data");
    println!(
        "{} MB in {chunk}-byte chunks: {:.2} s, {} samples, {} stacks, queue peak {} MB ({} records), process peak {} MB",
        len / 1_000_000,
        start.elapsed().as_secs_f64(),
        profile.samples.len(),
        profile.stacks.len(),
        diag.max_queue_allocated / 1_000_000,
        diag.max_queued,
        peak_rss_mb()
    );
    let heap = profile.heap_bytes();
    let mb = |b: usize| b as f64 / 1e6;
    println!(
        "profile heap {:.1} MB = {:.2}x the file: strings {:.1}, modules {:.1}, funcs {:.1}, frames {:.1}, stacks {:.1}, threads {:.1}, samples {:.1} MB",
        mb(heap.total()),
        heap.total() as f64 / len as f64,
        mb(heap.strings),
        mb(heap.modules),
        mb(heap.funcs),
        mb(heap.frames),
        mb(heap.stacks),
        mb(heap.threads),
        mb(heap.samples)
    );
}
