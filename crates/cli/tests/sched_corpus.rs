//! `perfscope sched` on every tracepoint file of the corpus, line by line against what perf
//! script printed for the same samples: comm, pid/tid, cpu, time, event name and the decoded
//! `trace` text (sched_switch's `prev_state` letters included). Prints, per file, how many
//! samples were compared and how many agree on each part. Skips when the corpus is absent.
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

use common::{corpus_root, perfscope};

/// One sample line: `comm pid/tid [cpu] time: [period] event: trace…`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    comm: String,
    pid_tid: String,
    cpu: String,
    time: String,
    event: String,
    /// Everything after `event: ` (for perf's oracles: the trace text, then the ip and symbol
    /// unless the callchain follows on the next lines).
    rest: String,
}

fn parse_line(line: &str, has_period: bool) -> Option<Line> {
    let b = line.as_bytes();
    let bracket = (0..b.len().saturating_sub(4)).find(|&i| {
        b[i] == b'['
            && b[i + 4] == b']'
            && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
            && i > 0
            && b[i - 1] == b' '
    })?;
    let (comm, pid_tid) = line[..bracket].trim_end().rsplit_once(' ')?;
    let mut s = line[bracket + 5..].trim_start();
    let (time, r) = s.split_once(' ')?;
    s = r.trim_start();
    if has_period {
        s = s.split_once(' ')?.1.trim_start();
    }
    let (event, rest) = s.split_once(' ').unwrap_or((s, ""));
    Some(Line {
        comm: comm.trim().to_string(),
        pid_tid: pid_tid.to_string(),
        cpu: line[bracket + 1..bracket + 4].to_string(),
        time: time.trim_end_matches(':').to_string(),
        event: event.trim_end_matches(':').to_string(),
        rest: rest.to_string(),
    })
}

/// The sample lines of a perf script oracle (records and callchain lines left out).
fn oracle_samples(text: &str, has_period: bool) -> Vec<Line> {
    text.lines()
        .filter(|l| !l.starts_with('\t') && !l.trim().is_empty() && !l.contains("PERF_RECORD_"))
        .map(|l| parse_line(l, has_period).unwrap_or_else(|| panic!("unparsed oracle line: {l}")))
        .collect()
}

/// perf's ` %16lx sym (dso)` after the trace text of a sample printed without a callchain.
fn is_ip_suffix(s: &str) -> bool {
    let Some(s) = s.strip_prefix(' ') else {
        return false;
    };
    let (Some(ip), Some(rest)) = (s.get(..16), s.get(16..)) else {
        return false;
    };
    let ip_ok =
        ip.trim_start().chars().all(|c| c.is_ascii_hexdigit()) && !ip.trim_start().is_empty();
    ip_ok && rest.starts_with(' ') && rest.ends_with(')') && rest.contains(" (")
}

/// How many of `ours` agree with `theirs`, part by part, with one example per kind of
/// difference.
#[derive(Default, Debug)]
struct Tally {
    compared: usize,
    equal: BTreeMap<&'static str, usize>,
    examples: BTreeMap<&'static str, String>,
}

impl Tally {
    fn check(&mut self, part: &'static str, ok: bool, example: impl FnOnce() -> String) {
        *self.equal.entry(part).or_default() += usize::from(ok);
        if !ok {
            self.examples.entry(part).or_insert_with(example);
        }
    }

    fn compare(&mut self, ours: &[Line], theirs: &[Line], trace_exact: bool) {
        for (o, t) in ours.iter().zip(theirs) {
            self.compared += 1;
            let trace_ok = if trace_exact {
                t.rest == o.rest
            } else {
                t.rest == o.rest
                    || t.rest
                        .strip_prefix(o.rest.as_str())
                        .is_some_and(is_ip_suffix)
            };
            self.check("trace", trace_ok, || {
                format!("perf: {}\n      ours: {}", t.rest, o.rest)
            });
            self.check("comm", o.comm == t.comm, || {
                format!("{} vs {} at {}", t.comm, o.comm, t.time)
            });
            self.check("pid/tid", o.pid_tid == t.pid_tid, || {
                format!("{} vs {}", t.pid_tid, o.pid_tid)
            });
            self.check("cpu", o.cpu == t.cpu, || format!("{} vs {}", t.cpu, o.cpu));
            self.check("time", o.time == t.time, || {
                format!("{} vs {}", t.time, o.time)
            });
            self.check("event", o.event == t.event, || {
                format!("{} vs {}", t.event, o.event)
            });
        }
    }

