//! Off-CPU time in a session, against perf's own records of the context switches:
//! `tests/data/switches.data` (`perf record --switch-events`, see `switches.cmd`) and
//! `switches.script.txt`, what `perf script --ns --show-switch-events` printed for it. Each
//! thread's off-CPU time is the gaps between a PERF_RECORD_SWITCH OUT and its next IN (the
//! lines are sorted per thread: perf prints them in the order it read them).

use std::collections::BTreeMap;

use super::*;
use crate::protocol::{Filter, WeightKind};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// From the oracle: (cpu-clock samples, OUT → IN ns per tid).
fn oracle() -> (u64, BTreeMap<u32, u64>) {
    let text = String::from_utf8(data("switches.script.txt")).unwrap();
    let mut by_tid: BTreeMap<u32, Vec<(u64, &str)>> = BTreeMap::new();
    let mut samples = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let at = f
            .iter()
            .position(|w| w.contains('/') && w.split('/').all(|p| p.parse::<i64>().is_ok()))
            .unwrap();
        let tid: u32 = f[at].split('/').nth(1).unwrap().parse().unwrap();
        let (s, ns) = f[at + 1].trim_end_matches(':').split_once('.').unwrap();
        let time = s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
        match f[at + 2] {
            "PERF_RECORD_SWITCH" => by_tid.entry(tid).or_default().push((time, f[at + 3])),
            _ => samples += 1,
        }
    }
    let mut gaps = BTreeMap::new();
    for (tid, mut seen) in by_tid {
        seen.sort();
        let mut out = None;
        for (time, what) in seen {
            match what {
                "OUT" => out = Some(time),
                _ => {
                    if let Some(at) = out.take() {
                        *gaps.entry(tid).or_default() += time - at;
                    }
                }
            }
        }
    }
    (samples, gaps)
}

fn tree(s: &mut Session, filter: Filter) -> crate::protocol::TreeReply {
    match s.query(
        1,
        Query::Tree {
            filter,
            inverted: false,
            weight: WeightKind::Period,
            root: vec![],
            detail: u64::MAX as u32,
            by_command: false,
        },
    ) {
        WorkerMessage::Tree(_, t) => *t,
        other => panic!("{other:?}"),
    }
}

#[test]
fn off_cpu_time_equals_the_switch_records_and_changes_nothing_else() {
    let (samples, gaps) = oracle();
    let total: u64 = gaps.values().sum();
    assert!(gaps.len() > 5 && total > 1_000_000_000, "{gaps:?}");
    let mut s = Session::open_bytes(data("switches.data"), SLICE);
    let o = s.overview();
    // The samples are perf's cpu-clock samples only.
    assert_eq!(o.samples, samples);
    assert_eq!(o.events.iter().map(|e| e.samples).sum::<u64>(), samples);
    let info = o.off_cpu.clone().expect("off-CPU time");
    assert_eq!(info.ns, total);
    // No sched_switch callchains: every stack is the thread's last sample's.
    assert_eq!(info.approximate, info.switches);
    let on = tree(
        &mut s,
        Filter {
            event: Some(0),
            ..Filter::default()
        },
    );
    assert_eq!(on.meta.samples, samples);
    let off = tree(
        &mut s,
        Filter {
            event: Some(0),
            off_cpu: true,
            ..Filter::default()
        },
    );
    assert_eq!(off.meta.period, total);
    assert_eq!(off.meta.samples, info.switches);
    // Per thread: the lane's off-CPU time.
    for (lane, t) in o.threads.iter().enumerate() {
        let want = gaps.get(&t.tid).copied().unwrap_or(0);
        let got = tree(
            &mut s,
            Filter {
                threads: vec![lane as u32],
                off_cpu: true,
                ..Filter::default()
            },
        )
        .meta
        .period;
        assert_eq!(got, want, "{} {}/{}", t.name, t.pid, t.tid);
    }
    // A time selection: the switches back in within it.
    let (lo, hi) = o.sample_range.unwrap();
    let mid = lo + (hi - lo) / 2;
    let half = tree(
        &mut s,
        Filter {
            range: Some((lo, mid)),
            off_cpu: true,
            ..Filter::default()
        },
    );
    assert!(
        half.meta.period > 0 && half.meta.period < total,
        "{}",
        half.meta.period
    );
}

#[test]
fn a_recording_without_switches_has_no_off_cpu_time() {
    let s = Session::open_bytes(data("example.data"), SLICE);
    assert_eq!(s.overview().off_cpu, None);
}

/// Sums the counts of folded lines (`comm;frame;… count`).
fn folded_total(bytes: &[u8]) -> u64 {
    let text = std::str::from_utf8(bytes).unwrap();
    text.lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum()
}

