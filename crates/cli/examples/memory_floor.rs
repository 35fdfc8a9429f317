//! How much a flame graph of a recording has to hold, whatever the design: the distinct stacks
//! at the three grains a tree can merge frames at, and the bytes of the smallest tables that
//! still give the page's views (a flame graph of any time range, the timeline).
//!
//! - by address: one node per distinct (prefix, frame), as the profile holds them;
//! - by function, as the page names them (an unsymbolized frame is `module+0xoffset`);
//! - by function, with every unsymbolized frame of a module one `[unknown]` function, as
//!   `perf script` and its collapsers print them.
//!
//! The smallest tables: per sample its time (8 bytes), thread (4) and stack (4), which a
//! range's flame graph and the timeline need; per stack its prefix and function (8), which
//! any flame graph needs, and one weight (4) for the tree on screen. Names and the records'
//! index come on top.
//!
//! ```text
//! cargo run --release -p perfscope-cli --example memory_floor -- FILE
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
use std::collections::HashMap;

use perfscope_analysis::profile::Profile;

mod common;

/// Whether the page's name for a function says it was not symbolized.
fn unsymbolized(name: &str) -> bool {
    name.starts_with("0x") || name.contains("+0x")
}

/// The number of distinct stacks when each frame is replaced by `key(frame's function)`.
fn distinct_stacks(p: &Profile, key: impl Fn(u32) -> u64) -> usize {
    let mut ids: HashMap<(u32, u64), u32> = HashMap::new();
    let mut merged = Vec::with_capacity(p.stacks.len());
    for s in p.stacks.iter() {
        let parent = s.prefix.map_or(u32::MAX, |x| merged[x.index()]);
        let func = p.frame_func(s.frame).expect("frame");
        let next = ids.len() as u32;
        let id = *ids.entry((parent, key(func.0))).or_insert(next);
        merged.push(id);
    }
    ids.len()
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: memory_floor FILE");
    let size = std::fs::metadata(&path).unwrap().len() as f64;
    let p = common::load_by_address(&path);
    let funcs = p.funcs.len();
    let mut unknown = 0usize;
    let mut module_of = Vec::with_capacity(funcs);
    for i in 0..funcs {
        let f = p
            .funcs
            .get(perfscope_analysis::ids::FuncIndex(i as u32))
            .unwrap();
        let name = p.strings.get(f.name);
        if unsymbolized(name) {
            unknown += 1;
            // One key per module (or none), above every function index.
            module_of.push(Some(f.module.map_or(0, |m| m.0 as u64 + 1)));
        } else {
            module_of.push(None);
        }
    }
    let by_address = p.stacks.len();
    let by_function = distinct_stacks(&p, u64::from);
    let by_module = distinct_stacks(&p, |f| match module_of[f as usize] {
        Some(m) => (1 << 32) | m,
        None => u64::from(f),
    });
    let samples = p.samples.len();
    println!(
        "{path}: {:.0} MB, {samples} samples, {funcs} functions ({unknown} unsymbolized)",
        size / 1e6
    );
    let per_sample = samples as f64 * 16.0;
    let half = size / 2.0;
    println!(
        "per-sample columns (time, thread, stack): {:.1} MB; half the file: {:.1} MB",
        per_sample / 1e6,
        half / 1e6
    );
    for (what, n) in [
        ("by address (the profile)", by_address),
        ("by function, as the page names them", by_function),
        (
            "by function, unsymbolized frames [unknown] per module",
            by_module,
        ),
    ] {
        let bytes = per_sample + n as f64 * 12.0;
        println!(
            "{what}: {n} stacks; with the samples {:.1} MB = {:.2}x the file",
            bytes / 1e6,
            bytes / size
        );
    }
}