    fn report(&self, name: &str, ours: usize, theirs: usize) -> bool {
        let parts: Vec<String> = self.equal.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!(
            "{name}: perf {theirs} samples, ours {ours}; compared {}: equal {}",
            self.compared,
            parts.join(", ")
        );
        for (k, e) in &self.examples {
            println!("  {k} differs, e.g. {e}");
        }
        ours == theirs && self.equal.values().all(|&n| n == self.compared)
    }
}

fn run_sched(file: &Path, kallsyms: &Path, file_order: bool) -> Vec<Line> {
    let mut args: Vec<&OsStr> = vec![
        "sched".as_ref(),
        "--kallsyms".as_ref(),
        kallsyms.as_os_str(),
    ];
    if file_order {
        args.push("--file-order".as_ref());
    }
    args.push(file.as_os_str());
    let (code, out, err) = perfscope(&args);
    assert_eq!(code, 0, "perfscope sched {}: {err}", file.display());
    out.lines()
        .map(|l| parse_line(l, false).unwrap_or_else(|| panic!("unparsed output line: {l}")))
        .collect()
}

/// Sorted by (time, cpu, pid/tid, event), for comparing outputs made in different orders.
fn by_time(lines: &[Line]) -> Vec<Line> {
    let mut v = lines.to_vec();
    v.sort_by(|a, b| {
        (&a.time, &a.cpu, &a.pid_tid, &a.event).cmp(&(&b.time, &b.cpu, &b.pid_tid, &b.event))
    });
    v
}

