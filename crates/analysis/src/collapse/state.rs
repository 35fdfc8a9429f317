//! What the side-band records say at a point in time (thread names, the mappings of each
//! process and of the kernel), and how a raw callchain reads in it: the same rules as
//! [`crate::builder::ProfileBuilder`] with `--no-symbols` names (`module+0xoffset`), or, with a
//! resolver, function names (`[unknown]` when there is none).

use rustc_hash::FxHashMap;

use crate::builder::chain::for_each_frame;
use crate::builder::CpuMode;
use crate::ids::ModuleIndex;
use crate::maps::{AddressSpace, Mapping};
use crate::stack_table::module_file_name;
use crate::symbols::resolver::{is_kernel_module_path, ModuleRef, SymbolResolver};

use super::lines::Texts;

/// A module: the text its frames start with, or the name of its only function (KSYMBOL).
struct Module {
    /// The file name (the path's last part), for `name+0xoffset`.
    base: String,
    /// The path (or a KSYMBOL's name) and build id, as the resolver is asked about them.
    path: String,
    build_id: Option<Vec<u8>>,
    /// A KSYMBOL's name: every address prints as it.
    named: bool,
    /// `base+0x` as a prefix of the frame texts ([`Texts::prefix`]), once asked for.
    prefix: Option<u32>,
}

/// No module (an address outside every mapping of a process).
const NO_MODULE: u32 = u32::MAX;

/// The state of the recording at the sample being delivered.
#[derive(Default)]
pub(super) struct State {
    modules: Vec<Module>,
    /// By path and build id, as the loader's modules are.
    module_ids: FxHashMap<(String, Option<Vec<u8>>), u32>,
    /// Names frames with function names when set (see the module docs).
    pub resolver: Option<SymbolResolver>,
    /// The recording's build ids by path, for mappings that do not carry theirs.
    build_ids: FxHashMap<String, Vec<u8>>,
    /// `[unknown]`'s text id, once made.
    unknown: Option<u32>,
    kernel: AddressSpace,
    kernel_module: Option<ModuleIndex>,
    /// The mappings of each process, with their generation (a number that changes with them).
    processes: FxHashMap<u32, (AddressSpace, u64)>,
    next_generation: u64,
    kernel_generation: u64,
    /// Thread names (in `names`) by (pid, tid).
    threads: FxHashMap<(u32, u32), u32>,
    /// The text ids of a thread name's parts (`;`-separated, spaces turned into `_`).
    comm_parts: FxHashMap<u32, Vec<u32>>,
    /// Frame texts by (module, file-relative address).
    frames: FxHashMap<(u32, u64), u32>,
    /// Recent frame texts by address and address space (see [`FrameCache`]).
    cache: FrameCache,
    /// Thread names (not frame texts; kept apart so a name never meets a frame by id).
    pub names: Texts,
    /// `0x` as a prefix of the frame texts outside every module, once asked for.
    no_module: Option<u32>,
    /// Counters: stack entries read, entries not found in the cache (looked up), frame texts
    /// made.
    pub counters: [u64; 3],
}

fn is_anon_exec(filename: &str) -> bool {
    filename.starts_with("//anon")
        || filename.starts_with("[anon")
        || filename.starts_with("/memfd:")
        || filename.starts_with("/tmp/perf-")
}

impl State {
    /// The state before the first record; `resolver` names the frames (see the module docs).
    pub fn with_resolver(resolver: Option<SymbolResolver>) -> State {
        State {
            resolver,
            ..State::default()
        }
    }

    fn module(&mut self, path: &str, build_id: Option<&[u8]>, named: bool) -> ModuleIndex {
        let key = (path.to_owned(), build_id.map(<[u8]>::to_vec));
        if let Some(&m) = self.module_ids.get(&key) {
            if named {
                if let Some(module) = self.modules.get_mut(m as usize) {
                    if !module.named {
                        // Its frames in any address space print otherwise from now on.
                        self.cache.clear();
                    }
                    module.named = true;
                    path.clone_into(&mut module.base);
                }
            }
            return ModuleIndex(m);
        }
        let m = u32::try_from(self.modules.len()).unwrap_or(NO_MODULE - 1);
        let base = if named {
            path.to_owned()
        } else {
            module_file_name(path).to_owned()
        };
        self.modules.push(Module {
            base,
            path: path.to_owned(),
            build_id: key.1.clone(),
            named,
            prefix: None,
        });
        self.module_ids.insert(key, m);
        ModuleIndex(m)
    }

    /// A build id of the recording's list.
    pub fn build_id(&mut self, filename: String, build_id: Vec<u8>) {
        self.build_ids.insert(filename, build_id);
    }

