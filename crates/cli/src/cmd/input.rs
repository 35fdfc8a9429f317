//! Reading the input: a perf.data file, or a `perf record --threads` directory.

use std::path::{Path, PathBuf};

/// A file's bytes: memory-mapped (so a multi-GB recording is not copied), or read when mapping
/// is not possible (a pipe, /dev/stdin).
pub enum Bytes {
    /// A read-only mapping of a regular file.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory.
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Maps `path` read-only, or reads it when it cannot be mapped.
pub fn read_bytes(path: &Path) -> std::io::Result<Bytes> {
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_file() {
        // SAFETY: the mapping is read-only. If another process truncates or rewrites the file
        // while we read it, we may see changed bytes or get SIGBUS, as every mmap-based reader
        // (perf itself included) may; the parser copes with any bytes.
        #[allow(unsafe_code)]
        if let Ok(m) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(Bytes::Mapped(m));
        }
    }
    std::fs::read(path).map(Bytes::Owned)
}

/// The bytes of a perf.data input. For a directory, the header file `data` (the `data.N` files
/// are listed in `extra`).
pub struct Input {
    /// The file-mode header file (or the only file).
    pub bytes: Bytes,
    /// For the directory format: the per-thread data files, in numeric order.
    pub extra: Vec<(PathBuf, Bytes)>,
}

impl Input {
    /// Reads `path`, accepting a file or a perf.data directory.
    pub fn read(path: &Path) -> Result<Input, String> {
        let err = |e: std::io::Error, p: &Path| format!("cannot read {}: {e}", p.display());
        if path.is_dir() {
            let header = path.join("data");
            let bytes = read_bytes(&header).map_err(|e| err(e, &header))?;
            let mut extra = Vec::new();
            let entries = std::fs::read_dir(path).map_err(|e| err(e, path))?;
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(n) = name
                    .to_str()
                    .and_then(|n| n.strip_prefix("data."))
                    .and_then(|n| n.parse::<u32>().ok())
                else {
                    continue;
                };
                let p = entry.path();
                let b = read_bytes(&p).map_err(|e| err(e, &p))?;
                extra.push((n, p, b));
            }
            extra.sort_by_key(|(n, _, _)| *n);
            let extra = extra.into_iter().map(|(_, p, b)| (p, b)).collect();
            Ok(Input { bytes, extra })
        } else {
            let bytes = read_bytes(path).map_err(|e| err(e, path))?;
            Ok(Input {
                bytes,
                extra: Vec::new(),
            })
        }
    }
}
