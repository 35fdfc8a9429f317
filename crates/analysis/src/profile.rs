//! [`Profile`]: every interned table plus the samples, the input of call trees, flame graphs and
//! exports.

use crate::ids::{
    CapacityError, EventIndex, FrameIndex, FuncIndex, ModuleIndex, StackIndex, StringIndex,
    ThreadIndex,
};
use crate::samples::{Sample, SampleTable, Thread, ThreadTable};
use crate::stack_table::{Frame, FrameTable, Func, FuncTable, ModuleTable, StackTable};
use crate::string_table::StringTable;

/// Heap bytes of a [`Profile`], by table (see [`crate::heap`] for what is counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeapBytes {
    /// The string table (texts and index).
    pub strings: usize,
    /// Modules with their index.
    pub modules: usize,
    /// Functions with their index.
    pub funcs: usize,
    /// Frames with their index.
    pub frames: usize,
    /// The stack prefix tree with its index.
    pub stacks: usize,
    /// Threads and event names.
    pub threads: usize,
    /// The sample columns.
    pub samples: usize,
}

impl HeapBytes {
    /// The sum of every table.
    pub fn total(&self) -> usize {
        self.strings
            + self.modules
            + self.funcs
            + self.frames
            + self.stacks
            + self.threads
            + self.samples
    }
}

/// The samples with frames, and those whose leaf function has no name (an offset name, see
/// [`is_offset_name`]) in kernel and in user code: how much of a flame graph the symbols
/// missing would name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnnamedLeaves {
    /// The number of samples (with frames or not) these counts are of.
    pub samples: usize,
    /// Samples with frames.
    pub with_frames: u64,
    /// Samples whose leaf function has no name, in a kernel module.
    pub kernel: u64,
    /// Samples whose leaf function has no name, elsewhere.
    pub user: u64,
}

/// Whether a function named `name` in the module at `module_path` is a placeholder for an
/// address without a symbol: `0x1f`, or the module's file name and `+0x1f`, as the builder
/// names them with [`crate::builder::UnknownNames::ModuleOffset`].
pub fn is_offset_name(name: &str, module_path: &str) -> bool {
    let file = module_path.rsplit('/').next().unwrap_or(module_path);
    name.starts_with("0x")
        || name
            .strip_prefix(file)
            .is_some_and(|rest| rest.starts_with("+0x"))
}

/// Interned strings, modules, functions, frames, stacks, threads and events, and the samples.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Strings.
    pub strings: StringTable,
    /// Modules.
    pub modules: ModuleTable,
    /// Functions.
    pub funcs: FuncTable,
    /// Frames.
    pub frames: FrameTable,
    /// Stacks (prefix tree).
    pub stacks: StackTable,
    /// Threads.
    pub threads: ThreadTable,
    /// Event names, addressed by [`EventIndex`].
    pub events: Vec<StringIndex>,
    /// Samples.
    pub samples: SampleTable,
    /// [`Profile::unnamed_leaves`] as counted while the samples were added (the builder
    /// counts them at no cost: each sample's stack is at hand); ignored once the samples are
    /// not the ones counted.
    pub counted_leaves: Option<UnnamedLeaves>,
}

impl Profile {
    /// An empty profile.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes each table holds on the heap (capacities, as the allocator reserved them).
    pub fn heap_bytes(&self) -> HeapBytes {
        HeapBytes {
            strings: self.strings.heap_bytes(),
            modules: self.modules.heap_bytes(),
            funcs: self.funcs.heap_bytes(),
            frames: self.frames.heap_bytes(),
            stacks: self.stacks.heap_bytes(),
            threads: self.threads.heap_bytes() + crate::heap::vec_bytes(&self.events),
            samples: self.samples.heap_bytes(),
        }
    }

    /// Frees what only building needs (the stack table's lookup structures, rebuilt when a
    /// stack is interned again) and every table's unused capacity. The loaders call it when a
    /// profile is finished (`ProfileLoader::finish_loaded`, after the off-CPU samples).
    pub fn shrink(&mut self) {
        self.strings.shrink();
        self.funcs.shrink();
        self.frames.shrink();
        self.stacks.shrink();
        self.samples.shrink();
    }

    /// Interns a module by path and build id.
    pub fn intern_module(
        &mut self,
        path: &str,
        build_id: Option<&[u8]>,
    ) -> Result<ModuleIndex, CapacityError> {
        let path = self.strings.intern(path)?;
        self.modules.intern(path, build_id)
    }

    /// Interns a function by name and module.
    pub fn intern_func(
        &mut self,
        name: &str,
        module: Option<ModuleIndex>,
    ) -> Result<FuncIndex, CapacityError> {
        let name = self.strings.intern(name)?;
        self.funcs.intern(Func { name, module })
    }

    /// Interns a frame.
    pub fn intern_frame(
        &mut self,
        func: FuncIndex,
        module: Option<ModuleIndex>,
        address: u64,
        inline_depth: u16,
    ) -> Result<FrameIndex, CapacityError> {
        self.frames.intern(Frame {
            func,
            module,
            address,
            inline_depth,
        })
    }

    /// Adds an event name.
    pub fn add_event(&mut self, name: &str) -> Result<EventIndex, CapacityError> {
        let i = EventIndex::from_len(self.events.len())?;
        let name = self.strings.intern(name)?;
        self.events.push(name);
        Ok(i)
    }

    /// Adds a thread.
    pub fn add_thread(
        &mut self,
        pid: u32,
        tid: u32,
        name: &str,
    ) -> Result<ThreadIndex, CapacityError> {
        let name = self.strings.intern(name)?;
        self.threads.push(Thread { pid, tid, name })
    }

