//! The per-event parse plan: where each field of a SAMPLE record and of the `sample_id` trailer
//! of other kernel records sits, computed once per event attr, and the [`EventTable`] that routes
//! a record to its event.
//!
//! The idea comes from `RecordParseInfo` in mstange/linux-perf-event-reader; the positions and the
//! routing rules follow perf (`tools/perf/util/evsel.c`: `__evsel__calc_id_pos`,
//! `__evsel__calc_is_pos`, `evsel__parse_sample`, `perf_evsel__parse_id_sample`; and
//! `tools/perf/util/evlist.c`: `evlist__event2evsel`, `evlist__valid_sample_type`).

use alloc::vec::Vec;

use crate::attr::EventAttr;
use crate::constants::{branch_sample_type, sample_type as st};
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// The index of an event (an attr) in the order of the attrs section or of the HEADER_ATTR
/// records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct EventIndex(pub u32);

impl EventIndex {
    /// The index as a `usize`, for indexing a `Vec` of events.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The fields of `struct sample_id`, the trailer the kernel appends to every non-SAMPLE record
/// when `sample_id_all` is set: each present field's byte offset from the start of the trailer.
///
/// Order (kernel `perf_event__output_id_sample`): TID (pid, tid: u32 each), TIME, ID, STREAM_ID,
/// CPU (cpu, res: u32 each), IDENTIFIER.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleIdLayout {
    /// The trailer's size in bytes (0 when the event has no `sample_id_all`).
    pub size: usize,
    /// Offset of the `pid, tid` pair.
    pub tid: Option<usize>,
    /// Offset of `time`.
    pub time: Option<usize>,
    /// Offset of `id` (from PERF_SAMPLE_ID).
    pub id: Option<usize>,
    /// Offset of `stream_id`.
    pub stream_id: Option<usize>,
    /// Offset of the `cpu, res` pair.
    pub cpu: Option<usize>,
    /// Offset of `id` (from PERF_SAMPLE_IDENTIFIER).
    pub identifier: Option<usize>,
}

impl SampleIdLayout {
    /// Computes the trailer layout for `sample_type` (all-zero when `sample_id_all` is off).
    pub const fn new(sample_type: u64, sample_id_all: bool) -> SampleIdLayout {
        let mut l = SampleIdLayout {
            size: 0,
            tid: None,
            time: None,
            id: None,
            stream_id: None,
            cpu: None,
            identifier: None,
        };
        if !sample_id_all {
            return l;
        }
        let mut at = 0;
        if sample_type & st::TID != 0 {
            l.tid = Some(at);
            at += 8;
        }
        if sample_type & st::TIME != 0 {
            l.time = Some(at);
            at += 8;
        }
        if sample_type & st::ID != 0 {
            l.id = Some(at);
            at += 8;
        }
        if sample_type & st::STREAM_ID != 0 {
            l.stream_id = Some(at);
            at += 8;
        }
        if sample_type & st::CPU != 0 {
            l.cpu = Some(at);
            at += 8;
        }
        if sample_type & st::IDENTIFIER != 0 {
            l.identifier = Some(at);
            at += 8;
        }
        l.size = at;
        l
    }
}

/// The sample_type bits whose fields have a fixed 8-byte size and come first in a SAMPLE, in
/// record order (`evsel__parse_sample` up to PERIOD).
const FIXED_BITS: u64 = st::IDENTIFIER
    | st::IP
    | st::TID
    | st::TIME
    | st::ADDR
    | st::ID
    | st::STREAM_ID
    | st::CPU
    | st::PERIOD;

