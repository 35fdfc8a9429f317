//! PERF_RECORD_SAMPLE, decoded field by field in the order of perf's `evsel__parse_sample`
//! (`tools/perf/util/evsel.c`), which is the order the kernel writes them
//! (`perf_output_sample`).

use super::array::U64Array;
use super::branch::BranchStack;
use super::callchain::{read_array, Callchain};
use super::read::ReadData;
use crate::bytes::Bytes;
use crate::constants::sample_type as st;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{EventIndex, EventLayout};

/// A decoded PERF_RECORD_SAMPLE. Fields the event's `sample_type` does not select are `None`;
/// variable-size fields borrow from the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleRecord<'a> {
    /// The event the sample belongs to.
    pub event: EventIndex,
    /// `header.misc`: cpumode ([`crate::constants::misc::CPUMODE_MASK`]) and `EXACT_IP`.
    pub misc: u16,
    /// `id` (PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID).
    pub id: Option<u64>,
    /// `ip`.
    pub ip: Option<u64>,
    /// `pid` (PERF_SAMPLE_TID).
    pub pid: Option<u32>,
    /// `tid` (PERF_SAMPLE_TID).
    pub tid: Option<u32>,
    /// `time` in ns.
    pub time: Option<u64>,
    /// `addr`.
    pub addr: Option<u64>,
    /// `stream_id`.
    pub stream_id: Option<u64>,
    /// `cpu` (the `res` half is dropped).
    pub cpu: Option<u32>,
    /// `period`. When absent, perf uses the attr's fixed period ([`EventLayout::attr_period`]).
    pub period: Option<u64>,
    /// `read_format` values (PERF_SAMPLE_READ).
    pub read: Option<ReadData<'a>>,
    /// The callchain.
    pub callchain: Option<Callchain<'a>>,
    /// `raw` data (tracepoint fields), left in the file's byte order.
    pub raw: Option<&'a [u8]>,
    /// The branch stack.
    pub branch_stack: Option<BranchStack<'a>>,
    /// User registers (PERF_SAMPLE_REGS_USER).
    pub regs_user: Option<Regs<'a>>,
    /// User stack (PERF_SAMPLE_STACK_USER).
    pub stack_user: Option<UserStack<'a>>,
    /// `weight` (PERF_SAMPLE_WEIGHT or PERF_SAMPLE_WEIGHT_STRUCT).
    pub weight: Option<Weight>,
    /// `data_src` (`union perf_mem_data_src`).
    pub data_src: Option<u64>,
    /// `transaction`.
    pub transaction: Option<u64>,
    /// Registers at the interrupt (PERF_SAMPLE_REGS_INTR).
    pub regs_intr: Option<Regs<'a>>,
    /// `phys_addr`.
    pub phys_addr: Option<u64>,
    /// `cgroup` id.
    pub cgroup: Option<u64>,
    /// `data_page_size`.
    pub data_page_size: Option<u64>,
    /// `code_page_size`.
    pub code_page_size: Option<u64>,
    /// `aux` data (PERF_SAMPLE_AUX), left in the file's byte order.
    pub aux: Option<&'a [u8]>,
}

/// Who and when of a SAMPLE, from [`crate::records::check_sample_ids`]: the fields of the
/// same names in its [`SampleRecord`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleIds {
    /// The event (attr) the sample belongs to.
    pub event: EventIndex,
    /// Process id (PERF_SAMPLE_TID).
    pub pid: Option<u32>,
    /// Thread id (PERF_SAMPLE_TID).
    pub tid: Option<u32>,
    /// Time (PERF_SAMPLE_TIME).
    pub time: Option<u64>,
    /// CPU (PERF_SAMPLE_CPU).
    pub cpu: Option<u32>,
}

