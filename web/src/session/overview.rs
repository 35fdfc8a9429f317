//! The [`Overview`] of a loaded profile: events, threads, CPUs, counts, problems, and the
//! reasons the flame graph could be empty or misleading.

use std::collections::BTreeMap;

use perfscope_analysis::ids::{EventIndex, ThreadIndex};
use perfscope_analysis::load::LoadDiagnostics;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::summary::Summary;
use perfscope_format::constants::sample_type;
use perfscope_format::layout::EventIndex as AttrIndex;
use perfscope_format::metadata::Metadata;

use super::events::EventMap;
use super::records_index::RecordIndex;
use super::symbols::{FileKind, SymbolFile};
use super::timeline::Timeline;
use crate::protocol::{CommCount, EventInfo, Overview, Reason};

/// Events (in attr order) with their sample counts and what their attrs record.
pub fn events(
    summary: &Summary,
    meta: Option<&Metadata>,
    profile: &Profile,
    map: &EventMap,
) -> Vec<EventInfo> {
    let n = map.attrs().max(summary.events.len());
    let mut out: Vec<EventInfo> = (0..n)
        .map(|i| {
            let name = summary
                .events
                .get(i)
                .map(|e| e.name.clone())
                .unwrap_or_else(|| {
                    map.to_profile
                        .get(i)
                        .copied()
                        .flatten()
                        .map(|e| profile.event_name(e).to_string())
                        .unwrap_or_default()
                });
            let st = meta
                .and_then(|m| m.events.attr(AttrIndex(i as u32)))
                .map_or(0, |a| a.sample_type);
            // Without the attrs (a share file), the summary names the bits.
            let named = |bit: &str| {
                meta.is_none()
                    && summary
                        .events
                        .get(i)
                        .is_some_and(|e| e.sample_type.split('|').any(|b| b == bit))
            };
            let callchain = st & sample_type::CALLCHAIN != 0 || named("CALLCHAIN");
            let dwarf = st & sample_type::STACK_USER != 0 || named("STACK_USER");
            EventInfo {
                name,
                samples: 0,
                period: 0,
                callchain,
                dwarf,
            }
        })
        .collect();
    for (e, &(n, period)) in profile.samples.event_totals().iter().enumerate() {
        if let Some(info) = out.get_mut(map.attr(EventIndex(e as u32)) as usize) {
            info.samples += n;
            info.period = info.period.saturating_add(period);
        }
    }
    // Text input has no attrs: an event has call chains when one of its stacks has two frames.
    if meta.is_none() {
        for (e, st) in profile.samples.events().zip(profile.samples.stacks()) {
            let deep = st
                .and_then(|st| profile.stacks.get(st))
                .is_some_and(|s| s.prefix.is_some());
            if let Some(info) = out.get_mut(map.attr(e) as usize).filter(|_| deep) {
                info.callchain = true;
            }
        }
    }
    out
}

/// Samples per (comm, pid, tid), as `perf script` prints them, busiest first.
pub fn comms(profile: &Profile) -> Vec<CommCount> {
    let mut per_thread = vec![0u64; profile.threads.len()];
    match profile.samples.thread_tallies() {
        Some(tallies) => {
            for (c, t) in per_thread.iter_mut().zip(tallies) {
                *c = t.samples;
            }
        }
        None => {
            for t in profile.samples.thread.blocks().flatten() {
                if let Some(c) = per_thread.get_mut(t.index()) {
                    *c += 1;
                }
            }
        }
    }
    let mut merged: BTreeMap<(String, u32, u32), u64> = BTreeMap::new();
    for (i, &n) in per_thread.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let Some(t) = profile.threads.get(ThreadIndex(i as u32)) else {
            continue;
        };
        *merged
            .entry((profile.strings.get(t.name).to_string(), t.pid, t.tid))
            .or_insert(0) += n;
    }
    let mut out: Vec<CommCount> = merged
        .into_iter()
        .map(|((comm, pid, tid), samples)| CommCount {
            comm,
            pid,
            tid,
            samples,
        })
        .collect();
    out.sort_by(|a, b| {
        b.samples
            .cmp(&a.samples)
            .then(a.pid.cmp(&b.pid))
            .then(a.tid.cmp(&b.tid))
    });
    out
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether a function is a placeholder for addresses without a symbol: one per address
/// (`module+0x1f`, `0x7f00`) or one per module (`[module]`, `[unknown]`).
fn unnamed(name: &str, module: &str) -> bool {
    let base = basename(module);
    name.starts_with("0x")
        || name == "[unknown]"
        || name
            .strip_prefix(base)
            .is_some_and(|rest| rest.starts_with("+0x"))
        || name == perfscope_analysis::builder::module_name(module)
}

