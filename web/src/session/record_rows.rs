//! [`RecordRows`]: the rows of the records index (offset, time, type, cpu/pid/tid of every
//! record in file order) stored in about 4–6 bytes a row instead of 36.
//!
//! Rows are kept in blocks of [`BLOCK`], each block a byte string written once and boxed at its
//! size (on wasm32 a grown buffer's old copy stays in the heap, so the index never grows one
//! huge buffer). In a block, each row is written against the row before it (the first against
//! zero), as LEB128 varints:
//!
//! - a head: the step from the previous row's offset, divided by 8 (perf's records are 8-byte
//!   multiples, so a record's step is the size of the one before it), shifted above four flag
//!   bits: [`NEW_KIND`], [`INNER`], [`UNALIGNED`] (the step is not a multiple of 8 or is
//!   backwards: it follows whole instead), [`NO_TIME`];
//! - with [`NEW_KIND`], the row's kind: a byte indexing the block's table of the (type, thread)
//!   pairs it holds, a thread being an index into a table of every (cpu, pid, tid) seen. Rows of
//!   one CPU's buffer come in runs of one thread, which write no kind;
//! - with [`INNER`], the record's number inside its COMPRESSED record, as a zigzag difference
//!   from one past the previous row's;
//! - unless [`NO_TIME`], the time as a zigzag difference from the previous timed row's (tens of
//!   µs between samples of one CPU: three bytes).
//!
//! Any value fits (differences wrap), so every row is kept exactly. A row is found by reading
//! its block from the start (at most [`BLOCK`] rows).

use rustc_hash::FxHashMap;

use super::row_set::RowSet;

/// One record of the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// File offset of the record (of its COMPRESSED record when it was compressed).
    pub offset: u64,
    /// Its number among the records decoded from its COMPRESSED record (`u32::MAX`: not
    /// compressed).
    pub inner: u32,
    /// `PERF_RECORD_*`.
    pub type_: u32,
    /// ns, `u64::MAX` when none.
    pub time: u64,
    /// `u32::MAX` when none.
    pub cpu: u32,
    /// `u32::MAX` when none.
    pub pid: u32,
    /// `u32::MAX` when none.
    pub tid: u32,
}

/// Rows per block.
pub const BLOCK: usize = 128;
/// About the bytes a row takes in an uncompressed file of samples with callchains (a two-byte
/// head and a three-byte time; see the module docs and the tests below), for planning.
pub const ROW_BYTES: u64 = 5;
/// Head flag: a kind byte follows.
const NEW_KIND: u64 = 1;
/// Head flag: the number inside a COMPRESSED record follows.
const INNER: u64 = 2;
/// Head flag: the offset's step follows whole (the head's step is 0).
const UNALIGNED: u64 = 4;
/// Head flag: the row has no time (none follows).
const NO_TIME: u64 = 8;
/// The flags' bits in the head.
const FLAG_BITS: u32 = 4;

/// A finished block: its rows' bytes and kinds, and the span of their times.
struct Block {
    bytes: Box<[u8]>,
    kinds: Box<[Kind]>,
    times: Span,
}

/// The block [`RecordRows::matching`] reads: its reader, which of its kinds pass, whether any
/// row may, and the range its rows' times are checked against (`None`: any time will do).
struct Reading<'a> {
    reader: Reader<'a>,
    pass: Vec<bool>,
    any: bool,
    check: Option<(u64, u64)>,
}

/// The least and the greatest time of a block's timed rows ([`Span::NONE`] when it has none):
/// a time-range filter skips the blocks outside its range, and checks only that a row has a
/// time in those inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span(u64, u64);

impl Default for Span {
    fn default() -> Self {
        Span::NONE
    }
}

impl Span {
    const NONE: Span = Span(u64::MAX, 0);

    fn add(&mut self, time: u64) {
        self.0 = self.0.min(time);
        self.1 = self.1.max(time);
    }

    /// Whether some time of the span may lie in `lo..=hi`.
    fn meets(self, (lo, hi): (u64, u64)) -> bool {
        self.0 <= hi && lo <= self.1
    }

    /// Whether every time of the span lies in `lo..=hi`.
    fn within(self, (lo, hi): (u64, u64)) -> bool {
        lo <= self.0 && self.1 <= hi
    }
}

