//! [`SymbolError`]: why a symbol source could not be read.

use core::fmt;

/// Why a symbol source (kallsyms, ELF, perf map, jitdump, archive) could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SymbolError {
    /// gzip data that does not inflate.
    Gzip(String),
    /// xz data (`.gnu_debugdata`) that does not decompress.
    Xz(String),
    /// bzip2 data that does not decompress.
    Bzip2(String),
    /// A tar archive that cannot be walked.
    Tar(String),
    /// An ELF file that `object` rejects.
    Elf(String),
    /// DWARF that `gimli` rejects.
    Dwarf(String),
    /// A jitdump file that does not start with the `JiTD` magic in either byte order.
    JitDumpMagic {
        /// The first four bytes, as a little-endian u32.
        found: u32,
    },
    /// A jitdump structure that runs past the end of the file.
    JitDumpTruncated {
        /// File offset of the structure.
        offset: u64,
        /// What was being read.
        what: &'static str,
    },
}

impl fmt::Display for SymbolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymbolError::Gzip(e) => write!(f, "gzip data does not inflate: {e}"),
            SymbolError::Xz(e) => write!(f, "xz data does not decompress: {e}"),
            SymbolError::Bzip2(e) => write!(f, "bzip2 data does not decompress: {e}"),
            SymbolError::Tar(e) => write!(f, "tar archive cannot be read: {e}"),
            SymbolError::Elf(e) => write!(f, "not a readable ELF file: {e}"),
            SymbolError::Dwarf(e) => write!(f, "DWARF cannot be read: {e}"),
            SymbolError::JitDumpMagic { found } => {
                write!(
                    f,
                    "not a jitdump file: magic 0x{found:08x}, expected 0x4a695444 (\"JiTD\")"
                )
            }
            SymbolError::JitDumpTruncated { offset, what } => {
                write!(
                    f,
                    "at offset 0x{offset:x}: jitdump {what} runs past the end of the file"
                )
            }
        }
    }
}

impl std::error::Error for SymbolError {}
