//! Inputs the fuzz targets (`fuzz/`, `scripts/fuzz.sh`) found, each pinned by a test named after
//! the bug. Bytes are inline; the comment says which target found them and what went wrong.
//!
//! A counting allocator measures what a call allocates in total, so "never allocate by an
//! untrusted count" can fail here, not only under the fuzzer's memory limit.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// Only the counting allocator below: a `GlobalAlloc` impl cannot be written without `unsafe`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use perfscope_format::bytes::Bytes;
use perfscope_format::features::{parse_feature, Feature, FeatureContext};
use perfscope_format::{Endianness, HeaderFeature};

/// Counts the bytes allocated by the current thread (tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size() as u64));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + new_size as u64));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the bytes it allocated in total (freed or not).
fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCATED.with(Cell::get);
    let r = f();
    (r, ALLOCATED.with(Cell::get) - before)
}

/// Found by the `feature` target (out of memory under ASan): CPU_TOPOLOGY without NRCPUS made
/// `infer_nr_cpus` try every CPU count up to 4096, building the per-CPU vector (and the die
/// list vector) for each try — quadratic time and ~130 MB allocated for a 48 kB section.
#[test]
fn cpu_topology_inferring_the_cpu_count_allocates_per_try() {
    // Two empty lists, then 4000 (core id, socket id) pairs, 0 die lists and 4000 die ids:
    // revision 3 for 4000 CPUs, all zeroes.
    let cpus = 4000;
    let data = vec![0u8; 8 + 8 * cpus + 4 + 4 * cpus];
    for endian in [Endianness::Little, Endianness::Big] {
        let (f, bytes) = allocated_by(|| {
            parse_feature(
                HeaderFeature::CPU_TOPOLOGY,
                Bytes::new(&data, 0x100, endian),
                &FeatureContext::default(),
            )
        });
        let Ok(Feature::CpuTopology(t)) = f else {
            panic!("{f:?}")
        };
        assert_eq!(t.cpus.as_ref().map(Vec::len), Some(cpus));
        assert_eq!(t.die_cpus_lists.as_ref().map(Vec::len), Some(0));
        assert!(t.cpus.unwrap().iter().all(|c| c.die_id == Some(0)));
        // The result holds 4000 × 12 bytes; allow a few times the input.
        assert!(
            bytes < 4 * data.len() as u64,
            "{bytes} bytes allocated for a {}-byte section",
            data.len()
        );
    }
}

/// Runs `f` on another thread and fails if it has not returned after 10 s (a hang).
fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(10))
        .expect("still running after 10 s")
}

/// Found by the `stream` fuzz target (a timeout): a zstd frame that asks for a content checksum
/// and ends without it. ruzstd then answers every call with "4 bytes read, 0 written" even with
/// no bytes left, and the decompression loop, which stopped only when nothing was read or
/// written, never ended.
#[test]
fn zstd_frame_missing_its_checksum_hung_the_decompressor() {
    use perfscope_format::stream::StreamDecoder;
    for (endian, magic) in [
        (Endianness::Little, *b"PERFILE2"),
        (Endianness::Big, *b"2ELIFREP"),
    ] {
        // A zstd frame: magic, FHD 0x04 (content checksum, not single segment), window
        // descriptor 0 (1 KiB), one last raw block of 8 bytes holding a FINISHED_ROUND record;
        // no checksum.
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x00, 0x41, 0x00, 0x00];
        frame.extend(endian.u32_bytes(68));
        frame.extend(endian.u16_bytes(0));
        frame.extend(endian.u16_bytes(8));
        let mut v = magic.to_vec();
        v.extend(endian.u64_bytes(16));
        // PERF_RECORD_COMPRESSED (81) around the frame.
        v.extend(endian.u32_bytes(81));
        v.extend(endian.u16_bytes(0));
        v.extend(endian.u16_bytes(8 + frame.len() as u16));
        v.extend(&frame);
        let got = within_10s(move || {
            let mut d = StreamDecoder::pipe();
            d.push(&v);
            d.finish();
            let mut got = Vec::new();
            while let Some(r) = d.next_record() {
                got.push(r.map(|r| (r.type_().0, r.offset, r.inner_offset)));
            }
            got
        });
        assert_eq!(
            got,
            [Ok((81, 16, None)), Ok((68, 16, Some(0)))],
            "{endian:?}"
        );
    }
}
