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
