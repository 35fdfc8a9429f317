//! [`ProfileBuilder`]: turns the events of a recording (MMAP, COMM, FORK, SAMPLE with its
//! callchain) into a [`Profile`] with symbolized, interned stacks. Feed events in time order.
//!
//! Callchains are leaf first, as the kernel writes them, with context markers
//! (`PERF_CONTEXT_KERNEL`, `_USER`, ...; any value ≥ `PERF_CONTEXT_MAX`) that set whether the
//! following addresses are kernel or user addresses. A `PERF_CONTEXT_USER_DEFERRED` marker is
//! followed by a cookie, which is skipped. Any other value ≥ `PERF_CONTEXT_MAX` means a
//! corrupted callchain, which is dropped whole, as perf drops it.

pub(crate) mod chain;

use rustc_hash::FxHashMap;

use self::chain::{chain_entries, ChainEntry, Expand, LastStack, RecentStacks, TRUNCATED_ROOT};

use crate::ids::{CapacityError, EventIndex, FrameIndex, ModuleIndex, StringIndex, ThreadIndex};
use crate::maps::{AddressSpace, Mapping};
use crate::probe::{ProbeTable, Slot};
use crate::profile::Profile;
use crate::samples::Sample;
use crate::stack_table::{module_file_name, Frame, Func};
use crate::symbols::resolver::{ModuleRef, SymbolResolver, Symbolized};
use crate::unwind::{UnwindOutcome, UserRegs, UserUnwinder};

/// `PERF_CONTEXT_HV`.
pub const PERF_CONTEXT_HV: u64 = -32i64 as u64;
/// `PERF_CONTEXT_KERNEL`.
pub const PERF_CONTEXT_KERNEL: u64 = -128i64 as u64;
/// `PERF_CONTEXT_USER`.
pub const PERF_CONTEXT_USER: u64 = -512i64 as u64;
/// `PERF_CONTEXT_USER_DEFERRED` (Linux 6.17+), followed by a cookie.
pub const PERF_CONTEXT_USER_DEFERRED: u64 = -640i64 as u64;
/// `PERF_CONTEXT_GUEST`.
pub const PERF_CONTEXT_GUEST: u64 = -2048i64 as u64;
/// `PERF_CONTEXT_GUEST_KERNEL`.
pub const PERF_CONTEXT_GUEST_KERNEL: u64 = -2176i64 as u64;
/// `PERF_CONTEXT_GUEST_USER`.
pub const PERF_CONTEXT_GUEST_USER: u64 = -2560i64 as u64;
/// `PERF_CONTEXT_MAX`: values at or above it are markers, not addresses.
pub const PERF_CONTEXT_MAX: u64 = -4095i64 as u64;

/// Which frames get their inlined calls (from DWARF) as frames of their own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InlineFrames {
    /// None.
    Never,
    /// Only frames unwound from a DWARF-mode stack copy, as perf 6.1 does (its `unwind_entry`
    /// calls `append_inlines`; frame-pointer callchain entries are not expanded).
    Unwound,
    /// Every frame.
    #[default]
    Always,
}

/// Facts about a sample's stack that its records do not carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackExtras {
    /// Callchain entries from this index on were unwound from a DWARF-mode stack copy
    /// (`usize::MAX`: none).
    pub unwound_from: usize,
    /// The stack could not be unwound to its root: a `[truncated]` root frame is added.
    pub truncated: bool,
}

impl Default for StackExtras {
    fn default() -> Self {
        StackExtras {
            unwound_from: usize::MAX,
            truncated: false,
        }
    }
}

/// The entries of the stack of a sample without [`StackExtras`], root first, as
/// [`ProfileBuilder::sample_filled`] takes them (no inline bit): what the records pass's other
/// half ([`crate::load::DeliveryWriter`]) hands the builder instead of the callchain.
pub(crate) fn plain_entries(
    callchain: impl ExactSizeIterator<Item = u64>,
    ip: u64,
    ip_mode: CpuMode,
    out: &mut Vec<ChainEntry>,
) {
    let expand = Expand {
        all: false,
        unwound: false,
    };
    chain_entries(callchain, ip, ip_mode, StackExtras::default(), expand, out);
}

/// The root frame of a stack that could not be unwound to its root.
pub const TRUNCATED_FRAME: &str = "[truncated]";

/// Whether an address belongs to the kernel or to the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuMode {
    /// Kernel (or hypervisor) address.
    Kernel,
    /// User-space address.
    User,
}

/// The name of the one function of a module's addresses without a symbol
/// (`UnknownNames::Module`): its file name in brackets, `[libc.so.6]`; a name in brackets
/// already (`[kernel.kallsyms]`, `[vdso]`) as it is.
pub fn module_name(path: &str) -> String {
    let file = module_file_name(path);
    if file.starts_with('[') && file.ends_with(']') {
        file.to_owned()
    } else {
        format!("[{file}]")
    }
}

/// How frames without a symbol are named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnknownNames {
    /// `[unknown]`, as perf script and its collapsers print them (all unknown frames of a module
    /// merge into one function).
    #[default]
    Unknown,
    /// `module+0xoffset` (file-relative), so call trees merge them by module and offset.
    ModuleOffset,
    /// `[module]` (the module's file name in brackets; `[unknown]` outside any module): one
    /// function and one frame for every address of a module without a symbol, as
    /// stackcollapse-perf and inferno name them. A recording without symbols then has as few
    /// stacks as the call paths between modules, not one per distinct address.
    Module,
}

