//! Where the CLI finds symbols on this machine, as perf does: binaries by their recorded path
//! (under `--symfs`) with a build-id check, perf's build-id cache (`~/.debug` or
//! `--buildid-dir`), separate debug files in `/usr/lib/debug/.build-id/`, and `/proc/kallsyms`
//! when the recording was made on the running kernel.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use perfscope_analysis::feature_summary::build_id_summary;
use perfscope_analysis::summary::Summary;
use perfscope_analysis::symbols::archive::{build_id_hex, parse_hex_build_id};
use perfscope_analysis::symbols::compact::{compact_elf, COMPACT_FROM};
use perfscope_analysis::symbols::elf;
use perfscope_analysis::symbols::resolver::{FileProvider, SymbolResolver};
use perfscope_format::features::{parse_feature, Feature, FeatureContext};
use perfscope_format::file::ReadAt;
use perfscope_format::{HeaderFeature, PerfFile};

/// Reads binaries from the local filesystem: the recorded path (under `--symfs`), separate
/// debug files from `/usr/lib/debug/.build-id/` and the build-id cache's `debug` files. A big
/// ELF file is read only as far as symbolization needs ([`read_elf`]).
pub struct LocalFiles {
    /// perf's `--symfs`.
    pub symfs: Option<PathBuf>,
    /// The build-id cache (`~/.debug`).
    pub buildid_dir: Option<PathBuf>,
    /// The recording has DWARF-mode stacks: binaries are read with what unwinding needs.
    pub dwarf_mode: bool,
}

/// A file read at positions, for [`compact_elf`].
struct FileAt(std::fs::File, u64);

impl ReadAt for FileAt {
    fn len(&self) -> u64 {
        self.1
    }
    fn read_at(&mut self, offset: u64, size: u64) -> perfscope_format::Result<Vec<u8>> {
        // (The error is dropped: the file is then read whole, or not at all.)
        let failed = perfscope_format::Error::new(
            offset,
            perfscope_format::ErrorKind::UnexpectedEof {
                what: "file (a read failed)",
                needed: size,
                available: 0,
            },
        );
        let mut out = vec![0; usize::try_from(size).map_err(|_| failed)?];
        self.0.seek(SeekFrom::Start(offset)).map_err(|_| failed)?;
        self.0.read_exact(&mut out).map_err(|_| failed)?;
        Ok(out)
    }
}

/// The file at `path`: a big ELF file cut to the parts symbolization reads (with `dwarf_mode`,
/// also what unwinding reads; see [`compact_elf`]: a 154 MB `librustc_driver` is read as a few
/// MB), anything else whole.
pub fn read_elf(path: &Path, dwarf_mode: bool) -> Option<Vec<u8>> {
    read_elf_from(path, dwarf_mode, COMPACT_FROM)
}

fn read_elf_from(path: &Path, dwarf_mode: bool, compact_from: u64) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len >= compact_from {
        if let Ok(Some(c)) = compact_elf(&mut FileAt(file, len), dwarf_mode) {
            return Some(c.bytes);
        }
    }
    std::fs::read(path).ok()
}

impl LocalFiles {
    fn local(&self, path: &str) -> PathBuf {
        match &self.symfs {
            Some(dir) => dir.join(path.trim_start_matches('/')),
            None => PathBuf::from(path),
        }
    }
}

impl FileProvider for LocalFiles {
    fn read_path(&mut self, path: &str) -> Option<Vec<u8>> {
        if !path.starts_with('/') {
            return None;
        }
        let p = self.local(path);
        p.is_file().then(|| read_elf(&p, self.dwarf_mode)).flatten()
    }

    fn read_debug(&mut self, build_id: &[u8]) -> Option<Vec<u8>> {
        let hex = build_id_hex(build_id);
        let (dir, rest) = (hex.get(..2)?, hex.get(2..)?);
        let cached = self
            .buildid_dir
            .as_ref()
            .map(|d| d.join(".build-id").join(dir).join(rest).join("debug"));
        let system = self.local(&format!("/usr/lib/debug/.build-id/{dir}/{rest}.debug"));
        cached
            .into_iter()
            .chain([system])
            .find_map(|p| read_elf(&p, self.dwarf_mode))
    }
}