/// The parse plan of one event, computed once from its attr (and its group leader's facts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLayout {
    /// `attr.sample_type`.
    pub sample_type: u64,
    /// `attr.read_format`.
    pub read_format: u64,
    /// `attr.branch_sample_type`.
    pub branch_sample_type: u64,
    /// `attr.sample_regs_user`.
    pub sample_regs_user: u64,
    /// `attr.sample_regs_intr`.
    pub sample_regs_intr: u64,
    /// `attr.sample_id_all`: non-SAMPLE records of this event end with a `sample_id` trailer.
    pub sample_id_all: bool,
    /// The fixed period (`attr.sample_period` when the event does not sample by frequency): what
    /// perf reports as a sample's period when PERIOD is not in `sample_type`.
    pub attr_period: Option<u64>,
    /// Bits of `sample_type` this crate does not know. When non-zero, no SAMPLE of this event can
    /// be decoded (nothing after an unknown field can be located).
    pub unknown_sample_bits: u64,
    /// Size of the fixed-size fields at the start of a SAMPLE (IDENTIFIER up to PERIOD): a SAMPLE
    /// shorter than this is broken (perf's `perf_event__check_size`).
    pub fixed_size: usize,
    /// Byte offset of the sample id in a SAMPLE body (perf's `id_pos` × 8): 0 with IDENTIFIER,
    /// after IP/TID/TIME/ADDR with ID, `None` without either.
    pub sample_id_pos: Option<usize>,
    /// Byte offset of `time` in a SAMPLE body, to read a timestamp without decoding the sample.
    pub sample_time_pos: Option<usize>,
    /// Byte position of the sample id in the `sample_id` trailer counted back from the end of the
    /// record (perf's `is_pos` × 8): 8 with IDENTIFIER, `None` without ID/IDENTIFIER.
    pub trailer_id_from_end: Option<usize>,
    /// The `sample_id` trailer of non-SAMPLE records.
    pub trailer: SampleIdLayout,
    /// Number of bytes of user registers when a sample's `abi` is non-zero.
    pub regs_user_size: usize,
    /// Number of bytes of interrupt registers when a sample's `abi` is non-zero.
    pub regs_intr_size: usize,
    /// Branch stacks carry `hw_idx` (PERF_SAMPLE_BRANCH_HW_INDEX).
    pub branch_hw_index: bool,
    /// Branch stacks carry one counter word per entry after the entries: true when any event of
    /// this event's group asks for PERF_SAMPLE_BRANCH_COUNTERS (perf's
    /// `evsel__has_branch_counters`, which looks at the group leader).
    pub branch_counters: bool,
}

impl EventLayout {
    /// The plan for `attr`, assuming no group member asks for branch counters beyond the attr
    /// itself (see [`EventTable::set_group_leaders`]).
    pub fn new(attr: &EventAttr) -> EventLayout {
        let t = attr.sample_type;
        let fixed_size = 8 * (t & FIXED_BITS).count_ones() as usize;
        let before = |bits: u64| 8 * (t & bits).count_ones() as usize;
        let sample_id_pos = if t & st::IDENTIFIER != 0 {
            Some(0)
        } else if t & st::ID != 0 {
            Some(before(st::IP | st::TID | st::TIME | st::ADDR))
        } else {
            None
        };
        let sample_time_pos =
            (t & st::TIME != 0).then(|| before(st::IDENTIFIER | st::IP | st::TID));
        let trailer_id_from_end = if t & st::IDENTIFIER != 0 {
            Some(8)
        } else if t & st::ID != 0 {
            Some(8 + before(st::CPU | st::STREAM_ID))
        } else {
            None
        };
        EventLayout {
            sample_type: t,
            read_format: attr.read_format,
            branch_sample_type: attr.branch_sample_type,
            sample_regs_user: attr.sample_regs_user,
            sample_regs_intr: attr.sample_regs_intr,
            sample_id_all: attr.sample_id_all(),
            attr_period: (!attr.freq()).then_some(attr.sample_period_or_freq),
            unknown_sample_bits: t & !st::KNOWN,
            fixed_size,
            sample_id_pos,
            sample_time_pos,
            trailer_id_from_end,
            trailer: SampleIdLayout::new(t, attr.sample_id_all()),
            regs_user_size: 8 * attr.sample_regs_user.count_ones() as usize,
            regs_intr_size: 8 * attr.sample_regs_intr.count_ones() as usize,
            branch_hw_index: attr.branch_sample_type & branch_sample_type::HW_INDEX != 0,
            branch_counters: attr.branch_sample_type & branch_sample_type::COUNTERS != 0,
        }
    }

