//! Opening a share file (`perfscope_analysis::export::share`) as a session: the profile comes
//! with its names resolved, so no symbol files are needed; there are no records to list.

use perfscope_analysis::export::share::SharedProfile;
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::load::LoadDiagnostics;
use perfscope_analysis::summary::{EventSummary, Summary};

use super::records_index::RecordIndex;
use super::source::VecSource;
use super::timeline::Timeline;
use super::{EventMap, Session, SLICE};
use crate::protocol::Timings;

/// The header facts shown for a share file: the recording's (as scrubbed when it was shared),
/// or, when it carried none, its events by name.
pub fn share_summary(shared: &SharedProfile, file_size: u64) -> Summary {
    let mut summary = shared.summary.clone().unwrap_or_else(|| Summary {
        byte_order: "little".into(),
        events: (0..shared.profile.events.len())
            .map(|i| EventSummary {
                name: shared.profile.event_name(EventIndex(i as u32)).to_string(),
                ..EventSummary::default()
            })
            .collect(),
        ..Summary::default()
    });
    summary.file_size = file_size;
    summary.error = None;
    summary.warnings.push(format!(
        "a Perfscope share file written by {}: names are resolved; records are not included",
        shared.exporter
    ));
    summary
}

impl Session {
    /// A session over a share file read into `shared` (`data` is its bytes).
    pub fn open_share(
        data: Vec<u8>,
        shared: SharedProfile,
        summary: Summary,
        timings: Timings,
    ) -> Session {
        let mut s = Session {
            source: Box::new(VecSource(data)),
            slice: SLICE,
            summary,
            meta: None,
            index: RecordIndex::default(),
            symbol_files: Vec::new(),
            symbol_infos: Vec::new(),
            unknown_names: perfscope_analysis::builder::UnknownNames::Module,
            profile: shared.profile,
            off_cpu: Default::default(),
            diagnostics: LoadDiagnostics::default(),
            events: EventMap::default(),
            timeline: Timeline::default(),
            generation: 1,
            profile_error: None,
            timings,
            records_cache: None,
            tree_cache: super::tree::TreeCache::default(),
            func_marks: None,
        };
        s.finish_profile(None);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Filter, Query, WeightKind, WorkerMessage};
    use perfscope_analysis::export::share::{from_share, to_share, ShareOptions};
    use perfscope_analysis::text_samples::profile_from_text_samples;

    #[test]
    fn a_shared_recording_keeps_its_call_chain_flag() {
        let data = std::fs::read(format!(
            "{}/../tests/data/example.data",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let original = Session::open_bytes(data, SLICE);
        assert!(original.overview().events[0].callchain);
        let bytes = to_share(
            original.profile(),
            Some(original.summary()),
            &ShareOptions::default(),
        );
        let shared = from_share(&bytes).unwrap();
        let summary = share_summary(&shared, bytes.len() as u64);
        let s = Session::open_share(bytes, shared, summary, Timings::default());
        let o = s.overview();
        assert!(o.events[0].callchain);
        assert!(
            !o.reasons.iter().any(|r| r.code == "no-callchains"),
            "{:?}",
            o.reasons
        );
        assert_eq!(o.samples, original.overview().samples);
    }

    #[test]
    fn a_share_file_opens_with_its_names_and_tree() {
        let p = profile_from_text_samples(
            "
main main main
work work idle
",
        )
        .unwrap();
        let bytes = to_share(&p, None, &ShareOptions::default());
        let shared = from_share(&bytes).unwrap();
        let summary = share_summary(&shared, bytes.len() as u64);
        let mut s = Session::open_share(bytes, shared, summary, Timings::default());
        let data = s.profile_data();
        assert_eq!(data.overview.samples, 3);
        let names: Vec<&str> = data
            .func_name
            .iter()
            .map(|&n| data.strings.get(n))
            .collect();
        assert!(
            names.contains(&"work") && names.contains(&"idle"),
            "{names:?}"
        );
        match s.query(
            1,
            Query::Tree {
                filter: Filter::default(),
                inverted: false,
                weight: WeightKind::Samples,
                root: vec![],
                detail: 0,
                by_command: false,
            },
        ) {
            WorkerMessage::Tree(_, t) => assert_eq!(t.meta.samples, 3),
            other => panic!("{other:?}"),
        }
    }
}
