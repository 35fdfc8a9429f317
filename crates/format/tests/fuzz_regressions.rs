//! Inputs the fuzz targets (`fuzz/`, `scripts/fuzz.sh`) found, each pinned by a test named after
//! the bug. Bytes are inline; the comment says which target found them and what went wrong.
//!
//! A counting allocator measures what a call allocates in total, so "never allocate by an
//! untrusted count" can fail here, not only under the fuzzer's memory limit.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
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
            parse_feature(HeaderFeature::CPU_TOPOLOGY, Bytes::new(&data, 0x100, endian), &FeatureContext::default())
        });
        let Ok(Feature::CpuTopology(t)) = f else { panic!("{f:?}") };
        assert_eq!(t.cpus.as_ref().map(Vec::len), Some(cpus));
        assert_eq!(t.die_cpus_lists.as_ref().map(Vec::len), Some(0));
        assert!(t.cpus.unwrap().iter().all(|c| c.die_id == Some(0)));
        // The result holds 4000 × 12 bytes; allow a few times the input.
        assert!(bytes < 4 * data.len() as u64, "{bytes} bytes allocated for a {}-byte section", data.len());
    }
}
