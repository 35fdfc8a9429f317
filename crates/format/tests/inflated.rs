//! Decompressing on one thread and framing on another: a decoder that only decompresses
//! (`StreamDecoder::inflate_only`) hands each slice's decompressed bytes to one that frames the
//! records (`StreamDecoder::supply_inflated`). On every corpus file with compressed records,
//! the framing decoder returns the same records (type, offsets, bytes) and the same errors as
//! a decoder that decompresses itself, also when a compressed record's zstd data is damaged.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod oracle;

use perfscope_format::file::{FileLayout, ReadAt};
use perfscope_format::stream::StreamDecoder;
use perfscope_format::{Endianness, Magic, RecordType};

/// A `ReadAt` over bytes in memory.
struct Bytes<'a>(&'a [u8]);

impl ReadAt for Bytes<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> perfscope_format::Result<Vec<u8>> {
        Ok(self.0[offset as usize..(offset + size) as usize].to_vec())
    }
}

/// A record (type, offset, inner offset, bytes) or an error's text.
type Item = Result<(u32, u64, Option<u64>, Vec<u8>), String>;

fn drain(d: &mut StreamDecoder, out: &mut Vec<Item>) {
    while let Some(item) = d.next_record() {
        out.push(match item {
            Ok(r) => Ok((r.type_().0, r.offset, r.inner_offset, r.body.to_vec())),
            Err(e) => Err(e.to_string()),
        });
    }
}

/// A new decoder for `data` (`start` is where its records start: a pipe stream's header is
/// read by the decoder).
fn decoder(pipe: bool, endian: Endianness, start: u64) -> StreamDecoder {
    if pipe {
        StreamDecoder::pipe()
    } else {
        StreamDecoder::records(endian, start)
    }
}

/// What a decoder that decompresses itself returns for `section`, in slices of `chunk`.
fn alone(section: &[u8], chunk: usize, pipe: bool, endian: Endianness, start: u64) -> Vec<Item> {
    let mut d = decoder(pipe, endian, start);
    let mut got = Vec::new();
    for c in section.chunks(chunk) {
        d.push(c);
        drain(&mut d, &mut got);
    }
    d.finish();
    drain(&mut d, &mut got);
    got
}

/// What a framing decoder returns when another decompresses for it, slice by slice; and how
/// many compressed records the other one decompressed.
fn split(
    section: &[u8],
    chunk: usize,
    pipe: bool,
    endian: Endianness,
    start: u64,
) -> (Vec<Item>, usize) {
    let mut inflater = decoder(pipe, endian, start);
    inflater.inflate_only();
    let mut framer = decoder(pipe, endian, start);
    let mut got = Vec::new();
    let mut compressed = 0;
    let mut outer = Vec::new();
    let mut hand_over = |inflater: &mut StreamDecoder, framer: &mut StreamDecoder| {
        drain(inflater, &mut outer);
        let inflated = inflater.take_inflated();
        compressed += inflated.records.len();
        let lens: u64 = inflated.records.iter().map(|r| r.len).sum();
        assert_eq!(lens, inflated.bytes.len() as u64);
        framer.supply_inflated(inflated);
    };
    for c in section.chunks(chunk) {
        inflater.push(c);
        hand_over(&mut inflater, &mut framer);
        framer.push(c);
        drain(&mut framer, &mut got);
    }
    inflater.finish();
    hand_over(&mut inflater, &mut framer);
    framer.finish();
    drain(&mut framer, &mut got);
    // The inflater returned the input's own records: none from inside a compressed one.
    assert!(outer
        .iter()
        .flatten()
        .all(|(_, _, inner, _)| inner.is_none()));
    (got, compressed)
}

/// A perf.data's magic and where its records are: a file's data section, a pipe stream whole;
/// `None` when its header cannot be read.
fn records_range(data: &[u8]) -> Option<(Magic, u64, u64)> {
    let magic = Magic::parse(data).ok()?;
    if magic.pipe {
        return Some((magic, 0, data.len() as u64));
    }
    let layout = FileLayout::read_from(&mut Bytes(data)).ok()?;
    let end = (layout.data.offset + layout.data.size).min(data.len() as u64);
    Some((magic, layout.data.offset.min(end), end))
}

