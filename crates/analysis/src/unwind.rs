//! DWARF-mode user stacks (`--call-graph dwarf`: PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER)
//! unwound offline with [`framehop`] from the registers and the stack bytes the kernel copied,
//! using the `.eh_frame` / `.debug_frame` of the binaries mapped in the process.
//!
//! Like perf (`tools/perf/util/unwind-libdw.c`), the first frame is the sampled user ip and
//! every later frame is a return address minus one (the call instruction), and stack reads are
//! limited to the copied bytes. x86_64 and aarch64 are supported (framehop's architectures);
//! other architectures (s390x, ...) give the leaf frame only.

use std::collections::HashMap;
use std::sync::Arc;

use framehop::aarch64::{CacheAarch64, UnwindRegsAarch64, UnwinderAarch64};
use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{Error as FrameError, ExplicitModuleSectionInfo, FrameAddress, Module, Unwinder};
use object::{Object, ObjectSection, ObjectSegment};

use crate::ids::ModuleIndex;
use crate::maps::AddressSpace;
use crate::symbols::resolver::ElfBytes;

/// The CPU architecture of the recording (`HEADER_ARCH`, `uname -m`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// `x86_64`: perf registers AX..R15, IP = 8, SP = 7, BP = 6.
    X86_64,
    /// `aarch64` / `arm64`: X0..X28, FP = 29, LR = 30, SP = 31, PC = 32.
    Aarch64,
    /// `s390x`: unwinding is not supported by framehop; the leaf frame (PC = 33) is kept.
    S390x,
    /// Anything else: no user frames.
    Other,
}

impl Arch {
    /// From the `HEADER_ARCH` string.
    pub fn from_uname(machine: &str) -> Arch {
        match machine {
            "x86_64" | "amd64" => Arch::X86_64,
            "aarch64" | "arm64" => Arch::Aarch64,
            "s390x" => Arch::S390x,
            _ => Arch::Other,
        }
    }

    /// perf's register numbers of the instruction and stack pointers.
    fn ip_sp_regs(self) -> Option<(u32, u32)> {
        match self {
            Arch::X86_64 => Some((8, 7)),
            Arch::Aarch64 => Some((32, 31)),
            Arch::S390x => Some((33, 15)),
            Arch::Other => None,
        }
    }
}

/// The user registers of a sample, as perf numbers them (`PERF_REG_X86_*`, `PERF_REG_ARM64_*`).
pub trait UserRegs {
    /// The value of register `reg`, if it was recorded.
    fn reg(&self, reg: u32) -> Option<u64>;
}

impl UserRegs for perfscope_format::records::Regs<'_> {
    fn reg(&self, reg: u32) -> Option<u64> {
        if self.abi == 0 {
            return None;
        }
        self.get(reg)
    }
}

/// How an unwind ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnwindOutcome {
    /// The stack was walked to its root (or to where the copied bytes end).
    Unwound,
    /// The leaf frame's code has no unwind information at hand (binary missing, JIT code, or an
    /// architecture framehop does not support): only the leaf frame is known.
    Truncated,
    /// No user registers (a kernel thread, or a sample the kernel could not take them for).
    NoRegisters,
}

/// The unwind sections of one ELF file, shared by every process that maps it.
struct ModuleUnwindInfo {
    sections: ExplicitModuleSectionInfo<Arc<[u8]>>,
    /// PT_LOAD segments: (p_offset, p_filesz, p_vaddr).
    segments: Vec<(u64, u64, u64)>,
}

impl ModuleUnwindInfo {
    fn parse(bytes: &[u8]) -> Option<ModuleUnwindInfo> {
        let file = object::File::parse(bytes).ok()?;
        let data = |name: &str| -> Option<Arc<[u8]>> {
            let s = file.section_by_name(name)?;
            s.data().ok().filter(|d| !d.is_empty()).map(Arc::from)
        };
        let range = |name: &str| {
            file.section_by_name(name)
                .map(|s| s.address()..s.address().saturating_add(s.size()))
        };
        let sections = ExplicitModuleSectionInfo {
            base_svma: 0,
            text_svma: range(".text"),
            text: data(".text"),
            got_svma: range(".got"),
            eh_frame_svma: range(".eh_frame"),
            eh_frame: data(".eh_frame"),
            eh_frame_hdr_svma: range(".eh_frame_hdr"),
            eh_frame_hdr: data(".eh_frame_hdr"),
            debug_frame: data(".debug_frame"),
            ..Default::default()
        };
        if sections.eh_frame.is_none() && sections.debug_frame.is_none() {
            return None;
        }
        let segments = file
            .segments()
            .map(|s| {
                let (offset, filesz) = s.file_range();
                (offset, filesz, s.address())
            })
            .collect();
        Some(ModuleUnwindInfo { sections, segments })
    }