/// The fields of a SAMPLE that a profile's stacks and weights are made of, from
/// [`crate::records::parse_sample_brief`]: the fields of the same names in its
/// [`SampleRecord`]. The sample's other fields are checked, not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleBrief<'a> {
    /// The event (attr) the sample belongs to.
    pub event: EventIndex,
    /// `header.misc`: cpumode and `EXACT_IP`.
    pub misc: u16,
    /// `ip`.
    pub ip: Option<u64>,
    /// Process id (PERF_SAMPLE_TID).
    pub pid: Option<u32>,
    /// Thread id (PERF_SAMPLE_TID).
    pub tid: Option<u32>,
    /// Time (PERF_SAMPLE_TIME).
    pub time: Option<u64>,
    /// CPU (PERF_SAMPLE_CPU).
    pub cpu: Option<u32>,
    /// `period`.
    pub period: Option<u64>,
    /// `read_format` values (PERF_SAMPLE_READ).
    pub read: Option<ReadData<'a>>,
    /// The callchain.
    pub callchain: Option<Callchain<'a>>,
    /// Whether the sample carries user registers and a user stack (PERF_SAMPLE_REGS_USER and
    /// PERF_SAMPLE_STACK_USER: `regs_user` and `stack_user` are both `Some` in its
    /// [`SampleRecord`]).
    pub user_regs_and_stack: bool,
}

/// Registers (`struct regs_dump`): `abi` and, when it is not `PERF_SAMPLE_REGS_ABI_NONE` (0),
/// one value per bit set in the attr's register mask, lowest bit first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Regs<'a> {
    /// `abi`: 0 none, 1 32-bit, 2 64-bit.
    pub abi: u64,
    /// The attr's mask (`sample_regs_user` or `sample_regs_intr`).
    pub mask: u64,
    /// The values (empty when `abi` is 0).
    pub values: U64Array<'a>,
}

impl Regs<'_> {
    /// The value of register `reg` (its bit number in the mask, e.g. `PERF_REG_X86_IP` = 8).
    pub fn get(&self, reg: u32) -> Option<u64> {
        if reg >= 64 || self.mask & (1u64 << reg) == 0 {
            return None;
        }
        let below = self.mask & ((1u64 << reg) - 1);
        self.values.get(below.count_ones() as usize)
    }
}

/// The user stack dump (`struct stack_dump`): `size` bytes copied from the stack pointer up, of
/// which the first `dyn_size` are valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserStack<'a> {
    /// All `size` bytes (empty when the kernel wrote size 0).
    pub data: &'a [u8],
    /// `dyn_size`: how many bytes were really copied (0 when `size` is 0).
    pub dyn_size: u64,
}

impl<'a> UserStack<'a> {
    /// The valid bytes: the first `dyn_size` bytes of `data`.
    pub fn valid(&self) -> &'a [u8] {
        let n = usize::try_from(self.dyn_size)
            .unwrap_or(usize::MAX)
            .min(self.data.len());
        self.data.get(..n).unwrap_or(&[])
    }
}

/// A sample weight: a plain `u64` (PERF_SAMPLE_WEIGHT) or `union perf_sample_weight`
/// (PERF_SAMPLE_WEIGHT_STRUCT), read as one `u64` in the file's byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weight {
    /// The 64-bit word.
    pub full: u64,
    /// Whether the event uses PERF_SAMPLE_WEIGHT_STRUCT.
    pub is_struct: bool,
}

impl Weight {
    /// `var1_dw` (the low 32 bits in either byte order): the weight / latency.
    pub const fn var1_dw(self) -> u32 {
        self.full as u32
    }
    /// `var2_w` (bits 32..48): e.g. instruction latency.
    pub const fn var2_w(self) -> u16 {
        (self.full >> 32) as u16
    }
    /// `var3_w` (bits 48..64).
    pub const fn var3_w(self) -> u16 {
        (self.full >> 48) as u16
    }
    /// What perf shows as the sample's weight: `var1_dw` for WEIGHT_STRUCT, `full` otherwise.
    pub const fn weight(self) -> u64 {
        if self.is_struct {
            self.var1_dw() as u64
        } else {
            self.full
        }
    }
}

/// A cursor over the fixed-size prefix whose length was checked up front.
struct Fixed<'a> {
    data: &'a [u8],
    endian: Endianness,
}

impl Fixed<'_> {
    #[inline(always)]
    fn u64(&mut self) -> u64 {
        match self.data.split_first_chunk::<8>() {
            Some((head, tail)) => {
                self.data = tail;
                self.endian.u64(*head)
            }
            None => 0,
        }
    }

    #[inline(always)]
    fn pair(&mut self) -> (u32, u32) {
        match self.data.split_first_chunk::<8>() {
            Some((head, tail)) => {
                self.data = tail;
                let [a0, a1, a2, a3, b0, b1, b2, b3] = *head;
                (
                    self.endian.u32([a0, a1, a2, a3]),
                    self.endian.u32([b0, b1, b2, b3]),
                )
            }
            None => (0, 0),
        }
    }
}