/// How many samples, evenly spaced, the notices' unnamed-leaf shares are read from in a bigger
/// profile. Reading them all took ~90 ms of the hand-over in the page for big300-g's 2.6M
/// samples (on the way to the first flame graph), natively 70 ms: mostly the names of the
/// distinct leaf functions met (a cache miss each; unsymbolized, nearly every sample has its
/// own), then the samples' stacks. 2^16 of them took 19 ms natively (2^18: 53 ms), and the
/// shares are then within ~0.13 % (one standard error at 12 %) of the whole count (12.46 %
/// against 12.65 % there); the notice then says "about".
const LEAF_SHARE_SAMPLES: usize = 1 << 16;

/// The shares of samples whose leaf function has no name, in the kernel and in user space
/// (of the samples with frames).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LeafShares {
    kernel: f64,
    user: f64,
    /// Read from part of the samples.
    estimated: bool,
}

/// The [`LeafShares`] of at most `at_most` of the samples, evenly spaced (the first, then every
/// `step`-th).
fn unnamed_leaf_shares(profile: &Profile, at_most: usize) -> LeafShares {
    let n = profile.samples.len();
    let step = n.div_ceil(at_most.max(1)).max(1);
    // Per function and per frame: 0 not asked yet, 1 named, 2 unnamed in the kernel, 3 unnamed
    // in user space. A sample's class is its leaf frame's (a byte array small enough to stay in
    // the caches), so the frame's function is looked up once per frame, not once per sample.
    let mut func_class = vec![0u8; profile.funcs.len()];
    let mut frame_class = vec![0u8; profile.frames.len()];
    let (mut kernel, mut user, mut all) = (0u64, 0u64, 0u64);
    let stacks = (0..n)
        .step_by(step)
        .filter_map(|i| profile.samples.stack(i).flatten());
    for s in stacks {
        all += 1;
        let Some(frame) = profile.stacks.get(s).map(|s| s.frame) else {
            continue;
        };
        let Some(c) = frame_class.get_mut(frame.index()) else {
            continue;
        };
        if *c == 0 {
            *c = profile
                .frame_func(frame)
                .and_then(|func| {
                    let fc = func_class.get_mut(func.index())?;
                    if *fc == 0 {
                        *fc = class_of(profile, func);
                    }
                    Some(*fc)
                })
                .unwrap_or(1);
        }
        match *c {
            2 => kernel += 1,
            3 => user += 1,
            _ => {}
        }
    }
    let share = |n: u64| if all == 0 { 0.0 } else { n as f64 / all as f64 };
    LeafShares {
        kernel: share(kernel),
        user: share(user),
        estimated: step > 1,
    }
}

/// 1 named, 2 unnamed in the kernel, 3 unnamed in user space (see [`unnamed_leaf_shares`]).
fn class_of(profile: &Profile, func: perfscope_analysis::ids::FuncIndex) -> u8 {
    profile.funcs.get(func).map_or(1, |f| {
        let module = profile.func_module_path(func);
        match unnamed(profile.strings.get(f.name), module) {
            false => 1,
            true if perfscope_analysis::symbols::resolver::is_kernel_module_path(module) => 2,
            true => 3,
        }
    })
}

fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p < 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// Why the flame graph may be empty or misleading.
pub fn reasons(
    summary: &Summary,
    events: &[EventInfo],
    profile: &Profile,
    symbols: &[SymbolFile],
    diag: &LoadDiagnostics,
) -> Vec<Reason> {
    let mut out = Vec::new();
    let reason = |code: &str, message: String| Reason {
        code: code.to_string(),
        message,
    };
    if profile.samples.is_empty() {
        let why = if summary.stat {
            " (it was made by perf stat record, which stores counts, not samples)"
        } else {
            ""
        };
        out.push(reason(
            "no-samples",
            format!("This file has no samples{why}: there is no call tree or flame graph to show."),
        ));
        return out;
    }
    for e in events
        .iter()
        .filter(|e| e.samples > 0 && !e.callchain && !e.dwarf)
    {
        out.push(reason(
            "no-callchains",
            format!(
                "No call chains were recorded for {} (perf record without -g): each sample is only the function it hit, so the flame graph is one level deep.",
                e.name
            ),
        ));
    }
    let has_binaries = symbols
        .iter()
        .any(|f| matches!(f.kind, FileKind::Elf | FileKind::Archive));
    let dwarf_samples: u64 = events.iter().filter(|e| e.dwarf).map(|e| e.samples).sum();
    if dwarf_samples > 0 && diag.truncated > 0 {
        let names: Vec<&str> = events
            .iter()
            .filter(|e| e.dwarf && e.samples > 0)
            .map(|e| e.name.as_str())
            .collect();
        let what = if has_binaries {
            "the dropped binaries do not cover every user module"
        } else {
            "no binaries were given"
        };
        out.push(reason(
            "dwarf-no-binaries",
            format!(
                "{} was recorded with --call-graph dwarf: user stacks are copies of stack memory that only the program's binaries can unwind, and {what}. {} of {} such samples keep only their sampled function ([truncated]). Drop the executables and libraries (or a perf archive) on the page.",
                names.join(", "),
                diag.truncated,
                dwarf_samples
            ),
        ));
    }
    out.extend(unnamed_reasons(unnamed_leaf_shares(
        profile,
        LEAF_SHARE_SAMPLES,
    )));
    out
}

/// The notices of samples that end in a function without a name.
fn unnamed_reasons(shares: LeafShares) -> Vec<Reason> {
    let LeafShares {
        kernel,
        user,
        estimated,
    } = shares;
    let share = |p: f64| {
        if estimated {
            format!("About {}", percent(p))
        } else {
            percent(p)
        }
    };
    let mut out = Vec::new();
    if kernel > 0.0 {
        out.push(Reason {
            code: "kernel-unnamed".into(),
            message: format!(
                "{} of the samples end in kernel code without names ([kernel.kallsyms]): drop /proc/kallsyms (or kallsyms.gz) of the machine that recorded.",
                share(kernel)
            ),
        });
    }
    if user > 0.0 {
        out.push(Reason {
            code: "user-unnamed".into(),
            message: format!(
                "{} of the samples end in user code without symbols ([module] or module+0x…): drop the binaries or a perf archive (perf archive) to name them.",
                share(user)
            ),
        });
    }
    out
}