    /// Reads the timestamp of a SAMPLE body without decoding the rest.
    pub fn sample_time(&self, body: &[u8], endian: Endianness) -> Option<u64> {
        read_u64_at(body, self.sample_time_pos?, endian)
    }
}

/// Reads a `u64` at byte `at` of `b`, if it fits.
#[inline]
pub(crate) fn read_u64_at(b: &[u8], at: usize, endian: Endianness) -> Option<u64> {
    let bytes: [u8; 8] = b.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(endian.u64(bytes))
}

/// How records are routed to their event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Routing {
    /// No event at all: SAMPLEs cannot be decoded, other records carry no trailer.
    NoEvents,
    /// One event: everything belongs to it.
    Single,
    /// Several events that agree on where the id sits.
    ById {
        /// Byte offset of the id in a SAMPLE body.
        sample_pos: usize,
        /// Byte position of the id counted back from the end of a non-SAMPLE kernel record.
        trailer_from_end: usize,
    },
    /// Several events that do not agree on where the id sits (or have none): perf refuses such
    /// files ("non matching sample_type"); every record that needs routing is an error.
    Mismatch {
        /// The first event's sample_type, reported in the error.
        sample_type: u64,
    },
}

/// The events of a file and the map from sample id to event: everything needed to decode any
/// record.
///
/// ```
/// use perfscope_format::{EventAttr, layout::{EventIndex, EventTable}};
/// let mut a = EventAttr::default();
/// a.sample_type = 0x10000 | 0x1; // IDENTIFIER | IP
/// let table = EventTable::new([(a, &[10u64, 11][..]), (a, &[20u64][..])]);
/// assert_eq!(table.event_of_id(20), Some(EventIndex(1)));
/// ```
#[derive(Debug, Clone)]
pub struct EventTable {
    layouts: Vec<EventLayout>,
    attrs: Vec<EventAttr>,
    leaders: Vec<EventIndex>,
    /// (id, event), sorted by id.
    ids: Vec<(u64, EventIndex)>,
    /// When the ids span fewer than [`DENSE_IDS`] values (the kernel numbers a session's ids in
    /// sequence): the event index of each id from `dense_base` on, `u32::MAX` for none. One
    /// load per routed record instead of a binary search.
    dense: Vec<u32>,
    dense_base: u64,
    routing: Routing,
}

/// The widest id span looked up by a direct table (4 bytes an entry).
const DENSE_IDS: u64 = 1024;

impl Default for EventTable {
    fn default() -> Self {
        EventTable::new(core::iter::empty::<(EventAttr, &[u64])>())
    }
}

