//! Walking an [`Input`] (file, stream or directory) with [`perfscope_format::walk`].

use perfscope_format::metadata::Metadata;
use perfscope_format::{Error, RawRecord};

use super::input::Input;

/// Calls `on_record` / `on_error` for every record / error of `input`, in file order.
pub fn walk(
    input: &Input,
    on_record: impl FnMut(&Metadata, usize, &RawRecord<'_>),
    on_error: impl FnMut(usize, &Error),
) -> Result<Metadata, Error> {
    let extra: Vec<&[u8]> = input.extra.iter().map(|(_, b)| &b[..]).collect();
    perfscope_format::walk::walk(&input.bytes, &extra, on_record, on_error)
}
