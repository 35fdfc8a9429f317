//! A sample's callchain as the addresses to symbolize, root first, and the per-thread memory
//! of the previous stack that lets a sample reuse the root part it shares with the previous
//! sample of its thread (at high sampling rates most of it: only the leaf end moves).

use super::{
    CpuMode, StackExtras, PERF_CONTEXT_GUEST, PERF_CONTEXT_GUEST_KERNEL, PERF_CONTEXT_GUEST_USER,
    PERF_CONTEXT_HV, PERF_CONTEXT_KERNEL, PERF_CONTEXT_MAX, PERF_CONTEXT_USER,
    PERF_CONTEXT_USER_DEFERRED,
};
use crate::ids::StackIndex;

/// Calls `frame(index, address, mode)` for each frame of a callchain, leaf first: context markers
/// (words at or above `PERF_CONTEXT_MAX`) switch the mode and are not frames, except from index
/// `unwound_from` on, where words are unwound addresses only (perf's libdw unwinder ends some
/// stacks with a `0 - 1` frame, which is not a marker). `mode` is the mode before the first
/// marker. Returns false, after the frames before it, at a word that is no marker perf defines
/// (the kernel's user walk sometimes ends with -1: the chain is corrupt).
pub(crate) fn for_each_frame(
    words: impl IntoIterator<Item = u64>,
    mut mode: CpuMode,
    unwound_from: usize,
    mut frame: impl FnMut(usize, u64, CpuMode),
) -> bool {
    let mut iter = words.into_iter().enumerate();
    while let Some((i, addr)) = iter.next() {
        if addr < PERF_CONTEXT_MAX || i >= unwound_from {
            frame(i, addr, mode);
            continue;
        }
        match addr {
            PERF_CONTEXT_KERNEL | PERF_CONTEXT_HV | PERF_CONTEXT_GUEST_KERNEL => {
                mode = CpuMode::Kernel
            }
            PERF_CONTEXT_USER | PERF_CONTEXT_GUEST_USER | PERF_CONTEXT_GUEST => {
                mode = CpuMode::User
            }
            // User frames follow, after a cookie word.
            PERF_CONTEXT_USER_DEFERRED => {
                mode = CpuMode::User;
                let _cookie = iter.next();
            }
            _ => return false,
        }
    }
    true
}

/// One frame to add: an address with how to read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChainEntry {
    /// The address (unused for the truncated root).
    pub addr: u64,
    /// [`KERNEL`], [`EXPAND`], [`TRUNCATED_ROOT`] bits.
    pub kind: u8,
}

/// A kernel address (else a user address).
pub(super) const KERNEL: u8 = 1;
/// Inline frames are added for it.
pub(crate) const EXPAND: u8 = 2;
/// The `[truncated]` root of a stack that could not be unwound to its root.
pub(super) const TRUNCATED_ROOT: u8 = 4;

impl ChainEntry {
    /// The address's mode.
    pub fn mode(self) -> CpuMode {
        if self.kind & KERNEL != 0 {
            CpuMode::Kernel
        } else {
            CpuMode::User
        }
    }

    fn new(addr: u64, mode: CpuMode, expand: bool) -> ChainEntry {
        let kind = match mode {
            CpuMode::Kernel => KERNEL,
            CpuMode::User => 0,
        } | if expand { EXPAND } else { 0 };
        ChainEntry { addr, kind }
    }
}

/// Which frames get inline frames: every frame, the unwound ones, none.
#[derive(Clone, Copy, Debug)]
pub(super) struct Expand {
    pub all: bool,
    pub unwound: bool,
}

/// Fills `out` with the entries of a callchain (leaf first, with context markers), root
/// first. A callchain with an invalid context marker is dropped
/// whole, as perf's `add_callchain_ip` drops it ("invalid callchain context").
#[allow(clippy::too_many_arguments)]
pub(super) fn chain_entries(
    callchain: impl ExactSizeIterator<Item = u64>,
    ip: u64,
    ip_mode: CpuMode,
    extras: StackExtras,
    expand: Expand,
    out: &mut Vec<ChainEntry>,
) {
    out.clear();
    if extras.truncated {
        out.push(ChainEntry {
            addr: 0,
            kind: TRUNCATED_ROOT,
        });
    }
    if callchain.len() == 0 {
        out.push(ChainEntry::new(ip, ip_mode, expand.all));
        return;
    }
    // Made leaf first after the root marker (if any), then turned around in place.
    let start = out.len();
    let whole = for_each_frame(callchain, ip_mode, extras.unwound_from, |i, addr, mode| {
        let expand = expand.all || (expand.unwound && i >= extras.unwound_from);
        out.push(ChainEntry::new(addr, mode, expand));
    });
    if !whole {
        out.truncate(start);
    }
    if let Some(frames) = out.get_mut(start..) {
        frames.reverse();
    }
}

/// The last stack of a thread, entry by entry.
#[derive(Clone, Debug, Default)]
pub(super) struct LastStack {
    /// The address-space generations it was resolved in (process, kernel).
    pub generations: (u64, u64),
    /// Root first.
    pub entries: Vec<ChainEntry>,
    /// `nodes[i]`: the stack made of `entries[..=i]`.
    pub nodes: Vec<Option<StackIndex>>,
}

impl LastStack {
    /// The stack made of the entries kept.
    pub fn top(&self) -> Option<StackIndex> {
        self.nodes.last().copied().flatten()
    }
}

