//! One recording's samples, their stacks made by two loaders at once (two workers in the page):
//! see [`StackShare`].
//!
//! Both loaders read the whole file and deliver every record in the same time order. The
//! *first* ([`StackShare::Before`]) builds everything (threads, samples, timeline) but makes
//! the stacks of the samples before a file offset only; each later one is pushed with a
//! stand-in stack, [`deferred`]`(k)` for the `k`-th such delivery. The *second*
//! ([`StackShare::From`]) delivers only the samples from that offset on, and keeps nothing of
//! them but their stacks ([`encode_part`]). [`fill_deferred`] then puts the second loader's
//! stacks into the first one's profile and timeline.
//!
//! The second loader skips the earlier samples before they are queued, but notes their times
//! ([`crate::ordered::OrderedQueue::note_time`]), so that its queue releases at each round end
//! what the first one's does: the samples both deliver come out in the same order, and the
//! `k`-th stack of the second loader is that of the first one's `k`-th stand-in. A
//! [`SampleCheck`] of their times and threads, made by both, confirms it.

use perfscope_format::metadata::Metadata;

use crate::chunked::Chunked;
use crate::ids::{CapacityError, FrameIndex, FuncIndex, ModuleIndex, StackIndex, StringIndex};
use crate::profile::Profile;
use crate::stack_table::{Frame, Func};
use crate::timeline::Timeline;

/// Which samples' stacks a loader makes (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StackShare {
    /// Every sample's.
    #[default]
    All,
    /// Those of the samples whose record starts before this file offset; the later ones get
    /// stand-ins ([`deferred`]) for [`fill_deferred`].
    Before(u64),
    /// Only the samples whose record starts at or after this file offset are delivered, and
    /// only their stacks kept ([`crate::load::ProfileLoader::finish_part`]).
    From(u64),
}

/// Whether two loaders can share the stacks of `meta`'s recording: not when an event's samples
/// carry read values (PERF_SAMPLE_READ), whose deliveries depend on every earlier sample of
/// their counters ([`crate::delivery::SampleDelivery`]), which the second loader skips.
pub fn can_share_stacks(meta: &Metadata) -> bool {
    (0..meta.events.len()).all(|i| {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        !crate::delivery::carries_reads(&meta.events, perfscope_format::layout::EventIndex(i))
    })
}

/// Stand-in stacks have this bit set (no profile reaches 2^31 stacks: the first loader fails
/// with a capacity error if its own would).
pub const DEFERRED: u32 = 1 << 31;

/// The stand-in for the `k`-th sample whose stack the other loader makes.
pub fn deferred(k: u32) -> StackIndex {
    StackIndex(DEFERRED | k)
}

/// Which deferred sample a stand-in stands for.
pub fn deferred_ordinal(s: StackIndex) -> Option<u32> {
    (s.0 & DEFERRED != 0).then_some(s.0 & !DEFERRED)
}

/// What both loaders compute over the samples whose stacks the second one makes, in order:
/// equal when they delivered the same samples in the same order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleCheck {
    /// Deliveries.
    pub count: u64,
    /// A hash of their times and thread ids, in order.
    pub hash: u64,
}

impl SampleCheck {
    /// One more delivery.
    pub fn add(&mut self, time: u64, tid: u32) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        self.count += 1;
        self.hash = (self.hash.rotate_left(5) ^ time).wrapping_mul(K);
        self.hash = (self.hash.rotate_left(5) ^ u64::from(tid)).wrapping_mul(K);
    }
}

/// Why [`fill_deferred`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitError {
    /// The two loaders did not deliver the same samples (the first one's check, the second's).
    Mismatch(SampleCheck, SampleCheck),
    /// A table outgrew its index type.
    Capacity(CapacityError),
    /// The encoded stacks are cut short or inconsistent at this byte offset.
    Encoding(usize),
}

