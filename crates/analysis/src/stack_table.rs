//! Interned modules, functions, frames and stacks.
//!
//! A stack is a node of a prefix tree: `(prefix stack, frame)`, root frame first, so a sample
//! stores one [`StackIndex`] and shared prefixes are stored once. A prefix always has a smaller
//! index than the stacks built on it, which lets call trees be built in one forward pass.
//! Functions are `(name, module)` pairs; frames are `(function, module, address)` triples, so
//! two addresses in one function are two frames but one function. An unsymbolized address gets a
//! function of its own named `module+0xoffset`, which makes "merge by function" merge
//! unsymbolized frames by module and offset.

use rustc_hash::FxHashMap as HashMap;

use crate::chunked::Chunked;
use crate::ids::{CapacityError, FrameIndex, FuncIndex, ModuleIndex, StackIndex, StringIndex};
use crate::probe::{ProbeTable, Slot};

/// One executable, library, kernel image or JIT region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// Its path as recorded (`/usr/lib/x86_64-linux-gnu/libc.so.6`, `[kernel.kallsyms]`).
    pub path: StringIndex,
    /// The build id recorded for it.
    pub build_id: Option<Vec<u8>>,
}

/// The last part of a module's path: what starts the `file+0xoffset` names of its addresses
/// when it has no symbols (the profile builder's, the folded export's, and the name order
/// that relies on their form).
pub(crate) fn module_file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Interned modules.
#[derive(Clone, Debug, Default)]
pub struct ModuleTable {
    modules: Vec<Module>,
    index: HashMap<(StringIndex, Option<Vec<u8>>), ModuleIndex>,
}

impl ModuleTable {
    /// The index of (path, build id), adding it when new.
    pub fn intern(
        &mut self,
        path: StringIndex,
        build_id: Option<&[u8]>,
    ) -> Result<ModuleIndex, CapacityError> {
        let key = (path, build_id.map(<[u8]>::to_vec));
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        let i = ModuleIndex::from_len(self.modules.len())?;
        self.modules.push(Module {
            path,
            build_id: key.1.clone(),
        });
        self.index.insert(key, i);
        Ok(i)
    }

    /// The module at `i`.
    pub fn get(&self, i: ModuleIndex) -> Option<&Module> {
        self.modules.get(i.index())
    }

    /// Number of modules.
    pub fn len(&self) -> usize {
        self.modules.len()
    }

    /// Whether there is no module.
    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        let ids: usize = self
            .modules
            .iter()
            .filter_map(|m| m.build_id.as_ref())
            .map(Vec::capacity)
            .sum();
        crate::heap::vec_bytes(&self.modules) + crate::heap::map_bytes(&self.index) + 2 * ids
    }
}

/// A function: a name within a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Func {
    /// Display name (demangled), or `module+0xoffset` when unsymbolized.
    pub name: StringIndex,
    /// The module, when known.
    pub module: Option<ModuleIndex>,
}

/// Interned functions.
#[derive(Clone, Debug, Default)]
pub struct FuncTable {
    funcs: Chunked<Func>,
    index: HashMap<Func, FuncIndex>,
    /// `funcs[..indexed]` are in `index` (those added with `push_new` after are indexed at
    /// the next `intern`).
    indexed: usize,
}

impl FuncTable {
    /// The index of `func`, adding it when new.
    pub fn intern(&mut self, func: Func) -> Result<FuncIndex, CapacityError> {
        self.catch_up();
        let next = self.funcs.len();
        match self.index.entry(func) {
            std::collections::hash_map::Entry::Occupied(e) => Ok(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                let i = FuncIndex::from_len(next)?;
                e.insert(i);
                self.funcs.push(func);
                self.indexed = self.funcs.len();
                Ok(i)
            }
        }
    }

    /// Appends `func`, which the caller knows is not in the table yet (it made every
    /// func of its kind itself), without looking it up; a later [`FuncTable::intern`] finds it.
    pub fn push_new(&mut self, func: Func) -> Result<FuncIndex, CapacityError> {
        let i = FuncIndex::from_len(self.funcs.len())?;
        self.funcs.push(func);
        Ok(i)
    }

    fn catch_up(&mut self) {
        for (i, x) in self.funcs.iter_from(self.indexed).enumerate() {
            let i = i + self.indexed;
            // The first of equal entries keeps the index.
            self.index.entry(*x).or_insert(FuncIndex(i as u32));
        }
        self.indexed = self.funcs.len();
    }

    /// The function at `i`.
    pub fn get(&self, i: FuncIndex) -> Option<Func> {
        self.funcs.get(i.index()).copied()
    }

    /// Number of functions.
    pub fn len(&self) -> usize {
        self.funcs.len()
    }

