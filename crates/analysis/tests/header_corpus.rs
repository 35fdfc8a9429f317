//! Corpus test: the header facts of every file in `../shared/corpus/{public,gen,bigendian}`
//! against perf's own `perf report --header-only -I` output (`oracle/*.header.txt`), and the
//! big-endian build ids against `perf buildid-list` run on the s390x machine itself.
//!
//! Set `PERFSCOPE_SHARED` to the shared folder when it is not at `../shared` from the workspace.
//! Files where we knowingly disagree with perf are listed in `KNOWN` with the reason.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeSet;

use common::{corpus_files, fact_of, normalize, our_lines, read_input, shared};
use perfscope_analysis::summary::Summary;

/// (file name, facts, why perf's output differs from ours). The fact names are those of
/// `fact_of`; `*` means every fact.
const KNOWN: &[(&str, &[&str], &str)] = &[
    (
        "perf.data",
        &["cpu pmu caps"],
        "frankentui (perf 6.17 without libbpf): the BPF_PROG_INFO section is empty; perf 6.1 fails \
         on it and stops reading the features after it, so it prints CPU_PMU_CAPS as not \
         available; perfscope reads the later features",
    ),
    (
        "src__quipper__testdata__perf.data.armv7.perf_3.14-3.8",
        &["cmdline", "total memory", "cpu topology", "pmu mappings"],
        "the CPUDESC section is empty: perf 6.1 fails on it and stops reading the features after \
         it (so it prints an empty cmdline, 0 kB, no topology, no PMU mappings); perfscope reads them",
    ),
    (
        "testdata__ro_sample.perf",
        &["cpu topology"],
        "rewritten by quipper with CPU_TOPOLOGY strings padded to 8 instead of 64 bytes: perf \
         computes the lists' size assuming 64-byte padding, concludes the per-CPU core/socket ids \
         are absent and prints them as not available; perfscope reads them",
    ),
    (
        "src__quipper__testdata__perf.data.weight_struct",
        &["cpu topology"],
        "quipper-written, CPU_TOPOLOGY strings padded to 8 bytes (same as testdata__ro_sample.perf)",
    ),
    (
        "src__quipper__corpus__poc-fd76c99f4c02a1e3bc42ef962111a3b9991b8a0798746475e894185642eb6679",
        &["missing features"],
        "fuzzer-made big-endian file whose feature bitmap has HOSTNAME in neither word order: \
         perf (perf_file_header__read) then discards the bitmap and assumes BUILD_ID only; \
         perfscope keeps the bitmap as written (no known feature bit set)",
    ),
];

fn known(name: &str, fact: &str) -> bool {
    KNOWN
        .iter()
        .any(|(n, facts, _)| *n == name && facts.iter().any(|f| *f == fact || *f == "*"))
}

fn known_all(name: &str) -> bool {
    KNOWN
        .iter()
        .any(|(n, facts, _)| *n == name && facts.contains(&"*"))
}

