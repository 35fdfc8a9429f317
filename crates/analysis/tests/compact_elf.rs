//! `symbols::compact`: a dropped ELF file read only as far as symbolization needs gives the same
//! symbols, build id, segments, PLT names and (in DWARF mode) unwind sections and inline frames
//! as the whole file, reading a fraction of it; bad files give `None` or a smaller image, never a
//! panic or a read outside the file.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::type_complexity
)]

use object::{Object, ObjectSection};
use perfscope_analysis::symbols::compact::{compact_elf, Compacted};
use perfscope_analysis::symbols::elf::ElfSymbols;
use perfscope_format::file::ReadAt;
use perfscope_format::Result;

/// A file in memory that checks the reads asked of it and counts their bytes.
struct Checked<'a> {
    data: &'a [u8],
    read: u64,
}

impl ReadAt for Checked<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>> {
        let end = offset.checked_add(size).expect("offset + size overflows");
        assert!(
            end <= self.len(),
            "read {offset}+{size} past the end ({})",
            self.len()
        );
        self.read += size;
        Ok(self.data[offset as usize..end as usize].to_vec())
    }
}

fn compact(data: &[u8], dwarf_mode: bool) -> Option<Compacted> {
    let mut r = Checked { data, read: 0 };
    let got = compact_elf(&mut r, dwarf_mode).unwrap();
    if let Some(c) = &got {
        assert_eq!(c.read, r.read, "the bytes read it reports");
    }
    got
}

/// Everything `ElfSymbols` keeps of a file, comparable.
fn facts(bytes: &[u8]) -> impl PartialEq + std::fmt::Debug {
    let e = ElfSymbols::parse(bytes).unwrap();
    let symbols: Vec<(u64, u64, String)> = e
        .table()
        .iter()
        .map(|s| (s.start, s.end, s.name.to_string()))
        .collect();
    (
        symbols,
        e.build_id().map(<[u8]>::to_vec),
        e.segments().to_vec(),
        e.debuglink().map(str::to_string),
        e.has_dwarf(),
    )
}

/// What the unwinder reads of a file: the data (as a length and a hash; `None`: absent or
/// unreadable) and address range of its sections, and `.got`'s range.
fn unwind_sections(bytes: &[u8]) -> Vec<(&'static str, Option<(usize, u64)>, u64, u64)> {
    let file = object::File::parse(bytes).unwrap();
    let hash = |d: &[u8]| {
        d.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
    };
    [
        ".text",
        ".eh_frame",
        ".eh_frame_hdr",
        ".debug_frame",
        ".got",
    ]
    .iter()
    .map(|&name| match file.section_by_name(name) {
        Some(s) => (
            name,
            s.data()
                .ok()
                .filter(|_| name != ".got")
                .map(|d| (d.len(), hash(d))),
            s.address(),
            s.size(),
        ),
        None => (name, None, 0, 0),
    })
    .collect()
}