/// A sample as the records give it.
#[derive(Clone, Copy, Debug)]
pub struct SampleInput<'a> {
    /// `pid` (u32 of perf's s32; -1 is `u32::MAX`).
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    /// Time in ns (0 without `PERF_SAMPLE_TIME`).
    pub time: u64,
    /// CPU (`u32::MAX` without `PERF_SAMPLE_CPU`).
    pub cpu: u32,
    /// The event.
    pub event: EventIndex,
    /// The period.
    pub period: u64,
    /// `PERF_SAMPLE_IP`, used when there is no callchain.
    pub ip: u64,
    /// Whether `ip` is a kernel address (`header.misc` cpumode).
    pub ip_mode: CpuMode,
    /// `PERF_SAMPLE_CALLCHAIN` entries, leaf first, with context markers; empty when absent.
    pub callchain: &'a [u64],
}

/// The last two address ranges met in one address space (a mapping, or a gap between
/// mappings where addresses have no module), with their one frame per module, for the
/// address space and generation `valid_for`.
#[derive(Clone, Copy, Debug, Default)]
struct RecentRanges {
    /// Newest first: (start, end, frame).
    ranges: [Option<(u64, u64, FrameIndex)>; 2],
    /// `(u32::MAX, kernel generation)` or `(pid, generation)`.
    valid_for: (u32, u64),
}

impl RecentRanges {
    fn find(&self, addr: u64) -> Option<FrameIndex> {
        self.ranges
            .iter()
            .flatten()
            .find(|&&(start, end, _)| start <= addr && addr < end)
            .map(|&(_, _, frame)| frame)
    }

    fn add(&mut self, (start, end): (u64, u64), frame: FrameIndex) {
        let [newest, older] = &mut self.ranges;
        *older = newest.replace((start, end, frame));
    }
}

/// A process as the builder knows it (see [`ProfileBuilder::processes`]).
#[derive(Clone, Debug, Default)]
struct Process {
    /// Its mappings.
    space: AddressSpace,
    /// A number that changes whenever its mappings change (for unwinder caches and the
    /// per-thread stack memory); 0 while it has none of its own (no MMAP or FORK seen).
    generation: u64,
    /// One frame per module: the last two address ranges its samples met.
    ranges: RecentRanges,
}

/// Builds a [`Profile`] from records.
pub struct ProfileBuilder {
    profile: Profile,
    /// The symbol sources. `None` leaves every frame unsymbolized.
    pub resolver: Option<SymbolResolver>,
    /// How frames without a symbol are named.
    pub unknown_names: UnknownNames,
    /// Which frames get inline frames (needs the resolver's `inline_frames`).
    pub inline_frames: InlineFrames,
    /// Look names up with the resolver (`false`: every frame is named as unknown, while the
    /// resolver still serves binaries for unwinding).
    pub symbolize: bool,
    kernel: AddressSpace,
    kernel_module: Option<ModuleIndex>,
    /// Per process: its mappings, their generation and the ranges its samples met last (one
    /// lookup a sample finds all three).
    processes: FxHashMap<u32, Process>,
    next_generation: u64,
    /// Changes whenever the kernel's mappings change.
    kernel_generation: u64,
    /// One frame per module: the last two address ranges met in the kernel (a mapping, or a
    /// gap between mappings), with their frame (see [`RecentRanges`]); each process has its
    /// own ([`Process::ranges`]): samples in time order come from one CPU then another,
    /// mostly of another process.
    kernel_ranges: RecentRanges,
    /// Modules that name their only function (KSYMBOL: BPF programs, JIT code in the kernel).
    named_modules: FxHashMap<ModuleIndex, String>,
    /// Whether each module is in `named_modules`.
    named_flags: Vec<bool>,
    /// Per module, whether the resolver may name its addresses ([`SymbolResolver::can_name`];
    /// `None`: not asked yet). A module it cannot name has its frames made as without one.
    nameable: Vec<Option<bool>>,
    /// Per module (1 + its index; 0 for none), its one frame without a symbol
    /// (`UnknownNames::Module`; `u32::MAX` before it is made).
    module_frames: Vec<FrameIndex>,
    /// Scratch space for frame names.
    name_buf: String,
    /// Per module, 1 + its index in `file_groups` once it has made an offset name (0 before).
    module_group: Vec<u32>,
    /// The modules that made offset names, grouped by file name (`file_group_of`): offset names
    /// of modules in different groups never have equal texts.
    file_groups: Vec<Vec<ModuleIndex>>,
    /// The index in `file_groups` of each file name.
    file_group_of: FxHashMap<String, u32>,
    /// The offset names of the groups of more than [`FILE_GROUP_PROBES`] modules, by (group,
    /// offset).
    big_group_names: FxHashMap<(u32, u64), StringIndex>,
    threads: FxHashMap<(u32, u32), ThreadState>,
    /// The frames of an address by [`frame_key`]: the frame itself for one frame, else
    /// `MANY_FRAMES | i` for the run `frame_spans[i]`. 16-byte slots: the table holds every
    /// address seen (hundreds of thousands) and is probed for most callchain entries.
    frames: ProbeTable<FrameSlot>,
    /// Runs of several frames: (start, len) in `frame_runs`, root first.
    frame_spans: Vec<(u32, u32)>,
    frame_runs: Vec<FrameIndex>,
    truncated_frame: Option<FrameIndex>,
    entries: Vec<ChainEntry>,
    /// When only the samples' stacks are kept ([`ProfileBuilder::keep_stacks_only`]): each
    /// sample's stack (`u32::MAX`: none), in order; the profile gets no samples.
    part_stacks: Option<crate::load::SampleStacks>,
}

/// Modules of one file name whose frames are probed for an offset name made before (see
/// [`ProfileBuilder::offset_name`]); past this many, the group keeps its names in a map.
const FILE_GROUP_PROBES: usize = 16;

/// A `frames` value that is an index into `frame_spans`, not a frame.
const MANY_FRAMES: u32 = 1 << 31;