#[test]
fn exports_in_the_off_cpu_view_hold_the_off_cpu_time() {
    use crate::protocol::{ExportFormat, Privacy};
    use perfscope_analysis::open::{open, Opened};

    let (samples, gaps) = oracle();
    let total: u64 = gaps.values().sum();
    let mut s = Session::open_bytes(data("switches.data"), SLICE);
    let o = s.overview();
    let off = Filter {
        off_cpu: true,
        ..Filter::default()
    };
    // Folded stacks weigh by the ns switched out, whatever the weight asked for.
    let folded = s
        .export(
            ExportFormat::Folded,
            &off,
            WeightKind::Samples,
            Privacy::default(),
            "switches.data",
        )
        .unwrap();
    assert_eq!(folded_total(&folded.bytes), total);
    // Per thread, the gaps between its switch records.
    for (lane, t) in o.threads.iter().enumerate().take(8) {
        let one = Filter {
            threads: vec![lane as u32],
            ..off.clone()
        };
        let f = s
            .export(
                ExportFormat::Folded,
                &one,
                WeightKind::Period,
                Privacy::default(),
                "x",
            )
            .unwrap();
        let want = gaps.get(&t.tid).copied().unwrap_or(0);
        assert_eq!(
            folded_total(&f.bytes),
            want,
            "{} {}/{}",
            t.name,
            t.pid,
            t.tid
        );
    }
    // The share file: one sample per switch back in, named like perf's --off-cpu event (the
    // stacks here are the threads' last samples: approximate).
    let share = s
        .export(
            ExportFormat::Share,
            &off,
            WeightKind::Period,
            Privacy::default(),
            "x",
        )
        .unwrap();
    let Ok(Opened::Share(back)) = open(&share.bytes) else {
        panic!("not a share file")
    };
    let info = o.off_cpu.clone().unwrap();
    assert_eq!(back.profile.samples.len() as u64, info.switches);
    assert_eq!(back.profile.samples.periods().sum::<u64>(), total);
    assert!(back
        .profile
        .samples
        .events()
        .all(|e| back.profile.event_name(e) == "offcpu-time:approx"));
    // The SVG says what its numbers are.
    let svg = s
        .export(
            ExportFormat::Svg,
            &off,
            WeightKind::Samples,
            Privacy::default(),
            "x",
        )
        .unwrap();
    assert!(String::from_utf8(svg.bytes).unwrap().contains("ns off-CPU"));
    // The session is as before: the samples' views and exports count the samples.
    assert_eq!(s.overview().samples, samples);
    let on = s
        .export(
            ExportFormat::Folded,
            &Filter::default(),
            WeightKind::Samples,
            Privacy::default(),
            "x",
        )
        .unwrap();
    assert_eq!(folded_total(&on.bytes), samples);
}

/// `bytes` (a perf.data or share file) read as the base of a comparison named `name`.
fn baseline(bytes: &[u8], name: &str) -> super::compare::Baseline {
    let base = super::compare::load_base(
        bytes,
        &[],
        perfscope_analysis::builder::UnknownNames::Module,
    )
    .unwrap();
    super::compare::Baseline {
        request: 1,
        name: name.into(),
        profile: base.profile,
        off_cpu: base.off_cpu,
        unknown_names: perfscope_analysis::builder::UnknownNames::Module,
    }
}

#[test]
fn compare_weighs_both_profiles_by_off_cpu_time() {
    let (samples, gaps) = oracle();
    let total: u64 = gaps.values().sum();
    let mut s = Session::open_bytes(data("switches.data"), SLICE);
    let mut base = baseline(&data("switches.data"), "switches.data");
    // The same recording on both sides: the same off-CPU time, nothing changed.
    let d = s.diff(&mut base, WeightKind::Samples, true);
    assert_eq!(d.meta.error, None);
    assert_eq!((d.meta.new_total, d.meta.base_total), (total, total));
    assert!(d.delta_self.iter().all(|&x| x.abs() < 1e-6));
    assert!(!d.func.is_empty());
    // The samples' diff is as before: the base's samples are perf's cpu-clock samples only.
    let d = s.diff(&mut base, WeightKind::Samples, false);
    assert_eq!((d.meta.new_total, d.meta.base_total), (samples, samples));
    // A base without context switches has no off-CPU time to compare with.
    let mut other = baseline(&data("example.data"), "example.data");
    let d = s.diff(&mut other, WeightKind::Samples, true);
    let e = d.meta.error.unwrap();
    assert!(e.contains("example.data has no off-CPU time"), "{e}");
    assert!(d.func.is_empty());
    // A share file exported from the off-CPU view is off-CPU time as a base.
    let off = Filter {
        off_cpu: true,
        ..Filter::default()
    };
    let share = s
        .export(
            crate::protocol::ExportFormat::Share,
            &off,
            WeightKind::Period,
            crate::protocol::Privacy::default(),
            "x",
        )
        .unwrap();
    let mut shared = baseline(&share.bytes, "x.perfscope");
    let d = s.diff(&mut shared, WeightKind::Samples, true);
    assert_eq!((d.meta.new_total, d.meta.base_total), (total, total));
    assert_eq!(s.overview().samples, samples);
}
