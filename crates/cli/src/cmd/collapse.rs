//! `perfscope collapse`: folded stacks (`comm;root;…;leaf count`), as `perf script |
//! inferno-collapse-perf` prints them. Also the options and loading shared with `flamegraph`
//! and `report`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use perfscope_analysis::builder::{InlineFrames, UnknownNames};
use perfscope_analysis::collapse::{collapse_named, collapse_threaded_named};
use perfscope_analysis::export::folded::{write_folded, FoldedOptions};
use perfscope_analysis::export::share::is_share;
use perfscope_analysis::flame_graph::WeightKind;
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::import::detect;
use perfscope_analysis::load::{
    self as loader, LoadDiagnostics, LoadExtras, LoadFilter, LoadOptions,
};
use perfscope_analysis::offcpu::OffCpuEvents;
use perfscope_analysis::open::{open, Opened};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::symbols::archive::PerfArchive;
use perfscope_analysis::symbols::resolver::SymbolResolver;

use super::input::Input;
use super::local_symbols::{
    add_cached_binaries, default_buildid_dir, recording_facts, running_kallsyms, LocalFiles,
};

/// What to read and how to name frames (shared by `collapse`, `flamegraph` and `report`).
#[derive(clap::Args, Debug)]
pub struct ProfileArgs {
    /// A perf.data file, pipe-mode stream or `perf record --threads` directory (`collapse`,
    /// `flamegraph`, `report` and `export` also read share files, `perf script` text and folded
    /// stacks).
    pub file: PathBuf,
    /// Kernel symbols: a copy of /proc/kallsyms from the recording machine (plain or gzipped).
    #[arg(long, value_name = "FILE")]
    pub kallsyms: Option<PathBuf>,
    /// Look binaries up under this directory (the recorded paths appended), like perf's --symfs.
    #[arg(long, value_name = "DIR")]
    pub symfs: Option<PathBuf>,
    /// perf's build-id cache, where binaries are found by build id (default:
    /// `$PERF_BUILDID_DIR` or `~/.debug`), like perf's --buildid-dir.
    #[arg(long, value_name = "DIR")]
    pub buildid_dir: Option<PathBuf>,
    /// A `perf archive` tarball (.tar.bz2) with the binaries by build id.
    #[arg(long, value_name = "TAR")]
    pub archive: Vec<PathBuf>,
    /// A JIT's symbol map for a process, named `perf-PID.map` (or `*.perf-PID.map`), used
    /// instead of `/tmp/perf-PID.map`.
    #[arg(long, value_name = "FILE")]
    pub perf_map: Vec<PathBuf>,
    /// Do not look names up: frames are `module+0xoffset`.
    #[arg(long)]
    pub no_symbols: bool,
    /// Keep only samples of these events (names as `perf script` prints them; comma-separated).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub event: Vec<String>,
    /// Keep only samples of these processes (comma-separated).
    #[arg(long, value_name = "PID", value_delimiter = ',')]
    pub pid: Vec<u32>,
    /// Keep only samples of these threads (comma-separated).
    #[arg(long, value_name = "TID", value_delimiter = ',')]
    pub tid: Vec<u32>,
    /// Keep only samples in this time range, in seconds as perf prints them: `START,END`
    /// (either may be empty), both ends included.
    #[arg(long, value_name = "START,END")]
    pub time: Option<String>,
    /// Weigh stacks by off-CPU time instead of samples: the time each thread spent switched
    /// out, in ns, given to the stack it was switched out with (the sched_switch callchain when
    /// recorded with -g, else the thread's last sampled stack, as the event
    /// `offcpu-time:approx`). Needs context switches in the recording (`perf record
    /// --switch-events`, `-e sched:sched_switch`, or perf's own `--off-cpu`).
    #[arg(long)]
    pub off_cpu: bool,
}

/// Arguments of `perfscope collapse`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    profile: ProfileArgs,
}

/// Parses perf's `--time` seconds (`123.456789`) into ns.
fn parse_seconds(s: &str) -> Result<u64, String> {
    let bad = || format!("bad time {s:?}: expected seconds like 3874.784783");
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let secs: u64 = int.parse().map_err(|_| bad())?;
    let frac_ns: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().map_err(|_| bad())?
    };
    secs.checked_mul(1_000_000_000)
        .and_then(|n| n.checked_add(frac_ns))
        .ok_or_else(bad)
}

