//! File mode: a whole perf.data in memory, with its attrs, feature sections and data section.

use alloc::vec::Vec;

use crate::attr::EventAttr;
use crate::bytes::Bytes;
use crate::constants::HeaderFeature;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};
use crate::header::{FileHeader, FileSection};
use crate::records::RawRecords;

/// An event attr from the attrs section with its sample ids (`struct perf_file_attr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAttr {
    /// The attr.
    pub attr: EventAttr,
    /// The ids the kernel gave this event (one per CPU or thread it was opened on).
    pub ids: Vec<u64>,
}

/// A file-mode perf.data, parsed lazily over the borrowed bytes.
#[derive(Debug, Clone)]
pub struct PerfFile<'a> {
    data: &'a [u8],
    /// The file header.
    pub header: FileHeader,
    /// The events, in the order of the attrs section.
    pub attrs: Vec<FileAttr>,
    features: Vec<(HeaderFeature, FileSection)>,
    data_start: usize,
    data_end: usize,
    /// Problems that did not stop parsing (a feature section out of bounds, a truncated data
    /// section, …), each with its offset.
    pub warnings: Vec<Error>,
}

impl<'a> PerfFile<'a> {
    /// Parses the header, the attrs and the feature section table of a file-mode perf.data.
    ///
    /// ```
    /// let err = perfscope_format::PerfFile::parse(b"not a perf file").unwrap_err();
    /// assert_eq!(err.offset, 0);
    /// ```
    pub fn parse(data: &'a [u8]) -> Result<PerfFile<'a>> {
        let header = FileHeader::parse(data)?;
        let layout = FileLayout::read(header, data.len() as u64, |section, what, at| {
            section
                .slice(data, what, at)
                .map(alloc::borrow::Cow::Borrowed)
        })?;
        Ok(PerfFile {
            data,
            header: layout.header,
            attrs: layout.attrs,
            features: layout.features,
            data_start: layout.data.offset as usize,
            data_end: (layout.data.offset + layout.data.size) as usize,
            warnings: layout.warnings,
        })
    }

    /// The whole file.
    pub const fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The byte order.
    pub const fn endian(&self) -> Endianness {
        self.header.endian
    }

    /// The bytes of the data section (clipped to the file) and their absolute offset.
    pub fn data_section(&self) -> (&'a [u8], u64) {
        let bytes = self.data.get(self.data_start..self.data_end).unwrap_or(&[]);
        (bytes, self.data_start as u64)
    }

    /// Iterates the records of the data section in file order, without decompressing.
    pub fn raw_records(&self) -> RawRecords<'a> {
        let (bytes, offset) = self.data_section();
        RawRecords::new(bytes, offset, self.endian())
    }

    /// The features present with their sections, in the order of the section table.
    pub fn feature_sections(&self) -> impl Iterator<Item = (HeaderFeature, Bytes<'a>)> + '_ {
        self.features.iter().filter_map(move |(f, s)| {
            let bytes = s.slice(self.data, "feature", s.offset).ok()?;
            Some((*f, Bytes::new(bytes, s.offset, self.endian())))
        })
    }

    /// The section of feature `f`, if present and inside the file.
    pub fn feature(&self, f: HeaderFeature) -> Option<Bytes<'a>> {
        self.feature_sections()
            .find(|(g, _)| *g == f)
            .map(|(_, b)| b)
    }
}

/// Random access to a file that is not held in memory as a whole (a browser `File` read with
/// `FileReaderSync` and `Blob.slice`, a file read with `pread`).
pub trait ReadAt {
    /// The length of the file.
    fn len(&self) -> u64;
    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reads `size` bytes at `offset`. Only called for ranges inside [`ReadAt::len`].
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>>;
    /// Reads `out.len()` bytes at `offset` into `out` (only for ranges inside
    /// [`ReadAt::len`]). A reader that can fill a caller's buffer overrides it: a reader of
    /// a big file in slices then needs no new block for each slice, which on wasm32, where
    /// freed blocks stay in the heap, fragments it.
    fn read_into(&mut self, offset: u64, out: &mut [u8]) -> Result<()> {
        let bytes = self.read_at(offset, out.len() as u64)?;
        if bytes.len() != out.len() {
            return Err(Error::new(
                offset,
                ErrorKind::UnexpectedEof {
                    what: "file",
                    needed: out.len() as u64,
                    available: bytes.len() as u64,
                },
            ));
        }
        out.copy_from_slice(&bytes);
        Ok(())
    }
}

