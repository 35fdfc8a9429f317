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

    fn read_into(&mut self, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        let bytes = usize::try_from(offset)
            .ok()
            .and_then(|o| self.0.get(o..o.checked_add(out.len())?));
        match bytes {
            Some(bytes) => {
                out.copy_from_slice(bytes);
                Ok(())
            }
            None => Err(Error::new(
                offset,
                ErrorKind::UnexpectedEof {
                    what: "file",
                    needed: out.len() as u64,
                    available: self.len().saturating_sub(offset),
                },
            )),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_into_copies_the_range_or_names_where_the_file_ends() {
        let mut file = VecSource((0u8..10).collect());
        let mut out = [0u8; 4];
        file.read_into(3, &mut out).expect("inside the file");
        assert_eq!(out, [3, 4, 5, 6]);
        let e = file.read_into(8, &mut out).expect_err("past the end");
        assert_eq!(e.offset, 8);
        assert!(matches!(
            e.kind,
            ErrorKind::UnexpectedEof {
                needed: 4,
                available: 2,
                ..
            }
        ));
        assert_eq!(out, [3, 4, 5, 6], "left as it was");
    }
}
