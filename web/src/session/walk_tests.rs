//! The Records tab's rows inside COMPRESSED records that cannot be decoded alone (their zstd
//! frame began in an earlier COMPRESSED record, as in a busy `-z` recording): each page shown
//! as a whole-file walk shows it, and pages in order reached by one walk over the file.
//!
//! The file is tests/data/compressed.data repacked by hand: its compressed records' bytes in
//! one zstd frame of raw blocks (frame header and block headers per RFC 8878), cut into
//! COMPRESSED records of 304 bytes, so that all but the first begin mid-frame.

use perfscope_format::walk::{walk, Item};

use super::streamed_tests::{corpus_files_if_present, walked};
use super::*;

const COMPRESSED: u32 = 81;

fn u64_at(d: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(d[o..o + 8].try_into().unwrap())
}

/// A record's bytes: its header (type, misc, size) and body, little-endian.
fn record_bytes(type_: u32, misc: u16, body: &[u8]) -> Vec<u8> {
    let mut out = type_.to_le_bytes().to_vec();
    out.extend_from_slice(&misc.to_le_bytes());
    out.extend_from_slice(&u16::try_from(8 + body.len()).unwrap().to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// One zstd frame holding `data` in raw blocks of 1000 bytes: magic, a frame header descriptor
/// of 0 (no content size, not single-segment, no checksum, no dictionary) and a window
/// descriptor of 128 KiB (exponent 7), then each block's 3-byte header (last-block bit, type 0
/// = raw, size << 3) and bytes.
fn raw_frame(data: &[u8]) -> Vec<u8> {
    let mut f = 0xFD2F_B528u32.to_le_bytes().to_vec();
    f.extend_from_slice(&[0x00, 7 << 3]);
    let blocks: Vec<&[u8]> = data.chunks(1000).collect();
    for (i, b) in blocks.iter().enumerate() {
        let last = u32::from(i + 1 == blocks.len());
        let head = last | (u32::try_from(b.len()).unwrap() << 3);
        f.extend_from_slice(&head.to_le_bytes()[..3]);
        f.extend_from_slice(b);
    }
    f
}

/// compressed.data with its compressed records repacked (see the module docs): the other
/// records first, then the COMPRESSED ones; the feature sections after the data section moved
/// by the change of its size.
fn repacked() -> Vec<u8> {
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/compressed.data"
    ))
    .unwrap();
    let (mut plain, mut inner) = (Vec::new(), Vec::new());
    walk(&data, &[], |_, _, item| {
        if let Item::Record(raw) = item {
            let h = raw.header;
            let bytes = record_bytes(h.type_.0, h.misc, raw.body);
            if raw.inner_offset.is_some() {
                inner.extend_from_slice(&bytes);
            } else if h.type_.0 != COMPRESSED {
                plain.extend_from_slice(&bytes);
            }
        }
    })
    .unwrap();
    assert!(inner.len() > 20_000, "{} bytes compressed", inner.len());
    let mut section = plain;
    for piece in raw_frame(&inner).chunks(304) {
        section.extend_from_slice(&record_bytes(COMPRESSED, 0, piece));
    }
    let (start, size) = (u64_at(&data, 40) as usize, u64_at(&data, 48) as usize);
    let delta = section.len() as i64 - size as i64;
    let mut out = data[..start].to_vec();
    out[48..56].copy_from_slice(&(section.len() as u64).to_le_bytes());
    out.extend_from_slice(&section);
    // The feature table (a section per feature bit) and what it points at, moved.
    let features: u32 = data[72..104].iter().map(|b| b.count_ones()).sum();
    let mut rest = data[start + size..].to_vec();
    for k in 0..features as usize {
        let at = k * 16;
        let moved = (u64_at(&rest, at) as i64 + delta) as u64;
        rest[at..at + 8].copy_from_slice(&moved.to_le_bytes());
    }
    out.extend_from_slice(&rest);
    out
}

#[test]
fn pages_of_rows_from_a_frame_split_over_compressed_records_need_one_walk() {
    let data = repacked();
    let rows = walked(&data).unwrap();
    let inside: Vec<u32> = (0..rows.len() as u32)
        .filter(|&i| rows[i as usize].5)
        .collect();
    assert!(inside.len() > 200, "{} rows inside", inside.len());
    let mut s = Session::open_bytes(data.clone(), 1 << 16);
    let meta = s.meta.clone().unwrap();
    s.ensure_rows();
    assert_eq!(s.index.len(), rows.len());
    // Walks of 512 bytes a read (up to ~15 records), 40 rows kept after one: the pages go
    // past them.
    s.index.set_walk(512, 40);
    let pages: Vec<&[u32]> = inside.chunks(60).collect();
    let show = |s: &mut Session, page: &[u32]| {
        let texts = s
            .index
            .describe_rows(s.source.as_mut(), &meta, page, &|e| format!("ev{e}"));
        for (row, text) in page.iter().zip(&texts) {
            assert_eq!(text, &rows[*row as usize].3, "row {row}");
        }
    };
    for page in &pages {
        show(&mut s, page);
    }
    // The rows past the first COMPRESSED record could only be reached by walking, and the
    // pages in order went on with one walk.
    assert_eq!(s.index.walks_started(), 1);
    // A page back begins a walk again; the first page again (its rows past the first
    // COMPRESSED record) one more.
    show(&mut s, pages[pages.len() / 2]);
    assert_eq!(s.index.walks_started(), 2);
    show(&mut s, pages[0]);
    assert_eq!(s.index.walks_started(), 3);
    // Every row inside at once, in reverse order: one walk.
    let all: Vec<u32> = inside.iter().rev().copied().collect();
    s.index.set_walk(512, 0);
    show(&mut s, &all);
    assert_eq!(s.index.walks_started(), 4);
}

