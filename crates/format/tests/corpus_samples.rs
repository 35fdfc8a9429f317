//! Corpus check: every record of every file-mode corpus file decodes, the samples per thread agree
//! with `perf script`, and decoded fields agree with `perf report -D` record by record.
//!
//! Pipe-mode files and records inside zstd COMPRESSED records are covered by the second test,
//! which reads them through `walk` (the stream decoder and the zstd stream); in the first test
//! such files are skipped or only partly checked, and
//! say so.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod oracle;

use std::collections::{BTreeMap, HashMap};

use oracle::{num, CorpusFile, DumpRecord};
use perfscope_format::constants::RecordType;
use perfscope_format::header::Magic;
use perfscope_format::records::{Mmap2FileId, ReadValues, SampleRecord};
use perfscope_format::{parse_record, EventTable, PerfFile, Record};

/// Files whose `perf script` oracle cannot be compared, each with the reason (everything else
/// about them is still checked).
const NO_SCRIPT: &[(&str, &str)] = &[
    (
        "public/simpleperf/simpleperf__testdata__perf_with_callchain_record.data",
        "perf 6.1 stops at simpleperf's record type 32775 and prints no sample (we return it as Unknown and go on)",
    ),
    (
        "public/simpleperf/simpleperf__testdata__perf_with_trace_offcpu_v2.data",
        "perf 6.1 refuses the file (tracepoint event without TRACING_DATA): its script oracle is empty",
    ),
    (
        "public/simpleperf/simpleperf__testdata__perf_with_tracepoint_event.data",
        "perf 6.1 refuses the file (trace data in a simpleperf-style HEADER_TRACING_DATA record): its oracles are empty",
    ),
];

#[derive(Default)]
struct Outcome {
    records: usize,
    samples: usize,
    errors: Vec<String>,
    notes: Vec<String>,
    dump_checked: usize,
}

#[test]
fn corpus_records_decode_and_agree_with_perf() {
    let Some(shared) = oracle::shared_dir() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let mut failed = Vec::new();
    let mut totals = (0usize, 0usize, 0usize);
    for f in oracle::corpus_files(&shared) {
        let (bytes, extra) = read_input(&f.path);
        let out = check_file(&f, &bytes, &extra);
        totals.0 += out.records;
        totals.1 += out.samples;
        totals.2 += out.dump_checked;
        let status = if out.errors.is_empty() { "ok" } else { "FAIL" };
        println!(
            "{status:5} {}: {} records, {} samples, {} dump records checked{}",
            f.name,
            out.records,
            out.samples,
            out.dump_checked,
            out.notes
                .iter()
                .map(|n| format!("; {n}"))
                .collect::<String>()
        );
        for e in out.errors.iter().take(8) {
            println!("        {e}");
        }
        if !out.errors.is_empty() {
            failed.push(f.name.clone());
        }
    }
    println!(
        "total: {} records, {} samples, {} dump records checked",
        totals.0, totals.1, totals.2
    );
    assert!(failed.is_empty(), "files disagreeing with perf: {failed:?}");
}

/// A file, or a `perf record --threads` directory: its `data` file and its `data.N` files.
fn read_input(path: &std::path::Path) -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    if !path.is_dir() {
        return (std::fs::read(path).unwrap(), Vec::new());
    }
    let mut extra: Vec<(String, Vec<u8>)> = std::fs::read_dir(path)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("data.")
                .then(|| (name, std::fs::read(e.path()).unwrap()))
        })
        .collect();
    extra.sort();
    (std::fs::read(path.join("data")).unwrap(), extra)
}

