//! The timeline's worker answers against perf's own output: heatmap cells against the sample
//! times of `perf script`, off- and on-CPU periods against its PERF_RECORD_SWITCH lines, markers
//! against its PERF_RECORD_LOST lines, the function's bins against a walk of the profile.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::super::Session;
use super::Bins;
use crate::protocol::timeline::off_state;
use crate::protocol::{MarkerKind, Query, WorkerMessage};

/// `$PERFSCOPE_SHARED/corpus`, or `shared/corpus` next to the workspace or an ancestor.
fn corpus() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PERFSCOPE_SHARED") {
        let dir = PathBuf::from(d).join("corpus");
        return dir.is_dir().then_some(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/corpus"))
        .find(|d| d.is_dir())
}

fn open_path(path: &Path) -> Session {
    Session::open_bytes(std::fs::read(path).unwrap(), super::super::SLICE)
}

/// One line of `perf script` output that is not a callchain line: comm, pid, tid, time (ns),
/// and what follows the time.
struct ScriptLine {
    pid: u32,
    tid: u32,
    time: u64,
    rest: String,
}

fn parse_script(text: &str) -> Vec<ScriptLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('\t') || line.trim().is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(ti) = words.iter().position(|w| {
            w.ends_with(':')
                && w.len() > 11
                && w[..w.len() - 1].split_once('.').is_some_and(|(a, b)| {
                    b.len() == 9
                        && a.bytes().all(|c| c.is_ascii_digit())
                        && b.bytes().all(|c| c.is_ascii_digit())
                })
        }) else {
            continue;
        };
        let Some(pt) = words[..ti]
            .iter()
            .rev()
            .find(|w| w.contains('/') && w.split('/').all(|p| p.parse::<i64>().is_ok()))
        else {
            continue;
        };
        let (p, t) = pt.split_once('/').unwrap();
        let (secs, frac) = words[ti].trim_end_matches(':').split_once('.').unwrap();
        let time = secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap();
        out.push(ScriptLine {
            pid: p.parse::<i64>().unwrap() as u32,
            tid: t.parse::<i64>().unwrap() as u32,
            time,
            rest: words[ti + 1..].join(" "),
        });
    }
    out
}

fn samples_of(lines: &[ScriptLine]) -> Vec<&ScriptLine> {
    lines
        .iter()
        .filter(|l| !l.rest.starts_with("PERF_RECORD"))
        .collect()
}

/// Cells counted from perf's times: origin = the first sample, 1 s columns, `rows` rows.
fn oracle_cells(times: &[u64], rows: u64) -> BTreeMap<(u64, u64), u32> {
    let origin = times.iter().copied().min().unwrap();
    let row_ns = 1_000_000_000 / rows;
    let mut cells = BTreeMap::new();
    for &t in times {
        let off = t - origin;
        *cells
            .entry((off / 1_000_000_000, (off % 1_000_000_000) / row_ns))
            .or_insert(0) += 1;
    }
    cells
}

fn heatmap_cells(
    s: &mut Session,
    event: Option<u32>,
    rows: u32,
) -> (crate::protocol::HeatmapMeta, BTreeMap<(u64, u64), u32>) {
    let WorkerMessage::Heatmap(_, h) = s.query(
        1,
        Query::Heatmap {
            event,
            threads: vec![],
            rows,
        },
    ) else {
        panic!("not a heatmap")
    };
    let mut cells = BTreeMap::new();
    for c in 0..h.meta.columns {
        for r in 0..h.meta.rows {
            let n = h.count(c, r);
            if n > 0 {
                cells.insert((u64::from(c), u64::from(r)), n);
            }
        }
    }
    (h.meta, cells)
}

#[test]
fn heatmap_cells_count_perf_script_times() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED to the folder holding corpus/)");
        return;
    };
    for stem in ["sort", "lost", "switch-events", "attach-pid"] {
        let mut s = open_path(&corpus.join(format!("gen/{stem}.data")));
        let script =
            std::fs::read_to_string(corpus.join(format!("gen/oracle/{stem}.script.txt"))).unwrap();
        let times: Vec<u64> = samples_of(&parse_script(&script))
            .iter()
            .map(|l| l.time)
            .collect();
        for rows in [50, 7] {
            let (meta, cells) = heatmap_cells(&mut s, None, rows);
            let want = oracle_cells(&times, u64::from(meta.rows));
            assert_eq!(meta.origin, *times.iter().min().unwrap(), "{stem}");
            assert_eq!(meta.samples, times.len() as u64, "{stem}");
            assert_eq!(cells, want, "{stem}, {rows} rows");
            assert_eq!(meta.max, *want.values().max().unwrap());
        }
    }
}

