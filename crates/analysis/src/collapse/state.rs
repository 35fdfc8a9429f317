//! What the side-band records say at a point in time (thread names, the mappings of each
//! process and of the kernel), and how a raw callchain reads in it: the same rules as
//! [`crate::builder::ProfileBuilder`] with `--no-symbols` names (`module+0xoffset`).

use rustc_hash::FxHashMap;

use crate::builder::chain::for_each_frame;
use crate::builder::CpuMode;
use crate::ids::ModuleIndex;
use crate::maps::{AddressSpace, Mapping};
use crate::stack_table::module_file_name;
use crate::symbols::resolver::is_kernel_module_path;

use super::lines::Texts;

/// A module: the text its frames start with, or the name of its only function (KSYMBOL).
struct Module {
    /// The file name (the path's last part), for `name+0xoffset`.
    base: String,
    /// A KSYMBOL's name: every address prints as it.
    named: bool,
}

/// No module (an address outside every mapping of a process).
const NO_MODULE: u32 = u32::MAX;

/// The state of the recording at the sample being delivered.
#[derive(Default)]
pub(super) struct State {
    modules: Vec<Module>,
    module_ids: FxHashMap<String, u32>,
    kernel: AddressSpace,
    kernel_module: Option<ModuleIndex>,
    /// The mappings of each process, with their generation (a number that changes with them).
    processes: FxHashMap<u32, (AddressSpace, u64)>,
    next_generation: u64,
    kernel_generation: u64,
    /// Threads by (pid, tid).
    threads: FxHashMap<(u32, u32), Thread>,
    /// The text ids of a thread name's parts (`;`-separated, spaces turned into `_`).
    comm_parts: FxHashMap<u32, Vec<u32>>,
    /// Frame texts by (module, file-relative address).
    frames: FxHashMap<(u32, u64), u32>,
    /// Thread names (not frame texts; kept apart so a name never meets a frame by id).
    pub names: Texts,
    name_buf: String,
    /// Scratch: the entries of the sample being read.
    entries: Vec<(u64, CpuMode)>,
    /// Counters: stack entries read, entries not shared with the thread's previous stack,
    /// frame texts made.
    pub counters: [u64; 3],
}

fn is_anon_exec(filename: &str) -> bool {
    filename.starts_with("//anon")
        || filename.starts_with("[anon")
        || filename.starts_with("/memfd:")
        || filename.starts_with("/tmp/perf-")
}