    /// Whether there is no function.
    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        self.funcs.heap_bytes() + crate::heap::map_bytes(&self.index)
    }

    /// Frees the unused capacity.
    pub fn shrink(&mut self) {
        self.funcs.shrink_to_fit();
    }
}

/// A frame: one address in one module, attributed to one function. Inlined calls at one address
/// are several frames with increasing `inline_depth` (0 = the real function).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// The function.
    pub func: FuncIndex,
    /// The module the address is in.
    pub module: Option<ModuleIndex>,
    /// File-relative address (run-time address for the kernel and JIT code).
    pub address: u64,
    /// 0 for the real function, 1.. for inlined calls inside it (outer to inner).
    pub inline_depth: u16,
}

/// Interned frames.
#[derive(Clone, Debug, Default)]
pub struct FrameTable {
    frames: Chunked<Frame>,
    index: HashMap<Frame, FrameIndex>,
    /// `frames[..indexed]` are in `index` (those added with `push_new` after are indexed at
    /// the next `intern`).
    indexed: usize,
}

impl FrameTable {
    /// The index of `frame`, adding it when new.
    pub fn intern(&mut self, frame: Frame) -> Result<FrameIndex, CapacityError> {
        self.catch_up();
        let next = self.frames.len();
        match self.index.entry(frame) {
            std::collections::hash_map::Entry::Occupied(e) => Ok(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                let i = FrameIndex::from_len(next)?;
                e.insert(i);
                self.frames.push(frame);
                self.indexed = self.frames.len();
                Ok(i)
            }
        }
    }

    /// Appends `frame`, which the caller knows is not in the table yet (it made every
    /// frame of its kind itself), without looking it up; a later [`FrameTable::intern`] finds it.
    pub fn push_new(&mut self, frame: Frame) -> Result<FrameIndex, CapacityError> {
        let i = FrameIndex::from_len(self.frames.len())?;
        self.frames.push(frame);
        Ok(i)
    }

    fn catch_up(&mut self) {
        for (i, x) in self.frames.iter_from(self.indexed).enumerate() {
            let i = i + self.indexed;
            // The first of equal entries keeps the index.
            self.index.entry(*x).or_insert(FrameIndex(i as u32));
        }
        self.indexed = self.frames.len();
    }

    /// The frame at `i`.
    pub fn get(&self, i: FrameIndex) -> Option<Frame> {
        self.frames.get(i.index()).copied()
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether there is no frame.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        self.frames.heap_bytes() + crate::heap::map_bytes(&self.index)
    }

    /// Frees the unused capacity.
    pub fn shrink(&mut self) {
        self.frames.shrink_to_fit();
    }
}

/// A node of the stack prefix tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stack {
    /// The stack without its last (leaf-most) frame; `None` for a root frame.
    pub prefix: Option<StackIndex>,
    /// The leaf-most frame.
    pub frame: FrameIndex,
}

/// Interned stacks as a prefix tree.
///
/// Each stack is 8 bytes: its prefix (`u32::MAX` for none) and its frame. The lookup
/// structures (`first_child`, `index`) serve interning only; [`StackTable::shrink`] drops
/// them once a profile is built, and the next [`StackTable::intern`] rebuilds them.
#[derive(Clone, Debug, Default)]
pub struct StackTable {
    /// Per stack: the prefix's index, `NO_PREFIX` for a root.
    prefixes: Chunked<u32>,
    /// Per stack: the leaf-most frame.
    frames: Chunked<FrameIndex>,
    /// The children that are not a first child, and the roots, by (prefix, frame).
    index: ProbeTable<ChildSlot>,
    /// Per stack, its first child: most stacks have one child, so most children are found
    /// here (and their frame in `frames`) without the hash table. 4 bytes per stack while
    /// building.
    first_child: Chunked<StackIndex>,
    /// Whether `index` and `first_child` cover every stack (false after [`StackTable::shrink`]).
    unindexed: bool,
}

/// `(prefix + 1) << 32 | frame` (0 in the high half: no prefix). The table never hands out
/// `StackIndex(u32::MAX)`, so `prefix + 1` fits.
#[inline]
fn stack_key(prefix: Option<StackIndex>, frame: FrameIndex) -> u64 {
    let prefix = prefix.map_or(0, |p| u64::from(p.0) + 1);
    (prefix << 32) | u64::from(frame.0)
}

/// A slot of the stack table's index: (frame, stack), `stack == u32::MAX` when free (the table
/// never hands out that index). Found by [`stack_key`]; a slot whose frame is the one looked for
/// is checked against the stack's prefix column — one more read, for that slot only (a table of
/// bare stack indices read both columns of every candidate).
#[derive(Clone, Copy, Debug)]
struct ChildSlot {
    frame: FrameIndex,
    stack: u32,
}

