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
        let endian = header.endian;
        let mut warnings = Vec::new();

        let attrs = parse_attrs(data, &header)?;

        // The data section. perf killed before it could finish writes a data size of 0: read
        // to the end of the file then. A truncated file has a data section that runs past
        // the end: read what is there and say so.
        let len = data.len();
        let data_start = usize::try_from(header.data.offset).unwrap_or(usize::MAX).min(len);
        let mut data_end = if header.data.size == 0 {
            len
        } else {
            usize::try_from(header.data.offset.saturating_add(header.data.size)).unwrap_or(usize::MAX)
        };
        if data_end > len {
            warnings.push(Error::new(
                len as u64,
                ErrorKind::SectionOutOfBounds {
                    what: "data",
                    section_offset: header.data.offset,
                    section_size: header.data.size,
                    file_size: len as u64,
                },
            ));
            data_end = len;
        }

        // The feature section table follows the data section: one perf_file_section per
        // feature bit, in bit order.
        let mut features = Vec::new();
        if header.data.size != 0 {
            let table_at = header.data.offset.saturating_add(header.data.size);
            let table = usize::try_from(table_at).ok().and_then(|at| data.get(at..)).unwrap_or(&[]);
            let mut b = Bytes::new(table, table_at, endian);
            for feature in header.feature_list() {
                let at = b.offset();
                match FileSection::parse(&mut b) {
                    Ok(section) => match section.slice(data, "feature", at) {
                        Ok(_) => features.push((feature, section)),
                        Err(e) => warnings.push(e),
                    },
                    Err(e) => {
                        warnings.push(e);
                        break;
                    }
                }
            }
        }

        Ok(PerfFile { data, header, attrs, features, data_start, data_end, warnings })
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
        self.feature_sections().find(|(g, _)| *g == f).map(|(_, b)| b)
    }
}

/// Reads the attrs section: `attrs.size / attr_size` entries of `perf_event_attr` followed by a
/// `perf_file_section` pointing at the entry's ids.
fn parse_attrs(data: &[u8], header: &FileHeader) -> Result<Vec<FileAttr>> {
    let endian = header.endian;
    let section = header.attrs.slice(data, "attrs", 40)?;
    if header.attr_size == 0 {
        return if section.is_empty() {
            Ok(Vec::new())
        } else {
            Err(Error::new(16, ErrorKind::BadValue { what: "attr_size", value: 0 }))
        };
    }
    let entry_size = usize::try_from(header.attr_size)
        .ok()
        .filter(|&s| s >= crate::attr::ATTR_SIZE_VER0 as usize + 16)
        .ok_or(Error::new(16, ErrorKind::BadValue { what: "attr_size", value: header.attr_size }))?;
    let count = section.len() / entry_size;
    let mut attrs = Vec::with_capacity(count);
    for i in 0..count {
        let at = header.attrs.offset + (i * entry_size) as u64;
        let entry = section.get(i * entry_size..(i + 1) * entry_size).unwrap_or(&[]);
        // The attr occupies the entry minus the trailing 16-byte ids section. perf reads
        // `attr.size` bytes and then the ids section right after; in every file those agree
        // with `attr_size - 16`, which we trust because it also sets the entry stride.
        let attr_len = entry_size - 16;
        let (attr_part, ids_part) = entry.split_at(attr_len.min(entry.len()));
        let (attr, _) = EventAttr::parse(&Bytes::new(attr_part, at, endian))?;
        let ids_section = FileSection::parse(&mut Bytes::new(ids_part, at + attr_len as u64, endian))?;
        let ids_bytes = ids_section.slice(data, "attr ids", at + attr_len as u64)?;
        let mut ids_cursor = Bytes::new(ids_bytes, ids_section.offset, endian);
        let mut ids = Vec::with_capacity(ids_bytes.len() / 8);
        while ids_cursor.len() >= 8 {
            ids.push(ids_cursor.read_u64("attr id")?);
        }
        attrs.push(FileAttr { attr, ids });
    }
    Ok(attrs)
}
