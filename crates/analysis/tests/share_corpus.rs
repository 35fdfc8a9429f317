//! Every corpus recording (gen, bigendian, public) loaded, written as a share file and read
//! back: every sample with its time, thread, CPU, event, period and whole stack (names, modules,
//! build ids, addresses) is the same, and so is the header summary. Skips without the corpus.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use perfscope_analysis::export::share::{from_share, to_share, ShareOptions};
use perfscope_analysis::load::{load_profile, LoadOptions};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::summary::Summary;

/// Each sample spelled out as text, independent of table order.
fn dump(p: &Profile) -> Vec<String> {
    (0..p.samples.len())
        .map(|i| {
            let s = p.samples.get(i).unwrap();
            let t = p.threads.get(s.thread).unwrap();
            let mut line = format!(
                "{} {}/{} {} cpu{} {} {}",
                s.time,
                t.pid,
                t.tid,
                p.strings.get(t.name),
                s.cpu,
                p.event_name(s.event),
                s.period
            );
            for f in p.stacks.frames_leaf_first(s.stack) {
                let fr = p.frames.get(f).unwrap();
                let m = fr.module.and_then(|m| p.modules.get(m));
                let func = p.funcs.get(fr.func).unwrap();
                line.push_str(&format!(
                    " | {} [{:?}] {:?} {:?} {:#x} {}",
                    p.strings.get(func.name),
                    func.module
                        .map(|m| p.strings.get(p.modules.get(m).unwrap().path)),
                    m.map(|m| p.strings.get(m.path)),
                    m.and_then(|m| m.build_id.clone()),
                    fr.address,
                    fr.inline_depth
                ));
            }
            line
        })
        .collect()
}

#[test]
fn every_corpus_file_round_trips_through_a_share_file() {
    let Some(shared) = common::shared() else {
        eprintln!("every_corpus_file_round_trips_through_a_share_file: skipped: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let (mut checked, mut samples, mut in_bytes, mut out_bytes) = (0, 0, 0, 0);
    for (path, _, _) in common::corpus_files(&shared) {
        let data = common::read_input(&path);
        let extra: Vec<Vec<u8>> = if path.is_dir() {
            let mut parts: Vec<(u32, Vec<u8>)> = std::fs::read_dir(&path)
                .unwrap()
                .flatten()
                .filter_map(|e| {
                    let n = e
                        .file_name()
                        .to_str()?
                        .strip_prefix("data.")?
                        .parse()
                        .ok()?;
                    Some((n, std::fs::read(e.path()).unwrap()))
                })
                .collect();
            parts.sort();
            parts.into_iter().map(|(_, b)| b).collect()
        } else {
            Vec::new()
        };
        let extra_refs: Vec<&[u8]> = extra.iter().map(Vec::as_slice).collect();
        let Ok((p, _)) = load_profile(&data, &extra_refs, LoadOptions::default()) else {
            continue;
        };
        let summary = Summary::from_bytes(&data);
        let bytes = to_share(&p, Some(&summary), &ShareOptions::default());
        let back = from_share(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(dump(&back.profile), dump(&p), "{}", path.display());
        assert_eq!(back.summary.as_ref(), Some(&summary), "{}", path.display());
        checked += 1;
        samples += p.samples.len();
        in_bytes += data.len() + extra.iter().map(Vec::len).sum::<usize>();
        out_bytes += bytes.len();
    }
    eprintln!("{checked} files, {samples} samples: {in_bytes} bytes of perf.data, {out_bytes} bytes of share files");
    assert!(checked > 50, "only {checked} corpus files loaded");
}