#[test]
fn heatmap_of_one_event_counts_its_samples() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/two-events.data");
    let mut s = open_path(&path);
    let script = std::fs::read_to_string(path.with_file_name("two-events.samples.txt")).unwrap();
    let lines = parse_script(&script);
    let all: Vec<u64> = lines.iter().map(|l| l.time).collect();
    let origin = all.iter().copied().min().unwrap();
    let names: Vec<String> = s.summary().events.iter().map(|e| e.name.clone()).collect();
    assert_eq!(names.len(), 2);
    for (attr, name) in names.iter().enumerate() {
        let times: Vec<u64> = lines
            .iter()
            .filter(|l| l.rest.trim_end_matches(':') == name.as_str())
            .map(|l| l.time)
            .collect();
        assert!(!times.is_empty(), "{name}");
        let (meta, cells) = heatmap_cells(&mut s, Some(attr as u32), 50);
        // The origin stays the first sample of all events.
        assert_eq!(meta.origin, origin);
        let mut want = BTreeMap::new();
        for t in &times {
            let off = t - origin;
            *want
                .entry((off / 1_000_000_000, (off % 1_000_000_000) / 20_000_000))
                .or_insert(0u32) += 1;
        }
        assert_eq!(cells, want, "{name}");
    }
}

#[test]
fn switch_periods_equal_perf_script_switch_lines() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED to the folder holding corpus/)");
        return;
    };
    let s = open_path(&corpus.join("gen/switch-events.data"));
    let script =
        std::fs::read_to_string(corpus.join("gen/oracle/switch-events.script.txt")).unwrap();
    // Per thread, the switch lines in order: (time, out, preempt).
    type Switch = (u64, bool, bool);
    let mut switches: BTreeMap<(u32, u32), Vec<Switch>> = BTreeMap::new();
    for l in parse_script(&script) {
        if let Some(what) = l.rest.strip_prefix("PERF_RECORD_SWITCH ") {
            switches.entry((l.pid, l.tid)).or_default().push((
                l.time,
                what.starts_with("OUT"),
                what.contains("preempt"),
            ));
        }
    }
    // perf script prints some records late (after the round that held them): time order.
    for list in switches.values_mut() {
        list.sort_by_key(|l| l.0);
    }
    assert!(switches.len() >= 4, "{switches:?}");
    let a = &s.timeline.activity;
    assert!(a.switches);
    let mut checked = 0;
    for ((pid, tid), list) in &switches {
        let lane = s
            .timeline
            .threads
            .iter()
            .position(|t| t.pid == *pid && t.tid == *tid)
            .unwrap_or_else(|| panic!("no lane for {pid}/{tid}"));
        // OUT then IN: an off-CPU period, runnable when preempted.
        let want_off: Vec<(u64, u64, u8)> = list
            .windows(2)
            .filter(|w| w[0].1 && !w[1].1)
            .map(|w| {
                (
                    w[0].0,
                    w[1].0,
                    if w[0].2 {
                        off_state::RUNNABLE
                    } else {
                        off_state::SLEEPING
                    },
                )
            })
            .collect();
        let want_on: Vec<(u64, u64)> = list
            .windows(2)
            .filter(|w| !w[0].1 && w[1].1)
            .map(|w| (w[0].0, w[1].0))
            .collect();
        // Periods the records close on both ends; the analysis may add one open at either end
        // of the thread's records (its start, the end of the recording).
        let (first, last) = (list.first().unwrap().0, list.last().unwrap().0);
        let off: Vec<_> = a
            .off_cpu(lane)
            .iter()
            .copied()
            .filter(|i| i.0 >= first && i.1 <= last)
            .collect();
        let on: Vec<_> = a
            .on_cpu(lane)
            .iter()
            .copied()
            .filter(|i| i.0 >= first && i.1 <= last)
            .collect();
        assert_eq!(off, want_off, "{pid}/{tid} off-CPU");
        assert_eq!(on, want_on, "{pid}/{tid} on-CPU");
        assert!(
            a.off_cpu(lane).len() <= want_off.len() + 1
                && a.on_cpu(lane).len() <= want_on.len() + 2,
            "{pid}/{tid}"
        );
        checked += want_off.len();
    }
    assert!(checked > 50, "{checked}");
    // Nothing after a thread's PERF_RECORD_EXIT. (perf script prints the record's sample_id
    // time; the analysis takes the exit time from the record's own `time` field, a few hundred ns
    // later.)
    let mut exits = 0;
    for l in parse_script(&script) {
        if l.rest.starts_with("PERF_RECORD_EXIT") {
            let Some(lane) = s
                .timeline
                .threads
                .iter()
                .position(|t| t.pid == l.pid && t.tid == l.tid)
            else {
                continue;
            };
            let until = l.time + 10_000;
            assert!(
                a.on_cpu(lane).iter().all(|i| i.1 <= until)
                    && a.off_cpu(lane).iter().all(|i| i.1 <= until),
                "{}/{} after its exit at {}: {:?} {:?}",
                l.pid,
                l.tid,
                l.time,
                a.on_cpu(lane).last(),
                a.off_cpu(lane).last()
            );
            exits += 1;
        }
    }
    assert!(exits >= 4, "{exits}");
    // The reply: bins with off-CPU time are those the periods overlap.
    let (start, end) = (
        s.timeline.threads.iter().map(|t| t.first).min().unwrap(),
        s.timeline.threads.iter().map(|t| t.last).max().unwrap(),
    );
    let r = s.timeline.reply(&s.profile, start, end, 400, None, None);
    let bins = Bins::new(start, end, 400);
    let lanes = s.timeline.lanes();
    assert_eq!(r.detail.off_cpu.len(), lanes * 400);
    for lane in 0..s.timeline.threads.len() {
        for k in 0..400u32 {
            let (b0, b1) = (bins.edge(k), bins.edge(k + 1));
            let overlap: u64 = a
                .off_cpu(lane)
                .iter()
                .map(|i| i.1.min(b1).saturating_sub(i.0.max(b0)))
                .sum();
            let share = r.detail.off_cpu[lane * 400 + k as usize];
            assert_eq!(share > 0, overlap > 0, "lane {lane} bin {k}");
            let exact = overlap as f64 * 255.0 / (b1 - b0) as f64;
            assert!(
                (f64::from(share) - exact.min(255.0)).abs() <= 1.0,
                "lane {lane} bin {k}: {share} vs {exact}"
            );
        }
    }
}