/// How many recent stacks of a thread are kept besides the current one. Which root part is
/// reused changes only how much is interned again, never the stack made. One: with three, a
/// 300 MB system-wide recording (stacks of 2.4 entries on average, 26 % of them reused) and a
/// recording of two Python processes alternating between call paths (deep stacks) both ran
/// more instructions (the older slots compared and rotated for every sample cost more than
/// the entries they saved: +3.8 % and +0.9 % of the records pass; BENCHMARKS.md, session 37).
const OLDER: usize = 1;

/// The recent stacks of a thread: a new sample reuses the longest root part it shares with any
/// of them (threads alternate between a few call paths).
#[derive(Clone, Debug, Default)]
pub(super) struct RecentStacks {
    /// The stack of the thread's last sample.
    pub current: LastStack,
    /// Older ones, in fixed slots (no moves as they age); empty slots have no entries.
    older: [LastStack; OLDER],
    /// The slot written longest ago (slots are written in turn), replaced next.
    oldest: usize,
}

impl RecentStacks {
    /// Makes `current` the root part of `entries` found among the recent stacks and returns
    /// its length (the entries after it are to be added to `current`). The previous stack is
    /// kept among the older ones (in place of the oldest) unless the new one contains it.
    pub fn pick(&mut self, generations: (u64, u64), entries: &[ChainEntry]) -> usize {
        let common = |s: &LastStack| {
            if s.generations == generations {
                s.entries
                    .iter()
                    .zip(entries)
                    .take_while(|(a, b)| a == b)
                    .count()
            } else {
                0
            }
        };
        let current = common(&self.current);
        if current == self.current.entries.len() && self.current.generations == generations {
            // The previous stack is a root part of the new one (or the same): grow it.
            return current;
        }
        let mut best = (None, current);
        for (i, s) in self.older.iter().enumerate() {
            let c = common(s);
            if c > best.1 {
                best = (Some(i), c);
            }
        }
        // The oldest slot (an unused one first) takes the previous stack; its buffers become
        // the new current stack.
        let oldest = self.oldest;
        let (from, reused) = best;
        let Some(slot) = self.older.get_mut(oldest) else {
            return 0;
        };
        let mut fresh = std::mem::take(slot);
        if from != Some(oldest) {
            let source = match from.and_then(|i| self.older.get(i)) {
                Some(s) => s,
                None => &self.current,
            };
            fresh.entries.clear();
            fresh.nodes.clear();
            fresh
                .entries
                .extend_from_slice(source.entries.get(..reused).unwrap_or(&[]));
            fresh
                .nodes
                .extend_from_slice(source.nodes.get(..reused).unwrap_or(&[]));
        } else {
            // The root part is in the slot being replaced: kept where it is.
            fresh.entries.truncate(reused);
            fresh.nodes.truncate(reused);
        }
        fresh.generations = generations;
        let previous = std::mem::replace(&mut self.current, fresh);
        if let Some(slot) = self.older.get_mut(oldest) {
            *slot = previous;
        }
        self.oldest = if oldest + 1 == OLDER { 0 } else { oldest + 1 };
        reused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO: Expand = Expand {
        all: false,
        unwound: false,
    };

    #[test]
    fn markers_set_modes_and_a_bad_marker_drops_the_chain() {
        let mut out = Vec::new();
        let chain = [
            PERF_CONTEXT_KERNEL,
            0xfff1,
            0xfff2,
            PERF_CONTEXT_USER,
            0x10,
            0x20,
        ];
        chain_entries(
            chain.into_iter(),
            0,
            CpuMode::User,
            StackExtras::default(),
            NO,
            &mut out,
        );
        let got: Vec<(u64, u8)> = out.iter().map(|e| (e.addr, e.kind)).collect();
        assert_eq!(
            got,
            [(0x20, 0), (0x10, 0), (0xfff2, KERNEL), (0xfff1, KERNEL)]
        );
        let bad = [PERF_CONTEXT_USER, 0x10, u64::MAX];
        let extras = StackExtras {
            truncated: true,
            ..StackExtras::default()
        };
        chain_entries(bad.into_iter(), 0, CpuMode::User, extras, NO, &mut out);
        assert_eq!(
            out,
            [ChainEntry {
                addr: 0,
                kind: TRUNCATED_ROOT
            }]
        );
    }

    #[test]
    fn the_longest_shared_root_part_of_a_recent_stack_is_reused_within_one_generation() {
        let e = |a| ChainEntry { addr: a, kind: 0 };
        let node = |i| Some(StackIndex(i));
        let mut r = RecentStacks::default();
        let add = |r: &mut RecentStacks, g: (u64, u64), chain: &[ChainEntry], nodes: &[u32]| {
            let reused = r.pick(g, chain);
            for (i, c) in chain.iter().enumerate().skip(reused) {
                r.current.entries.push(*c);
                r.current.nodes.push(node(nodes[i]));
            }
            reused
        };
        assert_eq!(add(&mut r, (1, 1), &[e(1), e(2), e(3)], &[0, 1, 2]), 0);
        assert_eq!(add(&mut r, (1, 1), &[e(1), e(4)], &[0, 3]), 1);
        // Back to the first path: found among the older stacks.
        assert_eq!(add(&mut r, (1, 1), &[e(1), e(2), e(5)], &[0, 1, 4]), 2);
        assert_eq!(r.current.nodes, [node(0), node(1), node(4)]);
        assert_eq!(add(&mut r, (1, 1), &[e(1), e(4), e(6)], &[0, 3, 5]), 2);
        assert_eq!(r.current.top(), node(5));
        assert_eq!(
            add(&mut r, (2, 1), &[e(1)], &[6]),
            0,
            "a new mapping in the process"
        );
        assert_eq!(r.current.top(), node(6));
    }
}
