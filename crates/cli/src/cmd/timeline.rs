//! `perfscope timeline`: every thread's lifetime, samples, and on- and off-CPU time (from
//! context switches: `--switch-events` or `sched:sched_switch`), and the CPUs' idle time.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{load_threaded, LoadExtras, LoadOptions};
use perfscope_analysis::timeline::{Bound, MarkerKind, OffCpuState, Task, Timeline};
use serde_json::{json, Value};

use super::input::Input;

/// Arguments of `perfscope timeline`.
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// List every thread, also those with no sample and no context switch.
    #[arg(long)]
    all: bool,
    /// A perf.data file or a `perf record --threads` directory.
    file: PathBuf,
}

/// Runs `perfscope timeline`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let input = Input::read(&args.file)?;
    let extra: Vec<&[u8]> = input.extra.iter().map(|(_, b)| &b[..]).collect();
    let options = LoadOptions {
        unwind: false,
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    };
    let loaded = load_threaded(
        &input.bytes,
        &extra,
        options,
        LoadExtras {
            timeline: true,
            off_cpu: false,
        },
    )
    .map_err(|e| format!("{}: {e}", args.file.display()))?;
    let Some(t) = loaded.timeline else {
        return Err("no timeline".into());
    };
    for e in &loaded.diagnostics.errors {
        eprintln!("warning: {}: {e}", args.file.display());
    }
    let shown: Vec<usize> = (0..t.tasks.len())
        .filter(|&i| args.all || t.tasks.get(i).is_some_and(active))
        .collect();
    if args.json {
        let v = to_json(&t, &shown);
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", text(&t, &shown));
    }
    Ok(ExitCode::SUCCESS)
}

fn active(t: &Task) -> bool {
    t.samples > 0 || !t.on_cpu.is_empty() || !t.off_cpu.is_empty()
}

/// `sec.usec`, as perf prints times.
fn usec(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1_000)
}

/// msec with 3 decimals, as `perf sched timehist` prints durations.
fn msec(ns: u64) -> String {
    format!("{}.{:03}", ns / 1_000_000, ns % 1_000_000 / 1_000)
}