/// Checks `whole` against its compacted images; returns the image without DWARF mode.
fn check_file(name: &str, whole: &[u8]) -> Compacted {
    let plain = compact(whole, false).unwrap_or_else(|| panic!("{name}: not compacted"));
    let dwarf = compact(whole, true).unwrap_or_else(|| panic!("{name}: not compacted"));
    let want = facts(whole);
    assert_eq!(
        facts(&plain.bytes),
        want,
        "{name}: symbols of the cut image"
    );
    assert_eq!(
        facts(&dwarf.bytes),
        want,
        "{name}: symbols of the DWARF-mode image"
    );
    assert_eq!(
        unwind_sections(&dwarf.bytes),
        unwind_sections(whole),
        "{name}: unwind sections of the DWARF-mode image"
    );
    assert!(plain.bytes.len() <= dwarf.bytes.len());
    // Left out: the section is there (address, size) but its data cannot be read.
    let cut = object::File::parse(plain.bytes.as_slice()).unwrap();
    let text = cut.section_by_name(".text").unwrap();
    let orig = object::File::parse(whole).unwrap();
    let orig_text = orig.section_by_name(".text").unwrap();
    assert_eq!(
        (text.address(), text.size(), text.kind()),
        (orig_text.address(), orig_text.size(), orig_text.kind())
    );
    assert!(text.data().is_err(), "{name}: .text left out");
    #[cfg(feature = "dwarf")]
    {
        use perfscope_analysis::symbols::dwarf::DwarfContext;
        let frames = |bytes: &[u8]| {
            let Some(cx) = DwarfContext::parse(bytes).unwrap() else {
                return Vec::new();
            };
            let e = ElfSymbols::parse(whole).unwrap();
            e.table()
                .iter()
                .take(500)
                .map(|s| format!("{:?}", cx.frames(s.start).ok()))
                .collect::<Vec<_>>()
        };
        assert_eq!(frames(&dwarf.bytes), frames(whole), "{name}: inline frames");
    }
    plain
}

#[test]
fn a_committed_binary_gives_what_the_whole_file_gives() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/diff/base");
    let whole = std::fs::read(path).unwrap();
    let plain = check_file("base", &whole);
    // Its symbols, build id and PLT names are known independently: `nm` and `readelf` list
    // `main` and the build id ed2f2511…, and `objdump -d` a `printf@plt`... as the whole file's.
    let e = ElfSymbols::parse(&plain.bytes).unwrap();
    assert_eq!(
        e.build_id()
            .map(perfscope_analysis::symbols::archive::build_id_hex),
        Some("ed2f2511e3b88bafff71ee67e8dbc90e47dde735".to_string())
    );
    assert!(e.table().find_by_name("main").is_some());
    assert!(plain.bytes.len() < whole.len());
}

#[test]
fn system_binaries_give_what_the_whole_files_give() {
    let mut seen = 0;
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/gen/workloads/mt"
    );
    // PERFSCOPE_BIG_ELF: one more (such as /usr/lib/chromium/chromium, 297 MB).
    let big = std::env::var("PERFSCOPE_BIG_ELF").unwrap_or_default();
    for path in [
        "/usr/bin/bash",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/bin/gzip",
        corpus,
        big.as_str(),
    ] {
        let Ok(whole) = std::fs::read(path) else {
            continue;
        };
        seen += 1;
        let plain = check_file(path, &whole);
        // Symbols without the code: a small part of the file (a small file is read in a few
        // reads of nearby parts, which may cover all of it).
        assert!(plain.bytes.len() < whole.len(), "{path}");
        assert!(
            whole.len() < 1 << 20 || plain.read * 2 < whole.len() as u64,
            "{path}: read {} of {}",
            plain.read,
            whole.len()
        );
        eprintln!(
            "{path}: read {} of {} bytes, image {} bytes",
            plain.read,
            whole.len(),
            plain.bytes.len()
        );
    }
    if seen == 0 {
        eprintln!("skipped: none of the system binaries is here");
    }
}