#[test]
fn pages_in_any_order_begin_at_the_checkpoint_before_them() {
    let data = repacked();
    let rows = walked(&data).unwrap();
    let inside: Vec<u32> = (0..rows.len() as u32)
        .filter(|&i| rows[i as usize].5)
        .collect();
    let open = |every: u64, budget: usize| {
        let mut s = Session::open_bytes(data.clone(), 1 << 16);
        // The rows pass reads 512 bytes at a time; walks too, keeping 40 rows.
        s.index.set_checkpoints(every, 512, budget);
        s.ensure_rows();
        s.index.set_walk(512, 40);
        s
    };
    let show = |s: &mut Session, page: &[u32]| {
        let meta = s.meta.clone().unwrap();
        let texts = s
            .index
            .describe_rows(s.source.as_mut(), &meta, page, &|e| format!("ev{e}"));
        for (row, text) in page.iter().zip(&texts) {
            assert_eq!(text, &rows[*row as usize].3, "row {row}");
        }
    };
    // A checkpoint every 2 KiB decompressed: each holds the decoder's window, about 256 KiB
    // with room for its tables, so a budget of 2 GiB keeps them all.
    let mut s = open(2048, 2 << 30);
    let cps = s.index.checkpoints();
    assert!(cps.len() >= 8, "{} checkpoints", cps.len());
    assert!(cps.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    // Pages from the last to the first: none goes on with the walk before it, yet only the
    // pages that begin before the first checkpoint walk from the start of the file.
    let pages: Vec<&[u32]> = inside.chunks(60).collect();
    let first_checkpoint = cps[0].0;
    for page in pages.iter().rev() {
        show(&mut s, page);
    }
    let before = pages.iter().filter(|p| p[0] < first_checkpoint).count() as u32;
    assert!(
        (1..=2).contains(&before),
        "{before} pages before the first checkpoint"
    );
    assert_eq!(s.index.walks_started(), before);
    let resumed = s.index.walks_resumed();
    assert!(
        resumed >= pages.len() as u32 - before,
        "{resumed} walks resumed for {} pages",
        pages.len()
    );
    // A page spread over the file (every 25th row inside): each row from the checkpoint
    // before it when that lies past the walk's place.
    let spread: Vec<u32> = inside.iter().step_by(25).copied().collect();
    show(&mut s, &spread);
    assert!(s.index.walks_resumed() - resumed >= 4);
    // (Its first row lies before the first checkpoint and behind the walk: one more walk
    // from the start.)
    assert_eq!(s.index.walks_started(), before + 1);

    // A budget of three checkpoints: every second one dropped and the spacing doubled
    // until they fit, still spread over the file.
    let one = cps.iter().map(|c| c.2).max().unwrap();
    let mut s = open(2048, 3 * one + one / 2);
    let thinned = s.index.checkpoints();
    assert!((2..=3).contains(&thinned.len()), "{thinned:?}");
    assert!(thinned.iter().map(|c| c.2).sum::<usize>() <= 3 * one + one / 2);
    assert!(thinned.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(
        thinned[thinned.len() - 1].0 as usize > rows.len() / 2,
        "{thinned:?}"
    );
    for page in pages.iter().rev() {
        show(&mut s, page);
    }
    assert!(s.index.walks_resumed() >= 2);
}

/// The corpus's `-z` recordings (real zstd blocks, whose tables carry over from block to
/// block: a checkpoint must hold them as well as the window), with a checkpoint every 2 KiB
/// decompressed: their compressed rows shown in pages from the last to the first, and one
/// page spread over the file, each as a whole-file walk shows it.
#[test]
fn corpus_recordings_shown_from_checkpoints_read_as_a_whole_file_walk() {
    let files = corpus_files_if_present();
    if files.is_empty() {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    }
    let (mut checked, mut resumed) = (0, 0);
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let Some(rows) = walked(&data) else { continue };
        let inside: Vec<u32> = (0..rows.len() as u32)
            .filter(|&i| rows[i as usize].5)
            .collect();
        if inside.len() < 100 {
            continue;
        }
        let mut s = Session::open_bytes(data.clone(), 1 << 16);
        s.index.set_checkpoints(2048, 4096, usize::MAX);
        s.ensure_rows();
        if s.index.checkpoints().len() < 4 {
            // A pipe stream: none (its metadata grows with its records).
            continue;
        }
        s.index.set_walk(4096, 40);
        let meta = s.meta.clone().unwrap();
        let spread: Vec<u32> = inside.iter().step_by(inside.len() / 20).copied().collect();
        let pages: Vec<&[u32]> = inside.chunks(50).rev().chain([&spread[..]]).collect();
        for page in pages {
            let texts = s
                .index
                .describe_rows(s.source.as_mut(), &meta, page, &|e| format!("ev{e}"));
            for (row, text) in page.iter().zip(&texts) {
                assert_eq!(
                    text,
                    &rows[*row as usize].3,
                    "{}: row {row}",
                    path.display()
                );
            }
        }
        resumed += s.index.walks_resumed();
        checked += 1;
    }
    assert!(
        checked >= 2 && resumed >= 15,
        "{checked} files, {resumed} walks resumed"
    );
}