impl State {
    fn module(&mut self, path: &str, named: bool) -> ModuleIndex {
        if let Some(&m) = self.module_ids.get(path) {
            if named {
                if let Some(module) = self.modules.get_mut(m as usize) {
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
        self.modules.push(Module { base, named });
        self.module_ids.insert(path.to_owned(), m);
        ModuleIndex(m)
    }

    /// MMAP / MMAP2 (see [`crate::builder::ProfileBuilder::mmap`]).
    pub fn mmap(&mut self, pid: u32, start: u64, len: u64, pgoff: u64, filename: &str) {
        let end = start.saturating_add(len);
        if pid == u32::MAX || is_kernel_module_path(filename) {
            let kallsyms = filename.starts_with("[kernel.kallsyms]");
            let module = self.module(
                if kallsyms {
                    "[kernel.kallsyms]"
                } else {
                    filename
                },
                false,
            );
            if kallsyms {
                self.kernel_module = Some(module);
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
            self.module(&format!("/tmp/perf-{pid}.map"), false)
        } else {
            self.module(filename, false)
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
        let module = self.module(name, true);
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
        self.threads
            .entry((pid, tid))
            .or_insert_with(|| Thread {
                name,
                memo: Memo::default(),
            })
            .name = name;
    }

    /// FORK.
    pub fn fork(&mut self, ppid: u32, ptid: u32, pid: u32, tid: u32) {
        if let Some(name) = self.threads.get(&(ppid, ptid)).map(|t| t.name) {
            self.threads
                .entry((pid, tid))
                .or_insert_with(|| Thread {
                    name,
                    memo: Memo::default(),
                })
                .name = name;
        }
        if pid != ppid {
            if let Some((space, _)) = self.processes.get(&ppid).cloned() {
                self.next_generation += 1;
                self.processes.insert(pid, (space, self.next_generation));
            }
        }
    }

    /// Appends the tokens of a sample's line: the thread name's parts, then the frames root
    /// first (see `chain_entries` in the builder for the rules of context markers). The
    /// frames of the root part shared with the thread's previous sample (read in the same
    /// mappings) are taken from it.
    pub fn line(
        &mut self,
        texts: &mut Texts,
        pid: u32,
        tid: u32,
        chain: Chain<'_>,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        let State {
            threads,
            names,
            comm_parts,
            processes,
            kernel,
            kernel_module,
            modules,
            frames,
            name_buf,
            entries,
            kernel_generation,
            counters,
            ..
        } = self;
        // A thread never named is `:tid`.
        let thread = threads.entry((pid, tid)).or_insert_with(|| Thread {
            name: names.intern(format!(":{tid}").as_bytes()),
            memo: Memo::default(),
        });
        let comm = thread.name;
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
        root_first(chain, entries);
        let process = processes.get(&pid);
        let generations = (process.map_or(0, |p| p.1), *kernel_generation);
        let space = process.map(|p| &p.0);
        let reused = thread.memo.pick(generations, entries);
        let memo = &mut thread.memo.current;
        counters[0] += entries.len() as u64;
        counters[1] += (entries.len() - reused) as u64;
        for &(addr, mode) in entries.get(reused..).unwrap_or(&[]) {
            let mapping = match mode {
                CpuMode::Kernel => kernel.find(addr),
                CpuMode::User => space.and_then(|s| s.find(addr)),
            };
            let (module, rel) = match (mapping, mode) {
                (Some(m), _) => (m.module.0, m.map_ip(addr)),
                (None, CpuMode::Kernel) => (kernel_module.map_or(NO_MODULE, |m| m.0), addr),
                (None, CpuMode::User) => (NO_MODULE, addr),
            };
            let m = modules.get(module as usize);
            let named = m.is_some_and(|m| m.named);
            let key = (module, if named { 0 } else { rel });
            let token = match frames.get(&key) {
                Some(&t) => t,
                None => {
                    use std::fmt::Write as _;
                    counters[2] += 1;
                    let name = &mut *name_buf;
                    name.clear();
                    // Writing to a String cannot fail.
                    let _ = match m {
                        Some(m) if m.named => write!(name, "{}", m.base),
                        Some(m) => write!(name, "{}+0x{rel:x}", m.base),
                        None => write!(name, "0x{rel:x}"),
                    };
                    let t = if name.contains(';') {
                        texts.intern(name.replace(';', ":").as_bytes())
                    } else {
                        texts.intern(name.as_bytes())
                    };
                    frames.insert(key, t);
                    t
                }
            };
            memo.tokens.push(token);
            memo.entries.push((addr, mode));
        }
        out.extend_from_slice(&memo.tokens);
    }
}

/// The addresses of a stack with their modes, root first: a callchain's entries between its
/// context markers (none when a marker is invalid: perf drops such a chain), or the ip.
fn root_first(chain: Chain<'_>, out: &mut Vec<(u64, CpuMode)>) {
    out.clear();
    match chain {
        Chain::Ip(ip, mode) => out.push((ip, mode)),
        Chain::Callchain(words, mode) => {
            if !for_each_frame(words, mode, usize::MAX, |_, addr, mode| {
                out.push((addr, mode))
            }) {
                out.clear();
                return;
            }
            out.reverse();
        }
    }
}

/// A thread: its name (in [`State::names`]) and its previous stack.
struct Thread {
    name: u32,
    memo: Memo,
}

/// A stack: its entries (root first) and their frame texts.
#[derive(Clone, Debug, Default)]
struct Stack {
    entries: Vec<(u64, CpuMode)>,
    tokens: Vec<u32>,
}

/// How many recent stacks of a thread are kept.
const RECENT: usize = 4;

/// A thread's recent stacks (threads alternate between a few call paths), all read in the
/// same mappings: a new stack takes the frames of the longest root part it shares with one
/// of them (as the builder's `RecentStacks` does).
#[derive(Default)]
struct Memo {
    generations: (u64, u64),
    /// The stack of the thread's last sample.
    current: Stack,
    /// Older ones, most recent first.
    others: Vec<Stack>,
    /// The buffers of the one forgotten last.
    spare: Option<Stack>,
}

impl Memo {
    /// Makes `current` the longest root part of `entries` found among the recent stacks and
    /// returns its length (the entries after it are to be added to `current`).
    fn pick(&mut self, generations: (u64, u64), entries: &[(u64, CpuMode)]) -> usize {
        if self.generations != generations {
            self.generations = generations;
            self.current.entries.clear();
            self.current.tokens.clear();
            self.others.clear();
        }
        let common = |s: &Stack| {
            s.entries
                .iter()
                .zip(entries)
                .take_while(|(a, b)| a == b)
                .count()
        };
        let current = common(&self.current);
        if current == self.current.entries.len() {
            return current;
        }
        let mut best = (None, current);
        for (i, s) in self.others.iter().enumerate() {
            let c = common(s);
            if c > best.1 {
                best = (Some(i), c);
            }
        }
        let (from, reused) = best;
        let mut slot = self.spare.take().unwrap_or_default();
        let source = match from.and_then(|i| self.others.get(i)) {
            Some(s) => s,
            None => &self.current,
        };
        slot.entries.clear();
        slot.tokens.clear();
        slot.entries
            .extend_from_slice(source.entries.get(..reused).unwrap_or(&[]));
        slot.tokens
            .extend_from_slice(source.tokens.get(..reused).unwrap_or(&[]));
        std::mem::swap(&mut self.current, &mut slot);
        self.others.insert(0, slot);
        if self.others.len() >= RECENT {
            self.spare = self.others.pop();
        }
        reused
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