/// `START,END` (either side may be empty).
pub fn parse_time_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("bad --time {s:?}: expected START,END"))?;
    let start = if a.trim().is_empty() {
        0
    } else {
        parse_seconds(a.trim())?
    };
    let end = if b.trim().is_empty() {
        u64::MAX
    } else {
        parse_seconds(b.trim())?
    };
    Ok((start, end))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The symbol sources the arguments name, for the recording `data` (see `LocalFiles`).
fn symbol_resolver(args: &ProfileArgs, data: &[u8]) -> Result<SymbolResolver, String> {
    let mut resolver = SymbolResolver::new();
    // Binaries are read with what unwinding needs only for DWARF-mode stacks (a pipe-mode
    // stream's events are known only as its records go by: read so too).
    let dwarf_mode = loader::dwarf_mode_of(data);
    let buildid_dir = args
        .buildid_dir
        .clone()
        .or_else(default_buildid_dir)
        .filter(|d| d.is_dir());
    resolver.set_provider(Box::new(LocalFiles {
        symfs: args.symfs.clone(),
        buildid_dir: buildid_dir.clone(),
        dwarf_mode,
    }));
    // The recording's build ids and kernel, for the build-id cache and /proc/kallsyms.
    let summary = (buildid_dir.is_some() || args.kallsyms.is_none()).then(|| recording_facts(data));
    if let (Some(dir), Some(summary)) = (&buildid_dir, &summary) {
        add_cached_binaries(&mut resolver, summary, dir, dwarf_mode);
    }
    if let Some(k) = &args.kallsyms {
        resolver
            .set_kallsyms(&read(k)?)
            .map_err(|e| format!("{}: {e}", k.display()))?;
    } else if let Some(Ok(bytes)) = summary
        .as_ref()
        .filter(|_| !args.no_symbols)
        .map(running_kallsyms)
    {
        // Like perf: the running kernel's symbols when the recording was made on it.
        resolver
            .set_kallsyms(&bytes)
            .map_err(|e| format!("/proc/kallsyms: {e}"))?;
    }
    for a in &args.archive {
        let archive = PerfArchive::parse(&read(a)?).map_err(|e| format!("{}: {e}", a.display()))?;
        resolver
            .add_archive(archive)
            .map_err(|e| format!("{}: {e}", a.display()))?;
    }
    for m in &args.perf_map {
        let name = m.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let pid = name
            .rsplit("perf-")
            .next()
            .and_then(|rest| rest.strip_suffix(".map"))
            .and_then(|pid| pid.parse::<u32>().ok())
            .ok_or_else(|| format!("{}: expected a file named perf-PID.map", m.display()))?;
        resolver.add_perf_map(pid, &read(m)?);
    }
    Ok(resolver)
}

/// Loads the profile the arguments describe; prints the diagnostics worth telling on stderr.
pub fn load(args: &ProfileArgs) -> Result<Loaded, String> {
    let input = Input::read(&args.file)?;
    let resolver = symbol_resolver(args, &input.bytes)?;
    let filter = LoadFilter {
        // With --off-cpu the events are picked after loading: the off-CPU time of a switch
        // goes to the thread's last sample, of whatever event.
        events: if args.off_cpu {
            Vec::new()
        } else {
            args.event.clone()
        },
        pids: args.pid.clone(),
        tids: args.tid.clone(),
        time: args.time.as_deref().map(parse_time_range).transpose()?,
    };
    let options = LoadOptions {
        resolver: Some(resolver),
        symbolize: !args.no_symbols,
        unknown_names: if args.no_symbols {
            UnknownNames::ModuleOffset
        } else {
            UnknownNames::Unknown
        },
        filter,
        unwind: true,
        inline_frames: InlineFrames::Unwound,
    };
    let extra: Vec<&[u8]> = input.extra.iter().map(|(_, b)| &b[..]).collect();
    let extras = LoadExtras {
        timeline: false,
        off_cpu: args.off_cpu,
    };
    let loaded = loader::load_threaded(&input.bytes, &extra, options, extras)
        .map_err(|e| format!("{}: {e}", args.file.display()))?;
    report_diagnostics(&args.file, &loaded.diagnostics);
    Ok(Loaded {
        profile: loaded.profile,
        diagnostics: loaded.diagnostics,
        off_cpu: loaded.off_cpu_events,
    })
}

/// What [`load`] gives: the profile, what happened, and the off-CPU pseudo-events it has.
pub struct Loaded {
    /// The profile.
    pub profile: Profile,
    /// What happened while loading.
    pub diagnostics: LoadDiagnostics,
    /// The off-CPU pseudo-events (with `--off-cpu`).
    pub off_cpu: OffCpuEvents,
}

