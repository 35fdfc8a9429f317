//! The folded stacks of a recording (`perfscope collapse`), without building a
//! [`crate::profile::Profile`]: the same text as [`crate::export::folded::write_folded`] over
//! the profile that [`crate::load::load_profile`] builds, byte for byte, with `module+0xoffset`
//! names (`--no-symbols`) or, given a resolver ([`collapse_named`]), function names and
//! `[unknown]`.
//!
//! Each sample is read into its line — the thread name's parts, then one text id per frame,
//! root first — and the line is counted in a table of distinct lines (one probe per sample,
//! the count kept in the table). A frame's text comes from a small direct-mapped cache by
//! (address, generation of its address space); only on a miss is it looked up (mapping, then
//! a `(module, offset)` → text table of a million entries, whose lookups miss the processor's
//! caches). At the end the lines are sorted by their bytes — by ranks of their texts, most
//! significant place first (`msd`) — and written, each line's start shared with the line
//! before copied from it.
//!
//! Records are delivered in time order as the loader delivers them (the same
//! [`crate::ordered::OrderedQueue`], flushed at the same FINISHED_ROUNDs: `order`), so each
//! sample sees the thread names and mappings the loader's would; but a queued sample is only
//! its pid, tid, mode and callchain words (left in the batch it was read into), and the
//! side-band records (MMAP, COMM, FORK, KSYMBOL) are decoded once, when read.
//!
//! [`collapse_threaded`] reads the records (framing, decompressing, decoding) and puts them in
//! time order on one thread (the order moves to the second when the records are compressed),
//! names the frames on another, counts the lines on a third, and sorts and formats them on
//! two.
//!
//! Not covered (the caller uses the general path): DWARF-mode stacks (they are unwound with
//! the binaries), and samples with PERF_SAMPLE_READ (delivered once per moved counter).

mod counter;
mod lines;
mod order;
mod reader;
mod state;

use perfscope_format::constants::HeaderFeature;
use perfscope_format::metadata::Metadata;
use perfscope_format::walk::walk;

use self::counter::{count_batches, Counter};
use self::lines::{Lines, Texts};
use self::order::Orderer;
use self::reader::{Batch, Event, Reader, Side, HAS_CALLCHAIN, KERNEL_IP, SAMPLE_HEADER};
use self::state::{Chain, State};
use crate::builder::CpuMode;
use crate::load::{LoadDiagnostics, LoadError};
use crate::symbols::resolver::SymbolResolver;

/// Why the fast path does not apply to a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// An event records DWARF-mode stacks (REGS_USER and STACK_USER), which are unwound.
    DwarfStacks,
    /// An event samples with PERF_SAMPLE_READ (perf delivers such a sample once per counter
    /// that moved).
    ReadValues,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unsupported::DwarfStacks => "DWARF-mode stacks",
            Unsupported::ReadValues => "samples with read values",
        })
    }
}

/// The counted lines of a recording, ready to be written.
pub struct Collapsed {
    texts: Texts,
    lines: Lines,
    /// What happened while reading (the loader's diagnostics, as far as they concern the
    /// folded output: errors, lost records, samples).
    pub diagnostics: LoadDiagnostics,
    /// Stack entries read, entries not in the frame cache (looked up),
    /// frame texts made.
    pub counters: [u64; 3],
    threaded: bool,
}

impl Collapsed {
    /// Distinct lines.
    pub fn lines(&self) -> usize {
        self.lines.len()
    }

    /// Writes the folded text: `comm;root;…;leaf count` lines in byte order (sorted and
    /// formatted on two threads when made by [`collapse_threaded`]).
    pub fn write(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        self.lines.write(&self.texts, self.threaded, out)
    }

    /// [`Collapsed::write`], handing each filled buffer (whole lines) to `sink`, which gives
    /// back an empty buffer to fill next: the text can be sent on without a copy.
    pub fn write_buffers(
        &self,
        mut sink: impl FnMut(Vec<u8>) -> std::io::Result<Vec<u8>>,
    ) -> std::io::Result<()> {
        self.lines
            .write_buffers(&self.texts, self.threaded, &mut sink)
    }
}

struct Collapser {
    state: State,
    texts: Texts,
    counter: Counter,
    token_buf: Vec<u32>,
    diag: LoadDiagnostics,
    unsupported: Option<Unsupported>,
}

/// Counts the folded lines of a recording (`data`, and a `--threads` directory's `extra`
/// files) as `perfscope collapse --no-symbols` prints them.
///
/// Returns the error that prevented reading any record (a bad file header), or what the fast
/// path does not cover.
///
/// ```
/// use perfscope_analysis::collapse::collapse;
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/example.data")).unwrap();
/// let folded = collapse(&bytes, &[]).unwrap().unwrap();
/// let mut out = Vec::new();
/// folded.write(&mut out).unwrap();
/// assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), folded.lines());
/// ```
pub fn collapse(data: &[u8], extra: &[&[u8]]) -> Result<Result<Collapsed, Unsupported>, LoadError> {
    collapse_named(data, extra, None)
}