impl<'a> SampleRecord<'a> {
    /// Decodes a SAMPLE body (whose first byte is at absolute `offset`) with the plan of its
    /// event.
    pub fn parse(
        body: &'a [u8],
        offset: u64,
        endian: Endianness,
        misc: u16,
        event: EventIndex,
        layout: &EventLayout,
    ) -> Result<SampleRecord<'a>> {
        let mut s = SampleRecord::empty(event, misc);
        s.fill(body, offset, endian, layout)?;
        Ok(s)
    }

    /// Decodes the fields into `self` (made by [`SampleRecord::empty`]), in place: a sample is
    /// large, and building it where it will be returned saves copying it.
    #[inline]
    pub(crate) fn fill(
        &mut self,
        body: &'a [u8],
        offset: u64,
        endian: Endianness,
        layout: &EventLayout,
    ) -> Result<()> {
        let t = layout.sample_type;
        let (fixed, rest) = fixed_part(body, offset, layout)?;
        let s = self;
        let mut f = Fixed {
            data: fixed,
            endian,
        };
        if t & st::IDENTIFIER != 0 {
            s.id = Some(f.u64());
        }
        if t & st::IP != 0 {
            s.ip = Some(f.u64());
        }
        if t & st::TID != 0 {
            let (pid, tid) = f.pair();
            s.pid = Some(pid);
            s.tid = Some(tid);
        }
        if t & st::TIME != 0 {
            s.time = Some(f.u64());
        }
        if t & st::ADDR != 0 {
            s.addr = Some(f.u64());
        }
        if t & st::ID != 0 {
            s.id = Some(f.u64());
        }
        if t & st::STREAM_ID != 0 {
            s.stream_id = Some(f.u64());
        }
        if t & st::CPU != 0 {
            s.cpu = Some(f.pair().0);
        }
        if t & st::PERIOD != 0 {
            s.period = Some(f.u64());
        }
        if t & !FIXED_FIELDS == 0 {
            return Ok(());
        }
        let mut b = Bytes::new(rest, offset + layout.fixed_size as u64, endian);
        parse_variable(&mut b, layout, t, Some(s))
    }

    /// Checks that a SAMPLE body decodes with the plan of its event, without keeping the
    /// fields: the same checks in the same order as [`SampleRecord::parse`], so the same
    /// error (or none). For counting samples (`perfscope stats`), where building the record
    /// cost more than reading it.
    pub fn check(
        body: &'a [u8],
        offset: u64,
        endian: Endianness,
        layout: &EventLayout,
    ) -> Result<()> {
        let rest = fixed_part(body, offset, layout)?.1;
        check_variable(rest, offset, endian, layout)
    }

    /// [`SampleRecord::check`], keeping the fields that say who and when: the process and
    /// thread, the time and the CPU (of [`SampleRecord::parse_brief`], which makes the same
    /// checks).
    pub(crate) fn check_ids(
        body: &'a [u8],
        offset: u64,
        endian: Endianness,
        layout: &EventLayout,
        event: EventIndex,
    ) -> Result<SampleIds> {
        let b = Self::parse_brief(body, offset, endian, 0, event, layout)?;
        Ok(SampleIds {
            event,
            pid: b.pid,
            tid: b.tid,
            time: b.time,
            cpu: b.cpu,
        })
    }

    /// The fields of [`SampleBrief`], and the same checks in the same order as
    /// [`SampleRecord::parse`] (so the same error, or none), without building the whole
    /// record (~0.5 kB): for the many samples of a records pass that only need these.
    pub(crate) fn parse_brief(
        body: &'a [u8],
        offset: u64,
        endian: Endianness,
        misc: u16,
        event: EventIndex,
        layout: &EventLayout,
    ) -> Result<SampleBrief<'a>> {
        let t = layout.sample_type;
        let (fixed, rest) = fixed_part(body, offset, layout)?;
        let mut f = Fixed {
            data: fixed,
            endian,
        };
        let mut s = SampleBrief {
            event,
            misc,
            ip: None,
            pid: None,
            tid: None,
            time: None,
            cpu: None,
            period: None,
            read: None,
            callchain: None,
            user_regs_and_stack: t & (st::REGS_USER | st::STACK_USER)
                == st::REGS_USER | st::STACK_USER,
        };
        if t & st::IDENTIFIER != 0 {
            f.u64();
        }
        if t & st::IP != 0 {
            s.ip = Some(f.u64());
        }
        if t & st::TID != 0 {
            let (pid, tid) = f.pair();
            s.pid = Some(pid);
            s.tid = Some(tid);
        }
        if t & st::TIME != 0 {
            s.time = Some(f.u64());
        }
        for bit in [st::ADDR, st::ID, st::STREAM_ID] {
            if t & bit != 0 {
                f.u64();
            }
        }
        if t & st::CPU != 0 {
            s.cpu = Some(f.pair().0);
        }
        if t & st::PERIOD != 0 {
            s.period = Some(f.u64());
        }
        if t & !FIXED_FIELDS == 0 {
            return Ok(s);
        }
        // READ and CALLCHAIN, the first two fields after the fixed part, kept; the others
        // (after them in the record) checked.
        let mut b = Bytes::new(rest, offset + layout.fixed_size as u64, endian);
        if t & st::READ != 0 {
            s.read = Some(ReadData::parse(&mut b, layout.read_format)?);
        }
        if t & st::CALLCHAIN != 0 {
            s.callchain = Some(Callchain::parse(&mut b)?);
        }
        let later = t & !(FIXED_FIELDS | st::READ | st::CALLCHAIN);
        if later != 0 {
            parse_variable(&mut b, layout, later, None)?;
        }
        Ok(s)
    }

    pub(crate) const fn empty(event: EventIndex, misc: u16) -> SampleRecord<'a> {
        SampleRecord {
            event,
            misc,
            id: None,
            ip: None,
            pid: None,
            tid: None,
            time: None,
            addr: None,
            stream_id: None,
            cpu: None,
            period: None,
            read: None,
            callchain: None,
            raw: None,
            branch_stack: None,
            regs_user: None,
            stack_user: None,
            weight: None,
            data_src: None,
            transaction: None,
            regs_intr: None,
            phys_addr: None,
            cgroup: None,
            data_page_size: None,
            code_page_size: None,
            aux: None,
        }
    }

    /// The cpumode bits of `misc` (`PERF_RECORD_MISC_KERNEL`, `_USER`, …).
    pub const fn cpumode(&self) -> u16 {
        self.misc & crate::constants::misc::CPUMODE_MASK
    }
}