/// With `--off-cpu`: the samples to keep — the off-CPU pseudo-events, of those `--event` names
/// when given — or why there are none.
pub fn off_cpu_events(
    args: &ProfileArgs,
    profile: &Profile,
    events: OffCpuEvents,
) -> Result<Vec<EventIndex>, String> {
    let found: Vec<EventIndex> = [events.exact, events.approximate]
        .into_iter()
        .flatten()
        .collect();
    if found.is_empty() {
        return Err(format!(
            "{}: no off-CPU time: the recording has no context switches (record with --switch-events, -e sched:sched_switch or perf's --off-cpu)",
            args.file.display()
        ));
    }
    let picked: Vec<EventIndex> = found
        .iter()
        .copied()
        .filter(|&e| args.event.is_empty() || args.event.iter().any(|n| n == profile.event_name(e)))
        .collect();
    if picked.is_empty() {
        let names: Vec<&str> = found.iter().map(|&e| profile.event_name(e)).collect();
        return Err(format!(
            "{}: --off-cpu: no off-CPU event named {:?} (there are: {})",
            args.file.display(),
            args.event,
            names.join(", ")
        ));
    }
    Ok(picked)
}

fn report_diagnostics(file: &Path, d: &LoadDiagnostics) {
    let name = file.display();
    for e in d.errors.iter().take(10) {
        eprintln!("warning: {name}: {e}");
    }
    if d.errors.len() > 10 {
        eprintln!("warning: {name}: {} more errors", d.errors.len() - 10);
    }
    if d.lost_records > 0 {
        eprintln!(
            "warning: {name}: {} LOST records: {} events lost",
            d.lost_records, d.lost_events
        );
    }
    if d.lost_samples > 0 {
        eprintln!(
            "warning: {name}: {} samples lost (LOST_SAMPLES)",
            d.lost_samples
        );
    }
    if d.truncated > 0 {
        eprintln!(
            "warning: {name}: {} of {} DWARF-mode user stacks could not be unwound (no binary or unwind information for the leaf, or an architecture framehop does not unwind): marked [truncated]",
            d.truncated,
            d.truncated + d.unwound
        );
    }
}

/// Buffers of [`ChannelWriter`].
const WRITE_BUFFER: usize = 1 << 20;

/// A writer that hands full buffers to the thread of [`write_on_thread`] and takes empty ones
/// back (so the buffers' pages are touched once, not once per megabyte of output).
pub(crate) struct ChannelWriter {
    buf: Vec<u8>,
    full: std::sync::mpsc::SyncSender<Vec<u8>>,
    empty: std::sync::mpsc::Receiver<Vec<u8>>,
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        let next = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(WRITE_BUFFER));
        let full = std::mem::replace(&mut self.buf, next);
        // The writer thread stopped (a closed pipe): its error is the one to report.
        self.full
            .send(full)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

impl ChannelWriter {
    /// Sends a filled buffer as it is (after what was written before); returns an empty one.
    fn hand_over(&mut self, full: Vec<u8>) -> std::io::Result<Vec<u8>> {
        if !self.buf.is_empty() {
            self.send()?;
        }
        self.full
            .send(full)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        Ok(self.empty.try_recv().unwrap_or_default())
    }
}

impl std::io::Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= WRITE_BUFFER {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `produce` with a writer whose bytes go to `target` (a file, or standard output for
/// `-`) from a second thread, so that the system calls writing them (hundreds of MB of folded
/// text) overlap producing them.
pub(crate) fn write_on_thread(
    target: &Path,
    produce: impl FnOnce(&mut ChannelWriter) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
    let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> std::io::Result<()> {
            let mut out: Box<dyn std::io::Write> = if target.as_os_str() == "-" {
                Box::new(std::io::stdout().lock())
            } else {
                Box::new(std::fs::File::create(target)?)
            };
            for mut buf in full_rx {
                out.write_all(&buf)?;
                buf.clear();
                let _ = empty_tx.send(buf);
            }
            out.flush()
        });
        let mut w = ChannelWriter {
            buf: Vec::with_capacity(WRITE_BUFFER),
            full: full_tx,
            empty: empty_rx,
        };
        let produced = produce(&mut w).and_then(|()| w.send());
        drop(w);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the writer thread panicked")));
        // The writer's error (a closed pipe) explains a failed send.
        written.and(produced)
    })
}

