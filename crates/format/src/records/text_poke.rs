//! PERF_RECORD_TEXT_POKE: kernel text modified at run time.

use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_text_poke_event` (PERF_RECORD_TEXT_POKE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPokeRecord<'a> {
    /// `addr`.
    pub addr: u64,
    /// The `old_len` bytes before the change.
    pub old_bytes: &'a [u8],
    /// The `new_len` bytes after the change.
    pub new_bytes: &'a [u8],
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> TextPokeRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, sample_id: SampleId) -> Result<Self> {
        let addr = b.read_u64("text_poke addr")?;
        let old_len = b.read_u16("text_poke old_len")?;
        let new_len = b.read_u16("text_poke new_len")?;
        let old_bytes = b.read_bytes(old_len.into(), "text_poke old bytes")?;
        let new_bytes = b.read_bytes(new_len.into(), "text_poke new bytes")?;
        Ok(TextPokeRecord {
            addr,
            old_bytes,
            new_bytes,
            sample_id,
        })
    }
}