/// A row's (type, index into [`RecordRows::whos`]).
type Kind = (u32, u32);

/// What a row is written against: the previous row of its block.
#[derive(Clone, Copy)]
struct Prev {
    offset: u64,
    /// Of the last timed row.
    time: u64,
    /// Of the last row from a COMPRESSED record (-1 before one).
    inner: i64,
    kind: Option<u8>,
}

impl Prev {
    const START: Prev = Prev {
        offset: 0,
        time: 0,
        inner: -1,
        kind: None,
    };
}

/// The rows, compactly; see the module docs.
#[derive(Default)]
pub struct RecordRows {
    blocks: Vec<Block>,
    /// The block being filled.
    open: Vec<u8>,
    open_kinds: Vec<Kind>,
    open_times: Span,
    prev: Option<Prev>,
    len: usize,
    /// (cpu, pid, tid) by index, and the index of each.
    whos: Vec<(u32, u32, u32)>,
    who_index: FxHashMap<(u32, u32, u32), u32>,
    /// The last (cpu, pid, tid) looked up and its index.
    last_who: Option<((u32, u32, u32), u32)>,
}

impl std::fmt::Debug for RecordRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordRows")
            .field("len", &self.len)
            .field("blocks", &self.blocks.len())
            .finish()
    }
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Reads a block's rows in order.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    kinds: &'a [Kind],
    prev: Prev,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], kinds: &'a [Kind]) -> Reader<'a> {
        Reader {
            bytes,
            at: 0,
            kinds,
            prev: Prev::START,
        }
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    /// The next row: (offset, inner, time, its kind's place in the block's kinds).
    fn next(&mut self) -> Option<(u64, u32, u64, u8)> {
        let head = self.varint()?;
        let step = if head & UNALIGNED != 0 {
            self.varint()?
        } else {
            (head >> FLAG_BITS) << 3
        };
        let p = &mut self.prev;
        p.offset = p.offset.wrapping_add(step);
        if head & NEW_KIND != 0 {
            let k = *self.bytes.get(self.at)?;
            self.at += 1;
            self.prev.kind = Some(k);
        }
        let inner = if head & INNER != 0 {
            let d = unzigzag(self.varint()?);
            self.prev.inner = self.prev.inner.wrapping_add(1).wrapping_add(d);
            u32::try_from(self.prev.inner).ok()?
        } else {
            u32::MAX
        };
        let time = if head & NO_TIME != 0 {
            u64::MAX
        } else {
            let d = unzigzag(self.varint()?);
            self.prev.time = self.prev.time.wrapping_add(d as u64);
            self.prev.time
        };
        Some((self.prev.offset, inner, time, self.prev.kind?))
    }

    /// The next row, whole (`whos`: the threads by index).
    fn next_row(&mut self, whos: &[(u32, u32, u32)]) -> Option<Row> {
        let (offset, inner, time, k) = self.next()?;
        let &(type_, who) = self.kinds.get(usize::from(k))?;
        let &(cpu, pid, tid) = whos.get(who as usize)?;
        Some(Row {
            offset,
            inner,
            type_,
            time,
            cpu,
            pid,
            tid,
        })
    }
}

impl RecordRows {
    /// Room for the handles of the blocks of `rows` more rows (the rows themselves are boxed
    /// per block), so that the list of blocks is allocated once.
    pub fn reserve_rows(&mut self, rows: usize) {
        self.blocks.reserve_exact(rows.div_ceil(BLOCK));
    }

