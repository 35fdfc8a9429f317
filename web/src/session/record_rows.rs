//! [`RecordRows`]: the rows of the records index (offset, time, type, cpu/pid/tid of every
//! record in file order) stored in about 15 bytes a row instead of 36.
//!
//! Rows are kept in boxed blocks of [`BLOCK`] rows, so the index never grows by copying one
//! huge buffer (on wasm32 a grown `Vec`'s old block stays in the heap). In a block, the file
//! offset is a `u32` delta from the block's first offset, the time a `u32` delta from a base
//! set by the block's first timed row (2³¹ ns before it, so rows up to ~2 s older fit too), the
//! type a `u8` code into a table of the types seen, (cpu, pid, tid) a `u32` index into a table
//! of the triples seen, and the number inside a COMPRESSED record a `u16` (in a block only
//! once one of its rows is from a COMPRESSED record: 13 bytes a row in an uncompressed file). A
//! row with a value that does not fit is kept whole in a side map (exactly: nothing is
//! rounded).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

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
/// Bytes a row takes in an uncompressed file (a row that fits its block's widths; see the
/// module docs and the test of it below).
pub const ROW_BYTES: u64 = 13;
/// `offset_delta` of a row kept whole in `wide`.
const WIDE: u32 = u32::MAX;
/// `time_delta` of a row without a time.
const NO_TIME: u32 = u32::MAX;
/// `inner` of a row that is not from a COMPRESSED record.
const NO_INNER: u16 = u16::MAX;
/// Time deltas are counted from this much before the block's first time.
const BACK: u64 = 1 << 31;

struct Block {
    offset: u64,
    /// The time base, once a timed row came.
    time: Option<u64>,
    offset_delta: [u32; BLOCK],
    time_delta: [u32; BLOCK],
    who: [u32; BLOCK],
    /// Made at the block's first row from a COMPRESSED record; none: every row's is
    /// [`NO_INNER`].
    inner: Option<Box<[u16; BLOCK]>>,
    type_: [u8; BLOCK],
}

/// The rows, compactly; see the module docs.
#[derive(Default)]
pub struct RecordRows {
    // Boxed on purpose: growing the list moves pointers, never the rows.
    #[allow(clippy::vec_box)]
    blocks: Vec<Box<Block>>,
    len: usize,
    /// Record types by code.
    types: Vec<u32>,
    /// (cpu, pid, tid) by index, and the index of each.
    whos: Vec<(u32, u32, u32)>,
    who_index: FxHashMap<(u32, u32, u32), u32>,
    /// The last (cpu, pid, tid) looked up and its index (records of one CPU's buffer come in
    /// runs, often of one thread).
    last_who: Option<((u32, u32, u32), u32)>,
    /// Rows that do not fit a block's widths, by row number.
    wide: BTreeMap<usize, Row>,
}

impl std::fmt::Debug for RecordRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordRows")
            .field("len", &self.len)
            .field("wide", &self.wide.len())
            .finish()
    }
}

impl RecordRows {
    /// Appends a row.
    pub fn push(&mut self, row: Row) {
        let slot = self.len % BLOCK;
        if slot == 0 {
            self.blocks.push(Box::new(Block {
                offset: row.offset,
                time: None,
                offset_delta: [0; BLOCK],
                time_delta: [NO_TIME; BLOCK],
                who: [0; BLOCK],
                inner: None,
                type_: [0; BLOCK],
            }));
        }
        let n = self.len;
        self.len += 1;
        let type_ = self.type_code(row.type_);
        let who = self.who_code((row.cpu, row.pid, row.tid));
        let Some(b) = self.blocks.last_mut() else {
            return;
        };
        if row.time != u64::MAX && b.time.is_none() {
            b.time = Some(row.time.saturating_sub(BACK));
        }
        let offset = row
            .offset
            .checked_sub(b.offset)
            .and_then(|d| u32::try_from(d).ok())
            .filter(|&d| d != WIDE);
        let time = match (row.time, b.time) {
            (u64::MAX, _) => Some(NO_TIME),
            (t, Some(base)) => t
                .checked_sub(base)
                .and_then(|d| u32::try_from(d).ok())
                .filter(|&d| d != NO_TIME),
            (_, None) => None,
        };
        let inner = match row.inner {
            u32::MAX => Some(NO_INNER),
            i => u16::try_from(i).ok().filter(|&i| i != NO_INNER),
        };
        let fits = (offset, time, inner, type_, who);
        let (Some(offset), Some(time), Some(inner), Some(type_), Some(who)) = fits else {
            if let Some(d) = b.offset_delta.get_mut(slot) {
                *d = WIDE;
            }
            self.wide.insert(n, row);
            return;
        };
        if inner != NO_INNER {
            let column = b.inner.get_or_insert_with(|| Box::new([NO_INNER; BLOCK]));
            if let Some(i) = column.get_mut(slot) {
                *i = inner;
            }
        }
        let cells = (
            b.offset_delta.get_mut(slot),
            b.time_delta.get_mut(slot),
            b.type_.get_mut(slot),
            b.who.get_mut(slot),
        );
        if let (Some(o), Some(t), Some(ty), Some(w)) = cells {
            (*o, *t, *ty, *w) = (offset, time, type_, who);
        }
    }