/// A frame cache entry: the key of [`frame_key`] and the value (`u32::MAX`: a free slot).
#[derive(Clone, Copy, Debug)]
struct FrameSlot {
    rel: u64,
    module: u32,
    value: u32,
}

impl Slot for FrameSlot {
    const FREE: Self = FrameSlot {
        rel: 0,
        module: 0,
        value: u32::MAX,
    };

    fn is_free(&self) -> bool {
        self.value == u32::MAX
    }
}

/// The frame cache's hash of a [`frame_key`].
#[inline]
fn frame_hash((rel, module): (u64, u32)) -> u64 {
    rel ^ u64::from(module).rotate_left(29)
}

/// The frame cache's key of (module, file-relative address, expanded): the address, then the
/// module (`MANY_FRAMES - 1` for none) with `expand` in the top bit. `None` when the module
/// index does not fit 31 bits.
fn frame_key(module: Option<ModuleIndex>, rel: u64, expand: bool) -> Option<(u64, u32)> {
    let m = module.map_or(MANY_FRAMES - 1, |m| m.0);
    (m < MANY_FRAMES - 1 || module.is_none())
        .then_some((rel, m | if expand { MANY_FRAMES } else { 0 }))
}

/// The frames of one address: one, or a range of `frame_runs` (root first).
#[derive(Clone, Copy, Debug)]
enum FrameRun {
    One(FrameIndex),
    Many(usize, usize),
}

impl FrameRun {
    /// From a frame cache value.
    fn from_cached(value: u32, spans: &[(u32, u32)]) -> FrameRun {
        if value & MANY_FRAMES == 0 {
            return FrameRun::One(FrameIndex(value));
        }
        let (start, len) = spans
            .get((value & !MANY_FRAMES) as usize)
            .copied()
            .unwrap_or((0, 0));
        FrameRun::Many(start as usize, len as usize)
    }
}

/// Where an address of a stack is ([`ProfileBuilder::locate`]).
#[derive(Clone, Copy, Debug)]
struct Located {
    /// The addresses located the same way: its mapping's, or the gap between mappings.
    range: (u64, u64),
    /// Its module.
    module: Option<ModuleIndex>,
    /// Its file-relative address (the address itself without a mapping).
    rel: u64,
    /// A symbol, a KSYMBOL name or a symbol file may name it.
    may_have_name: bool,
}

/// A thread: its profile index (which changes with its name) and its last stack.
#[derive(Clone, Debug)]
struct ThreadState {
    index: ThreadIndex,
    last: RecentStacks,
}

/// The state of thread (`pid`, `tid`) among `threads`; a new thread is added to `profile`,
/// named `:tid` until its COMM.
fn thread_state<'a>(
    threads: &'a mut FxHashMap<(u32, u32), ThreadState>,
    profile: &mut Profile,
    pid: u32,
    tid: u32,
) -> Result<&'a mut ThreadState, CapacityError> {
    Ok(match threads.entry((pid, tid)) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => e.insert(ThreadState {
            index: profile.add_thread(pid, tid, &format!(":{tid}"))?,
            last: RecentStacks::default(),
        }),
    })
}

fn is_anon_exec(filename: &str) -> bool {
    filename.starts_with("//anon")
        || filename.starts_with("[anon")
        || filename.starts_with("/memfd:")
        || filename.starts_with("/tmp/perf-")
}

impl ProfileBuilder {
    /// Symbolizes with `resolver` from now on (frames made before keep their names).
    pub fn set_resolver(&mut self, resolver: Option<SymbolResolver>) {
        self.resolver = resolver;
        // Whether a module can be named depends on the resolver.
        self.nameable.clear();
    }

    /// A builder that symbolizes with `resolver` (or not at all with `None`).
    pub fn new(resolver: Option<SymbolResolver>) -> Self {
        ProfileBuilder {
            profile: Profile::new(),
            resolver,
            unknown_names: UnknownNames::default(),
            symbolize: true,
            inline_frames: InlineFrames::default(),
            kernel: AddressSpace::default(),
            kernel_module: None,
            processes: FxHashMap::default(),
            next_generation: 0,
            kernel_generation: 0,
            kernel_ranges: RecentRanges::default(),
            named_modules: FxHashMap::default(),
            named_flags: Vec::new(),
            nameable: Vec::new(),
            module_frames: Vec::new(),
            name_buf: String::new(),
            module_group: Vec::new(),
            file_groups: Vec::new(),
            file_group_of: FxHashMap::default(),
            big_group_names: FxHashMap::default(),
            threads: FxHashMap::default(),
            frames: ProbeTable::default(),
            frame_spans: Vec::new(),
            frame_runs: Vec::new(),
            truncated_frame: None,
            entries: Vec::new(),
            part_stacks: None,
        }
    }

    /// Adds an event (one per attr); samples refer to it.
    pub fn add_event(&mut self, name: &str) -> Result<EventIndex, CapacityError> {
        self.profile.add_event(name)
    }