fn check_file(f: &CorpusFile, bytes: &[u8], extra: &[(String, Vec<u8>)]) -> Outcome {
    let mut out = Outcome::default();
    let fuzz = f.name.contains("corpus__");
    match Magic::parse(bytes) {
        Ok(m) if m.pipe => {
            out.notes
                .push("skipped: pipe mode (read by stream.rs)".into());
            return out;
        }
        Ok(_) => {}
        Err(e) => {
            out.notes.push(format!("not a v2 perf.data: {e}"));
            if !fuzz && !f.name.ends_with(".v1") {
                out.errors.push(format!("header: {e}"));
            }
            return out;
        }
    }
    let file = match PerfFile::parse(bytes) {
        Ok(file) => file,
        Err(e) => {
            out.notes.push(format!("header error: {e}"));
            if !fuzz {
                out.errors.push(format!("header: {e}"));
            }
            return out;
        }
    };
    let table = EventTable::from_file(&file);
    let mut compressed = false;
    let mut auxtrace = false;
    let mut by_offset: HashMap<(String, u64), Record<'_>> = HashMap::new();
    let mut samples: Vec<SampleRecord<'_>> = Vec::new();
    let parts = std::iter::once((String::new(), file.raw_records())).chain(extra.iter().map(
        |(name, b)| {
            (
                name.clone(),
                perfscope_format::RawRecords::new(b, 0, file.endian()),
            )
        },
    ));
    if !extra.is_empty() {
        out.notes
            .push(format!("directory: data + {} data.N files", extra.len()));
    }
    for (part, raw) in parts.flat_map(|(part, records)| records.map(move |r| (part.clone(), r))) {
        let raw = match raw {
            Ok(raw) => raw,
            Err(e) => {
                out.notes.push(format!("framing stopped: {e}"));
                if !fuzz {
                    out.errors.push(format!("framing: {e}"));
                }
                break;
            }
        };
        out.records += 1;
        compressed |= matches!(
            raw.header.type_,
            RecordType::COMPRESSED | RecordType::COMPRESSED2
        );
        auxtrace |= raw.header.type_ == RecordType::AUXTRACE;
        match parse_record(&raw, &table) {
            Ok(rec) => {
                if let Record::Sample(s) = rec {
                    samples.push(s);
                }
                by_offset.insert((part, raw.offset), rec);
            }
            Err(e) => {
                if !fuzz {
                    out.errors.push(format!(
                        "record {} at 0x{:x}: {e}",
                        raw.header.type_, raw.offset
                    ));
                }
            }
        }
    }
    out.samples = samples.len();
    if fuzz {
        return out;
    }
    if compressed {
        out.notes
            .push("has zstd COMPRESSED records: samples inside them are not counted here".into());
        return out;
    }
    match NO_SCRIPT.iter().find(|(n, _)| *n == f.name) {
        Some((_, why)) => out.notes.push(format!("script not compared: {why}")),
        None => compare_script(f, &table, &samples, auxtrace, &mut out),
    }
    compare_dump(f, &table, &by_offset, &mut out);
    out
}

