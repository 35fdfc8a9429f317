//! "Export for sharing": one self-contained, compressed, versioned file with a resolved profile
//! (function names already there, so no binaries are needed to read it), its threads, samples,
//! events and the header [`Summary`]. [`from_share`] reads it back into a [`Profile`]; the app
//! and the CLI accept it wherever they accept a perf.data (see [`crate::open`]).
//!
//! # Layout (version 1)
//!
//! A 32-byte header, then the gzip-compressed body:
//!
//! | offset | size | field                                              |
//! |--------|------|----------------------------------------------------|
//! | 0      | 16   | magic `PERFSCOPE-SHARE\0`                          |
//! | 16     | 4    | version, u32 little-endian (1)                     |
//! | 20     | 1    | compression: 1 = gzip                              |
//! | 21     | 3    | zero                                               |
//! | 24     | 8    | body size before compression, u64 little-endian    |
//!
//! The body is a sequence of unsigned LEB128 varints (`v`) and length-prefixed byte strings
//! (`s` = `v` length + bytes), tables in dependency order so every reference points backwards:
//!
//! ```text
//! s exporter          v privacy flags (1 paths, 2 cmdline, 4 hostname, 8 thread names)
//! s summary JSON (empty: none)
//! v n, n × s                       strings (UTF-8)
//! v n, n × (v path, v build-id length + 1 (0: none), bytes)        modules
//! v n, n × (v name, v module + 1)                                  functions
//! v n, n × (v function, v module + 1, v address, v inline depth)   frames
//! v n, n × (v prefix + 1 (must be < own index + 1), v frame)       stacks
//! v n, n × (v pid, v tid, v name)                                  threads
//! v n, n × (v name)                                                events
//! v n, then columns of n: time (zigzag delta to the previous sample), thread, cpu + 1
//!   (0: unknown), event, stack + 1 (0: empty), period                samples
//! ```
//!
//! Only what the exported samples use is written (stacks, frames, functions, modules, threads,
//! strings), so nothing about filtered-out samples leaks. Every event is kept.
//!
//! # Privacy
//!
//! [`PrivacyOptions`]: `strip_paths` turns module paths (and the build-id table's file names)
//! into base names; `strip_cmdline` drops the recorded command line; `strip_hostname` the host
//! name; `strip_thread_names` names every thread `thread-TID`. The command line is dropped only
//! by `strip_cmdline`, even if it holds paths.

use std::io::Write as _;

use rustc_hash::FxHashMap;

use crate::ids::{FrameIndex, FuncIndex, ModuleIndex, ThreadIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;
use crate::summary::Summary;

mod read;

pub use read::{from_share, ShareError, ShareErrorKind};

/// The first 16 bytes of a share file.
pub const MAGIC: &[u8; 16] = b"PERFSCOPE-SHARE\0";
/// The format version this build writes (and the newest it reads).
pub const VERSION: u32 = 1;
/// Size of the uncompressed header.
pub const HEADER_SIZE: usize = 32;
/// Compression byte: gzip.
pub const COMPRESSION_GZIP: u8 = 1;

/// What to remove before sharing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrivacyOptions {
    /// Module paths (and build-id file names) become base names: `/home/me/app` → `app`.
    pub strip_paths: bool,
    /// Drop the recorded command line (HEADER_CMDLINE).
    pub strip_cmdline: bool,
    /// Drop the host name (HEADER_HOSTNAME).
    pub strip_hostname: bool,
    /// Name every thread `thread-TID` instead of its command name.
    pub strip_thread_names: bool,
}

impl PrivacyOptions {
    /// Everything stripped.
    pub fn all() -> Self {
        PrivacyOptions {
            strip_paths: true,
            strip_cmdline: true,
            strip_hostname: true,
            strip_thread_names: true,
        }
    }

    fn bits(self) -> u64 {
        u64::from(self.strip_paths)
            | u64::from(self.strip_cmdline) << 1
            | u64::from(self.strip_hostname) << 2
            | u64::from(self.strip_thread_names) << 3
    }

    fn from_bits(bits: u64) -> Self {
        PrivacyOptions {
            strip_paths: bits & 1 != 0,
            strip_cmdline: bits & 2 != 0,
            strip_hostname: bits & 4 != 0,
            strip_thread_names: bits & 8 != 0,
        }
    }
}

/// Options for [`to_share`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShareOptions {
    /// Which samples to include.
    pub filter: SampleFilter,
    /// What to remove.
    pub privacy: PrivacyOptions,
}

/// A share file read back.
#[derive(Clone, Debug, Default)]
pub struct SharedProfile {
    /// The profile, names resolved.
    pub profile: Profile,
    /// The header summary of the original recording, privacy options applied.
    pub summary: Option<Summary>,
    /// What was stripped when the file was written.
    pub privacy: PrivacyOptions,
    /// The program that wrote it (`perfscope 0.1.0`).
    pub exporter: String,
}

