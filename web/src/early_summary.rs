//! The summary of a dropped perf.data, read on the page's own thread from the few parts of the
//! file it comes from (the header, the attrs, the feature sections at the end), while the worker
//! opens the file. The worker sends the same summary once it has read those parts itself, but
//! right after the page loads it may still be compiling its wasm: reading them here shows what
//! was recorded at once, whatever the worker is doing. Only file-mode perf.data (a pipe-mode
//! stream's header is spread over its first records: the worker's summary it is).
//!
//! [`Parts`] is the file as far as it was fetched: the summary reader runs over it, and a read
//! outside the fetched parts is noted and fails; the part is then fetched and the reader runs
//! again (a few rounds: the header, then the feature sections after the data).

use perfscope_analysis::export::share::is_share;
use perfscope_analysis::summary::{Summary, SummaryReader};
use perfscope_format::file::ReadAt;
use perfscope_format::{Error, ErrorKind, Magic};

/// Bytes fetched first (the header and, in most files, the attrs and their ids).
pub const FIRST: u64 = 64 << 10;
/// At least this many bytes are fetched for a read outside the parts (the feature sections of
/// a recording with build ids, CPU topology and event descriptions are tens of KB).
pub const MORE: u64 = 256 << 10;
/// Bytes of a file's head that tell what it is ([`crate::session::symbols::classify`]).
pub const KIND_BYTES: usize = 512;
/// Rounds of fetching before giving up (the worker's summary then comes alone).
pub const ROUNDS: usize = 6;

/// A file known in parts.
#[derive(Debug, Default)]
pub struct Parts {
    len: u64,
    parts: Vec<(u64, Vec<u8>)>,
    missing: Option<(u64, u64)>,
}

impl ReadAt for Parts {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
        let end = offset.saturating_add(size);
        for (start, bytes) in &self.parts {
            if offset >= *start && end <= start.saturating_add(bytes.len() as u64) {
                let from = usize::try_from(offset - start).unwrap_or(usize::MAX);
                let to = usize::try_from(end - start).unwrap_or(usize::MAX);
                if let Some(b) = bytes.get(from..to) {
                    return Ok(b.to_vec());
                }
            }
        }
        self.missing.get_or_insert((offset, size));
        Err(Error::new(
            offset,
            ErrorKind::UnexpectedEof {
                what: "fetched part",
                needed: size,
                available: 0,
            },
        ))
    }
}

impl Parts {
    /// A file of `len` bytes, nothing fetched yet.
    pub fn new(len: u64) -> Parts {
        Parts {
            len,
            ..Parts::default()
        }
    }

    /// Adds the bytes at `offset`.
    pub fn add(&mut self, offset: u64, bytes: Vec<u8>) {
        self.parts.push((offset, bytes));
    }

    /// The summary when every byte it needs was fetched; else the range to fetch next (at least
    /// [`MORE`] bytes, inside the file). `None` when this is not a file-mode perf.data.
    pub fn summary(&mut self) -> Option<Result<Summary, (u64, u64)>> {
        self.missing = None;
        let head = self.read_at(0, self.len.min(16)).ok()?;
        if is_share(&head) || Magic::parse(&head).map_or(true, |m| m.pipe) {
            return None;
        }
        let summary = SummaryReader::read_from(self, FIRST as usize).summary();
        Some(match self.missing {
            None => Ok(summary),
            Some((offset, size)) => {
                Err((offset, size.max(MORE).min(self.len.saturating_sub(offset))))
            }
        })
    }
}

/// A dropped file's first [`FIRST`] bytes and last [`MORE`] (where a file-mode perf.data's
/// feature sections are), their reads started together: the page learns what the file is from
/// its head, and most recordings' summaries need no other read (the reads one after another
/// were three waits on a busy browser, the summary shown 100-500 ms after the drop).
pub struct Ends {
    len: u64,
    head: Pending,
    tail: Option<(u64, Pending)>,
}

/// Where the tail read of a file of `len` bytes starts and its size: the last [`MORE`] bytes
/// after the head.
fn tail(len: u64) -> Option<(u64, u64)> {
    let offset = len.saturating_sub(MORE).max(FIRST);
    len.checked_sub(offset)
        .filter(|&size| size > 0)
        .map(|size| (offset, size))
}

/// A read started on a blob.
struct Pending(Option<js_sys::Promise>);

impl Pending {
    fn start(blob: &web_sys::Blob, offset: u64, size: u64) -> Pending {
        Pending(
            blob.slice_with_f64_and_f64(offset as f64, offset.saturating_add(size) as f64)
                .ok()
                .map(|part| part.array_buffer()),
        )
    }

    async fn bytes(self) -> Option<Vec<u8>> {
        let buffer = wasm_bindgen_futures::JsFuture::from(self.0?).await.ok()?;
        Some(js_sys::Uint8Array::new(&buffer).to_vec())
    }
}

impl Ends {
    /// Starts both reads of `blob` (one when the file is no longer than [`FIRST`]).
    pub fn start(blob: &web_sys::Blob) -> Ends {
        let len = blob.size() as u64;
        let head = Pending::start(blob, 0, FIRST.min(len));
        let tail = tail(len).map(|(offset, size)| (offset, Pending::start(blob, offset, size)));
        Ends { len, head, tail }
    }

