//! Walking the records of an in-memory data section in file order, decompressing
//! COMPRESSED/COMPRESSED2 records on the way.

use crate::compression::ZstdStream;
use crate::constants::RecordType;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};
use crate::records::{RawRecord, RawRecords};

/// A lending iterator over the records of a data section: every record in file order, and after
/// each compressed record the records decompressed from it.
///
/// ```
/// use perfscope_format::{Endianness, reader::RecordReader};
/// // One FINISHED_ROUND record (type 68, size 8).
/// let data = [68, 0, 0, 0, 0, 0, 8, 0];
/// let mut r = RecordReader::new(&data, 0x100, Endianness::Little);
/// let rec = r.next_record().unwrap().unwrap();
/// assert_eq!(rec.offset, 0x100);
/// assert!(r.next_record().is_none());
/// ```
#[derive(Debug)]
pub struct RecordReader<'a> {
    outer: RawRecords<'a>,
    zstd: Option<ZstdStream>,
    endian: Endianness,
    end_reported: bool,
}

impl<'a> RecordReader<'a> {
    /// Walks `data`, whose first byte is at absolute `offset`.
    pub fn new(data: &'a [u8], offset: u64, endian: Endianness) -> RecordReader<'a> {
        RecordReader {
            outer: RawRecords::new(data, offset, endian),
            zstd: None,
            endian,
            end_reported: false,
        }
    }

    /// The absolute offset of the next record of the outer (uncompressed) walk.
    pub fn offset(&self) -> u64 {
        self.outer.offset()
    }

    /// The next record, or `None` at the end. After a framing error in the data it returns the
    /// error once and then `None`.
    #[allow(clippy::should_implement_trait)]
    pub fn next_record(&mut self) -> Option<Result<RawRecord<'_>>> {
        if self.zstd.as_ref().is_some_and(ZstdStream::has_record) {
            return self.zstd.as_mut().and_then(ZstdStream::next_record);
        }
        match self.outer.next() {
            Some(Ok(rec)) => {
                if matches!(
                    rec.type_(),
                    RecordType::COMPRESSED | RecordType::COMPRESSED2
                ) {
                    let endian = self.endian;
                    let z = self.zstd.get_or_insert_with(|| ZstdStream::new(endian));
                    if let Err(e) = z.push(&rec) {
                        return Some(Err(e));
                    }
                }
                Some(Ok(rec))
            }
            Some(Err(e)) => Some(Err(e)),
            None => {
                let leftover = self.zstd.as_ref().map_or(0, ZstdStream::leftover);
                if leftover > 0 && !self.end_reported {
                    self.end_reported = true;
                    return Some(Err(Error::new(
                        self.outer.offset(),
                        ErrorKind::RecordPastEnd {
                            size: leftover as u64,
                            available: 0,
                        },
                    )));
                }
                None
            }
        }
    }
}