/// Whether `bytes` start like a share file.
pub fn is_share(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The base name of a path (`/usr/lib/libc.so.6` → `libc.so.6`; `[vdso]` stays).
pub fn base_name(path: &str) -> &str {
    path.rsplit('/')
        .next()
        .filter(|b| !b.is_empty())
        .unwrap_or(path)
}

/// The summary with the privacy options applied.
pub fn scrub_summary(summary: &Summary, privacy: PrivacyOptions) -> Summary {
    let mut s = summary.clone();
    if privacy.strip_hostname {
        s.hostname = None;
    }
    if privacy.strip_cmdline {
        s.cmdline = None;
        s.cmdline_args = None;
    }
    if privacy.strip_paths {
        for b in &mut s.build_ids {
            b.filename = base_name(&b.filename).to_owned();
        }
    }
    s
}

/// Body writer: varints, strings and a fresh string table.
struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn v(&mut self, mut x: u64) {
        while x >= 0x80 {
            self.out.push((x as u8) | 0x80);
            x >>= 7;
        }
        self.out.push(x as u8);
    }

    fn s(&mut self, bytes: &[u8]) {
        self.v(bytes.len() as u64);
        self.out.extend_from_slice(bytes);
    }
}

/// Old index → new index for one table, new indices given in increasing old order.
fn renumber(used: &[bool]) -> Vec<Option<u32>> {
    let mut next = 0u32;
    used.iter()
        .map(|&u| {
            u.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

fn new_index(map: &[Option<u32>], old: usize) -> u64 {
    map.get(old).copied().flatten().map_or(0, u64::from)
}

/// The share file of the samples of `profile` that pass the filter, with `summary` (the
/// recording's header facts) and the privacy options applied.
pub fn to_share(profile: &Profile, summary: Option<&Summary>, options: &ShareOptions) -> Vec<u8> {
    let privacy = options.privacy;
    let s = &profile.samples;
    let all = options.filter == SampleFilter::all();
    let passes = options.filter.tester(s, &profile.threads);
    let kept: Vec<usize> = (0..s.len()).filter(|&i| all || passes(i)).collect();

    // What the kept samples use.
    let mut stack_used = vec![false; profile.stacks.len()];
    let mut thread_used = vec![false; profile.threads.len()];
    for &i in &kept {
        if let Some(t) = s.thread.get(i).and_then(|t| thread_used.get_mut(t.index())) {
            *t = true;
        }
        let mut cur = s.stack(i).flatten();
        while let Some(st) = cur {
            match stack_used.get_mut(st.index()) {
                Some(u) if !*u => *u = true,
                _ => break,
            }
            cur = profile.stacks.get(st).and_then(|x| x.prefix);
        }
    }
    let mut frame_used = vec![false; profile.frames.len()];
    for (i, st) in profile.stacks.iter().enumerate() {
        if stack_used.get(i).copied().unwrap_or(false) {
            if let Some(u) = frame_used.get_mut(st.frame.index()) {
                *u = true;
            }
        }
    }
    let mut func_used = vec![false; profile.funcs.len()];
    let mut module_used = vec![false; profile.modules.len()];
    for (i, &used) in frame_used.iter().enumerate() {
        let Some(frame) = used
            .then(|| profile.frames.get(FrameIndex::from_len(i).ok()?))
            .flatten()
        else {
            continue;
        };
        if let Some(u) = func_used.get_mut(frame.func.index()) {
            *u = true;
        }
        if let Some(u) = frame.module.and_then(|m| module_used.get_mut(m.index())) {
            *u = true;
        }
    }
    for (i, &used) in func_used.iter().enumerate() {
        let Some(func) = used
            .then(|| profile.funcs.get(FuncIndex::from_len(i).ok()?))
            .flatten()
        else {
            continue;
        };
        if let Some(u) = func.module.and_then(|m| module_used.get_mut(m.index())) {
            *u = true;
        }
    }
    let (stack_map, frame_map, func_map, module_map, thread_map) = (
        renumber(&stack_used),
        renumber(&frame_used),
        renumber(&func_used),
        renumber(&module_used),
        renumber(&thread_used),
    );

    // A fresh string table, in order of use.
    let mut table = StringsOut::default();
    let mut modules = Writer { out: Vec::new() };
    let mut n_modules = 0u64;
    for (i, &used) in module_used.iter().enumerate() {
        let Some(m) = used
            .then(|| profile.modules.get(ModuleIndex::from_len(i).ok()?))
            .flatten()
        else {
            continue;
        };
        let path = profile.strings.get(m.path);
        let path = if privacy.strip_paths {
            base_name(path)
        } else {
            path
        };
        modules.v(table.get(path));
        match &m.build_id {
            Some(id) => {
                modules.v(id.len() as u64 + 1);
                modules.out.extend_from_slice(id);
            }
            None => modules.v(0),
        }
        n_modules += 1;
    }
    let mut funcs = Writer { out: Vec::new() };
    let mut n_funcs = 0u64;
    for (i, &used) in func_used.iter().enumerate() {
        let Some(f) = used
            .then(|| profile.funcs.get(FuncIndex::from_len(i).ok()?))
            .flatten()
        else {
            continue;
        };
        funcs.v(table.get(profile.strings.get(f.name)));
        funcs
            .v(f.module
                .map_or(0, |m| new_index(&module_map, m.index()) + 1));
        n_funcs += 1;
    }
    let mut frames = Writer { out: Vec::new() };
    let mut n_frames = 0u64;
    for (i, &used) in frame_used.iter().enumerate() {
        let Some(f) = used
            .then(|| profile.frames.get(FrameIndex::from_len(i).ok()?))
            .flatten()
        else {
            continue;
        };
        frames.v(new_index(&func_map, f.func.index()));
        frames
            .v(f.module
                .map_or(0, |m| new_index(&module_map, m.index()) + 1));
        frames.v(f.address);
        frames.v(u64::from(f.inline_depth));
        n_frames += 1;
    }
    let mut stacks = Writer { out: Vec::new() };
    let mut n_stacks = 0u64;
    for (i, st) in profile.stacks.iter().enumerate() {
        if !stack_used.get(i).copied().unwrap_or(false) {
            continue;
        }
        stacks.v(st
            .prefix
            .map_or(0, |p| new_index(&stack_map, p.index()) + 1));
        stacks.v(new_index(&frame_map, st.frame.index()));
        n_stacks += 1;
    }
    let mut threads = Writer { out: Vec::new() };
    let mut n_threads = 0u64;
    for (i, &used) in thread_used.iter().enumerate() {
        let Some(t) = used
            .then(|| profile.threads.get(ThreadIndex::from_len(i).ok()?))
            .flatten()
        else {
            continue;
        };
        threads.v(u64::from(t.pid));
        threads.v(u64::from(t.tid));
        let name = if privacy.strip_thread_names {
            format!("thread-{}", t.tid)
        } else {
            profile.strings.get(t.name).to_owned()
        };
        threads.v(table.get(&name));
        n_threads += 1;
    }
    let mut events = Writer { out: Vec::new() };
    for &e in &profile.events {
        events.v(table.get(profile.strings.get(e)));
    }

    let mut w = Writer { out: Vec::new() };
    w.s(format!("perfscope {}", env!("CARGO_PKG_VERSION")).as_bytes());
    w.v(privacy.bits());
    let summary_json = summary
        .map(|sm| serde_json::to_vec(&scrub_summary(sm, privacy)).unwrap_or_default())
        .unwrap_or_default();
    w.s(&summary_json);
    w.v(table.list.len() as u64);
    for st in &table.list {
        w.s(st.as_bytes());
    }
    for (count, body) in [
        (n_modules, modules),
        (n_funcs, funcs),
        (n_frames, frames),
        (n_stacks, stacks),
        (n_threads, threads),
    ] {
        w.v(count);
        w.out.extend_from_slice(&body.out);
    }
    w.v(profile.events.len() as u64);
    w.out.extend_from_slice(&events.out);

    w.v(kept.len() as u64);
    let mut prev = 0u64;
    for &i in &kept {
        let t = s.times().get(i).unwrap_or(0);
        let d = t.wrapping_sub(prev) as i64;
        w.v(((d << 1) ^ (d >> 63)) as u64);
        prev = t;
    }
    for &i in &kept {
        w.v(s
            .thread
            .get(i)
            .map_or(0, |t| new_index(&thread_map, t.index())));
    }
    for &i in &kept {
        w.v(u64::from(s.cpu(i).unwrap_or(u32::MAX).wrapping_add(1)));
    }
    for &i in &kept {
        w.v(s.event(i).map_or(0, |e| u64::from(e.0)));
    }
    for &i in &kept {
        w.v(s
            .stack(i)
            .flatten()
            .map_or(0, |st| new_index(&stack_map, st.index()) + 1));
    }
    for &i in &kept {
        w.v(s.period(i).unwrap_or(0));
    }

    let mut out = Vec::with_capacity(HEADER_SIZE + w.out.len() / 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[COMPRESSION_GZIP, 0, 0, 0]);
    out.extend_from_slice(&(w.out.len() as u64).to_le_bytes());
    // Level 2: a big recording's columns compressed 4x as fast as at level 9 (`best`), for
    // 1.6 % more bytes (BENCHMARKS.md, session 51); level 1 was 6.6 % more.
    let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::new(2));
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(&w.out);
    enc.finish().unwrap_or_default()
}

/// The string table written to the file.
#[derive(Default)]
struct StringsOut {
    list: Vec<String>,
    index: FxHashMap<String, u64>,
}

impl StringsOut {
    fn get(&mut self, s: &str) -> u64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u64;
        self.list.push(s.to_owned());
        self.index.insert(s.to_owned(), i);
        i
    }
}

#[cfg(test)]
mod tests;