impl Slot for ChildSlot {
    const FREE: Self = ChildSlot {
        frame: FrameIndex(0),
        stack: u32::MAX,
    };

    fn is_free(&self) -> bool {
        self.stack == u32::MAX
    }
}

/// The indexed stack made of `prefix` (as its column holds it) and `frame`.
fn find_child(
    index: &ProbeTable<ChildSlot>,
    prefixes: &Chunked<u32>,
    prefix: u32,
    frame: FrameIndex,
) -> Option<u32> {
    let key = stack_key(from_column(prefix), frame);
    index
        .find(key, |s| {
            s.frame == frame && prefixes.get(s.stack as usize) == Some(&prefix)
        })
        .map(|s| s.stack)
}

/// Adds `stack` (not in the index; its prefix column is `prefix`).
fn add_child(
    index: &mut ProbeTable<ChildSlot>,
    prefixes: &Chunked<u32>,
    prefix: u32,
    frame: FrameIndex,
    stack: u32,
) {
    let key = stack_key(from_column(prefix), frame);
    index.insert(key, ChildSlot { frame, stack }, |s| {
        let p = prefixes.get(s.stack as usize).copied().unwrap_or(NO_PREFIX);
        stack_key(from_column(p), s.frame)
    });
}

/// A prefix column value as an optional stack.
#[inline]
fn from_column(p: u32) -> Option<StackIndex> {
    (p != NO_PREFIX).then_some(StackIndex(p))
}

/// No child yet (no stack has this index).
const NO_CHILD: StackIndex = StackIndex(u32::MAX);

/// The prefix of a root stack.
const NO_PREFIX: u32 = u32::MAX;

impl StackTable {
    /// The stack `prefix` + `frame`, adding it when new.
    #[inline]
    pub fn intern(
        &mut self,
        prefix: Option<StackIndex>,
        frame: FrameIndex,
    ) -> Result<StackIndex, CapacityError> {
        if self.unindexed {
            self.reindex();
        }
        if let Some(p) = prefix {
            if let Some(&child) = self.first_child.get(p.index()) {
                if child == NO_CHILD {
                    // No child yet: this one is the first.
                    let i = self.push(prefix, frame)?;
                    if let Some(slot) = self.first_child.get_mut(p.index()) {
                        *slot = i;
                    }
                    return Ok(i);
                }
                if self.frames.get(child.index()) == Some(&frame) {
                    return Ok(child);
                }
            }
        }
        let column = prefix.map_or(NO_PREFIX, |p| p.0);
        if let Some(i) = find_child(&self.index, &self.prefixes, column, frame) {
            return Ok(StackIndex(i));
        }
        let i = self.push(prefix, frame)?;
        add_child(&mut self.index, &self.prefixes, column, frame, i.0);
        Ok(i)
    }

    fn push(
        &mut self,
        prefix: Option<StackIndex>,
        frame: FrameIndex,
    ) -> Result<StackIndex, CapacityError> {
        let i = StackIndex::from_len(self.frames.len())
            .ok()
            .filter(|i| *i != NO_CHILD)
            .ok_or(CapacityError { table: "stack" })?;
        self.push_columns(prefix, frame);
        Ok(i)
    }

    /// Appends a stack's columns.
    fn push_columns(&mut self, prefix: Option<StackIndex>, frame: FrameIndex) {
        self.prefixes.push(prefix.map_or(NO_PREFIX, |p| p.0));
        self.frames.push(frame);
        self.first_child.push(NO_CHILD);
    }

    /// Rebuilds the lookup structures that [`StackTable::shrink`] dropped.
    fn reindex(&mut self) {
        self.unindexed = false;
        self.first_child = Chunked::from_elem(NO_CHILD, self.frames.len());
        self.index = ProbeTable::default();
        let (prefixes, frames) = (&self.prefixes, &self.frames);
        for (i, (&p, &frame)) in prefixes.iter().zip(frames.iter()).enumerate() {
            let stack = StackIndex(i as u32);
            let prefix = (p != NO_PREFIX).then_some(StackIndex(p));
            let first = prefix.and_then(|p| self.first_child.get_mut(p.index()));
            match first {
                Some(slot) if *slot == NO_CHILD => *slot = stack,
                // A later child or a root; the first of equal stacks keeps the key.
                _ => {
                    if find_child(&self.index, prefixes, p, frame).is_none() {
                        add_child(&mut self.index, prefixes, p, frame, stack.0);
                    }
                }
            }
        }
    }

    /// Frees what only interning needs and the unused capacity: for a finished profile. A later
    /// [`StackTable::intern`] rebuilds the lookup structures first.
    pub fn shrink(&mut self) {
        self.unindexed = true;
        self.index = ProbeTable::default();
        self.first_child = Chunked::new();
        self.prefixes.shrink_to_fit();
        self.frames.shrink_to_fit();
    }