    /// MMAP / MMAP2 (see [`crate::builder::ProfileBuilder::mmap`]); `build_id` is MMAP2's,
    /// else the list's for `filename` is taken.
    pub fn mmap(
        &mut self,
        pid: u32,
        start: u64,
        len: u64,
        pgoff: u64,
        filename: &str,
        build_id: Option<&[u8]>,
    ) {
        let listed = self.build_ids.get(filename).cloned();
        let build_id = build_id.or(listed.as_deref());
        let end = start.saturating_add(len);
        if pid == u32::MAX || is_kernel_module_path(filename) {
            let kallsyms = filename.starts_with("[kernel.kallsyms]");
            let module = self.module(
                if kallsyms {
                    "[kernel.kallsyms]"
                } else {
                    filename
                },
                build_id,
                false,
            );
            if kallsyms {
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
            return;
        }
        let anon = is_anon_exec(filename);
        let module = if anon {
            self.module(&format!("/tmp/perf-{pid}.map"), build_id, false)
        } else {
            self.module(filename, build_id, false)
        };
        self.next_generation += 1;
        let process = self.processes.entry(pid).or_default();
        process.0.insert(Mapping {
            start,
            end,
            pgoff,
            module,
            identity: anon,
        });
        process.1 = self.next_generation;
    }

    /// KSYMBOL (register).
    pub fn ksymbol(&mut self, addr: u64, len: u64, name: &str) {
        let module = self.module(name, None, true);
        self.kernel.insert(Mapping {
            start: addr,
            end: addr.saturating_add(len),
            pgoff: 0,
            module,
            identity: true,
        });
        self.kernel_generation += 1;
    }

    /// COMM.
    pub fn comm(&mut self, pid: u32, tid: u32, name: &str) {
        let name = self.names.intern(name.as_bytes());
        self.threads.insert((pid, tid), name);
    }

    /// FORK.
    pub fn fork(&mut self, ppid: u32, ptid: u32, pid: u32, tid: u32) {
        if let Some(&name) = self.threads.get(&(ppid, ptid)) {
            self.threads.insert((pid, tid), name);
        }
        if pid != ppid {
            if let Some((space, _)) = self.processes.get(&ppid).cloned() {
                self.next_generation += 1;
                self.processes.insert(pid, (space, self.next_generation));
            }
        }
    }

    /// Appends the tokens of a sample's line to `out`: the thread name's parts, then the
    /// frames root first (see `chain_entries` in the builder for the rules of context
    /// markers).
    pub fn line(
        &mut self,
        texts: &mut Texts,
        pid: u32,
        tid: u32,
        chain: Chain<'_>,
        out: &mut Vec<u32>,
    ) {
        let State {
            threads,
            names,
            comm_parts,
            processes,
            kernel,
            kernel_module,
            modules,
            frames,
            cache,
            no_module,
            kernel_generation,
            counters,
            resolver,
            unknown,
            ..
        } = self;
        // A thread never named is `:tid`.
        let comm = *threads
            .entry((pid, tid))
            .or_insert_with(|| names.intern(format!(":{tid}").as_bytes()));
        let parts = match comm_parts.get(&comm) {
            Some(p) => p,
            None => {
                let text = String::from_utf8_lossy(names.get(comm)).replace(' ', "_");
                let parts: Vec<u32> = text
                    .split(';')
                    .map(|p| texts.intern(p.as_bytes()))
                    .collect();
                comm_parts.entry(comm).or_insert(parts)
            }
        };
        out.extend_from_slice(parts);
        let leaf = out.len();
        let process = processes.get(&pid);
        let space = process.map(|p| &p.0);
        // The address spaces' tags in the cache: a generation is never used twice.
        let tags = (process.map_or(0, |p| p.1) << 1, *kernel_generation << 1 | 1);
        let mut frame = |addr: u64, mode: CpuMode| {
            counters[0] += 1;
            let tag = match mode {
                CpuMode::Kernel => tags.1,
                CpuMode::User => tags.0,
            };
            if let Some(token) = cache.get(addr, tag) {
                out.push(token);
                return;
            }
            counters[1] += 1;
            let mapping = match mode {
                CpuMode::Kernel => kernel.find(addr),
                CpuMode::User => space.and_then(|s| s.find(addr)),
            };
            let (module, rel) = match (mapping, mode) {
                (Some(m), _) => (m.module.0, m.map_ip(addr)),
                (None, CpuMode::Kernel) => (kernel_module.map_or(NO_MODULE, |m| m.0), addr),
                (None, CpuMode::User) => (NO_MODULE, addr),
            };
            let m = modules.get_mut(module as usize);
            let named = m.as_ref().is_some_and(|m| m.named);
            let key = (module, if named { 0 } else { rel });
            let token = match frames.get(&key) {
                Some(&t) => t,
                None => {
                    counters[2] += 1;
                    let t = match (m, resolver.as_mut()) {
                        (Some(m), _) if m.named => {
                            texts.intern(m.base.replace(';', ":").as_bytes())
                        }
                        // With symbols: the function's name, else `[unknown]`.
                        (m, Some(r)) => {
                            let name = m.and_then(|m| {
                                let module = ModuleRef {
                                    path: &m.path,
                                    build_id: m.build_id.as_deref(),
                                };
                                r.lookup(module, rel)
                            });
                            match name {
                                Some(s) => texts.intern(s.name.replace(';', ":").as_bytes()),
                                None => *unknown.get_or_insert_with(|| texts.intern(b"[unknown]")),
                            }
                        }
                        // `module+0xoffset`, or `0xaddress` outside every module.
                        (Some(m), None) => {
                            let prefix = *m.prefix.get_or_insert_with(|| {
                                texts.prefix(format!("{}+0x", m.base.replace(';', ":")).as_bytes())
                            });
                            texts.intern_hex(prefix, rel)
                        }
                        (None, None) => {
                            let prefix = *no_module.get_or_insert_with(|| texts.prefix(b"0x"));
                            texts.intern_hex(prefix, rel)
                        }
                    };
                    frames.insert(key, t);
                    t
                }
            };
            cache.put(addr, tag, token);
            out.push(token);
        };
        match chain {
            Chain::Ip(ip, mode) => frame(ip, mode),
            Chain::Callchain(words, mode) => {
                // A chain with an invalid marker has no frames (perf drops it).
                let words = words.iter().copied();
                if !for_each_frame(words, mode, usize::MAX, |_, addr, mode| frame(addr, mode)) {
                    out.truncate(leaf);
                }
            }
        }
        // Root first.
        if let Some(frames) = out.get_mut(leaf..) {
            frames.reverse();
        }
    }
}

/// A direct-mapped cache of frame texts by (address, address space tag) in front of the
/// mapping lookup and the `frames` table (a table of a million entries misses the processor's
/// caches at each lookup; the frames of a recording's hot paths come back again and again).
struct FrameCache {
    slots: Vec<(u64, u64, u32)>,
}

/// log2 of the slots in [`FrameCache`] (24 bytes each).
const CACHE_BITS: u32 = 16;
const CACHE_SLOTS: usize = 1 << CACHE_BITS;

impl Default for FrameCache {
    fn default() -> Self {
        // Tag `u64::MAX` is never used (generations count up from 0).
        FrameCache {
            slots: vec![(0, u64::MAX, 0); CACHE_SLOTS],
        }
    }
}

impl FrameCache {
    fn slot(addr: u64, tag: u64) -> usize {
        let h = (addr ^ tag.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - CACHE_BITS)) as usize
    }

