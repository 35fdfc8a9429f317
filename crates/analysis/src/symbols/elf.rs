//! ELF executables, libraries and debug files through the `object` crate: function symbols from
//! `.symtab`, `.dynsym` and `.gnu_debugdata` (MiniDebugInfo, an xz-compressed ELF), the build id
//! from the `.note.gnu.build-id` note, and the PT_LOAD segments that turn a file-relative address
//! into an ELF virtual address.
//!
//! A *file-relative address* is what perf calls the dso-relative address: for a sample `ip` in
//! an MMAP `[start, start + len)` with `pgoff`, it is `ip - start + pgoff`, an offset into the file.
//! The PT_LOAD segment whose file range holds that offset gives the virtual address:
//! `offset - p_offset + p_vaddr`.
//!
//! Function symbols follow perf's `dso__load_sym`: `STT_FUNC` and `STT_GNU_IFUNC` symbols with a
//! name and a section, plus `STT_NOTYPE` labels (not hidden or internal) in executable sections,
//! plus `name@plt` entries (see [`super::plt`]).

use object::elf;
use object::{
    Object, ObjectSection, ObjectSegment, ObjectSymbol, SectionKind, SymbolFlags, SymbolSection,
};

use super::error::SymbolError;
use super::table::{Binding, EndFixup, SymbolTable, SymbolTableBuilder};

/// One PT_LOAD segment: the file range `[offset, offset + filesz)` is mapped at `vaddr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadSegment {
    /// `p_offset`.
    pub offset: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
}

/// What one ELF file (and optionally its separate debug file) tells about symbols.
#[derive(Clone, Debug, Default)]
pub struct ElfSymbols {
    build_id: Option<Vec<u8>>,
    table: SymbolTable,
    segments: Vec<LoadSegment>,
    debuglink: Option<String>,
    has_dwarf: bool,
}

/// Where a function symbol of an ELF file was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfSymbol<'a> {
    /// The mangled name.
    pub name: &'a str,
    /// Start (ELF virtual address).
    pub start: u64,
    /// Size after perf's end fix-up.
    pub size: u64,
    /// `vaddr - start`.
    pub offset: u64,
}

/// The build id in an ELF file's `.note.gnu.build-id` (or any `NT_GNU_BUILD_ID` note).
pub fn build_id(bytes: &[u8]) -> Option<Vec<u8>> {
    let file = object::File::parse(bytes).ok()?;
    file.build_id().ok().flatten().map(<[u8]>::to_vec)
}

fn binding(flags: SymbolFlags<object::SectionIndex, object::SymbolIndex>) -> Binding {
    match flags {
        SymbolFlags::Elf { st_info, .. } => match st_info >> 4 {
            elf::STB_GLOBAL => Binding::Global,
            elf::STB_WEAK => Binding::Weak,
            _ => Binding::Local,
        },
        _ => Binding::Global,
    }
}

fn is_function<'d, S: ObjectSymbol<'d>>(file: &object::File<'d>, sym: &S) -> bool {
    let SymbolFlags::Elf { st_info, st_other } = sym.flags() else {
        return false;
    };
    let SymbolSection::Section(index) = sym.section() else {
        return false;
    };
    match st_info & 0xf {
        elf::STT_FUNC | elf::STT_GNU_IFUNC => true,
        elf::STT_NOTYPE => {
            let vis = st_other & 0x3;
            // Check the flag, not the kind: in a separate debug file .text is SHT_NOBITS.
            vis != elf::STV_HIDDEN
                && vis != elf::STV_INTERNAL
                && file.section_by_index(index).is_ok_and(|s| match s.flags() {
                    object::SectionFlags::Elf { sh_flags } => {
                        sh_flags & u64::from(elf::SHF_EXECINSTR) != 0
                    }
                    _ => s.kind() == SectionKind::Text,
                })
        }
        _ => false,
    }
}

fn push_symbols<'d>(file: &object::File<'d>, builder: &mut SymbolTableBuilder) {
    let symtab = file.symbols().map(|s| (s, 0));
    let dynsym = file.dynamic_symbols().map(|s| (s, 1));
    for (sym, _) in symtab.chain(dynsym) {
        if !is_function(file, &sym) {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        // Strip symbol versions ("memcpy@@GLIBC_2.14") as perf's elf_sym__name does not, but
        // .dynsym names carry none in the string table anyway; ARM mapping symbols are not code.
        if name.is_empty() || name.starts_with('$') {
            continue;
        }
        builder.push_parts(sym.address(), sym.size(), name, binding(sym.flags()), None);
    }
}

/// Decompresses `.gnu_debugdata` (xz) into the embedded ELF image.
pub fn gnu_debugdata(file: &object::File<'_>) -> Result<Option<Vec<u8>>, SymbolError> {
    let Some(section) = file.section_by_name(".gnu_debugdata") else {
        return Ok(None);
    };
    let data = section
        .data()
        .map_err(|e| SymbolError::Elf(e.to_string()))?;
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut std::io::BufReader::new(data), &mut out)
        .map_err(|e| SymbolError::Xz(format!("{e:?}")))?;
    Ok(Some(out))
}

