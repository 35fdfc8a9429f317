//! Timelines of real recordings against what perf computes for them (expected outputs made with
//! perf 6.1 by `tests/data/timeline/generate.sh`): samples per thread lane, the switch intervals
//! of `--switch-events`, and every run and wait time `perf sched timehist` prints for the
//! sched_switch recordings (per-task, system-wide, big-endian s390x).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod timeline_common;

use std::collections::BTreeMap;

use perfscope_analysis::timeline::{
    Bound, Lane, OffCpuInterval, OffCpuState, OnCpuInterval, TaskIndex, Timeline,
};
use timeline_common::{corpus_file, expected, msec, timeline_of, usec};

const FILES: [(&str, &str); 4] = [
    ("gen/switch-events.data", "switch-events"),
    ("gen/sched-record.data", "sched-record"),
    ("gen/tp-callchain.data", "tp-callchain"),
    ("bigendian/be-multi.data", "be-multi"),
];

fn id(s: &str) -> u32 {
    s.parse::<i64>().unwrap() as u32
}

#[test]
fn samples_per_thread_lane_equal_perf_script() {
    for (rel, name) in FILES {
        let Some(path) = corpus_file(rel) else { return };
        let t = timeline_of(&path);
        let (start, end) = (t.start.unwrap(), t.end.unwrap());
        let mut ours: BTreeMap<(u32, u32), u64> = BTreeMap::new();
        for (i, task) in t.tasks.iter().enumerate() {
            let lane = Lane::Task(TaskIndex(i as u32));
            // The density over the whole recording, at two zooms, adds up to the lane.
            let n = t.lane_samples(lane).unwrap().len() as u64;
            for bins in [1, 997] {
                let total: u64 = t
                    .density(lane, start, end + 1, bins)
                    .iter()
                    .map(|&c| u64::from(c))
                    .sum();
                assert_eq!(total, n, "{name}: task {i} in {bins} bins");
            }
            assert_eq!(n, task.samples, "{name}: every sample has a time");
            if task.samples > 0 {
                *ours.entry((task.pid.unwrap(), task.tid)).or_default() += task.samples;
            }
        }
        let perf: BTreeMap<(u32, u32), u64> = expected(&format!("{name}.samples-per-thread.txt"))
            .lines()
            .map(|l| {
                let (ids, count) = l.split_once(' ').unwrap();
                let (pid, tid) = ids.split_once('/').unwrap();
                ((id(pid), id(tid)), count.parse().unwrap())
            })
            .collect();
        assert_eq!(ours, perf, "{name}");
        let cpu_total: usize = t.cpus.iter().map(|c| c.samples.len()).sum();
        if name != "switch-events" {
            assert_eq!(
                cpu_total as u64,
                perf.values().sum::<u64>(),
                "{name}: samples per CPU"
            );
        }
        eprintln!(
            "{name}: {} threads, {} samples",
            perf.len(),
            perf.values().sum::<u64>()
        );
    }
}

#[test]
fn switch_records_give_perf_scripts_intervals() {
    let Some(path) = corpus_file("gen/switch-events.data") else {
        return;
    };
    let t = timeline_of(&path);
    assert_eq!(t.switches.switch, 242);
    // From perf script's lines: per tid, OUT -> next IN is off-CPU, IN -> next OUT on-CPU.
    let mut last: BTreeMap<u32, (u64, bool, bool)> = BTreeMap::new();
    let mut want_off: BTreeMap<u32, Vec<(u64, u64, char)>> = BTreeMap::new();
    let mut want_on: BTreeMap<u32, Vec<(u64, u64)>> = BTreeMap::new();
    for line in expected("switch-events.switches.txt").lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let tid = id(f[0].split_once('/').unwrap().1);
        let (s, ns) = f[1].trim_end_matches(':').split_once('.').unwrap();
        let time = s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
        let out = f[3] == "OUT";
        let preempt = f.get(4) == Some(&"preempt");
        if let Some((prev, prev_out, prev_preempt)) = last.insert(tid, (time, out, preempt)) {
            match (prev_out, out) {
                (true, false) => want_off.entry(tid).or_default().push((
                    prev,
                    time,
                    if prev_preempt { 'R' } else { 'V' },
                )),
                (false, true) => want_on.entry(tid).or_default().push((prev, time)),
                _ => panic!("two {} in a row for {tid}", if out { "OUT" } else { "IN" }),
            }
        }
    }
    let mut total_off = 0;
    for (tid, want) in &want_off {
        let task = t.tasks.iter().find(|x| x.tid == *tid).unwrap();
        let got: Vec<_> = task
            .off_cpu
            .iter()
            .filter(|i| i.end_bound == Bound::Recorded)
            .map(|i| (i.start, i.end, i.state.letter()))
            .collect();
        assert_eq!(&got, want, "off-CPU of {tid}");
        let sum: u64 = want.iter().map(|(a, b, _)| b - a).sum();
        assert_eq!(task.off_cpu_ns(), sum);
        total_off += sum;
    }
    for (tid, want) in &want_on {
        let task = t.tasks.iter().find(|x| x.tid == *tid).unwrap();
        let got: Vec<_> = task
            .on_cpu
            .iter()
            .filter(|i| i.start_bound == Bound::Recorded && i.end_bound == Bound::Recorded)
            .map(|i| (i.start, i.end))
            .collect();
        assert_eq!(&got, want, "on-CPU of {tid}");
    }
    assert_eq!(
        t.off_cpu.iter().map(|s| s.duration()).sum::<u64>(),
        total_off
    );
    eprintln!(
        "switch-events: {} threads, {} ns off-CPU in {} intervals",
        want_off.len(),
        total_off,
        t.off_cpu.len()
    );
}

