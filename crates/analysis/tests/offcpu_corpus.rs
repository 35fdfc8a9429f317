//! Off-CPU time attributed to stacks on real recordings, checked against perf's own outputs:
//! - `tp-callchain.data` (`-e sched:sched_switch -g`): each off-CPU interval goes to the
//!   callchain of the sched_switch that began it. Expected: every sched_switch of perf script's
//!   oracle with its callchain, and the wait `perf sched timehist` prints at the thread's next
//!   switch-out (`tests/data/timeline/tp-callchain.timehist.txt`).
//! - `switch-events.data` (`--switch-events`, cpu-clock samples without callchains): each goes to
//!   the thread's last sample before the switch-out, marked approximate. Expected: the last
//!   sample of perf script's oracle before each OUT of perf script's switch lines.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod timeline_common;

use std::collections::BTreeMap;

use perfscope_analysis::ids::StackIndex;
use perfscope_analysis::offcpu::{off_cpu_by_stack, OFF_CPU_APPROX_EVENT, OFF_CPU_EVENT};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::timeline::StackSource;
use timeline_common::{corpus_file, expected, load_with_off_cpu, msec, usec};

fn id(s: &str) -> u32 {
    s.parse::<i64>().unwrap() as u32
}

fn ns(s: &str) -> u64 {
    let (a, b) = s.trim_end_matches(':').split_once('.').unwrap();
    a.parse::<u64>().unwrap() * 1_000_000_000 + format!("{b:0<9}").parse::<u64>().unwrap()
}

/// A perf script sample header: (tid, time ns), from `comm pid/tid [cpu] time: ...`.
fn sample_head(line: &str) -> Option<(u32, u64)> {
    let f: Vec<&str> = line.split_whitespace().collect();
    let i = f.iter().position(|t| {
        t.split_once('/')
            .is_some_and(|(a, b)| a.parse::<i64>().is_ok() && b.parse::<i64>().is_ok())
    })?;
    let tid = id(f[i].split_once('/').unwrap().1);
    let time = f[i + 1..]
        .iter()
        .find(|t| t.ends_with(':') && t.contains('.'))?;
    Some((tid, ns(time)))
}

/// A stack as the loader names unsymbolized frames, leaf first.
fn stack_names(p: &Profile, stack: Option<StackIndex>) -> Vec<String> {
    p.stacks
        .frames_leaf_first(stack)
        .map(|f| p.func_name(p.frame_func(f).unwrap()).to_string())
        .collect()
}

