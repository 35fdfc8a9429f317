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
    let gen = super::streamed_tests::shared()?.join("corpus/gen");
    gen.join("no-buildid.data").is_file().then_some(gen)
}

/// The corpus folder, `no-buildid.data` and its binary `mt` as a dropped symbol file.
fn recording_and_binary() -> Option<(std::path::PathBuf, Vec<u8>, SymbolFile)> {
    let gen = gen_corpus()?;
    let data = std::fs::read(gen.join("no-buildid.data")).unwrap();
    let mt = SymbolFile {
        name: "mt".to_string(),
        kind: FileKind::Elf,
        bytes: std::fs::read(gen.join("workloads/mt")).unwrap().into(),
        part_of: None,
    };
    Some((gen, data, mt))
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

/// A file in memory that counts the bytes read from it.
struct Counted(source::VecSource, std::rc::Rc<std::cell::Cell<u64>>);

impl ReadAt for Counted {
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, perfscope_format::Error> {
        self.1.set(self.1.get() + size);
        self.0.read_at(offset, size)
    }
    fn read_into(&mut self, offset: u64, out: &mut [u8]) -> Result<(), perfscope_format::Error> {
        self.1.set(self.1.get() + out.len() as u64);
        self.0.read_into(offset, out)
    }
}

/// The session, and the bytes it read to open the file.
fn open(data: &[u8], files: Vec<SymbolFile>) -> (Session, u64) {
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut source = Counted(source::VecSource(data.to_vec()), read.clone());
    let summary = SummaryReader::read_from(&mut source, SLICE);
    let s = Session::open(
        Box::new(source),
        summary,
        files,
        UnknownNames::Module,
        SLICE,
        &mut |_| {},
        &|| 0.0,
        Timings::default(),
    );
    let n = read.get();
    (s, n)
}

#[test]
fn an_elf_dropped_with_the_recording_names_its_module_in_one_pass() {
    let Some((gen, data, mt)) = recording_and_binary() else {
        println!("skipped: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
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

    let (mut with, read) = open(&data, vec![mt.clone()]);
    let (mut without, read_without) = open(&data, Vec::new());
    // One pass: the file was read as much as without symbol files (a second pass over the
    // records would read the data section again).
    assert_eq!(read, read_without);
    assert!(read < data.len() as u64 * 3 / 2, "{read} bytes read");
    let (text, got) = leaves(&mut with);
    assert_eq!(got, want);
    let info = &with.overview().symbol_files[0];
    assert_eq!(
        (info.ok, info.detail.as_str()),
        (true, "ELF, for /tmp/corpus-gen/workloads/mt")
    );

    // Dropped after the recording: the profile built again is the same.
    let later = &mut without;
    assert_eq!(leaves(later).1, BTreeMap::new());
    later.resymbolize(vec![mt], UnknownNames::Module, &mut |_| {}, &|| 0.0);
    assert_eq!(leaves(later).0, text);
    assert_eq!(later.overview().symbol_files, with.overview().symbol_files);
}

/// The worker begins the pass before it has read the symbol files (the first slices are read
/// meanwhile) and adds them before the first slice: the same names as with the files given to
/// `begin`, and their time apart from the records pass's.
#[test]
fn symbol_files_added_before_the_first_slice_serve_the_whole_pass() {
    let Some((_, data, mt)) = recording_and_binary() else {
        println!("skipped: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let (mut given, _) = open(&data, vec![mt.clone()]);

    // A clock that advances 1 ms a reading.
    let clock = std::cell::Cell::new(0.0);
    let now = || {
        clock.set(clock.get() + 1.0);
        clock.get()
    };
    let mut source = source::VecSource(data.clone());
    let summary = SummaryReader::read_from(&mut source, SLICE);
    let mut opening = Session::begin(
        Box::new(source),
        summary,
        Vec::new(),
        UnknownNames::Module,
        SLICE,
        &now,
        Timings::default(),
    );
    opening.add_symbols(vec![mt], 40.0, &now);
    while let Some((at, size)) = opening.next_slice() {
        opening.push_from_source(at, size);
    }
    let mut added = opening.finish(&mut |_| {}, &now);

    let (text, got) = leaves(&mut added);
    assert_eq!(got.get("leaf"), Some(&553));
    assert_eq!(got.get("memwalk"), Some(&148));
    assert_eq!(text, leaves(&mut given).0);
    assert_eq!(added.overview().symbol_files, given.overview().symbol_files);
    // 40 ms reading them (as the worker said) and 1 ms making the resolver (the clock read
    // before and after it); the records pass is timed from there: the next reading, at its
    // end, is 1 ms later (3 ms from `begin`'s reading).
    let t = added.timings_mut();
    assert_eq!(t.symbols_ms, 41.0);
    assert_eq!(t.records_ms, 1.0);
}

/// `file` as the worker reads a big dropped ELF file: only the parts symbolization needs
/// ([`perfscope_analysis::symbols::compact`]).
fn compacted(file: &SymbolFile, dwarf_mode: bool) -> SymbolFile {
    let mut source = source::VecSource(file.bytes.to_vec());
    let c = perfscope_analysis::symbols::compact::compact_elf(&mut source, dwarf_mode)
        .unwrap()
        .unwrap();
    assert!(c.bytes.len() < file.bytes.len());
    SymbolFile {
        bytes: c.bytes.into(),
        part_of: Some(file.bytes.len() as u64),
        ..file.clone()
    }
}

/// A binary read only as far as naming frames needs names them as the whole file does, in
/// frame-pointer mode and, with what unwinding reads too, in DWARF mode (`dwarf.data`: `mt`'s
/// user stacks unwound from the stack copies, inline frames from its DWARF).
#[test]
fn a_binary_read_in_part_names_and_unwinds_as_the_whole_file() {
    let Some((gen, data, mt)) = recording_and_binary() else {
        println!("skipped: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let (mut whole, _) = open(&data, vec![mt.clone()]);
    assert!(!whole.dwarf_mode());
    let part_file = compacted(&mt, false);
    let kept = part_file.bytes.len() as u64;
    let (mut part, _) = open(&data, vec![part_file]);
    let (text, by_leaf) = leaves(&mut part);
    assert_eq!(by_leaf.values().sum::<u64>(), 553 + 148);
    assert_eq!(text, leaves(&mut whole).0);
    // The summary says how much of the file it kept.
    assert_eq!(
        part.overview().symbol_files[0].detail,
        format!(
            "ELF, for /tmp/corpus-gen/workloads/mt; kept {} of {} (the parts that name frames)",
            crate::display::human_bytes(kept),
            crate::display::human_bytes(mt.bytes.len() as u64)
        )
    );

    let dwarf = std::fs::read(gen.join("dwarf.data")).unwrap();
    let folded = |s: &mut Session| {
        let f = s.export(
            ExportFormat::Folded,
            &Filter::default(),
            WeightKind::Samples,
            Privacy::default(),
            "dwarf.data",
        );
        String::from_utf8(f.unwrap().bytes).unwrap()
    };
    let (mut whole, _) = open(&dwarf, vec![mt.clone()]);
    assert!(whole.dwarf_mode());
    let want = folded(&mut whole);
    // Unwound through mt's functions (main calls them; perf script shows them so).
    assert!(want.contains(";main;"), "{want}");
    let (mut part, _) = open(&dwarf, vec![compacted(&mt, true)]);
    assert_eq!(folded(&mut part), want);
}
