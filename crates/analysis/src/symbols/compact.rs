//! A dropped ELF file cut down to the sections symbolization reads, read through [`ReadAt`]
//! without reading the rest.
//!
//! A person who wants names drops the binaries with the recording, and a browser build of a big
//! program is hundreds of MB (Chromium's is 297 MB), almost all code and data that naming frames
//! never reads. What the resolver reads ([`super::elf`], [`super::plt`], and in DWARF mode
//! [`crate::unwind`] and `super::dwarf`) is the ELF header, the program headers, the section
//! headers with their names, the symbol and string tables, the notes (build id),
//! `.gnu_debuglink` / `.gnu_debugdata`, the PLT's relocations, and, to unwind DWARF-mode stacks
//! and show their inline frames, `.text`, `.eh_frame`, `.eh_frame_hdr` and the `.debug_*`
//! sections. [`compact_elf`] reads those (nearby ones in one read) into a new, smaller ELF
//! image with the same headers: every section keeps its header (type, flags, address, size), so
//! addresses, section kinds and lookups by name are unchanged; a section left out points past the
//! end of the image, so that reading its data fails as for a cut file instead of giving other
//! bytes.

use perfscope_format::file::ReadAt;

/// Ranges of the file closer than this are read in one read (each browser read of a `Blob`
/// costs ~1 ms or more however small).
const GAP: u64 = 64 << 10;
/// ELF files at least this big are worth reading in part (the page's worker and the CLI read
/// smaller ones whole, in one read: a read costs more than the bytes it would spare).
pub const COMPACT_FROM: u64 = 4 << 20;
/// Parts read together span at most this many bytes.
const GATHER: u64 = 4 << 20;

const SHT_NULL: u64 = 0;
const SHT_SYMTAB: u64 = 2;
const SHT_STRTAB: u64 = 3;
const SHT_RELA: u64 = 4;
const SHT_NOTE: u64 = 7;
const SHT_NOBITS: u64 = 8;
const SHT_REL: u64 = 9;
const SHT_DYNSYM: u64 = 11;
const SHT_SYMTAB_SHNDX: u64 = 18;
/// `e_phnum` saying that the count is in section 0's `sh_info`.
const PN_XNUM: u64 = 0xffff;
/// `e_shstrndx` saying that the index is in section 0's `sh_link`.
const SHN_XINDEX: u64 = 0xffff;

/// A compacted ELF image and how much of the file was read for it.
#[derive(Clone, Debug)]
pub struct Compacted {
    /// The image: an ELF file that `object` reads as the original for symbols.
    pub bytes: Vec<u8>,
    /// Bytes read from the file.
    pub read: u64,
}

/// The class and byte order of an ELF file, and where its header fields are.
#[derive(Clone, Copy, Debug)]
struct Class {
    is64: bool,
    little: bool,
}

impl Class {
    fn uint(self, b: &[u8], at: usize, size: usize) -> Option<u64> {
        let bytes = b.get(at..at.checked_add(size)?)?;
        let mut v = 0u64;
        if self.little {
            for &x in bytes.iter().rev() {
                v = (v << 8) | u64::from(x);
            }
        } else {
            for &x in bytes {
                v = (v << 8) | u64::from(x);
            }
        }
        Some(v)
    }

    fn put(self, b: &mut [u8], at: usize, size: usize, v: u64) -> Option<()> {
        if size < 8 && v >> (size * 8) != 0 {
            return None;
        }
        let out = b.get_mut(at..at.checked_add(size)?)?;
        for (i, x) in out.iter_mut().enumerate() {
            let shift = if self.little { i } else { size - 1 - i } * 8;
            *x = (v >> shift) as u8;
        }
        Some(())
    }

    /// The size of an address or offset field.
    fn word(self) -> usize {
        if self.is64 {
            8
        } else {
            4
        }
    }

    fn ehsize(self) -> usize {
        if self.is64 {
            64
        } else {
            52
        }
    }

    fn shentsize(self) -> usize {
        if self.is64 {
            64
        } else {
            40
        }
    }

    /// (e_phoff, e_shoff, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx) offsets.
    fn header_fields(self) -> [usize; 7] {
        if self.is64 {
            [32, 40, 54, 56, 58, 60, 62]
        } else {
            [28, 32, 42, 44, 46, 48, 50]
        }
    }