    /// MMAP / MMAP2: `pid` `u32::MAX` (perf's -1) or a `[kernel.kallsyms]…`/kernel-module name
    /// maps into the kernel address space. For the kernel map the resolver's kallsyms is relocated
    /// with the map's pgoff. Anonymous executable memory is named `/tmp/perf-PID.map` as perf does.
    pub fn mmap(
        &mut self,
        pid: u32,
        start: u64,
        len: u64,
        pgoff: u64,
        filename: &str,
        build_id: Option<&[u8]>,
    ) -> Result<(), CapacityError> {
        let kernel = pid == u32::MAX || crate::symbols::resolver::is_kernel_module_path(filename);
        let end = start.saturating_add(len);
        if kernel {
            let path = if filename.starts_with("[kernel.kallsyms]") {
                "[kernel.kallsyms]"
            } else {
                filename
            };
            let module = self.profile.intern_module(path, build_id)?;
            if filename.starts_with("[kernel.kallsyms]") {
                self.kernel_module = Some(module);
                if let Some(r) = self.resolver.as_mut() {
                    r.set_kernel_map(filename, pgoff);
                }
            }
            self.kernel.insert(Mapping {
                start,
                end,
                pgoff,
                module,
                identity: true,
            });
            self.kernel_generation += 1;
            return Ok(());
        }
        let (path, identity) = if is_anon_exec(filename) {
            (format!("/tmp/perf-{pid}.map"), true)
        } else {
            (filename.to_owned(), false)
        };
        let module = self.profile.intern_module(&path, build_id)?;
        self.processes
            .entry(pid)
            .or_default()
            .space
            .insert(Mapping {
                start,
                end,
                pgoff,
                module,
                identity,
            });
        self.bump_generation(pid);
        Ok(())
    }

    fn bump_generation(&mut self, pid: u32) {
        self.next_generation += 1;
        self.processes.entry(pid).or_default().generation = self.next_generation;
    }

    /// KSYMBOL (register): kernel code at `[addr, addr + len)` named `name` (a BPF program or
    /// other kernel JIT code), as perf's `machine__process_ksymbol_register` adds it.
    pub fn ksymbol(&mut self, addr: u64, len: u64, name: &str) -> Result<(), CapacityError> {
        let module = self.profile.intern_module(name, None)?;
        self.named_modules.insert(module, name.to_owned());
        if self.named_flags.len() <= module.index() {
            self.named_flags.resize(module.index() + 1, false);
        }
        if let Some(f) = self.named_flags.get_mut(module.index()) {
            *f = true;
        }
        self.kernel.insert(Mapping {
            start: addr,
            end: addr.saturating_add(len),
            pgoff: 0,
            module,
            identity: true,
        });
        self.kernel_generation += 1;
        Ok(())
    }

    /// The mappings of a process, if it has any.
    pub fn address_space(&self, pid: u32) -> Option<&AddressSpace> {
        self.processes
            .get(&pid)
            .filter(|p| p.generation != 0)
            .map(|p| &p.space)
    }

    /// Unwinds a DWARF-mode sample's user stack (registers and stack copy) with the binaries
    /// the resolver finds for the process's mappings; appends the user frames, leaf first, as
    /// addresses to symbolize, to `out`.
    pub fn unwind_user(
        &mut self,
        unwinder: &mut UserUnwinder,
        pid: u32,
        regs: &dyn UserRegs,
        stack: &[u8],
        little_endian: bool,
        out: &mut Vec<u64>,
    ) -> UnwindOutcome {
        let empty = Process::default();
        let Process {
            space, generation, ..
        } = self.processes.get(&pid).unwrap_or(&empty);
        let generation = *generation;
        let profile = &self.profile;
        let resolver = &mut self.resolver;
        let mut load = |m: ModuleIndex| -> Option<crate::symbols::resolver::ElfBytes> {
            let module = profile.modules.get(m)?;
            let path = profile.strings.get(module.path);
            resolver.as_mut()?.elf_bytes(ModuleRef {
                path,
                build_id: module.build_id.as_deref(),
            })
        };
        unwinder.unwind(
            pid,
            generation,
            space,
            &mut load,
            regs,
            stack,
            little_endian,
            out,
        )
    }

    /// Sets the profile thread of (pid, tid), keeping its stack memory.
    fn set_thread(&mut self, pid: u32, tid: u32, index: ThreadIndex) {
        match self.threads.get_mut(&(pid, tid)) {
            Some(state) => state.index = index,
            None => {
                self.threads.insert(
                    (pid, tid),
                    ThreadState {
                        index,
                        last: RecentStacks::default(),
                    },
                );
            }
        }
    }

    /// COMM: the thread's command name from now on (samples before keep the old name).
    pub fn comm(&mut self, pid: u32, tid: u32, name: &str) -> Result<(), CapacityError> {
        if let Some(state) = self.threads.get(&(pid, tid)) {
            if self.profile.thread_name(state.index) == name {
                return Ok(());
            }
        }
        let t = self.profile.add_thread(pid, tid, name)?;
        self.set_thread(pid, tid, t);
        Ok(())
    }

    /// FORK: the child takes the parent's name and, when it is a new process, a copy of the
    /// parent's address space.
    pub fn fork(&mut self, ppid: u32, ptid: u32, pid: u32, tid: u32) -> Result<(), CapacityError> {
        let name = self
            .threads
            .get(&(ppid, ptid))
            .map(|t| self.profile.thread_name(t.index).to_owned());
        if let Some(name) = name {
            let t = self.profile.add_thread(pid, tid, &name)?;
            self.set_thread(pid, tid, t);
        }
        if pid != ppid {
            let parent = self.processes.get(&ppid).filter(|p| p.generation != 0);
            if let Some(space) = parent.map(|p| p.space.clone()) {
                self.processes.entry(pid).or_default().space = space;
                self.bump_generation(pid);
            }
        }
        Ok(())
    }

    /// Whether a name may be found for an address of `module`: it has a name of its own, or
    /// the resolver may name its addresses (asked once per module).
    fn module_nameable(&mut self, module: ModuleIndex) -> bool {
        if self
            .named_flags
            .get(module.index())
            .copied()
            .unwrap_or(false)
        {
            return true;
        }
        if let Some(&Some(can)) = self.nameable.get(module.index()) {
            return can;
        }
        let can = match (self.resolver.as_mut(), self.profile.modules.get(module)) {
            (Some(r), Some(m)) if self.symbolize => r.can_name(ModuleRef {
                path: self.profile.strings.get(m.path),
                build_id: m.build_id.as_deref(),
            }),
            _ => false,
        };
        if self.nameable.len() <= module.index() {
            self.nameable.resize(module.index() + 1, None);
        }
        if let Some(v) = self.nameable.get_mut(module.index()) {
            *v = Some(can);
        }
        can
    }