/// A minimal ELF file written field by field: `.text` (two functions), `.rodata`, `.symtab`,
/// `.strtab`, a build-id note, `.shstrtab`, one PT_LOAD.
fn tiny_elf(is64: bool, little: bool) -> Vec<u8> {
    let put = |out: &mut Vec<u8>, size: usize, v: u64| {
        let bytes = v.to_le_bytes();
        if little {
            out.extend_from_slice(&bytes[..size]);
        } else {
            out.extend(bytes[..size].iter().rev());
        }
    };
    let word = if is64 { 8 } else { 4 };
    let (ehsize, phentsize, shentsize) = if is64 { (64, 56, 64) } else { (52, 32, 40) };
    // Section contents, placed after the header and the program header.
    let text = vec![0x90u8; 64];
    let rodata = vec![0xabu8; 4096];
    let strtab = b"\0alpha\0beta\0".to_vec();
    let mut symtab = Vec::new();
    let sym = |out: &mut Vec<u8>, name: u64, value: u64, size: u64| {
        if is64 {
            put(out, 4, name);
            out.extend_from_slice(&[0x12, 0]); // GLOBAL FUNC, default
            put(out, 2, 1); // .text
            put(out, 8, value);
            put(out, 8, size);
        } else {
            put(out, 4, name);
            put(out, 4, value);
            put(out, 4, size);
            out.extend_from_slice(&[0x12, 0]);
            put(out, 2, 1);
        }
    };
    symtab.resize(if is64 { 24 } else { 16 }, 0);
    sym(&mut symtab, 1, 0x1000, 16);
    sym(&mut symtab, 7, 0x1010, 48);
    let mut note = Vec::new();
    put(&mut note, 4, 4);
    put(&mut note, 4, 8);
    put(&mut note, 4, 3); // NT_GNU_BUILD_ID
    note.extend_from_slice(b"GNU\0");
    note.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let shstrtab = b"\0.text\0.rodata\0.symtab\0.strtab\0.note.gnu.build-id\0.shstrtab\0".to_vec();
    let name = |n: &str| {
        shstrtab
            .windows(n.len())
            .position(|w| w == n.as_bytes())
            .unwrap() as u64
    };
    // (name, type, flags, addr, data, link, info, align, entsize)
    let sections: Vec<(u64, u64, u64, u64, &[u8], u64, u64, u64, u64)> = vec![
        (name(".text"), 1, 6, 0x1000, &text, 0, 0, 16, 0),
        (name(".rodata"), 1, 2, 0x2000, &rodata, 0, 0, 16, 0),
        (
            name(".symtab"),
            2,
            0,
            0,
            &symtab,
            4,
            1,
            8,
            if is64 { 24 } else { 16 },
        ),
        (name(".strtab"), 3, 0, 0, &strtab, 0, 0, 1, 0),
        (name(".note.gnu.build-id"), 7, 2, 0x3000, &note, 0, 0, 4, 0),
        (name(".shstrtab"), 3, 0, 0, &shstrtab, 0, 0, 1, 0),
    ];
    let mut data = Vec::new();
    let mut offsets = Vec::new();
    let start = ehsize + phentsize;
    for s in &sections {
        while (start + data.len()) % 8 != 0 {
            data.push(0);
        }
        offsets.push((start + data.len()) as u64);
        data.extend_from_slice(s.4);
    }
    while (start + data.len()) % 8 != 0 {
        data.push(0);
    }
    let shoff = (start + data.len()) as u64;
    let mut out = b"\x7fELF".to_vec();
    out.extend_from_slice(&[if is64 { 2 } else { 1 }, if little { 1 } else { 2 }, 1, 0]);
    out.resize(16, 0);
    put(&mut out, 2, 2); // ET_EXEC
    put(&mut out, 2, if is64 { 62 } else { 20 }); // x86-64, PowerPC
    put(&mut out, 4, 1);
    put(&mut out, word, 0x1000);
    put(&mut out, word, ehsize as u64);
    put(&mut out, word, shoff);
    put(&mut out, 4, 0);
    for v in [
        ehsize,
        phentsize,
        1,
        shentsize,
        sections.len() + 1,
        sections.len(),
    ] {
        put(&mut out, 2, v as u64);
    }
    assert_eq!(out.len(), ehsize);
    // PT_LOAD of the whole file at 0.
    let filesz = shoff;
    if is64 {
        put(&mut out, 4, 1);
        put(&mut out, 4, 5);
        for v in [0, 0, 0, filesz, filesz, 0x1000] {
            put(&mut out, 8, v);
        }
    } else {
        for v in [1, 0, 0, 0, filesz, filesz, 5, 0x1000] {
            put(&mut out, 4, v);
        }
    }
    out.extend_from_slice(&data);
    out.resize(out.len() + shentsize, 0);
    for (s, offset) in sections.iter().zip(&offsets) {
        let (name, type_, flags, addr, bytes, link, info, align, entsize) = *s;
        put(&mut out, 4, name);
        put(&mut out, 4, type_);
        put(&mut out, word, flags);
        put(&mut out, word, addr);
        put(&mut out, word, *offset);
        put(&mut out, word, bytes.len() as u64);
        put(&mut out, 4, link);
        put(&mut out, 4, info);
        put(&mut out, word, align);
        put(&mut out, word, entsize);
    }
    out
}