    /// The load bias of a mapping of this file at `start` from file offset `pgoff`: the run-time
    /// address of ELF virtual address 0.
    fn bias(&self, start: u64, pgoff: u64) -> u64 {
        let vaddr = self
            .segments
            .iter()
            .find(|(off, size, _)| pgoff >= *off && pgoff - off < (*size).max(1))
            .map_or(pgoff, |(off, _, vaddr)| vaddr.wrapping_add(pgoff - off));
        start.wrapping_sub(vaddr)
    }
}

enum ArchUnwinder {
    X86_64(UnwinderX86_64<Arc<[u8]>>),
    Aarch64(UnwinderAarch64<Arc<[u8]>>),
}

struct ProcessUnwinder {
    generation: u64,
    unwinder: ArchUnwinder,
}

/// Unwinds user stacks, caching the unwind sections of each module and one framehop unwinder
/// per process (rebuilt when the process's mappings change).
pub struct UserUnwinder {
    arch: Arch,
    modules: HashMap<ModuleIndex, Option<Arc<ModuleUnwindInfo>>>,
    processes: HashMap<u32, ProcessUnwinder>,
    cache_x86_64: CacheX86_64,
    cache_aarch64: CacheAarch64,
}

impl UserUnwinder {
    /// An unwinder for recordings of `arch`.
    pub fn new(arch: Arch) -> Self {
        UserUnwinder {
            arch,
            modules: HashMap::new(),
            processes: HashMap::new(),
            cache_x86_64: CacheX86_64::new(),
            cache_aarch64: CacheAarch64::new(),
        }
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    fn module_info(
        &mut self,
        module: ModuleIndex,
        load: &mut dyn FnMut(ModuleIndex) -> Option<ElfBytes>,
    ) -> Option<Arc<ModuleUnwindInfo>> {
        self.modules
            .entry(module)
            .or_insert_with(|| {
                load(module)
                    .and_then(|b| ModuleUnwindInfo::parse(&b))
                    .map(Arc::new)
            })
            .clone()
    }

    fn process(
        &mut self,
        pid: u32,
        generation: u64,
        space: &AddressSpace,
        load: &mut dyn FnMut(ModuleIndex) -> Option<ElfBytes>,
    ) -> bool {
        if self
            .processes
            .get(&pid)
            .is_some_and(|p| p.generation == generation)
        {
            return true;
        }
        let mut unwinder = match self.arch {
            Arch::X86_64 => ArchUnwinder::X86_64(UnwinderX86_64::new()),
            Arch::Aarch64 => ArchUnwinder::Aarch64(UnwinderAarch64::new()),
            Arch::S390x | Arch::Other => return false,
        };
        for m in space.mappings() {
            if m.identity {
                continue;
            }
            let Some(info) = self.module_info(m.module, load) else {
                continue;
            };
            let module = Module::new(
                String::new(),
                m.start..m.end,
                info.bias(m.start, m.pgoff),
                info.sections.clone(),
            );
            match &mut unwinder {
                ArchUnwinder::X86_64(u) => u.add_module(module),
                ArchUnwinder::Aarch64(u) => u.add_module(module),
            }
        }
        self.processes.insert(
            pid,
            ProcessUnwinder {
                generation,
                unwinder,
            },
        );
        true
    }

    /// Unwinds one sample's user stack. `space` (whose contents change when `generation`
    /// changes) maps the process; `load` gives a module's ELF bytes. `stack` is the copied stack
    /// (its first byte is at the user sp), read in `little_endian` or big-endian order.
    /// Appends the frames, leaf first, as addresses to symbolize (return addresses minus one) to
    /// `out`.
    #[allow(clippy::too_many_arguments)]
    pub fn unwind(
        &mut self,
        pid: u32,
        generation: u64,
        space: &AddressSpace,
        load: &mut dyn FnMut(ModuleIndex) -> Option<ElfBytes>,
        regs: &dyn UserRegs,
        stack: &[u8],
        little_endian: bool,
        out: &mut Vec<u64>,
    ) -> UnwindOutcome {
        let Some((ip_reg, sp_reg)) = self.arch.ip_sp_regs() else {
            return UnwindOutcome::NoRegisters;
        };
        let (Some(ip), sp) = (regs.reg(ip_reg), regs.reg(sp_reg)) else {
            return UnwindOutcome::NoRegisters;
        };
        let leaf_known = space
            .find(ip)
            .is_some_and(|m| !m.identity && self.module_info(m.module, load).is_some());
        // Stack reads as perf's libunwind glue (`access_mem` in unwind-libunwind-local.c) makes
        // them: inside the copy, except its last word (`addr + 8 >= end` is refused); outside it,
        // an address in a recorded mapping ([stack], anonymous memory) reads as 0 (perf cannot
        // read it from a file and reports success with 0); anything else fails.
        let sp_for_read = sp.unwrap_or(0);
        let last_read = std::cell::Cell::new(None::<u64>);
        let mut read_stack = |addr: u64| -> Result<u64, ()> {
            let value = read_copied(stack, sp_for_read, addr, little_endian)
                .or_else(|| space.find(addr).map(|_| 0))
                .ok_or(())?;
            last_read.set(Some(value));
            Ok(value)
        };
        let (Some(sp), true) = (sp, self.process(pid, generation, space, load)) else {
            out.push(ip);
            return UnwindOutcome::Truncated;
        };
        let Some(p) = self.processes.get(&pid) else {
            out.push(ip);
            return UnwindOutcome::Truncated;
        };
        let before = out.len();
        // Like libdw, stop at a frame outside every module with unwind information (JIT code,
        // a missing binary) rather than guess on with frame pointers.
        let modules = &self.modules;
        let known = |addr: u64| {
            space
                .find(addr)
                .is_some_and(|m| !m.identity && modules.get(&m.module).is_some_and(Option::is_some))
        };
        let end = match &p.unwinder {
            ArchUnwinder::X86_64(u) => {
                let regs = UnwindRegsX86_64::new(ip, sp, regs.reg(6).unwrap_or(0));
                let mut it = u.iter_frames(ip, regs, &mut self.cache_x86_64, &mut read_stack);
                collect(|| it.next(), known, out)
            }
            ArchUnwinder::Aarch64(u) => {
                let regs = UnwindRegsAarch64::new(
                    regs.reg(30).unwrap_or(0),
                    sp,
                    regs.reg(29).unwrap_or(0),
                );
                let mut it = u.iter_frames(ip, regs, &mut self.cache_aarch64, &mut read_stack);
                collect(|| it.next(), known, out)
            }
        };
        if out.len() == before {
            out.push(ip);
        }
        if end == End::NullReturnAddress || (end == End::Root && last_read.get() == Some(0)) {
            // libunwind steps to a return address of 0 (perf then reports `0 - 1`,
            // `ffffffffffffffff [unknown]`) where framehop sees the end of the stack.
            out.push(u64::MAX);
        }
        if leaf_known {
            UnwindOutcome::Unwound
        } else {
            UnwindOutcome::Truncated
        }
    }
}

/// How a walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// At the root (or at the depth limit).
    Root,
    /// At a frame in code without unwind information.
    UnknownCode,
    /// A return address of 0.
    NullReturnAddress,
    /// Unwinding failed (a stack read out of the copied bytes and mappings, ...).
    Failed,
}