    fn type_code(&mut self, t: u32) -> Option<u8> {
        match self.types.iter().position(|&x| x == t) {
            Some(i) => u8::try_from(i).ok(),
            None if self.types.len() < usize::from(u8::MAX) => {
                self.types.push(t);
                u8::try_from(self.types.len() - 1).ok()
            }
            None => None,
        }
    }

    fn who_code(&mut self, who: (u32, u32, u32)) -> Option<u32> {
        if let Some((last, i)) = self.last_who {
            if last == who {
                return Some(i);
            }
        }
        if let Some(&i) = self.who_index.get(&who) {
            self.last_who = Some((who, i));
            return Some(i);
        }
        let i = u32::try_from(self.whos.len()).ok()?;
        self.whos.push(who);
        self.who_index.insert(who, i);
        self.last_who = Some((who, i));
        Some(i)
    }

    /// Row `i`.
    pub fn get(&self, i: usize) -> Option<Row> {
        if i >= self.len {
            return None;
        }
        let (b, slot) = (self.blocks.get(i / BLOCK)?, i % BLOCK);
        let offset_delta = *b.offset_delta.get(slot)?;
        if offset_delta == WIDE {
            return self.wide.get(&i).copied();
        }
        let time = match *b.time_delta.get(slot)? {
            NO_TIME => u64::MAX,
            d => b.time?.checked_add(u64::from(d))?,
        };
        let inner = match *b.inner.as_ref().map_or(Some(&NO_INNER), |i| i.get(slot))? {
            NO_INNER => u32::MAX,
            n => u32::from(n),
        };
        let type_ = *self.types.get(usize::from(*b.type_.get(slot)?))?;
        let &(cpu, pid, tid) = self.whos.get(*b.who.get(slot)? as usize)?;
        Some(Row {
            offset: b.offset.checked_add(u64::from(offset_delta))?,
            inner,
            type_,
            time,
            cpu,
            pid,
            tid,
        })
    }

    /// Every row in order.
    pub fn iter(&self) -> impl Iterator<Item = Row> + '_ {
        (0..self.len).filter_map(|i| self.get(i))
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held on the heap (blocks, tables; the side map counted per entry).
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Box<Block>>()
            + self.blocks.len() * std::mem::size_of::<Block>()
            + self.blocks.iter().filter(|b| b.inner.is_some()).count()
                * std::mem::size_of::<[u16; BLOCK]>()
            + self.types.capacity() * 4
            + self.whos.capacity() * 12
            + self.who_index.capacity() * 17
            + self.wide.len() * (std::mem::size_of::<(usize, Row)>() + 16)
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
    fn rows_come_back_exactly_whether_they_fit_or_not() {
        // Offsets growing by 40, times jumping back and forth around 10 s, one row per block
        // far out of range (offset 2^40, time 0, time 2^63), types past the u8 code table.
        let mut rows = Vec::new();
        for i in 0..1000u64 {
            let time = match i % 97 {
                0 => u64::MAX,
                5 => 0,
                6 => 1 << 63,
                k => 10_000_000_000 + k * 1_000_000 - (i % 3) * 1_500_000_000,
            };
            let offset = if i % 131 == 7 {
                1 << 40
            } else {
                0x1000 + i * 40
            };
            let type_ = if i > 500 {
                1000 + (i as u32 % 300)
            } else {
                (i % 20) as u32
            };
            let inner = if i % 11 == 0 {
                u32::MAX
            } else if i % 13 == 0 {
                70_000
            } else {
                (i % 50) as u32
            };
            rows.push(row(offset, time, type_, inner, (i % 17) as u32));
        }
        let mut r = RecordRows::default();
        rows.iter().for_each(|&x| r.push(x));
        assert_eq!(r.len(), rows.len());
        assert_eq!(r.iter().collect::<Vec<_>>(), rows);
        assert!(r.get(1000).is_none());
        // Most rows fit in their block: the side map holds the misfits only.
        assert!(r.wide.len() < 400, "{} wide rows", r.wide.len());
        assert!(!r.wide.is_empty());
    }

    #[test]
    fn a_fitting_row_costs_thirteen_bytes_or_fifteen_from_a_compressed_record() {
        let mut r = RecordRows::default();
        for i in 0..(BLOCK as u64 * 100) {
            r.push(row(i * 100, 1_000_000 + i, 9, u32::MAX, 5));
        }
        assert!(r.wide.is_empty());
        let per_row = r.heap_bytes() as f64 / r.len() as f64;
        assert!((13.0..14.0).contains(&per_row), "{per_row} bytes a row");
        // Rows from COMPRESSED records: each block with one gets their numbers.
        let mut z = RecordRows::default();
        let rows: Vec<Row> = (0..(BLOCK as u64 * 100))
            .map(|i| row(i / 10 * 100, 1_000_000 + i, 9, (i % 10) as u32, 5))
            .collect();
        rows.iter().for_each(|&x| z.push(x));
        assert!(z.wide.is_empty());
        assert_eq!(z.iter().collect::<Vec<_>>(), rows);
        let per_row = z.heap_bytes() as f64 / z.len() as f64;
        assert!((15.0..16.0).contains(&per_row), "{per_row} bytes a row");
    }
}
