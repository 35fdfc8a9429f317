//! PERF_RECORD_BPF_METADATA: key/value strings of a BPF program (perf ≥ 6.16).

use core::iter::FusedIterator;

use crate::bytes::{until_nul, Bytes};
use crate::error::{Error, ErrorKind, Result};
use crate::features::RawStr;
use crate::layout::read_u64_at;

/// `BPF_METADATA_KEY_LEN`.
const KEY_LEN: usize = 64;
/// `BPF_METADATA_VALUE_LEN`.
const VALUE_LEN: usize = 256;
/// Size of `struct perf_record_bpf_metadata_entry`.
const ENTRY_LEN: usize = KEY_LEN + VALUE_LEN;

/// `struct perf_record_bpf_metadata` (PERF_RECORD_BPF_METADATA).
///
/// `prog_name` is `BPF_PROG_NAME_LEN` (= `KSYM_NAME_LEN`) bytes, which is 512 or 256 depending
/// on the headers perf was built with; the parser takes the one that makes the record size add up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BpfMetadataRecord<'a> {
    /// `prog_name`.
    pub prog_name: RawStr<'a>,
    entries: &'a [u8],
}

impl<'a> BpfMetadataRecord<'a> {
    pub(crate) fn parse(b: Bytes<'a>) -> Result<Self> {
        let body = b.remaining();
        for name_len in [512usize, 256] {
            let Some(nr) = read_u64_at(body, name_len, b.endian()) else {
                continue;
            };
            let fits = usize::try_from(nr)
                .ok()
                .and_then(|n| n.checked_mul(ENTRY_LEN))
                .and_then(|n| n.checked_add(name_len + 8))
                .is_some_and(|total| total == body.len());
            if fits {
                let prog_name = RawStr(until_nul(body.get(..name_len).unwrap_or(&[])));
                let entries = body.get(name_len + 8..).unwrap_or(&[]);
                return Ok(BpfMetadataRecord { prog_name, entries });
            }
        }
        Err(Error::new(
            b.offset(),
            ErrorKind::BadRecordBody {
                what: "BPF_METADATA",
            },
        ))
    }

    /// `nr_entries`.
    pub const fn len(&self) -> usize {
        self.entries.len() / ENTRY_LEN
    }

    /// Whether there is no entry.
    pub const fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `(key, value)` entries.
    pub fn iter(&self) -> impl FusedIterator<Item = (RawStr<'a>, RawStr<'a>)> + 'a {
        self.entries.chunks_exact(ENTRY_LEN).map(|c| {
            let (k, v) = c.split_at(KEY_LEN);
            (RawStr(until_nul(k)), RawStr(until_nul(v)))
        })
    }
}
