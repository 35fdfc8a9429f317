//! [`RecordQueue`]: records waiting for their turn in time order, each copied into an arena of
//! per-round chunks, so the queue never points into the caller's input and its memory stays
//! proportional to the rounds it holds (about two).
//!
//! Records pushed between two FINISHED_ROUNDs go into one chunk. A chunk is recycled (its
//! allocation kept for a later round) once every record in it was released; records are
//! released in time order, so a chunk can outlive its round by one or two rounds, no more
//! unless records arrive late.

use std::collections::VecDeque;

use perfscope_format::records::{RawRecord, RecordHeader};
use perfscope_format::Endianness;

use crate::ordered::OrderedQueue;

/// Where a queued record's body is, and the fields of its [`RawRecord`].
#[derive(Clone, Copy, Debug)]
struct Slot {
    header: RecordHeader,
    offset: u64,
    inner_offset: Option<u64>,
    /// The body's place in its chunk's bytes.
    start: usize,
    len: usize,
    /// The number the pusher gave the record.
    seq: u64,
}

/// The records of one round: their bodies, and their slots in arrival order. A slot is read
/// once, when its record is released; the queue's sort moves only (chunk, slot) pairs, and the
/// slots of a round are released in about the order they were written (each CPU's records
/// arrive in time order), so the reads go through them almost in sequence. (Slots in one
/// table, reused through a free list, were read at random: the read of the slot was most of
/// the release.)
#[derive(Debug, Default)]
struct Chunk {
    bytes: Vec<u8>,
    slots: Vec<Slot>,
    /// Records of this chunk not released yet.
    live: usize,
}

impl Chunk {
    fn allocated(&self) -> usize {
        self.bytes.capacity() + self.slots.capacity() * std::mem::size_of::<Slot>()
    }
}

/// Chunks kept for reuse at most.
const SPARE_CHUNKS: usize = 4;

/// Records in (time, arrival) order, released at round ends; see the module docs.
#[derive(Debug)]
pub(crate) struct RecordQueue {
    /// (chunk id, slot index in that chunk) of each record (the sort moves small entries).
    queue: OrderedQueue<(u64, u32)>,
    chunks: VecDeque<Chunk>,
    /// The id of `chunks[0]` (ids grow by one per round).
    first_chunk: u64,
    /// Emptied chunks, their allocations kept for later rounds.
    spare: Vec<Chunk>,
    /// Body bytes held now.
    held: usize,
    /// The most body bytes held at once.
    pub max_held: usize,
    /// The most bytes allocated for chunks at once (bodies and slots: held, spare and slack).
    pub max_allocated: usize,
}

impl RecordQueue {
    pub(crate) fn new() -> RecordQueue {
        RecordQueue {
            queue: OrderedQueue::new(),
            chunks: VecDeque::from([Chunk::default()]),
            first_chunk: 0,
            spare: Vec::new(),
            held: 0,
            max_held: 0,
            max_allocated: 0,
        }
    }

    /// Records queued.
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Records that arrived older than what was already released.
    pub(crate) fn late(&self) -> u64 {
        self.queue.late
    }

    /// Queues a copy of `rec` (its header and body; trailing payloads are not kept), released
    /// with `seq`.
    pub(crate) fn push(&mut self, time: u64, rec: &RawRecord<'_>, seq: u64) {
        if self.chunks.is_empty() {
            self.chunks.push_back(Chunk::default());
        }
        let chunk_id = self.first_chunk + self.chunks.len() as u64 - 1;
        let Some(chunk) = self.chunks.back_mut() else {
            return;
        };
        let Ok(index) = u32::try_from(chunk.slots.len()) else {
            return;
        };
        let before = chunk.allocated();
        let start = chunk.bytes.len();
        chunk.bytes.extend_from_slice(rec.body);
        chunk.slots.push(Slot {
            header: rec.header,
            offset: rec.offset,
            inner_offset: rec.inner_offset,
            start,
            len: rec.body.len(),
            seq,
        });
        chunk.live += 1;
        let grown = chunk.allocated() > before;
        self.held += rec.body.len();
        self.max_held = self.max_held.max(self.held);
        if grown {
            self.max_allocated = self.max_allocated.max(self.allocated());
        }
        self.queue.push(time, (chunk_id, index));
    }

    /// A record with this time that is not queued ([`OrderedQueue::note_time`]).
    pub(crate) fn note_time(&mut self, time: u64) {
        self.queue.note_time(time);
    }

    fn allocated(&self) -> usize {
        self.chunks.iter().map(Chunk::allocated).sum::<usize>()
            + self.spare.iter().map(Chunk::allocated).sum::<usize>()
    }

