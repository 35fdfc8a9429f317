//! [`SymbolResolver`]: given (module path, optional build id, file-relative address), picks the
//! source that knows the module and names the address, loading each module once.
//!
//! Which source serves a module:
//! - `[kernel.kallsyms]…` and kernel modules (`[name]` other than `[vdso]`-like specials):
//!   kallsyms, with the relocation set by [`SymbolResolver::set_kernel_map`]; addresses are
//!   run-time kernel addresses.
//! - `/tmp/perf-PID.map` (perf's name for anonymous executable memory of a JIT): the jitdump of
//!   that pid first, then its perf map; addresses are process addresses.
//! - anything else: an ELF file, found by build id first (files added with
//!   [`SymbolResolver::add_elf`] or from a perf archive, then the [`FileProvider`]), else by path.
//!   A file found by path whose build id differs from the recorded one is rejected, as perf does.

use std::collections::HashMap;
use std::sync::Arc;

use super::archive::PerfArchive;
use super::demangle::demangle;
use super::elf::{self, ElfSymbols};
use super::error::SymbolError;
use super::jitdump::JitDump;
use super::kallsyms::Kallsyms;
use super::perf_map::PerfMap;
use super::table::SymbolTable;

/// A module as the profile knows it: the mmap'd path and the build id recorded for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleRef<'a> {
    /// The path in the MMAP record (`/usr/lib/x86_64-linux-gnu/libc.so.6`, `[kernel.kallsyms]`,
    /// `/tmp/perf-1234.map`).
    pub path: &'a str,
    /// The build id recorded for it (HEADER_BUILD_ID or MMAP2 with build id), if any.
    pub build_id: Option<&'a [u8]>,
}

/// Reads files on demand (the CLI reads the local filesystem; the browser answers from dropped
/// files). Every method may return `None`.
pub trait FileProvider {
    /// The file at `path` as the recording machine named it (apply `--symfs` here).
    fn read_path(&mut self, path: &str) -> Option<Vec<u8>>;
    /// A separate debug file for a build id (`/usr/lib/debug/.build-id/xx/yyyy.debug`).
    fn read_debug(&mut self, build_id: &[u8]) -> Option<Vec<u8>> {
        let _ = build_id;
        None
    }
}

/// A name found for an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbolized {
    /// Demangled function name (the outermost, real function when inlining is expanded).
    pub name: String,
    /// Address minus the symbol start.
    pub offset: u64,
    /// Inlined calls at this address from DWARF, innermost first, *not* including the real
    /// function (empty without DWARF or when the address is not inside inlined code).
    #[cfg(feature = "dwarf")]
    pub inlined: Vec<super::dwarf::SourceFrame>,
    /// The real function's name as DWARF gives it (`__libc_start_main_impl` where the symbol
    /// table says `__libc_start_main@@GLIBC_2.34`), when DWARF has a source line for the
    /// address (what perf's `addr2line` needs before it reports inline frames).
    #[cfg(feature = "dwarf")]
    pub dwarf_name: Option<String>,
}

/// An ELF file's bytes, held once however many ways it is found (build id, path, base name)
/// and shared with the caller that handed them over (the page keeps a dropped file's bytes).
pub type ElfBytes = Arc<Vec<u8>>;

#[derive(Default)]
struct ElfFiles {
    elf: Option<ElfBytes>,
    debug: Option<ElfBytes>,
}

#[allow(clippy::large_enum_variant)] // one per module, in a HashMap
enum Loaded {
    Elf {
        syms: ElfSymbols,
        #[cfg(feature = "dwarf")]
        dwarf: Option<super::dwarf::DwarfContext>,
    },
    Missing,
}

/// Resolves (module, file-relative address) pairs to names, caching each module.
#[derive(Default)]
pub struct SymbolResolver {
    by_build_id: HashMap<Vec<u8>, ElfFiles>,
    by_path: HashMap<String, ElfBytes>,
    /// ELF files for every module path with their base name ([`SymbolResolver::add_elf_by_base_name`]),
    /// in the order added.
    by_base_name: Vec<(String, ElfBytes)>,
    kallsyms: Option<Kallsyms>,
    perf_maps: HashMap<u32, PerfMap>,
    jitdumps: HashMap<u32, SymbolTable>,
    provider: Option<Box<dyn FileProvider>>,
    cache: HashMap<(String, Option<Vec<u8>>), Loaded>,
    /// Expand inline frames from DWARF when present (feature `dwarf`).
    pub inline_frames: bool,
    /// Errors met while loading modules (module path, error), for the UI to show.
    pub diagnostics: Vec<(String, SymbolError)>,
}

/// Whether an ELF file has no program text (no symbols or no segments: a separate debug file).
fn has_no_text(bytes: &[u8]) -> bool {
    ElfSymbols::parse(bytes).is_ok_and(|s| s.table().is_empty() || s.segments().is_empty())
}

