//! Where the lines of delivered samples go: counted at once, or handed in batches to a second
//! thread that counts them (reading records and naming frames on one core, looking lines up
//! on the other).

use std::sync::mpsc::{Receiver, SyncSender};

use super::lines::Lines;

/// Tokens per batch (a batch is `len, tokens…` per line).
const BATCH: usize = 1 << 16;

/// Counts lines here, or sends them to the counting thread.
pub(super) enum Counter {
    /// Counted at once.
    Here(Lines),
    /// Sent in batches to [`count_batches`].
    Batches {
        buf: Vec<u32>,
        full: SyncSender<Vec<u32>>,
        empty: Receiver<Vec<u32>>,
        /// The counting thread stopped (it cannot, but then the lines are lost, not hung on).
        closed: bool,
    },
}

impl Counter {
    /// Counts one sample of the line that `make` appends to the vector it is given (`scratch`
    /// when counted here; else the batch itself, so the tokens are not copied again).
    pub fn line(&mut self, scratch: &mut Vec<u32>, make: impl FnOnce(&mut Vec<u32>)) {
        match self {
            Counter::Here(lines) => {
                scratch.clear();
                make(scratch);
                lines.count(scratch, 1);
            }
            Counter::Batches { buf, .. } => {
                let at = buf.len();
                buf.push(0);
                make(buf);
                let len = u32::try_from(buf.len() - at - 1).unwrap_or(u32::MAX);
                if let Some(l) = buf.get_mut(at) {
                    *l = len;
                }
                if buf.len() >= BATCH {
                    self.send();
                }
            }
        }
    }

    fn send(&mut self) {
        if let Counter::Batches {
            buf,
            full,
            empty,
            closed,
        } = self
        {
            if buf.is_empty() || *closed {
                return;
            }
            let next = empty
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH + 1024));
            let batch = std::mem::replace(buf, next);
            *closed = full.send(batch).is_err();
        }
    }

    /// Sends what is left; returns the lines when they were counted here.
    pub fn finish(mut self) -> Option<Lines> {
        self.send();
        match self {
            Counter::Here(lines) => Some(lines),
            Counter::Batches { .. } => None,
        }
    }
}

/// The counting thread: counts the lines of each batch, sends the emptied batch back.
pub(super) fn count_batches(
    full: Receiver<Vec<u32>>,
    empty: std::sync::mpsc::Sender<Vec<u32>>,
) -> Lines {
    let mut lines = Lines::default();
    for mut batch in full {
        let mut rest = batch.as_slice();
        while let Some((&len, tail)) = rest.split_first() {
            let (tokens, after) = tail.split_at(tail.len().min(len as usize));
            lines.count(tokens, 1);
            rest = after;
        }
        batch.clear();
        let _ = empty.send(batch);
    }
    lines
}
