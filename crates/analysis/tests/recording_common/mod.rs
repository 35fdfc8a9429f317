//! The two recordings of `tests/data/diff` (a small C program, `base` and `slow`, see
//! `record.sh`) loaded into profiles, and perf's own report of them.
//!
//! Until `load::load_profile` is on main, a minimal adapter builds the profile: every MMAP,
//! MMAP2, COMM and FORK record first (one process that does not re-map anything, so their order
//! with the samples does not matter), then every sample, through [`ProfileBuilder`], with the
//! committed binaries as symbol sources (found by the path they were recorded at).
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use perfscope_analysis::builder::{CpuMode, ProfileBuilder, SampleInput};
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::summary::Summary;
use perfscope_analysis::symbols::resolver::SymbolResolver;
use perfscope_format::constants::misc;
use perfscope_format::records::CallchainItem;
use perfscope_format::walk::{walk, Item};
use perfscope_format::Record;

/// `tests/data/diff`.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/diff")
}

/// The bytes of `tests/data/diff/{name}`.
pub fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap()
}

/// The profile of `{name}.data`, symbolized with the committed binary `name`.
pub fn load(name: &str) -> Profile {
    let data = read(&format!("{name}.data"));
    let mut resolver = SymbolResolver::new();
    resolver.add_elf(Some(&format!("/tmp/perfscope-diff/{name}")), read(name));
    let mut b = ProfileBuilder::new(Some(resolver));
    for e in Summary::from_bytes(&data).events {
        b.add_event(&e.name).unwrap();
    }
    for pass in [false, true] {
        walk(&data, &[], |meta, _, item| {
            let Item::Record(raw) = item else { panic!("{name}.data: {item:?}") };
            let Ok(rec) = meta.parse(raw) else { return };
            match (pass, rec) {
                (false, Record::Mmap(m)) => b.mmap(m.pid, m.start, m.len, m.pgoff, m.filename.to_str().unwrap(), None).unwrap(),
                (false, Record::Mmap2(m)) => b.mmap(m.pid, m.start, m.len, m.pgoff, m.filename.to_str().unwrap(), None).unwrap(),
                (false, Record::Comm(c)) => b.comm(c.pid, c.tid, c.comm.to_str().unwrap()).unwrap(),
                (false, Record::Fork(f)) => b.fork(f.ppid, f.ptid, f.pid, f.tid).unwrap(),
                (true, Record::Sample(s)) => {
                    let callchain: Vec<u64> = s
                        .callchain
                        .map(|c| {
                            c.items()
                                .flat_map(|i| match i {
                                    CallchainItem::Address(a) | CallchainItem::Context(a) => vec![a],
                                    CallchainItem::UserDeferred { cookie } => vec![perfscope_analysis::builder::PERF_CONTEXT_USER_DEFERRED, cookie],
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    let mode = if s.misc & misc::CPUMODE_MASK == misc::KERNEL { CpuMode::Kernel } else { CpuMode::User };
                    b.sample(&SampleInput {
                        pid: s.pid.unwrap_or(u32::MAX),
                        tid: s.tid.unwrap_or(u32::MAX),
                        time: s.time.unwrap_or(0),
                        cpu: s.cpu.unwrap_or(u32::MAX),
                        event: EventIndex(s.event.0),
                        period: s.period.unwrap_or(1),
                        ip: s.ip.unwrap_or(0),
                        ip_mode: mode,
                        callchain: &callchain,
                    })
                    .unwrap();
                }
                _ => {}
            }
        })
        .unwrap();
    }
    b.finish()
}

/// perf's report (`{name}.report.txt`): total samples, and per symbol (percent, samples).
pub fn report(name: &str) -> (u64, HashMap<String, (f64, u64)>) {
    let text = String::from_utf8(read(&format!("{name}.report.txt"))).unwrap();
    let mut total = 0;
    let mut syms = HashMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# Samples: ") {
            total = rest.split_whitespace().next().unwrap().parse().unwrap();
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        if let [pct, n, _mode, sym] = cols[..] {
            if let Some(pct) = pct.strip_suffix('%') {
                syms.insert(sym.to_owned(), (pct.parse().unwrap(), n.parse().unwrap()));
            }
        }
    }
    (total, syms)
}