impl core::fmt::Display for SplitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SplitError::Mismatch(a, b) => write!(
                f,
                "the two halves of the pass disagree: {} samples deferred, {} stacks made",
                a.count, b.count
            ),
            SplitError::Capacity(e) => write!(f, "{e:?}"),
            SplitError::Encoding(at) => write!(f, "the stacks' encoding is bad at byte {at}"),
        }
    }
}

impl From<CapacityError> for SplitError {
    fn from(e: CapacityError) -> Self {
        SplitError::Capacity(e)
    }
}

/// The first bytes of [`encode_part`]'s output.
const MAGIC: &[u8; 8] = b"PSSTACK1";

/// What the second loader made ([`crate::load::ProfileLoader::finish_part`]).
#[derive(Clone, Debug, Default)]
pub struct Part {
    /// The check of its samples and its stack table, as bytes ([`encode_part`]).
    pub tables: Vec<u8>,
    /// Each delivered sample's stack in that table, in order (`u32::MAX`: none).
    pub stacks: SampleStacks,
}

/// Each sample's stack, in order (`u32::MAX`: none): two bytes a sample while every stack
/// number fits (a profile with one frame per module has a few thousand stacks), four after.
#[derive(Clone, Debug)]
pub enum SampleStacks {
    /// Every stack below `u16::MAX` (`u16::MAX`: none).
    Narrow(Chunked<u16>),
    /// Any stack.
    Wide(Chunked<u32>),
}

impl Default for SampleStacks {
    fn default() -> Self {
        SampleStacks::Narrow(Chunked::new())
    }
}

impl SampleStacks {
    /// Appends the next sample's stack (`u32::MAX`: none).
    pub fn push(&mut self, stack: u32) {
        let narrow = match stack {
            u32::MAX => Some(u16::MAX),
            s => u16::try_from(s).ok().filter(|&s| s != u16::MAX),
        };
        match (&mut *self, narrow) {
            (SampleStacks::Narrow(c), Some(s)) => c.push(s),
            (SampleStacks::Narrow(c), None) => {
                let mut wide = Chunked::new();
                for &s in c.iter() {
                    wide.push(if s == u16::MAX {
                        u32::MAX
                    } else {
                        u32::from(s)
                    });
                }
                wide.push(stack);
                *self = SampleStacks::Wide(wide);
            }
            (SampleStacks::Wide(c), _) => c.push(stack),
        }
    }

    /// The stack of sample `k` (`u32::MAX`: none); `None` past the end.
    pub fn get(&self, k: usize) -> Option<u32> {
        match self {
            SampleStacks::Narrow(c) => c.get(k).map(|&s| {
                if s == u16::MAX {
                    u32::MAX
                } else {
                    u32::from(s)
                }
            }),
            SampleStacks::Wide(c) => c.get(k).copied(),
        }
    }

    /// The samples.
    pub fn len(&self) -> usize {
        match self {
            SampleStacks::Narrow(c) => c.len(),
            SampleStacks::Wide(c) => c.len(),
        }
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stacks in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).filter_map(|k| self.get(k))
    }
}