    /// (sh_type, sh_offset, sh_size, sh_link, sh_info) offsets in a section header.
    fn section_fields(self) -> [usize; 5] {
        if self.is64 {
            [4, 24, 32, 40, 44]
        } else {
            [4, 16, 20, 24, 28]
        }
    }
}

/// One section header's fields that the cut needs.
#[derive(Clone, Copy, Debug)]
struct Section {
    name: u64,
    type_: u64,
    offset: u64,
    size: u64,
    info: u64,
}

fn section(class: Class, table: &[u8], i: usize) -> Option<Section> {
    let at = i.checked_mul(class.shentsize())?;
    let [type_, offset, size, _, info] = class.section_fields();
    let w = class.word();
    Some(Section {
        name: class.uint(table, at, 4)?,
        type_: class.uint(table, at + type_, 4)?,
        offset: class.uint(table, at + offset, w)?,
        size: class.uint(table, at + size, w)?,
        info: class.uint(table, at + info, 4)?,
    })
}

/// The NUL-terminated name at `at` of the section name table.
fn name_at(names: &[u8], at: u64) -> &[u8] {
    let rest = usize::try_from(at)
        .ok()
        .and_then(|at| names.get(at..))
        .unwrap_or(&[]);
    rest.split(|&b| b == 0).next().unwrap_or(&[])
}

/// Whether a section whose data a lookup can read is kept (see the module docs).
fn wanted(name: &[u8], type_: u64, dwarf_mode: bool) -> bool {
    if matches!(
        type_,
        SHT_SYMTAB | SHT_STRTAB | SHT_NOTE | SHT_DYNSYM | SHT_SYMTAB_SHNDX
    ) {
        return true;
    }
    if name.starts_with(b".gnu_debug") || name == b".rela.plt" || name == b".rel.plt" {
        return true;
    }
    if !dwarf_mode {
        return false;
    }
    let for_dwarf = |n: &[u8]| {
        n.starts_with(b".debug_")
            || n.starts_with(b".zdebug_")
            || matches!(n, b".text" | b".eh_frame" | b".eh_frame_hdr")
    };
    if for_dwarf(name) {
        return true;
    }
    // The relocations of those (a relocatable file's, such as a kernel module's DWARF).
    matches!(type_, SHT_REL | SHT_RELA)
        && [b".rela".as_slice(), b".rel"]
            .iter()
            .any(|p| name.strip_prefix(*p).is_some_and(for_dwarf))
}

fn align(x: u64, to: u64) -> Option<u64> {
    Some(x.checked_add(to - 1)? / to * to)
}

