//! Reading the input: a perf.data file, or a `perf record --threads` directory.

use std::path::{Path, PathBuf};

/// The bytes of a perf.data input. For a directory, the header file `data` (the `data.N` files
/// are listed in `extra`).
pub struct Input {
    /// The file-mode header file (or the only file).
    pub bytes: Vec<u8>,
    /// For the directory format: the per-thread data files, in numeric order.
    pub extra: Vec<(PathBuf, Vec<u8>)>,
}

impl Input {
    /// Reads `path`, accepting a file or a perf.data directory.
    pub fn read(path: &Path) -> Result<Input, String> {
        let err = |e: std::io::Error, p: &Path| format!("cannot read {}: {e}", p.display());
        if path.is_dir() {
            let header = path.join("data");
            let bytes = std::fs::read(&header).map_err(|e| err(e, &header))?;
            let mut extra = Vec::new();
            let entries = std::fs::read_dir(path).map_err(|e| err(e, path))?;
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(n) = name.to_str().and_then(|n| n.strip_prefix("data.")).and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                let p = entry.path();
                let b = std::fs::read(&p).map_err(|e| err(e, &p))?;
                extra.push((n, p, b));
            }
            extra.sort_by_key(|(n, _, _)| *n);
            let extra = extra.into_iter().map(|(_, p, b)| (p, b)).collect();
            Ok(Input { bytes, extra })
        } else {
            let bytes = std::fs::read(path).map_err(|e| err(e, path))?;
            Ok(Input { bytes, extra: Vec::new() })
        }
    }
}
