//! Compare: a second profile (the *base*) read next to the open one, and the diff query —
//! `perfscope_analysis::diff`'s differential flame graph (the open profile's layout, each box
//! colored by the change of its self weight against the base scaled to the same total) and its
//! function table.

use perfscope_analysis::builder::{InlineFrames, UnknownNames};
use perfscope_analysis::diff::{diff_flame_graph, function_diff, DiffOptions, DiffSort};
use perfscope_analysis::load::{load, LoadExtras, LoadOptions};
use perfscope_analysis::offcpu::{is_off_cpu_event, off_cpu_table};
use perfscope_analysis::open::{open, Opened};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleTable;

use super::export::analysis_weight;
use super::symbols::{build_resolver, SymbolFile};
use super::{with_samples, Session};
use crate::protocol::{DiffMeta, DiffReply, DiffRow, WeightKind};

/// Rows of the function table sent to the page.
pub const MAX_ROWS: usize = 500;

/// The base profile of a comparison.
pub struct Baseline {
    /// The compare request that read it (diff queries name it).
    pub request: u32,
    /// The file name.
    pub name: String,
    /// The profile.
    pub profile: Profile,
    /// Its off-CPU time, as the open profile's (`Session::off_cpu`): empty without context
    /// switches.
    pub off_cpu: SampleTable,
    /// How its frames without a symbol are named (a perf.data's; the open profile's must be
    /// the same for the names to match).
    pub unknown_names: UnknownNames,
}

/// A base profile and its off-CPU time.
pub struct LoadedBase {
    /// The profile.
    pub profile: Profile,
    /// Its off-CPU time: from the context switches of a perf.data (as the open file's), or
    /// a share file's samples when they are all off-CPU time (exported from the off-CPU view);
    /// empty otherwise.
    pub off_cpu: SampleTable,
}

/// Reads `data` (a perf.data or a share file) into a profile, symbolized with `symbol_files`
/// and its frames without a symbol named by `unknown_names`, as the open file's.
pub fn load_base(
    data: &[u8],
    symbol_files: &[SymbolFile],
    unknown_names: UnknownNames,
) -> Result<LoadedBase, String> {
    match open(data).map_err(|e| e.to_string())? {
        Opened::Share(shared) => {
            let profile = shared.profile;
            let named = |e: &perfscope_analysis::ids::StringIndex| {
                is_off_cpu_event(profile.strings.get(*e))
            };
            let off_cpu = if !profile.events.is_empty() && profile.events.iter().all(named) {
                profile.samples.clone()
            } else {
                SampleTable::default()
            };
            Ok(LoadedBase { profile, off_cpu })
        }
        Opened::PerfData => {
            // (An ELF file serves the mapped paths with its base name as they are met: no pass
            // over the records first to learn them.)
            let (resolver, _) = build_resolver(symbol_files, &Default::default());
            let options = LoadOptions {
                resolver,
                unknown_names,
                inline_frames: InlineFrames::Unwound,
                ..LoadOptions::default()
            };
            let extras = LoadExtras {
                timeline: true,
                off_cpu: false,
            };
            let loaded = load(data, &[], options, extras).map_err(|e| e.to_string())?;
            let off_cpu = loaded
                .timeline
                .as_ref()
                .and_then(|t| off_cpu_table(&loaded.profile, t).ok())
                .unwrap_or_default();
            Ok(LoadedBase {
                profile: loaded.profile,
                off_cpu,
            })
        }
    }
}

/// The diff of `new` against `base`: all samples of both, weighted by `weight`.
pub fn diff(base: &Profile, new: &Profile, weight: WeightKind) -> Result<DiffReply, String> {
    let options = DiffOptions {
        weight: analysis_weight(weight),
        sort: DiffSort::SelfWeight,
        ..DiffOptions::default()
    };
    let graph = diff_flame_graph(base, new, &options).map_err(|e| e.to_string())?;
    let table = function_diff(base, new, &options);
    let rows = table
        .rows
        .iter()
        .take(MAX_ROWS)
        .map(|r| DiffRow {
            name: r.name.clone(),
            base_self: r.base_self,
            base_total: r.base_total,
            new_self: r.new_self,
            new_total: r.new_total,
        })
        .collect();
    let n = graph.graph.rects.len();
    let mut reply = DiffReply {
        meta: DiffMeta {
            base_total: table.base_total,
            new_total: table.new_total,
            rows,
            total: graph.graph.total as f64,
            depth: graph.graph.depth,
            max_abs_delta: graph.max_abs_delta,
            ..DiffMeta::default()
        },
        func: Vec::with_capacity(n),
        depth: Vec::with_capacity(n),
        x: Vec::with_capacity(n),
        width: Vec::with_capacity(n),
        delta_self: Vec::with_capacity(n),
        base_total: Vec::with_capacity(n),
    };
    for (r, d) in graph.graph.rects.iter().zip(&graph.nodes) {
        reply.func.push(r.func.0);
        reply.depth.push(r.depth);
        reply.x.push(r.x as f64);
        reply.width.push(r.width as f64);
        reply.delta_self.push(d.delta_self);
        reply.base_total.push(d.base_total);
    }
    Ok(reply)
}