    /// Where `addr` is: its mapping in `space` (the sample's process) or the kernel's, its
    /// module and file-relative address, and whether a name may be found for it.
    fn locate(&self, space: Option<&AddressSpace>, addr: u64, mode: CpuMode) -> Located {
        let (mapping, range) = match (mode, space) {
            (CpuMode::Kernel, _) => self.kernel.find_range(addr),
            (CpuMode::User, Some(s)) => s.find_range(addr),
            (CpuMode::User, None) => (None, (0, u64::MAX)),
        };
        let mapping = mapping.copied();
        let (module, rel) = match (mapping, mode) {
            (Some(m), _) => (Some(m.module), m.map_ip(addr)),
            (None, CpuMode::Kernel) => (self.kernel_module, addr),
            (None, CpuMode::User) => (None, addr),
        };
        let named =
            module.is_some_and(|m| self.named_flags.get(m.index()).copied().unwrap_or(false));
        let may_have_name =
            named || (self.symbolize && self.resolver.is_some() && module.is_some());
        Located {
            range,
            module,
            rel,
            may_have_name,
        }
    }

    /// The frames of an address found at `at` (root first, several when inlined calls are
    /// expanded) as a range of `frame_runs`.
    fn frame_run(&mut self, at: Located, expand: bool) -> Result<FrameRun, CapacityError> {
        let Located {
            module,
            rel,
            may_have_name,
            ..
        } = at;
        // Without a name to look up, inline expansion changes nothing: one frame per address.
        let key = frame_key(module, rel, expand && may_have_name)
            .ok_or(CapacityError { table: "module" })?;
        let found = self
            .frames
            .find(frame_hash(key), |s| (s.rel, s.module) == key);
        if let Some(FrameSlot { value, .. }) = found {
            return Ok(FrameRun::from_cached(value, &self.frame_spans));
        }
        let module_entry = module.and_then(|m| self.profile.modules.get(m));
        let named = module.and_then(|m| self.named_modules.get(&m));
        let found = match (module_entry, self.resolver.as_mut(), named) {
            (_, _, Some(name)) => Some(Symbolized {
                name: name.clone(),
                offset: 0,
                #[cfg(feature = "dwarf")]
                inlined: Vec::new(),
                #[cfg(feature = "dwarf")]
                dwarf_name: None,
            }),
            (Some(m), Some(r), None) if self.symbolize => r.lookup(
                ModuleRef {
                    path: self.profile.strings.get(m.path),
                    build_id: m.build_id.as_deref(),
                },
                rel,
            ),
            _ => None,
        };
        let start = self.frame_runs.len();
        match found {
            Some(s) => {
                // Expanded like perf's `append_inlines`: every name from DWARF, the real
                // function's included, when DWARF has a line for the address.
                #[cfg(feature = "dwarf")]
                let outer = match (&s.dwarf_name, expand) {
                    (Some(n), true) => n.as_str(),
                    _ => s.name.as_str(),
                };
                #[cfg(not(feature = "dwarf"))]
                let outer = s.name.as_str();
                let func = self.profile.intern_func(outer, module)?;
                self.frame_runs
                    .push(self.profile.intern_frame(func, module, rel, 0)?);
                #[cfg(feature = "dwarf")]
                for (depth, inl) in s.inlined.iter().rev().enumerate().filter(|_| expand) {
                    let name = inl.function.as_deref().unwrap_or("??");
                    let func = self.profile.intern_func(name, module)?;
                    let depth = u16::try_from(depth + 1).unwrap_or(u16::MAX);
                    self.frame_runs
                        .push(self.profile.intern_frame(func, module, rel, depth)?);
                }
            }
            // One frame per module: the address is not kept.
            None if self.unknown_names == UnknownNames::Module => {
                let frame = self.module_frame(module)?;
                self.frame_runs.push(frame);
            }
            None => {
                use std::fmt::Write as _;
                let name = &mut self.name_buf;
                name.clear();
                let path = module
                    .and_then(|m| self.profile.modules.get(m))
                    .map(|m| self.profile.strings.get(m.path));
                // Writing to a String cannot fail.
                let _ = match (self.unknown_names, path) {
                    (UnknownNames::ModuleOffset, Some(p)) => {
                        write!(name, "{}+0x{rel:x}", module_file_name(p))
                    }
                    (UnknownNames::ModuleOffset, None) => write!(name, "0x{rel:x}"),
                    // (`Module` is made above.)
                    (UnknownNames::Unknown | UnknownNames::Module, _) => write!(name, "[unknown]"),
                };
                // Made once per (module, address) here: `module+0xoffset` names one frame and
                // one function, so the tables need not look them up.
                let func = match self.unknown_names {
                    UnknownNames::ModuleOffset if !may_have_name => {
                        let name = self.offset_name(module, rel)?;
                        self.profile.funcs.push_new(Func { name, module })?
                    }
                    _ => self.profile.intern_func(name, module)?,
                };
                let frame = Frame {
                    func,
                    module,
                    address: rel,
                    inline_depth: 0,
                };
                self.frame_runs.push(if may_have_name {
                    self.profile.frames.intern(frame)?
                } else {
                    self.profile.frames.push_new(frame)?
                });
            }
        }
        let len = self.frame_runs.len() - start;
        let too_many = CapacityError { table: "frame run" };
        let value = match (len, self.frame_runs.get(start)) {
            // One frame (the usual case): kept in the cache itself.
            (1, Some(f)) => {
                let f = f.0;
                self.frame_runs.truncate(start);
                Some(f).filter(|f| f & MANY_FRAMES == 0).ok_or(too_many)?
            }
            _ => {
                let span = (
                    u32::try_from(start).map_err(|_| too_many)?,
                    u32::try_from(len).map_err(|_| too_many)?,
                );
                let i = u32::try_from(self.frame_spans.len())
                    .ok()
                    .filter(|i| i & MANY_FRAMES == 0)
                    .ok_or(too_many)?;
                self.frame_spans.push(span);
                i | MANY_FRAMES
            }
        };
        // (`u32::MAX` would read as a free slot.)
        if value == u32::MAX {
            return Err(too_many);
        }
        let slot = FrameSlot {
            rel: key.0,
            module: key.1,
            value,
        };
        self.frames
            .insert(frame_hash(key), slot, |s| frame_hash((s.rel, s.module)));
        Ok(FrameRun::from_cached(value, &self.frame_spans))
    }

