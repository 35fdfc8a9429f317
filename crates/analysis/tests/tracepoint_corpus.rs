//! Tracepoint payloads decoded *by field name* ([`EventFormat::value`]) on the corpus files,
//! against the `name=value` pairs perf script printed for the same samples: numbers compared as
//! numbers (perf may print them in hex or zero-padded), strings as text; values perf prints
//! through a symbol or flag table (`call_site=func+0x10`, `prev_state=D`) are not comparable
//! and are counted apart. Skips when the corpus is absent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;
use std::path::Path;

use perfscope_analysis::tracepoint::{FieldValue, TraceData};
use perfscope_format::constants::attr_type;
use perfscope_format::walk::{walk, Item};
use perfscope_format::{HeaderFeature, Record};

/// A tracepoint sample in file order: (time, cpu, event id, payload).
type Sample = (u64, u32, u64, Vec<u8>);

fn shared() -> Option<std::path::PathBuf> {
    let p = std::env::var_os("PERFSCOPE_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    if p.join("corpus").is_dir() {
        Some(p)
    } else {
        println!(
            "SKIPPED: no corpus at {} (set PERFSCOPE_SHARED)",
            p.display()
        );
        None
    }
}

fn samples(path: &Path) -> (TraceData, Vec<Sample>) {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut trace = None;
    walk(&bytes, &[], |meta, _, item| {
        let Item::Record(raw) = item else {
            panic!("{item:?}")
        };
        if trace.is_none() {
            trace = meta
                .feature(HeaderFeature::TRACING_DATA)
                .map(TraceData::parse);
        }
        if let Ok(Record::Sample(s)) = meta.parse(raw) {
            let attr = meta.events.attr(s.event).unwrap();
            if attr.type_ == attr_type::TRACEPOINT {
                out.push((
                    s.time.unwrap(),
                    s.cpu.unwrap(),
                    attr.config,
                    s.raw.unwrap().to_vec(),
                ));
            }
        }
    })
    .unwrap();
    (trace.unwrap(), out)
}

/// (time as printed, cpu, trace text) of the sample lines of a perf script output.
fn oracle(text: &str) -> Vec<(String, u32, String)> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('\t') && !l.contains("PERF_RECORD_"))
    {
        let Some(open) = line.find(" [") else {
            continue;
        };
        let cpu: u32 = line[open + 2..open + 5].parse().unwrap();
        let after = line[open + 6..].trim_start();
        let (time, rest) = after.split_once(": ").unwrap();
        // Past the optional period and the event name (`sys:name:`).
        let rest = rest.trim_start();
        let rest = if rest.starts_with(|c: char| c.is_ascii_digit()) {
            rest.split_once(' ').unwrap().1
        } else {
            rest
        };
        let (_, trace) = rest.trim_start().split_once(": ").unwrap_or(("", ""));
        out.push((time.to_string(), cpu, trace.to_string()));
    }
    out
}

/// The `name=value` pairs of a trace text.
fn pairs(trace: &str) -> BTreeMap<&str, &str> {
    trace.split(' ').filter_map(|p| p.split_once('=')).collect()
}

#[derive(Default, Debug)]
struct Count {
    equal: u64,
    different: Vec<String>,
    not_comparable: u64,
}

impl Count {
    fn compare(&mut self, name: &str, ours: FieldValue<'_>, theirs: &str) {
        let number = |s: &str| -> Option<i128> {
            match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok().map(i128::from),
                None => s.parse::<i128>().ok(),
            }
        };
        let same = match ours {
            FieldValue::Signed(v) => number(theirs).map(|t| t == i128::from(v)),
            FieldValue::Unsigned(v) | FieldValue::Pointer(v) => {
                number(theirs).map(|t| t == i128::from(v))
            }
            FieldValue::Str(s) => Some(String::from_utf8_lossy(s) == theirs),
            FieldValue::Array { .. } => None,
        };
        match same {
            Some(true) => self.equal += 1,
            Some(false) => self
                .different
                .push(format!("{name}: ours {ours}, perf {theirs}")),
            None => self.not_comparable += 1,
        }
    }
}

fn check(name: &str, path: &Path, oracle_text: &str, file_order: bool) -> Count {
    let (trace, samples) = samples(path);
    let lines = oracle(oracle_text);
    let mut count = Count::default();
    let mut matched = 0;
    for (i, (time, cpu, id, raw)) in samples.iter().enumerate() {
        let stamp = format!("{}.{:09}", time / 1_000_000_000, time % 1_000_000_000);
        let line = if file_order {
            lines.get(i)
        } else {
            lines.iter().find(|l| l.0 == stamp && l.1 == *cpu)
        };
        let Some((t, c, text)) = line else { continue };
        assert_eq!((t, c), (&stamp, cpu), "{name}: sample {i} is not perf's");
        matched += 1;
        let event = trace.event(*id).unwrap();
        let printed = pairs(text);
        for f in &event.fields {
            let Some(theirs) = printed.get(f.name.as_str()) else {
                continue;
            };
            match event.value(&f.name, raw).unwrap() {
                // Strings may hold spaces (`opt cgu.0`): look for the whole `name=value `.
                FieldValue::Str(s) => {
                    let pair = format!("{}={}", f.name, String::from_utf8_lossy(s));
                    let found = text.split(" ==> ").any(|part| {
                        part.starts_with(&pair)
                            && part[pair.len()..].chars().next().is_none_or(|c| c == ' ')
                            || part.contains(&format!(" {pair} "))
                            || part.ends_with(&format!(" {pair}"))
                    });
                    count.compare(
                        &f.name,
                        FieldValue::Str(s),
                        if found {
                            &pair[f.name.len() + 1..]
                        } else {
                            theirs
                        },
                    );
                }
                v => count.compare(&f.name, v, theirs),
            }
        }
    }
    assert_eq!(matched, lines.len(), "{name}: every perf sample found");
    println!(
        "{name}: {matched} samples, field values equal {}, different {}, not comparable {}",
        count.equal,
        count.different.len(),
        count.not_comparable
    );
    for d in count.different.iter().take(5) {
        println!("  {d}");
    }
    count
}

#[test]
fn fields_by_name_equal_perf_script() {
    let Some(shared) = shared() else { return };
    let gen = shared.join("corpus/gen");
    let mut equal = 0;
    let mut different = 0;
    for stem in [
        "sched-record",
        "tp-callchain",
        "kmem-tp",
        "trace-record",
        "lock-record",
        "uprobe",
    ] {
        let text = std::fs::read_to_string(gen.join(format!("oracle/{stem}.script.txt"))).unwrap();
        // The gen oracles were printed in file order (`--show-round-events`).
        let c = check(stem, &gen.join(format!("{stem}.data")), &text, true);
        equal += c.equal;
        different += c.different.len();
    }
    // Big-endian s390x sched_switch: perf 6.1's own trace text (time order), kept with the CLI tests.
    let reference =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/data/be-multi.sched_switch.txt");
    let text = std::fs::read_to_string(reference).unwrap();
    let c = check(
        "be-multi",
        &shared.join("corpus/bigendian/be-multi.data"),
        &text,
        false,
    );
    equal += c.equal;
    different += c.different.len();
    println!("all: {equal} field values equal, {different} different");
    assert_eq!(different, 0);
    assert!(equal > 3000, "too few values compared: {equal}");
}