impl Session {
    /// The diff query: the open profile against `base`; with `off_cpu`, their off-CPU times
    /// (weighed in ns) — both must have some. A diff that cannot be made says why in
    /// [`DiffMeta::error`](crate::protocol::DiffMeta::error).
    pub fn diff(&mut self, base: &mut Baseline, weight: WeightKind, off_cpu: bool) -> DiffReply {
        let mut reply = self
            .try_diff(base, weight, off_cpu)
            .unwrap_or_else(|e| DiffReply {
                meta: DiffMeta {
                    error: Some(e),
                    ..DiffMeta::default()
                },
                ..DiffReply::default()
            });
        reply.meta.generation = self.generation;
        reply
    }

    fn try_diff(
        &mut self,
        base: &mut Baseline,
        weight: WeightKind,
        off_cpu: bool,
    ) -> Result<DiffReply, String> {
        let reply = if off_cpu {
            if self.off_cpu.is_empty() {
                return Err("the open profile has no off-CPU time (no context switches)".into());
            }
            if base.off_cpu.is_empty() {
                return Err(format!(
                    "{} has no off-CPU time to compare with: it was recorded without context switches (--switch-events or sched:sched_switch). Choose Samples or Period as the weight (Flame graph or Call tree tab) to compare the samples.",
                    base.name
                ));
            }
            // Each off-CPU table stands in for its profile's samples.
            with_samples(&mut self.profile, &mut self.off_cpu, |new| {
                with_samples(&mut base.profile, &mut base.off_cpu, |old| {
                    diff(old, new, WeightKind::Period)
                })
            })?
        } else {
            diff(&base.profile, &self.profile, weight)?
        };
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::symbols::{classify, FileKind};

    fn read(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/../tests/data/diff/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    fn load(name: &str) -> Profile {
        let binary = read(name);
        assert_eq!(classify(name, &binary), FileKind::Elf);
        load_base(
            &read(&format!("{name}.data")),
            &[SymbolFile {
                name: name.into(),
                kind: FileKind::Elf,
                bytes: binary.into(),
                part_of: None,
            }],
            UnknownNames::Module,
        )
        .unwrap()
        .profile
    }

    /// perf report's self overhead of `symbol` in a committed `*.report.txt` (the oracle).
    fn report_self(name: &str, symbol: &str) -> f64 {
        let text = String::from_utf8(read(&format!("{name}.report.txt"))).unwrap();
        let line = text
            .lines()
            .find(|l| !l.starts_with('#') && l.split_whitespace().last() == Some(symbol))
            .unwrap();
        line.split_whitespace()
            .next()
            .unwrap()
            .trim_end_matches('%')
            .parse::<f64>()
            .unwrap()
            / 100.0
    }

    #[test]
    fn the_slowed_function_grows_most() {
        let (base, slow) = (load("base"), load("slow"));
        let d = diff(&base, &slow, WeightKind::Period).unwrap();
        let top = &d.meta.rows[0];
        // perf report on the two recordings: the function whose self share grew most.
        let text = String::from_utf8(read("slow.report.txt")).unwrap();
        let grown = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().last())
            .max_by(|a, b| {
                let g = |s: &str| report_self("slow", s) - report_self_or_zero("base", s);
                g(a).total_cmp(&g(b))
            })
            .unwrap();
        assert_eq!(top.name, grown);
        assert!(
            (top.new_self - report_self("slow", grown)).abs() < 0.01,
            "{} vs perf {}",
            top.new_self,
            report_self("slow", grown)
        );
        // Boxes: the largest positive self change is on that function.
        let i = (0..d.func.len())
            .max_by(|&a, &b| d.delta_self[a].total_cmp(&d.delta_self[b]))
            .unwrap();
        assert_eq!(
            slow.func_name(perfscope_analysis::ids::FuncIndex(d.func[i])),
            grown
        );
        assert_eq!(
            d.meta.max_abs_delta,
            d.delta_self.iter().fold(0.0f64, |m, v| m.max(v.abs()))
        );
    }

    fn report_self_or_zero(name: &str, symbol: &str) -> f64 {
        let text = String::from_utf8(read(&format!("{name}.report.txt"))).unwrap();
        if text
            .lines()
            .any(|l| !l.starts_with('#') && l.split_whitespace().last() == Some(symbol))
        {
            report_self(name, symbol)
        } else {
            0.0
        }
    }
}
