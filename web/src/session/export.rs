//! The export query: the open profile's filtered samples as a share file, folded stacks, an SVG
//! flame graph, pprof or speedscope JSON, made in the worker and handed to the page as bytes
//! (which it downloads as a Blob). The same writers as `perfscope export`.

use perfscope_analysis::call_tree::CallTree;
use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::export::pprof::{period_unit, to_pprof, PeriodUnit, PprofOptions};
use perfscope_analysis::export::share::{to_share, PrivacyOptions, ShareOptions};
use perfscope_analysis::export::speedscope::{to_speedscope, SpeedscopeOptions};
use perfscope_analysis::export::svg::{to_svg, SvgOptions};
use perfscope_analysis::flame_graph::{FlameGraph, WeightKind as AnalysisWeight};
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::summary::Summary;

use super::{tree, Session};
use crate::protocol::{ExportFormat, ExportMeta, ExportReply, Filter, Privacy, WeightKind};

/// The analysis weight of a protocol weight.
pub fn analysis_weight(weight: WeightKind) -> AnalysisWeight {
    match weight {
        WeightKind::Samples => AnalysisWeight::Samples,
        WeightKind::Period => AnalysisWeight::Period,
    }
}

/// The download's name: `perf.data` → `perf.data.folded`; a share file's own extension is
/// not doubled.
pub fn file_name(name: &str, format: ExportFormat) -> String {
    let stem = name
        .strip_suffix(ExportFormat::Share.extension())
        .unwrap_or(name);
    let stem = if stem.is_empty() { "profile" } else { stem };
    format!("{stem}{}", format.extension())
}

/// `format` of the samples of `profile` that pass `filter`.
pub fn export(
    profile: &Profile,
    summary: Option<&Summary>,
    filter: SampleFilter,
    format: ExportFormat,
    weight: WeightKind,
    privacy: Privacy,
    name: &str,
) -> Result<ExportReply, String> {
    let weight = analysis_weight(weight);
    let bytes = match format {
        ExportFormat::Share => {
            let privacy = PrivacyOptions {
                strip_paths: privacy.strip_paths,
                strip_cmdline: privacy.strip_cmdline,
                strip_hostname: privacy.strip_hostname,
                strip_thread_names: privacy.strip_thread_names,
            };
            to_share(profile, summary, &ShareOptions { filter, privacy })
        }
        ExportFormat::Folded => to_folded_text(
            profile,
            &filter,
            FoldedOptions {
                include_comm: true,
                weight,
            },
        )
        .into_bytes(),
        ExportFormat::Svg => {
            let tree = CallTree::top_down(profile, &filter).map_err(|e| e.to_string())?;
            let graph = FlameGraph::from_call_tree(&tree, profile, weight);
            let unit = match (weight, period_unit(profile.event_name(EventIndex(0)))) {
                (AnalysisWeight::Samples, _) => "samples",
                (AnalysisWeight::Period, PeriodUnit::Nanoseconds) => "ns",
                (AnalysisWeight::Period, PeriodUnit::Count) => "events",
            };
            let options = SvgOptions {
                title: format!("Flame Graph: {name}"),
                unit: unit.into(),
                ..Default::default()
            };
            to_svg(&graph, profile, &options).into_bytes()
        }
        ExportFormat::Pprof => {
            let clock_data = summary.and_then(|s| s.clock_data.clone());
            to_pprof(
                profile,
                &PprofOptions {
                    filter,
                    clock_data,
                    ..Default::default()
                },
            )
        }
        ExportFormat::Speedscope => to_speedscope(
            profile,
            &SpeedscopeOptions {
                filter,
                weight,
                name: name.to_string(),
            },
        )
        .into_bytes(),
    };
    Ok(ExportReply {
        meta: ExportMeta {
            file_name: file_name(name, format),
            mime: format.mime().to_string(),
        },
        bytes,
    })
}

impl Session {
    /// The export query on the open profile (the view's filter applied).
    pub fn export(
        &self,
        format: ExportFormat,
        filter: &Filter,
        weight: WeightKind,
        privacy: Privacy,
        name: &str,
    ) -> Result<ExportReply, String> {
        let sf = tree::sample_filter(filter, &self.timeline, &self.events);
        let summary = (!self.summary.byte_order.is_empty()).then_some(&self.summary);
        export(&self.profile, summary, sf, format, weight, privacy, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_analysis::open::{open, Opened};
    use perfscope_analysis::text_samples::profile_from_text_samples;

    #[test]
    fn names_get_the_format_extension_once() {
        assert_eq!(
            file_name("perf.data", ExportFormat::Folded),
            "perf.data.folded"
        );
        assert_eq!(file_name("a.perfscope", ExportFormat::Share), "a.perfscope");
        assert_eq!(file_name("", ExportFormat::Pprof), "profile.pb.gz");
    }

    #[test]
    fn folded_and_share_exports_hold_the_stacks() {
        let p = profile_from_text_samples(
            "
main main
work idle
",
        )
        .unwrap();
        let folded = export(
            &p,
            None,
            SampleFilter::all(),
            ExportFormat::Folded,
            WeightKind::Samples,
            Privacy::default(),
            "x",
        )
        .unwrap();
        let text = String::from_utf8(folded.bytes).unwrap();
        // One line per distinct stack, root first (the comm comes first).
        assert_eq!(
            text.lines()
                .filter(|l| l.ends_with(";main;work 1") || l.ends_with(";main;idle 1"))
                .count(),
            2,
            "{text}"
        );
        let share = export(
            &p,
            None,
            SampleFilter::all(),
            ExportFormat::Share,
            WeightKind::Samples,
            Privacy::default(),
            "x",
        )
        .unwrap();
        let Ok(Opened::Share(back)) = open(&share.bytes) else {
            panic!("not a share file")
        };
        assert_eq!(back.profile.samples.len(), 2);
        assert_eq!(share.meta.file_name, "x.perfscope");
    }
}
