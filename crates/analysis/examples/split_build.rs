//! An experiment for issue #6: would building a profile on two cores pay? The records of a
//! perf.data are split at the FINISHED_ROUND nearest the middle of its data section; each half
//! is loaded on its own thread (the second after the side-band records of the first: MMAP,
//! COMM, FORK, EXIT, KSYMBOL), and the second profile is merged into the first by interning
//! its modules, functions, frames, stacks, threads and samples there. Prints the time of one
//! load of the whole file, of the halves on two threads, and of the merge, and checks that
//! the merged profile's folded stacks equal the whole file's.
//!
//! ```text
//! cargo run --release -p perfscope-analysis --example split_build -- FILE
//! ```
//!
//! Frames without a symbol are one per address (`module+0xoffset`), or with `--by-module`
//! one per module (`[module]`, the page's default).
//!
//! Little-endian file-mode perf.data without compressed records.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::time::Instant;

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::export::folded::{write_folded, FoldedOptions};
use perfscope_analysis::ids::{
    EventIndex, FrameIndex, FuncIndex, ModuleIndex, StackIndex, StringIndex, ThreadIndex,
};
use perfscope_analysis::load::{load, LoadExtras, LoadOptions};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::{Sample, Thread};
use perfscope_analysis::stack_table::{Frame, Func};

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn options() -> LoadOptions {
    let by_module = std::env::args().any(|a| a == "--by-module");
    LoadOptions {
        unknown_names: if by_module {
            UnknownNames::Module
        } else {
            UnknownNames::ModuleOffset
        },
        ..LoadOptions::default()
    }
}

fn load_profile(bytes: &[u8]) -> Profile {
    load(bytes, &[], options(), LoadExtras::default())
        .expect("a loadable file")
        .profile
}

/// Merges `b` into `a`; prints the time each part took.
fn merge(a: &mut Profile, b: &Profile) {
    let t = Instant::now();
    let lap = |what: &str| {
        println!(
            "    merge: {what} done at {:.3} s",
            t.elapsed().as_secs_f64()
        )
    };
    let mut strings: Vec<Option<StringIndex>> = vec![None; b.strings.len()];
    let mut string = |a: &mut Profile, s: StringIndex| -> StringIndex {
        *strings[s.index()].get_or_insert_with(|| a.strings.intern(b.strings.get(s)).unwrap())
    };
    let modules: Vec<ModuleIndex> = (0..b.modules.len())
        .map(|i| {
            let m = b.modules.get(ModuleIndex(i as u32)).unwrap();
            let path = string(a, m.path);
            a.modules.intern(path, m.build_id.as_deref()).unwrap()
        })
        .collect();
    let module = |m: Option<ModuleIndex>| m.map(|m| modules[m.index()]);
    let funcs: Vec<FuncIndex> = (0..b.funcs.len())
        .map(|i| {
            let f = b.funcs.get(FuncIndex(i as u32)).unwrap();
            let func = Func {
                name: string(a, f.name),
                module: module(f.module),
            };
            a.funcs.intern(func).unwrap()
        })
        .collect();
    lap(&format!("modules and {} functions by name", b.funcs.len()));
    let frames: Vec<FrameIndex> = (0..b.frames.len())
        .map(|i| {
            let f = b.frames.get(FrameIndex(i as u32)).unwrap();
            let frame = Frame {
                func: funcs[f.func.index()],
                module: module(f.module),
                ..f
            };
            a.frames.intern(frame).unwrap()
        })
        .collect();
    lap(&format!("{} frames", b.frames.len()));
    let mut stacks: Vec<StackIndex> = Vec::with_capacity(b.stacks.len());
    for s in b.stacks.iter() {
        let prefix = s.prefix.map(|p| stacks[p.index()]);
        stacks.push(a.stacks.intern(prefix, frames[s.frame.index()]).unwrap());
    }
    lap(&format!("{} stacks", b.stacks.len()));
    let threads: Vec<ThreadIndex> = (0..b.threads.len())
        .map(|i| {
            let thread = b.threads.get(ThreadIndex(i as u32)).unwrap();
            let thread = Thread {
                name: string(a, thread.name),
                ..thread
            };
            a.threads.push(thread).unwrap()
        })
        .collect();
    let events: Vec<EventIndex> = b
        .events
        .iter()
        .map(|&n| {
            let name = b.strings.get(n);
            match a.events.iter().position(|&e| a.strings.get(e) == name) {
                Some(i) => EventIndex(i as u32),
                None => a.add_event(name).unwrap(),
            }
        })
        .collect();
    for i in 0..b.samples.len() {
        let s = b.samples.get(i).unwrap();
        a.push_sample(Sample {
            thread: threads[s.thread.index()],
            event: events[s.event.index()],
            stack: s.stack.map(|s| stacks[s.index()]),
            ..s
        })
        .unwrap();
    }
    lap("threads, events and samples");
}

