//! The file header (`struct perf_file_header`) and the pipe header (`struct perf_pipe_file_header`).

use crate::bytes::Bytes;
use crate::constants::HeaderFeature;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// The magic of version 2 files as written by a little-endian machine.
pub const MAGIC_LE: [u8; 8] = *b"PERFILE2";
/// The magic of version 2 files as written by a big-endian machine.
pub const MAGIC_BE: [u8; 8] = *b"2ELIFREP";
/// The magic of version 1 files (unsupported).
pub const MAGIC_V1: [u8; 8] = *b"PERFFILE";

/// Size of `struct perf_file_header` with its feature bitmap.
pub const FILE_HEADER_SIZE: u64 = 104;
/// Size of `struct perf_file_header` before the feature bitmap existed (`offsetof(adds_features)`).
pub const FILE_HEADER_SIZE_NO_FEATURES: u64 = 72;
/// Size of `struct perf_pipe_file_header`.
pub const PIPE_HEADER_SIZE: u64 = 16;

/// `struct perf_file_section`: where a part of the file lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FileSection {
    /// Absolute offset in the file.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

impl FileSection {
    /// Reads a section (two u64).
    pub fn parse(b: &mut Bytes<'_>) -> Result<Self> {
        Ok(FileSection {
            offset: b.read_u64("section offset")?,
            size: b.read_u64("section size")?,
        })
    }

    /// The bytes of this section within `file`, or an error naming `what` if it lies outside.
    pub fn slice<'a>(&self, file: &'a [u8], what: &'static str, at: u64) -> Result<&'a [u8]> {
        let out = || {
            Error::new(
                at,
                ErrorKind::SectionOutOfBounds {
                    what,
                    section_offset: self.offset,
                    section_size: self.size,
                    file_size: file.len() as u64,
                },
            )
        };
        let start = usize::try_from(self.offset).map_err(|_| out())?;
        let size = usize::try_from(self.size).map_err(|_| out())?;
        let end = start.checked_add(size).ok_or_else(out)?;
        file.get(start..end).ok_or_else(out)
    }
}

/// Detects the byte order and mode from the first 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Magic {
    /// Byte order of everything that follows.
    pub endian: Endianness,
    /// `true` for a pipe-mode stream (`perf record -o -`): header size 16 and no sections.
    pub pipe: bool,
    /// The header size field.
    pub header_size: u64,
    /// The format version: 2 (`PERFILE2`), or 1 for the first format (`PERFFILE`, perf before
    /// 2.6.32), whose layout is the same but whose byte order is told by `attr_size`.
    pub version: u8,
}

/// `attr_file_abi_sizes` in perf's header.c: the attr sizes of perf's first years, which decide
/// the byte order of version 1 files (attr + ids section).
const V1_ATTR_ENTRY_SIZES: [u64; 5] = [64 + 16, 72 + 16, 80 + 16, 96 + 16, 104 + 16];

impl Magic {
    /// Reads the magic and the header size.
    pub fn parse(data: &[u8]) -> Result<Magic> {
        let mut b = Bytes::new(data, 0, Endianness::Little);
        let magic: [u8; 8] = match b.read_array("file magic") {
            Ok(m) => m,
            Err(_) => {
                let mut found = [0u8; 8];
                for (d, s) in found.iter_mut().zip(data) {
                    *d = *s;
                }
                return Err(Error::new(0, ErrorKind::BadMagic { found }));
            }
        };
        let (endian, version) = match magic {
            MAGIC_LE => (Endianness::Little, 2),
            MAGIC_BE => (Endianness::Big, 2),
            MAGIC_V1 => (v1_endian(data)?, 1),
            found => return Err(Error::new(0, ErrorKind::BadMagic { found })),
        };
        let mut b = Bytes::new(b.remaining(), 8, endian);
        let header_size = b.read_u64("header size")?;
        Ok(Magic {
            endian,
            pipe: header_size == PIPE_HEADER_SIZE,
            header_size,
            version,
        })
    }

    /// The error for a pipe stream expected and this file-mode header found: at the header
    /// size, `at` bytes into the input.
    pub(crate) fn not_a_pipe(&self, at: u64) -> Error {
        Error::new(
            at + 8,
            ErrorKind::BadValue {
                what: "pipe header size (this is a file-mode perf.data; open it as a file)",
                value: self.header_size,
            },
        )
    }
}

/// The byte order of a version 1 file, found as perf's `try_all_file_abis` does: the
/// `attr_size` field, read in either order, must be one of the sizes perf wrote then.
fn v1_endian(data: &[u8]) -> Result<Endianness> {
    let mut b = Bytes::new(data, 0, Endianness::Little);
    b.skip(8, "file magic")?;
    let header_size = b.read_array::<8>("header size")?;
    if u64::from_le_bytes(header_size) == PIPE_HEADER_SIZE {
        return Ok(Endianness::Little);
    }
    if u64::from_be_bytes(header_size) == PIPE_HEADER_SIZE {
        return Ok(Endianness::Big);
    }
    let attr_size = b.read_array::<8>("attr_size")?;
    if V1_ATTR_ENTRY_SIZES.contains(&u64::from_le_bytes(attr_size)) {
        Ok(Endianness::Little)
    } else if V1_ATTR_ENTRY_SIZES.contains(&u64::from_be_bytes(attr_size)) {
        Ok(Endianness::Big)
    } else {
        Err(Error::new(16, ErrorKind::UnsupportedVersion1))
    }
}

