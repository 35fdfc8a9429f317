//! [`ProfileBuilder`]: turns the events of a recording (MMAP, COMM, FORK, SAMPLE with its
//! callchain) into a [`Profile`] with symbolized, interned stacks. Feed events in time order.
//!
//! Callchains are leaf first, as the kernel writes them, with context markers
//! (`PERF_CONTEXT_KERNEL`, `_USER`, ...; any value ≥ `PERF_CONTEXT_MAX`) that set whether the
//! following addresses are kernel or user addresses. A `PERF_CONTEXT_USER_DEFERRED` marker is
//! followed by a cookie, which is skipped. Any other value ≥ `PERF_CONTEXT_MAX` means a
//! corrupted callchain, which is dropped whole, as perf drops it.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::ids::{CapacityError, EventIndex, FrameIndex, ModuleIndex, ThreadIndex};
use crate::maps::{AddressSpace, Mapping};
use crate::profile::Profile;
use crate::samples::Sample;
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
        StackExtras { unwound_from: usize::MAX, truncated: false }
    }
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

/// How frames without a symbol are named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnknownNames {
    /// `[unknown]`, as perf script and its collapsers print them (all unknown frames of a module
    /// merge into one function).
    #[default]
    Unknown,
    /// `module+0xoffset` (file-relative), so call trees merge them by module and offset.
    ModuleOffset,
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
    processes: FxHashMap<u32, AddressSpace>,
    /// A number that changes whenever a process's mappings change (for unwinder caches).
    generations: HashMap<u32, u64>,
    next_generation: u64,
    /// Modules that name their only function (KSYMBOL: BPF programs, JIT code in the kernel).
    named_modules: HashMap<ModuleIndex, String>,
    threads: FxHashMap<(u32, u32), ThreadIndex>,
    frames: FxHashMap<(Option<ModuleIndex>, u64, bool), Vec<FrameIndex>>,
    scratch: Vec<FrameIndex>,
}

fn is_anon_exec(filename: &str) -> bool {
    filename.starts_with("//anon") || filename.starts_with("[anon") || filename.starts_with("/memfd:") || filename.starts_with("/tmp/perf-")
}