    /// The bytes read: the first [`KIND_BYTES`] of the head (none when it could not be read),
    /// to tell what the file is, and the parts.
    pub async fn read(self) -> (Vec<u8>, Parts) {
        let mut parts = Parts::new(self.len);
        let head = self.head.bytes().await.unwrap_or_default();
        if let Some((offset, tail)) = self.tail {
            if let Some(bytes) = tail.bytes().await {
                parts.add(offset, bytes);
            }
        }
        let kind = head.get(..KIND_BYTES).unwrap_or(&head).to_vec();
        parts.add(0, head);
        (kind, parts)
    }
}

/// The summary of `blob` read in parts, starting from its [`Ends`] (`None` when it cannot
/// be, or not in [`ROUNDS`]).
pub async fn early_summary(blob: &web_sys::Blob, mut parts: Parts) -> Option<Summary> {
    for _ in 0..ROUNDS {
        match parts.summary()? {
            Ok(summary) => return Some(summary),
            Err((offset, size)) => {
                let bytes = fetch(blob, offset, size).await?;
                parts.add(offset, bytes);
            }
        }
    }
    None
}

async fn fetch(blob: &web_sys::Blob, offset: u64, size: u64) -> Option<Vec<u8>> {
    Pending::start(blob, offset, size).bytes().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::source::VecSource;

    /// The rounds of [`early_summary`], fetching from `data` (first its head, and its tail
    /// too with `ends`, as [`Ends`] does): the summary, rounds and bytes fetched.
    fn in_parts(data: &[u8], ends: bool) -> Option<(Summary, usize, u64)> {
        let len = data.len() as u64;
        let mut parts = Parts::new(len);
        let first = FIRST.min(len) as usize;
        parts.add(0, data[..first].to_vec());
        let mut fetched = first as u64;
        if let (true, Some((offset, size))) = (ends, tail(len)) {
            parts.add(offset, data[offset as usize..].to_vec());
            fetched += size;
        }
        for round in 1..=ROUNDS {
            match parts.summary()? {
                Ok(s) => return Some((s, round, fetched)),
                Err((offset, size)) => {
                    parts.add(
                        offset,
                        data[offset as usize..(offset + size) as usize].to_vec(),
                    );
                    fetched += size;
                }
            }
        }
        None
    }

    fn whole(data: &[u8]) -> Summary {
        SummaryReader::read_from(&mut VecSource(data.to_vec()), 8 << 20).summary()
    }

    #[test]
    fn the_summary_in_parts_is_the_summary_of_the_whole_file() {
        for name in ["example.data", "pipe.data"] {
            let data = std::fs::read(format!(
                "{}/../tests/data/{name}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            for ends in [false, true] {
                match in_parts(&data, ends) {
                    Some((s, rounds, fetched)) => {
                        assert_eq!(s, whole(&data), "{name}");
                        assert!(!s.events.is_empty(), "{name}");
                        assert!(rounds <= 3, "{name}: {rounds} rounds");
                        println!("{name}: {rounds} rounds, {fetched} of {} bytes", data.len());
                    }
                    // A pipe-mode stream is left to the worker.
                    None => assert_eq!(name, "pipe.data"),
                }
            }
            // Both ends read at once are the whole of what the summary needs.
            if name == "example.data" {
                assert_eq!(in_parts(&data, true).map(|r| r.1), Some(1));
                assert!(
                    data.len() as u64 > FIRST,
                    "the example has a tail of its own"
                );
            }
        }
    }

    #[test]
    fn corpus_summaries_in_parts_equal_the_whole_files() {
        let Some(root) = std::env::var_os("PERFSCOPE_SHARED")
            .map(std::path::PathBuf::from)
            .or_else(|| {
                let p =
                    std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"));
                p.is_dir().then_some(p)
            })
        else {
            println!("skipped: no ../shared corpus (set PERFSCOPE_SHARED)");
            return;
        };
        let mut files = Vec::new();
        let mut dirs: Vec<std::path::PathBuf> = ["corpus/public", "corpus/gen", "corpus/bigendian"]
            .iter()
            .map(|d| root.join(d))
            .collect();
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = e.path();
                if path.is_dir() && !path.ends_with("oracle") {
                    dirs.push(path);
                } else if e
                    .metadata()
                    .is_ok_and(|m| m.is_file() && m.len() < 64 << 20)
                {
                    files.push(path);
                }
            }
        }
        let (mut checked, mut one_round, mut gave_up) = (0, 0, Vec::new());
        for path in files {
            let Ok(data) = std::fs::read(&path) else {
                continue;
            };
            let file_mode = Magic::parse(&data[..data.len().min(16)]).is_ok_and(|m| !m.pipe);
            match in_parts(&data, false) {
                Some((s, _, _)) => {
                    assert_eq!(s, whole(&data), "{}", path.display());
                    let (with_ends, rounds, _) = in_parts(&data, true).unwrap();
                    assert_eq!(with_ends, s, "{}", path.display());
                    one_round += usize::from(rounds == 1);
                    checked += 1;
                }
                None if file_mode && !is_share(&data[..data.len().min(16)]) => gave_up.push(path),
                None => {}
            }
        }
        assert!(
            gave_up.is_empty(),
            "not read in {ROUNDS} rounds: {gave_up:?}"
        );
        assert!(checked > 50, "only {checked} files read in parts");
        println!("{checked} corpus files read in parts, {one_round} from their two ends alone");
    }
}