    /// The one frame of `module`'s addresses without a symbol (`UnknownNames::Module`), made
    /// at its first use.
    fn module_frame(&mut self, module: Option<ModuleIndex>) -> Result<FrameIndex, CapacityError> {
        let slot = module.map_or(0, |m| m.index() + 1);
        if let Some(&f) = self.module_frames.get(slot).filter(|f| f.0 != u32::MAX) {
            return Ok(f);
        }
        let name = match module.and_then(|m| self.profile.modules.get(m)) {
            Some(m) => module_name(self.profile.strings.get(m.path)),
            None => "[unknown]".to_owned(),
        };
        let func = self.profile.intern_func(&name, module)?;
        let frame = self.profile.intern_frame(func, module, 0, 0)?;
        if self.module_frames.len() <= slot {
            self.module_frames.resize(slot + 1, FrameIndex(u32::MAX));
        }
        if let Some(f) = self.module_frames.get_mut(slot) {
            *f = frame;
        }
        Ok(frame)
    }

    /// The string of the offset name in `name_buf` of a new frame of `module` at `rel`, made
    /// once per (module, offset) without symbols (`UnknownNames::ModuleOffset`).
    ///
    /// Such names go into the string table without a lookup in its index
    /// ([`StringTable::push_distinct`]), as they are distinct: except where modules share a
    /// file name (`build-script-build` in many directories, a library rebuilt with another
    /// build id). Those modules' names are looked for among the frames the others made at the
    /// same offset; past [`FILE_GROUP_PROBES`] such modules, in a map of the group's names by
    /// offset.
    ///
    /// [`StringTable::push_distinct`]: crate::string_table::StringTable::push_distinct
    fn offset_name(
        &mut self,
        module: Option<ModuleIndex>,
        rel: u64,
    ) -> Result<StringIndex, CapacityError> {
        let Some(m) = module else {
            // `0xoffset`: one per offset.
            return self.profile.strings.push_distinct(&self.name_buf);
        };
        let group = match self.module_group.get(m.index()).copied().unwrap_or(0) {
            0 => self.join_file_group(m),
            g => g as usize - 1,
        };
        let members = self.file_groups.get(group).map_or(&[][..], Vec::as_slice);
        if members.len() > FILE_GROUP_PROBES {
            let key = (group as u32, rel);
            if let Some(&name) = self.big_group_names.get(&key) {
                return Ok(name);
            }
            let name = self.profile.strings.push_distinct(&self.name_buf)?;
            self.big_group_names.insert(key, name);
            return Ok(name);
        }
        for &other in members.iter().filter(|&&o| o != m) {
            let Some(key) = frame_key(Some(other), rel, false) else {
                continue;
            };
            let found = self
                .frames
                .find(frame_hash(key), |s| (s.rel, s.module) == key)
                .map(|s| s.value)
                .filter(|v| v & MANY_FRAMES == 0)
                .and_then(|f| self.profile.frames.get(FrameIndex(f)))
                .and_then(|f| self.profile.funcs.get(f.func))
                .map(|f| f.name)
                .filter(|&n| self.profile.strings.get(n) == self.name_buf);
            if let Some(name) = found {
                return Ok(name);
            }
        }
        self.profile.strings.push_distinct(&self.name_buf)
    }

    /// Puts module `m` in the group of its file name, returns the group's index.
    fn join_file_group(&mut self, m: ModuleIndex) -> usize {
        let path = self
            .profile
            .modules
            .get(m)
            .map_or("", |e| self.profile.strings.get(e.path));
        let file = module_file_name(path);
        let group = match self.file_group_of.get(file) {
            Some(&g) => g as usize,
            None => {
                let g = self.file_groups.len();
                self.file_group_of.insert(file.to_owned(), g as u32);
                self.file_groups.push(Vec::new());
                g
            }
        };
        let mut size = 0;
        if let Some(members) = self.file_groups.get_mut(group) {
            members.push(m);
            size = members.len();
        }
        if self.module_group.len() <= m.index() {
            self.module_group.resize(m.index() + 1, 0);
        }
        if let Some(slot) = self.module_group.get_mut(m.index()) {
            *slot = group as u32 + 1;
        }
        if size == FILE_GROUP_PROBES + 1 {
            // From now on the group's names are found in the map: it takes those made so far
            // (one pass over the frames, once per group that grows this big).
            for f in 0..self.profile.frames.len() {
                let Some(frame) = self.profile.frames.get(FrameIndex(f as u32)) else {
                    continue;
                };
                let in_group = frame.module.is_some_and(|fm| {
                    self.module_group.get(fm.index()).copied() == Some(group as u32 + 1)
                });
                if let (true, Some(func)) = (in_group, self.profile.funcs.get(frame.func)) {
                    self.big_group_names
                        .entry((group as u32, frame.address))
                        .or_insert(func.name);
                }
            }
        }
        group
    }