fn perf_map_pid(path: &str) -> Option<u32> {
    let file = path.rsplit('/').next()?;
    file.strip_prefix("perf-")?
        .strip_suffix(".map")?
        .parse()
        .ok()
}

/// Whether perf treats this map name as the kernel or a kernel module.
pub fn is_kernel_module_path(path: &str) -> bool {
    path.starts_with("[kernel.kallsyms]")
        || (path.starts_with('[')
            && path.ends_with(']')
            && !matches!(
                path,
                "[vdso]" | "[vsyscall]" | "[vvar]" | "[heap]" | "[stack]" | "[uprobes]"
            ))
        || path.ends_with(".ko")
        || path.ends_with(".ko.xz")
        || path.ends_with(".ko.zst")
}

impl SymbolResolver {
    /// A resolver with no sources.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets the resolver read files on demand.
    pub fn set_provider(&mut self, provider: Box<dyn FileProvider>) {
        self.provider = Some(provider);
        self.cache.retain(|_, l| !matches!(l, Loaded::Missing));
    }

    /// Adds an ELF file (executable, library, or a separate debug file). It is found by its build
    /// id, and by `path` when given. A file without program text (a debug file) is kept as the
    /// debug companion of its build id.
    pub fn add_elf(&mut self, path: Option<&str>, bytes: impl Into<ElfBytes>) {
        let bytes = bytes.into();
        let no_text = has_no_text(&bytes);
        self.add_elf_checked(path, bytes, no_text);
    }

    /// [`SymbolResolver::add_elf`] with `name`, and [`SymbolResolver::add_elf_by_base_name`]:
    /// an ELF file dropped on the page, found by build id, by its name and for every module path
    /// with that base name (the file read for symbols once).
    pub fn add_dropped_elf(&mut self, name: &str, bytes: impl Into<ElfBytes>) {
        let bytes = bytes.into();
        let no_text = has_no_text(&bytes);
        if !no_text {
            self.by_base_name.push((name.to_owned(), bytes.clone()));
        }
        self.add_elf_checked(Some(name), bytes, no_text);
    }

    /// [`SymbolResolver::add_elf`], `no_text` saying whether the file has no program text.
    fn add_elf_checked(&mut self, path: Option<&str>, bytes: ElfBytes, no_text: bool) {
        let id = elf::build_id(&bytes);
        let is_debug_only = no_text || path.is_some_and(|p| p.ends_with(".debug"));
        if let Some(id) = id {
            let e = self.by_build_id.entry(id).or_default();
            if is_debug_only {
                e.debug = Some(bytes);
                self.cache.clear();
                return;
            }
            if let Some(p) = path {
                self.by_path.insert(p.to_owned(), bytes.clone());
            }
            e.elf = Some(bytes);
        } else if let Some(p) = path {
            self.by_path.insert(p.to_owned(), bytes);
        }
        self.cache.clear();
    }

    /// Adds an ELF file (not a debug file) for every module whose path has `name` as its base
    /// name, as [`SymbolResolver::add_elf`] with each such path would: for a file dropped as
    /// `libc.so.6` and a recording that maps `/usr/lib/x86_64-linux-gnu/libc.so.6` without a
    /// build id. It is found by path (with the build-id check) before the files added by path,
    /// the last one added first; it is not found by build id (add it with
    /// [`SymbolResolver::add_elf`] for that). The paths need not be known beforehand.
    pub fn add_elf_by_base_name(&mut self, name: &str, bytes: impl Into<ElfBytes>) {
        let bytes = bytes.into();
        if !has_no_text(&bytes) {
            self.by_base_name.push((name.to_owned(), bytes));
            self.cache.clear();
        }
    }

    /// The ELF file added for `path`'s base name, if any (none for a `.debug` path, which
    /// [`SymbolResolver::add_elf`] would keep as a debug file only).
    fn base_named(&self, path: &str) -> Option<&ElfBytes> {
        if path.ends_with(".debug") {
            return None;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        self.by_base_name
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b)
    }

    /// Adds every file of a `perf archive` tarball (ELF, debug and kallsyms files), found by build
    /// id and by the DSO path perf recorded.
    pub fn add_archive(&mut self, archive: PerfArchive) -> Result<(), SymbolError> {
        for (id, entry) in archive.into_entries() {
            if let Some(k) = entry.kallsyms {
                if self.kallsyms.is_none() {
                    self.kallsyms = Some(Kallsyms::parse(&k)?);
                }
            }
            let elf = entry.elf.map(Arc::new);
            if let Some(elf) = &elf {
                // Also by the recorded path, for modules whose build id the recording lacks.
                self.by_path
                    .entry(entry.dso_path.clone())
                    .or_insert_with(|| elf.clone());
            }
            let e = self.by_build_id.entry(id).or_default();
            if elf.is_some() {
                e.elf = elf;
            }
            if let Some(debug) = entry.debug {
                e.debug = Some(Arc::new(debug));
            }
        }
        self.cache.clear();
        Ok(())
    }