/// `struct perf_file_header`: the header of a file-mode perf.data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHeader {
    /// Byte order of the file.
    pub endian: Endianness,
    /// `size`: the size of this header (104, or 72 in files older than the feature bitmap).
    pub size: u64,
    /// `attr_size`: the size of one entry of the attrs section (`perf_event_attr` + ids section).
    pub attr_size: u64,
    /// `attrs`: the attrs section.
    pub attrs: FileSection,
    /// `data`: the data section (records).
    pub data: FileSection,
    /// `event_types`: unused since 2012 (perf ignores it).
    pub event_types: FileSection,
    /// `adds_features`: which header features follow the data section (bit N = feature N).
    pub features: [u64; 4],
}

impl FileHeader {
    /// Parses the header of a file-mode perf.data.
    pub fn parse(data: &[u8]) -> Result<FileHeader> {
        let magic = Magic::parse(data)?;
        let endian = magic.endian;
        let mut b = Bytes::new(data, 0, endian);
        b.skip(16, "file header")?;
        if magic.pipe {
            return Err(Error::new(
                8,
                ErrorKind::BadValue {
                    what: "file header size (16 means pipe mode)",
                    value: 16,
                },
            ));
        }
        if magic.header_size != FILE_HEADER_SIZE
            && magic.header_size != FILE_HEADER_SIZE_NO_FEATURES
        {
            return Err(Error::new(
                8,
                ErrorKind::BadValue {
                    what: "file header size",
                    value: magic.header_size,
                },
            ));
        }
        let attr_size = b.read_u64("attr_size")?;
        let attrs = FileSection::parse(&mut b)?;
        let data_section = FileSection::parse(&mut b)?;
        let event_types = FileSection::parse(&mut b)?;
        let mut features = [0u64; 4];
        if magic.header_size == FILE_HEADER_SIZE {
            for word in features.iter_mut() {
                *word = b.read_u64("feature bitmap")?;
            }
            // perf stores the bitmap as `unsigned long`s. A 32-bit big-endian writer's words read
            // as u64 have their halves exchanged; perf detects this by HOSTNAME (always written)
            // being absent and re-reads the words as u32 pairs (`perf_file_header__read`).
            if endian == Endianness::Big && !has_bit(&features, HeaderFeature::HOSTNAME.0) {
                let swapped = features.map(|w| w.rotate_left(32));
                if has_bit(&swapped, HeaderFeature::HOSTNAME.0) {
                    features = swapped;
                }
            }
        }
        Ok(FileHeader {
            endian,
            size: magic.header_size,
            attr_size,
            attrs,
            data: data_section,
            event_types,
            features,
        })
    }

    /// Whether header feature `f` is present.
    pub fn has_feature(&self, f: HeaderFeature) -> bool {
        has_bit(&self.features, f.0)
    }

    /// The features present, in bit order (the order of their section table).
    pub fn feature_list(&self) -> impl Iterator<Item = HeaderFeature> + '_ {
        (0..256u32)
            .filter(|&bit| has_bit(&self.features, bit))
            .map(HeaderFeature)
    }
}

fn has_bit(words: &[u64; 4], bit: u32) -> bool {
    let word = (bit / 64) as usize;
    words
        .get(word)
        .is_some_and(|w| w & (1u64 << (bit % 64)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_decides_byte_order_and_mode() {
        let mut le = [0u8; 16];
        le[..8].copy_from_slice(b"PERFILE2");
        le[8] = 16;
        let m = Magic::parse(&le).unwrap();
        assert_eq!((m.endian, m.pipe), (Endianness::Little, true));

        let mut be = [0u8; 16];
        be[..8].copy_from_slice(b"2ELIFREP");
        be[15] = 104;
        let m = Magic::parse(&be).unwrap();
        assert_eq!(
            (m.endian, m.pipe, m.header_size),
            (Endianness::Big, false, 104)
        );
    }

    #[test]
    fn not_perf_data_names_the_bytes_found() {
        let err = Magic::parse(b"\x7fELF\x02\x01\x01\x00rest").unwrap_err();
        assert_eq!(err.offset, 0);
        assert_eq!(
            err.kind,
            ErrorKind::BadMagic {
                found: *b"\x7fELF\x02\x01\x01\x00"
            }
        );
        let text = alloc::format!("{err}");
        assert!(text.contains("7f 45 4c 46"), "{text}");
        let mut v1 = b"PERFFILE".to_vec();
        v1.extend(104u64.to_le_bytes());
        v1.extend(999u64.to_le_bytes());
        assert_eq!(
            Magic::parse(&v1).unwrap_err(),
            Error::new(16, ErrorKind::UnsupportedVersion1)
        );
        v1.truncate(16);
        v1.extend(88u64.to_be_bytes());
        let m = Magic::parse(&v1).unwrap();
        assert_eq!(
            (m.endian, m.version, m.header_size),
            (Endianness::Big, 1, 104u64.swap_bytes())
        );
        assert!(matches!(
            Magic::parse(b"PE").unwrap_err().kind,
            ErrorKind::BadMagic { .. }
        ));
    }
}