#[test]
fn header_facts_agree_with_perf() {
    let Some(root) = shared() else {
        eprintln!("skipping: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let files = corpus_files(&root);
    if files.is_empty() {
        eprintln!("skipping: no corpus files under {}", root.display());
        return;
    }
    let mut failures = Vec::new();
    let mut used_known = BTreeSet::new();
    let (mut compared_files, mut compared_lines, mut empty_oracles, mut build_id_lists) =
        (0, 0, 0, 0);
    for (path, oracle, buildids) in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(oracle).unwrap();
        let summary = Summary::from_bytes(&read_input(path));
        let ours = our_lines(&summary);
        let oracle_lines: Vec<(&str, String)> = text
            .lines()
            .filter_map(|l| fact_of(l).map(|f| (f, normalize(l))))
            .collect();
        if oracle_lines.is_empty() {
            empty_oracles += 1;
            continue;
        }
        compared_files += 1;
        let facts: BTreeSet<&str> = oracle_lines.iter().map(|(f, _)| *f).collect();
        for fact in facts {
            let theirs: Vec<&String> = oracle_lines
                .iter()
                .filter(|(f, _)| *f == fact)
                .map(|(_, l)| l)
                .collect();
            let mine: Vec<&String> = ours
                .lines
                .iter()
                .filter(|(f, _)| f == fact)
                .map(|(_, l)| l)
                .collect();
            compared_lines += theirs.len();
            if theirs != mine {
                if known(&name, fact) {
                    used_known.insert((name.clone(), fact.to_string()));
                    continue;
                }
                let first = theirs.iter().zip(&mine).find(|(a, b)| a != b);
                let detail = match first {
                    Some((a, b)) => format!("perf: {a}\n      ours: {b}"),
                    None => format!("perf has {} lines, we have {}", theirs.len(), mine.len()),
                };
                failures.push(format!("{}: {fact}:\n      {detail}", path.display()));
            } else if known(&name, fact) && !known_all(&name) {
                failures.push(format!(
                    "{}: {fact}: listed in KNOWN but agrees with perf now",
                    path.display()
                ));
            }
        }
        if let Some(ids) = buildids {
            let theirs: BTreeSet<String> = std::fs::read_to_string(ids)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            let mine: BTreeSet<String> = summary
                .build_ids
                .iter()
                .map(|b| format!("{} {}", b.build_id, b.filename))
                .collect();
            // Pipe files carry no build-id table: perf buildid-list read those from the disk.
            build_id_lists += usize::from(!summary.pipe_mode);
            if !summary.pipe_mode && theirs != mine {
                failures.push(format!(
                    "{}: build ids differ:\n      perf: {theirs:?}\n      ours: {mine:?}",
                    path.display()
                ));
            }
        }
    }
    eprintln!(
        "header corpus: {} files, {compared_files} compared ({compared_lines} oracle lines), \
         {empty_oracles} with no header oracle (perf could not read them), {build_id_lists} build-id lists; \
         known disagreements used: {used_known:?}",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagreements with perf:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The event names of the sample lines of a `perf script` output: the token(s) after the time
/// (and the period, when printed) up to the one ending in `:`.
fn script_event_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let is_time = |t: &&str| {
            t.strip_suffix(':').is_some_and(|t| {
                t.split_once('.').is_some_and(|(a, b)| {
                    !a.is_empty()
                        && a.bytes().all(|c| c.is_ascii_digit())
                        && b.bytes().all(|c| c.is_ascii_digit())
                })
            })
        };
        let Some(pos) = tokens.iter().position(is_time) else {
            continue;
        };
        let mut rest = tokens[pos + 1..].iter().peekable();
        if rest.peek().is_some_and(|t| t.starts_with("PERF_RECORD")) {
            continue;
        }
        if rest
            .peek()
            .is_some_and(|t| t.bytes().all(|c| c.is_ascii_digit()))
        {
            rest.next();
        }
        let mut name = Vec::new();
        for t in rest {
            name.push(*t);
            if t.ends_with(':') {
                break;
            }
        }
        if let Some(n) = name.join(" ").strip_suffix(':') {
            names.insert(n.to_string());
        }
    }
    names
}

/// For files without HEADER_EVENT_DESC (old perf, simpleperf, pipe mode without names) the
/// event names come from EVENT_UPDATE records, the tracing data or perf's naming rules: check
/// them against the event names `perf script` printed for the file's samples.
#[test]
fn names_without_event_desc_match_perf_script() {
    let Some(root) = shared() else {
        eprintln!("skipping: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let mut failures = Vec::new();
    let mut checked = Vec::new();
    for (path, oracle, _) in corpus_files(&root) {
        let summary = Summary::from_bytes(&read_input(&path));
        if summary.features.iter().any(|f| f == "EVENT_DESC") || summary.events.is_empty() {
            continue;
        }
        let script_path = oracle
            .to_string_lossy()
            .replace(".header.txt", ".script.txt");
        let Ok(script) = std::fs::read_to_string(&script_path) else {
            continue;
        };
        let theirs = script_event_names(&script);
        if theirs.is_empty() {
            continue;
        }
        let ours: BTreeSet<String> = summary.events.iter().map(|e| e.name.clone()).collect();
        let sources: BTreeSet<&str> = summary
            .events
            .iter()
            .map(|e| e.name_source.as_str())
            .collect();
        checked.push(format!(
            "{} {theirs:?} ({sources:?})",
            path.file_name().unwrap().to_string_lossy()
        ));
        if !theirs.is_subset(&ours) {
            failures.push(format!(
                "{}: perf script names {theirs:?}, ours {ours:?}",
                path.display()
            ));
        }
    }
    eprintln!(
        "event names checked against perf script in {} files:\n  {}",
        checked.len(),
        checked.join("\n  ")
    );
    assert!(
        !checked.is_empty(),
        "no file without EVENT_DESC was checked"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every corpus file cut at 16 evenly spaced points reads without panicking (an error or a
/// partial summary).
#[test]
fn truncated_files_give_errors_not_panics() {
    let Some(root) = shared() else {
        eprintln!("skipping: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let mut cuts = 0;
    for (path, _, _) in corpus_files(&root) {
        let data = read_input(&path);
        for i in 0..16 {
            let end = data.len() * i / 16;
            let s = Summary::from_bytes(&data[..end]);
            assert!(
                end == 0 || !s.byte_order.is_empty() || s.error.is_some(),
                "{}",
                path.display()
            );
            cuts += 1;
        }
    }
    eprintln!("{cuts} truncated inputs read");
}
