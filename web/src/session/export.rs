//! The export query: the open profile's filtered samples as a share file, folded stacks, an SVG
//! flame graph, pprof or speedscope JSON, made in the worker and handed to the page as bytes
//! (which it downloads as a Blob). The same writers as `perfscope export`.

use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::export::pprof::{period_unit, to_pprof, PeriodUnit, PprofOptions};
use perfscope_analysis::export::share::{to_share, PrivacyOptions, ShareOptions};
use perfscope_analysis::export::speedscope::{to_speedscope, SpeedscopeOptions};
use perfscope_analysis::export::svg::{flame_svg, SvgOptions};
use perfscope_analysis::flame_graph::WeightKind as AnalysisWeight;
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::offcpu::{OFF_CPU_APPROX_EVENT, OFF_CPU_EVENT};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::summary::Summary;

use super::{tree, with_samples, Session};
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

/// What an export writes: its format, weight, privacy options and name.
#[derive(Debug, Clone, Copy)]
pub struct ExportRequest<'a> {
    /// The file format.
    pub format: ExportFormat,
    /// Samples or period (off-CPU time is always weighed by its period, the ns).
    pub weight: WeightKind,
    /// What the share file leaves out.
    pub privacy: Privacy,
    /// The opened file's name (titles, the download's name).
    pub name: &'a str,
    /// The samples are off-CPU time ([`Session::off_cpu`]'s table): labelled so.
    pub off_cpu: bool,
}

/// `format` of the samples of `profile` that pass `filter`.
pub fn export(
    profile: &Profile,
    summary: Option<&Summary>,
    filter: SampleFilter,
    request: ExportRequest<'_>,
) -> Result<ExportReply, String> {
    let ExportRequest {
        format,
        weight,
        privacy,
        name,
        off_cpu,
    } = request;
    let weight = analysis_weight(if off_cpu { WeightKind::Period } else { weight });
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
            let unit = match (weight, period_unit(profile.event_name(EventIndex(0)))) {
                _ if off_cpu => "ns off-CPU",
                (AnalysisWeight::Samples, _) => "samples",
                (AnalysisWeight::Period, PeriodUnit::Nanoseconds) => "ns",
                (AnalysisWeight::Period, PeriodUnit::Count) => "events",
            };
            let options = SvgOptions {
                title: format!("Flame Graph: {name}"),
                unit: unit.into(),
                ..Default::default()
            };
            flame_svg(profile, &filter, weight, &options).into_bytes()
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
    /// The export query on the open profile (the view's filter applied). With
    /// [`Filter::off_cpu`] the file holds the off-CPU time the views show: the off-CPU table's
    /// samples, weighed by their ns, as events named like perf's `--off-cpu` event
    /// ([`OFF_CPU_EVENT`], or [`OFF_CPU_APPROX_EVENT`] for stacks taken from the thread's last
    /// sample), the way `perfscope export --off-cpu` writes them.
    pub fn export(
        &mut self,
        format: ExportFormat,
        filter: &Filter,
        weight: WeightKind,
        privacy: Privacy,
        name: &str,
    ) -> Result<ExportReply, String> {
        let mut sf = tree::sample_filter(filter, &self.timeline, &self.events);
        let off_cpu = filter.off_cpu && !self.off_cpu.is_empty();
        let request = ExportRequest {
            format,
            weight,
            privacy,
            name,
            off_cpu,
        };
        let summary = (!self.summary.byte_order.is_empty()).then_some(&self.summary);
        if !off_cpu {
            return export(&self.profile, summary, sf, request);
        }
        // The event does not apply to off-CPU time (as in the tree queries).
        sf.events.clear();
        // The off-CPU table refers to the profile's stacks and threads: it stands in for the
        // samples while the file is written, its event column's names for the events.
        let names = [OFF_CPU_EVENT, OFF_CPU_APPROX_EVENT].map(|n| self.profile.strings.intern(n));
        let [Ok(exact), Ok(approx)] = names else {
            return Err("too many strings to name the off-CPU events".into());
        };
        // Indexed by the table's event column: offcpu::EXACT is 0, offcpu::APPROXIMATE 1.
        let mut events = vec![exact, approx];
        std::mem::swap(&mut self.profile.events, &mut events);
        let reply = with_samples(&mut self.profile, &mut self.off_cpu, |p| {
            export(p, summary, sf, request)
        });
        std::mem::swap(&mut self.profile.events, &mut events);
        reply
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
            ExportRequest {
                format: ExportFormat::Folded,
                weight: WeightKind::Samples,
                privacy: Privacy::default(),
                name: "x",
                off_cpu: false,
            },
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
            ExportRequest {
                format: ExportFormat::Share,
                weight: WeightKind::Samples,
                privacy: Privacy::default(),
                name: "x",
                off_cpu: false,
            },
        )
        .unwrap();
        let Ok(Opened::Share(back)) = open(&share.bytes) else {
            panic!("not a share file")
        };
        assert_eq!(back.profile.samples.len(), 2);
        assert_eq!(share.meta.file_name, "x.perfscope");
    }
}