/// The offsets and sizes of the compressed records' bodies in `section`.
fn compressed_bodies(
    section: &[u8],
    pipe: bool,
    endian: Endianness,
    start: u64,
) -> Vec<(usize, usize)> {
    let mut d = decoder(pipe, endian, start);
    d.inflate_only();
    d.push(section);
    d.finish();
    let mut bodies = Vec::new();
    while let Some(item) = d.next_record() {
        if let Ok(r) = item {
            let t = r.type_();
            if t == RecordType::COMPRESSED || t == RecordType::COMPRESSED2 {
                bodies.push(((r.offset - start) as usize + 8, r.body.len()));
            }
        }
    }
    bodies
}

#[test]
fn records_framed_from_bytes_decompressed_elsewhere_equal_those_decompressed_in_place() {
    let Some(shared) = oracle::shared_dir() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let mut files = 0;
    let mut damaged = 0;
    for f in oracle::corpus_files(&shared) {
        if f.path.is_dir() {
            continue;
        }
        let data = std::fs::read(&f.path).unwrap();
        let Some((magic, start, end)) = records_range(&data) else {
            continue;
        };
        let section = &data[start as usize..end as usize];
        let bodies = compressed_bodies(section, magic.pipe, magic.endian, start);
        if bodies.is_empty() {
            continue;
        }
        for chunk in [4093usize, 1 << 20] {
            let want = alone(section, chunk, magic.pipe, magic.endian, start);
            let (got, compressed) = split(section, chunk, magic.pipe, magic.endian, start);
            assert_eq!(compressed, bodies.len(), "{}", f.name);
            assert_eq!(got.len(), want.len(), "{} in slices of {chunk}", f.name);
            assert_eq!(got, want, "{} in slices of {chunk}", f.name);
        }
        // Damaged: the middle of a compressed record's zstd data overwritten.
        let (at, size) = bodies[bodies.len() / 2];
        let mut bad = section.to_vec();
        for b in bad.iter_mut().skip(at + size / 3).take(size / 3 + 1) {
            *b = 0xa5;
        }
        let want = alone(&bad, 4093, magic.pipe, magic.endian, start);
        let (got, _) = split(&bad, 4093, magic.pipe, magic.endian, start);
        assert_eq!(got, want, "{} damaged", f.name);
        if want
            .iter()
            .any(|i| i.as_ref().is_err_and(|e| e.contains("zstd")))
        {
            damaged += 1;
        }
        files += 1;
    }
    println!("{files} files with compressed records, {damaged} damaged ones failed to decompress");
    assert!(files >= 8, "only {files} files with compressed records");
    assert!(
        damaged >= files / 2,
        "only {damaged} of {files} damaged files failed"
    );
}

#[test]
fn a_compressed_record_with_no_bytes_supplied_fails_and_so_do_the_later_ones() {
    let Some(shared) = oracle::shared_dir() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let path = shared.join("corpus/gen/compressed-z.data");
    if !path.exists() {
        println!("skipped: {} is not there", path.display());
        return;
    }
    let data = std::fs::read(&path).unwrap();
    let mut r = Bytes(&data);
    let layout = FileLayout::read_from(&mut r).unwrap();
    let (start, end) = (layout.data.offset, layout.data.offset + layout.data.size);
    let section = &data[start as usize..end as usize];
    let endian = layout.header.endian;
    let bodies = compressed_bodies(section, false, endian, start);
    assert!(bodies.len() >= 2, "{} compressed records", bodies.len());
    // Supplied: the first compressed record only.
    let mut inflater = decoder(false, endian, start);
    inflater.inflate_only();
    inflater.push(section);
    while inflater.next_record().is_some() {}
    let mut inflated = inflater.take_inflated();
    let first = inflated.records[0];
    inflated.records.truncate(1);
    inflated.bytes.truncate(first.len as usize);
    let mut framer = decoder(false, endian, start);
    framer.supply_inflated(inflated);
    framer.push(section);
    framer.finish();
    let mut got = Vec::new();
    drain(&mut framer, &mut got);
    let errors: Vec<&String> = got.iter().filter_map(|i| i.as_ref().err()).collect();
    let second = start + bodies[1].0 as u64 - 8;
    assert_eq!(
        errors.first().map(|e| e.as_str()),
        Some(
            format!(
                "at offset {second:#x}: zstd decompression failed: its decompressed bytes were not handed over"
            )
            .as_str()
        )
    );
    assert_eq!(errors.len(), bodies.len() - 1, "{errors:?}");
    assert!(errors[1..]
        .iter()
        .all(|e| e.ends_with("an earlier compressed record failed")));
    // The records of the first compressed record came out before.
    assert!(got
        .iter()
        .flatten()
        .any(|(_, offset, inner, _)| inner.is_some() && *offset == start + bodies[0].0 as u64 - 8));
}

