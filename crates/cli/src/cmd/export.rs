//! `perfscope export`: a recording (perf.data or share file) as folded stacks, an interactive
//! SVG flame graph, pprof, speedscope JSON or a share file. Also the loading shared with
//! `perfscope diff`: a share file is read as is, a perf.data through the profile loader.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use perfscope_analysis::call_tree::CallTree;
use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::export::pprof::{period_unit, to_pprof, PeriodUnit, PprofOptions};
use perfscope_analysis::export::share::{to_share, PrivacyOptions, ShareOptions};
use perfscope_analysis::export::speedscope::{to_speedscope, SpeedscopeOptions};
use perfscope_analysis::export::svg::{to_svg, SvgOptions};
use perfscope_analysis::flame_graph::{FlameGraph, WeightKind};
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::open::{open, Opened};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::summary::Summary;

use super::input::Input;

/// What to read (shared by `export` and `diff`).
#[derive(clap::Args, Debug, Clone)]
pub struct SourceArgs {
    /// Kernel symbols: a copy of /proc/kallsyms from the recording machine (plain or gzipped).
    #[arg(long, value_name = "FILE")]
    pub kallsyms: Option<PathBuf>,
    /// Look binaries up under this directory (the recorded paths appended), like perf's --symfs.
    #[arg(long, value_name = "DIR")]
    pub symfs: Option<PathBuf>,
}

/// The output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// pprof's profile.proto, gzipped (go tool pprof, Grafana Pyroscope, Parca).
    Pprof,
    /// Folded stacks, `comm;root;...;leaf count` (inferno, FlameGraph.pl).
    Folded,
    /// A standalone interactive SVG flame graph.
    Svg,
    /// speedscope's JSON file format.
    Speedscope,
    /// A self-contained perfscope share file (names resolved; opens without the binaries).
    Share,
}

/// Arguments of `perfscope export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The output format.
    #[arg(long, value_enum)]
    format: Format,
    /// The output file (`-` for standard output).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Share file: module paths become base names.
    #[arg(long)]
    strip_paths: bool,
    /// Share file: leave out the recorded command line.
    #[arg(long)]
    strip_cmdline: bool,
    /// Share file: leave out the host name.
    #[arg(long)]
    strip_hostname: bool,
    /// Share file: name threads `thread-TID` instead of their command names.
    #[arg(long)]
    strip_thread_names: bool,
    /// Weigh folded stacks, flame graph and speedscope by sample count instead of period.
    #[arg(long)]
    samples: bool,
    #[command(flatten)]
    source: SourceArgs,
    /// A perf.data file, pipe-mode stream, `perf record --threads` directory, or share file.
    file: PathBuf,
}

/// A profile read from a perf.data or a share file.
pub struct Loaded {
    /// The profile.
    pub profile: Profile,
    /// The header summary (a share file may have none).
    pub summary: Option<Summary>,
}

/// Reads `path`: a share file as is, anything else as a perf.data.
pub fn load(path: &Path, source: &SourceArgs) -> Result<Loaded, String> {
    let input = Input::read(path)?;
    match open(&input.bytes).map_err(|e| format!("{}: {e}", path.display()))? {
        Opened::Share(shared) => Ok(Loaded { profile: shared.profile, summary: shared.summary }),
        Opened::PerfData => {
            let summary = Summary::from_bytes(&input.bytes);
            let profile = interim::load_perf_data(&input, &summary, source).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(Loaded { profile, summary: Some(summary) })
        }
    }
}

/// Writes `bytes` to `path`, or to standard output for `-`.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let result = if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes).and_then(|()| out.flush())
    } else {
        std::fs::write(path, bytes)
    };
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| format!("cannot write {}: {e}", path.display())),
    }
}

/// The unit of the first event's period, for labels.
fn unit(profile: &Profile, weight: WeightKind) -> &'static str {
    match (weight, period_unit(profile.event_name(EventIndex(0)))) {
        (WeightKind::Samples, _) => "samples",
        (WeightKind::Period, PeriodUnit::Nanoseconds) => "ns",
        (WeightKind::Period, PeriodUnit::Count) => "events",
    }
}

