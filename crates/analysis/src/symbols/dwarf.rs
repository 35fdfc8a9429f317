//! Inline frames and file:line from DWARF, through `addr2line` (feature `dwarf`).
//!
//! The debug sections are copied out of the ELF image (zlib-compressed `SHF_COMPRESSED` sections
//! are inflated; zstd-compressed ones are treated as absent), so the context owns its data and can
//! be cached per module.

use std::borrow::Cow;
use std::io::Read;
use std::rc::Rc;

use object::{CompressionFormat, Object, ObjectSection};

use super::demangle::demangle;
use super::error::SymbolError;

type Reader = gimli::EndianRcSlice<gimli::RunTimeEndian>;

/// One frame at an address: the innermost inlined call first, the real function last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFrame {
    /// Demangled function name, when DWARF names it.
    pub function: Option<String>,
    /// Source file of the location (for the innermost frame, where the address is; for outer
    /// frames, the call site of the next inner frame).
    pub file: Option<String>,
    /// Line of that location.
    pub line: Option<u32>,
}

/// The DWARF of one ELF file, ready for address queries (ELF virtual addresses).
pub struct DwarfContext {
    context: addr2line::Context<Reader>,
}

impl core::fmt::Debug for DwarfContext {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("DwarfContext")
    }
}

fn section_data<'d>(file: &object::File<'d>, name: &str) -> Result<Cow<'d, [u8]>, SymbolError> {
    let Some(section) = file.section_by_name(name) else {
        return Ok(Cow::Borrowed(&[]));
    };
    let compressed = section
        .compressed_data()
        .map_err(|e| SymbolError::Elf(e.to_string()))?;
    match compressed.format {
        CompressionFormat::None => Ok(Cow::Borrowed(compressed.data)),
        CompressionFormat::Zlib => {
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(compressed.data)
                .read_to_end(&mut out)
                .map_err(|e| SymbolError::Gzip(e.to_string()))?;
            Ok(Cow::Owned(out))
        }
        _ => Ok(Cow::Borrowed(&[])),
    }
}

impl DwarfContext {
    /// Loads the DWARF sections of an ELF image; `Ok(None)` when it has no `.debug_info`.
    pub fn parse(bytes: &[u8]) -> Result<Option<Self>, SymbolError> {
        let file = object::File::parse(bytes).map_err(|e| SymbolError::Elf(e.to_string()))?;
        if file.section_by_name(".debug_info").is_none() {
            return Ok(None);
        }
        let endian = if file.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let dwarf = gimli::Dwarf::load(|id: gimli::SectionId| -> Result<Reader, SymbolError> {
            let data = section_data(&file, id.name())?;
            Ok(gimli::EndianRcSlice::new(Rc::from(data.as_ref()), endian))
        })?;
        let context =
            addr2line::Context::from_dwarf(dwarf).map_err(|e| SymbolError::Dwarf(e.to_string()))?;
        Ok(Some(DwarfContext { context }))
    }

    /// The frames at ELF virtual address `vaddr`, innermost (inlined) first. Empty when DWARF
    /// does not cover the address.
    pub fn frames(&self, vaddr: u64) -> Result<Vec<SourceFrame>, SymbolError> {
        let err = |e: gimli::Error| SymbolError::Dwarf(e.to_string());
        let mut iter = self
            .context
            .find_frames(vaddr)
            .skip_all_loads()
            .map_err(err)?;
        let mut out = Vec::new();
        while let Some(frame) = iter.next().map_err(err)? {
            let function = match &frame.function {
                Some(f) => Some(demangle(&f.raw_name().map_err(err)?).into_owned()),
                None => None,
            };
            let (file, line) = match frame.location {
                Some(loc) => (loc.file.map(str::to_owned), loc.line),
                None => (None, None),
            };
            out.push(SourceFrame {
                function,
                file,
                line,
            });
        }
        Ok(out)
    }
}