#[test]
fn sched_switch_callchains_carry_the_wait_perf_sched_timehist_prints() {
    let Some(path) = corpus_file("gen/tp-callchain.data") else {
        return;
    };
    let Some(root) = timeline_common::shared() else {
        return;
    };
    // perf script: every sched_switch with its callchain, as `module+0xaddress` (the raw address
    // when perf knows no module).
    let script =
        std::fs::read_to_string(root.join("corpus/gen/oracle/tp-callchain.script.txt")).unwrap();
    let mut switches: BTreeMap<u32, Vec<(u64, Vec<String>)>> = BTreeMap::new();
    let mut current: Option<(u32, u64, Vec<String>)> = None;
    for line in script.lines().chain([""]) {
        if line.contains("sched:sched_switch:") {
            let (tid, time) = sample_head(line).unwrap();
            current = Some((tid, time, Vec::new()));
        } else if let (Some(c), Some(frame)) = (current.as_mut(), line.strip_prefix('\t')) {
            let frame = frame.trim();
            let addr = frame.split_whitespace().next().unwrap();
            let dso = &frame[frame.rfind('(').unwrap() + 1..frame.len() - 1];
            c.2.push(if dso == "[unknown]" {
                format!("0x{addr}")
            } else {
                format!("{}+0x{addr}", dso.rsplit('/').next().unwrap())
            });
        } else if line.is_empty() {
            if let Some((tid, time, stack)) = current.take() {
                switches.entry(tid).or_default().push((time, stack));
            }
        }
    }
    // perf script prints in the order it flushed its queue, not always in time order.
    for v in switches.values_mut() {
        v.sort();
    }
    // perf sched timehist: the wait before each switch-out, per thread in time order.
    let mut waits: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for l in expected("tp-callchain.timehist.txt").lines().skip(3) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let task = f[2];
        let tid = id(task[task.rfind('[').unwrap() + 1..task.len() - 1]
            .split('/')
            .next()
            .unwrap());
        waits.entry(tid).or_default().push(f[3].to_string());
    }
    // The interval after switch-out k is the wait perf prints at switch-out k + 1.
    let mut want = Vec::new();
    for (tid, outs) in &switches {
        let w = &waits[tid];
        assert_eq!(w.len(), outs.len(), "{tid}");
        for k in 1..outs.len() {
            want.push((
                *tid,
                usec(outs[k - 1].0),
                outs[k - 1].1.clone(),
                w[k].clone(),
            ));
        }
    }
    let loaded = load_with_off_cpu(&path);
    let (p, t) = (&loaded.profile, loaded.timeline.as_ref().unwrap());
    let mut got: Vec<_> = t
        .off_cpu
        .iter()
        .map(|s| {
            assert_eq!(s.source, StackSource::SwitchCallchain);
            (
                t.tasks[s.task.index()].tid,
                usec(s.start),
                stack_names(p, s.stack),
                msec(s.duration()),
            )
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    // In the profile: one offcpu-time sample per non-empty interval, weighted by its ns, in
    // time order with the sched_switch samples.
    let ev = loaded.off_cpu_events.exact.unwrap();
    assert_eq!(
        (p.event_name(ev), loaded.off_cpu_events.approximate),
        (OFF_CPU_EVENT, None)
    );
    let in_profile: u64 = (0..p.samples.len())
        .filter(|&i| p.samples.event(i) == Some(ev))
        .filter_map(|i| p.samples.period(i))
        .sum();
    let total: u64 = t.off_cpu.iter().map(|s| s.duration()).sum();
    assert_eq!(in_profile, total);
    assert!(p.samples.times().is_sorted(), "time order");
    let by_stack = off_cpu_by_stack(&t.off_cpu);
    eprintln!(
        "tp-callchain: {} off-CPU intervals ({} ms) on {} (thread, stack) pairs equal perf's callchains and waits",
        want.len(),
        total / 1_000_000,
        by_stack.len()
    );
}

#[test]
fn without_callchains_the_last_sample_before_the_switch_is_the_stack() {
    let Some(path) = corpus_file("gen/switch-events.data") else {
        return;
    };
    let Some(root) = timeline_common::shared() else {
        return;
    };
    let script =
        std::fs::read_to_string(root.join("corpus/gen/oracle/switch-events.script.txt")).unwrap();
    let mut samples: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for line in script.lines().filter(|l| l.contains("cpu-clock")) {
        let (tid, time) = sample_head(line).unwrap();
        samples.entry(tid).or_default().push(time);
    }
    for v in samples.values_mut() {
        v.sort_unstable();
    }
    let loaded = load_with_off_cpu(&path);
    let (p, t) = (&loaded.profile, loaded.timeline.as_ref().unwrap());
    // The profile's stack of each (tid, time) sample.
    let mut stack_at: BTreeMap<(u32, u64), Option<StackIndex>> = BTreeMap::new();
    for i in 0..p.samples.len() {
        let s = p.samples.get(i).unwrap();
        stack_at.insert((p.threads.get(s.thread).unwrap().tid, s.time), s.stack);
    }
    let (mut last_sample, mut no_sample) = (0, 0);
    for s in &t.off_cpu {
        let tid = t.tasks[s.task.index()].tid;
        let before = samples
            .get(&tid)
            .and_then(|v| v.iter().rev().find(|&&x| x < s.start).copied());
        match before {
            Some(time) => {
                assert_eq!(s.source, StackSource::LastSample, "{tid} at {}", s.start);
                assert_eq!(
                    s.stack,
                    stack_at[&(tid, time)],
                    "{tid} at {}: the sample at {time}",
                    s.start
                );
                last_sample += 1;
            }
            None => {
                assert_eq!((s.source, s.stack), (StackSource::NoSample, None));
                no_sample += 1;
            }
        }
    }
    let ev = loaded.off_cpu_events.approximate.unwrap();
    assert_eq!(
        (p.event_name(ev), loaded.off_cpu_events.exact),
        (OFF_CPU_APPROX_EVENT, None)
    );
    assert!(last_sample > 100);
    eprintln!("switch-events: {last_sample} intervals on the last sample's stack, {no_sample} before any sample");
}
