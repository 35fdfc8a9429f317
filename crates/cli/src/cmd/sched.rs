//! `perfscope sched`: one line per tracepoint sample, in time order, with its fields decoded
//! from the event formats of the file's tracing data — the lines `perf script -F
//! comm,pid,tid,cpu,time,event,trace --ns` prints.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::ordered::OrderedQueue;
use perfscope_analysis::symbols::kallsyms::Kallsyms;
use perfscope_analysis::tracepoint::{KernelSymbols, TraceData};
use perfscope_format::bytes::Bytes;
use perfscope_format::constants::attr_type;
use perfscope_format::metadata::Metadata;
use perfscope_format::walk::Item;
use perfscope_format::{HeaderFeature, RawRecord, Record};

use super::input::{read_bytes, Input};
use super::walk::walk;

/// Arguments of `perfscope sched`.
#[derive(clap::Args)]
pub struct Args {
    /// A kallsyms file (plain or gzipped) to name kernel addresses printed with `%pS`, as perf
    /// names them from the machine's kernel symbols.
    #[arg(long, value_name = "FILE")]
    kallsyms: Option<PathBuf>,
    /// Print every field as `name=value` instead of the event's print format.
    #[arg(long)]
    fields: bool,
    /// Process records in file order instead of time order (what perf script does when it
    /// shows round events: comm names are then those known at that point of the file).
    #[arg(long)]
    file_order: bool,
    /// A perf.data file or a `perf record --threads` directory.
    file: PathBuf,
}

/// What is kept of a record until its turn in time order comes.
enum Pending {
    Comm { tid: u32, comm: String },
    Fork { tid: u32, ptid: u32 },
    Sample(TpSample),
}

struct TpSample {
    config: u64,
    pid: u32,
    tid: u32,
    cpu: Option<u32>,
    time: Option<u64>,
    raw: Vec<u8>,
}

struct State<W: Write> {
    out: W,
    args_fields: bool,
    trace: Option<TraceData>,
    kallsyms: Option<Kallsyms>,
    /// comm by tid, as perf's threads have it at the time being processed.
    comms: HashMap<u32, String>,
    name_width: usize,
    failed: bool,
    io_error: Option<io::Error>,
}