impl ProfileBuilder {
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
            generations: HashMap::new(),
            next_generation: 0,
            named_modules: HashMap::new(),
            threads: FxHashMap::default(),
            frames: FxHashMap::default(),
            scratch: Vec::new(),
        }
    }

    /// Adds an event (one per attr); samples refer to it.
    pub fn add_event(&mut self, name: &str) -> Result<EventIndex, CapacityError> {
        self.profile.add_event(name)
    }

    /// MMAP / MMAP2: `pid` `u32::MAX` (perf's -1) or a `[kernel.kallsyms]…`/kernel-module name
    /// maps into the kernel address space. For the kernel map the resolver's kallsyms is relocated
    /// with the map's pgoff. Anonymous executable memory is named `/tmp/perf-PID.map` as perf does.
    pub fn mmap(&mut self, pid: u32, start: u64, len: u64, pgoff: u64, filename: &str, build_id: Option<&[u8]>) -> Result<(), CapacityError> {
        let kernel = pid == u32::MAX || crate::symbols::resolver::is_kernel_module_path(filename);
        let end = start.saturating_add(len);
        if kernel {
            let path = if filename.starts_with("[kernel.kallsyms]") { "[kernel.kallsyms]" } else { filename };
            let module = self.profile.intern_module(path, build_id)?;
            if filename.starts_with("[kernel.kallsyms]") {
                self.kernel_module = Some(module);
                if let Some(r) = self.resolver.as_mut() {
                    r.set_kernel_map(filename, pgoff);
                }
            }
            self.kernel.insert(Mapping { start, end, pgoff, module, identity: true });
            return Ok(());
        }
        let (path, identity) = if is_anon_exec(filename) { (format!("/tmp/perf-{pid}.map"), true) } else { (filename.to_owned(), false) };
        let module = self.profile.intern_module(&path, build_id)?;
        self.processes.entry(pid).or_default().insert(Mapping { start, end, pgoff, module, identity });
        self.bump_generation(pid);
        Ok(())
    }

    fn bump_generation(&mut self, pid: u32) {
        self.next_generation += 1;
        self.generations.insert(pid, self.next_generation);
    }

    /// KSYMBOL (register): kernel code at `[addr, addr + len)` named `name` (a BPF program or
    /// other kernel JIT code), as perf's `machine__process_ksymbol_register` adds it.
    pub fn ksymbol(&mut self, addr: u64, len: u64, name: &str) -> Result<(), CapacityError> {
        let module = self.profile.intern_module(name, None)?;
        self.named_modules.insert(module, name.to_owned());
        self.kernel.insert(Mapping { start: addr, end: addr.saturating_add(len), pgoff: 0, module, identity: true });
        Ok(())
    }

    /// The mappings of a process, if it has any.
    pub fn address_space(&self, pid: u32) -> Option<&AddressSpace> {
        self.processes.get(&pid)
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
        let empty = AddressSpace::default();
        let space = self.processes.get(&pid).unwrap_or(&empty);
        let generation = self.generations.get(&pid).copied().unwrap_or(0);
        let profile = &self.profile;
        let resolver = &mut self.resolver;
        let mut load = |m: ModuleIndex| -> Option<Vec<u8>> {
            let module = profile.modules.get(m)?;
            let path = profile.strings.get(module.path);
            resolver.as_mut()?.elf_bytes(ModuleRef { path, build_id: module.build_id.as_deref() })
        };
        unwinder.unwind(pid, generation, space, &mut load, regs, stack, little_endian, out)
    }

    fn thread(&mut self, pid: u32, tid: u32) -> Result<ThreadIndex, CapacityError> {
        if let Some(&t) = self.threads.get(&(pid, tid)) {
            return Ok(t);
        }
        let t = self.profile.add_thread(pid, tid, &format!(":{tid}"))?;
        self.threads.insert((pid, tid), t);
        Ok(t)
    }

    /// COMM: the thread's command name from now on (samples before keep the old name).
    pub fn comm(&mut self, pid: u32, tid: u32, name: &str) -> Result<(), CapacityError> {
        if let Some(&t) = self.threads.get(&(pid, tid)) {
            if self.profile.thread_name(t) == name {
                return Ok(());
            }
        }
        let t = self.profile.add_thread(pid, tid, name)?;
        self.threads.insert((pid, tid), t);
        Ok(())
    }

    /// FORK: the child takes the parent's name and, when it is a new process, a copy of the
    /// parent's address space.
    pub fn fork(&mut self, ppid: u32, ptid: u32, pid: u32, tid: u32) -> Result<(), CapacityError> {
        let name = self.threads.get(&(ppid, ptid)).map(|&t| self.profile.thread_name(t).to_owned());
        if let Some(name) = name {
            let t = self.profile.add_thread(pid, tid, &name)?;
            self.threads.insert((pid, tid), t);
        }
        if pid != ppid {
            if let Some(space) = self.processes.get(&ppid).cloned() {
                self.processes.insert(pid, space);
                self.bump_generation(pid);
            }
        }
        Ok(())
    }

    /// Appends the frames of `addr` (leaf first) to the scratch stack; `space` is the
    /// sample's process address space.
    fn frames_for(&mut self, space: Option<&AddressSpace>, addr: u64, mode: CpuMode, expand: bool) -> Result<(), CapacityError> {
        let mapping = match mode {
            CpuMode::Kernel => self.kernel.find(addr).copied(),
            CpuMode::User => space.and_then(|s| s.find(addr)).copied(),
        };
        let (module, rel) = match (mapping, mode) {
            (Some(m), _) => (Some(m.module), m.map_ip(addr)),
            (None, CpuMode::Kernel) => (self.kernel_module, addr),
            (None, CpuMode::User) => (None, addr),
        };
        if let Some(f) = self.frames.get(&(module, rel, expand)) {
            self.scratch.extend(f.iter().rev());
            return Ok(());
        }
        let path = module.and_then(|m| self.profile.modules.get(m)).map(|m| (self.profile.strings.get(m.path).to_owned(), m.build_id.clone()));
        let named = module.and_then(|m| self.named_modules.get(&m));
        let found = match (&path, self.resolver.as_mut(), named) {
            (_, _, Some(name)) => Some(Symbolized {
                name: name.clone(),
                offset: 0,
                #[cfg(feature = "dwarf")]
                inlined: Vec::new(),
                #[cfg(feature = "dwarf")]
                dwarf_name: None,
            }),
            (Some((p, id)), Some(r), None) if self.symbolize => r.lookup(ModuleRef { path: p, build_id: id.as_deref() }, rel),
            _ => None,
        };
        let mut root_first = Vec::new();
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
                root_first.push(self.profile.intern_frame(func, module, rel, 0)?);
                #[cfg(feature = "dwarf")]
                for (depth, inl) in s.inlined.iter().rev().enumerate().filter(|_| expand) {
                    let name = inl.function.as_deref().unwrap_or("??");
                    let func = self.profile.intern_func(name, module)?;
                    let depth = u16::try_from(depth + 1).unwrap_or(u16::MAX);
                    root_first.push(self.profile.intern_frame(func, module, rel, depth)?);
                }
            }
            None => {
                let name = match (self.unknown_names, &path) {
                    (UnknownNames::ModuleOffset, Some((p, _))) => {
                        format!("{}+0x{rel:x}", p.rsplit('/').next().unwrap_or(p))
                    }
                    (UnknownNames::ModuleOffset, None) => format!("0x{rel:x}"),
                    (UnknownNames::Unknown, _) => "[unknown]".to_owned(),
                };
                let func = self.profile.intern_func(&name, module)?;
                root_first.push(self.profile.intern_frame(func, module, rel, 0)?);
            }
        }
        self.scratch.extend(root_first.iter().rev());
        self.frames.insert((module, rel, expand), root_first);
        Ok(())
    }

    /// Fills the scratch stack (leaf first) from the callchain, or the ip when there is none.
    fn walk_callchain(&mut self, s: &SampleInput<'_>, space: Option<&AddressSpace>, extras: StackExtras) -> Result<(), CapacityError> {
        let expand_all = self.inline_frames == InlineFrames::Always;
        let expand_unwound = self.inline_frames != InlineFrames::Never;
        if s.callchain.is_empty() {
            return self.frames_for(space, s.ip, s.ip_mode, expand_all);
        }
        let mut mode = s.ip_mode;
        let mut iter = s.callchain.iter().copied().enumerate();
        while let Some((i, addr)) = iter.next() {
            // Unwound frames are addresses only (perf's libdw unwinder ends some stacks
            // with a `0 - 1` frame, which is not a context marker).
            if addr >= PERF_CONTEXT_MAX && i < extras.unwound_from {
                match addr {
                    PERF_CONTEXT_KERNEL | PERF_CONTEXT_HV | PERF_CONTEXT_GUEST_KERNEL => mode = CpuMode::Kernel,
                    PERF_CONTEXT_USER | PERF_CONTEXT_GUEST_USER | PERF_CONTEXT_GUEST => mode = CpuMode::User,
                    PERF_CONTEXT_USER_DEFERRED => {
                        mode = CpuMode::User;
                        let _cookie = iter.next();
                    }
                    _ => {
                        // perf's `add_callchain_ip`: "invalid callchain context", the
                        // callchain is corrupted: discard all of it (the kernel's user
                        // walk sometimes ends with -1).
                        self.scratch.clear();
                        return Ok(());
                    }
                }
                continue;
            }
            let expand = expand_all || (expand_unwound && i >= extras.unwound_from);
            self.frames_for(space, addr, mode, expand)?;
        }
        Ok(())
    }

    /// SAMPLE: symbolizes the callchain (or the ip when there is none) and appends the sample.
    pub fn sample(&mut self, s: &SampleInput<'_>) -> Result<(), CapacityError> {
        self.sample_with(s, StackExtras::default())
    }

    /// [`ProfileBuilder::sample`] with what the records alone do not say: which callchain
    /// entries were unwound from a DWARF-mode stack copy, and whether the stack is cut short.
    pub fn sample_with(&mut self, s: &SampleInput<'_>, extras: StackExtras) -> Result<(), CapacityError> {
        let thread = self.thread(s.pid, s.tid)?;
        self.scratch.clear();
        // Looked up once per sample (frames_for needs `&mut self` to intern).
        let space = self.processes.remove(&s.pid);
        let walked = self.walk_callchain(s, space.as_ref(), extras);
        if let Some(space) = space {
            self.processes.insert(s.pid, space);
        }
        walked?;
        let truncated = extras.truncated;
        // scratch is leaf first
        if truncated {
            let func = self.profile.intern_func(TRUNCATED_FRAME, None)?;
            self.scratch.push(self.profile.intern_frame(func, None, 0, 0)?);
        }
        let mut stack = None;
        for &f in self.scratch.iter().rev() {
            stack = Some(self.profile.stacks.intern(stack, f)?);
        }
        self.profile.push_sample(Sample { time: s.time, thread, cpu: s.cpu, event: s.event, stack, period: s.period })
    }

    /// The profile so far.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The finished profile.
    pub fn finish(self) -> Profile {
        self.profile
    }
}