#[test]
fn both_classes_and_byte_orders_keep_symbols_and_drop_code() {
    for is64 in [true, false] {
        for little in [true, false] {
            let whole = tiny_elf(is64, little);
            let name = format!("tiny (64-bit {is64}, little-endian {little})");
            // The hand-written layout is what `object` reads: two functions, a build id.
            let e = ElfSymbols::parse(&whole).unwrap();
            let syms: Vec<_> = e
                .table()
                .iter()
                .map(|s| (s.start, s.end, s.name.to_string()))
                .collect();
            assert_eq!(
                syms,
                [
                    (0x1000, 0x1010, "alpha".to_string()),
                    (0x1010, 0x1040, "beta".to_string())
                ],
                "{name}"
            );
            assert_eq!(e.build_id(), Some(&[1, 2, 3, 4, 5, 6, 7, 8][..]), "{name}");
            let plain = check_file(&name, &whole);
            // Left out: the 64 bytes of code and the 4 KiB of .rodata.
            assert!(
                plain.bytes.len() + 4096 + 64 <= whole.len() + 8,
                "{name}: {} of {}",
                plain.bytes.len(),
                whole.len()
            );
            let cut = object::File::parse(plain.bytes.as_slice()).unwrap();
            assert!(cut.section_by_name(".rodata").unwrap().data().is_err());
            assert_eq!(
                cut.section_by_name(".strtab").unwrap().data().unwrap(),
                b"\0alpha\0beta\0"
            );
        }
    }
}

#[test]
fn cut_and_corrupted_files_never_panic_nor_read_outside() {
    let base = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/diff/base"
    ))
    .unwrap();
    let mut files = vec![tiny_elf(true, true), tiny_elf(false, false), base];
    for whole in std::mem::take(&mut files) {
        for cut in (0..whole.len()).step_by(97).chain([whole.len() - 1]) {
            files.push(whole[..cut].to_vec());
        }
        // Bytes of the headers changed one at a time (counts, offsets, sizes, names).
        // (The 64-bit little-endian files' section headers; the others' header only.)
        let shoff = if whole[4] == 2 && whole[5] == 1 {
            u64::from_le_bytes(whole[40..48].try_into().unwrap()) as usize
        } else {
            whole.len()
        };
        let places: Vec<usize> = (0..64).chain((shoff..whole.len()).step_by(3)).collect();
        for (k, &at) in places.iter().enumerate() {
            let mut bad = whole.clone();
            if at < bad.len() {
                bad[at] ^= [0xff, 0x80, 0x01, 0x7f][k % 4];
                files.push(bad);
            }
        }
    }
    let mut compacted = 0;
    for f in &files {
        for dwarf_mode in [false, true] {
            if let Some(c) = compact(f, dwarf_mode) {
                compacted += 1;
                // Each section at most once, plus the headers.
                assert!(
                    c.read <= 3 * f.len() as u64,
                    "read {} of {}",
                    c.read,
                    f.len()
                );
                assert!(
                    c.bytes.len() <= 3 * f.len(),
                    "{} of {}",
                    c.bytes.len(),
                    f.len()
                );
                // Whatever it made, `object` and the symbol reader take it without panicking.
                let _ = ElfSymbols::parse(&c.bytes);
            }
        }
    }
    assert!(compacted > 0);
}