/// Runs `perfscope sched`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let kallsyms = match &args.kallsyms {
        Some(p) => {
            let bytes = read_bytes(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            Some(Kallsyms::parse(&bytes).map_err(|e| format!("{}: {e:?}", p.display()))?)
        }
        None => None,
    };
    let input = Input::read(&args.file)?;
    let name = args.file.display().to_string();
    let mut st = State {
        out: BufWriter::new(io::stdout().lock()),
        args_fields: args.fields,
        trace: None,
        kallsyms,
        // perf's machine starts with the idle task named `swapper`.
        comms: HashMap::from([(0, "swapper".to_string())]),
        name_width: 0,
        failed: false,
        io_error: None,
    };
    let mut queue: OrderedQueue<Pending> = OrderedQueue::new();
    let file_order = args.file_order;
    let mut have_trace = false;
    let result = walk(&input, |meta, _part, item| match item {
        Item::Record(raw) => {
            if !have_trace && !meta.pipe {
                have_trace = true;
                st.set_trace(
                    meta,
                    meta.feature(HeaderFeature::TRACING_DATA)
                        .map(TraceData::parse),
                );
            }
            st.record(meta, raw, &mut queue);
            if file_order {
                queue.finish(|_, p| st.release(p));
            }
        }
        Item::Error(e) => {
            eprintln!("error: {name}: {e}");
            st.failed = true;
        }
    });
    if let Err(e) = result {
        eprintln!("error: {name}: {e}");
        st.failed = true;
    }
    queue.finish(|_, p| st.release(p));
    if st.trace.is_none() {
        eprintln!("error: {name}: no tracing data (HEADER_TRACING_DATA): the file has no tracepoint events");
        st.failed = true;
    }
    match st.io_error.take() {
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Some(e) => return Err(format!("cannot write: {e}")),
        None => {}
    }
    if let Err(e) = st.out.flush() {
        if e.kind() != io::ErrorKind::BrokenPipe {
            return Err(format!("cannot write: {e}"));
        }
    }
    Ok(if st.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

impl<W: Write> State<W> {
    fn set_trace(&mut self, meta: &Metadata, trace: Option<TraceData>) {
        let Some(trace) = trace else { return };
        if let Some(e) = &trace.error {
            eprintln!("warning: tracing data: {e}");
        }
        // perf pads the event name to the longest name of the file's events.
        self.name_width = meta
            .attrs
            .iter()
            .filter_map(|a| trace.event_for_attr(&a.attr))
            .map(|e| e.full_name().len())
            .max()
            .unwrap_or(0);
        self.trace = Some(trace);
    }

    fn record(&mut self, meta: &Metadata, raw: &RawRecord<'_>, queue: &mut OrderedQueue<Pending>) {
        let rec = match meta.parse(raw) {
            Ok(r) => r,
            Err(e) => {
                eprintln!(
                    "error: {} record at 0x{:x}: {e}",
                    raw.header.type_, raw.offset
                );
                self.failed = true;
                return;
            }
        };
        let time = rec.time().unwrap_or(0);
        match rec {
            Record::TracingData(t) => {
                let trace = TraceData::parse(Bytes::new(t.data, raw.offset, meta.endian));
                self.set_trace(meta, Some(trace));
            }
            Record::Comm(c) => {
                let comm = c.comm.to_string();
                queue.push(time, Pending::Comm { tid: c.tid, comm });
            }
            Record::Fork(f) => queue.push(
                f.time,
                Pending::Fork {
                    tid: f.tid,
                    ptid: f.ptid,
                },
            ),
            Record::Mmap(m) => self.kernel_map(&m.filename.to_string(), m.pgoff),
            Record::Mmap2(m) => self.kernel_map(&m.filename.to_string(), m.pgoff),
            Record::Sample(s) => {
                let Some(attr) = meta.events.attr(s.event) else {
                    return;
                };
                let (Some(raw_data), true) = (s.raw, attr.type_ == attr_type::TRACEPOINT) else {
                    return;
                };
                let sample = TpSample {
                    config: attr.config,
                    pid: s.pid.unwrap_or(u32::MAX),
                    tid: s.tid.unwrap_or(u32::MAX),
                    cpu: s.cpu,
                    time: s.time,
                    raw: raw_data.to_vec(),
                };
                queue.push(time, Pending::Sample(sample));
            }
            Record::FinishedRound => queue.finished_round(|_, p| self.release(p)),
            _ => {}
        }
    }

    /// The kernel map names the reference symbol whose run-time address is its pgoff.
    fn kernel_map(&mut self, filename: &str, pgoff: u64) {
        if let (Some(k), true) = (
            &mut self.kallsyms,
            filename.starts_with("[kernel.kallsyms]"),
        ) {
            k.relocate_for_map(filename, pgoff);
        }
    }

    fn release(&mut self, p: Pending) {
        match p {
            Pending::Comm { tid, comm } => {
                self.comms.insert(tid, comm);
            }
            Pending::Fork { tid, ptid } => {
                if let Some(c) = self.comms.get(&ptid).cloned() {
                    self.comms.entry(tid).or_insert(c);
                }
            }
            Pending::Sample(s) => {
                if self.io_error.is_some() {
                    return;
                }
                if let Err(e) = self.print(&s) {
                    self.io_error = Some(e);
                }
            }
        }
    }

    fn print(&mut self, s: &TpSample) -> io::Result<()> {
        let Some(trace) = &self.trace else {
            return Ok(());
        };
        let Some(event) = trace.event(s.config) else {
            writeln!(self.out, "unknown tracepoint id {}", s.config)?;
            return Ok(());
        };
        let comm = self
            .comms
            .get(&s.tid)
            .cloned()
            .unwrap_or_else(|| format!(":{}", s.tid as i32));
        let mut line = format!("{comm:>16} {:>5}/{:<5}", s.pid as i32, s.tid as i32);
        if let Some(cpu) = s.cpu {
            line.push_str(&format!(" [{cpu:03}]"));
        }
        if let Some(t) = s.time {
            line.push_str(&format!(
                " {:>5}.{:09}:",
                t / 1_000_000_000,
                t % 1_000_000_000
            ));
        }
        let text = if self.args_fields {
            let parts: Vec<String> = event
                .values(&s.raw)
                .map(|(n, v)| {
                    format!(
                        "{n}={}",
                        v.map_or_else(|| "?".to_string(), |v| v.to_string())
                    )
                })
                .collect();
            parts.join(" ")
        } else {
            let symbols: Option<&dyn KernelSymbols> =
                self.kallsyms.as_ref().map(|k| k as &dyn KernelSymbols);
            trace.render(event, &s.raw, symbols)
        };
        writeln!(
            self.out,
            "{line} {:>w$}: {text}",
            event.full_name(),
            w = self.name_width
        )
    }
}
