//! The session over a file read in slices against the whole-file readers (`walk` for the
//! records, `load_profile` for the profile) on every corpus file: the same records (type,
//! time, offset), the same record counts, the same fields shown for rows (those inside
//! COMPRESSED records included), the same samples. Skips with a message without the corpus.

use std::path::PathBuf;

use perfscope_analysis::load::load_profile;
use perfscope_format::walk::{walk, Item};

use super::record_fields::{describe, who};
use super::records_index::{MAX_ERRORS, NONE32};
use super::*;

/// The shared corpus folder (`PERFSCOPE_SHARED`, else `../shared`), if there.
pub(super) fn shared() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PERFSCOPE_SHARED") {
        return Some(PathBuf::from(p));
    }
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    p.is_dir().then_some(p)
}

/// Every recording of the shared corpus, or none without it.
pub(super) fn corpus_files_if_present() -> Vec<PathBuf> {
    shared().map(|root| corpus_files(&root)).unwrap_or_default()
}

fn corpus_files(root: &std::path::Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for set in ["corpus/gen", "corpus/bigendian"] {
        for e in std::fs::read_dir(root.join(set))
            .into_iter()
            .flatten()
            .flatten()
        {
            if e.path().is_file() && e.path().extension().is_some_and(|x| x == "data") {
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

/// Per record of the whole-file walk: (type, time, offset, fields as shown, (cpu, pid, tid),
/// compressed).
pub(super) type Walked = (u32, u64, u64, String, (u32, u32, u32), bool);

pub(super) fn walked(data: &[u8]) -> Option<Vec<Walked>> {
    let mut rows = Vec::new();
    walk(data, &[], |meta, _, item| {
        if let Item::Record(raw) = item {
            let (time, text, w) = match meta.parse(raw) {
                Ok(rec) => {
                    let w = who(&rec);
                    (
                        rec.time().unwrap_or(u64::MAX),
                        describe(&rec, |e| format!("ev{e}")),
                        (
                            w.cpu.unwrap_or(NONE32),
                            w.pid.unwrap_or(NONE32),
                            w.tid.unwrap_or(NONE32),
                        ),
                    )
                }
                Err(e) => (u64::MAX, format!("error: {e}"), (NONE32, NONE32, NONE32)),
            };
            rows.push((
                raw.type_().0,
                time,
                raw.offset,
                text,
                w,
                raw.inner_offset.is_some(),
            ));
        }
    })
    .ok()?;
    Some(rows)
}

fn open_bytes(data: Vec<u8>, slice: usize) -> Session {
    Session::open_bytes(data, slice)
}

#[test]
fn sliced_sessions_equal_the_whole_file_readers_on_every_corpus_file() {
    let Some(root) = shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let files = corpus_files(&root);
    assert!(
        files.len() > 40,
        "corpus found but only {} files",
        files.len()
    );
    let (mut compressed_rows, mut with_samples, mut rows_steps) = (0, 0, 0);
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let name = path.display();
        let whole_summary = Summary::from_bytes(&data);
        let whole_samples = load_profile(&data, &[], load_options(None, UnknownNames::Module))
            .map(|(p, _)| p.samples.len())
            .unwrap_or(0);
        with_samples += usize::from(whole_samples > 0);
        let rows = walked(&data);
        for slice in [4093, SLICE] {
            let mut s = open_bytes(data.clone(), slice);
            assert_eq!(s.summary, whole_summary, "{name} (slice {slice}): summary");
            assert_eq!(
                s.profile.samples.len(),
                whole_samples,
                "{name} (slice {slice}): samples"
            );
            let Some(rows) = &rows else {
                assert!(
                    s.meta.is_none(),
                    "{name}: the walk failed but the session read the header"
                );
                continue;
            };
            assert_eq!(s.index.len(), rows.len(), "{name} (slice {slice}): records");
            // The pass counted and checked every record but the samples, without rows, and
            // the profile loader decoded the samples: the counts and errors are what a full
            // index (every record checked in file order) has.
            let (full, _) =
                RecordIndex::build(&mut source::VecSource(data.clone()), slice, &mut |_, _| {})
                    .unwrap();
            assert!(!s.index.has_rows(), "{name}: rows made in the pass");
            let ix = &s.index;
            assert_eq!(ix.counts(), full.counts(), "{name} (slice {slice}): counts");
            assert_eq!(ix.lost, full.lost, "{name} (slice {slice}): lost");
            assert_eq!(ix.mapped, full.mapped, "{name} (slice {slice}): mapped");
            assert_eq!(ix.errors, full.errors, "{name} (slice {slice}): errors");
            assert_eq!(
                ix.error_count, full.error_count,
                "{name} (slice {slice}): error count"
            );
            // The rows are made later: a slice at a time (as the worker makes them between its
            // requests), or all at once (a records query that comes first).
            if slice == SLICE {
                s.ensure_rows();
            } else {
                while !s.rows_step() {
                    rows_steps += 1;
                    assert!(!s.has_rows());
                }
            }
            assert!(s.has_rows());
            let ix = &s.index;
            let got: Vec<_> = ix.rows().collect();
            assert_eq!(
                got.iter().map(|r| r.type_).collect::<Vec<_>>(),
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
                "{name}: types"
            );
            assert_eq!(
                got.iter().map(|r| r.time).collect::<Vec<_>>(),
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
                "{name}: times"
            );
            assert_eq!(
                got.iter().map(|r| r.offset).collect::<Vec<_>>(),
                rows.iter().map(|r| r.2).collect::<Vec<_>>(),
                "{name}: offsets"
            );
            assert_eq!(
                got.iter()
                    .map(|r| (r.cpu, r.pid, r.tid))
                    .collect::<Vec<_>>(),
                rows.iter().map(|r| r.4).collect::<Vec<_>>(),
                "{name}: cpu, pid, tid"
            );
            assert_eq!(
                got.iter().map(|r| r.inner != NONE32).collect::<Vec<_>>(),
                rows.iter().map(|r| r.5).collect::<Vec<_>>(),
                "{name}: compressed"
            );
            let mut counts = std::collections::BTreeMap::new();
            rows.iter()
                .for_each(|r| *counts.entry(r.0).or_insert(0u64) += 1);
            assert_eq!(ix.counts(), counts, "{name}: counts");
            // Rows shown: the first ones, some spread over the file, every 7th compressed one.
            let n = rows.len() as u32;
            let mut shown: Vec<u32> = (0..n.min(200))
                .chain((0..n).step_by((n as usize / 100).max(1)))
                .collect();
            let compressed: Vec<u32> = (0..n)
                .filter(|&i| got[i as usize].inner != NONE32)
                .step_by(7)
                .collect();
            compressed_rows += compressed.len();
            shown.extend(compressed);
            let meta = s.meta.clone().unwrap();
            let texts = s
                .index
                .describe_rows(s.source.as_mut(), &meta, &shown, &|e| format!("ev{e}"));
            for (row, text) in shown.iter().zip(&texts) {
                assert_eq!(
                    text, &rows[*row as usize].3,
                    "{name} (slice {slice}): row {row}"
                );
            }
            // Paging through every compressed row as the Records tab does: pages of 60 in
            // order, then one page back and the first again. Each as the walk says; the pages
            // in order take at most one walk over the file (from the first one the decoder
            // cannot reach alone), not one a page.
            let all_z: Vec<u32> = (0..n)
                .filter(|&i| got[i as usize].inner != NONE32)
                .collect();
            let pages: Vec<&[u32]> = all_z.chunks(60).collect();
            // (Walks of 512 bytes a read, 40 rows kept after one: the pages go past them.)
            s.index.set_walk(512, 40);
            let before = s.index.walks_started();
            let back = pages.len().saturating_sub(2);
            for (k, page) in pages
                .iter()
                .chain([pages.get(back), pages.first()].into_iter().flatten())
                .enumerate()
            {
                let texts = s
                    .index
                    .describe_rows(s.source.as_mut(), &meta, page, &|e| format!("ev{e}"));
                for (row, text) in page.iter().zip(&texts) {
                    assert_eq!(
                        text, &rows[*row as usize].3,
                        "{name} (slice {slice}): page {k}, row {row}"
                    );
                }
                if k + 1 == pages.len() {
                    assert!(
                        s.index.walks_started() - before <= 1,
                        "{name}: {} walks for {} pages in order",
                        s.index.walks_started() - before,
                        pages.len()
                    );
                }
            }
        }
    }
    assert!(with_samples > 20, "{with_samples} files with samples");
    assert!(rows_steps > 1000, "rows made in {rows_steps} steps");
    assert!(
        compressed_rows > 100,
        "only {compressed_rows} compressed rows checked"
    );
}

/// Previews made between slices name each node's function as the profile read so far does, and
/// cover more samples as more of the file is read; after the last slice, with every sample
/// taken, the root widths add up to the samples with a stack (of the first event: the file has
/// several). dwarf.data's rounds end all along the file, so samples reach the profile before
/// the pass ends (in a file of one round they all wait in the time-order queue to the end).
#[test]
fn previews_between_slices_name_the_profile_read_so_far() {
    let Some(root) = shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let data = std::fs::read(root.join("corpus/gen/dwarf.data")).unwrap();
    let total = data.len() as f64;
    let mut source = source::VecSource(data);
    let summary = SummaryReader::read_from(&mut source, 4093);
    let mut opening = Session::begin(
        Box::new(source),
        summary,
        Vec::new(),
        perfscope_analysis::builder::UnknownNames::Module,
        4093,
        &|| 0.0,
        Timings::default(),
    );
    let (mut previews, mut last_seen) = (0, 0);
    while let Some((at, size)) = opening.next_slice() {
        opening.push_from_source(at, size);
        let reply = opening.preview(usize::MAX, u64::MAX);
        let profile = opening.pass.loader.profile();
        let v = perfscope_analysis::preview::preview(profile, usize::MAX, u64::MAX);
        assert_eq!(reply.func.len(), v.nodes.len());
        for (i, n) in v.nodes.iter().enumerate() {
            let f = reply.func[i] as usize;
            assert_eq!(reply.names[f], profile.func_name(n.func), "node {i}");
            assert_eq!(
                (reply.depth[i], reply.x[i], reply.width[i]),
                (n.depth, n.x as f64, n.width as f64)
            );
            assert_eq!(reply.parent[i], n.parent.unwrap_or(u32::MAX));
        }
        assert!(reply.seen >= last_seen, "a later preview has fewer samples");
        assert_eq!(reply.total, total);
        last_seen = reply.seen;
        previews += usize::from(reply.taken > 0);
    }
    let session = opening.finish(&mut |_| {}, &|| 0.0);
    let all = perfscope_analysis::preview::preview(&session.profile, usize::MAX, u64::MAX);
    let samples = &session.profile.samples;
    let with_stack = (0..samples.len())
        .filter(|&i| samples.stack(i).flatten().is_some())
        .filter(|&i| all.event.is_none() || samples.event(i) == all.event)
        .count() as u64;
    assert_eq!(all.taken, with_stack);
    let roots: u64 = all
        .nodes
        .iter()
        .filter(|n| n.depth == 0)
        .map(|n| n.width)
        .sum();
    assert_eq!(roots, with_stack);
    assert!(previews > 5, "only {previews} previews had samples");
    assert!(last_seen <= with_stack && last_seen > 0);
}

/// A session whose later samples' stacks another worker made ([`Opening::share_stacks`]):
/// with its stacks, the profile is the one a single pass makes (every sample's thread, time and
/// folded stack); without them (the worker failed), the profile is built again and is that one
/// too. tests/data/example.data, read in small slices, cut at a third of its records.
#[test]
fn stacks_made_by_a_second_worker_or_built_again_give_the_single_pass_profile() {
    let data =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/example.data"))
            .unwrap();
    let names = perfscope_analysis::builder::UnknownNames::Module;
    let lines = sample_lines;
    let single = lines(&open_bytes(data.clone(), 4093));
    let open = |part: Option<Result<SentPart, String>>| {
        let mut source = source::VecSource(data.clone());
        let summary = SummaryReader::read_from(&mut source, 4093);
        let mut opening = Session::begin(
            Box::new(source),
            summary,
            Vec::new(),
            names,
            4093,
            &|| 0.0,
            Timings::default(),
        );
        let cut = opening.stack_cut(1.0 / 3.0).expect("a file that allows it");
        opening.share_stacks(cut);
        while let Some((at, size)) = opening.next_slice() {
            opening.push_from_source(at, size);
        }
        let part = part.unwrap_or_else(|| {
            let mut source = source::VecSource(data.clone());
            stacks_part(&mut source, opening.slice(), names, cut).map(SentPart::from)
        });
        opening.set_part(part);
        opening.finish(&mut |_| {}, &|| 0.0)
    };
    let helped = open(None);
    assert_eq!(helped.timings.helper, StackHelper::Used);
    assert_eq!(lines(&helped), single);
    let failed = open(Some(Err("the second worker failed".into())));
    assert_eq!(failed.timings.helper, StackHelper::Failed);
    assert_eq!(lines(&failed), single);
    // Stacks that do not match (another file's): the same.
    let other =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/threads.data"))
            .unwrap();
    let mut source = source::VecSource(other);
    let wrong = stacks_part(&mut source, 4093, names, 0).map(SentPart::from);
    let mismatched = open(Some(wrong));
    assert_eq!(mismatched.timings.helper, StackHelper::Failed);
    assert_eq!(lines(&mismatched), single);
}

/// Samples that frame but cannot be decoded (their callchain says it is longer than the
/// record): the pass's tally leaves them to the profile loader, and the index ends with the
/// errors that a full index, checking every record in file order, meets — the same messages,
/// offsets and records before each, in file order although the loader met them in time order.
#[test]
fn samples_that_cannot_be_decoded_are_the_errors_a_full_index_meets() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/example.data");
    let mut data = std::fs::read(path).unwrap();
    // Where each sample's callchain length is (right after its fixed fields).
    let mut nr_at = Vec::new();
    walk(&data, &[], |meta, _, item| {
        if let Item::Record(raw) = item {
            let layout = meta.events.layout(perfscope_format::EventIndex(0));
            if raw.type_() == perfscope_format::RecordType::SAMPLE {
                if let Some(l) = layout.filter(|l| l.sample_type & (1 << 5) != 0) {
                    nr_at.push(raw.offset as usize + 8 + l.fixed_size);
                }
            }
        }
    })
    .unwrap();
    assert!(nr_at.len() > 500, "{} samples with callchains", nr_at.len());
    // Every 7th sample: 2^32 entries (little-endian), far more than the record holds.
    let broken: Vec<usize> = nr_at.iter().copied().step_by(7).collect();
    for &at in &broken {
        data[at..at + 8].copy_from_slice(&(1u64 << 32).to_le_bytes());
    }
    let (full, _) =
        RecordIndex::build(&mut source::VecSource(data.clone()), SLICE, &mut |_, _| {}).unwrap();
    assert_eq!(full.error_count, broken.len() as u64);
    assert_eq!(full.errors.len(), broken.len().min(MAX_ERRORS));
    for slice in [4093, SLICE] {
        let s = open_bytes(data.clone(), slice);
        assert_eq!(s.index.errors, full.errors, "slice {slice}");
        assert_eq!(s.index.error_count, full.error_count, "slice {slice}");
        assert_eq!(s.index.counts(), full.counts(), "slice {slice}");
        // The samples that were read are in the profile.
        let whole = load_profile(&data, &[], load_options(None, UnknownNames::Module))
            .unwrap()
            .0;
        assert_eq!(s.profile.samples.len(), whole.samples.len());
        assert_eq!(
            whole.samples.len() + broken.len(),
            full.counts()[&9] as usize,
            "every sample but the broken ones"
        );
    }
    // Each error names the broken record: the records before it are its row number.
    let rows: Vec<_> = full.rows().collect();
    for (e, &at) in full.errors.iter().zip(&broken) {
        let i = e.records_before as usize;
        let (row, next) = (
            rows[i],
            rows.get(i + 1).map_or(usize::MAX, |r| r.offset as usize),
        );
        assert_eq!(row.type_, 9, "{e:?}");
        assert!(
            (row.offset as usize) < at && at < next,
            "{e:?}: the length at {at:#x}"
        );
    }
}

/// Each sample as "time thread frames", sorted.
fn sample_lines(s: &Session) -> Vec<String> {
    let p = &s.profile;
    let mut out: Vec<String> = (0..p.samples.len())
        .map(|i| {
            let x = p.samples.get(i).unwrap();
            let mut frames = Vec::new();
            let mut at = x.stack;
            while let Some(st) = at.and_then(|k| p.stacks.get(k)) {
                frames.push(p.func_name(p.frame_func(st.frame).unwrap()).to_string());
                at = st.prefix;
            }
            frames.reverse();
            format!(
                "{} {} {}",
                x.time,
                p.thread_name(x.thread),
                frames.join(";")
            )
        })
        .collect();
    out.sort();
    out
}

/// `data` opened as the worker opens a compressed file with an inflater: each slice's
/// compressed records decompressed by another stream (an inflater's) and supplied before the
/// slice is pushed; from slice `fail_at` on (if any), decompressed by the pass itself
/// (`Opening::inflate_here`, the inflater having failed).
fn open_inflated(data: &[u8], slice: usize, fail_at: Option<usize>) -> Session {
    let mut opening = begin_bytes(data, slice);
    // What the worker's inflater does (`inflate` in crate::worker).
    let (start, end, endian) = opening.compressed_records().unwrap();
    let slices = crate::inflater::slices(start, end, opening.slice());
    assert_eq!(slices, opening.slices());
    let mut inflater =
        crate::inflater::decoder(start, endian == perfscope_format::Endianness::Big, false);
    for (k, &(at, size)) in slices.iter().enumerate() {
        if fail_at.is_some_and(|f| k >= f) {
            if Some(k) == fail_at {
                opening.inflate_here();
            }
            opening.push_from_source(at, size);
        } else {
            let bytes = &data[at as usize..at as usize + size];
            inflater.push(bytes);
            while inflater.next_record().is_some() {}
            // (Copied out and cleared, as the worker's inflater sends them.)
            opening.supply_inflated(inflater.inflated().cloned().unwrap());
            inflater.clear_inflated();
            opening.push(size, |out| {
                out.copy_from_slice(bytes);
                Ok(())
            });
        }
    }
    assert!(opening.next_slice().is_none());
    opening.finish(&mut |_| {}, &|| 0.0)
}

/// A compressed file whose records another worker decompressed (the worker's inflater), also
/// when it failed part of the way, gives the session of a pass that decompressed them itself:
/// the same summary, record counts and errors, samples and stacks.
#[test]
fn records_decompressed_by_another_worker_give_the_same_session() {
    let Some(root) = shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let mut checked = 0;
    for path in corpus_files(&root) {
        let data = std::fs::read(&path).unwrap();
        let name = path.display();
        let mut source = source::VecSource(data.clone());
        let summary = SummaryReader::read_from(&mut source, 4093);
        if summary.compressed().is_none() {
            continue;
        }
        let Ok(stream) = RecordStream::open(&mut source, 4093, &mut IgnoreRecords) else {
            continue;
        };
        if stream.file_records().is_none() {
            continue;
        }
        let slices = stream.slices().count();
        for slice in [4093, SLICE] {
            let want = open_bytes(data.clone(), slice);
            for fail_at in [None, Some(slices / 3), Some(0)] {
                let got = open_inflated(&data, slice, fail_at);
                let what = format!("{name} (slice {slice}, inflater failed at {fail_at:?})");
                assert_eq!(got.summary, want.summary, "{what}: summary");
                assert_eq!(got.index.counts(), want.index.counts(), "{what}: counts");
                assert_eq!(got.index.errors, want.index.errors, "{what}: errors");
                assert_eq!(got.index.lost, want.index.lost, "{what}: lost");
                assert_eq!(sample_lines(&got), sample_lines(&want), "{what}: samples");
            }
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} compressed files");
}

/// The inflater's warm-up decompresses the bundled recording's records: perf said "original
/// 0.113 MB" when it wrote them (tests/data/compressed.cmd).
#[test]
fn the_inflaters_warm_up_decompresses_the_bundled_recording() {
    let n = crate::inflater::warm_up();
    assert!((100_000..130_000).contains(&n), "{n} bytes");
}