/// What a decoder returns for `section` in slices of `chunk`, and what copies of it taken
/// between slices (`StreamDecoder::checkpoint`: after slice `k`, for each `k` of `at`) go on
/// to return when pushed the rest: each the same as the decoder's own records after slice `k`.
fn check_checkpoints(
    section: &[u8],
    chunk: usize,
    pipe: bool,
    endian: Endianness,
    start: u64,
    name: &str,
) -> usize {
    let chunks: Vec<&[u8]> = section.chunks(chunk).collect();
    let n = chunks.len();
    // Eight places spread over the input, the first and the last.
    let at: Vec<usize> = (0..8)
        .map(|i| i * n / 8)
        .chain([n.saturating_sub(1)])
        .collect();
    let mut d = decoder(pipe, endian, start);
    let mut copies: Vec<(usize, StreamDecoder, Vec<Item>)> = Vec::new();
    let mut got = Vec::new();
    for (k, c) in chunks.iter().enumerate() {
        d.push(c);
        drain(&mut d, &mut got);
        for (_, copy, theirs) in &mut copies {
            copy.push(c);
            drain(copy, theirs);
        }
        if at.contains(&k) {
            copies.push((
                got.len(),
                d.checkpoint().expect("a decoder that decompresses itself"),
                Vec::new(),
            ));
        }
    }
    d.finish();
    drain(&mut d, &mut got);
    for (from, mut copy, mut theirs) in copies {
        copy.finish();
        drain(&mut copy, &mut theirs);
        assert_eq!(
            theirs.len(),
            got.len() - from,
            "{name}: records after record {from}"
        );
        assert_eq!(
            &theirs[..],
            &got[from..],
            "{name}: records after record {from}"
        );
    }
    got.iter()
        .filter(|i| matches!(i, Ok((_, _, Some(_), _))))
        .count()
}

#[test]
fn a_checkpoint_between_slices_returns_the_records_the_decoder_goes_on_to_return() {
    // The bundled `-z` recording (tests/data/compressed.cmd), then the corpus's files with
    // compressed records (also damaged, as above: a copy fails where the decoder fails).
    let bundled = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/compressed.data"
    ))
    .unwrap();
    let mut files = vec![("compressed.data".to_string(), bundled)];
    match oracle::shared_dir() {
        Some(shared) => files.extend(
            oracle::corpus_files(&shared)
                .into_iter()
                .filter(|f| !f.path.is_dir())
                .map(|f| (f.name.clone(), std::fs::read(&f.path).unwrap())),
        ),
        None => println!(
            "the shared corpus skipped: none (set PERFSCOPE_SHARED or put it at ../shared)"
        ),
    }
    let (mut checked, mut inner) = (0, 0);
    for (name, data) in &files {
        let Some((magic, start, end)) = records_range(data) else {
            continue;
        };
        let section = &data[start as usize..end as usize];
        let bodies = compressed_bodies(section, magic.pipe, magic.endian, start);
        if bodies.is_empty() {
            continue;
        }
        inner += check_checkpoints(section, 4093, magic.pipe, magic.endian, start, name);
        let (at, size) = bodies[bodies.len() / 2];
        let mut bad = section.to_vec();
        for b in bad.iter_mut().skip(at + size / 3).take(size / 3 + 1) {
            *b = 0xa5;
        }
        check_checkpoints(
            &bad,
            4093,
            magic.pipe,
            magic.endian,
            start,
            &format!("{name} damaged"),
        );
        checked += 1;
    }
    assert!(
        checked >= 1 && inner > 1000,
        "{checked} files, {inner} records inside compressed ones"
    );
}