/// What symbol lookup needs of a recording: its build ids and os release. In file mode from
/// the two header features alone (no walk over the records); a pipe-mode stream is summarized
/// whole (its features are records).
pub fn recording_facts(data: &[u8]) -> Summary {
    let Ok(file) = PerfFile::parse(data) else {
        return Summary::from_bytes(data);
    };
    let mut s = Summary::default();
    for (id, bytes) in file.feature_sections() {
        if id != HeaderFeature::BUILD_ID && id != HeaderFeature::OSRELEASE {
            continue;
        }
        match parse_feature(id, bytes, &FeatureContext::default()) {
            Ok(Feature::BuildId(v)) => s.build_ids.extend(v.iter().map(build_id_summary)),
            Ok(Feature::OsRelease(v)) => s.os_release = Some(v.to_string()),
            _ => {}
        }
    }
    s
}

/// perf's default build-id cache: `$PERF_BUILDID_DIR`, else `$HOME/.debug`.
pub fn default_buildid_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PERF_BUILDID_DIR") {
        return Some(PathBuf::from(d));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".debug"))
}

/// The build-id cache's copy of a binary: `DIR/.build-id/xx/yyyy…/elf` (or the older
/// `DIR/.build-id/xx/yyyy…` link to it), then `DIR/<path>/<build id>/elf` (or the older
/// `DIR/<path>/<build id>`), as perf's `build_id_cache__linkname` and `dso__build_id_filename`
/// lay them out. Only a file whose build id is `build_id` counts. Read as [`read_elf`] reads.
pub fn cached_binary(dir: &Path, build_id: &[u8], path: &str, dwarf_mode: bool) -> Option<Vec<u8>> {
    let hex = build_id_hex(build_id);
    let (xx, rest) = (hex.get(..2)?, hex.get(2..)?);
    let by_id = dir.join(".build-id").join(xx).join(rest);
    let by_path = dir.join(path.trim_start_matches('/')).join(&hex);
    [by_id.join("elf"), by_id, by_path.join("elf"), by_path]
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| read_elf(&p, dwarf_mode))
        .find(|bytes| elf::build_id(bytes).as_deref() == Some(build_id))
}

/// Adds every binary of the recording's build-id list found in the build-id cache; returns how
/// many. The kernel is left to kallsyms.
pub fn add_cached_binaries(
    resolver: &mut SymbolResolver,
    summary: &Summary,
    dir: &Path,
    dwarf_mode: bool,
) -> usize {
    let mut n = 0;
    for b in &summary.build_ids {
        if b.cpumode.contains("kernel") || b.filename.starts_with('[') {
            continue;
        }
        let Some(id) = parse_hex_build_id(&b.build_id) else {
            continue;
        };
        if let Some(bytes) = cached_binary(dir, &id, &b.filename, dwarf_mode) {
            resolver.add_elf(None, bytes);
            n += 1;
        }
    }
    n
}

/// The `NT_GNU_BUILD_ID` in raw ELF notes (`/sys/kernel/notes`: namesz, descsz, type, name,
/// desc, each 4-byte aligned, native byte order).
pub fn notes_build_id(notes: &[u8]) -> Option<Vec<u8>> {
    let word = |at: usize| -> Option<usize> {
        Some(u32::from_ne_bytes(notes.get(at..at.checked_add(4)?)?.try_into().ok()?) as usize)
    };
    let align = |n: usize| n.checked_add(3).map(|n| n & !3);
    let mut at = 0usize;
    while at.checked_add(12)? <= notes.len() {
        let (namesz, descsz, kind) = (word(at)?, word(at + 4)?, word(at + 8)?);
        let name_at = at + 12;
        let desc_at = name_at.checked_add(align(namesz)?)?;
        let next = desc_at.checked_add(align(descsz)?)?;
        if kind == 3 && notes.get(name_at..name_at.checked_add(namesz)?) == Some(b"GNU\0") {
            return notes
                .get(desc_at..desc_at.checked_add(descsz)?)
                .map(<[u8]>::to_vec);
        }
        at = next;
    }
    None
}