/// Samples per (pid, tid) as perf script delivers them: one per sample, or, with
/// PERF_SAMPLE_READ, one per read value whose counter moved (`deliver_sample_value`).
fn perf_script_counts(
    table: &EventTable,
    samples: &[SampleRecord<'_>],
) -> BTreeMap<(i64, i64), u64> {
    let mut counter = ScriptCounter::default();
    for s in samples {
        counter.add(table, s);
    }
    counter.counts
}

/// [`perf_script_counts`], one sample at a time.
#[derive(Default)]
struct ScriptCounter {
    counts: BTreeMap<(i64, i64), u64>,
    last: HashMap<u64, u64>,
}

impl ScriptCounter {
    fn add(&mut self, table: &EventTable, s: &SampleRecord<'_>) {
        let (counts, last) = (&mut self.counts, &mut self.last);
        let key = (
            s.pid.map_or(-1, |p| i64::from(p as i32)),
            s.tid.map_or(-1, |t| i64::from(t as i32)),
        );
        let mut delivered = 0;
        match s.read.map(|r| r.values) {
            None => delivered = 1,
            Some(values) => {
                let list: Vec<_> = match values {
                    ReadValues::Single(v) => vec![v],
                    ReadValues::Group(g) => g.iter().collect(),
                };
                for v in list {
                    let Some(id) = v.id.filter(|&id| table.event_of_id(id).is_some()) else {
                        continue;
                    };
                    let prev = last.insert(id, v.value).unwrap_or(0);
                    if v.value.wrapping_sub(prev) != 0 {
                        delivered += 1;
                    }
                }
            }
        }
        if delivered > 0 {
            *counts.entry(key).or_insert(0) += delivered;
        }
    }
}

/// Pipe-mode files and files with zstd COMPRESSED records, read through `walk` (the stream
/// decoder and the zstd stream): samples per (pid, tid) equal `perf script`'s.
#[test]
fn streamed_and_compressed_files_agree_with_perf_script() {
    let Some(shared) = oracle::shared_dir() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let mut failed = Vec::new();
    let mut checked = 0;
    for f in oracle::corpus_files(&shared) {
        if f.name.contains("corpus__") || f.path.is_dir() {
            continue;
        }
        let bytes = std::fs::read(&f.path).unwrap();
        let pipe = Magic::parse(&bytes).is_ok_and(|m| m.pipe);
        let mut compressed = false;
        let mut auxtrace = false;
        let mut counter = ScriptCounter::default();
        let mut errors = Vec::new();
        let mut framing = Vec::new();
        let mut no_tid = false;
        let result = perfscope_format::walk::walk(&bytes, &[], |meta, _, item| {
            let raw = match item {
                perfscope_format::walk::Item::Record(raw) => raw,
                // Framing errors (trailing junk, the corrupt quipper file) end the data; the
                // counts before them are still compared. They are printed below.
                perfscope_format::walk::Item::Error(e) => return framing.push(e.to_string()),
            };
            compressed |= matches!(
                raw.header.type_,
                RecordType::COMPRESSED | RecordType::COMPRESSED2
            );
            auxtrace |= raw.header.type_ == RecordType::AUXTRACE;
            match meta.parse(raw) {
                Ok(Record::Sample(s)) => {
                    no_tid |= s.pid.is_none();
                    counter.add(&meta.events, &s);
                }
                Ok(_) => {}
                Err(e) => errors.push(format!("{} at 0x{:x}: {e}", raw.header.type_, raw.offset)),
            }
        });
        if !(pipe || compressed) || auxtrace || no_tid {
            continue;
        }
        let Some(text) =
            oracle::read_oracle(&f.oracle, ".script.txt").filter(|t| !t.trim().is_empty())
        else {
            println!("{}: no script oracle", f.name);
            continue;
        };
        if NO_SCRIPT.iter().any(|(n, _)| *n == f.name) {
            continue;
        }
        let theirs = oracle::script_samples(&text);
        let truncated = oracle::script_truncated(&f);
        // perf 6.1 stops at records it does not know (COMPRESSED2, type 83): its script oracle
        // then lists fewer samples than the file has.
        let partial = truncated || errors_in_perf(&f);
        let ours = &counter.counts;
        let keys: std::collections::BTreeSet<_> = theirs.keys().chain(ours.keys()).collect();
        let bad: Vec<String> = keys
            .into_iter()
            .filter_map(|k| {
                let (a, b) = (
                    ours.get(k).copied().unwrap_or(0),
                    theirs.get(k).copied().unwrap_or(0),
                );
                let agree = if partial { b <= a } else { a == b };
                (!agree).then(|| format!("{}/{}: ours {a}, perf script {b}", k.0, k.1))
            })
            .collect();
        println!(
            "{}: {} threads, {} samples{}{}",
            f.name,
            ours.len(),
            ours.values().sum::<u64>(),
            if partial {
                " (perf's output is partial: checked ours >= perf's)"
            } else {
                ""
            },
            if result.is_err() || !errors.is_empty() || !framing.is_empty() {
                format!("; errors: {errors:?} {framing:?} {:?}", result.err())
            } else {
                String::new()
            }
        );
        if !bad.is_empty() || !errors.is_empty() {
            failed.push(format!("{}: {bad:?} {errors:?}", f.name));
        }
        checked += 1;
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(
        checked >= 10,
        "only {checked} streamed/compressed files checked"
    );
}

/// Whether perf 6.1 could not read the whole file (its stderr oracles say it failed part-way).
fn errors_in_perf(f: &CorpusFile) -> bool {
    oracle::read_oracle(&f.oracle, ".script.stderr.txt")
        .is_some_and(|t| t.contains("failed to process"))
        || oracle::read_oracle(&f.oracle, ".cmd.txt")
            .is_some_and(|t| t.contains("rc=234") || t.contains("downgraded"))
}

fn compare_script(
    f: &CorpusFile,
    table: &EventTable,
    samples: &[SampleRecord<'_>],
    auxtrace: bool,
    out: &mut Outcome,
) {
    let Some(text) = oracle::read_oracle(&f.oracle, ".script.txt") else {
        out.notes.push("no script oracle".into());
        return;
    };
    if samples.iter().any(|s| s.pid.is_none()) {
        out.notes
            .push("samples have no TID: per-thread counts not compared".into());
        return;
    }
    let theirs = oracle::script_samples(&text);
    let ours = perf_script_counts(table, samples);
    if auxtrace {
        out.notes.push("AUXTRACE: perf script adds samples decoded from the trace; per-thread counts not compared".into());
        return;
    }
    let truncated = oracle::script_truncated(f);
    let keys: std::collections::BTreeSet<_> = theirs.keys().chain(ours.keys()).collect();
    let mut bad = 0;
    for k in keys {
        let (a, b) = (
            ours.get(k).copied().unwrap_or(0),
            theirs.get(k).copied().unwrap_or(0),
        );
        let agree = if truncated { b <= a } else { a == b };
        if !agree {
            bad += 1;
            if bad <= 5 {
                out.errors.push(format!(
                    "samples of {}/{}: ours {a}, perf script {b}",
                    k.0, k.1
                ));
            }
        }
    }
    let n: u64 = theirs.values().sum();
    out.notes.push(format!(
        "{} threads, {n} script samples{}",
        theirs.len(),
        if truncated {
            " (script truncated: checked ours >= perf's)"
        } else {
            " equal"
        }
    ));
}

fn compare_dump(
    f: &CorpusFile,
    table: &EventTable,
    recs: &HashMap<(String, u64), Record<'_>>,
    out: &mut Outcome,
) {
    let Some(text) = oracle::read_oracle(&f.oracle, ".dump.txt") else {
        out.notes.push("no dump oracle".into());
        return;
    };
    let mut old_mmap2 = 0;
    for d in oracle::dump_records(&text) {
        let Some(rec) = recs.get(&(d.part.clone(), d.offset)) else {
            // perf-tool records perf synthesizes while reading (none of ours) or a cut line.
            continue;
        };
        let mut problems = Vec::new();
        match (d.name.as_str(), rec) {
            ("SAMPLE", Record::Sample(s)) => check_sample(&d, s, table, &mut problems),
            ("MMAP2", Record::Mmap2(m)) => {
                let want = parse_mmap(&d.rest);
                let id = match m.file_id {
                    Mmap2FileId::Inode {
                        maj,
                        min,
                        ino,
                        ino_generation,
                    } => Some(format!("{maj:02x}:{min:02x} {ino} {ino_generation}")),
                    Mmap2FileId::BuildId(_) => None,
                };
                let mut got = (
                    m.pid as i32 as i64,
                    m.tid as i32 as i64,
                    m.start,
                    m.len,
                    m.pgoff,
                    m.filename.to_string(),
                );
                if m.prot.is_none() {
                    // The pre-3.16 MMAP2 layout without prot/flags: perf reads the name 8 bytes
                    // too far and prints garbage. Compare the rest.
                    got.5 = want.as_ref().map(|w| w.0 .5.clone()).unwrap_or_default();
                    old_mmap2 += 1;
                }
                if want.as_ref().map(|w| &w.0) != Some(&got)
                    || (id.is_some() && want.as_ref().map(|w| &w.1) != id.as_ref())
                {
                    problems.push(format!("{got:?} {id:?} vs {want:?}"));
                }
            }
            ("MMAP", Record::Mmap(m)) => {
                let got = (
                    m.pid as i32 as i64,
                    m.tid as i32 as i64,
                    m.start,
                    m.len,
                    m.pgoff,
                    m.filename.to_string(),
                );
                if parse_mmap(&d.rest).map(|w| w.0) != Some(got.clone()) {
                    problems.push(format!("{got:?} vs {}", d.rest));
                }
            }
            ("COMM", Record::Comm(c)) => {
                let want = format!("{}:{}/{}", c.comm, c.pid as i32, c.tid as i32);
                if !d.rest.ends_with(&want) || d.rest.starts_with(" exec") != c.is_exec() {
                    problems.push(format!("{want} vs {}", d.rest));
                }
            }
            ("FORK" | "EXIT", Record::Fork(x) | Record::Exit(x)) => {
                let want = format!(
                    "({}:{}):({}:{})",
                    x.pid as i32, x.tid as i32, x.ppid as i32, x.ptid as i32
                );
                if d.rest.trim() != want {
                    problems.push(format!("{want} vs {}", d.rest));
                }
            }
            (name, r) => {
                let ours = format!("{r:?}");
                let ours_name: String = ours.chars().take_while(|c| c.is_alphanumeric()).collect();
                if name.replace('_', "").to_lowercase() != ours_name.to_lowercase()
                    && !matches!(r, Record::Unknown(_))
                {
                    // Names differ only in style (HEADER_ATTR vs HeaderAttr, …); a different
                    // record at the same offset would be a framing bug.
                    let aliases = [
                        ("FEATURE", "HeaderFeature"),
                        ("ATTR", "HeaderAttr"),
                        ("BUILD_ID", "HeaderBuildId"),
                        ("TRACING_DATA", "TracingData"),
                    ];
                    if !aliases.iter().any(|(a, b)| *a == name && *b == ours_name) {
                        problems.push(format!("perf says {name}, we decoded {ours_name}"));
                    }
                }
            }
        }
        // The time perf prints before the offset is the sample's or the trailer's.
        if let (Some(t), Some(p)) = (rec.time(), d.prefix.last()) {
            if num(p) != Some(t) {
                problems.push(format!("time {t} vs perf {p}"));
            }
        }
        out.dump_checked += 1;
        for p in problems {
            if out.errors.len() < 20 {
                out.errors
                    .push(format!("dump {} at 0x{:x}: {p}", d.name, d.offset));
            }
        }
    }
    if old_mmap2 > 0 {
        out.notes.push(format!("{old_mmap2} MMAP2 records in the pre-3.16 layout without prot/flags (perf misreads their names)"));
    }
}

type MmapKey = (i64, i64, u64, u64, u64, String);

/// ` PID/TID: [0xSTART(0xLEN) @ PGOFF [MAJ:MIN INO GEN]]: PROT FILENAME`.
fn parse_mmap(rest: &str) -> Option<(MmapKey, String)> {
    let (ids, tail) = rest.trim_start().split_once(": [")?;
    let (pid, tid) = ids.split_once('/')?;
    let (range, tail) = tail.split_once(") @ ")?;
    let (start, len) = range.split_once('(')?;
    let (inner, file) = tail.split_once("]: ")?;
    let mut inner_toks = inner.split_whitespace();
    let pgoff = num(inner_toks.next()?)?;
    let id: Vec<&str> = inner_toks.collect();
    let filename = file.split_once(' ').map_or("", |(_, f)| f).to_string();
    Some((
        (
            pid.parse().ok()?,
            tid.parse().ok()?,
            num(start)?,
            num(len)?,
            pgoff,
            filename,
        ),
        id.join(" "),
    ))
}

fn check_sample(
    d: &DumpRecord,
    s: &SampleRecord<'_>,
    table: &EventTable,
    problems: &mut Vec<String>,
) {
    let layout = table.layout(s.event).unwrap();
    // `(IP, 0x2): PID/TID: 0xIP period: P addr: A`
    let Some((_, tail)) = d.rest.split_once("): ") else {
        return;
    };
    let toks: Vec<&str> = tail.split_whitespace().collect();
    if toks.len() >= 6 {
        let want_ids = format!(
            "{}/{}:",
            s.pid.map_or(-1, |p| p as i32),
            s.tid.map_or(-1, |t| t as i32)
        );
        let period = s.period.or(layout.attr_period).unwrap_or(0);
        if toks[0] != want_ids
            || num(toks[1]) != Some(s.ip.unwrap_or(0))
            || num(toks[3]) != Some(period)
            || num(toks[5]) != Some(s.addr.unwrap_or(0))
        {
            problems.push(format!(
                "{want_ids} {:?} period {period} addr {:?} vs {tail}",
                s.ip, s.addr
            ));
        }
    }
    // Detail sections.
    let mut section = "";
    let mut list: Vec<u64> = Vec::new();
    let flush = |section: &str, list: &mut Vec<u64>, problems: &mut Vec<String>| {
        let ours: Option<Vec<u64>> = match section {
            "chain" => s.callchain.map(|c| c.ips().iter().collect()),
            "uregs" => s.regs_user.map(|r| r.values.iter().collect()),
            "iregs" => s.regs_intr.map(|r| r.values.iter().collect()),
            "read" => s.read.map(|r| match r.values {
                ReadValues::Single(v) => vec![v.id.unwrap_or(0), v.value],
                ReadValues::Group(g) => g
                    .iter()
                    .flat_map(|v| [v.id.unwrap_or(0), v.value])
                    .collect(),
            }),
            _ => None,
        };
        if !section.is_empty() && ours.as_ref() != Some(list) {
            problems.push(format!("{section}: ours {ours:x?} vs perf {list:x?}"));
        }
        list.clear();
    };
    for line in &d.details {
        let l = line.trim_start_matches(['.', ' ']);
        if line.starts_with("... ") || line.starts_with(" . ") || line.starts_with(" .. ") {
            flush(section, &mut list, problems);
            section = "";
            if let Some(n) = l
                .strip_prefix("FP chain: nr:")
                .or(l.strip_prefix("chain: nr:"))
            {
                section = "chain";
                if num(n) != s.callchain.map(|c| c.len() as u64) {
                    problems.push(format!(
                        "callchain nr {n} vs {:?}",
                        s.callchain.map(|c| c.len())
                    ));
                }
            } else if l.starts_with("user regs:") {
                section = "uregs";
            } else if l.starts_with("intr regs:") {
                section = "iregs";
            } else if l.starts_with("sample_read:") {
                section = "read";
            } else if let Some(v) = l.strip_prefix("data_src: ") {
                if num(v) != s.data_src {
                    problems.push(format!("data_src {v} vs {:?}", s.data_src));
                }
            } else if let Some(v) = l.strip_prefix("phys_addr: ") {
                if num(v) != s.phys_addr {
                    problems.push(format!("phys_addr {v} vs {:?}", s.phys_addr));
                }
            } else if let Some(v) = l.strip_prefix("weight: ") {
                let w = v.split(',').next().and_then(num);
                if w != s.weight.map(|w| w.weight()) {
                    problems.push(format!("weight {v} vs {:?}", s.weight));
                }
            } else if let Some(v) = l.strip_prefix("ustack: size ") {
                let size = v.split(',').next().and_then(num);
                if size != s.stack_user.map(|u| u.dyn_size) {
                    problems.push(format!(
                        "ustack {v} vs {:?}",
                        s.stack_user.map(|u| u.dyn_size)
                    ));
                }
            } else if let Some(v) = l.strip_prefix("branch stack: nr:") {
                if num(v) != s.branch_stack.map(|b| b.len() as u64) {
                    problems.push(format!("branch stack nr {v}"));
                }
            }
        } else {
            match section {
                // `.....  0: ffffffffffffff80`
                "chain" => list.extend(
                    l.split_once(": ")
                        .and_then(|(_, v)| u64::from_str_radix(v.trim(), 16).ok()),
                ),
                // `.... BP    0x0000557a9fcbeb70`
                "uregs" | "iregs" => list.extend(l.split_whitespace().nth(1).and_then(num)),
                // `..... id 00000000000029b5, value 00000000001ec511, lost 0`
                "read" => {
                    if let Some(rest) = l.strip_prefix("id ") {
                        let mut parts = rest.split(", value ");
                        let id = parts
                            .next()
                            .and_then(|h| u64::from_str_radix(h.trim(), 16).ok());
                        let val = parts.next().and_then(|v| {
                            u64::from_str_radix(v.split(',').next()?.trim(), 16).ok()
                        });
                        list.extend(id);
                        list.extend(val);
                    }
                }
                _ => {}
            }
        }
    }
    flush(section, &mut list, problems);
}