/// The `u64` at `addr` in the stack copy that starts at `sp`, its last word excluded as perf's
/// libunwind glue excludes it.
fn read_copied(stack: &[u8], sp: u64, addr: u64, little_endian: bool) -> Option<u64> {
    let off = usize::try_from(addr.checked_sub(sp)?).ok()?;
    let end = off.checked_add(8)?;
    if end >= stack.len() {
        return None;
    }
    let bytes: [u8; 8] = stack.get(off..end)?.try_into().ok()?;
    Some(if little_endian {
        u64::from_le_bytes(bytes)
    } else {
        u64::from_be_bytes(bytes)
    })
}

/// Collects frames until the iterator ends or reaches a frame that is not `known` code.
fn collect(
    mut next: impl FnMut() -> Result<Option<FrameAddress>, FrameError>,
    known: impl Fn(u64) -> bool,
    out: &mut Vec<u64>,
) -> End {
    // A corrupt stack cannot make this loop forever: framehop stops when sp does not advance,
    // and the depth is capped like perf's max-stack (127).
    for _ in 0..PERF_MAX_STACK_DEPTH {
        match next() {
            Ok(Some(f)) => {
                out.push(f.address_for_lookup());
                if !known(f.address()) {
                    return End::UnknownCode;
                }
            }
            Ok(None) => return End::Root,
            Err(FrameError::ReturnAddressIsNull) => return End::NullReturnAddress,
            Err(_) => return End::Failed,
        }
    }
    End::Root
}

/// perf's default `--max-stack` (`sysctl kernel.perf_event_max_stack`).
pub const PERF_MAX_STACK_DEPTH: usize = 127;