#[test]
fn lost_records_are_markers_on_their_cpu() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED to the folder holding corpus/)");
        return;
    };
    let s = open_path(&corpus.join("gen/lost.data"));
    let script = std::fs::read_to_string(corpus.join("gen/oracle/lost.script.txt")).unwrap();
    // "comm pid/tid [cpu] time: PERF_RECORD_LOST lost N"
    let mut want: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    for line in script
        .lines()
        .filter(|l| l.contains("PERF_RECORD_LOST lost"))
    {
        let cpu: u32 = line
            .split('[')
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let n: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        let e = want.entry(cpu).or_default();
        e.0 += 1;
        e.1 += n;
    }
    assert_eq!(want.values().map(|v| v.0).sum::<u32>(), 7);
    let (start, end) = (0, u64::MAX - 1);
    let r = s.timeline.reply(&s.profile, start, end, 1, None, None);
    let d = &r.detail;
    let mut got: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    for i in 0..d.markers() {
        if d.marker_kind[i] == MarkerKind::Lost as u8 {
            let cpu = s.timeline.cpus[d.marker_lane[i] as usize - s.timeline.threads.len()].cpu;
            let e = got.entry(cpu).or_default();
            e.0 += d.marker_records[i];
            e.1 += d.marker_count[i];
        }
    }
    assert_eq!(got, want);
    assert!(d.marker_kind.contains(&(MarkerKind::LostSamples as u8)));
    // No switch records: no activity columns.
    assert!(d.on_cpu.is_empty());
}

