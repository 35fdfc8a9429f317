//! A `perf archive` tarball (`perf.data.tar.bz2`): the build-id cache of every DSO with samples.
//!
//! Inside, each DSO sits at `<dso path without leading '/'>/<build id>/` with an `elf` file (the
//! binary), possibly a `debug` file (its separate debug info) and for the kernel a `kallsyms`
//! file under `[kernel.kallsyms]/<build id>/`; `.build-id/xx/yyyy…` entries are symlinks to those
//! directories. Plain `.tar` and gzip-compressed tarballs are accepted too.

use std::collections::HashMap;
use std::io::Read;

use super::error::SymbolError;

/// The files kept for one build id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchiveEntry {
    /// The DSO path as perf recorded it (`/usr/lib/x86_64-linux-gnu/libc.so.6`,
    /// `[kernel.kallsyms]`).
    pub dso_path: String,
    /// The `elf` file.
    pub elf: Option<Vec<u8>>,
    /// The `debug` file (separate debug info).
    pub debug: Option<Vec<u8>>,
    /// The `kallsyms` file (kernel only).
    pub kallsyms: Option<Vec<u8>>,
}

/// The build-id tree of a perf archive: build id (raw bytes) → files.
#[derive(Clone, Debug, Default)]
pub struct PerfArchive {
    entries: HashMap<Vec<u8>, ArchiveEntry>,
}

/// Parses a hex build id (any even length up to 64 digits).
pub fn parse_hex_build_id(s: &str) -> Option<Vec<u8>> {
    if s.is_empty() || !s.len().is_multiple_of(2) || s.len() > 64 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// Lowercase hex of a build id.
pub fn build_id_hex(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

fn decompress(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, SymbolError> {
    if bytes.starts_with(b"BZh") {
        let mut out = Vec::new();
        bzip2::read::MultiBzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| SymbolError::Bzip2(e.to_string()))?;
        Ok(std::borrow::Cow::Owned(out))
    } else {
        super::kallsyms::maybe_gunzip(bytes)
    }
}

impl PerfArchive {
    /// Reads a `.tar.bz2` (or `.tar.gz`, or `.tar`) perf archive.
    pub fn parse(bytes: &[u8]) -> Result<Self, SymbolError> {
        let tar_bytes = decompress(bytes)?;
        let mut archive = tar::Archive::new(tar_bytes.as_ref());
        let mut entries: HashMap<Vec<u8>, ArchiveEntry> = HashMap::new();
        let tar_err = |e: std::io::Error| SymbolError::Tar(e.to_string());
        for entry in archive.entries().map_err(tar_err)? {
            let mut entry = entry.map_err(tar_err)?;
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry
                .path()
                .map_err(tar_err)?
                .to_string_lossy()
                .into_owned();
            let mut parts = path.rsplitn(3, '/');
            let (Some(kind), Some(id_hex), Some(dso)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if !matches!(kind, "elf" | "debug" | "kallsyms") {
                continue;
            }
            let Some(id) = parse_hex_build_id(id_hex) else {
                continue;
            };
            let mut data = Vec::new();
            entry.read_to_end(&mut data).map_err(tar_err)?;
            let e = entries.entry(id).or_default();
            e.dso_path = if dso.starts_with('[') {
                dso.to_owned()
            } else {
                format!("/{dso}")
            };
            match kind {
                "elf" => e.elf = Some(data),
                "debug" => e.debug = Some(data),
                _ => e.kallsyms = Some(data),
            }
        }
        Ok(PerfArchive { entries })
    }

    /// The files for a build id.
    pub fn get(&self, build_id: &[u8]) -> Option<&ArchiveEntry> {
        self.entries.get(build_id)
    }

    /// All (build id, files) pairs, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &ArchiveEntry)> {
        self.entries.iter().map(|(k, v)| (k.as_slice(), v))
    }

    /// Number of build ids.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the archive holds no build id.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Moves the entries out.
    pub fn into_entries(self) -> HashMap<Vec<u8>, ArchiveEntry> {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tarball() -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        let mut add = |path: &str, data: &[u8]| {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, path, data).unwrap();
        };
        add("usr/lib/libx.so/0aff/elf", b"ELF!");
        add("usr/lib/libx.so/0aff/debug", b"DBG");
        add("usr/lib/libx.so/0aff/probes", b"");
        add(
            "[kernel.kallsyms]/12ab/kallsyms",
            b"ffffffff81000000 T _text\n",
        );
        add("not/a/build/id/zz/elf", b"x");
        b.into_inner().unwrap()
    }

    #[test]
    fn groups_files_by_build_id() {
        let a = PerfArchive::parse(&tarball()).unwrap();
        assert_eq!(a.len(), 2);
        let lib = a.get(&[0x0a, 0xff]).unwrap();
        assert_eq!(lib.dso_path, "/usr/lib/libx.so");
        assert_eq!(lib.elf.as_deref(), Some(&b"ELF!"[..]));
        assert_eq!(lib.debug.as_deref(), Some(&b"DBG"[..]));
        let k = a.get(&[0x12, 0xab]).unwrap();
        assert_eq!(k.dso_path, "[kernel.kallsyms]");
        assert!(k.kallsyms.is_some() && k.elf.is_none());
    }

    #[test]
    fn bzip2_wrapped() {
        let tb = tarball();
        let mut enc = bzip2::read::BzEncoder::new(&tb[..], bzip2::Compression::fast());
        let mut bz = Vec::new();
        enc.read_to_end(&mut bz).unwrap();
        assert!(bz.starts_with(b"BZh"));
        assert_eq!(PerfArchive::parse(&bz).unwrap().len(), 2);
        assert!(matches!(
            PerfArchive::parse(b"BZh9garbage"),
            Err(SymbolError::Bzip2(_))
        ));
        assert_eq!(parse_hex_build_id("0aFF"), Some(vec![0x0a, 0xff]));
        assert_eq!(parse_hex_build_id("0af"), None);
        assert_eq!(build_id_hex(&[0x0a, 0xff]), "0aff");
    }
}
