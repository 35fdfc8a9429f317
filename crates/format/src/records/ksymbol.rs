//! PERF_RECORD_KSYMBOL: a kernel symbol registered or unregistered (BPF programs, trampolines).

use super::sample_id::SampleId;
use crate::bytes::{until_nul, Bytes};
use crate::error::Result;
use crate::features::RawStr;

/// `struct perf_record_ksymbol` (PERF_RECORD_KSYMBOL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KsymbolRecord<'a> {
    /// `addr`.
    pub addr: u64,
    /// `len`.
    pub len: u32,
    /// `ksym_type` (`PERF_RECORD_KSYMBOL_TYPE_BPF` 1, `_OOL` 2).
    pub ksym_type: u16,
    /// `flags` (`PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER` 1).
    pub flags: u16,
    /// `name`.
    pub name: RawStr<'a>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> KsymbolRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, sample_id: SampleId) -> Result<Self> {
        let addr = b.read_u64("ksymbol addr")?;
        let len = b.read_u32("ksymbol len")?;
        let ksym_type = b.read_u16("ksymbol ksym_type")?;
        let flags = b.read_u16("ksymbol flags")?;
        let name = RawStr(until_nul(b.remaining()));
        Ok(KsymbolRecord {
            addr,
            len,
            ksym_type,
            flags,
            name,
            sample_id,
        })
    }

    /// Whether the symbol is being unregistered.
    pub const fn is_unregister(&self) -> bool {
        self.flags & 1 != 0
    }
}