/// Where the parts of a file-mode perf.data are, read with as few bytes as possible: the
/// header, the attrs with their ids, the feature section table and the data section's range.
#[derive(Debug, Clone)]
pub struct FileLayout {
    /// The file header.
    pub header: FileHeader,
    /// The events, in the order of the attrs section.
    pub attrs: Vec<FileAttr>,
    /// The features present and their sections (all inside the file), in table order.
    pub features: Vec<(HeaderFeature, FileSection)>,
    /// The data section, clipped to the file (to its end when perf left the size at 0).
    pub data: FileSection,
    /// Problems that did not stop reading, each with its offset.
    pub warnings: Vec<Error>,
}

impl FileLayout {
    /// Reads the layout through `fetch(section, what, offset_of_the_field_naming_it)`, which
    /// returns a section's bytes or an error when it lies outside the file.
    fn read<'a>(
        header: FileHeader,
        len: u64,
        mut fetch: impl FnMut(FileSection, &'static str, u64) -> Result<alloc::borrow::Cow<'a, [u8]>>,
    ) -> Result<FileLayout> {
        let endian = header.endian;
        let mut warnings = Vec::new();
        let attrs = parse_attrs(&header, &mut fetch)?;

        // The data section. perf killed before it could finish writes a data size of 0: read
        // to the end of the file then. A truncated file has a data section that runs past
        // the end: read what is there and say so.
        let data_start = header.data.offset.min(len);
        let mut data_end = if header.data.size == 0 {
            len
        } else {
            header.data.offset.saturating_add(header.data.size)
        };
        if data_end > len {
            warnings.push(Error::new(
                len,
                ErrorKind::SectionOutOfBounds {
                    what: "data",
                    section_offset: header.data.offset,
                    section_size: header.data.size,
                    file_size: len,
                },
            ));
            data_end = len;
        }
        let data = FileSection {
            offset: data_start,
            size: data_end.saturating_sub(data_start),
        };

        // The feature section table follows the data section: one perf_file_section per
        // feature bit, in bit order.
        let mut features = Vec::new();
        if header.data.size != 0 {
            let table_at = header.data.offset.saturating_add(header.data.size);
            let wanted = header.feature_list().count() as u64 * 16;
            let table_len = wanted.min(len.saturating_sub(table_at));
            let table = fetch(
                FileSection {
                    offset: table_at.min(len),
                    size: table_len,
                },
                "feature table",
                0,
            )?;
            let mut b = Bytes::new(&table, table_at, endian);
            for feature in header.feature_list() {
                let at = b.offset();
                match FileSection::parse(&mut b) {
                    Ok(section)
                        if section
                            .offset
                            .checked_add(section.size)
                            .is_some_and(|end| end <= len) =>
                    {
                        features.push((feature, section));
                    }
                    Ok(section) => warnings.push(Error::new(
                        at,
                        ErrorKind::SectionOutOfBounds {
                            what: "feature",
                            section_offset: section.offset,
                            section_size: section.size,
                            file_size: len,
                        },
                    )),
                    Err(e) => {
                        warnings.push(e);
                        break;
                    }
                }
            }
        }
        Ok(FileLayout {
            header,
            attrs,
            features,
            data,
            warnings,
        })
    }

