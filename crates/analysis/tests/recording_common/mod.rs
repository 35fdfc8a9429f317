//! The two recordings of `tests/data/diff` (a small C program, `base` and `slow`, see
//! `record.sh`) loaded into profiles, and perf's own report of them.
//!
//! They are loaded with [`load_profile`], the committed binaries as symbol sources (found by
//! the path they were recorded at).
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use perfscope_analysis::load::{load_profile, LoadOptions};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::symbols::resolver::SymbolResolver;

/// `tests/data/diff`.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/diff")
}

/// The bytes of `tests/data/diff/{name}`.
pub fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap()
}

/// The profile of `{name}.data`, symbolized with the committed binary `name`.
pub fn load(name: &str) -> Profile {
    let data = read(&format!("{name}.data"));
    let mut resolver = SymbolResolver::new();
    resolver.add_elf(Some(&format!("/tmp/perfscope-diff/{name}")), read(name));
    let (profile, diag) = load_profile(
        &data,
        &[],
        LoadOptions {
            resolver: Some(resolver),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(diag.errors.is_empty(), "{name}.data: {:?}", diag.errors);
    profile
}

/// perf's report (`{name}.report.txt`): total samples, and per symbol (percent, samples).
pub fn report(name: &str) -> (u64, HashMap<String, (f64, u64)>) {
    let text = String::from_utf8(read(&format!("{name}.report.txt"))).unwrap();
    let mut total = 0;
    let mut syms = HashMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# Samples: ") {
            total = rest.split_whitespace().next().unwrap().parse().unwrap();
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        if let [pct, n, _mode, sym] = cols[..] {
            if let Some(pct) = pct.strip_suffix('%') {
                syms.insert(sym.to_owned(), (pct.parse().unwrap(), n.parse().unwrap()));
            }
        }
    }
    (total, syms)
}
