//! Walking an [`Input`] (file, stream or directory) with [`perfscope_format::walk`].

use perfscope_format::metadata::Metadata;
use perfscope_format::walk::Item;
use perfscope_format::Error;

use super::input::Input;

/// Calls `on_item` for every record and error of `input`, in file order.
pub fn walk(
    input: &Input,
    on_item: impl FnMut(&Metadata, usize, Item<'_, '_>),
) -> Result<Metadata, Error> {
    let extra: Vec<&[u8]> = input.extra.iter().map(|(_, b)| &b[..]).collect();
    perfscope_format::walk::walk(&input.bytes, &extra, on_item)
}