    /// Reads the layout of a file through random access, fetching only the header, the attrs
    /// with their ids and the feature table (a few KB for any file size). The data section can
    /// then be streamed through a [`crate::stream::StreamDecoder::records`] and the feature
    /// sections read one by one.
    pub fn read_from(r: &mut impl ReadAt) -> Result<FileLayout> {
        let len = r.len();
        let head = r.read_at(0, len.min(crate::header::FILE_HEADER_SIZE))?;
        let header = FileHeader::parse(&head)?;
        FileLayout::read(header, len, |section, what, at| {
            let inside = section
                .offset
                .checked_add(section.size)
                .is_some_and(|end| end <= len);
            if !inside {
                return Err(Error::new(
                    at,
                    ErrorKind::SectionOutOfBounds {
                        what,
                        section_offset: section.offset,
                        section_size: section.size,
                        file_size: len,
                    },
                ));
            }
            r.read_at(section.offset, section.size)
                .map(alloc::borrow::Cow::Owned)
        })
    }
}

/// Reads the attrs section: `attrs.size / attr_size` entries of `perf_event_attr` followed by a
/// `perf_file_section` pointing at the entry's ids.
fn parse_attrs<'a>(
    header: &FileHeader,
    fetch: &mut impl FnMut(FileSection, &'static str, u64) -> Result<alloc::borrow::Cow<'a, [u8]>>,
) -> Result<Vec<FileAttr>> {
    let endian = header.endian;
    let section = fetch(header.attrs, "attrs", 40)?;
    if header.attr_size == 0 {
        return if section.is_empty() {
            Ok(Vec::new())
        } else {
            Err(Error::new(
                16,
                ErrorKind::BadValue {
                    what: "attr_size",
                    value: 0,
                },
            ))
        };
    }
    let entry_size = usize::try_from(header.attr_size)
        .ok()
        .filter(|&s| s >= crate::attr::ATTR_SIZE_VER0 as usize + 16)
        .ok_or(Error::new(
            16,
            ErrorKind::BadValue {
                what: "attr_size",
                value: header.attr_size,
            },
        ))?;
    let count = section.len() / entry_size;
    let mut attrs = Vec::with_capacity(count);
    for i in 0..count {
        let at = header.attrs.offset + (i * entry_size) as u64;
        let entry = section
            .get(i * entry_size..(i + 1) * entry_size)
            .unwrap_or(&[]);
        // The attr occupies the entry minus the trailing 16-byte ids section. perf reads
        // `attr.size` bytes and then the ids section right after; in every file those agree
        // with `attr_size - 16`, which we trust because it also sets the entry stride.
        let attr_len = entry_size - 16;
        let (attr_part, ids_part) = entry.split_at(attr_len.min(entry.len()));
        let (attr, _) = EventAttr::parse(&Bytes::new(attr_part, at, endian))?;
        let ids_section =
            FileSection::parse(&mut Bytes::new(ids_part, at + attr_len as u64, endian))?;
        let ids_bytes = fetch(ids_section, "attr ids", at + attr_len as u64)?;
        let mut ids_cursor = Bytes::new(&ids_bytes, ids_section.offset, endian);
        let mut ids = Vec::with_capacity(ids_bytes.len() / 8);
        while ids_cursor.len() >= 8 {
            ids.push(ids_cursor.read_u64("attr id")?);
        }
        attrs.push(FileAttr { attr, ids });
    }
    Ok(attrs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A reader that only has `read_at`, returning at most `short` bytes when set.
    struct Bytes(Vec<u8>, Option<usize>);

    impl ReadAt for Bytes {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>> {
            let (start, end) = (offset as usize, (offset + size) as usize);
            let end = self.1.map_or(end, |s| end.min(start + s));
            Ok(self.0.get(start..end).unwrap().to_vec())
        }
    }

    #[test]
    fn read_into_fills_the_buffer_or_says_what_was_missing_and_where() {
        let mut r = Bytes((0..=255).collect(), None);
        let mut out = [0u8; 5];
        r.read_into(250, &mut out).unwrap();
        assert_eq!(out, [250, 251, 252, 253, 254]);
        r.1 = Some(3);
        let e = r.read_into(10, &mut out).unwrap_err();
        assert_eq!(e.offset, 10);
        assert_eq!(
            e.kind,
            ErrorKind::UnexpectedEof {
                what: "file",
                needed: 5,
                available: 3
            }
        );
    }
}
