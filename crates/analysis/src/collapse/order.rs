//! Time order on the reading side of the collapse fast path: the events of file-order batches
//! become batches of events in delivery order (the loader's [`OrderedQueue`], flushed at the
//! same FINISHED_ROUNDs), none of them waiting any more. With the reading on a thread of its
//! own, the queue's work (copying sample words into a round's arena, sorting, releasing) runs
//! there, not on the thread that names frames.

use std::collections::VecDeque;

use super::reader::{Batch, Event, Side};
use crate::ordered::OrderedQueue;

/// A queued record.
#[derive(Clone, Copy, Debug)]
enum Queued {
    /// A sample in the arena of round `chunk`, from word `start` to `end`.
    Sample {
        chunk: u64,
        start: usize,
        end: usize,
    },
    /// `side[i]`.
    Side(usize),
}

/// A round's sample words, with how many of its samples are still queued.
#[derive(Default)]
struct Chunk {
    words: Vec<u64>,
    live: usize,
}

/// Puts events in delivery order (see the module docs).
pub(super) struct Orderer {
    queue: OrderedQueue<Queued>,
    chunks: VecDeque<Chunk>,
    first_chunk: u64,
    spare: Vec<Vec<u64>>,
    side: Vec<Option<Side>>,
    /// Records that arrived after a record with a later time was delivered.
    pub late: u64,
    /// Samples copied into a round's arena to wait for their turn.
    pub copied: u64,
}

impl Default for Orderer {
    fn default() -> Self {
        Orderer {
            queue: OrderedQueue::new(),
            chunks: VecDeque::from([Chunk::default()]),
            first_chunk: 0,
            spare: Vec::new(),
            side: Vec::new(),
            late: 0,
            copied: 0,
        }
    }
}

impl Orderer {
    /// Takes a batch in file order: what can go at once goes to `out`, the rest waits for its
    /// turn. `full` is given `out` whenever it is full, and leaves it empty.
    pub fn accept(&mut self, batch: &Batch, out: &mut Batch, full: &mut impl FnMut(&mut Batch)) {
        for event in &batch.events {
            match event {
                Event::Round => self.finished_round(out, full),
                Event::Error(e) => out.events.push(Event::Error(*e)),
                Event::Unsupported(u) => out.events.push(Event::Unsupported(*u)),
                &Event::Sample { time, start, end } => {
                    let words = batch.words.get(start..end).unwrap_or(&[]);
                    match time {
                        Some(time) => self.queue_sample(time, words),
                        None => out.push_sample(words),
                    }
                }
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
    }

    /// The end of the input: everything still queued, in order.
    pub fn finish(&mut self, out: &mut Batch, full: &mut impl FnMut(&mut Batch)) {
        let mut queue = std::mem::take(&mut self.queue);
        queue.finish(|_, q| self.deliver(q, out, full));
        self.late = queue.late;
        self.queue = queue;
    }

    fn queue_sample(&mut self, time: u64, words: &[u64]) {
        if self.chunks.is_empty() {
            self.chunks.push_back(Chunk::default());
        }
        let chunk_id = self.first_chunk + self.chunks.len() as u64 - 1;
        let Some(chunk) = self.chunks.back_mut() else {
            return;
        };
        let start = chunk.words.len();
        chunk.words.extend_from_slice(words);
        chunk.live += 1;
        self.queue.push(
            time,
            Queued::Sample {
                chunk: chunk_id,
                start,
                end: chunk.words.len(),
            },
        );
        self.copied += 1;
    }

    fn finished_round(&mut self, out: &mut Batch, full: &mut impl FnMut(&mut Batch)) {
        let mut queue = std::mem::take(&mut self.queue);
        queue.finished_round(|_, q| self.deliver(q, out, full));
        self.queue = queue;
        self.reclaim();
        let words = self.spare.pop().unwrap_or_default();
        self.chunks.push_back(Chunk { words, live: 0 });
    }

    fn deliver(&mut self, q: Queued, out: &mut Batch, full: &mut impl FnMut(&mut Batch)) {
        match q {
            Queued::Side(i) => {
                if let Some(side) = self.side.get_mut(i).and_then(Option::take) {
                    out.events.push(Event::Side { time: None, side });
                }
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

    /// Recycles the oldest chunks whose samples were all delivered (never the newest one).
    fn reclaim(&mut self) {
        while self.chunks.len() > 1 && self.chunks.front().is_some_and(|c| c.live == 0) {
            if let Some(mut c) = self.chunks.pop_front() {
                self.first_chunk += 1;
                if self.spare.len() < 4 {
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
