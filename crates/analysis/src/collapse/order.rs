//! Time order for the collapse fast path: the events of file-order batches become batches of
//! events in delivery order (the loader's [`OrderedQueue`], flushed at the same
//! FINISHED_ROUNDs), none of them waiting any more. A batch's words are kept (not copied)
//! while some of its samples wait. It runs on the reading thread, or on the naming thread when
//! decompressing keeps the reading thread busy (see `collapse_threaded`).

use std::collections::VecDeque;

use super::reader::{Batch, Event, Side};
use crate::ordered::OrderedQueue;

/// A queued record.
#[derive(Clone, Copy, Debug)]
enum Queued {
    /// A sample in the words of batch `chunk`, from word `start` to `end`.
    Sample {
        chunk: u64,
        start: usize,
        end: usize,
    },
    /// `side[i]`.
    Side(usize),
}

/// The words of a batch some of whose samples wait, with how many still do.
struct Chunk {
    words: Vec<u64>,
    live: usize,
}

/// Puts events in delivery order (see the module docs).
#[derive(Default)]
pub(super) struct Orderer {
    queue: OrderedQueue<Queued>,
    /// The words of the batches taken before the one being taken, from `first_chunk` on.
    chunks: VecDeque<Chunk>,
    first_chunk: u64,
    /// Words of delivered batches, given to the next batches taken in their place.
    spare: Vec<Vec<u64>>,
    side: Vec<Option<Side>>,
    /// Records that arrived after a record with a later time was delivered.
    pub late: u64,
    /// Samples that waited for their turn.
    pub queued: u64,
}

/// The batch being taken: its words, and how many of its samples wait.
struct Current<'a> {
    id: u64,
    words: &'a [u64],
    live: usize,
}

impl Orderer {
    /// Takes a batch in file order: what can go at once goes to `out`, the rest waits for its
    /// turn. `full` is given `out` whenever it is full, and leaves it empty. The batch's words
    /// are kept while some of its samples wait (not copied): it is given other words.
    pub fn accept(
        &mut self,
        batch: &mut Batch,
        out: &mut Batch,
        full: &mut impl FnMut(&mut Batch),
    ) {
        let mut current = Current {
            id: self.first_chunk + self.chunks.len() as u64,
            words: &batch.words,
            live: 0,
        };
        for event in &batch.events {
            match event {
                Event::Round => self.finished_round(&mut current, out, full),
                Event::Error(e) => out.events.push(Event::Error(*e)),
                Event::Unsupported(u) => out.events.push(Event::Unsupported(*u)),
                &Event::Sample { time, start, end } => match time {
                    Some(time) => {
                        let chunk = current.id;
                        self.queue.push(time, Queued::Sample { chunk, start, end });
                        current.live += 1;
                        self.queued += 1;
                    }
                    None => out.push_sample(current.words.get(start..end).unwrap_or(&[])),
                },
                Event::Side {
                    time: Some(time),
                    side,
                } => {
                    self.side.push(Some(side.clone()));
                    self.queue.push(*time, Queued::Side(self.side.len() - 1));
                }
                Event::Side { time: None, side } => out.events.push(Event::Side {
                    time: None,
                    side: side.clone(),
                }),
            }
            if out.is_full() {
                full(out);
            }
        }
        let live = current.live;
        if live > 0 {
            let spare = self.spare.pop().unwrap_or_default();
            let words = std::mem::replace(&mut batch.words, spare);
            self.chunks.push_back(Chunk { words, live });
        }
    }

    /// The end of the input: everything still queued, in order.
    pub fn finish(&mut self, out: &mut Batch, full: &mut impl FnMut(&mut Batch)) {
        let mut none = Current {
            id: u64::MAX,
            words: &[],
            live: 0,
        };
        let mut queue = std::mem::take(&mut self.queue);
        queue.finish(|_, q| self.deliver(q, &mut none, out, full));
        self.late = queue.late;
        self.queue = queue;
    }

    fn finished_round(
        &mut self,
        current: &mut Current<'_>,
        out: &mut Batch,
        full: &mut impl FnMut(&mut Batch),
    ) {
        let mut queue = std::mem::take(&mut self.queue);
        queue.finished_round(|_, q| self.deliver(q, current, out, full));
        self.queue = queue;
        self.reclaim();
    }

    fn deliver(
        &mut self,
        q: Queued,
        current: &mut Current<'_>,
        out: &mut Batch,
        full: &mut impl FnMut(&mut Batch),
    ) {
        match q {
            Queued::Side(i) => {
                if let Some(side) = self.side.get_mut(i).and_then(Option::take) {
                    out.events.push(Event::Side { time: None, side });
                }
            }
            Queued::Sample { chunk, start, end } if chunk == current.id => {
                current.live = current.live.saturating_sub(1);
                out.push_sample(current.words.get(start..end).unwrap_or(&[]));
            }
            Queued::Sample { chunk, start, end } => {
                let index = usize::try_from(chunk - self.first_chunk).unwrap_or(usize::MAX);
                let Some(c) = self.chunks.get_mut(index) else {
                    return;
                };
                c.live = c.live.saturating_sub(1);
                out.push_sample(c.words.get(start..end).unwrap_or(&[]));
            }
        }
        if out.is_full() {
            full(out);
        }
    }

    /// Recycles the oldest chunks whose samples were all delivered.
    fn reclaim(&mut self) {
        while self.chunks.front().is_some_and(|c| c.live == 0) {
            if let Some(mut c) = self.chunks.pop_front() {
                self.first_chunk += 1;
                if self.spare.len() < 8 {
                    c.words.clear();
                    self.spare.push(c.words);
                }
            }
        }
        // Every queued side record was delivered: their slots can go.
        if self.queue.is_empty() {
            self.side.clear();
        }
    }
}
