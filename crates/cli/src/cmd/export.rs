//! `perfscope export`: a recording (perf.data or share file) as folded stacks, an interactive
//! SVG flame graph, pprof, speedscope JSON or a share file. Also the loading shared with
//! `perfscope diff`: a share file is read as is, a perf.data through [`collapse::load`].

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::export::pprof::{period_unit, to_pprof, PeriodUnit, PprofOptions};
use perfscope_analysis::export::share::{is_share, to_share, PrivacyOptions, ShareOptions};
use perfscope_analysis::export::speedscope::{write_speedscope, SpeedscopeOptions};
use perfscope_analysis::export::svg::{flame_svg, SvgOptions};
use perfscope_analysis::flame_graph::WeightKind;
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::import::{detect, import_text};
use perfscope_analysis::offcpu::{is_off_cpu_event, OFF_CPU_EVENT};
use perfscope_analysis::open::{open, Opened};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::summary::Summary;

use super::collapse::{self, parse_time_range, ProfileArgs};
use super::input::Input;

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
#[command(mut_arg("file", |a| a.help("A perf.data file, pipe-mode stream, `perf record --threads` directory, share file, `perf script` text or folded stacks")))]
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
    /// Folded stacks, flame graph and speedscope: weigh by summed period (event counts, ns for
    /// cpu-clock) instead of sample count. pprof always has both.
    #[arg(long)]
    period: bool,
    /// SVG: leave out boxes narrower than this many pixels (of the 1200-pixel image), as
    /// FlameGraph.pl's --minwidth; 0 keeps every box.
    #[arg(long, value_name = "PIXELS", default_value_t = 0.1)]
    min_width: f64,
    /// The recording: a perf.data file, pipe-mode stream, `perf record --threads` directory, or
    /// a share file.
    #[command(flatten)]
    profile: ProfileArgs,
}

/// A profile read from a perf.data or a share file.
pub struct Loaded {
    /// The profile.
    pub profile: Profile,
    /// The header summary (a share file may have none).
    pub summary: Option<Summary>,
    /// The samples the options select. A perf.data is filtered while loading, so this keeps
    /// everything; a share file is filtered here.
    pub filter: SampleFilter,
    /// Whether loading met errors (they were printed as warnings).
    pub had_errors: bool,
    /// The samples are off-CPU time (`--off-cpu`): weighed by period, in ns.
    pub off_cpu: bool,
}

impl Loaded {
    /// The weight to use: `asked`, or the period (off-CPU ns) with `--off-cpu`.
    pub fn weight(&self, asked: WeightKind) -> WeightKind {
        if self.off_cpu {
            WeightKind::Period
        } else {
            asked
        }
    }
}

/// Reads `args.file`: a share file, `perf script` text or folded stacks as is (with the sample
/// options applied as a filter), anything else as a perf.data through [`collapse::load`].
pub fn load(args: &ProfileArgs) -> Result<Loaded, String> {
    load_with(args, true)
}

/// [`load`]; `summary`: whether to read the header summary of a perf.data (a second pass over
/// the file, which `collapse` does without).
pub fn load_with(args: &ProfileArgs, summary: bool) -> Result<Loaded, String> {
    let input = Input::read(&args.file)?;
    // Text is told apart after share files (whose magic is certain) and before perf.data.
    let share = is_share(&input.bytes);
    if let Some(kind) = detect(&input.bytes).filter(|_| !share) {
        let name = args.file.display();
        let imported =
            import_text(&input.bytes).map_err(|e| format!("{name}: {}: {e}", kind.name()))?;
        if let Some(line) = imported.first_skipped {
            eprintln!(
                "warning: {name}: {} lines that are no {} skipped (the first: line {line})",
                imported.skipped_lines,
                kind.name()
            );
        }
        let filter = share_filter(&imported.profile, args)?;
        return Ok(Loaded {
            profile: imported.profile,
            summary: None,
            filter,
            had_errors: false,
            off_cpu: args.off_cpu,
        });
    }
    match open(&input.bytes).map_err(|e| format!("{}: {e}", args.file.display()))? {
        Opened::Share(shared) => {
            let filter = share_filter(&shared.profile, args)?;
            Ok(Loaded {
                profile: shared.profile,
                summary: shared.summary,
                filter,
                had_errors: false,
                off_cpu: args.off_cpu,
            })
        }
        Opened::PerfData => {
            let summary = summary.then(|| Summary::from_bytes(&input.bytes));
            drop(input);
            let loaded = collapse::load(args)?;
            let mut filter = SampleFilter::all();
            if args.off_cpu {
                filter.events = collapse::off_cpu_events(args, &loaded.profile, loaded.off_cpu)?;
            }
            let had_errors = !loaded.diagnostics.errors.is_empty();
            Ok(Loaded {
                profile: loaded.profile,
                summary,
                filter,
                had_errors,
                off_cpu: args.off_cpu,
            })
        }
    }
}