    /// Appends a row.
    pub fn push(&mut self, row: Row) {
        let who = self.who_code((row.cpu, row.pid, row.tid));
        let kind = (row.type_, who);
        let prev = self.prev.unwrap_or(Prev::START);
        let same = prev
            .kind
            .and_then(|k| self.open_kinds.get(usize::from(k)))
            .is_some_and(|&k| k == kind);
        let mut head = 0;
        let mut new_kind = None;
        if !same {
            head |= NEW_KIND;
            let k = match self.open_kinds.iter().position(|&k| k == kind) {
                Some(k) => k,
                None => {
                    self.open_kinds.push(kind);
                    self.open_kinds.len() - 1
                }
            };
            // At most BLOCK kinds in a block.
            new_kind = Some(u8::try_from(k).unwrap_or(u8::MAX));
        }
        let step = row.offset.wrapping_sub(prev.offset);
        let whole_step = !step.is_multiple_of(8) || step >> 3 >= 1 << (63 - FLAG_BITS);
        if whole_step {
            head |= UNALIGNED;
        } else {
            head |= (step >> 3) << FLAG_BITS;
        }
        if row.inner != u32::MAX {
            head |= INNER;
        }
        if row.time == u64::MAX {
            head |= NO_TIME;
        }
        let out = &mut self.open;
        put(out, head);
        if whole_step {
            put(out, step);
        }
        if let Some(k) = new_kind {
            out.push(k);
        }
        let mut next = Prev {
            offset: row.offset,
            kind: new_kind.or(prev.kind),
            ..prev
        };
        if row.inner != u32::MAX {
            let inner = i64::from(row.inner);
            put(out, zigzag(inner - (prev.inner + 1)));
            next.inner = inner;
        }
        if row.time != u64::MAX {
            put(out, zigzag(row.time.wrapping_sub(prev.time) as i64));
            next.time = row.time;
            self.open_times.add(row.time);
        }
        self.prev = Some(next);
        self.len += 1;
        if self.len.is_multiple_of(BLOCK) {
            self.blocks.push(Block {
                bytes: self.open.as_slice().into(),
                kinds: self.open_kinds.as_slice().into(),
                times: self.open_times,
            });
            self.open.clear();
            self.open_kinds.clear();
            self.open_times = Span::NONE;
            self.prev = None;
        }
    }

    fn who_code(&mut self, who: (u32, u32, u32)) -> u32 {
        if let Some((last, i)) = self.last_who {
            if last == who {
                return i;
            }
        }
        let i = match self.who_index.get(&who) {
            Some(&i) => i,
            None => {
                // (Never more than u32::MAX threads: there are fewer rows.)
                let i = u32::try_from(self.whos.len()).unwrap_or(u32::MAX);
                self.whos.push(who);
                self.who_index.insert(who, i);
                i
            }
        };
        self.last_who = Some((who, i));
        i
    }