/// The second loader's stack table as bytes (to send from one worker to another): `check`,
/// then `profile`'s strings, modules, functions, frames and stacks; little-endian counts and
/// fields. The samples' stacks go apart (see [`Part`]), in blocks that never need one big
/// allocation.
pub fn encode_part(profile: &Profile, check: SampleCheck) -> Vec<u8> {
    let p = profile;
    let strings: usize = (0..p.strings.len())
        .map(|i| 4 + p.strings.get(StringIndex(i as u32)).len())
        .sum();
    let modules: usize = (0..p.modules.len())
        .filter_map(|i| p.modules.get(ModuleIndex(i as u32)))
        .map(|m| 8 + m.build_id.as_ref().map_or(0, Vec::len))
        .sum();
    let size = MAGIC.len()
        + 16
        + 4 * 5
        + strings
        + modules
        + 8 * p.funcs.len()
        + 18 * p.frames.len()
        + 8 * p.stacks.len();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(MAGIC);
    let u32_ = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    let u64_ = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes());
    let opt = |m: Option<ModuleIndex>| m.map_or(u32::MAX, |m| m.0);
    u64_(&mut out, check.count);
    u64_(&mut out, check.hash);
    u32_(&mut out, p.strings.len() as u32);
    for i in 0..p.strings.len() {
        let s = p.strings.get(StringIndex(i as u32)).as_bytes();
        u32_(&mut out, s.len() as u32);
        out.extend_from_slice(s);
    }
    u32_(&mut out, p.modules.len() as u32);
    for m in (0..p.modules.len()).filter_map(|i| p.modules.get(ModuleIndex(i as u32))) {
        u32_(&mut out, m.path.0);
        match &m.build_id {
            Some(id) => {
                u32_(&mut out, id.len() as u32);
                out.extend_from_slice(id);
            }
            None => u32_(&mut out, u32::MAX),
        }
    }
    u32_(&mut out, p.funcs.len() as u32);
    for f in (0..p.funcs.len()).filter_map(|i| p.funcs.get(FuncIndex(i as u32))) {
        u32_(&mut out, f.name.0);
        u32_(&mut out, opt(f.module));
    }
    u32_(&mut out, p.frames.len() as u32);
    for f in (0..p.frames.len()).filter_map(|i| p.frames.get(FrameIndex(i as u32))) {
        u32_(&mut out, f.func.0);
        u32_(&mut out, opt(f.module));
        u64_(&mut out, f.address);
        out.extend_from_slice(&f.inline_depth.to_le_bytes());
    }
    u32_(&mut out, p.stacks.len() as u32);
    for s in p.stacks.iter() {
        u32_(&mut out, s.prefix.map_or(u32::MAX, |p| p.0));
        u32_(&mut out, s.frame.0);
    }
    out
}

/// Puts the second loader's stacks into `profile` (whose loader deferred them, with `check`
/// over the deferred samples) in place of the stand-ins: in its samples and in `timeline`'s
/// off-CPU stacks. `tables` is [`encode_part`]'s output; `stack_of(k)` is the stack in it of
/// the `k`-th deferred sample (`u32::MAX`: none; `None`: there is no such sample), asked in
/// about increasing `k`. When the checks differ, fails before changing anything;
/// on a bad encoding or a stack missing, fails with the profile partly filled in (build it
/// again then).
pub fn fill_deferred(
    profile: &mut Profile,
    timeline: Option<&mut Timeline>,
    check: SampleCheck,
    tables: &[u8],
    mut stack_of: impl FnMut(u32) -> Option<u32>,
) -> Result<(), SplitError> {
    let mut r = Reader {
        bytes: tables,
        at: 0,
    };
    if r.take(MAGIC.len())? != MAGIC {
        return Err(SplitError::Encoding(0));
    }
    let theirs = SampleCheck {
        count: r.u64()?,
        hash: r.u64()?,
    };
    if check != theirs {
        return Err(SplitError::Mismatch(check, theirs));
    }
    let map = import_stacks(profile, &mut r)?;
    if r.left() != 0 {
        return Err(SplitError::Encoding(r.at));
    }
    // Every stand-in names a sample of the part, whose stack is known.
    let mut missing = false;
    let mut resolve = |s: StackIndex| -> Option<Option<StackIndex>> {
        let k = deferred_ordinal(s)?;
        let t = stack_of(k).filter(|_| u64::from(k) < check.count);
        match t {
            Some(u32::MAX) => Some(None),
            Some(t) if (t as usize) < map.len() => map.get(t as usize).map(|&s| Some(s)),
            _ => {
                missing = true;
                None
            }
        }
    };
    profile.samples.replace_stacks(&mut resolve)?;
    if let Some(t) = timeline {
        for o in &mut t.off_cpu {
            if let Some(new) = o.stack.and_then(&mut resolve) {
                o.stack = new;
            }
        }
    }
    if missing {
        return Err(SplitError::Encoding(tables.len()));
    }
    Ok(())
}