/// `--event`, `--pid`, `--tid` and `--time` as a filter over a share file's samples.
fn share_filter(profile: &Profile, args: &ProfileArgs) -> Result<SampleFilter, String> {
    let mut events = Vec::new();
    if args.off_cpu {
        let named = |e: &EventIndex| is_off_cpu_event(profile.event_name(*e));
        let found = (0..profile.events.len() as u32)
            .map(EventIndex)
            .filter(named);
        events.extend(found.filter(|&e| {
            args.event.is_empty() || args.event.iter().any(|n| n == profile.event_name(e))
        }));
        if events.is_empty() {
            return Err(format!(
                "{}: --off-cpu: no {OFF_CPU_EVENT} samples in it",
                args.file.display()
            ));
        }
    }
    for name in args.event.iter().filter(|_| !args.off_cpu) {
        let found: Vec<EventIndex> = (0..profile.events.len() as u32)
            .map(EventIndex)
            .filter(|&e| profile.event_name(e) == name)
            .collect();
        if found.is_empty() {
            return Err(format!("{}: no event named {name:?}", args.file.display()));
        }
        events.extend(found);
    }
    // --time includes both ends; the filter's end is exclusive.
    let time_range = args
        .time
        .as_deref()
        .map(parse_time_range)
        .transpose()?
        .map(|(start, end)| (start, end.saturating_add(1)));
    Ok(SampleFilter {
        time_range,
        pids: args.pid.clone(),
        tids: args.tid.clone(),
        cpus: Vec::new(),
        events,
    })
}

/// `args` with another file (`perfscope diff` loads two files with the same options).
pub fn with_file(args: &ProfileArgs, file: PathBuf) -> ProfileArgs {
    ProfileArgs {
        file,
        kallsyms: args.kallsyms.clone(),
        symfs: args.symfs.clone(),
        buildid_dir: args.buildid_dir.clone(),
        archive: args.archive.clone(),
        perf_map: args.perf_map.clone(),
        no_symbols: args.no_symbols,
        event: args.event.clone(),
        pid: args.pid.clone(),
        tid: args.tid.clone(),
        time: args.time.clone(),
        off_cpu: args.off_cpu,
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
    // Folded sample counts are what `collapse` writes: its fast path, when it applies (a
    // recording's 12M samples in ~4 s instead of ~28 s).
    if args.format == Format::Folded && !args.period {
        if let Some(code) = collapse::run_fast(&args.profile, &args.output)? {
            return Ok(code);
        }
    }
    let loaded = load(&args.profile)?;
    let weight = loaded.weight(if args.period {
        WeightKind::Period
    } else {
        WeightKind::Samples
    });
    let Loaded {
        profile,
        summary,
        filter,
        had_errors,
        off_cpu,
    } = loaded;
    let exit_code = if had_errors {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    let file = &args.profile.file;
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let bytes = match args.format {
        Format::Folded => to_folded_text(
            &profile,
            &filter,
            FoldedOptions {
                include_comm: true,
                weight,
            },
        )
        .into_bytes(),
        Format::Svg => {
            let options = SvgOptions {
                title: format!("Flame Graph: {name}"),
                unit: if off_cpu {
                    "ns off-CPU".into()
                } else {
                    unit(&profile, weight).into()
                },
                min_width: args.min_width,
                ..Default::default()
            };
            flame_svg(&profile, &filter, weight, &options).into_bytes()
        }
        Format::Pprof => {
            let clock_data = summary.as_ref().and_then(|s| s.clock_data.clone());
            to_pprof(
                &profile,
                &PprofOptions {
                    filter,
                    clock_data,
                    ..Default::default()
                },
            )
        }
        Format::Speedscope => {
            // Written from a second thread as it is serialized: not held whole.
            let options = SpeedscopeOptions {
                filter,
                weight,
                name,
            };
            match collapse::write_on_thread(&args.output, |out| {
                write_speedscope(&profile, &options, out)
            }) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(format!("cannot write {}: {e}", args.output.display()))
                }
                _ => return Ok(exit_code),
            }
        }
        Format::Share => to_share(
            &profile,
            summary.as_ref(),
            &ShareOptions { filter, privacy },
        ),
    };
    write_output(&args.output, &bytes)?;
    Ok(exit_code)
}
