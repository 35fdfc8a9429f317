//! `collapse --off-cpu` against perf's own records of the context switches: on
//! `gen/switch-events.data` (`perf record --switch-events`, no callchains), every thread's
//! off-CPU time — the gaps between each PERF_RECORD_SWITCH OUT and the next IN, as `perf script
//! --show-switch-events` prints them (oracle) — and, per frame, the time given to the thread's
//! last sample before each switch-out (the approximate stack). The oracle's lines are not in
//! time order: they are sorted per thread here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;
use std::ffi::OsStr;

/// `SECS.NANOS` as ns.
fn ns(s: &str) -> u64 {
    let (a, b) = s.trim_end_matches(':').split_once('.').unwrap();
    a.parse::<u64>().unwrap() * 1_000_000_000 + b.parse::<u64>().unwrap()
}

/// One line of the oracle that matters here, for one thread.
enum Seen {
    Out,
    In,
    /// A sample at this ip.
    Sample(u64),
}

/// A mapping from the oracle's MMAP/MMAP2 lines: start, length, pgoff, file name.
struct Map {
    start: u64,
    len: u64,
    pgoff: u64,
    base: String,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

#[test]
fn off_cpu_time_per_thread_and_frame_equals_the_switch_records() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let data = root.join("gen/switch-events.data");
    let script = std::fs::read_to_string(root.join("gen/oracle/switch-events.script.txt")).unwrap();
    let mut by_tid: BTreeMap<u32, Vec<(u64, Seen)>> = BTreeMap::new();
    let mut maps: Vec<Map> = Vec::new();
    for line in script.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = f
            .iter()
            .position(|w| w.contains('/') && w.split('/').all(|p| p.parse::<i64>().is_ok()))
        else {
            continue;
        };
        let tid: u32 = match f[at].split('/').nth(1).unwrap().parse() {
            Ok(t) => t,
            Err(_) => continue,
        };
        let time = ns(f[at + 1]);
        let rest = &f[at + 2..];
        if rest.first() == Some(&"PERF_RECORD_SWITCH") {
            by_tid.entry(tid).or_default().push((
                time,
                if rest[1] == "OUT" {
                    Seen::Out
                } else {
                    Seen::In
                },
            ));
        } else if rest
            .first()
            .is_some_and(|w| w.starts_with("PERF_RECORD_MMAP"))
        {
            // [0xSTART(0xLEN) @ 0xPGOFF ...]: prot PATH
            let text = line.split_once('[').unwrap().1;
            let (start, text) = text.split_once('(').unwrap();
            let (len, text) = text.split_once(')').unwrap();
            let pgoff = text
                .trim_start_matches(" @ ")
                .split([' ', ']'])
                .next()
                .unwrap();
            let path = line.rsplit(' ').next().unwrap();
            let base = if path.starts_with("[kernel.kallsyms]") {
                "[kernel.kallsyms]".to_string()
            } else {
                path.rsplit('/').next().unwrap().to_string()
            };
            maps.push(Map {
                start: hex(start),
                len: hex(len),
                pgoff: hex(pgoff),
                base,
            });
        } else if rest.get(1).is_some_and(|w| w.starts_with("cpu-clock")) {
            by_tid
                .entry(tid)
                .or_default()
                .push((time, Seen::Sample(hex(rest[2]))));
        }
    }
    assert!(
        by_tid.len() >= 5 && maps.len() >= 3,
        "the oracle was not read: {} threads, {} mappings",
        by_tid.len(),
        maps.len()
    );
    let frame = |ip: u64| {
        let m = maps
            .iter()
            .find(|m| m.start <= ip && ip - m.start < m.len)
            .unwrap_or_else(|| panic!("no mapping for {ip:#x}"));
        format!("{}+0x{:x}", m.base, ip - m.start + m.pgoff)
    };

    let mut checked = 0;
    for (tid, mut seen) in by_tid {
        seen.sort_by_key(|s| s.0);
        // The time of each OUT → IN gap, to the thread's last sample before the OUT.
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        let (mut last, mut out): (Option<u64>, Option<(u64, Option<u64>)>) = (None, None);
        for (time, s) in &seen {
            match s {
                Seen::Sample(ip) => last = Some(*ip),
                Seen::Out => out = Some((*time, last)),
                Seen::In => {
                    if let Some((at, Some(ip))) = out.take() {
                        *want.entry(frame(ip)).or_default() += time - at;
                    }
                }
            }
        }
        let tid_arg = tid.to_string();
        let args = ["collapse", "--off-cpu", "--no-symbols", "--tid", &tid_arg];
        let mut argv: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        argv.push(data.as_os_str());
        let (code, out, err) = common::perfscope(&argv);
        assert_eq!(code, 0, "{tid}: {err}");
        let mut got: BTreeMap<String, u64> = BTreeMap::new();
        for l in out.lines() {
            let (stack, n) = l.rsplit_once(' ').unwrap();
            // comm;frame (no callchains: the sampled ip is the whole stack).
            *got.entry(stack.rsplit(';').next().unwrap().to_string())
                .or_default() += n.parse::<u64>().unwrap();
        }
        assert_eq!(got, want, "thread {tid}: off-CPU ns per frame");
        checked += want.values().sum::<u64>();
    }
    // 1.53 s of off-CPU time over 7 threads in this recording.
    assert!(checked > 1_000_000_000, "only {checked} ns checked");
}

#[test]
fn off_cpu_without_switches_says_what_to_record() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let data = root.join("gen/default.data");
    let (code, _, err) = common::perfscope(&[
        OsStr::new("collapse"),
        OsStr::new("--off-cpu"),
        data.as_os_str(),
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("no context switches") && err.contains("--switch-events"),
        "{err}"
    );
}
