//! Entry point: the push decoder, `stream::StreamDecoder`, fed in chunks as the browser feeds it
//! slices of a `File`.
//!
//! Input layout (see ../seed.sh, which writes the corpus streams this way):
//! - byte 0: bits 0-2 how many chunk sizes follow (1-8); bit 7 decodes records only
//!   (`StreamDecoder::records`, a file's data section) instead of a pipe stream, with bit 6 for
//!   big-endian;
//! - then that many u16 little-endian chunk sizes (each + 1), used in turn;
//! - the rest is the stream.
//!
//! After each push every available record is pulled, then `finish` and the rest is pulled.
//! The records and errors must be exactly those of the same stream pushed in one piece.
#![no_main]

use core::fmt::Write;

use libfuzzer_sys::fuzz_target;
use perfscope_format::stream::StreamDecoder;
use perfscope_format::{Endianness, RawRecord, Result};

#[path = "common.rs"]
mod common;
use common::Sink;

/// What one pulled item was: enough to tell two decodings apart.
#[derive(Debug, PartialEq, Eq)]
enum Item {
    Record { offset: u64, inner_offset: Option<u64>, type_: u32, misc: u16, size: u16, body: u64, payload: u64 },
    Error(String),
}

fn item(r: Result<RawRecord<'_>>) -> Item {
    match r {
        Ok(r) => Item::Record {
            offset: r.offset,
            inner_offset: r.inner_offset,
            type_: r.header.type_.0,
            misc: r.header.misc,
            size: r.header.size,
            body: checksum(r.body),
            payload: checksum(r.payload),
        },
        Err(e) => Item::Error(format!("{e:?}")),
    }
}

/// FNV-1a, to compare record bytes without keeping them.
fn checksum(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64 ^ b.len() as u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3))
}

fn decoder(mode: u8) -> StreamDecoder {
    if mode & 0x80 == 0 {
        StreamDecoder::pipe()
    } else {
        let endian = if mode & 0x40 != 0 { Endianness::Big } else { Endianness::Little };
        StreamDecoder::records(endian, 0)
    }
}

fn pull(d: &mut StreamDecoder, out: &mut Vec<Item>, sink: &mut Sink) {
    while let Some(r) = d.next_record() {
        if let Err(e) = &r {
            let _ = write!(sink, "{e}");
        }
        out.push(item(r));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(mode & 7) + 1;
    let Some((sizes, stream)) = rest.split_at_checked(2 * n) else {
        return;
    };
    let sizes: Vec<usize> =
        sizes.chunks_exact(2).map(|s| usize::from(u16::from_le_bytes([s[0], s[1]])) + 1).collect();
    let mut sink = Sink::default();

    let mut chunked = decoder(mode);
    let mut got = Vec::new();
    let mut rest = stream;
    for size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(rest.len().min(*size));
        chunked.push(chunk);
        rest = tail;
        pull(&mut chunked, &mut got, &mut sink);
    }
    chunked.finish();
    pull(&mut chunked, &mut got, &mut sink);
    assert!(chunked.is_done(), "not done after finish and pulling everything");

    let mut whole = decoder(mode);
    whole.push(stream);
    whole.finish();
    let mut want = Vec::new();
    pull(&mut whole, &mut want, &mut sink);
    assert_eq!(got, want, "chunks {sizes:?} decode differently from one push");
    std::hint::black_box(sink.0);
});