    /// A FINISHED_ROUND: releases, in time order, every record up to the newest time of the
    /// previous round, and starts a new chunk for the records that follow.
    pub(crate) fn finished_round(
        &mut self,
        endian: Endianness,
        mut release: impl FnMut(&RawRecord<'_>, u64),
    ) {
        let (queue, mut store) = self.split();
        queue.finished_round(|_, at| store.release(endian, at, &mut release));
        self.reclaim();
        let chunk = self.spare.pop().unwrap_or_default();
        self.chunks.push_back(chunk);
    }

    /// The end of the input: releases everything, in time order.
    pub(crate) fn finish(
        &mut self,
        endian: Endianness,
        mut release: impl FnMut(&RawRecord<'_>, u64),
    ) {
        let (queue, mut store) = self.split();
        queue.finish(|_, at| store.release(endian, at, &mut release));
        self.reclaim();
    }

    fn split(&mut self) -> (&mut OrderedQueue<(u64, u32)>, Store<'_>) {
        let store = Store {
            chunks: &mut self.chunks,
            first_chunk: self.first_chunk,
            held: &mut self.held,
        };
        (&mut self.queue, store)
    }

    /// Recycles the oldest chunks whose records were all released (never the newest one).
    fn reclaim(&mut self) {
        while self.chunks.len() > 1 && self.chunks.front().is_some_and(|c| c.live == 0) {
            if let Some(mut c) = self.chunks.pop_front() {
                self.first_chunk += 1;
                if self.spare.len() < SPARE_CHUNKS {
                    c.bytes.clear();
                    c.slots.clear();
                    self.spare.push(c);
                }
            }
        }
    }
}

/// The chunks, borrowed apart from the queue while it releases.
struct Store<'q> {
    chunks: &'q mut VecDeque<Chunk>,
    first_chunk: u64,
    held: &'q mut usize,
}

impl Store<'_> {
    fn release(
        &mut self,
        endian: Endianness,
        (chunk, index): (u64, u32),
        release: &mut impl FnMut(&RawRecord<'_>, u64),
    ) {
        let at = chunk.checked_sub(self.first_chunk).map(usize::try_from);
        let Some(chunk) = at.and_then(Result::ok).and_then(|i| self.chunks.get_mut(i)) else {
            return;
        };
        let Some(&slot) = chunk.slots.get(index as usize) else {
            return;
        };
        let body = chunk
            .bytes
            .get(slot.start..slot.start.saturating_add(slot.len))
            .unwrap_or(&[]);
        let rec = RawRecord {
            offset: slot.offset,
            inner_offset: slot.inner_offset,
            endian,
            header: slot.header,
            body,
            payload: &[],
        };
        release(&rec, slot.seq);
        chunk.live = chunk.live.saturating_sub(1);
        *self.held = self.held.saturating_sub(slot.len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_format::RecordType;

    fn raw(offset: u64, body: &[u8]) -> RawRecord<'_> {
        let header = RecordHeader {
            type_: RecordType::SAMPLE,
            misc: 0,
            size: 8 + body.len() as u16,
        };
        RawRecord {
            offset,
            inner_offset: None,
            endian: Endianness::Little,
            header,
            body,
            payload: &[],
        }
    }

    #[test]
    fn records_come_back_in_time_order_as_copies_with_their_numbers_and_chunks_are_recycled() {
        let mut q = RecordQueue::new();
        let mut out: Vec<(u64, Vec<u8>, u64)> = Vec::new();
        let mut take = |r: &RawRecord<'_>, seq: u64| out.push((r.offset, r.body.to_vec(), seq));
        {
            // The caller's buffer is gone after the push.
            let input = [1u8, 2, 3, 9, 9].to_vec();
            q.push(30, &raw(0x10, &input[..3]), 0);
            q.push(10, &raw(0x20, &input[3..]), 1);
        }
        q.finished_round(Endianness::Little, &mut take);
        q.push(20, &raw(0x30, &[7; 4]), 2);
        q.push(40, &raw(0x40, &[8; 2]), 3);
        q.finished_round(Endianness::Little, &mut take);
        // Round 1's newest time was 30: 10, 20, 30 go out; the first chunk is empty now.
        assert_eq!(q.chunks.len(), 2);
        assert_eq!(q.held, 2);
        q.finish(Endianness::Little, &mut take);
        assert_eq!(
            out,
            [
                (0x20, vec![9, 9], 1),
                (0x30, vec![7; 4], 2),
                (0x10, vec![1, 2, 3], 0),
                (0x40, vec![8; 2], 3)
            ]
        );
        assert_eq!(q.max_held, 11);
        assert_eq!(q.held, 0);
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn a_recycled_chunk_holds_the_next_rounds_records_and_slots_not_the_old_ones() {
        let mut q = RecordQueue::new();
        let mut out: Vec<(u64, Vec<u8>, u64)> = Vec::new();
        let mut take = |r: &RawRecord<'_>, seq: u64| out.push((r.offset, r.body.to_vec(), seq));
        // Four rounds of two records each, interleaved in time across two "CPUs"; every round
        // end releases the round before the previous one, and its chunk becomes spare.
        let mut seq = 0;
        for round in 0..4u64 {
            for (cpu, t) in [(0u8, 10 * round + 5), (1, 10 * round + 1)] {
                let body = [cpu, round as u8, seq as u8];
                q.push(t, &raw(0x100 * round + u64::from(cpu), &body), seq);
                seq += 1;
            }
            q.finished_round(Endianness::Little, &mut take);
            // The chunks of released rounds are recycled: never more than the two rounds
            // that can still hold records, and the new round's.
            assert!(q.chunks.len() <= 3, "{} chunks", q.chunks.len());
        }
        q.finish(Endianness::Little, &mut take);
        let mut want = Vec::new();
        let mut seq = 0;
        for round in 0..4u64 {
            // Time order: the "CPU 1" record (time 10r + 1) first.
            want.push((
                0x100 * round + 1,
                vec![1, round as u8, seq as u8 + 1],
                seq + 1,
            ));
            want.push((0x100 * round, vec![0, round as u8, seq as u8], seq));
            seq += 2;
        }
        assert_eq!(out, want);
        assert!(!q.spare.is_empty(), "released chunks are kept for reuse");
        assert!(q
            .spare
            .iter()
            .all(|c| c.bytes.is_empty() && c.slots.is_empty()));
        assert_eq!((q.held, q.len()), (0, 0));
    }
}
