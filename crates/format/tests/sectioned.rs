//! Reading a file-mode perf.data the way the browser does: the header, attrs and features
//! through random access, the data section streamed in chunks. Every corpus file gives the same
//! records and metadata as reading it whole, and the random reads stay small.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod oracle;

use perfscope_format::file::{FileLayout, ReadAt};
use perfscope_format::metadata::Metadata;
use perfscope_format::stream::StreamDecoder;
use perfscope_format::walk::{walk, Item};
use perfscope_format::{Magic, Result};

/// A `ReadAt` over bytes that counts what was read.
struct Counting<'a> {
    data: &'a [u8],
    read: u64,
}

impl ReadAt for Counting<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>> {
        self.read += size;
        Ok(self.data[offset as usize..(offset + size) as usize].to_vec())
    }
}

/// (record type, offset, inner offset) of every record, and the number of errors.
fn whole(data: &[u8]) -> (Vec<(u32, u64, Option<u64>)>, usize) {
    let mut recs = Vec::new();
    let mut errors = 0;
    let _ = walk(data, &[], |_, _, item| match item {
        Item::Record(r) => recs.push((r.type_().0, r.offset, r.inner_offset)),
        Item::Error(_) => errors += 1,
    });
    (recs, errors)
}

#[test]
fn sectioned_reading_equals_whole_reading() {
    let Some(shared) = oracle::shared_dir() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED or put it at ../shared)");
        return;
    };
    let mut checked = 0;
    for f in oracle::corpus_files(&shared) {
        if f.path.is_dir() {
            continue;
        }
        let data = std::fs::read(&f.path).unwrap();
        if !Magic::parse(&data).is_ok_and(|m| !m.pipe) {
            continue;
        }
        let mut r = Counting {
            data: &data,
            read: 0,
        };
        let Ok(layout) = FileLayout::read_from(&mut r) else {
            continue;
        };
        let (meta, _) = Metadata::from_layout(&layout, &mut r);
        let (want, _) = whole(&data);
        let whole_meta = walk(&data, &[], |_, _, _| {}).unwrap();
        assert_eq!(meta.attrs, whole_meta.attrs, "{}", f.name);
        assert_eq!(meta.features, whole_meta.features, "{}", f.name);

        for chunk in [4096usize, 65536] {
            let mut d = StreamDecoder::records(meta.endian, layout.data.offset);
            let section = &data
                [layout.data.offset as usize..(layout.data.offset + layout.data.size) as usize];
            let mut got = Vec::new();
            for c in section.chunks(chunk) {
                d.push(c);
                while let Some(Ok(rec)) = d.next_record() {
                    got.push((rec.type_().0, rec.offset, rec.inner_offset));
                }
            }
            d.finish();
            while let Some(Ok(rec)) = d.next_record() {
                got.push((rec.type_().0, rec.offset, rec.inner_offset));
            }
            assert_eq!(got, want, "{} in chunks of {chunk}", f.name);
        }
        let features: u64 = layout.features.iter().map(|(_, s)| s.size).sum();
        let ids: u64 = layout.attrs.iter().map(|a| a.ids.len() as u64 * 8).sum();
        // Header + attrs + ids + feature table + feature sections: nothing of the data section.
        // (Fuzzer-made files may have id sections that are not whole u64s.)
        let fuzz = f.name.contains("corpus__");
        assert!(
            fuzz || r.read
                <= 104
                    + layout.header.attrs.size
                    + ids
                    + layout.features.len() as u64 * 16
                    + features
                    + 16,
            "{}: read {} bytes",
            f.name,
            r.read
        );
        checked += 1;
    }
    assert!(checked > 50, "only {checked} files");
}
