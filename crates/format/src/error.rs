//! The error type: every error names the byte offset where it was found.

use core::fmt;

/// An error found while decoding a perf.data file, with the byte offset it was found at.
///
/// For records inside zstd-compressed records the offset is that of the compressed record in the
/// file (see [`crate::RawRecord::inner_offset`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    /// Absolute byte offset in the file (or stream) where the problem was found.
    pub offset: u64,
    /// What was wrong.
    pub kind: ErrorKind,
}

/// What went wrong while decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The data ended while `needed` more bytes were expected for `what`.
    UnexpectedEof {
        /// What was being read.
        what: &'static str,
        /// How many bytes were needed.
        needed: u64,
        /// How many bytes were left.
        available: u64,
    },
    /// The first 8 bytes are not a perf.data magic.
    BadMagic {
        /// The 8 bytes found.
        found: [u8; 8],
    },
    /// The file uses perf's first format (`PERFFILE`, written before 2.6.32) and its byte order
    /// cannot be told from its `attr_size`.
    UnsupportedVersion1,
    /// A record header says the record is smaller than its own 8-byte header.
    RecordTooSmall {
        /// The size found in the header.
        size: u16,
    },
    /// A record (or its trailing payload) runs past the end of the data.
    RecordPastEnd {
        /// The size claimed.
        size: u64,
        /// The bytes that remained.
        available: u64,
    },
    /// A file section (attrs, data, a feature) lies outside the file.
    SectionOutOfBounds {
        /// Which section.
        what: &'static str,
        /// Its offset as written in the file.
        section_offset: u64,
        /// Its size as written in the file.
        section_size: u64,
        /// The length of the file.
        file_size: u64,
    },
    /// A size or count field holds a value that cannot be right.
    BadValue {
        /// Which field.
        what: &'static str,
        /// The value found.
        value: u64,
    },
    /// A string is not terminated or not UTF-8 where the format requires it.
    BadString {
        /// Which field.
        what: &'static str,
    },
    /// The sample_type has bits this parser does not know; nothing after them can be located.
    UnknownSampleType {
        /// The unknown bits.
        bits: u64,
    },
    /// A sample or record carries an id that no event attr declares.
    UnknownId {
        /// The id.
        id: u64,
    },
    /// The record body is shorter than its fixed fields, or a length inside it overruns it.
    BadRecordBody {
        /// The record type name.
        what: &'static str,
    },
    /// The zstd decoder rejected a compressed record.
    Decompression {
        /// A short description from the decoder.
        what: &'static str,
    },
    /// A record refers to an event attr but the file has none.
    NoAttrs,
}

impl Error {
    /// Creates an error at `offset`.
    pub const fn new(offset: u64, kind: ErrorKind) -> Self {
        Error { offset, kind }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ErrorKind::UnexpectedEof { what, needed, available } => write!(
                f,
                "{what} needs {needed} bytes but only {available} remain"
            ),
            ErrorKind::BadMagic { found } => {
                write!(f, "expected the perf.data magic \"PERFILE2\" but found bytes")?;
                for b in found {
                    write!(f, " {b:02x}")?;
                }
                f.write_str(" (\"")?;
                for b in found {
                    let c = if b.is_ascii_graphic() { b as char } else { '.' };
                    write!(f, "{c}")?;
                }
                f.write_str("\"); this is not a perf.data file")
            }
            ErrorKind::UnsupportedVersion1 => f.write_str(
                "this is a version 1 perf.data file (magic \"PERFFILE\", written by perf before 2.6.32) whose attr_size is none of the sizes perf used then, so its byte order is unknown",
            ),
            ErrorKind::RecordTooSmall { size } => {
                write!(f, "record size {size} is smaller than its 8-byte header")
            }
            ErrorKind::RecordPastEnd { size, available } => write!(
                f,
                "record of {size} bytes runs past the end of the data ({available} bytes remain)"
            ),
            ErrorKind::SectionOutOfBounds { what, section_offset, section_size, file_size } => write!(
                f,
                "{what} section at 0x{section_offset:x} of {section_size} bytes lies outside the {file_size}-byte file"
            ),
            ErrorKind::BadValue { what, value } => write!(f, "{what} has the impossible value {value}"),
            ErrorKind::BadString { what } => write!(f, "{what} is not a valid string"),
            ErrorKind::UnknownSampleType { bits } => {
                write!(f, "sample_type has unknown bits 0x{bits:x}; the sample layout cannot be known")
            }
            ErrorKind::UnknownId { id } => write!(f, "sample id {id} belongs to no event"),
            ErrorKind::BadRecordBody { what } => {
                write!(f, "{what} record body is shorter than its fields")
            }
            ErrorKind::Decompression { what } => write!(f, "zstd decompression failed: {what}"),
            ErrorKind::NoAttrs => f.write_str("the file declares no events (no perf_event_attr)"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset 0x{:x}: {}", self.offset, self.kind)
    }
}

impl core::error::Error for Error {}

/// The result type of this crate.
pub type Result<T> = core::result::Result<T, Error>;