fn folded(p: &Profile) -> Vec<String> {
    let mut out = Vec::new();
    write_folded(p, &Default::default(), FoldedOptions::default(), &mut out).unwrap();
    let mut lines: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort_unstable();
    lines
}

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .expect("usage: split_build [--by-module] FILE");
    let bytes = std::fs::read(&path).expect("a readable file");
    let (off, size) = (u64_at(&bytes, 40) as usize, u64_at(&bytes, 48) as usize);
    let end = off + size;
    // The FINISHED_ROUND nearest the middle, and the side-band records before it.
    let (mut pos, mut mid) = (off, off);
    let mut side = Vec::new();
    while pos + 8 <= end {
        let type_ = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap());
        let len = u16::from_le_bytes([bytes[pos + 6], bytes[pos + 7]]) as usize;
        if len < 8 {
            break;
        }
        if type_ == 68 && pos + len - off <= size / 2 {
            mid = pos + len;
        }
        pos += len;
    }
    pos = off;
    while pos < mid {
        let type_ = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap());
        let len = u16::from_le_bytes([bytes[pos + 6], bytes[pos + 7]]) as usize;
        if matches!(type_, 1 | 3 | 4 | 7 | 10 | 17) {
            side.extend_from_slice(&bytes[pos..pos + len]);
        }
        pos += len;
    }
    let mut first = bytes.clone();
    first[48..56].copy_from_slice(&((mid - off) as u64).to_le_bytes());
    let mut second = bytes.clone();
    let start = mid - side.len();
    second[start..mid].copy_from_slice(&side);
    second[40..48].copy_from_slice(&(start as u64).to_le_bytes());
    second[48..56].copy_from_slice(&((end - start) as u64).to_le_bytes());
    println!(
        "{path}: split at byte {mid} of the data section {off}..{end}; {} bytes of side-band records replayed",
        side.len()
    );

    let t = Instant::now();
    let whole = load_profile(&bytes);
    let t_whole = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (mut a, b, t_a, t_b) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let t = Instant::now();
            (load_profile(&second), t.elapsed().as_secs_f64())
        });
        let t = Instant::now();
        let a = load_profile(&first);
        let t_a = t.elapsed().as_secs_f64();
        let (b, t_b) = h.join().unwrap();
        (a, b, t_a, t_b)
    });
    let t_halves = t.elapsed().as_secs_f64();
    let (first_samples, first_stacks) = (a.samples.len(), a.stacks.len());
    let t = Instant::now();
    merge(&mut a, &b);
    let t_merge = t.elapsed().as_secs_f64();
    println!(
        "  whole file on one thread      {t_whole:.3} s ({} samples, {} stacks)",
        whole.samples.len(),
        whole.stacks.len()
    );
    println!(
        "  halves on two threads         {t_halves:.3} s (first {t_a:.3} s: {} samples, {} stacks; second {t_b:.3} s: {} samples, {} stacks)",
        first_samples,
        first_stacks,
        b.samples.len(),
        b.stacks.len()
    );
    println!(
        "  merge                         {t_merge:.3} s ({} stacks after it)",
        a.stacks.len()
    );
    println!(
        "  two threads and merge         {:.3} s ({:.2}x the whole)",
        t_halves + t_merge,
        (t_halves + t_merge) / t_whole
    );
    let (fw, fm) = (folded(&whole), folded(&a));
    let same = fw == fm;
    println!(
        "  folded stacks equal: {same} ({} and {} lines)",
        fw.len(),
        fm.len()
    );
}
