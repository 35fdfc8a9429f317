//! Opening text input: `perf script` output or folded stacks, imported with
//! `perfscope_analysis::import` into the same [`Profile`] a perf.data gives. There are no
//! records, no header and nothing to symbolize: the session holds the profile, a summary that
//! names its events, and the timeline of its samples (perf script text has times).

use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::import::{detect, import_text, TextKind};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::summary::{EventSummary, Summary};

use super::records_index::RecordIndex;
use super::timeline::Timeline;
use super::{EventMap, Session};
use crate::protocol::Timings;

/// The summary of an imported text: its size, one event per profile event (named as the text
/// names them), and a warning for skipped lines. Everything a perf.data header would tell is
/// absent.
pub fn summary_stub(
    kind: TextKind,
    size: usize,
    profile: &Profile,
    skipped: Option<(usize, usize)>,
) -> Summary {
    let events = (0..profile.events.len())
        .map(|i| EventSummary {
            name: profile.event_name(EventIndex(i as u32)).to_owned(),
            name_source: kind.name().to_owned(),
            ..EventSummary::default()
        })
        .collect();
    let warnings = skipped
        .map(|(n, first)| {
            format!(
                "{n} lines that are no {} were skipped (the first: line {first})",
                kind.name()
            )
        })
        .into_iter()
        .collect();
    Summary {
        file_size: size as u64,
        events,
        warnings,
        ..Summary::default()
    }
}

impl Session {
    /// Opens an already built profile (from text input) with `summary` describing it.
    pub fn open_profile(profile: Profile, summary: Summary, timings: Timings) -> Session {
        let events = EventMap::new(&summary, &profile);
        let timeline = Timeline::new(&profile, &events);
        Session {
            source: Box::new(super::source::VecSource(Vec::new())),
            slice: super::SLICE,
            summary,
            meta: None,
            index: RecordIndex::default(),
            symbol_files: Vec::new(),
            symbol_infos: Vec::new(),
            unknown_names: perfscope_analysis::builder::UnknownNames::Module,
            profile,
            off_cpu: Default::default(),
            diagnostics: Default::default(),
            events,
            timeline,
            generation: 1,
            profile_error: None,
            timings,
            records_cache: None,
            tree_cache: super::tree::TreeCache::default(),
            func_marks: None,
        }
    }

    /// `None` when `data` is not perf script text or folded stacks; else the session, or why
    /// the text could not be read (naming the line).
    pub fn open_text(
        data: &[u8],
        now: &dyn Fn() -> f64,
        mut timings: Timings,
    ) -> Option<Result<Session, String>> {
        let kind = detect(data)?;
        let t0 = now();
        let imported = match import_text(data) {
            Ok(i) => i,
            Err(e) => return Some(Err(format!("{}: {e}", kind.name()))),
        };
        let skipped = imported
            .first_skipped
            .map(|first| (imported.skipped_lines, first));
        let summary = summary_stub(kind, data.len(), &imported.profile, skipped);
        timings.profile_ms = now() - t0;
        Some(Ok(Session::open_profile(
            imported.profile,
            summary,
            timings,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Filter, Query, WeightKind, WorkerMessage};

    const SCRIPT: &str = "\
mt 10/11 [001]  1.000000500:     250000 cpu-clock:pppH: 
\t           15389 leaf (/bin/mt)
\t           15300 main (/bin/mt)

mt 10/12 [000]  1.000002000:     250000 cpu-clock:pppH: 
\t           15300 main (/bin/mt)

";

    fn tree_total(s: &mut Session) -> f64 {
        tree_total_by(s, false)
    }

    /// The tree's width, and with `by_command` the summed widths of its roots.
    fn tree_total_by(s: &mut Session, by_command: bool) -> f64 {
        let q = Query::Tree {
            filter: Filter {
                range: None,
                event: None,
                threads: vec![],
                off_cpu: false,
            },
            inverted: false,
            weight: WeightKind::Samples,
            root: vec![],
            detail: 0,
            by_command,
        };
        match s.query(1, q) {
            WorkerMessage::Tree(_, t) if by_command => t.meta.total,
            WorkerMessage::Tree(_, t) => t.meta.samples as f64,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn perf_script_text_opens_with_its_samples() {
        let mut s = Session::open_text(SCRIPT.as_bytes(), &|| 0.0, Timings::default())
            .unwrap()
            .unwrap();
        assert_eq!(s.profile().samples.len(), 2);
        assert_eq!(s.summary().events.len(), 1);
        assert_eq!(s.summary().events[0].name, "cpu-clock:pppH");
        assert_eq!(s.profile_data().overview.samples, 2);
        assert_eq!(tree_total(&mut s), 2.0);
        // A root per command holds every sample with frames.
        assert_eq!(tree_total_by(&mut s, true), 2.0);
        // Two-frame stacks: the event has call chains (no "recorded without -g" reason).
        assert!(s.profile_data().overview.events[0].callchain);
        let flat = Session::open_text(
            b"mt 1/1 1.5: 1 cpu-clock: 10 main (/bin/mt)\n",
            &|| 0.0,
            Timings::default(),
        )
        .unwrap()
        .unwrap();
        assert!(!flat.profile_data().overview.events[0].callchain);
    }

    #[test]
    fn folded_text_opens_with_its_counts() {
        let mut s = Session::open_text(b"a;main;f 3\nb;main 4\n", &|| 0.0, Timings::default())
            .unwrap()
            .unwrap();
        assert_eq!(s.profile_data().overview.samples, 7);
        assert_eq!(tree_total(&mut s), 7.0);
        assert_eq!(tree_total_by(&mut s, true), 7.0);
        // Each command of the text is one (their pids are unknown, not one process of all).
        let names: Vec<(String, u64)> = crate::selectors::commands(&s.profile_data().overview)
            .into_iter()
            .map(|c| (c.name, c.samples))
            .collect();
        assert_eq!(names, [("b".to_string(), 4), ("a".to_string(), 3)]);
        assert!(Session::open_text(b"PERFILE2", &|| 0.0, Timings::default()).is_none());
        let err = Session::open_text(b"a;b 1\na;c x\n", &|| 0.0, Timings::default());
        assert!(
            err.is_none() || err.is_some_and(|r| r.err().is_some_and(|e| e.contains("line 2")))
        );
    }
}