    /// Appends a sample.
    pub fn push_sample(&mut self, sample: Sample) -> Result<(), CapacityError> {
        self.samples.push(sample).map(|_| ())
    }

    /// The name of a function (empty for an unknown index).
    pub fn func_name(&self, func: FuncIndex) -> &str {
        self.funcs
            .get(func)
            .map_or("", |f| self.strings.get(f.name))
    }

    /// The path of a function's module ("" when it has none, or for an unknown index).
    pub fn func_module_path(&self, func: FuncIndex) -> &str {
        self.funcs
            .get(func)
            .and_then(|f| f.module)
            .and_then(|m| self.modules.get(m))
            .map_or("", |m| self.strings.get(m.path))
    }

    /// The samples whose leaf function has no name, kernel and user (see [`UnnamedLeaves`]):
    /// as counted while building, or counted now (a pass over every sample's leaf frame).
    pub fn unnamed_leaves(&self) -> UnnamedLeaves {
        if let Some(c) = self
            .counted_leaves
            .filter(|c| c.samples == self.samples.len())
        {
            return c;
        }
        // Per function and per frame, its class (see [`LeafClasses`]) once: a sample's class
        // is its leaf frame's, in a byte array small enough to stay in the caches.
        let mut classes = LeafClasses::default();
        let mut counts = UnnamedLeaves {
            samples: self.samples.len(),
            ..UnnamedLeaves::default()
        };
        for s in self.samples.stacks().flatten() {
            classes.count(self, s, &mut counts);
        }
        counts
    }

    /// The function of a frame.
    pub fn frame_func(&self, frame: FrameIndex) -> Option<FuncIndex> {
        self.frames.get(frame).map(|f| f.func)
    }

    /// The function of a stack's leaf frame.
    pub fn stack_func(&self, stack: StackIndex) -> Option<FuncIndex> {
        self.frame_func(self.stacks.get(stack)?.frame)
    }

    /// The name of a thread's command (empty for an unknown index).
    pub fn thread_name(&self, thread: ThreadIndex) -> &str {
        self.threads
            .get(thread)
            .map_or("", |t| self.strings.get(t.name))
    }

    /// The name of an event (empty for an unknown index).
    pub fn event_name(&self, event: EventIndex) -> &str {
        self.events
            .get(event.index())
            .map_or("", |&s| self.strings.get(s))
    }
}

/// Per frame, whether it is named ([`LeafClasses::NAMED`]) or not, in the kernel
/// ([`LeafClasses::KERNEL`]) or not ([`LeafClasses::USER`]); 0 while not looked at. Per function
/// the same, as frames share functions.
#[derive(Clone, Debug, Default)]
pub(crate) struct LeafClasses {
    frames: Vec<u8>,
    funcs: Vec<u8>,
}

impl LeafClasses {
    const NAMED: u8 = 1;
    const KERNEL: u8 = 2;
    const USER: u8 = 3;

    /// Adds a sample with stack `stack` of `profile` to `counts`.
    #[inline]
    pub(crate) fn count(
        &mut self,
        profile: &Profile,
        stack: StackIndex,
        counts: &mut UnnamedLeaves,
    ) {
        counts.with_frames += 1;
        let Some(frame) = profile.stacks.get(stack).map(|s| s.frame) else {
            return;
        };
        match self.of_frame(profile, frame) {
            Self::KERNEL => counts.kernel += 1,
            Self::USER => counts.user += 1,
            _ => {}
        }
    }

    fn of_frame(&mut self, profile: &Profile, frame: FrameIndex) -> u8 {
        if self.frames.len() <= frame.index() {
            self.frames
                .resize(profile.frames.len().max(frame.index() + 1), 0);
        }
        match self.frames.get(frame.index()).copied() {
            Some(0) | None => {}
            Some(c) => return c,
        }
        let class = profile
            .frame_func(frame)
            .map_or(Self::NAMED, |f| self.of_func(profile, f));
        if let Some(slot) = self.frames.get_mut(frame.index()) {
            *slot = class;
        }
        class
    }

    fn of_func(&mut self, profile: &Profile, func: FuncIndex) -> u8 {
        if self.funcs.len() <= func.index() {
            self.funcs
                .resize(profile.funcs.len().max(func.index() + 1), 0);
        }
        match self.funcs.get(func.index()).copied() {
            Some(0) | None => {}
            Some(c) => return c,
        }
        let module = profile.func_module_path(func);
        let class = match is_offset_name(profile.func_name(func), module) {
            false => Self::NAMED,
            true if crate::symbols::resolver::is_kernel_module_path(module) => Self::KERNEL,
            true => Self::USER,
        };
        if let Some(slot) = self.funcs.get_mut(func.index()) {
            *slot = class;
        }
        class
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_names_are_a_module_file_name_and_an_offset() {
        assert!(is_offset_name("libc.so.6+0x1f", "/usr/lib/libc.so.6"));
        assert!(is_offset_name(
            "[kernel.kallsyms]+0xffffffff81000000",
            "[kernel.kallsyms]"
        ));
        assert!(is_offset_name("0x7f00", ""));
        assert!(!is_offset_name("memcpy", "/usr/lib/libc.so.6"));
        assert!(!is_offset_name("libc.so.6+0x1f", "/usr/lib/libm.so.6"));
        assert!(!is_offset_name("libc.so.6", "/usr/lib/libc.so.6"));
    }
}