    /// The reader of block `b` (the open one after the finished ones).
    fn reader(&self, b: usize) -> Option<Reader<'_>> {
        match self.blocks.get(b) {
            Some(block) => Some(Reader::new(&block.bytes, &block.kinds)),
            None if b == self.blocks.len() => Some(Reader::new(&self.open, &self.open_kinds)),
            None => None,
        }
    }

    /// Row `i`.
    pub fn get(&self, i: usize) -> Option<Row> {
        if i >= self.len {
            return None;
        }
        let mut r = self.reader(i / BLOCK)?;
        for _ in 0..i % BLOCK {
            r.next()?;
        }
        r.next_row(&self.whos)
    }

    /// Every row in order.
    pub fn iter(&self) -> impl Iterator<Item = Row> + '_ {
        let whos = &self.whos;
        (0..=self.blocks.len())
            .filter_map(|b| self.reader(b))
            .flat_map(move |mut r| std::iter::from_fn(move || r.next_row(whos)))
    }

    /// The span of block `b`'s times (the open one after the finished ones).
    fn times(&self, b: usize) -> Span {
        match self.blocks.get(b) {
            Some(block) => block.times,
            None => self.open_times,
        }
    }

    /// The rows whose kind passes `kind_ok(type, (cpu, pid, tid))` and, given a `range`,
    /// whose time lies in it (`lo..=hi`; a row without a time does not). A block none of
    /// whose kinds passes, or whose times all lie outside the range, is not read.
    pub fn matching(
        &self,
        kind_ok: impl Fn(u32, (u32, u32, u32)) -> bool,
        range: Option<(u64, u64)>,
    ) -> RowSet {
        let mut block: Option<Reading<'_>> = None;
        let (mut next_block, mut left) = (0, 0);
        RowSet::from_fn(self.len, |_| {
            if left == 0 {
                let Some(r) = self.reader(next_block) else {
                    return false;
                };
                let times = self.times(next_block);
                let check = match range {
                    // Every timed row inside: only whether a row has a time.
                    Some(range) if times.within(range) => Some((0, u64::MAX - 1)),
                    other => other,
                };
                let pass: Vec<bool> = r
                    .kinds
                    .iter()
                    .map(|&(t, w)| {
                        self.whos
                            .get(w as usize)
                            .is_some_and(|&who| kind_ok(t, who))
                    })
                    .collect();
                let any = pass.contains(&true) && range.is_none_or(|range| times.meets(range));
                left = BLOCK;
                next_block += 1;
                block = Some(Reading {
                    reader: r,
                    pass,
                    any,
                    check,
                });
            }
            left -= 1;
            let Some(Reading {
                reader,
                pass,
                any: true,
                check,
            }) = block.as_mut()
            else {
                return false;
            };
            reader.next().is_some_and(|(_, _, time, k)| {
                pass.get(usize::from(k)).copied().unwrap_or(false)
                    && check.is_none_or(|(lo, hi)| lo <= time && time <= hi)
            })
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held on the heap (blocks, tables).
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Block>()
            + self
                .blocks
                .iter()
                .map(|b| b.bytes.len() + std::mem::size_of_val(&*b.kinds))
                .sum::<usize>()
            + self.open.capacity()
            + self.open_kinds.capacity() * std::mem::size_of::<Kind>()
            + self.whos.capacity() * 12
            + self.who_index.capacity() * 17
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(offset: u64, time: u64, type_: u32, inner: u32, tid: u32) -> Row {
        Row {
            offset,
            inner,
            type_,
            time,
            cpu: tid % 3,
            pid: tid / 2,
            tid,
        }
    }

    #[test]
    fn rows_come_back_exactly_whatever_their_values() {
        // Offsets growing by 40 (not a multiple of 8 at odd rows' starts: 0x1004), one row in
        // 131 far out (2^40) and one at the very end of u64; times jumping back and forth around
        // 10 s, missing, 0 and 2^63 and u64::MAX - 1; types past 255; numbers inside COMPRESSED
        // records going up, restarting, skipping and at u32::MAX - 1.
        let mut rows = Vec::new();
        for i in 0..1000u64 {
            let time = match i % 97 {
                0 => u64::MAX,
                5 => 0,
                6 => 1 << 63,
                7 => u64::MAX - 1,
                k => 10_000_000_000 + k * 1_000_000 - (i % 3) * 1_500_000_000,
            };
            let offset = match i % 131 {
                7 => 1 << 40,
                8 => u64::MAX,
                _ => 0x1004 + i * 40,
            };
            let type_ = if i > 500 {
                1000 + (i as u32 % 300)
            } else {
                (i % 20) as u32
            };
            let inner = if i % 11 == 0 {
                u32::MAX
            } else if i % 13 == 0 {
                u32::MAX - 1
            } else {
                (i % 50) as u32
            };
            rows.push(row(offset, time, type_, inner, (i % 17) as u32));
        }
        let mut r = RecordRows::default();
        rows.iter().for_each(|&x| r.push(x));
        assert_eq!(r.len(), rows.len());
        assert_eq!(r.iter().collect::<Vec<_>>(), rows);
        for (i, &x) in rows.iter().enumerate() {
            assert_eq!(r.get(i), Some(x), "row {i}");
        }
        assert!(r.get(1000).is_none());
    }

    #[test]
    fn matching_rows_are_those_a_filter_over_every_row_keeps() {
        // Threads in runs (whole blocks of one thread, so some blocks are skipped), types,
        // times both sides of a range, rows without one.
        let mut rows = Vec::new();
        for i in 0..2000u64 {
            let tid = ((i / 300) % 4) as u32;
            let time = if i % 13 == 0 { u64::MAX } else { 1_000 + i * 7 };
            rows.push(row(
                0x1000 + i * 48,
                time,
                (i % 3) as u32 + 9,
                u32::MAX,
                tid,
            ));
        }
        let mut r = RecordRows::default();
        rows.iter().for_each(|&x| r.push(x));
        let check = |kind_ok: &dyn Fn(u32, (u32, u32, u32)) -> bool, range: Option<(u64, u64)>| {
            let want: Vec<u32> = (0..rows.len() as u32)
                .filter(|&i| {
                    let x = rows[i as usize];
                    kind_ok(x.type_, (x.cpu, x.pid, x.tid))
                        && range.is_none_or(|(lo, hi)| {
                            x.time != u64::MAX && (lo..=hi).contains(&x.time)
                        })
                })
                .collect();
            let got = r.matching(kind_ok, range);
            assert_eq!(got.iter().collect::<Vec<_>>(), want);
            want.len()
        };
        assert_eq!(check(&|_, _| true, None), 2000);
        assert!(check(&|_, (_, _, tid)| tid == 2, None) > 0);
        assert!(
            check(
                &|t, (_, _, tid)| t == 10 && tid == 1,
                Some((0, u64::MAX - 1))
            ) > 0
        );
        // Ranges that begin and end inside blocks, cover whole blocks, lie between two rows'
        // times, hold one time, and reach the greatest time (u64::MAX - 1: u64::MAX is none).
        for range in [
            (5_000, 9_000),
            (1_000, 20_000),
            (1_001, 1_006),
            (8_000, 8_000),
            (0, 999),
            (14_000, u64::MAX - 1),
        ] {
            check(&|_, _| true, Some(range));
            check(&|t, _| t == 11, Some(range));
        }
        assert!(check(&|_, _| true, Some((5_000, 9_000))) > 0);
        assert_eq!(check(&|_, (_, _, tid)| tid == 7, None), 0);
    }

    #[test]
    fn a_row_of_a_run_costs_its_head_and_its_time_by_hand() {
        // A block of samples 56 bytes long, 50 µs apart, of one thread: the first row writes
        // its offset (0x1000 / 8 = 512, shifted by 4 = 8192 | NEW_KIND: 2 bytes), its kind (1)
        // and its time (1_000_000 as zigzag = 2_000_000: 3 bytes); each of the other 127 a
        // head (7 << 4 = 112: 1 byte) and its time (50_000 as zigzag = 100_000: 3 bytes).
        let mut r = RecordRows::default();
        for i in 0..BLOCK as u64 {
            r.push(row(0x1000 + i * 56, 1_000_000 + i * 50_000, 9, u32::MAX, 5));
        }
        assert_eq!(r.blocks.len(), 1);
        let block = r.blocks.first().map_or(0, |b| b.bytes.len());
        assert_eq!(block, 2 + 1 + 3 + 127 * (1 + 3));
        assert_eq!(r.blocks.first().map(|b| b.kinds.len()), Some(1));
        // Another thread's record in between costs its kind byte, and the row after it one to
        // return to the first kind; a record of 20 bytes after it (not a multiple of 8) writes
        // its step whole (one more byte).
        let mut r = RecordRows::default();
        r.push(row(0x1000, 1_000_000, 9, u32::MAX, 5));
        r.push(row(0x1000 + 56, 1_050_000, 3, u32::MAX, 7));
        r.push(row(0x1000 + 112, 1_100_000, 9, u32::MAX, 5));
        r.push(row(0x1000 + 132, u64::MAX, 9, u32::MAX, 5));
        assert_eq!(
            r.open.len(),
            (2 + 1 + 3) + (1 + 1 + 3) + (1 + 1 + 3) + (1 + 1)
        );
        assert_eq!(r.open_kinds, vec![(9, 0), (3, 1)]);
    }

    #[test]
    fn many_rows_cost_about_five_bytes() {
        // Records of 200 bytes, 40 µs apart: a 2-byte head and a 3-byte time.
        let mut r = RecordRows::default();
        for i in 0..(BLOCK as u64 * 100) {
            r.push(row(i * 200, 1_000_000 + i * 40_000, 9, u32::MAX, 5));
        }
        // (With the blocks' handles, kinds and time spans: ~0.55 more.)
        let per_row = r.heap_bytes() as f64 / r.len() as f64;
        assert!((5.0..5.7).contains(&per_row), "{per_row} bytes a row");
        // Rows from COMPRESSED records, ten each: one more byte for the number inside, one
        // less for the step (0) of nine in ten.
        let mut z = RecordRows::default();
        let rows: Vec<Row> = (0..(BLOCK as u64 * 100))
            .map(|i| row(i / 10 * 200, 1_000_000 + i * 40_000, 9, (i % 10) as u32, 5))
            .collect();
        rows.iter().for_each(|&x| z.push(x));
        assert_eq!(z.iter().collect::<Vec<_>>(), rows);
        let per_row = z.heap_bytes() as f64 / z.len() as f64;
        assert!((5.0..6.0).contains(&per_row), "{per_row} bytes a row");
    }
}