/// Runs `perfscope export`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let privacy = PrivacyOptions {
        strip_paths: args.strip_paths,
        strip_cmdline: args.strip_cmdline,
        strip_hostname: args.strip_hostname,
        strip_thread_names: args.strip_thread_names,
    };
    if privacy != PrivacyOptions::default() && args.format != Format::Share {
        return Err("--strip-paths, --strip-cmdline, --strip-hostname and --strip-thread-names apply to --format share".into());
    }
    let Loaded { profile, summary } = load(&args.file, &args.source)?;
    let name = args.file.file_name().map_or_else(|| args.file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let weight = if args.samples { WeightKind::Samples } else { WeightKind::Period };
    let bytes = match args.format {
        Format::Folded => {
            let options = FoldedOptions { include_comm: true, weight: if args.samples { WeightKind::Samples } else { FoldedOptions::default().weight } };
            to_folded_text(&profile, &SampleFilter::all(), options).into_bytes()
        }
        Format::Svg => {
            let tree = CallTree::top_down(&profile, &SampleFilter::all()).map_err(|e| e.to_string())?;
            let graph = FlameGraph::from_call_tree(&tree, &profile, weight);
            let options = SvgOptions { title: format!("Flame Graph: {name}"), unit: unit(&profile, weight).into(), ..Default::default() };
            to_svg(&graph, &profile, &options).into_bytes()
        }
        Format::Pprof => {
            let clock_data = summary.as_ref().and_then(|s| s.clock_data.clone());
            to_pprof(&profile, &PprofOptions { clock_data, ..Default::default() })
        }
        Format::Speedscope => to_speedscope(&profile, &SpeedscopeOptions { weight, name, ..Default::default() }).into_bytes(),
        Format::Share => to_share(&profile, summary.as_ref(), &ShareOptions { privacy, ..Default::default() }),
    };
    write_output(&args.output, &bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// A minimal perf.data loader until `perfscope_analysis::load::load_profile` is on main:
/// MMAP, MMAP2, COMM and FORK records first, then the samples, through `ProfileBuilder`, with the
/// binaries read from their recorded paths (under `--symfs`). Right for one process that does not
/// re-map code while it is recorded.
mod interim {
    use std::path::PathBuf;

    use perfscope_analysis::builder::{CpuMode, ProfileBuilder, SampleInput, PERF_CONTEXT_USER_DEFERRED};
    use perfscope_analysis::ids::EventIndex;
    use perfscope_analysis::profile::Profile;
    use perfscope_analysis::summary::Summary;
    use perfscope_analysis::symbols::resolver::{FileProvider, SymbolResolver};
    use perfscope_format::constants::misc;
    use perfscope_format::records::CallchainItem;
    use perfscope_format::walk::Item;
    use perfscope_format::Record;

    use super::super::input::Input;
    use super::super::walk::walk;
    use super::SourceArgs;

    struct LocalFiles {
        symfs: Option<PathBuf>,
    }

    impl FileProvider for LocalFiles {
        fn read_path(&mut self, path: &str) -> Option<Vec<u8>> {
            let rel = path.strip_prefix('/')?;
            let p = self.symfs.as_ref().map_or_else(|| PathBuf::from(path), |d| d.join(rel));
            p.is_file().then(|| std::fs::read(p).ok()).flatten()
        }
    }

    pub fn load_perf_data(input: &Input, summary: &Summary, source: &SourceArgs) -> Result<Profile, String> {
        let mut resolver = SymbolResolver::new();
        resolver.set_provider(Box::new(LocalFiles { symfs: source.symfs.clone() }));
        if let Some(k) = &source.kallsyms {
            let bytes = std::fs::read(k).map_err(|e| format!("cannot read {}: {e}", k.display()))?;
            resolver.set_kallsyms(&bytes).map_err(|e| format!("{}: {e}", k.display()))?;
        }
        let mut b = ProfileBuilder::new(Some(resolver));
        for e in &summary.events {
            b.add_event(&e.name).map_err(|e| e.to_string())?;
        }
        let mut error = None;
        let mut chain: Vec<u64> = Vec::new();
        for samples in [false, true] {
            walk(input, |meta, _, item| {
                let Item::Record(raw) = item else { return };
                let Ok(rec) = meta.parse(raw) else { return };
                let r = match (samples, rec) {
                    (false, Record::Mmap(m)) => b.mmap(m.pid, m.start, m.len, m.pgoff, &m.filename.to_string(), None),
                    (false, Record::Mmap2(m)) => b.mmap(m.pid, m.start, m.len, m.pgoff, &m.filename.to_string(), None),
                    (false, Record::Comm(c)) => b.comm(c.pid, c.tid, &c.comm.to_string()),
                    (false, Record::Fork(f)) => b.fork(f.ppid, f.ptid, f.pid, f.tid),
                    (true, Record::Sample(s)) => {
                        chain.clear();
                        for item in s.callchain.iter().flat_map(|c| c.items()) {
                            match item {
                                CallchainItem::Address(a) | CallchainItem::Context(a) => chain.push(a),
                                CallchainItem::UserDeferred { cookie } => chain.extend([PERF_CONTEXT_USER_DEFERRED, cookie]),
                            }
                        }
                        let kernel = s.misc & misc::CPUMODE_MASK == misc::KERNEL;
                        b.sample(&SampleInput {
                            pid: s.pid.unwrap_or(u32::MAX),
                            tid: s.tid.unwrap_or(u32::MAX),
                            time: s.time.unwrap_or(0),
                            cpu: s.cpu.unwrap_or(u32::MAX),
                            event: EventIndex(s.event.0),
                            period: s.period.unwrap_or(1),
                            ip: s.ip.unwrap_or(0),
                            ip_mode: if kernel { CpuMode::Kernel } else { CpuMode::User },
                            callchain: &chain,
                        })
                    }
                    _ => Ok(()),
                };
                if let Err(e) = r {
                    error.get_or_insert(e);
                }
            })
            .map_err(|e| e.to_string())?;
        }
        match error {
            Some(e) => Err(e.to_string()),
            None => Ok(b.finish()),
        }
    }
}