/// Checks the fields after PERIOD (`rest`, after the fixed part of a body at `offset`) without
/// keeping them.
#[inline]
fn check_variable(
    rest: &[u8],
    offset: u64,
    endian: Endianness,
    layout: &EventLayout,
) -> Result<()> {
    let variable = layout.sample_type & !FIXED_FIELDS;
    if variable == 0 {
        return Ok(());
    }
    // The most common layout (`perf record -g`): a callchain alone, checked by its length word
    // (what `Callchain::parse` checks). A callchain that does not fit goes the general way,
    // for its error.
    if variable == st::CALLCHAIN {
        let fits = rest
            .get(..8)
            .and_then(|n| n.try_into().ok())
            .map(|n| endian.u64(n))
            .and_then(|nr| nr.checked_mul(8))
            .is_some_and(|len| len <= rest.len().saturating_sub(8) as u64);
        if fits {
            return Ok(());
        }
    }
    let mut b = Bytes::new(rest, offset + layout.fixed_size as u64, endian);
    parse_variable(&mut b, layout, layout.sample_type, None)
}

/// The fields after PERIOD that `t` (sample_type bits) selects, in the record's order, kept
/// in `keep` (when given) as they are read.
fn parse_variable<'a>(
    b: &mut Bytes<'a>,
    layout: &EventLayout,
    t: u64,
    mut keep: Option<&mut SampleRecord<'a>>,
) -> Result<()> {
    /// Stores `value` in the record's `field` when the record is kept (not only checked).
    macro_rules! keep {
        ($field:ident, $value:expr) => {{
            let v = $value;
            if let Some(s) = keep.as_deref_mut() {
                s.$field = Some(v);
            }
        }};
    }
    if t & st::READ != 0 {
        keep!(read, ReadData::parse(b, layout.read_format)?);
    }
    if t & st::CALLCHAIN != 0 {
        keep!(callchain, Callchain::parse(b)?);
    }
    if t & st::RAW != 0 {
        // u32 size, then size bytes; the pair is padded by the kernel to 8 bytes and the
        // padding is counted in size.
        let size = b.read_u32("raw size")?;
        keep!(raw, b.read_bytes_u64(size.into(), "raw data")?);
    }
    if t & st::BRANCH_STACK != 0 {
        keep!(branch_stack, BranchStack::parse(b, layout)?);
    }
    if t & st::REGS_USER != 0 {
        keep!(
            regs_user,
            parse_regs(
                b,
                layout.sample_regs_user,
                layout.regs_user_size,
                "user regs"
            )?
        );
    }
    if t & st::STACK_USER != 0 {
        let size = b.read_u64("user stack size")?;
        keep!(
            stack_user,
            if size == 0 {
                UserStack {
                    data: &[],
                    dyn_size: 0,
                }
            } else {
                let data = b.read_bytes_u64(size, "user stack data")?;
                let at = b.offset();
                let dyn_size = b.read_u64("user stack dyn_size")?;
                if dyn_size > size {
                    return Err(Error::new(
                        at,
                        ErrorKind::BadValue {
                            what: "user stack dyn_size (larger than its size)",
                            value: dyn_size,
                        },
                    ));
                }
                UserStack { data, dyn_size }
            }
        );
    }
    if t & (st::WEIGHT | st::WEIGHT_STRUCT) != 0 {
        let full = b.read_u64("weight")?;
        keep!(
            weight,
            Weight {
                full,
                is_struct: t & st::WEIGHT_STRUCT != 0
            }
        );
    }
    if t & st::DATA_SRC != 0 {
        keep!(data_src, b.read_u64("data_src")?);
    }
    if t & st::TRANSACTION != 0 {
        keep!(transaction, b.read_u64("transaction")?);
    }
    if t & st::REGS_INTR != 0 {
        keep!(
            regs_intr,
            parse_regs(
                b,
                layout.sample_regs_intr,
                layout.regs_intr_size,
                "intr regs"
            )?
        );
    }
    if t & st::PHYS_ADDR != 0 {
        keep!(phys_addr, b.read_u64("phys_addr")?);
    }
    if t & st::CGROUP != 0 {
        keep!(cgroup, b.read_u64("cgroup")?);
    }
    if t & st::DATA_PAGE_SIZE != 0 {
        keep!(data_page_size, b.read_u64("data_page_size")?);
    }
    if t & st::CODE_PAGE_SIZE != 0 {
        keep!(code_page_size, b.read_u64("code_page_size")?);
    }
    if t & st::AUX != 0 {
        let size = b.read_u64("aux size")?;
        keep!(aux, b.read_bytes_u64(size, "aux data")?);
    }
    Ok(())
}

