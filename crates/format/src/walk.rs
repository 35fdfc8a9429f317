//! Walking every record of a whole input held in memory — a file-mode perf.data (with the
//! `data.N` files of a `perf record --threads` directory) or a pipe-mode stream — in file order,
//! with compressed records decompressed, while building the [`Metadata`].

use crate::error::{Error, Result};
use crate::file::PerfFile;
use crate::header::Magic;
use crate::metadata::Metadata;
use crate::reader::RecordReader;
use crate::records::RawRecord;

/// What [`walk`] hands its callback.
#[derive(Debug, Clone, Copy)]
pub enum Item<'a, 'r> {
    /// A record.
    Record(&'a RawRecord<'r>),
    /// An error: a bad header section (the walk goes on), or a framing error (the part ends).
    Error(&'a Error),
}

/// Calls `on_item` for every record and every error of the input, in file order. `data` is the perf.data (or a directory's `data` file); `extra` are a directory's
/// `data.N` files in order, whose records follow those of `data`. The callback gets the part
/// the record or error is in: 0 for `data`, `n` for `extra[n - 1]` (record offsets are offsets
/// in that part).
///
/// Returns the metadata, or the error that prevented reading any record (a bad header).
///
/// ```
/// let err = perfscope_format::walk::walk(b"PERF", &[], |_, _, _| {}).unwrap_err();
/// assert_eq!(err.offset, 0);
/// ```
pub fn walk(
    data: &[u8],
    extra: &[&[u8]],
    mut on_item: impl FnMut(&Metadata, usize, Item<'_, '_>),
) -> Result<Metadata> {
    let magic = Magic::parse(data)?;
    if magic.pipe {
        let mut meta = Metadata::pipe(magic.endian);
        let mut r = RecordReader::pipe(data)?;
        meta.legacy_google = r.legacy_google();
        while let Some(item) = r.next_record() {
            // Matched in place, as below.
            match &item {
                Ok(rec) => {
                    if let Err(e) = meta.observe(rec) {
                        on_item(&meta, 0, Item::Error(&e));
                    }
                    on_item(&meta, 0, Item::Record(rec));
                }
                Err(e) => on_item(&meta, 0, Item::Error(e)),
            }
        }
        return Ok(meta);
    }
    let file = PerfFile::parse(data)?;
    let meta = Metadata::from_file(&file);
    for w in &file.warnings {
        on_item(&meta, 0, Item::Error(w));
    }
    let (section, offset) = file.data_section();
    let sources = core::iter::once((section, offset)).chain(extra.iter().map(|b| (*b, 0)));
    for (part, (bytes, offset)) in sources.enumerate() {
        let mut r = RecordReader::new(bytes, offset, meta.endian);
        while let Some(item) = r.next_record() {
            // Matched in place: a record moved out of the item is copied through memory in
            // a way the processor cannot forward (half of the walk's time).
            match &item {
                Ok(rec) => on_item(&meta, part, Item::Record(rec)),
                Err(e) => on_item(&meta, part, Item::Error(e)),
            }
        }
    }
    Ok(meta)
}