/// [`collapse`], frames named by `resolver` when given: the function's name, else
/// `[unknown]`, as `perfscope collapse` prints them with symbols (the profile built with
/// [`crate::builder::UnknownNames::Unknown`]).
pub fn collapse_named(
    data: &[u8],
    extra: &[&[u8]],
    resolver: Option<SymbolResolver>,
) -> Result<Result<Collapsed, Unsupported>, LoadError> {
    let (c, lines) = run(data, extra, Counter::Here(Lines::default()), None, resolver)?;
    Ok(c.map(|c| c.into_collapsed(lines.unwrap_or_default())))
}

/// [`collapse`] on several threads (see the module docs). The same result.
pub fn collapse_threaded(
    data: &[u8],
    extra: &[&[u8]],
) -> Result<Result<Collapsed, Unsupported>, LoadError> {
    collapse_threaded_named(data, extra, None)
}

/// [`collapse_named`] on several threads (the frames are named on the calling thread). The
/// same result.
pub fn collapse_threaded_named(
    data: &[u8],
    extra: &[&[u8]],
    resolver: Option<SymbolResolver>,
) -> Result<Result<Collapsed, Unsupported>, LoadError> {
    // Decompressing makes the reading thread the busier one: the time order is then made on
    // the naming thread.
    threaded(
        data,
        extra,
        &|meta| meta.feature(HeaderFeature::COMPRESSED).is_none(),
        resolver,
    )
}

/// [`collapse_threaded`], the time order made on the reading thread when `order_on_reader`.
fn threaded(
    data: &[u8],
    extra: &[&[u8]],
    order_on_reader: &(dyn Fn(&Metadata) -> bool + Sync),
    resolver: Option<SymbolResolver>,
) -> Result<Result<Collapsed, Unsupported>, LoadError> {
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<u32>>(8);
        let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u32>>();
        let counting = scope.spawn(move || count_batches(full_rx, empty_tx));
        let counter = Counter::Batches {
            buf: Vec::new(),
            full: full_tx,
            empty: empty_rx,
            closed: false,
        };
        let (c, _) = run(data, extra, counter, Some(order_on_reader), resolver)?;
        // The sender is gone with the counter: the counting thread ends.
        let lines = counting
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        Ok(c.map(|c| Collapsed {
            threaded: true,
            ..c.into_collapsed(lines)
        }))
    })
}

/// Reads the records into `counter`; returns the state and, when counted here, the lines.
/// With `threads`, the records are read (framed, decompressed, decoded) on a thread of their
/// own.
fn run(
    data: &[u8],
    extra: &[&[u8]],
    counter: Counter,
    threads: Option<&(dyn Fn(&Metadata) -> bool + Sync)>,
    resolver: Option<SymbolResolver>,
) -> Result<(Result<Collapser, Unsupported>, Option<Lines>), LoadError> {
    let mut c = Collapser {
        state: State::with_resolver(resolver),
        texts: Texts::default(),
        counter,
        token_buf: Vec::new(),
        diag: LoadDiagnostics::default(),
        unsupported: None,
    };
    // Reads the records and hands over batches (`deliver` leaves them empty): in delivery
    // order when `order_here(metadata)` (asked at the first full batch), else in file order.
    let read = |order_here: &(dyn Fn(&Metadata) -> bool + Sync),
                mut deliver: &mut dyn FnMut(&mut Batch)| {
        let mut reader = Reader::default();
        let mut orderer = Orderer::default();
        let (mut batch, mut out) = (Batch::default(), Batch::default());
        let mut here = None;
        let mut hand_over = |here: bool, batch: &mut Batch, out: &mut Batch| {
            if here {
                orderer.accept(batch, out, &mut deliver);
                batch.clear();
            } else {
                batch.unordered = true;
                deliver(batch);
            }
        };
        let walked = walk(data, extra, |meta, _part, item| {
            reader.item(meta, item, &mut batch);
            if batch.is_full() {
                let h = *here.get_or_insert_with(|| order_here(meta));
                hand_over(h, &mut batch, &mut out);
            }
        });
        let h = here.unwrap_or_else(|| walked.as_ref().map_or(true, order_here));
        hand_over(h, &mut batch, &mut out);
        orderer.finish(&mut out, &mut deliver);
        deliver(&mut out);
        walked.map(|_| (reader, orderer))
    };
    let (reader, orderer) = if let Some(order_on_reader) = threads {
        std::thread::scope(|scope| {
            let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Batch>(4);
            let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Batch>();
            let reading = scope.spawn(move || {
                read(order_on_reader, &mut |b: &mut Batch| {
                    let next = empty_rx.try_recv().unwrap_or_default();
                    // A closed channel: the delivery stopped (it cannot before the end).
                    let _ = full_tx.send(std::mem::replace(b, next));
                })
            });
            let mut orderer = Orderer::default();
            let mut out = Batch::default();
            for mut batch in full_rx {
                if batch.unordered {
                    orderer.accept(&mut batch, &mut out, &mut |b| c.take(b));
                }
                c.take(&mut batch);
                let _ = empty_tx.send(batch);
            }
            orderer.finish(&mut out, &mut |b| c.take(b));
            c.take(&mut out);
            reading
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))
                .map(|(reader, theirs)| (reader, [theirs, orderer]))
        })
    } else {
        read(&|_| true, &mut |b: &mut Batch| c.take(b))
            .map(|(reader, orderer)| (reader, [orderer, Orderer::default()]))
    }
    .map_err(LoadError::Format)?;
    if let Some(u) = c.unsupported {
        return Ok((Err(u), None));
    }
    // One of the two ordered the records.
    c.diag.late_records = orderer.iter().map(|o| o.late).sum();
    c.diag.copied_records = orderer.iter().map(|o| o.queued).sum();
    let r = reader.diag;
    let d = &mut c.diag;
    d.lost_records = r.lost_records;
    d.lost_events = r.lost_events;
    d.lost_samples = r.lost_samples;
    d.throttles = r.throttles;
    d.unthrottles = r.unthrottles;
    let counter = std::mem::replace(&mut c.counter, Counter::Here(Lines::default()));
    let lines = counter.finish();
    Ok((Ok(c), lines))
}