/// Every sample_type bit of the fixed-size prefix (up to PERIOD).
const FIXED_FIELDS: u64 = st::IDENTIFIER
    | st::IP
    | st::TID
    | st::TIME
    | st::ADDR
    | st::ID
    | st::STREAM_ID
    | st::CPU
    | st::PERIOD;

/// Splits a SAMPLE body into its fixed-size prefix and the rest, after checking that the
/// event's sample_type is known.
fn fixed_part<'a>(
    body: &'a [u8],
    offset: u64,
    layout: &EventLayout,
) -> Result<(&'a [u8], &'a [u8])> {
    if layout.unknown_sample_bits != 0 {
        return Err(Error::new(
            offset,
            ErrorKind::UnknownSampleType {
                bits: layout.unknown_sample_bits,
            },
        ));
    }
    body.split_at_checked(layout.fixed_size).ok_or(Error::new(
        offset,
        ErrorKind::UnexpectedEof {
            what: "sample fixed fields",
            needed: layout.fixed_size as u64,
            available: body.len() as u64,
        },
    ))
}

/// Reads `u64 abi` and, when it is not 0, `size` bytes of registers.
fn parse_regs<'a>(
    b: &mut Bytes<'a>,
    mask: u64,
    size: usize,
    what: &'static str,
) -> Result<Regs<'a>> {
    let abi = b.read_u64(what)?;
    let at = b.offset();
    let values = if abi == 0 {
        U64Array::empty(b.endian())
    } else {
        U64Array::new(read_array(b, (size / 8) as u64, 8, at, what)?, b.endian())
    };
    Ok(Regs { abi, mask, values })
}

#[cfg(test)]
#[path = "sample_tests.rs"]
mod tests;