    fn get(&self, addr: u64, tag: u64) -> Option<u32> {
        match self.slots.get(Self::slot(addr, tag)) {
            Some(&(a, t, token)) if a == addr && t == tag => Some(token),
            _ => None,
        }
    }

    fn clear(&mut self) {
        self.slots.fill((0, u64::MAX, 0));
    }

    fn put(&mut self, addr: u64, tag: u64, token: u32) {
        if let Some(s) = self.slots.get_mut(Self::slot(addr, tag)) {
            *s = (addr, tag, token);
        }
    }
}

/// A sample's stack as recorded: its callchain (leaf first, with context markers, and the
/// mode of its ip), or its ip alone.
#[derive(Clone, Copy, Debug)]
pub(super) enum Chain<'a> {
    /// No callchain: the ip and its mode.
    Ip(u64, CpuMode),
    /// The callchain and the mode of the sample's ip (the mode before the first marker).
    Callchain(&'a [u64], CpuMode),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of a sample's line.
    fn line(state: &mut State, texts: &mut Texts, pid: u32, addr: u64) -> Vec<String> {
        let mut out = Vec::new();
        state.line(texts, pid, pid, Chain::Ip(addr, CpuMode::User), &mut out);
        out.iter()
            .map(|&t| String::from_utf8_lossy(texts.get(t)).into_owned())
            .collect()
    }

    #[test]
    fn a_module_named_by_a_ksymbol_later_prints_as_its_name_everywhere() {
        let (mut state, mut texts) = (State::default(), Texts::default());
        state.comm(7, 7, "app");
        state.mmap(7, 0x1000, 0x1000, 0, "/opt/jit.so", None);
        assert_eq!(
            line(&mut state, &mut texts, 7, 0x1010),
            ["app", "jit.so+0x10"]
        );
        // A KSYMBOL of the same name (the loader's modules are keyed by path or name) makes
        // every address of that module print as the name, in the process too.
        state.ksymbol(0xffff_0000, 0x100, "/opt/jit.so");
        assert_eq!(
            line(&mut state, &mut texts, 7, 0x1010),
            ["app", "/opt/jit.so"]
        );
        // Outside every module: the address.
        assert_eq!(line(&mut state, &mut texts, 7, 0x9000), ["app", "0x9000"]);
    }
}