/// The whole overview (without symbol files and timings, which the session fills in).
#[allow(clippy::too_many_arguments)]
pub fn overview(
    summary: &Summary,
    meta: Option<&Metadata>,
    index: &RecordIndex,
    profile: &Profile,
    map: &EventMap,
    timeline: &Timeline,
    symbols: &[SymbolFile],
    diag: &LoadDiagnostics,
) -> Overview {
    let events = events(summary, meta, profile, map);
    let sample_range = profile.samples.time_range();
    Overview {
        generation: 0,
        reasons: reasons(summary, &events, profile, symbols, diag),
        events,
        threads: timeline.threads.clone(),
        idle_threads: timeline.idle_threads,
        processes: timeline.processes.clone(),
        cpus: timeline.cpus.clone(),
        comms: comms(profile),
        sample_range,
        samples: profile.samples.len() as u64,
        records: index.len() as u64,
        record_counts: index.record_counts(),
        lost: index.lost.clone(),
        errors: index.errors.clone(),
        error_count: index.error_count,
        symbol_files: Vec::new(),
        timings: Default::default(),
        off_cpu: None,
        by_address: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_names_are_module_offsets() {
        assert!(unnamed("libc.so.6+0x1f", "/usr/lib/libc.so.6"));
        assert!(unnamed(
            "[kernel.kallsyms]+0xffffffff81000000",
            "[kernel.kallsyms]"
        ));
        assert!(unnamed("0x7f00", ""));
        assert!(!unnamed("memcpy", "/usr/lib/libc.so.6"));
        // One per module.
        assert!(unnamed("[libc.so.6]", "/usr/lib/libc.so.6"));
        assert!(unnamed("[kernel.kallsyms]", "[kernel.kallsyms]"));
        assert!(unnamed("[unknown]", ""));
        assert!(!unnamed("[libm.so.6]", "/usr/lib/libc.so.6"));
    }

    #[test]
    fn unnamed_shares_count_each_sample_by_its_leaf_function() {
        let data = std::fs::read(format!(
            "{}/../tests/data/example.data",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let s = crate::session::Session::open_bytes(data, crate::session::SLICE);
        let p = s.profile();
        let n = p.samples.len();
        // The first sample and every `step`-th after it, one by one, from the name and module
        // of its leaf function: (kernel, user, all with frames).
        let count = |step: usize| {
            let (mut kernel, mut user, mut all) = (0u32, 0u32, 0u32);
            for i in (0..n).step_by(step) {
                let Some(stack) = p.samples.stack(i).flatten() else {
                    continue;
                };
                all += 1;
                let f = p.stack_func(stack).unwrap();
                let module = p.func_module_path(f);
                if unnamed(p.func_name(f), module) {
                    if module == "[kernel.kallsyms]" {
                        kernel += 1;
                    } else {
                        user += 1;
                    }
                }
            }
            (kernel, user, all)
        };
        let shares = |(kernel, user, all): (u32, u32, u32), estimated: bool| LeafShares {
            kernel: f64::from(kernel) / f64::from(all),
            user: f64::from(user) / f64::from(all),
            estimated,
        };
        let every = count(1);
        assert!(every.0 > 0 && every.1 > 0, "{every:?}");
        assert_eq!(unnamed_leaf_shares(p, usize::MAX), shares(every, false));
        assert_eq!(unnamed_leaf_shares(p, n), shares(every, false));
        // From at most a fifth of the samples: every 5th or 6th.
        let step = n.div_ceil(n / 5);
        assert!(step == 5 || step == 6, "{step}");
        let part = count(step);
        assert!(part.2 > 10 && part.2 < n as u32 / 4, "{part:?} of {n}");
        assert_eq!(unnamed_leaf_shares(p, n / 5), shares(part, true));
    }

    #[test]
    fn unnamed_shares_read_from_part_of_the_samples_are_about() {
        let exact = unnamed_reasons(LeafShares {
            kernel: 0.25,
            user: 0.005,
            estimated: false,
        });
        assert_eq!(exact.len(), 2);
        assert!(exact[0]
            .message
            .starts_with("25% of the samples end in kernel code"));
        assert!(exact[1]
            .message
            .starts_with("0.5% of the samples end in user code"));
        let about = unnamed_reasons(LeafShares {
            kernel: 0.25,
            user: 0.0,
            estimated: true,
        });
        assert_eq!(about.len(), 1);
        assert_eq!(about[0].code, "kernel-unnamed");
        assert!(about[0].message.starts_with("About 25% of the samples"));
    }

    #[test]
    fn a_profile_without_samples_says_so_and_nothing_else() {
        let s = Summary {
            stat: true,
            ..Summary::default()
        };
        let r = reasons(&s, &[], &Profile::new(), &[], &LoadDiagnostics::default());
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].code, "no-samples");
        assert!(r[0].message.contains("perf stat record"));
    }
}