/// The corpus oracles were made with `--show-round-events`, which turns perf's ordered events
/// off: samples come in file order and comm names are those known at that point of the file.
/// `perfscope sched --file-order` must print exactly those lines; the default (time order, what
/// `perf script` prints without round events) must print the same samples sorted by time.
#[test]
fn tracepoint_fields_equal_perf_script() {
    let Some(root) = corpus_root() else { return };
    let gen = root.join("gen");
    let kallsyms = gen.join("extra/kallsyms.gz");
    let mut all_ok = true;
    let mut total = Tally::default();
    for stem in [
        "sched-record",
        "tp-callchain",
        "kmem-tp",
        "trace-record",
        "lock-record",
        "uprobe",
    ] {
        let file = gen.join(format!("{stem}.data"));
        let text = std::fs::read_to_string(gen.join(format!("oracle/{stem}.script.txt"))).unwrap();
        let theirs = oracle_samples(&text, true);
        let ours = run_sched(&file, &kallsyms, true);
        let mut t = Tally::default();
        t.compare(&ours, &theirs, false);
        all_ok &= t.report(stem, ours.len(), theirs.len());
        total.compare(&ours, &theirs, false);

        let timed = run_sched(&file, &kallsyms, false);
        let sorted = timed
            .windows(2)
            .all(|w| w[0].time.parse::<f64>().unwrap() <= w[1].time.parse::<f64>().unwrap());
        let strip = |v: Vec<Line>| -> Vec<Line> {
            v.into_iter()
                .map(|l| Line {
                    comm: String::new(),
                    ..l
                })
                .collect()
        };
        let mut t = Tally::default();
        t.compare(&strip(by_time(&timed)), &strip(by_time(&theirs)), false);
        all_ok &= sorted;
        all_ok &= t.report(
            &format!("{stem} (time order, comm aside)"),
            timed.len(),
            theirs.len(),
        );
    }

    // Big-endian s390x: the corpus oracle has no trace field; perf's own lines for it (time
    // order) are in tests/data. The corpus oracle still gives the header columns of the
    // samples it kept.
    let be = root.join("bigendian/be-multi.data");
    let ours = run_sched(&be, &kallsyms, false);
    let reference =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/be-multi.sched_switch.txt");
    let theirs = oracle_samples(&std::fs::read_to_string(reference).unwrap(), false);
    let mut t = Tally::default();
    t.compare(&ours, &theirs, true);
    all_ok &= t.report("be-multi (perf 6.1 -F …,trace)", ours.len(), theirs.len());
    total.compare(&ours, &theirs, true);

    let ours = run_sched(&be, &kallsyms, true);
    let text = std::fs::read_to_string(root.join("bigendian/oracle/be-multi.script.txt")).unwrap();
    let kept: Vec<Line> = oracle_samples(&text, true)
        .into_iter()
        .filter(|l| l.event == "sched:sched_switch")
        .collect();
    let matched: Vec<Line> = kept
        .iter()
        .map(|k| {
            ours.iter()
                .find(|o| o.time == k.time && o.cpu == k.cpu)
                .cloned()
                .unwrap_or_else(|| panic!("{k:?}"))
        })
        .collect();
    // Only the header columns: that oracle's `rest` is the ip and symbol.
    let no_rest = |v: &[Line]| -> Vec<Line> {
        v.iter()
            .map(|l| Line {
                rest: String::new(),
                ..l.clone()
            })
            .collect()
    };
    let mut t = Tally::default();
    t.compare(&no_rest(&matched), &no_rest(&kept), true);
    all_ok &= t.report(
        "be-multi (corpus oracle, header columns)",
        kept.len(),
        kept.len(),
    );

    // Public files with tracepoints (a uprobe in file and pipe mode, sched_switch in a zstd file):
    // their oracles are in time order, with microsecond times and `cycles` samples between.
    let perfparser = root.join("public/perfparser");
    for name in [
        "tests__auto__perfdata__probe.data.file",
        "tests__auto__perfdata__probe.data.stream",
        "tests__auto__perfdata__parallel_static_gcc__perf.data.zstd",
    ] {
        let text =
            std::fs::read_to_string(perfparser.join(format!("oracle/{name}.script.txt"))).unwrap();
        let theirs: Vec<Line> = oracle_samples(&text, true)
            .into_iter()
            .filter(|l| l.event.contains(':'))
            .collect();
        let usec = |v: Vec<Line>| -> Vec<Line> {
            v.into_iter()
                .map(|l| Line {
                    time: l.time[..l.time.len() - 3].to_string(),
                    ..l
                })
                .collect()
        };
        let ours = usec(run_sched(&perfparser.join(name), &kallsyms, false));
        let mut t = Tally::default();
        t.compare(&ours, &theirs, false);
        all_ok &= t.report(name, ours.len(), theirs.len());
        total.compare(&ours, &theirs, false);
    }

    println!(
        "all files, trace text compared: {}, equal {:?}",
        total.compared, total.equal
    );
    assert!(
        all_ok,
        "perfscope sched differs from perf script (see above)"
    );
}
#[test]
fn oracle_line_parsing() {
    let l = parse_line(
        "     migration/0    18/18    [000]  3992.769754687:          1       sched:sched_waking: comm=perf pid=1 ffffffff813a88b4 try_to_wake_up ([kernel.kallsyms])",
        true,
    )
    .unwrap();
    assert_eq!(
        (l.comm.as_str(), l.pid_tid.as_str(), l.cpu.as_str()),
        ("migration/0", "18/18", "000")
    );
    assert_eq!(
        (l.time.as_str(), l.event.as_str()),
        ("3992.769754687", "sched:sched_waking")
    );
    assert!(l
        .rest
        .strip_prefix("comm=perf pid=1")
        .is_some_and(is_ip_suffix));
    assert!(!is_ip_suffix(" comm=perf"));
    assert!(is_ip_suffix(
        "     5614227914a0 mid (/tmp/corpus-gen/workloads/mt)"
    ));
    let l = parse_line(
        "             :-1 32274/-1    [001]  3992.844256975: sched:x: a b",
        false,
    )
    .unwrap();
    assert_eq!(
        (l.comm.as_str(), l.pid_tid.as_str(), l.rest.as_str()),
        (":-1", "32274/-1", "a b")
    );
}