/// One line of `perf sched timehist`.
#[derive(Debug)]
struct TimehistLine {
    time: String,
    cpu: u32,
    /// `None` for `<idle>`.
    tid: Option<u32>,
    wait: String,
    run: String,
}

fn timehist_lines(text: &str) -> Vec<TimehistLine> {
    text.lines()
        .skip(3)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let head = l.split(" next: ").next().unwrap();
            let f: Vec<&str> = head.split_whitespace().collect();
            let n = f.len();
            let task = f[2..n - 4].join(" ");
            let tid = (task != "<idle>").then(|| {
                let inner = &task[task.rfind('[').unwrap() + 1..task.len() - 1];
                id(inner.split('/').next().unwrap())
            });
            TimehistLine {
                time: f[0].to_string(),
                cpu: f[1].trim_matches(['[', ']']).parse().unwrap(),
                tid,
                wait: f[n - 4].to_string(),
                run: f[n - 2].to_string(),
            }
        })
        .collect()
}

/// A switch-out: the task (`None` for idle), its on-CPU interval, the off-CPU interval before.
type SwitchOut = (Option<u32>, OnCpuInterval, Option<OffCpuInterval>);

/// Every switch-out: (usec time, cpu) -> (task or idle, the on-CPU interval, the off-CPU
/// interval that ended where it began).
fn switch_outs(t: &Timeline) -> BTreeMap<(String, u32), Vec<SwitchOut>> {
    let mut m: BTreeMap<(String, u32), Vec<_>> = BTreeMap::new();
    for task in &t.tasks {
        for on in task
            .on_cpu
            .iter()
            .filter(|i| i.end_bound == Bound::Recorded)
        {
            let before = task
                .off_cpu
                .iter()
                .find(|o| o.end == on.start && o.end_bound != Bound::Truncated)
                .copied();
            m.entry((usec(on.end), on.cpu.unwrap())).or_default().push((
                Some(task.tid),
                *on,
                before,
            ));
        }
    }
    for c in &t.cpus {
        // The idle task of each CPU waits from one idle slice to the next.
        let mut prev_end = None;
        for s in c.slices.iter().filter(|s| s.task.is_none()) {
            let on = OnCpuInterval {
                start: s.start,
                end: s.end,
                cpu: Some(c.cpu),
                start_bound: s.start_bound,
                end_bound: s.end_bound,
            };
            let before = prev_end.map(|start| OffCpuInterval {
                start,
                end: s.start,
                cpu_out: Some(c.cpu),
                cpu_in: Some(c.cpu),
                state: OffCpuState::Runnable,
                end_bound: Bound::Recorded,
            });
            if s.end_bound == Bound::Recorded {
                m.entry((usec(s.end), c.cpu))
                    .or_default()
                    .push((None, on, before));
            }
            prev_end = Some(s.end);
        }
    }
    m
}

#[test]
fn sched_switch_run_and_wait_times_equal_perf_sched_timehist() {
    for (rel, name) in FILES.into_iter().skip(1) {
        let Some(path) = corpus_file(rel) else { return };
        let t = timeline_of(&path);
        let outs = switch_outs(&t);
        let lines = timehist_lines(&expected(&format!("{name}.timehist.txt")));
        assert_eq!(
            lines.len() as u64,
            t.switches.sched_switch,
            "{name}: one line per sched_switch"
        );
        let (mut runs, mut waits, mut minus_one) = (0, 0, 0);
        for l in &lines {
            let found = outs
                .get(&(l.time.clone(), l.cpu))
                .unwrap_or_else(|| panic!("{name}: no switch-out at {l:?}"));
            let matching: Vec<_> = found
                .iter()
                .filter(|(tid, ..)| l.tid == Some(u32::MAX) || *tid == l.tid)
                .collect();
            assert_eq!(matching.len(), 1, "{name}: {l:?} -> {found:?}");
            let (_, on, before) = matching[0];
            // perf runs a thread from the previous switch on the CPU; unknown before the first.
            let run = if on.start_bound == Bound::Truncated {
                0
            } else {
                on.end - on.start
            };
            assert_eq!(msec(run), l.run, "{name}: run time at {l:?}");
            runs += 1;
            if l.tid == Some(u32::MAX) {
                // perf 6.1 gives the final switch of an exiting thread (sample tid -1) to a
                // thread "-1"; prev_pid names the real one, which we use.
                minus_one += 1;
                continue;
            }
            let wait = before.map_or(0, |o| o.end - o.start);
            assert_eq!(msec(wait), l.wait, "{name}: wait time at {l:?}");
            waits += 1;
        }
        eprintln!("{name}: {runs} run times and {waits} wait times equal perf's ({minus_one} exit switches perf gives to tid -1)");
    }
}

