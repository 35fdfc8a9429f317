//! Sessions whose records another worker put in time order ([`OrderPass`] and
//! [`Opening::take_deliveries`]), and sessions where that worker failed half-way
//! ([`Opening::order_here`]), against sessions that ordered their records themselves: the same
//! profile, diagnostics, timeline, summary and record counts, on the test files and the corpus.

use super::source::VecSource;
use super::streamed_tests::corpus_files_if_present;
use super::*;

/// `data` opened in slices of `slice` bytes, its records ordered by an [`OrderPass`] reading
/// them in parts of `slice / parts` (until slice `fail_at`, from which on the session orders
/// them); `None` when the file cannot be ordered elsewhere. A compressed file's
/// records read in one part a slice are decompressed by a third stream, as the ordering
/// worker's inflater does (`order_records` in crate::worker), and supplied to the pass; in
/// smaller parts, by the pass itself.
fn open_ordered(
    data: &[u8],
    slice: usize,
    parts: usize,
    fail_at: Option<usize>,
) -> Option<Session> {
    let mut opening = begin_bytes(data, slice);
    if !opening.can_order_elsewhere() {
        return None;
    }
    let source = &mut VecSource(data.to_vec());
    let (slice, names) = (opening.slice(), UnknownNames::Module);
    // A compressed file or pipe stream in one part a slice as the worker opens it
    // (`OrderPass::open`).
    let pipe = opening.compressed_pipe();
    let compressed = opening.compressed_records().is_some() || pipe;
    let mut order = if compressed && parts == 1 {
        OrderPass::open(source, slice, names, pipe)
    } else {
        OrderPass::in_parts(source, slice, slice / parts, names)
    };
    assert_eq!(order.failure(), None);
    let mut inflater =
        order
            .compressed_records()
            .filter(|_| parts == 1)
            .map(|(start, end, endian)| {
                assert_eq!(
                    crate::inflater::slices(start, end, opening.slice()),
                    order.slices(),
                    "the inflater's slices"
                );
                crate::inflater::decoder(start, endian == perfscope_format::Endianness::Big, pipe)
            });
    opening.order_elsewhere();
    assert!(opening.ordered_elsewhere());
    let fill = |at: u64, out: &mut [u8]| {
        let at = at as usize;
        out.copy_from_slice(&data[at..at + out.len()]);
        Ok(())
    };
    let mut k = 0;
    while let Some((at, size)) = opening.next_slice() {
        if fail_at == Some(k) {
            opening.order_here();
            assert!(!opening.ordered_elsewhere());
        }
        if opening.ordered_elsewhere() {
            assert_eq!(order.next_slice(), Some((at, size)), "the same slices");
            // The worker has the slice's bytes only: each part lies inside it.
            let inside = |part: u64, out: &mut [u8]| {
                assert!(part >= at && part + out.len() as u64 <= at + size as u64);
                fill(part, out)
            };
            if let Some(inflater) = &mut inflater {
                inflater.push(&data[at as usize..at as usize + size]);
                while inflater.next_record().is_some() {}
                // (Copied out and cleared, as the inflater sends them.)
                order.supply_inflated(inflater.inflated().cloned().unwrap_or_default());
                inflater.clear_inflated();
            }
            let (ops, tally) = order.push(at, size, inside);
            let ops = ops.to_vec();
            // As the worker sends it.
            let tally = serde_json::to_string(&tally).unwrap();
            let tally = serde_json::from_str(&tally).unwrap();
            opening.take_ordered(size, &ops, &tally).unwrap();
        } else {
            opening.push(size, |out| fill(at, out));
        }
        k += 1;
    }
    Some(opening.finish(&mut |_| {}, &|| 0.0))
}