#[test]
fn bins_of_times_match_their_edges() {
    for (start, end, n) in [
        (100u64, 199u64, 4u32),
        (0, 1000, 7),
        (5, 5, 3),
        (1 << 40, (1 << 40) + 12_345_678, 333),
    ] {
        let b = Bins::new(start, end, n);
        for t in (start..=end)
            .step_by(((end - start) / 500).max(1) as usize)
            .chain([end])
        {
            let k = b.bin_of(t).unwrap();
            assert!(
                b.edge(k) <= t && t < b.edge(k + 1),
                "{t} in bin {k} of {b:?}"
            );
        }
        assert_eq!(b.bin_of(end + 1), None);
        assert_eq!(b.edge(n), end + 1);
    }
}

#[test]
fn function_bins_count_the_samples_whose_stack_has_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/example.data");
    let mut s = open_path(&path);
    // Every function, then again in reverse (the session keeps one function's marks and must
    // not answer for another with them).
    let funcs = s.profile.funcs.len() as u32;
    let step = (funcs as usize / 5).max(1);
    let order: Vec<u32> = (0..funcs)
        .step_by(step)
        .chain((0..funcs).step_by(step).rev())
        .collect();
    let (lo, hi) = (
        s.profile.samples.times().iter().min().unwrap(),
        s.profile.samples.times().iter().max().unwrap(),
    );
    // Many bins (few marked samples in each lane: each one's bin is found), few bins (marks
    // counted between the bins' edges), and a range in the middle.
    let third = (hi - lo) / 3;
    let cases = [(lo, hi, 50), (lo, hi, 3), (lo + third, hi - third, 7)];
    let mut tested = 0;
    for (start, end, n_bins) in cases {
        let mut replies = Vec::new();
        for &f in &order {
            let query = crate::protocol::Query::Timeline {
                start,
                end,
                bins: n_bins,
                event: None,
                func: Some(f),
            };
            match s.query(0, query) {
                crate::protocol::WorkerMessage::Timeline(_, r) => replies.push(r.detail.highlight),
                other => panic!("{other:?}"),
            }
        }
        let p = &s.profile;
        let bins = Bins::new(start, end, n_bins);
        let n = s.timeline.threads.len();
        let nb = n_bins as usize;
        for (&f, highlight) in order.iter().zip(&replies) {
            let name = p
                .func_name(perfscope_analysis::ids::FuncIndex(f))
                .to_string();
            // Independently: walk each sample's frames.
            let mut want = vec![0u32; s.timeline.lanes() * nb];
            for i in 0..p.samples.len() {
                let has = p
                    .stacks
                    .frames_leaf_first(p.samples.stack(i).unwrap())
                    .any(|fr| p.frame_func(fr) == Some(perfscope_analysis::ids::FuncIndex(f)));
                let Some(k) = bins
                    .bin_of(p.samples.times().get(i).unwrap())
                    .filter(|_| has)
                else {
                    continue;
                };
                let th = p
                    .threads
                    .get(p.samples.thread.get(i).copied().unwrap())
                    .unwrap();
                let lane = s
                    .timeline
                    .threads
                    .iter()
                    .position(|t| t.pid == th.pid && t.tid == th.tid)
                    .unwrap();
                want[lane * nb + k as usize] += 1;
                // Samples without a CPU (not recorded) are in no CPU lane.
                if let Some(cpu) = s
                    .timeline
                    .cpus
                    .iter()
                    .position(|c| Some(c.cpu) == p.samples.cpu(i))
                {
                    want[(n + cpu) * nb + k as usize] += 1;
                }
            }
            assert_eq!(*highlight, want, "{name}, {n_bins} bins");
            let total: u32 = want.iter().sum();
            assert!(total < 2 * p.samples.len() as u32, "{name}: {total}");
            if total > 0 {
                tested += 1;
            }
            // Some lane with more marked samples than bins: the counting between edges ran.
            let lane_sum = |l: usize| want[l * nb..(l + 1) * nb].iter().sum::<u32>();
            if n_bins == 3 && (0..s.timeline.lanes()).any(|l| lane_sum(l) > n_bins) {
                tested += 100;
            }
        }
    }
    assert!(tested >= 100 + 12, "{tested}");
}

