//! The streaming loader ([`load_sectioned`]: random access, chunk by chunk) against the
//! whole-file loader ([`load_profile`]) on every corpus file: the same folded stacks (frames
//! named `module+0xoffset`, so every address counts), the same diagnostics, for chunk sizes from
//! tiny (a prime, so records and compressed frames are cut everywhere) to large. The
//! `perf record --threads` directory is read through its parts.
//! Skips with a message when the corpus is absent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::{Path, PathBuf};

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::load::{load_profile, load_sectioned_parts, LoadDiagnostics, LoadOptions};
use perfscope_analysis::samples::SampleFilter;
use perfscope_format::file::ReadAt;
use perfscope_format::{Error, ErrorKind};

/// A file in memory read through [`ReadAt`], counting the bytes handed out.
struct Slices<'a> {
    bytes: &'a [u8],
    largest_read: u64,
}

impl ReadAt for Slices<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
        self.largest_read = self.largest_read.max(size);
        let range = usize::try_from(offset).unwrap()..usize::try_from(offset + size).unwrap();
        self.bytes.get(range).map(<[u8]>::to_vec).ok_or(Error::new(
            offset,
            ErrorKind::UnexpectedEof {
                what: "test file",
                needed: size,
                available: 0,
            },
        ))
    }
}

fn options() -> LoadOptions {
    LoadOptions {
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    }
}

/// Every corpus input: `.data` files of gen/bigendian, the public files, as (path, parts).
fn inputs(root: &Path) -> Vec<(PathBuf, Vec<Vec<u8>>)> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for set in ["gen", "bigendian"] {
        for e in std::fs::read_dir(root.join("corpus").join(set))
            .into_iter()
            .flatten()
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "data") {
                paths.push(e.path());
            }
        }
    }
    for project in std::fs::read_dir(root.join("corpus/public"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for e in std::fs::read_dir(project.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if e.path().is_file()
                && e.file_name() != "MANIFEST.md"
                && !e.file_name().to_string_lossy().ends_with(".md")
            {
                paths.push(e.path());
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let parts = if p.is_dir() {
                let mut extra: Vec<(u32, PathBuf)> = std::fs::read_dir(&p)
                    .unwrap()
                    .flatten()
                    .filter_map(|e| {
                        let n = e
                            .file_name()
                            .to_str()?
                            .strip_prefix("data.")?
                            .parse()
                            .ok()?;
                        Some((n, e.path()))
                    })
                    .collect();
                extra.sort();
                std::iter::once(std::fs::read(p.join("data")).unwrap())
                    .chain(extra.into_iter().map(|(_, p)| std::fs::read(p).unwrap()))
                    .collect()
            } else {
                vec![std::fs::read(&p).unwrap()]
            };
            (p, parts)
        })
        .collect()
}

/// What must agree: the folded text and the diagnostics that do not describe the queue.
fn outcome(
    r: Result<
        (perfscope_analysis::profile::Profile, LoadDiagnostics),
        perfscope_analysis::load::LoadError,
    >,
) -> Result<(String, LoadDiagnostics), String> {
    let (profile, mut diag) = r.map_err(|e| e.to_string())?;
    let folded = to_folded_text(&profile, &SampleFilter::all(), FoldedOptions::default());
    diag.max_queued_bytes = 0;
    diag.max_queue_allocated = 0;
    Ok((folded, diag))
}

#[test]
fn sectioned_loading_equals_whole_file_loading_on_every_corpus_file() {
    let Some(root) = common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let inputs = inputs(&root);
    assert!(
        inputs.len() > 40,
        "corpus found but only {} inputs",
        inputs.len()
    );
    let mut with_samples = 0;
    let mut checked_dir = false;
    for (path, parts) in &inputs {
        let extra: Vec<&[u8]> = parts[1..].iter().map(Vec::as_slice).collect();
        let whole = outcome(load_profile(&parts[0], &extra, options()));
        if whole.as_ref().is_ok_and(|(folded, _)| !folded.is_empty()) {
            with_samples += 1;
        }
        checked_dir |= parts.len() > 1;
        for chunk in [4093, 65536, 1 << 24] {
            let mut main = Slices {
                bytes: &parts[0],
                largest_read: 0,
            };
            let mut rest: Vec<Slices<'_>> = parts[1..]
                .iter()
                .map(|b| Slices {
                    bytes: b,
                    largest_read: 0,
                })
                .collect();
            let mut calls = 0u64;
            let mut last_done = 0u64;
            let got = outcome(load_sectioned_parts(
                &mut main,
                &mut rest,
                chunk,
                options(),
                |done, _| {
                    assert!(done >= last_done, "progress went back");
                    last_done = done;
                    calls += 1;
                },
            ));
            assert_eq!(got, whole, "{} with {chunk}-byte chunks", path.display());
            let total: u64 = parts.iter().map(|p| p.len() as u64).sum();
            assert!(
                last_done <= total,
                "{}: {last_done} bytes done of {total}",
                path.display()
            );
            // Only the header's own sections may be read in one piece bigger than a chunk.
            if whole.is_ok() {
                let data_reads = rest.iter().map(|s| s.largest_read).max().unwrap_or(0);
                assert!(
                    data_reads <= chunk as u64,
                    "{}: a data.N read of {data_reads} bytes",
                    path.display()
                );
            }
        }
    }
    assert!(with_samples > 30, "only {with_samples} inputs gave stacks");
    assert!(
        checked_dir,
        "the --threads directory (gen/threads.data) was not found"
    );
}

/// The record body bytes between FINISHED_ROUNDs, in file order (the last entry: after the last).
fn round_sizes(bytes: &[u8]) -> Vec<usize> {
    let mut rounds = vec![0usize];
    perfscope_format::walk::walk(bytes, &[], |_, _, item| {
        if let perfscope_format::walk::Item::Record(rec) = item {
            if rec.type_() == perfscope_format::RecordType::FINISHED_ROUND {
                rounds.push(0);
            } else {
                *rounds.last_mut().unwrap() += rec.body.len();
            }
        }
    })
    .unwrap();
    rounds
}

#[test]
fn the_queue_holds_at_most_two_rounds() {
    let Some(root) = common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    // Before the release at the end of round N, only records of rounds N-1 and N can be
    // queued (those of N-2 are older than round N-1's newest time: released at its end).
    for file in [
        "bigendian/be-multi.data",
        "gen/lost.data",
        "gen/attach-pid.data",
    ] {
        let bytes = std::fs::read(root.join("corpus").join(file)).unwrap();
        let rounds = round_sizes(&bytes);
        assert!(rounds.len() > 50, "{file}: {} rounds", rounds.len());
        let bound = rounds.windows(2).map(|w| w[0] + w[1]).max().unwrap();
        let (_, diag) = load_profile(&bytes, &[], options()).unwrap();
        assert_eq!(diag.late_records, 0, "{file}");
        assert!(diag.copied_records > 1000, "{file}: {diag:?}");
        assert!(
            diag.max_queued_bytes > 0 && diag.max_queued_bytes <= bound,
            "{file}: the queue held {} bytes; two rounds are at most {bound} of a {}-byte file",
            diag.max_queued_bytes,
            bytes.len()
        );
        println!(
            "{file}: queue peak {} bytes, two-round bound {bound}, file {}",
            diag.max_queued_bytes,
            bytes.len()
        );
    }
}