    /// Interns a whole stack given root first; `None` for an empty slice.
    pub fn intern_path(
        &mut self,
        root_first: &[FrameIndex],
    ) -> Result<Option<StackIndex>, CapacityError> {
        let mut stack = None;
        for &frame in root_first {
            stack = Some(self.intern(stack, frame)?);
        }
        Ok(stack)
    }

    /// The stack at `i`.
    #[inline]
    pub fn get(&self, i: StackIndex) -> Option<Stack> {
        let frame = *self.frames.get(i.index())?;
        let p = *self.prefixes.get(i.index())?;
        Some(Stack {
            prefix: (p != NO_PREFIX).then_some(StackIndex(p)),
            frame,
        })
    }

    /// The prefix of the stack at `i` (the stack's column alone: for walks to the root).
    #[inline]
    pub fn prefix(&self, i: StackIndex) -> Option<StackIndex> {
        self.prefixes
            .get(i.index())
            .copied()
            .filter(|&p| p != NO_PREFIX)
            .map(StackIndex)
    }

    /// The frames of a stack, leaf first.
    pub fn frames_leaf_first(
        &self,
        stack: Option<StackIndex>,
    ) -> impl Iterator<Item = FrameIndex> + '_ {
        let mut cur = stack;
        core::iter::from_fn(move || {
            let s = self.get(cur?)?;
            cur = s.prefix;
            Some(s.frame)
        })
    }

    /// All stacks in index order (prefixes before the stacks built on them).
    pub fn iter(&self) -> impl Iterator<Item = Stack> + '_ {
        self.prefixes
            .iter()
            .zip(self.frames.iter())
            .map(|(&p, &frame)| Stack {
                prefix: (p != NO_PREFIX).then_some(StackIndex(p)),
                frame,
            })
    }

    /// Number of stacks.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether there is no stack.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        self.prefixes.heap_bytes()
            + self.frames.heap_bytes()
            + self.first_child.heap_bytes()
            + self.index.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_share_prefixes() {
        let mut st = StackTable::default();
        let (a, b, c) = (FrameIndex(0), FrameIndex(1), FrameIndex(2));
        let ab = st.intern_path(&[a, b]).unwrap();
        let ac = st.intern_path(&[a, c]).unwrap();
        let ab2 = st.intern_path(&[a, b]).unwrap();
        assert_eq!(ab, ab2);
        assert_ne!(ab, ac);
        assert_eq!(st.len(), 3); // a, a;b, a;c
        assert_eq!(st.frames_leaf_first(ac).collect::<Vec<_>>(), vec![c, a]);
        assert_eq!(st.intern_path(&[]).unwrap(), None);
    }

    #[test]
    fn first_children_and_later_children_are_found_again() {
        let mut st = StackTable::default();
        let f = FrameIndex;
        let root = st.intern(None, f(0)).unwrap();
        let first = st.intern(Some(root), f(1)).unwrap();
        let second = st.intern(Some(root), f(2)).unwrap();
        let third = st.intern(Some(root), f(3)).unwrap();
        assert_eq!(
            [first, second, third].map(|s| st.get(s).unwrap()),
            [1, 2, 3].map(|i| Stack {
                prefix: Some(root),
                frame: f(i)
            })
        );
        assert_eq!(st.intern(Some(root), f(2)).unwrap(), second);
        assert_eq!(st.intern(Some(root), f(1)).unwrap(), first);
        assert_eq!(st.intern(Some(root), f(3)).unwrap(), third);
        assert_eq!(st.intern(None, f(0)).unwrap(), root);
        assert_eq!(st.len(), 4);
    }

    #[test]
    fn a_shrunk_table_finds_its_stacks_again() {
        let mut st = StackTable::default();
        let f = FrameIndex;
        let ab = st.intern_path(&[f(0), f(1)]).unwrap();
        let ac = st.intern_path(&[f(0), f(2)]).unwrap();
        let d = st.intern_path(&[f(3)]).unwrap();
        let before: Vec<Stack> = st.iter().collect();
        st.shrink();
        assert_eq!(st.iter().collect::<Vec<_>>(), before);
        assert_eq!(st.intern_path(&[f(0), f(2)]).unwrap(), ac);
        assert_eq!(st.intern_path(&[f(0), f(1)]).unwrap(), ab);
        assert_eq!(st.intern_path(&[f(3)]).unwrap(), d);
        // a, a;b, a;c, d
        assert_eq!(st.len(), 4);
        let ae = st.intern_path(&[f(0), f(4)]).unwrap();
        assert_eq!(ae, Some(StackIndex(4)));
        assert_eq!(
            st.get(StackIndex(4)),
            Some(Stack {
                prefix: Some(StackIndex(0)),
                frame: f(4)
            })
        );
    }
}
