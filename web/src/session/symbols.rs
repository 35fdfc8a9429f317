//! Files dropped with or after a perf.data: what each one is (by its first bytes, and its name
//! where the bytes cannot tell), and a [`SymbolResolver`] made from the symbol files.

use std::collections::BTreeSet;

use perfscope_analysis::symbols::archive::PerfArchive;
use perfscope_analysis::symbols::resolver::SymbolResolver;

use crate::protocol::SymbolFileInfo;

/// What a dropped file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A perf.data (file or pipe mode, either byte order).
    PerfData,
    /// An ELF executable, library or debug file.
    Elf,
    /// `/proc/kallsyms` text, plain or gzipped.
    Kallsyms,
    /// A `perf-PID.map`.
    PerfMap(u32),
    /// A `jit-PID.dump`.
    JitDump,
    /// A `perf archive` tarball (`.tar.bz2`, `.tar.gz`, `.tar`).
    Archive,
    /// `perf script` output (opened instead of a perf.data).
    PerfScript,
    /// Folded stacks (opened instead of a perf.data).
    Folded,
    /// Something else.
    Unknown,
}

impl FileKind {
    /// The name shown to people.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::PerfData => "perf.data",
            FileKind::Elf => "elf",
            FileKind::Kallsyms => "kallsyms",
            FileKind::PerfMap(_) => "perf-map",
            FileKind::JitDump => "jitdump",
            FileKind::Archive => "archive",
            FileKind::PerfScript => "perf-script",
            FileKind::Folded => "folded",
            FileKind::Unknown => "unknown",
        }
    }

    /// Whether the file is a profile to open (a perf.data or text input), not a symbol file.
    pub fn is_profile(self) -> bool {
        matches!(
            self,
            FileKind::PerfData | FileKind::PerfScript | FileKind::Folded
        )
    }
}

/// `perf-1234.map` anywhere at the end of the name (`python.perf-1234.map` too).
fn perf_map_pid(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".map")?;
    let at = stem.rfind("perf-")?;
    stem.get(at + 5..)?.parse().ok()
}

/// Whether text looks like `/proc/kallsyms` lines: `ffffffff81000000 T _text`.
fn looks_like_kallsyms(head: &[u8]) -> bool {
    let line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let mut parts = line.split(|&b| b == b' ');
    let addr = parts.next().unwrap_or(&[]);
    let kind = parts.next().unwrap_or(&[]);
    !addr.is_empty()
        && addr.iter().all(u8::is_ascii_hexdigit)
        && kind.len() == 1
        && parts.next().is_some_and(|n| !n.is_empty())
}

/// Classifies a file from its name and its first bytes (at least 512 when the file has them).
pub fn classify(name: &str, head: &[u8]) -> FileKind {
    let lower = name.to_ascii_lowercase();
    if head.starts_with(b"PERFILE2") || head.starts_with(b"2ELIFREP") {
        return FileKind::PerfData;
    }
    if head.starts_with(b"\x7fELF") {
        return FileKind::Elf;
    }
    if head.starts_with(b"JiTD") || head.starts_with(b"DTiJ") {
        return FileKind::JitDump;
    }
    if let Some(pid) = perf_map_pid(&lower) {
        return FileKind::PerfMap(pid);
    }
    let tar = head.get(257..262) == Some(b"ustar");
    if head.starts_with(b"BZh")
        || tar
        || lower.ends_with(".tar.bz2")
        || lower.ends_with(".tar.gz")
        || lower.ends_with(".tar")
    {
        return FileKind::Archive;
    }
    if head.starts_with(&[0x1f, 0x8b]) || lower.contains("kallsyms") || looks_like_kallsyms(head) {
        return FileKind::Kallsyms;
    }
    match perfscope_analysis::import::detect(head) {
        Some(perfscope_analysis::import::TextKind::PerfScript) => FileKind::PerfScript,
        Some(perfscope_analysis::import::TextKind::Folded) => FileKind::Folded,
        None => FileKind::Unknown,
    }
}

