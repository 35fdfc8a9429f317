//! `perfscope`: read perf.data files on the command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// Read perf.data files: what was recorded, record counts, records, stacks.
#[derive(Parser)]
#[command(name = "perfscope", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Header facts: host, kernel, perf version, CPUs, command line, events, features.
    Info(cmd::info::Args),
    /// Record counts per type, as `perf report --stats` counts them.
    Stats(cmd::stats::Args),
    /// Every record in file order with its decoded fields (`--json`: one object per line).
    Script(cmd::script::Args),
    /// Tracepoint samples in time order with their fields decoded, like `perf script`'s trace field.
    Sched(cmd::sched::Args),
    /// Write a recording as pprof, folded stacks, SVG flame graph, speedscope JSON or a share file.
    Export(cmd::export::Args),
    /// Functions of two recordings sorted by how much their share of the samples changed.
    Diff(cmd::diff::Args),
    /// Folded stacks (`comm;root;...;leaf count`), as inferno-collapse-perf prints them.
    Collapse(cmd::collapse::Args),
    /// A standalone interactive SVG flame graph.
    Flamegraph(cmd::flamegraph::Args),
    /// Functions by self and total weight, like `perf report --no-children`.
    Report(cmd::report::Args),
    /// Threads over time: lifetime, samples, on- and off-CPU time from context switches.
    Timeline(cmd::timeline::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => cmd::info::run(&args),
        Command::Stats(args) => cmd::stats::run(&args),
        Command::Script(args) => cmd::script::run(&args),
        Command::Sched(args) => cmd::sched::run(&args),
        Command::Export(args) => cmd::export::run(&args),
        Command::Diff(args) => cmd::diff::run(&args),
        Command::Collapse(args) => cmd::collapse::run(&args),
        Command::Flamegraph(args) => cmd::flamegraph::run(&args),
        Command::Report(args) => cmd::report::run(&args),
        Command::Timeline(args) => cmd::timeline::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("perfscope: {e}");
            ExitCode::from(2)
        }
    }
}