/// Interns every stack that `r` holds (strings to stacks, [`encode_part`]'s order) into
/// `into`; returns the index in `into` of each.
fn import_stacks(into: &mut Profile, r: &mut Reader<'_>) -> Result<Vec<StackIndex>, SplitError> {
    let n = r.count(4)?;
    let mut strings = Vec::with_capacity(n);
    for _ in 0..n {
        let len = r.count(1)?;
        let at = r.at;
        let s = core::str::from_utf8(r.take(len)?).map_err(|_| SplitError::Encoding(at))?;
        strings.push(into.strings.intern(s)?);
    }
    let n = r.count(8)?;
    let mut modules = Vec::with_capacity(n);
    for _ in 0..n {
        let path = r.entry(&strings)?;
        let id = match r.u32()? {
            u32::MAX => None,
            len => Some(r.take(len as usize)?),
        };
        modules.push(into.modules.intern(path, id)?);
    }
    let n = r.count(8)?;
    let mut funcs = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.entry(&strings)?;
        let module = r.optional_entry(&modules)?;
        funcs.push(into.funcs.intern(Func { name, module })?);
    }
    let n = r.count(18)?;
    let mut frames = Vec::with_capacity(n);
    for _ in 0..n {
        let func = r.entry(&funcs)?;
        let module = r.optional_entry(&modules)?;
        let address = r.u64()?;
        let inline_depth = r.u16()?;
        frames.push(into.frames.intern(Frame {
            func,
            module,
            address,
            inline_depth,
        })?);
    }
    let n = r.count(8)?;
    let mut stacks: Vec<StackIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        // A prefix comes before its stacks.
        let prefix = r.optional_entry(&stacks)?;
        let frame = r.entry(&frames)?;
        let new = into.stacks.intern(prefix, frame)?;
        if new.0 & DEFERRED != 0 {
            return Err(SplitError::Capacity(CapacityError { table: "stack" }));
        }
        stacks.push(new);
    }
    Ok(stacks)
}

/// Little-endian fields read from the front of a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], SplitError> {
        let end = self
            .at
            .checked_add(n)
            .ok_or(SplitError::Encoding(self.at))?;
        let s = self
            .bytes
            .get(self.at..end)
            .ok_or(SplitError::Encoding(self.at))?;
        self.at = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], SplitError> {
        let at = self.at;
        self.take(N)?
            .try_into()
            .map_err(|_| SplitError::Encoding(at))
    }

    fn u16(&mut self) -> Result<u16, SplitError> {
        self.array().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32, SplitError> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, SplitError> {
        self.array().map(u64::from_le_bytes)
    }

    /// An entry of `table` by its index in the part.
    fn entry<T: Copy>(&mut self, table: &[T]) -> Result<T, SplitError> {
        let at = self.at;
        let i = self.u32()? as usize;
        table.get(i).copied().ok_or(SplitError::Encoding(at))
    }

    /// [`Reader::entry`], or `u32::MAX` for none.
    fn optional_entry<T: Copy>(&mut self, table: &[T]) -> Result<Option<T>, SplitError> {
        let at = self.at;
        match self.u32()? {
            u32::MAX => Ok(None),
            i => table
                .get(i as usize)
                .copied()
                .map(Some)
                .ok_or(SplitError::Encoding(at)),
        }
    }

    /// A count of items of at least `size` bytes each, no more than the bytes left hold.
    fn count(&mut self, size: usize) -> Result<usize, SplitError> {
        let at = self.at;
        let n = self.u32()? as usize;
        if n.saturating_mul(size) > self.left() {
            return Err(SplitError::Encoding(at));
        }
        Ok(n)
    }
}