/// `/proc/kallsyms`, when the recording's kernel is the running one (its os release equals
/// `uname -r`, and its kernel build id, if recorded, equals `/sys/kernel/notes`'s) and the
/// addresses are visible (all zero without root or with `kptr_restrict`). `Err` says why not.
pub fn running_kallsyms(summary: &Summary) -> Result<Vec<u8>, String> {
    let running = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_err(|e| format!("cannot read the running kernel's release: {e}"))?;
    let recorded = summary
        .os_release
        .as_deref()
        .ok_or("the recording has no os release")?;
    if recorded.trim() != running.trim() {
        return Err(format!(
            "recorded on kernel {recorded}, running {}",
            running.trim()
        ));
    }
    let kernel_id = summary
        .build_ids
        .iter()
        .find(|b| b.filename.starts_with("[kernel.kallsyms]"))
        .and_then(|b| parse_hex_build_id(&b.build_id));
    if let (Some(recorded), Some(running)) = (
        kernel_id,
        std::fs::read("/sys/kernel/notes")
            .ok()
            .as_deref()
            .and_then(notes_build_id),
    ) {
        if recorded != running {
            return Err("the kernel's build id differs from the running kernel's".into());
        }
    }
    let bytes =
        std::fs::read("/proc/kallsyms").map_err(|e| format!("cannot read /proc/kallsyms: {e}"))?;
    if !kallsyms_has_addresses(&bytes) {
        return Err("/proc/kallsyms shows no addresses (not root, or kptr_restrict)".into());
    }
    Ok(bytes)
}

/// Whether a kallsyms text has any non-zero address.
pub fn kallsyms_has_addresses(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| l.split(|&b| b == b' ').next())
        .any(|a| !a.is_empty() && a.iter().any(|&b| b != b'0'))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn kernel_notes_give_the_build_id() {
        // A note of another type, then NT_GNU_BUILD_ID "GNU\0" with a 20-byte id.
        let mut notes = Vec::new();
        for w in [5u32, 4, 1] {
            notes.extend_from_slice(&w.to_ne_bytes());
        }
        notes.extend_from_slice(b"Xen\0\0\0\0\0");
        notes.extend_from_slice(&[9, 9, 9, 9]);
        for w in [4u32, 20, 3] {
            notes.extend_from_slice(&w.to_ne_bytes());
        }
        notes.extend_from_slice(b"GNU\0");
        let id: Vec<u8> = (1..=20).collect();
        notes.extend_from_slice(&id);
        assert_eq!(notes_build_id(&notes), Some(id));
        assert_eq!(notes_build_id(&notes[..30]), None);
    }

    #[test]
    fn zeroed_kallsyms_is_not_used() {
        assert!(!kallsyms_has_addresses(
            b"0000000000000000 T _text\n0000000000000000 t foo\n"
        ));
        assert!(kallsyms_has_addresses(
            b"0000000000000000 A fixed_percpu_data\nffffffff81000000 T _text\n"
        ));
    }

    #[test]
    fn a_binary_read_in_part_has_the_whole_files_symbols() {
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/diff/base"
        ));
        let whole = std::fs::read(path).unwrap();
        let part = read_elf_from(path, false, 0).unwrap();
        assert!(part.len() < whole.len());
        let symbols = |bytes: &[u8]| {
            let e = elf::ElfSymbols::parse(bytes).unwrap();
            let names: Vec<(u64, String)> = e
                .table()
                .iter()
                .map(|s| (s.start, s.name.to_string()))
                .collect();
            (names, e.build_id().map(<[u8]>::to_vec))
        };
        let (names, id) = symbols(&part);
        assert!(names.iter().any(|(_, n)| n == "main"));
        assert_eq!((names, id), symbols(&whole));
        // Small files and files that are not ELF are read whole.
        assert_eq!(read_elf(path, false), Some(whole));
        let text = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/diff/prog.c");
        assert_eq!(
            read_elf_from(Path::new(text), false, 0),
            std::fs::read(text).ok()
        );
    }
}
