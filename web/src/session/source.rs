//! Where an open file's bytes come from: anything with random access ([`ReadAt`]). The worker
//! reads a browser `File` in slices; native code and tests read a `Vec` ([`VecSource`]).

use perfscope_format::file::ReadAt;
use perfscope_format::{Error, ErrorKind};

/// A file held in memory.
#[derive(Debug, Clone, Default)]
pub struct VecSource(pub Vec<u8>);

impl ReadAt for VecSource {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
        let range = usize::try_from(offset)
            .ok()
            .and_then(|o| Some(o..o.checked_add(usize::try_from(size).ok()?)?));
        range
            .and_then(|r| self.0.get(r))
            .map(<[u8]>::to_vec)
            .ok_or(Error::new(
                offset,
                ErrorKind::UnexpectedEof {
                    what: "file",
                    needed: size,
                    available: self.len().saturating_sub(offset),
                },
            ))
    }
}

/// A `&mut dyn ReadAt` as a sized [`ReadAt`] (for the generic readers).
pub struct DynSource<'a>(pub &'a mut dyn ReadAt);

impl ReadAt for DynSource<'_> {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
        self.0.read_at(offset, size)
    }

    fn read_into(&mut self, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        self.0.read_into(offset, out)
    }
}