impl EventTable {
    /// Builds the table from each event's attr and sample ids, in event order. Every event is its
    /// own group leader until [`EventTable::set_group_leaders`] says otherwise.
    pub fn new<'x>(events: impl IntoIterator<Item = (EventAttr, &'x [u64])>) -> EventTable {
        let mut table = EventTable {
            layouts: Vec::new(),
            attrs: Vec::new(),
            leaders: Vec::new(),
            ids: Vec::new(),
            dense: Vec::new(),
            dense_base: 0,
            routing: Routing::NoEvents,
        };
        for (attr, ids) in events {
            table.push_event(attr, ids);
        }
        table
    }

    /// Builds the table for a file-mode perf.data from its attrs section.
    pub fn from_file(file: &crate::file::PerfFile<'_>) -> EventTable {
        EventTable::new(file.attrs.iter().map(|a| (a.attr, a.ids.as_slice())))
    }

    /// Adds an event (a HEADER_ATTR record in pipe mode) and returns its index.
    pub fn push_event(&mut self, attr: EventAttr, ids: &[u64]) -> EventIndex {
        let index = EventIndex(u32::try_from(self.attrs.len()).unwrap_or(u32::MAX));
        self.attrs.push(attr);
        self.layouts.push(EventLayout::new(&attr));
        self.leaders.push(index);
        self.add_ids(index, ids);
        self.update();
        index
    }

    /// Adds sample ids to an event (from an ID_INDEX record or a late HEADER_ATTR). Ids already
    /// known keep their first event.
    pub fn add_ids(&mut self, event: EventIndex, ids: &[u64]) {
        if event.index() >= self.attrs.len() {
            return;
        }
        let before = self.ids.len();
        self.ids.extend(ids.iter().map(|&id| (id, event)));
        if self.ids.len() != before {
            // Stable sort keeps the first event of a duplicated id first; dedup keeps it.
            self.ids.sort_by_key(|&(id, _)| id);
            self.ids.dedup_by_key(|&mut (id, _)| id);
            self.index_ids();
        }
    }

    /// Rebuilds the direct id table from `ids` (or drops it when they span too many values).
    fn index_ids(&mut self) {
        self.dense.clear();
        let (Some(&(first, _)), Some(&(last, _))) = (self.ids.first(), self.ids.last()) else {
            return;
        };
        let span = last - first;
        if span >= DENSE_IDS {
            return;
        }
        self.dense_base = first;
        self.dense.resize(span as usize + 1, u32::MAX);
        for &(id, event) in &self.ids {
            if let Some(slot) = self.dense.get_mut((id - first) as usize) {
                *slot = event.0;
            }
        }
    }

    /// Sets the group leader of every event (`leaders[i]` is the leader of event `i`; a leader
    /// is its own leader), as HEADER_GROUP_DESC describes, and recomputes the facts that depend
    /// on the group (branch counters). Entries past the number of events are ignored; leaders
    /// that name no event leave that event its own leader.
    pub fn set_group_leaders(&mut self, leaders: &[EventIndex]) {
        for (i, slot) in self.leaders.iter_mut().enumerate() {
            let own = EventIndex(u32::try_from(i).unwrap_or(u32::MAX));
            *slot = match leaders.get(i) {
                Some(l) if l.index() < self.attrs.len() => *l,
                _ => own,
            };
        }
        self.update();
    }

    /// Sets groups from HEADER_GROUP_DESC entries: `(leader_idx, nr_members)` pairs, each group
    /// being `nr_members` consecutive events starting at its leader.
    pub fn set_groups(&mut self, groups: impl IntoIterator<Item = (u32, u32)>) {
        let mut leaders: Vec<EventIndex> = (0..self.attrs.len())
            .map(|i| EventIndex(u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        for (leader, nr) in groups {
            let start = leader as usize;
            let end = start.saturating_add(nr as usize).min(leaders.len());
            if let Some(members) = leaders.get_mut(start..end) {
                members.iter_mut().for_each(|m| *m = EventIndex(leader));
            }
        }
        self.set_group_leaders(&leaders);
    }

    /// Recomputes the routing and the group-dependent layout facts.
    fn update(&mut self) {
        // Branch counters: present when any member of the event's group asks for them.
        for i in 0..self.layouts.len() {
            let leader = self.leaders.get(i).copied().unwrap_or_default();
            let any = self.attrs.iter().zip(&self.leaders).any(|(a, l)| {
                *l == leader && a.branch_sample_type & branch_sample_type::COUNTERS != 0
            });
            if let Some(layout) = self.layouts.get_mut(i) {
                layout.branch_counters = any;
            }
        }
        self.routing = match self.layouts.as_slice() {
            [] => Routing::NoEvents,
            [_] => Routing::Single,
            [first, rest @ ..] => {
                let agree = rest.iter().all(|l| {
                    l.sample_id_pos == first.sample_id_pos
                        && l.trailer_id_from_end == first.trailer_id_from_end
                });
                match (agree, first.sample_id_pos, first.trailer_id_from_end) {
                    (true, Some(sample_pos), Some(trailer_from_end)) => Routing::ById {
                        sample_pos,
                        trailer_from_end,
                    },
                    _ => Routing::Mismatch {
                        sample_type: first.sample_type,
                    },
                }
            }
        };
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }

    /// The parse plan of event `e`.
    pub fn layout(&self, e: EventIndex) -> Option<&EventLayout> {
        self.layouts.get(e.index())
    }

    /// The attr of event `e`.
    pub fn attr(&self, e: EventIndex) -> Option<&EventAttr> {
        self.attrs.get(e.index())
    }

    /// The group leader of event `e`.
    pub fn leader(&self, e: EventIndex) -> Option<EventIndex> {
        self.leaders.get(e.index()).copied()
    }

    /// The event that declares sample id `id`.
    pub fn event_of_id(&self, id: u64) -> Option<EventIndex> {
        if !self.dense.is_empty() {
            // The direct table covers every id: one outside it is unknown.
            return id
                .checked_sub(self.dense_base)
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| self.dense.get(i))
                .filter(|&&e| e != u32::MAX)
                .map(|&e| EventIndex(e));
        }
        self.ids
            .binary_search_by_key(&id, |&(i, _)| i)
            .ok()
            .and_then(|at| self.ids.get(at))
            .map(|&(_, e)| e)
    }

    /// Whether non-SAMPLE kernel records carry a `sample_id` trailer (the first event's
    /// `sample_id_all`, which perf requires all events to share).
    pub fn sample_id_all(&self) -> bool {
        self.layouts.first().is_some_and(|l| l.sample_id_all)
    }

    /// Finds the event of a record body. `is_sample` says whether it is a SAMPLE (id near the
    /// start) or another kernel record (id in the trailer at the end). `offset` is the body's
    /// absolute offset, for errors.
    ///
    /// As perf's `evlist__event2evsel`: one event takes everything; without `sample_id_all`
    /// non-SAMPLE records belong to the first event; an id of 0 (records perf synthesized)
    /// belongs to the first event; an id no event declares is an error.
    #[inline]
    pub fn route(
        &self,
        body: &[u8],
        is_sample: bool,
        endian: Endianness,
        offset: u64,
    ) -> Result<EventIndex> {
        let (sample_pos, trailer_from_end) = match self.routing {
            Routing::Single => return Ok(EventIndex(0)),
            Routing::ById {
                sample_pos,
                trailer_from_end,
            } => (sample_pos, trailer_from_end),
            Routing::NoEvents => return Err(Error::new(offset, ErrorKind::NoAttrs)),
            Routing::Mismatch { sample_type } => {
                if !is_sample && !self.sample_id_all() {
                    return Ok(EventIndex(0));
                }
                return Err(Error::new(
                    offset,
                    ErrorKind::BadValue {
                        what: "sample_type (the events disagree on where the sample id is, so records cannot be routed)",
                        value: sample_type,
                    },
                ));
            }
        };
        let at = if is_sample {
            sample_pos
        } else {
            if !self.sample_id_all() {
                return Ok(EventIndex(0));
            }
            match body.len().checked_sub(trailer_from_end) {
                Some(at) => at,
                None => return Err(self.short_id(body, offset, trailer_from_end)),
            }
        };
        let Some(id) = read_u64_at(body, at, endian) else {
            return Err(self.short_id(body, offset, at + 8));
        };
        if id == 0 {
            return Ok(EventIndex(0));
        }
        self.event_of_id(id)
            .ok_or(Error::new(offset + at as u64, ErrorKind::UnknownId { id }))
    }

    /// The timestamp of a record without decoding it (perf's `evsel__parse_sample_timestamp`):
    /// a SAMPLE's `time`, or the `time` of a kernel record's `sample_id` trailer. `None` for
    /// perf-tool records, events without PERF_SAMPLE_TIME, and records that cannot be routed.
    #[inline]
    pub fn record_time(&self, raw: &crate::records::RawRecord<'_>) -> Option<u64> {
        let type_ = raw.header.type_;
        let is_sample = type_ == crate::constants::RecordType::SAMPLE;
        // Kernel record types this crate knows (all of them have a trailer).
        if !(1..=crate::constants::RecordType::CALLCHAIN_DEFERRED.0).contains(&type_.0) {
            return None;
        }
        let event = self
            .route(raw.body, is_sample, raw.endian, raw.offset)
            .ok()?;
        let layout = self.layout(event)?;
        if is_sample {
            return layout.sample_time(raw.body, raw.endian);
        }
        if !layout.sample_id_all {
            return None;
        }
        let start = raw.body.len().checked_sub(layout.trailer.size)?;
        read_u64_at(
            raw.body,
            start.checked_add(layout.trailer.time?)?,
            raw.endian,
        )
    }

    fn short_id(&self, body: &[u8], offset: u64, needed: usize) -> Error {
        Error::new(
            offset,
            ErrorKind::UnexpectedEof {
                what: "sample id",
                needed: needed as u64,
                available: body.len() as u64,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(sample_type: u64, sample_id_all: bool) -> EventAttr {
        let mut a = EventAttr {
            sample_type,
            ..EventAttr::default()
        };
        if sample_id_all {
            a.flags.0 |= crate::attr::AttrFlags::SAMPLE_ID_ALL;
        }
        a
    }

    #[test]
    fn positions_match_perfs_id_pos_and_is_pos() {
        // IP | TID | TIME | ADDR | ID | CPU | PERIOD | STREAM_ID
        let t =
            st::IP | st::TID | st::TIME | st::ADDR | st::ID | st::CPU | st::PERIOD | st::STREAM_ID;
        let l = EventLayout::new(&attr(t, true));
        assert_eq!(l.sample_id_pos, Some(32)); // id_pos 4
        assert_eq!(l.sample_time_pos, Some(16));
        assert_eq!(l.trailer_id_from_end, Some(24)); // is_pos 3: ID, STREAM_ID, CPU
        assert_eq!(l.fixed_size, 64);
        assert_eq!(
            l.trailer,
            SampleIdLayout {
                size: 40,
                tid: Some(0),
                time: Some(8),
                id: Some(16),
                stream_id: Some(24),
                cpu: Some(32),
                identifier: None
            }
        );
        let l = EventLayout::new(&attr(t | st::IDENTIFIER, true));
        assert_eq!(
            (l.sample_id_pos, l.trailer_id_from_end, l.sample_time_pos),
            (Some(0), Some(8), Some(24))
        );
        assert_eq!(l.trailer.size, 48);
        assert_eq!(l.trailer.identifier, Some(40));
        let l = EventLayout::new(&attr(st::IP | st::TID, false));
        assert_eq!(
            (l.sample_id_pos, l.trailer_id_from_end, l.trailer.size),
            (None, None, 0)
        );
        let l = EventLayout::new(&attr(1 << 40 | st::IP, false));
        assert_eq!(l.unknown_sample_bits, 1 << 40);
    }

    #[test]
    fn routes_samples_and_trailers_by_id() {
        let e = Endianness::Big;
        let t = st::IP | st::TID | st::ID | st::CPU;
        let table = EventTable::new([
            (attr(t, true), &[5u64, 6][..]),
            (attr(t, true), &[7u64][..]),
        ]);
        // SAMPLE: ip, pid/tid, id at byte 16.
        let mut sample = [0u8; 32];
        sample[16..24].copy_from_slice(&e.u64_bytes(7));
        assert_eq!(table.route(&sample, true, e, 0).unwrap(), EventIndex(1));
        // Trailer (tid, id, cpu) at the end of a 40-byte body: the id is 16 bytes before the end.
        let mut other = [0u8; 40];
        other[24..32].copy_from_slice(&e.u64_bytes(6));
        assert_eq!(table.route(&other, false, e, 0).unwrap(), EventIndex(0));
        other[24..32].copy_from_slice(&e.u64_bytes(99));
        assert_eq!(
            table.route(&other, false, e, 0x100).unwrap_err(),
            Error::new(0x118, ErrorKind::UnknownId { id: 99 })
        );
        other[24..32].copy_from_slice(&e.u64_bytes(0));
        assert_eq!(table.route(&other, false, e, 0).unwrap(), EventIndex(0));
        let err = table.route(&[0u8; 8], false, e, 0x40).unwrap_err();
        assert_eq!(
            err,
            Error::new(
                0x40,
                ErrorKind::UnexpectedEof {
                    what: "sample id",
                    needed: 16,
                    available: 8
                }
            )
        );
    }

    #[test]
    fn ids_found_by_direct_table_and_by_search_alike() {
        let t = st::IP | st::ID;
        // Near ids (a direct table from 27 on, with a hole at 29) and ids too far apart for one
        // (searched): the same answers, and ids added later are found.
        let near = EventTable::new([
            (attr(t, true), &[27u64, 28][..]),
            (attr(t, true), &[30u64][..]),
        ]);
        let far = EventTable::new([
            (attr(t, true), &[27u64, 28][..]),
            (attr(t, true), &[30u64, 27 + DENSE_IDS][..]),
        ]);
        assert!(!near.dense.is_empty() && far.dense.is_empty());
        for table in [&near, &far] {
            let of = |id| table.event_of_id(id).map(|e| e.0);
            assert_eq!(
                [of(27), of(28), of(29), of(30), of(26), of(0), of(u64::MAX)],
                [Some(0), Some(0), None, Some(1), None, None, None]
            );
        }
        assert_eq!(near.event_of_id(31), None);
        assert_eq!(far.event_of_id(27 + DENSE_IDS), Some(EventIndex(1)));
        let mut grown = near.clone();
        grown.add_ids(EventIndex(1), &[29, 12]);
        assert_eq!(grown.dense_base, 12);
        assert_eq!(
            [12, 29, 27].map(|id| grown.event_of_id(id)),
            [
                Some(EventIndex(1)),
                Some(EventIndex(1)),
                Some(EventIndex(0))
            ]
        );
    }

    #[test]
    fn record_time_without_decoding() {
        for e in [Endianness::Little, Endianness::Big] {
            let t = st::IP | st::TID | st::TIME | st::IDENTIFIER;
            let table =
                EventTable::new([(attr(t, true), &[5u64][..]), (attr(t, true), &[6u64][..])]);
            // SAMPLE: identifier, ip, pid/tid, time.
            let sample = crate::testutil::Builder::new(e)
                .u64(6)
                .u64(0x10)
                .u32(1)
                .u32(2)
                .u64(777)
                .record(9, 0);
            let raw = crate::testutil::raw(&sample, 0, e);
            assert_eq!(table.record_time(&raw), Some(777));
            // LOST with trailer tid, time, identifier.
            let lost = crate::testutil::Builder::new(e)
                .u64(5)
                .u64(1)
                .u32(1)
                .u32(2)
                .u64(888)
                .u64(5)
                .record(2, 0);
            assert_eq!(
                table.record_time(&crate::testutil::raw(&lost, 0, e)),
                Some(888)
            );
            let round = crate::testutil::Builder::new(e).record(68, 0);
            assert_eq!(table.record_time(&crate::testutil::raw(&round, 0, e)), None);
        }
    }

    #[test]
    fn mismatched_id_positions_are_refused_like_perf() {
        let table = EventTable::new([
            (attr(st::IP | st::ID, true), &[1u64][..]),
            (attr(st::IP | st::TID | st::ID, true), &[2u64][..]),
        ]);
        let err = table
            .route(&[0u8; 24], true, Endianness::Little, 8)
            .unwrap_err();
        assert!(matches!(err.kind, ErrorKind::BadValue { value, .. } if value == st::IP | st::ID));
        assert_eq!(
            EventTable::default()
                .route(&[], true, Endianness::Little, 8)
                .unwrap_err()
                .kind,
            ErrorKind::NoAttrs
        );
    }

    #[test]
    fn branch_counters_follow_the_group() {
        let mut with = attr(st::IP | st::IDENTIFIER | st::BRANCH_STACK, true);
        with.branch_sample_type = branch_sample_type::COUNTERS;
        let without = attr(st::IP | st::IDENTIFIER | st::BRANCH_STACK, true);
        let mut table = EventTable::new([
            (without, &[1u64][..]),
            (with, &[2u64][..]),
            (without, &[3u64][..]),
        ]);
        let counters = |t: &EventTable| {
            (0..3)
                .map(|i| t.layout(EventIndex(i)).unwrap().branch_counters)
                .collect::<Vec<_>>()
        };
        assert_eq!(counters(&table), [false, true, false]);
        // Group {0, 1}: the leader's group asks for counters, so event 0 carries them too.
        table.set_groups([(0, 2)]);
        assert_eq!(counters(&table), [true, true, false]);
        assert_eq!(table.leader(EventIndex(1)), Some(EventIndex(0)));
    }
}
