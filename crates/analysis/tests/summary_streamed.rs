//! [`SummaryReader`] (the summary read through random access: header, attrs and features first,
//! then the records of a streaming pass) against [`Summary::from_bytes`] of the whole file, on
//! every corpus file, for a tiny chunk size (records cut everywhere) and a large one.
//! Skips with a message when the corpus is absent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::PathBuf;

use perfscope_analysis::load::{stream_records, RecordSink};
use perfscope_analysis::summary::{Summary, SummaryReader};
use perfscope_format::file::ReadAt;
use perfscope_format::metadata::Metadata;
use perfscope_format::{Error, ErrorKind, RawRecord};

/// A file in memory read through [`ReadAt`], counting the bytes handed out.
struct Slices<'a> {
    bytes: &'a [u8],
    read: u64,
}

impl ReadAt for Slices<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
        self.read += size;
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

struct Feed<'a>(&'a mut SummaryReader);

impl RecordSink for Feed<'_> {
    fn record(&mut self, _meta: &Metadata, rec: &RawRecord<'_>) {
        self.0.record(rec);
    }
    fn error(&mut self, e: Error) {
        self.0.error(&e);
    }
}

fn files(root: &std::path::Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for set in ["gen", "bigendian"] {
        for e in std::fs::read_dir(root.join("corpus").join(set))
            .into_iter()
            .flatten()
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "data") && e.path().is_file() {
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
            if e.path().is_file() && !e.file_name().to_string_lossy().ends_with(".md") {
                paths.push(e.path());
            }
        }
    }
    paths.sort();
    paths
}

/// The facts a header-only read must already have right.
fn header_facts(s: &Summary) -> impl PartialEq + std::fmt::Debug + '_ {
    let events: Vec<(u32, u64, &str, usize)> = s
        .events
        .iter()
        .map(|e| (e.type_, e.config, e.sample_type.as_str(), e.ids))
        .collect();
    (
        (
            s.file_size,
            &s.byte_order,
            s.pipe_mode,
            s.header_size,
            s.attr_size,
            s.data_offset,
            s.data_size,
        ),
        (
            &s.hostname,
            &s.os_release,
            &s.perf_version,
            &s.arch,
            s.nr_cpus_online,
            &s.cmdline,
            &s.cpu_topology,
        ),
        events,
        // A pipe stream's errors come with its records.
        if s.pipe_mode { &None } else { &s.error },
    )
}

#[test]
fn streamed_summary_equals_the_whole_file_summary_on_every_corpus_file() {
    let Some(root) = common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let paths = files(&root);
    assert!(
        paths.len() > 40,
        "corpus found but only {} files",
        paths.len()
    );
    let mut pipes = 0;
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let whole = Summary::from_bytes(&bytes);
        pipes += usize::from(whole.pipe_mode);
        for chunk in [4093usize, 1 << 24] {
            let mut r = Slices {
                bytes: &bytes,
                read: 0,
            };
            let mut reader = SummaryReader::read_from(&mut r, chunk);
            let first = reader.summary();
            assert_eq!(
                header_facts(&first),
                header_facts(&whole),
                "{} (chunk {chunk}): header-only summary",
                path.display()
            );
            if !whole.pipe_mode && bytes.len() > 1 << 20 {
                // Header, attrs and features only: far less than the file.
                assert!(
                    r.read < bytes.len() as u64 / 2,
                    "{}: read {} of {} bytes for the summary",
                    path.display(),
                    r.read,
                    bytes.len()
                );
            }
            let mut r = Slices {
                bytes: &bytes,
                read: 0,
            };
            let _ = stream_records(&mut r, &mut [], chunk, &mut Feed(&mut reader), |_, _| {});
            assert_eq!(
                reader.summary(),
                whole,
                "{} (chunk {chunk}): after the records",
                path.display()
            );
        }
    }
    assert!(pipes >= 2, "only {pipes} pipe-mode files");
}