#[test]
fn per_thread_totals_equal_perf_sched_timehist_summary() {
    for (rel, name) in FILES.into_iter().skip(1) {
        let Some(path) = corpus_file(rel) else { return };
        let t = timeline_of(&path);
        let lines = timehist_lines(&expected(&format!("{name}.timehist.txt")));
        // The switch-outs perf gave to tid -1 are not in its totals of the real thread.
        let minus_one: Vec<(String, u32)> = lines
            .iter()
            .filter(|l| l.tid == Some(u32::MAX))
            .map(|l| (l.time.clone(), l.cpu))
            .collect();
        let summary = expected(&format!("{name}.timehist-summary.txt"));
        let mut checked = 0;
        for l in summary
            .lines()
            .filter(|l| l.contains('[') && !l.contains("-1/"))
        {
            let f: Vec<&str> = l.split_whitespace().collect();
            let n = f.len();
            let task = f[..n - 7].join(" ");
            let tid = id(task[task.rfind('[').unwrap() + 1..task.len() - 1]
                .split('/')
                .next()
                .unwrap());
            let us = |s: &str| -> u64 { s.replace('.', "").parse().unwrap() };
            let (count, run): (u64, u64) = (f[n - 6].parse().unwrap(), us(f[n - 5]));
            let wait = us(f[n - 4]) + us(f[n - 3]) + us(f[n - 2]);
            let (mut my_count, mut my_run, mut my_wait) = (0, 0, 0);
            for task in t.tasks.iter().filter(|x| x.tid == tid) {
                for on in task
                    .on_cpu
                    .iter()
                    .filter(|i| i.end_bound == Bound::Recorded)
                {
                    if minus_one.contains(&(usec(on.end), on.cpu.unwrap())) {
                        continue;
                    }
                    my_count += 1;
                    if on.start_bound != Bound::Truncated {
                        my_run += on.end - on.start;
                    }
                    if let Some(o) = task
                        .off_cpu
                        .iter()
                        .find(|o| o.end == on.start && o.end_bound != Bound::Truncated)
                    {
                        my_wait += o.end - o.start;
                    }
                }
            }
            assert_eq!(my_count, count, "{name}: sched-in count of {task}");
            // perf sums ns and prints the totals truncated to usec (three of them for the wait).
            assert!(
                my_run / 1000 == run,
                "{name}: run time of {task}: {my_run} ns, perf {run} us"
            );
            assert!(
                wait <= my_wait / 1000 && my_wait / 1000 <= wait + 2,
                "{name}: wait time of {task}: {my_wait} ns, perf {wait} us"
            );
            checked += 1;
        }
        assert!(checked > 0);
        eprintln!("{name}: {checked} thread totals equal perf's");
    }
}

#[test]
fn every_corpus_file_gives_a_consistent_timeline() {
    let Some(root) = timeline_common::shared() else {
        eprintln!("skipped: ../shared (or PERFSCOPE_SHARED) is absent");
        return;
    };
    let mut files = Vec::new();
    let mut dirs = vec![root.join("corpus")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() && name != "oracle" && name != "extra" && name != "workloads" {
                dirs.push(p);
            } else if p.is_file()
                && std::fs::read(&p)
                    .is_ok_and(|b| b.starts_with(b"PERFILE2") || b.starts_with(b"2ELIFREP"))
            {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut switches, mut markers, mut off) = (0, 0, 0);
    let mut unreadable = 0;
    for p in &files {
        let Ok(t) = timeline_common::try_timeline_of(p) else {
            unreadable += 1;
            continue;
        };
        for (i, task) in t.tasks.iter().enumerate() {
            let what = format!("{} task {i}", p.display());
            for w in task.on_cpu.windows(2) {
                assert!(w[0].end <= w[1].start, "{what}: on-CPU overlap {w:?}");
            }
            for w in task.off_cpu.windows(2) {
                assert!(w[0].end <= w[1].start, "{what}: off-CPU overlap {w:?}");
            }
            assert!(
                task.on_cpu.iter().all(|i| i.start <= i.end)
                    && task.off_cpu.iter().all(|i| i.start <= i.end),
                "{what}"
            );
            if let (Some(a), Some(b)) = (task.first_seen, task.last_seen) {
                assert!(
                    a <= b && t.start.unwrap() <= a && b <= t.end.unwrap(),
                    "{what}"
                );
            }
        }
        for c in &t.cpus {
            for w in c.slices.windows(2) {
                assert!(
                    w[0].end <= w[1].start,
                    "{}: CPU {} slices overlap {w:?}",
                    p.display(),
                    c.cpu
                );
            }
        }
        switches += t.switches.switch + t.switches.switch_cpu_wide + t.switches.sched_switch;
        markers += t.markers.len();
        off += t.off_cpu.len();
    }
    eprintln!("{} files ({unreadable} with an unreadable header): {switches} switches, {markers} markers, {off} off-CPU intervals", files.len());
}