/// Reads `r`, an ELF file, cut to what symbolization reads (see the module docs); with
/// `dwarf_mode`, also what unwinding DWARF-mode stacks and their inline frames read.
///
/// `Ok(None)` when `r` is not an ELF file this can cut (no section headers, an unknown class,
/// headers outside the file, or sections whose data adds up to more than the file: read it
/// whole then); an error only when a read fails. Reads and allocates each byte of the file at
/// most once for the image, plus its headers (never more than a few times the file's size,
/// whatever its headers say), and a big section straight into its place in the image.
pub fn compact_elf(
    r: &mut dyn ReadAt,
    dwarf_mode: bool,
) -> Result<Option<Compacted>, perfscope_format::Error> {
    let len = r.len();
    if len < 52 {
        return Ok(None);
    }
    let ident = r.read_at(0, len.min(64))?;
    let class = match (ident.get(..4), ident.get(4), ident.get(5)) {
        (Some(b"\x7fELF"), Some(&c @ (1 | 2)), Some(&d @ (1 | 2))) => Class {
            is64: c == 2,
            little: d == 1,
        },
        _ => return Ok(None),
    };
    let Some(header) = ident.get(..class.ehsize()) else {
        return Ok(None);
    };
    let mut read = ident.len() as u64;
    let [phoff_at, shoff_at, phentsize_at, phnum_at, shentsize_at, shnum_at, shstrndx_at] =
        class.header_fields();
    let w = class.word();
    let field = |at: usize, size: usize| class.uint(header, at, size).unwrap_or(0);
    let (phoff, shoff) = (field(phoff_at, w), field(shoff_at, w));
    let (phentsize, phnum) = (field(phentsize_at, 2), field(phnum_at, 2));
    let (shentsize, shnum, shstrndx) = (
        field(shentsize_at, 2),
        field(shnum_at, 2),
        field(shstrndx_at, 2),
    );
    let entsize = class.shentsize() as u64;
    if shoff == 0 || shentsize != entsize || shoff.checked_add(entsize).is_none_or(|e| e > len) {
        return Ok(None);
    }
    // Section 0 holds the counts that do not fit the header's fields.
    let first = r.read_at(shoff, entsize)?;
    read += entsize;
    let Some(zero) = section(class, &first, 0) else {
        return Ok(None);
    };
    let count = if shnum == 0 { zero.size } else { shnum };
    let shstrndx = if shstrndx == SHN_XINDEX {
        class
            .uint(&first, class.section_fields()[3], 4)
            .unwrap_or(0)
    } else {
        shstrndx
    };
    let phnum = if phnum == PN_XNUM { zero.info } else { phnum };
    if count == 0 || count > (len - shoff) / entsize || shstrndx >= count {
        return Ok(None);
    }
    let table_size = count * entsize;
    let table = r.read_at(shoff, table_size)?;
    read += table_size;
    let Ok(count) = usize::try_from(count) else {
        return Ok(None);
    };
    let sections: Vec<Section> = match (0..count).map(|i| section(class, &table, i)).collect() {
        Some(s) => s,
        None => return Ok(None),
    };
    let in_file = |s: &Section| s.offset.checked_add(s.size).is_some_and(|e| e <= len);
    let Some(names_section) = usize::try_from(shstrndx)
        .ok()
        .and_then(|i| sections.get(i))
        .filter(|s| in_file(s) && s.type_ != SHT_NOBITS)
    else {
        return Ok(None);
    };
    let names = r.read_at(names_section.offset, names_section.size)?;
    read += names_section.size;
    // The program headers, whole.
    let ph_size = phentsize.saturating_mul(phnum);
    let ph = if phoff == 0 || phnum == 0 {
        None
    } else if phoff.checked_add(ph_size).is_some_and(|e| e <= len) {
        Some((phoff, ph_size))
    } else {
        return Ok(None);
    };
    let keep: Vec<bool> = sections
        .iter()
        .enumerate()
        .map(|(i, s)| {
            i != 0
                && s.type_ != SHT_NULL
                && s.type_ != SHT_NOBITS
                && s.size > 0
                && in_file(s)
                && (i as u64 == shstrndx || wanted(name_at(&names, s.name), s.type_, dwarf_mode))
        })
        .collect();
    let kept_bytes = sections
        .iter()
        .zip(&keep)
        .filter(|(_, &k)| k)
        .try_fold(ph.map_or(0, |(_, size)| size), |sum, (s, _)| {
            sum.checked_add(s.size)
        });
    if kept_bytes.is_none_or(|n| n > len) {
        return Ok(None);
    }
    // Where everything goes: header, program headers, kept sections, section headers.
    let mut at = header.len() as u64;
    let ph_at = match ph {
        Some((_, size)) => {
            let a = align(at, 8).unwrap_or(u64::MAX);
            at = a.saturating_add(size);
            a
        }
        None => 0,
    };
    let mut placed = vec![None; count];
    for (i, s) in sections.iter().enumerate() {
        if keep.get(i) == Some(&true) {
            let a = align(at, 8).unwrap_or(u64::MAX);
            at = a.saturating_add(s.size);
            if let Some(p) = placed.get_mut(i) {
                *p = Some(a);
            }
        }
    }
    let sh_at = align(at, 8).unwrap_or(u64::MAX);
    let Some(total) = sh_at
        .checked_add(table_size)
        .and_then(|t| usize::try_from(t).ok())
    else {
        return Ok(None);
    };
    let mut out = vec![0u8; total];
    let copy = |out: &mut [u8], at: u64, bytes: &[u8]| {
        let at = usize::try_from(at).ok()?;
        out.get_mut(at..at.checked_add(bytes.len())?)?
            .copy_from_slice(bytes);
        Some(())
    };
    // The file's ranges to read (program headers and kept sections), gathered when close.
    // (The section names are read already.)
    let names_at = usize::try_from(shstrndx).ok();
    let mut wants: Vec<(u64, u64, u64)> = sections
        .iter()
        .zip(&placed)
        .enumerate()
        .filter(|&(i, _)| Some(i) != names_at)
        .filter_map(|(_, (s, p))| p.map(|to| (s.offset, s.size, to)))
        .collect();
    let names_placed = names_at.and_then(|i| placed.get(i).copied().flatten());
    if let Some(to) = names_placed {
        if copy(&mut out, to, &names).is_none() {
            return Ok(None);
        }
    }
    if let Some((from, size)) = ph {
        wants.push((from, size, ph_at));
    }
    wants.sort_unstable();
    let mut i = 0;
    while let Some(&(start, size, to)) = wants.get(i) {
        // Nearby small parts are read together; the rest (a big section) straight into place,
        // so that no more than `GATHER` bytes are held twice.
        let mut end = start + size;
        let mut j = i + 1;
        while let Some(&(s, n, _)) = wants.get(j) {
            if s > end.saturating_add(GAP) || end.max(s + n) - start > GATHER {
                break;
            }
            end = end.max(s + n);
            j += 1;
        }
        read += end - start;
        if j == i + 1 {
            let place = usize::try_from(to)
                .ok()
                .zip(usize::try_from(size).ok())
                .and_then(|(to, n)| out.get_mut(to..to.checked_add(n)?));
            match place {
                Some(place) => r.read_into(start, place)?,
                None => return Ok(None),
            }
            i = j;
            continue;
        }
        let bytes = r.read_at(start, end - start)?;
        for &(s, n, to) in wants.get(i..j).unwrap_or(&[]) {
            let part = usize::try_from(s - start)
                .ok()
                .zip(usize::try_from(n).ok())
                .and_then(|(from, n)| bytes.get(from..from.checked_add(n)?));
            if part.and_then(|part| copy(&mut out, to, part)).is_none() {
                return Ok(None);
            }
        }
        i = j;
    }
    // The headers, pointing at the new places.
    let ok = copy(&mut out, 0, header).and_then(|()| {
        class.put(&mut out, phoff_at, w, ph_at)?;
        class.put(&mut out, shoff_at, w, sh_at)?;
        copy(&mut out, sh_at, &table)?;
        let offset_at = class.section_fields()[1];
        for (i, (s, p)) in sections.iter().zip(&placed).enumerate() {
            let to = match p {
                Some(to) => *to,
                // Left out: past the end, so that its data cannot be read.
                None if s.type_ != SHT_NOBITS && s.size > 0 => total as u64,
                None => continue,
            };
            let at = usize::try_from(sh_at).ok()? + i * class.shentsize() + offset_at;
            class.put(&mut out, at, w, to)?;
        }
        Some(())
    });
    Ok(ok.map(|()| Compacted { bytes: out, read }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_in_both_byte_orders() {
        for little in [true, false] {
            let class = Class { is64: true, little };
            let mut b = [0u8; 8];
            assert_eq!(class.put(&mut b, 2, 4, 0x0102_0304), Some(()));
            assert_eq!(class.uint(&b, 2, 4), Some(0x0102_0304));
            let expect: [u8; 4] = if little { [4, 3, 2, 1] } else { [1, 2, 3, 4] };
            assert_eq!(b[2..6], expect);
            // Too big for the field.
            assert_eq!(class.put(&mut b, 0, 2, 0x1_0000), None);
        }
    }

    #[test]
    fn keeps_what_lookups_read() {
        assert!(wanted(b".symtab", SHT_SYMTAB, false));
        assert!(wanted(b".gnu_debugdata", 1, false));
        assert!(wanted(b".rela.plt", SHT_RELA, false));
        assert!(!wanted(b".text", 1, false));
        assert!(!wanted(b".debug_info", 1, false));
        assert!(wanted(b".text", 1, true));
        assert!(wanted(b".debug_info", 1, true));
        assert!(wanted(b".rela.debug_info", SHT_RELA, true));
        assert!(!wanted(b".rela.dyn", SHT_RELA, true));
        assert!(!wanted(b".rodata", 1, true));
    }
}