    /// SAMPLE: symbolizes the callchain (or the ip when there is none) and appends the sample.
    pub fn sample(&mut self, s: &SampleInput<'_>) -> Result<(), CapacityError> {
        self.sample_with(s, StackExtras::default())
    }

    /// [`ProfileBuilder::sample`] with what the records alone do not say: which callchain
    /// entries were unwound from a DWARF-mode stack copy, and whether the stack is cut short.
    pub fn sample_with(
        &mut self,
        s: &SampleInput<'_>,
        extras: StackExtras,
    ) -> Result<(), CapacityError> {
        // The threads' map is taken out while the sample is read (interning needs `&mut
        // self`), not the thread's state: no removal and insertion per sample.
        let mut threads = std::mem::take(&mut self.threads);
        let result = self.sample_in(&mut threads, s, extras);
        self.threads = threads;
        result
    }

    /// A sample whose stack another builder makes (see [`crate::load::StackShare`]):
    /// appended with `stack` standing in for it, its thread found or added as
    /// [`ProfileBuilder::sample`] does; its callchain is not read.
    pub fn sample_deferred(
        &mut self,
        s: &SampleInput<'_>,
        stack: crate::ids::StackIndex,
    ) -> Result<(), CapacityError> {
        let thread = thread_state(&mut self.threads, &mut self.profile, s.pid, s.tid)?.index;
        self.profile.push_sample(Sample {
            time: s.time,
            thread,
            cpu: s.cpu,
            event: s.event,
            stack: Some(stack),
            period: s.period,
        })
    }

    /// From now on, [`ProfileBuilder::sample`] keeps only each sample's stack, for
    /// [`ProfileBuilder::take_part_stacks`]; the profile gets no samples (a builder that makes
    /// the stacks of another one's samples: [`crate::load::StackShare::From`]).
    pub fn keep_stacks_only(&mut self) {
        self.part_stacks.get_or_insert_with(Default::default);
    }

    /// The stacks kept since [`ProfileBuilder::keep_stacks_only`], in sample order
    /// (`u32::MAX`: none).
    pub fn take_part_stacks(&mut self) -> crate::load::SampleStacks {
        self.part_stacks.take().unwrap_or_default()
    }

    /// [`ProfileBuilder::sample_with`] of a sample (its `callchain`, `ip` and `ip_mode` unread)
    /// whose stack's entries `fill` writes, root first, as [`chain::chain_entries`] makes them
    /// for a sample without [`StackExtras`] but without the [`chain::EXPAND`] bit: `fill` is
    /// given the list, empty, and the bits to add to each entry's kind (the records pass's
    /// other half makes the entries: [`crate::load::DeliveryWriter`]).
    pub(crate) fn sample_filled(
        &mut self,
        s: &SampleInput<'_>,
        fill: impl FnOnce(&mut Vec<ChainEntry>, u8),
    ) -> Result<(), CapacityError> {
        let bits = if self.inline_frames == InlineFrames::Always {
            chain::EXPAND
        } else {
            0
        };
        self.entries.clear();
        fill(&mut self.entries, bits);
        let mut threads = std::mem::take(&mut self.threads);
        let result = self.sample_entries(&mut threads, s);
        self.threads = threads;
        result
    }

    fn sample_in(
        &mut self,
        threads: &mut FxHashMap<(u32, u32), ThreadState>,
        s: &SampleInput<'_>,
        extras: StackExtras,
    ) -> Result<(), CapacityError> {
        let expand = Expand {
            all: self.inline_frames == InlineFrames::Always,
            unwound: self.inline_frames != InlineFrames::Never,
        };
        chain_entries(
            s.callchain.iter().copied(),
            s.ip,
            s.ip_mode,
            extras,
            expand,
            &mut self.entries,
        );
        self.sample_entries(threads, s)
    }

    /// A sample whose stack's entries are in `self.entries`.
    fn sample_entries(
        &mut self,
        threads: &mut FxHashMap<(u32, u32), ThreadState>,
        s: &SampleInput<'_>,
    ) -> Result<(), CapacityError> {
        let state = thread_state(threads, &mut self.profile, s.pid, s.tid)?;
        let thread = state.index;
        // The root part shared with the thread's previous stack is interned already. The
        // processes' map is taken out while the stack is interned (that needs `&mut self`).
        let mut processes = std::mem::take(&mut self.processes);
        let process = processes.entry(s.pid).or_default();
        let generations = (process.generation, self.kernel_generation);
        let entries = std::mem::take(&mut self.entries);
        let reused = state.last.pick(generations, &entries);
        let added = match entries.get(reused..) {
            Some(rest) if !rest.is_empty() => {
                self.add_entries(s.pid, process, rest, &mut state.last.current)
            }
            _ => Ok(()),
        };
        self.processes = processes;
        self.entries = entries;
        let stack = state.last.current.top();
        added?;
        if let Some(part) = self.part_stacks.as_mut() {
            part.push(stack.map_or(u32::MAX, |s| s.0));
            return Ok(());
        }
        self.profile.push_sample(Sample {
            time: s.time,
            thread,
            cpu: s.cpu,
            event: s.event,
            stack,
            period: s.period,
        })
    }

    /// Interns `entries` (root first) on top of `last`, recording each node in it, for the
    /// sample of `process` (its pid `pid`).
    fn add_entries(
        &mut self,
        pid: u32,
        process: &mut Process,
        entries: &[ChainEntry],
        last: &mut LastStack,
    ) -> Result<(), CapacityError> {
        // The ranges met by the samples before hold while their address spaces are unchanged.
        // (Each is changed in place, not copied out and back: ~80 bytes each, for every
        // sample.)
        for (r, key) in [
            (&mut self.kernel_ranges, (u32::MAX, self.kernel_generation)),
            (&mut process.ranges, (pid, process.generation)),
        ] {
            if r.valid_for != key {
                *r = RecentRanges {
                    valid_for: key,
                    ..RecentRanges::default()
                };
            }
        }
        let space = (process.generation != 0).then_some(&process.space);
        self.add_entries_in(space, entries, last, &mut process.ranges)
    }

