//! Walking every record of an input (file, pipe stream or directory) in file order, with
//! zstd-compressed records decompressed, while building the metadata.

use perfscope_format::metadata::Metadata;
use perfscope_format::reader::RecordReader;
use perfscope_format::stream::StreamDecoder;
use perfscope_format::{Error, Magic, PerfFile, RawRecord};

use super::input::Input;

/// Calls `on_record` for every record (and `on_error` for every error) of `input`, in file
/// order; for a directory, the header file's records come first, then each `data.N`.
/// Returns the metadata, or the error that stopped reading before any record.
pub fn walk(
    input: &Input,
    mut on_record: impl FnMut(&Metadata, &RawRecord<'_>),
    mut on_error: impl FnMut(&Error),
) -> Result<Metadata, Error> {
    let magic = Magic::parse(&input.bytes)?;
    if magic.pipe {
        let mut meta = Metadata::pipe(magic.endian);
        let mut d = StreamDecoder::pipe();
        d.push(&input.bytes);
        d.finish();
        while let Some(r) = d.next_record() {
            match r {
                Ok(rec) => {
                    if let Err(e) = meta.observe(&rec) {
                        on_error(&e);
                    }
                    on_record(&meta, &rec);
                }
                Err(e) => on_error(&e),
            }
        }
        return Ok(meta);
    }
    let file = PerfFile::parse(&input.bytes)?;
    for w in &file.warnings {
        on_error(w);
    }
    let meta = Metadata::from_file(&file);
    let (data, offset) = file.data_section();
    let mut sources = vec![(data, offset)];
    sources.extend(input.extra.iter().map(|(_, b)| (b.as_slice(), 0)));
    for (bytes, offset) in sources {
        let mut r = RecordReader::new(bytes, offset, meta.endian);
        while let Some(item) = r.next_record() {
            match item {
                Ok(rec) => on_record(&meta, &rec),
                Err(e) => on_error(&e),
            }
        }
    }
    Ok(meta)
}
