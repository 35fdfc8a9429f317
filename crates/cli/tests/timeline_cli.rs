//! `perfscope timeline --json` against perf: samples per thread (`perf script`), and the
//! off-CPU time of every thread `perf sched timehist -s --state` lists (expected outputs in
//! `crates/analysis/tests/data/timeline`, made by its `generate.sh`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

fn expected(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../analysis/tests/data/timeline")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn us(s: &str) -> u64 {
    s.replace('.', "").parse().unwrap()
}

#[test]
fn threads_samples_and_off_cpu_time_equal_perfs() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    for (rel, name) in [
        ("gen/tp-callchain.data", "tp-callchain"),
        ("bigendian/be-multi.data", "be-multi"),
        ("gen/sched-record.data", "sched-record"),
    ] {
        let file = root.join(rel);
        let (code, out, err) = common::perfscope(&[
            OsStr::new("timeline"),
            OsStr::new("--json"),
            file.as_os_str(),
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let tasks = v["tasks"].as_array().unwrap();
        let by_tid = |tid: i64| tasks.iter().filter(move |t| t["tid"].as_i64() == Some(tid));
        // Samples per (pid, tid), as perf script counts them.
        let mut ours: BTreeMap<String, u64> = BTreeMap::new();
        for t in tasks.iter().filter(|t| t["samples"].as_u64() > Some(0)) {
            *ours
                .entry(format!("{}/{}", t["pid"], t["tid"]))
                .or_default() += t["samples"].as_u64().unwrap();
        }
        let perf: BTreeMap<String, u64> = expected(&format!("{name}.samples-per-thread.txt"))
            .lines()
            .map(|l| {
                let (k, n) = l.split_once(' ').unwrap();
                (k.to_string(), n.parse().unwrap())
            })
            .collect();
        assert_eq!(ours, perf, "{name}");
        // Off-CPU time: perf counts a wait when the thread next leaves the CPU, so a thread that
        // exited has all of it; one still running at the end has at least perf's.
        let summary = expected(&format!("{name}.timehist-summary.txt"));
        let terminated = summary.find("Terminated tasks:").unwrap_or(summary.len());
        let mut checked = 0;
        for (at, l) in summary.lines().scan(0, |pos, l| {
            let at = *pos;
            *pos += l.len() + 1;
            Some((at, l))
        }) {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 8 || !f[0].ends_with(']') || f[0].contains("[-1/") {
                continue;
            }
            let tid: i64 = f[0][f[0].rfind('[').unwrap() + 1..f[0].len() - 1]
                .split('/')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let n = f.len();
            let perf_us = us(f[n - 4]) + us(f[n - 3]) + us(f[n - 2]);
            let perf_iowait = us(f[n - 3]);
            let mine: u64 = by_tid(tid)
                .map(|t| t["off_cpu_ns"].as_u64().unwrap())
                .sum::<u64>()
                / 1000;
            let mine_d: u64 = by_tid(tid)
                .map(|t| t["off_cpu_ns_by_state"]["D"].as_u64().unwrap_or(0))
                .sum::<u64>()
                / 1000;
            // sched-record: perf gives the exit switch of two threads to tid -1 (their last wait).
            let exited =
                at > terminated && !(name == "sched-record" && (tid == 32276 || tid == 32277));
            if exited {
                assert!(
                    perf_us <= mine && mine <= perf_us + 2,
                    "{name}: {tid} off-CPU {mine} us, perf {perf_us} us"
                );
                assert!(
                    perf_iowait <= mine_d && mine_d <= perf_iowait + 1,
                    "{name}: {tid} D {mine_d} us, perf {perf_iowait} us"
                );
            } else {
                assert!(
                    perf_us <= mine,
                    "{name}: {tid} off-CPU {mine} us, perf {perf_us} us"
                );
            }
            checked += 1;
        }
        assert!(checked >= 7, "{name}: {checked}");
        eprintln!(
            "{name}: {} threads' samples and {checked} threads' off-CPU time agree with perf",
            perf.len()
        );
    }
}

#[test]
fn text_output_names_the_switch_sources() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let (code, out, err) = common::perfscope(&[
        OsStr::new("timeline"),
        root.join("gen/switch-events.data").as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("context switches: 242 SWITCH, 0 SWITCH_CPU_WIDE, 0 sched_switch"),
        "{out}"
    );
    // The main thread of mt, exited: 21 on-CPU intervals; its off-CPU time by state.
    let line = out
        .lines()
        .find(|l| l.split_whitespace().take(2).collect::<Vec<_>>() == ["27634", "27634"])
        .unwrap();
    assert!(
        line.contains(" 297 ") && line.ends_with("R:222.198 V:67.247"),
        "{line}"
    );
    let (code, out, _) = common::perfscope(&[
        OsStr::new("timeline"),
        root.join("gen/default.data").as_os_str(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("no context switches recorded"), "{out}");
}