    /// [`ProfileBuilder::add_entries`] with the user addresses' recent ranges `user` (the
    /// kernel's are `self.kernel_ranges`).
    fn add_entries_in(
        &mut self,
        space: Option<&AddressSpace>,
        entries: &[ChainEntry],
        last: &mut LastStack,
        user: &mut RecentRanges,
    ) -> Result<(), CapacityError> {
        let mut stack = last.top();
        // One frame per module: most frames are in a range met just before (deep kernel
        // paths, an interpreter, addresses outside any mapping), so they skip the search of
        // the mappings.
        let by_module = self.unknown_names == UnknownNames::Module;
        for &e in entries {
            let run = if e.kind & TRUNCATED_ROOT != 0 {
                FrameRun::One(match self.truncated_frame {
                    Some(f) => f,
                    None => {
                        let func = self.profile.intern_func(TRUNCATED_FRAME, None)?;
                        let f = self.profile.intern_frame(func, None, 0, 0)?;
                        *self.truncated_frame.insert(f)
                    }
                })
            } else {
                let is_user = e.mode() == CpuMode::User;
                let recent = if is_user { &*user } else { &self.kernel_ranges };
                match recent.find(e.addr) {
                    Some(frame) => FrameRun::One(frame),
                    None => {
                        let mut at = self.locate(space, e.addr, e.mode());
                        // A module the resolver knows nothing of (a binary not dropped) has
                        // one frame, as without a resolver: no lookup per address.
                        if let (true, true, Some(m)) = (by_module, at.may_have_name, at.module) {
                            at.may_have_name = self.module_nameable(m);
                        }
                        if by_module && !at.may_have_name {
                            let frame = self.module_frame(at.module)?;
                            let recent = if is_user {
                                &mut *user
                            } else {
                                &mut self.kernel_ranges
                            };
                            recent.add(at.range, frame);
                            FrameRun::One(frame)
                        } else {
                            self.frame_run(at, e.kind & chain::EXPAND != 0)?
                        }
                    }
                }
            };
            match run {
                FrameRun::One(frame) => stack = Some(self.profile.stacks.intern(stack, frame)?),
                FrameRun::Many(start, len) => {
                    for i in start..start + len {
                        if let Some(&frame) = self.frame_runs.get(i) {
                            stack = Some(self.profile.stacks.intern(stack, frame)?);
                        }
                    }
                }
            }
            last.entries.push(e);
            last.nodes.push(stack);
        }
        Ok(())
    }

    /// The profile so far.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The finished profile (see [`Profile::shrink`] to free what only building needs).
    pub fn finish(self) -> Profile {
        self.profile
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples taken as their stacks' entries made apart ([`plain_entries`], then
    /// [`ProfileBuilder::sample_filled`], as the records pass's two halves take them) leave each
    /// thread the same stacks, entry for entry (the kinds with their inline bit), and make the
    /// same profile as the samples taken with their callchains, at every inline setting.
    #[test]
    fn entries_made_apart_are_the_callchains_entries() {
        let kernel = |a: u64| 0xffff_ffff_8100_0000 + a;
        let chains: [&[u64]; 5] = [
            &[],
            &[
                PERF_CONTEXT_KERNEL,
                kernel(0x10),
                kernel(0x20),
                PERF_CONTEXT_USER,
                0x40_1000,
                0x40_2000,
            ],
            &[PERF_CONTEXT_USER, 0x40_1010, 0x40_2000],
            // Not a marker perf defines: the chain is dropped.
            &[PERF_CONTEXT_USER, 0x40_1010, u64::MAX - 100],
            &[kernel(0x30), PERF_CONTEXT_USER, 0x40_1000, 0x40_2000],
        ];
        for inline in [
            InlineFrames::Never,
            InlineFrames::Unwound,
            InlineFrames::Always,
        ] {
            let mut whole = ProfileBuilder::new(None);
            let mut apart = ProfileBuilder::new(None);
            whole.inline_frames = inline;
            apart.inline_frames = inline;
            let event = whole.add_event("cpu-clock").unwrap();
            assert_eq!(apart.add_event("cpu-clock").unwrap(), event);
            for (k, chain) in chains.iter().chain(chains.iter().rev()).enumerate() {
                let s = SampleInput {
                    pid: 7,
                    tid: 7 + (k as u32 % 2),
                    time: k as u64,
                    cpu: 0,
                    event,
                    period: 1,
                    ip: if k % 3 == 0 { kernel(0x40) } else { 0x40_3000 },
                    ip_mode: if k % 3 == 0 {
                        CpuMode::Kernel
                    } else {
                        CpuMode::User
                    },
                    callchain: chain,
                };
                whole.sample_with(&s, StackExtras::default()).unwrap();
                apart
                    .sample_filled(&s, |out, bits| {
                        plain_entries(chain.iter().copied(), s.ip, s.ip_mode, out);
                        for e in out.iter_mut() {
                            e.kind |= bits;
                        }
                    })
                    .unwrap();
                for (key, state) in &whole.threads {
                    let other = apart.threads.get(key).expect("the same threads");
                    assert_eq!(
                        state.last.current.entries, other.last.current.entries,
                        "{inline:?}, sample {k}"
                    );
                }
            }
            assert_eq!(
                format!("{:?}", whole.profile),
                format!("{:?}", apart.profile),
                "{inline:?}"
            );
        }
    }
}
