//! Helpers shared by the corpus tests: where `shared/` is, and perf script oracle parsing.
#![allow(dead_code)]

use std::path::PathBuf;

/// `$PERFSCOPE_SHARED`, else `<workspace>/../shared`; `None` (with a printed message) when absent.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("PERFSCOPE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    if dir.join("corpus/gen").is_dir() {
        Some(dir)
    } else {
        println!(
            "skipping {test}: no shared corpus at {} (set PERFSCOPE_SHARED)",
            dir.display()
        );
        None
    }
}

/// One callchain line of `perf script`: `\t    ADDR SYM (DSO)`. For user DSOs perf prints the
/// dso-relative (file-relative) address; for the kernel, the run-time address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptFrame {
    pub addr: u64,
    pub sym: String,
    pub dso: String,
}

/// All callchain lines (lines starting with a tab) of a perf script oracle.
pub fn script_frames(text: &str) -> Vec<ScriptFrame> {
    text.lines()
        .filter(|l| l.starts_with('\t'))
        .filter_map(|l| {
            let l = l.trim();
            let (addr, rest) = l.split_once(' ')?;
            let open = rest.rfind(" (")?;
            let sym = rest.get(..open)?.trim();
            let dso = rest.get(open + 2..)?.strip_suffix(')')?;
            Some(ScriptFrame {
                addr: u64::from_str_radix(addr, 16).ok()?,
                sym: sym.into(),
                dso: dso.into(),
            })
        })
        .collect()
}

/// The kernel map of a perf script oracle (`PERF_RECORD_MMAP -1/0: [START(LEN) @ PGOFF]: x NAME`):
/// (name, pgoff).
pub fn kernel_map(text: &str) -> Option<(String, u64)> {
    let line = text
        .lines()
        .find(|l| l.contains("PERF_RECORD_MMAP -1/0") && l.contains("[kernel.kallsyms]"))?;
    let pgoff = line.split_once(" @ ")?.1.split(']').next()?;
    let pgoff = u64::from_str_radix(pgoff.trim_start_matches("0x"), 16).ok()?;
    let name = line.rsplit(' ').next()?;
    Some((name.to_owned(), pgoff))
}