/// A symbol file kept by the worker (for rebuilding the resolver when more files come).
#[derive(Debug, Clone)]
pub struct SymbolFile {
    /// The file name.
    pub name: String,
    /// What it is.
    pub kind: FileKind,
    /// Its bytes (shared with the symbol resolver, which keeps an ELF file's: never copied).
    pub bytes: perfscope_analysis::symbols::resolver::ElfBytes,
    /// The whole file's size when `bytes` are only the parts of an ELF file that naming frames
    /// reads ([`perfscope_analysis::symbols::compact`]); `None` when they are the whole file.
    pub part_of: Option<u64>,
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// What an ELF file dropped as `file.name` serves: the first of the recording's `mapped` paths with
/// that base name, else the module with its build id.
pub fn elf_detail(file: &SymbolFile, mapped: &BTreeSet<String>) -> String {
    let what = match mapped.iter().find(|p| basename(p) == file.name) {
        Some(p) => format!("ELF, for {p}"),
        None => "ELF, matched by build id".to_string(),
    };
    match file.part_of {
        Some(whole) => format!(
            "{what}; kept {} of {} (the parts that name frames)",
            crate::display::human_bytes(file.bytes.len() as u64),
            crate::display::human_bytes(whole)
        ),
        None => what,
    }
}

/// A resolver made of `files`, and what was done with each file. An ELF file dropped as
/// `libc.so.6` is found by its build id, and also serves every path the recording maps with that
/// base name (for recordings without build ids), whether or not that path is known yet.
/// `mapped`, the paths the recording maps as far as known, only names them in the description
/// ([`elf_detail`]).
pub fn build_resolver(
    files: &[SymbolFile],
    mapped: &BTreeSet<String>,
) -> (Option<SymbolResolver>, Vec<SymbolFileInfo>) {
    if files.is_empty() {
        return (None, Vec::new());
    }
    let mut r = SymbolResolver::new();
    let mut infos = Vec::new();
    for f in files {
        let (ok, detail) = match f.kind {
            FileKind::Kallsyms => match r.set_kallsyms(&f.bytes) {
                Ok(()) => {
                    let n = r.kallsyms().map_or(0, |k| k.table().len());
                    (n > 0, format!("{n} kernel symbols"))
                }
                Err(e) => (false, e.to_string()),
            },
            FileKind::Elf => {
                r.add_dropped_elf(&f.name, f.bytes.clone());
                (true, elf_detail(f, mapped))
            }
            FileKind::PerfMap(pid) => {
                r.add_perf_map(pid, &f.bytes);
                (true, format!("JIT symbols of pid {pid}"))
            }
            FileKind::JitDump => match r.add_jitdump(&f.bytes) {
                Ok(pid) => (true, format!("jitdump of pid {pid}")),
                Err(e) => (false, e.to_string()),
            },
            FileKind::Archive => match PerfArchive::parse(&f.bytes) {
                Ok(a) => {
                    let n = a.len();
                    match r.add_archive(a) {
                        Ok(()) => (true, format!("perf archive with {n} build ids")),
                        Err(e) => (false, e.to_string()),
                    }
                }
                Err(e) => (false, e.to_string()),
            },
            FileKind::PerfData => (false, "a second perf.data is not a symbol file".to_string()),
            FileKind::PerfScript | FileKind::Folded => (false, "perf script text and folded stacks are profiles, not symbol files".to_string()),
            FileKind::Unknown => (false, "not a symbol file Perfscope knows (ELF, kallsyms, perf-PID.map, jit-PID.dump, perf archive)".to_string()),
        };
        infos.push(SymbolFileInfo {
            name: f.name.clone(),
            kind: f.kind.name().to_string(),
            detail,
            ok,
        });
    }
    (Some(r), infos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_magic_then_name() {
        assert_eq!(classify("x", b"PERFILE2...."), FileKind::PerfData);
        assert_eq!(classify("x", b"2ELIFREP...."), FileKind::PerfData);
        assert_eq!(classify("libc.so.6", b"\x7fELF\x02\x01"), FileKind::Elf);
        assert_eq!(
            classify("kallsyms.gz", &[0x1f, 0x8b, 8, 0]),
            FileKind::Kallsyms
        );
        assert_eq!(
            classify("syms", b"ffffffff81000000 T _text\nffffffff81000010 T x\n"),
            FileKind::Kallsyms
        );
        assert_eq!(
            classify("python312-perfmap.perf-31813.map", b"7f0 10 py::f\n"),
            FileKind::PerfMap(31813)
        );
        assert_eq!(classify("jit-9.dump", b"JiTD\x01\x00"), FileKind::JitDump);
        assert_eq!(classify("fp.data.tar.bz2", b"BZh91AY"), FileKind::Archive);
        assert_eq!(classify("notes.txt", b"hello world"), FileKind::Unknown);
        // Text input, recognized from a 512-byte head that may cut its last line.
        let script = "mt 26314/26314  3874.783760326:     250000 cpu-clock:pppH: \n\t  15389 update_active (/lib/ld.so)\n\nmt 26314/26314  3874.7840";
        assert_eq!(classify("out.txt", script.as_bytes()), FileKind::PerfScript);
        assert_eq!(
            classify("out.folded", b"mt;main;leaf 12\nmt;main 3\nmt;ma"),
            FileKind::Folded
        );
    }

    #[test]
    fn unusable_files_say_why() {
        let files = vec![
            SymbolFile {
                name: "notes.txt".into(),
                kind: FileKind::Unknown,
                bytes: b"hi".to_vec().into(),
                part_of: None,
            },
            SymbolFile {
                name: "k".into(),
                kind: FileKind::Kallsyms,
                bytes: b"ffffffff81000000 T _text\n".to_vec().into(),
                part_of: None,
            },
        ];
        let (r, infos) = build_resolver(&files, &BTreeSet::new());
        assert!(r.is_some());
        assert!(!infos[0].ok && infos[0].detail.starts_with("not a symbol file"));
        assert!(infos[1].ok, "{:?}", infos[1]);
        assert_eq!(infos[1].detail, "1 kernel symbols");
    }
}