impl Collapser {
    fn into_collapsed(self, lines: Lines) -> Collapsed {
        Collapsed {
            counters: self.state.counters,
            texts: self.texts,
            lines,
            diagnostics: self.diag,
            threaded: false,
        }
    }

    /// Takes the events of a batch in delivery order (none, when it is in file order: an
    /// [`Orderer`] takes those) and leaves it empty.
    fn take(&mut self, batch: &mut Batch) {
        if !batch.unordered {
            self.accept(batch);
        }
        batch.clear();
    }

    /// Takes the events of a batch, in delivery order.
    fn accept(&mut self, batch: &Batch) {
        for event in &batch.events {
            if self.unsupported.is_some() {
                return;
            }
            match event {
                Event::Round => {}
                Event::Error(e) => self.diag.errors.push(*e),
                Event::Unsupported(u) => self.unsupported = Some(*u),
                &Event::Sample { start, end, .. } => Self::count(
                    &mut self.state,
                    &mut self.texts,
                    &mut self.counter,
                    &mut self.token_buf,
                    &mut self.diag,
                    batch.words.get(start..end).unwrap_or(&[]),
                ),
                Event::Side { side, .. } => self.apply(side.clone()),
            }
        }
    }

    fn apply(&mut self, side: Side) {
        match side {
            Side::Mmap {
                pid,
                start,
                len,
                pgoff,
                filename,
                build_id,
            } => self
                .state
                .mmap(pid, start, len, pgoff, &filename, build_id.as_deref()),
            Side::BuildId { filename, build_id } => self.state.build_id(filename, build_id),
            Side::Comm { pid, tid, name } => self.state.comm(pid, tid, &name),
            Side::Fork {
                ppid,
                ptid,
                pid,
                tid,
            } => self.state.fork(ppid, ptid, pid, tid),
            Side::Ksymbol { addr, len, name } => self.state.ksymbol(addr, len, &name),
        }
    }

    /// Counts one delivered sample: `words` is its header and callchain as queued.
    fn count(
        state: &mut State,
        texts: &mut Texts,
        counter: &mut Counter,
        tokens: &mut Vec<u32>,
        diag: &mut LoadDiagnostics,
        words: &[u64],
    ) {
        let [pid_tid, flags, ip, n] = match words.get(..SAMPLE_HEADER) {
            Some(&[a, b, c, d]) => [a, b, c, d],
            _ => return,
        };
        let chain_words = words
            .get(SAMPLE_HEADER..SAMPLE_HEADER.saturating_add(n as usize))
            .unwrap_or(&[]);
        let (pid, tid) = (pid_tid as u32, (pid_tid >> 32) as u32);
        diag.samples += 1;
        diag.kept_samples += 1;
        let mode = if flags & KERNEL_IP != 0 {
            CpuMode::Kernel
        } else {
            CpuMode::User
        };
        let chain = if flags & HAS_CALLCHAIN != 0 {
            Chain::Callchain(chain_words, mode)
        } else {
            Chain::Ip(ip, mode)
        };
        counter.line(tokens, |out| state.line(texts, pid, tid, chain, out));
    }
}

#[cfg(test)]
mod tests;