/// `collapse` of a perf.data without filters, through the fast path
/// ([`perfscope_analysis::collapse`], frames named by the symbol sources unless
/// `--no-symbols`), written to `output` (`-`: standard output; a closed pipe ends the output
/// quietly): `None` when it does not apply (filters, share or text input, DWARF-mode stacks,
/// read values), for the general path to run.
pub fn run_fast(args: &ProfileArgs, output: &Path) -> Result<Option<ExitCode>, String> {
    let filtered = !args.event.is_empty()
        || !args.pid.is_empty()
        || !args.tid.is_empty()
        || args.time.is_some();
    if filtered || args.off_cpu || std::env::var_os("PERFSCOPE_COLLAPSE_GENERAL").is_some() {
        return Ok(None);
    }
    let input = Input::read(&args.file)?;
    if is_share(&input.bytes)
        || detect(&input.bytes).is_some()
        || !matches!(open(&input.bytes), Ok(Opened::PerfData))
    {
        return Ok(None);
    }
    let extra: Vec<&[u8]> = input.extra.iter().map(|(_, b)| &b[..]).collect();
    let threads = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
        && std::env::var_os("PERFSCOPE_COLLAPSE_ONE_THREAD").is_none();
    let collapse_fast = if threads {
        collapse_threaded_named
    } else {
        collapse_named
    };
    let started = std::time::Instant::now();
    // With symbols, frames are named as the general path names them (`[unknown]` without a
    // name).
    let resolver = if args.no_symbols {
        None
    } else {
        Some(symbol_resolver(args, &input.bytes)?)
    };
    let collapsed = match collapse_fast(&input.bytes, &extra, resolver)
        .map_err(|e| format!("{}: {e}", args.file.display()))?
    {
        Ok(c) => c,
        Err(_) => return Ok(None),
    };
    report_diagnostics(&args.file, &collapsed.diagnostics);
    if std::env::var_os("PERFSCOPE_COLLAPSE_STATS").is_some() {
        eprintln!(
            "collapse: {} samples, {} lines, stack entries {:?}",
            collapsed.diagnostics.kept_samples,
            collapsed.lines(),
            collapsed.counters
        );
    }
    let counted = started.elapsed();
    let had_errors = !collapsed.diagnostics.errors.is_empty();
    let written = write_on_thread(output, |out| {
        collapsed.write_buffers(|buf| out.hand_over(buf))
    });
    if std::env::var_os("PERFSCOPE_COLLAPSE_STATS").is_some() {
        eprintln!(
            "collapse: counted in {:.0} ms, sorted and written in {:.0} ms",
            counted.as_secs_f64() * 1e3,
            (started.elapsed() - counted).as_secs_f64() * 1e3
        );
    }
    // The process ends now: freeing the tables entry by entry would only cost time.
    std::mem::forget(collapsed);
    std::mem::forget(input);
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write {}: {e}", output.display()))
        }
        Err(_) => Ok(Some(ExitCode::SUCCESS)),
        Ok(()) if had_errors => Ok(Some(ExitCode::FAILURE)),
        Ok(()) => Ok(Some(ExitCode::SUCCESS)),
    }
}

/// Runs `perfscope collapse`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let stdout = Path::new("-");
    if let Some(code) = run_fast(&args.profile, stdout)? {
        return Ok(code);
    }
    // A perf.data or a share file (`perfscope export --format share`).
    let loaded = super::export::load_with(&args.profile, false)?;
    let options = FoldedOptions {
        weight: loaded.weight(WeightKind::Samples),
        ..FoldedOptions::default()
    };
    let written = write_on_thread(stdout, |out| {
        write_folded(&loaded.profile, &loaded.filter, options, out)
    });
    match written {
        // A closed pipe (`| head`).
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(format!("cannot write the folded stacks: {e}")),
        Ok(()) => {}
    }
    let had_errors = loaded.had_errors;
    // The process ends now: freeing millions of table entries one by one would only cost time.
    std::mem::forget(loaded);
    Ok(if had_errors {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_ranges_parse_like_perf() {
        assert_eq!(
            parse_time_range("3874.784783971,3875"),
            Ok((3_874_784_783_971, 3_875_000_000_000))
        );
        assert_eq!(parse_time_range(",1.5"), Ok((0, 1_500_000_000)));
        assert_eq!(parse_time_range("2.000001,"), Ok((2_000_001_000, u64::MAX)));
        assert!(parse_time_range("1.2.3,4").is_err());
        assert!(parse_time_range("12").is_err());
    }
}