impl ElfSymbols {
    /// Reads one ELF file (executable, library or debug file).
    pub fn parse(bytes: &[u8]) -> Result<Self, SymbolError> {
        Self::parse_with_debug(bytes, None)
    }

    /// Reads an ELF file together with its separate debug file (the `.build-id/xx/yyyy.debug` or
    /// perf archive `debug` entry), whose `.symtab` usually holds the local functions that the
    /// stripped file lacks. Symbols of both (and of `.gnu_debugdata`) are merged; the main file's
    /// segments translate addresses.
    pub fn parse_with_debug(bytes: &[u8], debug: Option<&[u8]>) -> Result<Self, SymbolError> {
        let file = object::File::parse(bytes).map_err(|e| SymbolError::Elf(e.to_string()))?;
        let mut builder = SymbolTableBuilder::new();
        push_symbols(&file, &mut builder);
        for def in super::plt::plt_symbols(bytes) {
            builder.push(def);
        }
        let mut has_dwarf = file.section_by_name(".debug_info").is_some();
        if let Some(inner) = gnu_debugdata(&file)? {
            if let Ok(inner_file) = object::File::parse(inner.as_slice()) {
                push_symbols(&inner_file, &mut builder);
            }
        }
        if let Some(debug) = debug {
            let dfile = object::File::parse(debug).map_err(|e| SymbolError::Elf(e.to_string()))?;
            push_symbols(&dfile, &mut builder);
            has_dwarf |= dfile.section_by_name(".debug_info").is_some();
        }
        let segments = file
            .segments()
            .map(|seg| {
                let (offset, filesz) = seg.file_range();
                LoadSegment {
                    offset,
                    filesz,
                    vaddr: seg.address(),
                }
            })
            .collect();
        let debuglink = file
            .gnu_debuglink()
            .ok()
            .flatten()
            .map(|(name, _crc)| String::from_utf8_lossy(name).into_owned());
        Ok(ElfSymbols {
            build_id: file.build_id().ok().flatten().map(<[u8]>::to_vec),
            table: builder.build(EndFixup::Elf),
            segments,
            debuglink,
            has_dwarf,
        })
    }

    /// The build id of the main file, if it has one.
    pub fn build_id(&self) -> Option<&[u8]> {
        self.build_id.as_deref()
    }

    /// The function symbols (ELF virtual addresses).
    pub fn table(&self) -> &SymbolTable {
        &self.table
    }

    /// The PT_LOAD segments of the main file.
    pub fn segments(&self) -> &[LoadSegment] {
        &self.segments
    }

    /// The `.gnu_debuglink` file name, if any.
    pub fn debuglink(&self) -> Option<&str> {
        self.debuglink.as_deref()
    }

    /// Whether the main or debug file has a `.debug_info` section.
    pub fn has_dwarf(&self) -> bool {
        self.has_dwarf
    }

    /// The ELF virtual address of a file-relative address: through the PT_LOAD segment whose file
    /// range contains it, else unchanged (files without program headers, offsets in no segment).
    pub fn file_offset_to_vaddr(&self, file_offset: u64) -> u64 {
        self.segments
            .iter()
            .find(|s| file_offset >= s.offset && file_offset - s.offset < s.filesz)
            .map_or(file_offset, |s| {
                s.vaddr.wrapping_add(file_offset - s.offset)
            })
    }

    /// The function containing ELF virtual address `vaddr`.
    pub fn lookup_vaddr(&self, vaddr: u64) -> Option<ElfSymbol<'_>> {
        let s = self.table.lookup(vaddr)?;
        Some(ElfSymbol {
            name: s.name,
            start: s.start,
            size: s.end - s.start,
            offset: vaddr - s.start,
        })
    }

    /// The function containing a file-relative address (`ip - map.start + map.pgoff`).
    pub fn lookup_file_offset(&self, file_offset: u64) -> Option<ElfSymbol<'_>> {
        self.lookup_vaddr(self.file_offset_to_vaddr(file_offset))
    }
}