/// Whether `data` was ordered elsewhere (and gave what ordering here gives).
fn check(name: &str, data: &[u8], slice: usize) -> bool {
    let here = Session::open_bytes(data.to_vec(), slice);
    let slices = data.len().div_ceil(slice);
    let mut ordered = false;
    for (parts, fail_at) in [
        (1, None),
        (8, None),
        (1, Some(0)),
        (4, Some(1)),
        (1, Some(slices / 2)),
    ] {
        let Some(there) = open_ordered(data, slice, parts, fail_at) else {
            return false;
        };
        ordered = true;
        let what =
            format!("{name} (slices of {slice} in {parts} parts, ordering failed at {fail_at:?})");
        assert_eq!(
            format!("{:?}", here.profile),
            format!("{:?}", there.profile),
            "{what}: profile"
        );
        // Errors of the records' framing reach the records index, not the loader, when the
        // other worker framed them.
        let mut diagnostics = here.diagnostics.clone();
        if there.diagnostics.errors.len() < diagnostics.errors.len() {
            diagnostics
                .errors
                .retain(|e| there.diagnostics.errors.contains(e));
        }
        assert_eq!(diagnostics, there.diagnostics, "{what}: diagnostics");
        assert_eq!(
            format!("{:?}", here.timeline),
            format!("{:?}", there.timeline),
            "{what}: timeline"
        );
        assert_eq!(here.summary, there.summary, "{what}: summary");
        let (a, b) = (&here.index, &there.index);
        assert_eq!(a.counts(), b.counts(), "{what}: records");
        assert_eq!(a.record_counts(), b.record_counts(), "{what}: record names");
        assert_eq!(a.len(), b.len(), "{what}: record count");
        assert_eq!(a.lost, b.lost, "{what}: lost");
        assert_eq!(a.errors, b.errors, "{what}: errors");
        assert_eq!(a.error_count, b.error_count, "{what}: error count");
        assert_eq!(a.mapped, b.mapped, "{what}: mapped files");
        assert_eq!(here.profile_error, there.profile_error, "{what}: error");
    }
    ordered
}

#[test]
fn records_ordered_by_another_worker_give_the_same_session_on_the_test_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
    let mut ordered = Vec::new();
    for f in [
        "example.data",
        "threads.data",
        "switches.data",
        "heatmap.data",
        "two-events.data",
        "buildids.data",
        "pipe.data",
        "compressed.data",
        "compressed-pipe.data",
    ] {
        let data = std::fs::read(dir.join(f)).unwrap();
        // A compressed pipe stream's records are decompressed by a third stream (the
        // ordering worker's inflater) from its pipe header on, as a compressed file's are.
        let opening = begin_bytes(&data, 4096);
        assert_eq!(
            opening.compressed_pipe(),
            f == "compressed-pipe.data",
            "{f}"
        );
        if opening.compressed_pipe() {
            let order = OrderPass::open(
                &mut VecSource(data.clone()),
                opening.slice(),
                UnknownNames::Module,
                true,
            );
            assert_eq!(
                order.compressed_records(),
                Some((0, data.len() as u64, perfscope_format::Endianness::Little)),
            );
        }
        for slice in [4096, 32 << 10, 8 << 20] {
            if check(f, &data, slice) {
                ordered.push((f, slice));
            }
        }
    }
    // Every file, the pipe stream too, in every slice size.
    assert_eq!(ordered.len(), 27, "{ordered:?}");
    assert!(ordered.contains(&("compressed-pipe.data", 4096)));
    assert!(ordered.contains(&("compressed.data", 4096)));
    assert!(ordered.contains(&("pipe.data", 4096)));
}

#[test]
fn records_ordered_by_another_worker_give_the_same_session_on_the_corpus() {
    let files = corpus_files_if_present();
    if files.is_empty() {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    }
    let mut ordered = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        ordered += usize::from(check(&path.display().to_string(), &data, 64 << 10));
    }
    println!(
        "{ordered} of {} corpus files ordered elsewhere",
        files.len()
    );
    // Pipe streams too (144 of 151 files in the corpus of session 46; 105 without them).
    assert!(
        ordered > 130,
        "only {ordered} corpus files ordered elsewhere"
    );
}

/// Broken files ordered elsewhere: the errors the other worker's framing met reach the records
/// index as if this one had framed the records (message, offset, records before), in a later
/// slice than the first.
#[test]
fn errors_met_by_the_other_worker_reach_the_records_index() {
    use perfscope_format::walk::{walk, Item};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/example.data");
    let data = std::fs::read(path).unwrap();
    let mut offsets = Vec::new();
    walk(&data, &[], |_, _, item| {
        if let Item::Record(raw) = item {
            offsets.push(raw.offset as usize);
        }
    })
    .unwrap();
    assert!(offsets.len() > 500, "{} records", offsets.len());
    let middle = offsets[offsets.len() / 2];
    // A record that says it is smaller than its header: the records end there.
    let mut too_small = data.clone();
    too_small[middle + 6..middle + 8].copy_from_slice(&4u16.to_le_bytes());
    // The file cut inside that record.
    let cut = data[..middle + 20].to_vec();
    for (name, broken) in [("too small", too_small), ("cut", cut)] {
        for slice in [4096, 32 << 10] {
            assert!(middle > slice, "the error is after the first slice");
            assert!(check(name, &broken, slice), "{name}: ordered elsewhere");
            let there = open_ordered(&broken, slice, 1, None).unwrap();
            assert!(there.index.error_count > 0, "{name}: an error");
            // (The cut file's names where its bytes end.)
            let at = there.index.errors[0].offset as usize;
            assert!((middle..=middle + 20).contains(&at), "{name}: at {at}");
        }
    }
}
