//! What the parse and load benchmarks share: the big recording named by
//! `PERFSCOPE_BIG_PROFILE`, and the floor they are measured against.

/// The bytes of the recording `PERFSCOPE_BIG_PROFILE` names, or `None` (with a message when it
/// cannot be read) so that the benchmarks skip.
pub fn big_profile() -> Option<Vec<u8>> {
    let path = std::env::var_os("PERFSCOPE_BIG_PROFILE")?;
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("cannot read {path:?}: {e}");
            None
        }
    }
}

/// The least a reader must do: step from record header to record header.
pub fn header_walk(data: &[u8]) -> u64 {
    let mut pos = 0usize;
    let mut n = 0u64;
    while let Some(size) = data.get(pos + 6..pos + 8) {
        let size = u16::from_le_bytes([size[0], size[1]]) as usize;
        if size < 8 {
            break;
        }
        pos += size;
        n += 1;
    }
    n
}