fn opt(v: Option<u64>, f: fn(u64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

/// Off-CPU ns by the state the thread left in (the intervals that [`Task::off_cpu_ns`] counts).
fn off_cpu_by_state(task: &Task) -> Vec<(char, u64)> {
    let mut by: Vec<(char, u64)> = Vec::new();
    for i in task
        .off_cpu
        .iter()
        .filter(|i| i.end_bound != Bound::Truncated && i.state != OffCpuState::Unknown)
    {
        let c = i.state.letter();
        match by.iter_mut().find(|(s, _)| *s == c) {
            Some((_, ns)) => *ns += i.end - i.start,
            None => by.push((c, i.end - i.start)),
        }
    }
    by.sort_unstable();
    by
}

/// Idle and busy ns of a CPU from its slices.
fn cpu_times(t: &Timeline, cpu: u32) -> (u64, u64) {
    let Some(lane) = t.cpu(cpu) else {
        return (0, 0);
    };
    let (mut idle, mut busy) = (0, 0);
    for s in &lane.slices {
        let d = s.end.saturating_sub(s.start);
        if s.task.is_none() {
            idle += d;
        } else {
            busy += d;
        }
    }
    (idle, busy)
}

fn marker_counts(t: &Timeline) -> [u64; 4] {
    let mut n = [0u64; 4];
    for m in &t.markers {
        let (i, k) = match m.kind {
            MarkerKind::Lost { lost, .. } => (0, lost),
            MarkerKind::LostSamples { lost } => (1, lost),
            MarkerKind::Throttle { .. } => (2, 1),
            MarkerKind::Unthrottle { .. } => (3, 1),
        };
        if let Some(slot) = n.get_mut(i) {
            *slot += k;
        }
    }
    n
}

fn text(t: &Timeline, shown: &[usize]) -> String {
    let mut o = String::new();
    let span = match (t.start, t.end) {
        (Some(a), Some(b)) => format!("{} .. {} ({} ms)", usec(a), usec(b), msec(b - a)),
        _ => "no timestamps".into(),
    };
    let _ = writeln!(o, "time: {span}");
    let s = &t.switches;
    let samples: u64 = t.tasks.iter().map(|x| x.samples).sum();
    let [lost, lost_samples, throttle, unthrottle] = marker_counts(t);
    let _ = writeln!(
        o,
        "threads: {} ({} shown), samples: {samples}, context switches: {} SWITCH, {} SWITCH_CPU_WIDE, {} sched_switch",
        t.tasks.len(),
        shown.len(),
        s.switch,
        s.switch_cpu_wide,
        s.sched_switch
    );
    let _ = writeln!(o, "lost: {lost} events, {lost_samples} samples; throttled {throttle} times, unthrottled {unthrottle}");
    if !s.any() {
        let _ = writeln!(o, "(no context switches recorded: on- and off-CPU times need --switch-events or -e sched:sched_switch)");
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{:>7} {:>7}  {:<16} {:>17} {:>17} {:>17} {:>17} {:>8} {:>11} {:>11}  off-CPU by state (ms)",
        "pid", "tid", "comm", "first seen", "last seen", "fork", "exit", "samples", "on-CPU ms", "off-CPU ms"
    );
    for &i in shown {
        let Some(x) = t.tasks.get(i) else { continue };
        let pid = x
            .pid
            .map_or_else(|| "-".to_string(), |p| (p as i32).to_string());
        let states: Vec<String> = off_cpu_by_state(x)
            .iter()
            .map(|(c, ns)| format!("{c}:{}", msec(*ns)))
            .collect();
        let _ = writeln!(
            o,
            "{pid:>7} {:>7}  {:<16} {:>17} {:>17} {:>17} {:>17} {:>8} {:>11} {:>11}  {}",
            x.tid as i32,
            x.name(),
            opt(x.first_seen, usec),
            opt(x.last_seen, usec),
            opt(x.fork_time, usec),
            opt(x.exit_time, usec),
            x.samples,
            msec(x.on_cpu_ns()),
            msec(x.off_cpu_ns()),
            states.join(" ")
        );
    }
    if t.cpus.iter().any(|c| !c.slices.is_empty()) {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "{:>4} {:>8} {:>11} {:>11}",
            "cpu", "samples", "busy ms", "idle ms"
        );
        for c in &t.cpus {
            let (idle, busy) = cpu_times(t, c.cpu);
            let _ = writeln!(
                o,
                "{:>4} {:>8} {:>11} {:>11}",
                c.cpu,
                c.samples.len(),
                msec(busy),
                msec(idle)
            );
        }
    }
    o
}

fn to_json(t: &Timeline, shown: &[usize]) -> Value {
    let tasks: Vec<Value> = shown
        .iter()
        .filter_map(|&i| t.tasks.get(i))
        .map(|x| {
            let states: serde_json::Map<String, Value> = off_cpu_by_state(x).into_iter().map(|(c, ns)| (c.to_string(), json!(ns))).collect();
            json!({
                "pid": x.pid.map(|p| p as i32),
                "tid": x.tid as i32,
                "comm": x.name(),
                "names": x.names.iter().map(|n| json!({"time": n.time, "name": n.name, "exec": n.exec})).collect::<Vec<_>>(),
                "parent": x.parent.map(|(p, t)| json!([p as i32, t as i32])),
                "fork_time": x.fork_time,
                "exit_time": x.exit_time,
                "first_seen": x.first_seen,
                "last_seen": x.last_seen,
                "samples": x.samples,
                "on_cpu_ns": x.on_cpu_ns(),
                "off_cpu_ns": x.off_cpu_ns(),
                "off_cpu_ns_by_state": states,
                "on_cpu_intervals": x.on_cpu.len(),
                "off_cpu_intervals": x.off_cpu.len(),
            })
        })
        .collect();
    let cpus: Vec<Value> = t
        .cpus
        .iter()
        .map(|c| {
            let (idle, busy) = cpu_times(t, c.cpu);
            json!({"cpu": c.cpu, "samples": c.samples.len(), "busy_ns": busy, "idle_ns": idle, "slices": c.slices.len()})
        })
        .collect();
    let [lost, lost_samples, throttle, unthrottle] = marker_counts(t);
    json!({
        "start": t.start,
        "end": t.end,
        "switches": {"switch": t.switches.switch, "switch_cpu_wide": t.switches.switch_cpu_wide, "sched_switch": t.switches.sched_switch},
        "markers": {"lost_events": lost, "lost_samples": lost_samples, "throttle": throttle, "unthrottle": unthrottle},
        "untimed_samples": t.untimed_samples,
        "threads": t.tasks.len(),
        "tasks": tasks,
        "cpus": cpus,
    })
}
