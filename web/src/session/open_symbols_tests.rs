//! Symbol files dropped with the recording serve its one pass: an ELF file dropped by its base
//! name names the module the recording maps under a longer path, without a second pass over the
//! file. Checked on `no-buildid.data` of the corpus (`perf record -B`: no build ids, so the file
//! is found by its name) against what `perf script` printed for it, and against the profile
//! built again when the same file is dropped after the recording. Skips without the corpus.

use std::collections::BTreeMap;

use super::symbols::{FileKind, SymbolFile};
use super::*;
use crate::protocol::{ExportFormat, Filter, Privacy, WeightKind};

fn gen_corpus() -> Option<std::path::PathBuf> {
    let root = match std::env::var_os("PERFSCOPE_SHARED") {
        Some(p) => std::path::PathBuf::from(p),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    let gen = root.join("corpus/gen");
    gen.join("no-buildid.data").is_file().then_some(gen)
}

/// Samples per leaf frame of the folded export, for `mt`'s own functions.
fn leaves(s: &mut Session) -> (String, BTreeMap<String, u64>) {
    let folded = s
        .export(
            ExportFormat::Folded,
            &Filter::default(),
            WeightKind::Samples,
            Privacy::default(),
            "no-buildid.data",
        )
        .unwrap();
    let text = String::from_utf8(folded.bytes).unwrap();
    let mut by_leaf = BTreeMap::new();
    for line in text.lines() {
        let (stack, n) = line.rsplit_once(' ').unwrap();
        let leaf = stack.rsplit(';').next().unwrap();
        if matches!(leaf, "leaf" | "memwalk") {
            *by_leaf.entry(leaf.to_string()).or_insert(0) += n.parse::<u64>().unwrap();
        }
    }
    (text, by_leaf)
}

fn open(data: &[u8], files: Vec<SymbolFile>) -> Session {
    let mut source = source::VecSource(data.to_vec());
    let summary = SummaryReader::read_from(&mut source, SLICE);
    Session::open(
        Box::new(source),
        summary,
        files,
        UnknownNames::Module,
        SLICE,
        &mut |_| {},
        &|| 0.0,
        Timings::default(),
    )
}

#[test]
fn an_elf_dropped_with_the_recording_names_its_module_in_one_pass() {
    let Some(gen) = gen_corpus() else {
        println!("skipped: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let data = std::fs::read(gen.join("no-buildid.data")).unwrap();
    let mt = SymbolFile {
        name: "mt".to_string(),
        kind: FileKind::Elf,
        bytes: std::fs::read(gen.join("workloads/mt")).unwrap(),
    };
    // perf script names 553 samples `leaf` and 148 `memwalk` in /tmp/corpus-gen/workloads/mt.
    let script = std::fs::read_to_string(gen.join("oracle/no-buildid.script.txt")).unwrap();
    let mut want = BTreeMap::new();
    for line in script
        .lines()
        .filter(|l| l.ends_with("(/tmp/corpus-gen/workloads/mt)"))
    {
        let sym = line.split_whitespace().rev().nth(1).unwrap();
        *want.entry(sym.to_string()).or_insert(0u64) += 1;
    }
    assert_eq!(want.values().sum::<u64>(), 553 + 148);

    let mut with = open(&data, vec![mt.clone()]);
    // One pass: the profile was built once (a second pass would make generation 2).
    assert_eq!(with.generation, 1);
    let (text, got) = leaves(&mut with);
    assert_eq!(got, want);
    let info = &with.overview().symbol_files[0];
    assert_eq!(
        (info.ok, info.detail.as_str()),
        (true, "ELF, for /tmp/corpus-gen/workloads/mt")
    );

    // Dropped after the recording: the profile built again is the same.
    let mut later = open(&data, Vec::new());
    assert_eq!(leaves(&mut later).1, BTreeMap::new());
    later.resymbolize(vec![mt], UnknownNames::Module, &mut |_| {}, &|| 0.0);
    assert_eq!(later.generation, 2);
    assert_eq!(leaves(&mut later).0, text);
    assert_eq!(later.overview().symbol_files, with.overview().symbol_files);
}