    /// Sets the kallsyms used for the kernel and its modules (plain or gzipped text). Call
    /// [`SymbolResolver::set_kernel_map`] afterwards.
    pub fn set_kallsyms(&mut self, bytes: &[u8]) -> Result<(), SymbolError> {
        self.kallsyms = Some(Kallsyms::parse(bytes)?);
        Ok(())
    }

    /// Tells the resolver the kernel map (`[kernel.kallsyms]_text` and its pgoff) so that kallsyms
    /// from another boot is relocated. Returns the relocation in force.
    pub fn set_kernel_map(&mut self, map_filename: &str, pgoff: u64) -> u64 {
        self.kallsyms
            .as_mut()
            .map_or(0, |k| k.relocate_for_map(map_filename, pgoff))
    }

    /// The kallsyms in use, if any.
    pub fn kallsyms(&self) -> Option<&Kallsyms> {
        self.kallsyms.as_ref()
    }

    /// Adds the `perf-PID.map` of a process.
    pub fn add_perf_map(&mut self, pid: u32, bytes: &[u8]) {
        self.perf_maps.insert(pid, PerfMap::parse(bytes));
    }

    /// Adds a `jit-PID.dump`; its pid comes from the header.
    pub fn add_jitdump(&mut self, bytes: &[u8]) -> Result<u32, SymbolError> {
        let dump = JitDump::parse(bytes)?;
        self.jitdumps.insert(dump.pid, dump.table());
        Ok(dump.pid)
    }

    /// Finds the ELF file of a module (build id first, then by path with a build-id check) and
    /// its separate debug file.
    fn find_files(&mut self, module: ModuleRef<'_>) -> ElfFiles {
        let wanted = module.build_id;
        let mut files = ElfFiles::default();
        if let Some(id) = wanted {
            if let Some(e) = self.by_build_id.get(id) {
                files.elf.clone_from(&e.elf);
                files.debug.clone_from(&e.debug);
            }
        }
        // The build id to look separate debug files up by: the recorded one, else the one of
        // the file found by path (perf reads it from the file when the recording has none).
        let mut debug_id = wanted.map(<[u8]>::to_vec);
        if files.elf.is_none() {
            let by_path = self
                .base_named(module.path)
                .or_else(|| self.by_path.get(module.path));
            let candidate = by_path.cloned().or_else(|| {
                self.provider
                    .as_mut()
                    .and_then(|p| p.read_path(module.path))
                    .map(Arc::new)
            });
            if let Some(bytes) = candidate {
                let found = elf::build_id(&bytes);
                if wanted.is_none() || found.is_none() || found.as_deref() == wanted {
                    if debug_id.is_none() {
                        debug_id.clone_from(&found);
                    }
                    if files.debug.is_none() {
                        if let Some(id) = found.as_deref() {
                            files.debug = self.by_build_id.get(id).and_then(|e| e.debug.clone());
                        }
                    }
                    files.elf = Some(bytes);
                }
            }
        }
        if files.debug.is_none() {
            if let (Some(id), Some(p)) = (debug_id.as_deref(), self.provider.as_mut()) {
                files.debug = p.read_debug(id).map(Arc::new);
            }
        }
        files
    }

    /// The bytes of a module's ELF file, found as for symbols (build id first, then by path
    /// with a build-id check); `None` for the kernel, JIT maps and files not at hand. Used for
    /// unwind information (`.eh_frame`, `.debug_frame`).
    pub fn elf_bytes(&mut self, module: ModuleRef<'_>) -> Option<ElfBytes> {
        if is_kernel_module_path(module.path) || perf_map_pid(module.path).is_some() {
            return None;
        }
        self.find_files(module).elf
    }

    fn load(&mut self, module: ModuleRef<'_>) -> Loaded {
        let files = self.find_files(module);
        let debug = files.debug.as_deref().map(Vec::as_slice);
        let Some(elf) = files.elf.as_deref() else {
            // A debug file alone still has symbols and (identical) program headers.
            return match debug.map(ElfSymbols::parse) {
                Some(Ok(syms)) => self.loaded_elf(module, syms, debug),
                _ => Loaded::Missing,
            };
        };
        match ElfSymbols::parse_with_debug(elf, debug) {
            Ok(syms) => {
                let dwarf_src = match debug {
                    Some(d) if syms.has_dwarf() => Some(d),
                    _ => Some(elf.as_slice()),
                };
                self.loaded_elf(module, syms, dwarf_src)
            }
            Err(e) => {
                self.diagnostics.push((module.path.to_owned(), e));
                Loaded::Missing
            }
        }
    }