#[test]
fn sched_switch_samples_start_off_cpu_periods_and_are_markers() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED to the folder holding corpus/)");
        return;
    };
    let s = open_path(&corpus.join("gen/tp-callchain.data"));
    let script =
        std::fs::read_to_string(corpus.join("gen/oracle/tp-callchain.script.txt")).unwrap();
    let samples: Vec<ScriptLine> = parse_script(&script)
        .into_iter()
        .filter(|l| l.rest.contains("sched:sched_switch"))
        .collect();
    assert_eq!(samples.len(), 150);
    let a = &s.timeline.activity;
    assert!(a.switches);
    // Per task recording: each sched_switch sample is its thread switching out.
    let mut by_thread: BTreeMap<(u32, u32), Vec<u64>> = BTreeMap::new();
    for l in &samples {
        by_thread.entry((l.pid, l.tid)).or_default().push(l.time);
    }
    for ((pid, tid), mut times) in by_thread {
        times.sort_unstable();
        let lane = s
            .timeline
            .threads
            .iter()
            .position(|t| t.pid == pid && t.tid == tid)
            .unwrap();
        let starts: Vec<u64> = a.off_cpu(lane).iter().map(|i| i.0).collect();
        // The last switch-out of a thread that exits (state X) has no period after it.
        assert!(
            starts.iter().all(|t| times.contains(t)),
            "{pid}/{tid}: {starts:?} vs {times:?}"
        );
        assert!(
            times.len() - starts.len() <= 1,
            "{pid}/{tid}: {} periods for {} switch-outs",
            starts.len(),
            times.len()
        );
    }
    let (start, end) = (
        samples.iter().map(|l| l.time).min().unwrap(),
        samples.iter().map(|l| l.time).max().unwrap(),
    );
    let r = s.timeline.reply(&s.profile, start, end, 300, None, None);
    let d = &r.detail;
    let marked: u32 = (0..d.markers())
        .filter(|&i| d.marker_kind[i] == MarkerKind::Tracepoint as u8)
        .map(|i| d.marker_records[i])
        .sum();
    assert_eq!(marked, 150);
    // Never more than one marker per lane, bin and event.
    let mut keys: Vec<_> = (0..d.markers())
        .map(|i| {
            (
                d.marker_lane[i],
                d.marker_bin[i],
                d.marker_kind[i],
                d.marker_event[i],
            )
        })
        .collect();
    let n = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), n);
}

/// The tree by command over every recording of the corpus: the same samples and width as the
/// plain tree, in both directions, with a root (drawn or left out) per command that has samples.
#[test]
fn trees_by_command_keep_every_sample_of_the_corpus() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED to the folder holding corpus/)");
        return;
    };
    let mut checked = 0;
    for dir in ["gen", "bigendian"] {
        let Ok(entries) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths
            .iter()
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "data"))
        {
            let mut s = open_path(path);
            let o = s.overview();
            if o.samples == 0 {
                continue;
            }
            let commands = crate::selectors::commands(&o);
            let with_samples = commands.iter().filter(|c| c.samples > 0).count() as u32;
            for inverted in [false, true] {
                let tree = |s: &mut Session, by_command: bool| match s.query(
                    1,
                    Query::Tree {
                        filter: crate::protocol::Filter {
                            event: o.default_event(),
                            ..crate::protocol::Filter::default()
                        },
                        inverted,
                        weight: crate::protocol::WeightKind::Samples,
                        root: vec![],
                        detail: 0,
                        by_command,
                    },
                ) {
                    WorkerMessage::Tree(_, t) => *t,
                    other => panic!("{other:?}"),
                };
                let plain = tree(&mut s, false);
                let grouped = tree(&mut s, true);
                let name = path.display();
                assert_eq!(grouped.meta.samples, plain.meta.samples, "{name}");
                assert_eq!(grouped.meta.total, plain.meta.total, "{name}");
                let roots = grouped
                    .nodes
                    .parent
                    .iter()
                    .filter(|&&p| p == u32::MAX)
                    .count() as u32;
                if plain.meta.total > 0.0 {
                    assert!(roots + grouped.meta.elided_count <= with_samples, "{name}");
                    assert!(roots > 0, "{name}");
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} recordings");
}
