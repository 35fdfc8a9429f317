//! Byte order, decided at run time from the file's magic.

/// The byte order of a perf.data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endianness {
    /// Little-endian (x86, most arm/aarch64, ppc64le).
    Little,
    /// Big-endian (s390x, ppc64 big-endian, sparc).
    Big,
}

impl Endianness {
    /// The byte order of the machine running this code.
    pub const NATIVE: Endianness = if cfg!(target_endian = "big") {
        Endianness::Big
    } else {
        Endianness::Little
    };

    /// A lowercase name: "little" or "big".
    pub const fn name(self) -> &'static str {
        match self {
            Endianness::Little => "little",
            Endianness::Big => "big",
        }
    }

    /// Reads a `u16` from exactly 2 bytes.
    #[inline]
    pub const fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endianness::Little => u16::from_le_bytes(b),
            Endianness::Big => u16::from_be_bytes(b),
        }
    }

    /// Reads a `u32` from exactly 4 bytes.
    #[inline]
    pub const fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endianness::Little => u32::from_le_bytes(b),
            Endianness::Big => u32::from_be_bytes(b),
        }
    }

    /// Reads a `u64` from exactly 8 bytes.
    #[inline]
    pub const fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endianness::Little => u64::from_le_bytes(b),
            Endianness::Big => u64::from_be_bytes(b),
        }
    }

    /// Writes a `u16` in this byte order.
    pub const fn u16_bytes(self, v: u16) -> [u8; 2] {
        match self {
            Endianness::Little => v.to_le_bytes(),
            Endianness::Big => v.to_be_bytes(),
        }
    }

    /// Writes a `u32` in this byte order.
    pub const fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endianness::Little => v.to_le_bytes(),
            Endianness::Big => v.to_be_bytes(),
        }
    }

    /// Writes a `u64` in this byte order.
    pub const fn u64_bytes(self, v: u64) -> [u8; 8] {
        match self {
            Endianness::Little => v.to_le_bytes(),
            Endianness::Big => v.to_be_bytes(),
        }
    }
}