    #[allow(unused_variables)]
    fn loaded_elf(
        &mut self,
        module: ModuleRef<'_>,
        syms: ElfSymbols,
        dwarf_src: Option<&[u8]>,
    ) -> Loaded {
        #[cfg(feature = "dwarf")]
        {
            let dwarf = if self.inline_frames && syms.has_dwarf() {
                match dwarf_src.map(super::dwarf::DwarfContext::parse) {
                    Some(Ok(ctx)) => ctx,
                    Some(Err(e)) => {
                        self.diagnostics.push((module.path.to_owned(), e));
                        None
                    }
                    None => None,
                }
            } else {
                None
            };
            Loaded::Elf { syms, dwarf }
        }
        #[cfg(not(feature = "dwarf"))]
        Loaded::Elf { syms }
    }

    /// Whether [`SymbolResolver::lookup`] may name any address of `module`: the kernel's and
    /// its modules' with kallsyms, a JIT map's always (its map file is read at the first
    /// lookup), any other's when its ELF file (or debug file) is at hand, loaded here once as
    /// for a lookup. `false` means every lookup in it gives `None`.
    pub fn can_name(&mut self, module: ModuleRef<'_>) -> bool {
        if is_kernel_module_path(module.path) {
            return self.kallsyms.is_some();
        }
        if perf_map_pid(module.path).is_some() {
            return true;
        }
        matches!(self.loaded(module), Loaded::Elf { .. })
    }

    /// The module's symbols, loaded at the first call for it (by path and build id).
    fn loaded(&mut self, module: ModuleRef<'_>) -> &Loaded {
        let key = (module.path.to_owned(), module.build_id.map(<[u8]>::to_vec));
        if !self.cache.contains_key(&key) {
            let loaded = self.load(module);
            self.cache.insert(key.clone(), loaded);
        }
        self.cache.get(&key).unwrap_or(&Loaded::Missing)
    }

    /// Names a file-relative address of a module (for the kernel and JIT maps, the run-time
    /// address). `None` when no source knows the module or no symbol covers the address.
    pub fn lookup(&mut self, module: ModuleRef<'_>, address: u64) -> Option<Symbolized> {
        if is_kernel_module_path(module.path) {
            let s = self.kallsyms.as_ref()?.lookup(address)?;
            return Some(Symbolized {
                name: s.name.to_owned(),
                offset: s.offset,
                #[cfg(feature = "dwarf")]
                inlined: Vec::new(),
                #[cfg(feature = "dwarf")]
                dwarf_name: None,
            });
        }
        if let Some(pid) = perf_map_pid(module.path) {
            if !self.perf_maps.contains_key(&pid) && !self.jitdumps.contains_key(&pid) {
                // Like perf, read `/tmp/perf-PID.map` when the process has JIT code (once: an
                // absent file leaves an empty map).
                let bytes = self
                    .provider
                    .as_mut()
                    .and_then(|p| p.read_path(module.path))
                    .unwrap_or_default();
                self.add_perf_map(pid, &bytes);
            }
            let from_jit = self.jitdumps.get(&pid).and_then(|t| t.lookup(address));
            let s = from_jit.or_else(|| self.perf_maps.get(&pid)?.table().lookup(address))?;
            return Some(Symbolized {
                name: demangle(s.name).into_owned(),
                offset: address - s.start,
                #[cfg(feature = "dwarf")]
                inlined: Vec::new(),
                #[cfg(feature = "dwarf")]
                dwarf_name: None,
            });
        }
        match self.loaded(module) {
            Loaded::Elf {
                syms,
                #[cfg(feature = "dwarf")]
                dwarf,
            } => {
                let vaddr = syms.file_offset_to_vaddr(address);
                let s = syms.lookup_vaddr(vaddr)?;
                #[cfg(feature = "dwarf")]
                let (inlined, dwarf_name) = match dwarf.as_ref().and_then(|d| d.frames(vaddr).ok())
                {
                    // perf's addr2line reports nothing when the innermost frame has no line.
                    Some(mut frames)
                        if frames
                            .first()
                            .is_some_and(|f| f.file.is_some() && f.line.is_some()) =>
                    {
                        let real = frames.pop(); // the real function, also named by the symbol table
                                                 // Without a DWARF name (binutils still finds one, e.g. through the
                                                 // symbol table), the symbol table's name stands.
                        (frames, real.and_then(|f| f.function))
                    }
                    _ => (Vec::new(), None),
                };
                Some(Symbolized {
                    name: demangle(s.name).into_owned(),
                    offset: s.offset,
                    #[cfg(feature = "dwarf")]
                    inlined,
                    #[cfg(feature = "dwarf")]
                    dwarf_name,
                })
            }
            Loaded::Missing => None,
        }
    }
}
