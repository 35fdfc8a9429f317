//! Folded stacks, as `inferno-collapse-perf` and `stackcollapse-perf.pl` write them: one
//! `comm;root;…;leaf count` line per distinct (command, stack), the command name first with
//! spaces turned into `_`, `;` inside frame names turned into `:`, lines in byte order
//! (`LC_ALL=C sort`). A sample without frames gives a line with the command alone; stacks of
//! weight 0 (periods of 0) give no line.
//!
//! Lines are never built as strings to be sorted. The (command, stack) pairs are counted, then
//! merged into a tree keyed by the text of each frame (two frames that print the same — two
//! addresses of one function — are one node, as they are one line), and the tree is written
//! depth first with each node's children in the byte order of what they print: the line that
//! ends at a child (`name count`) and the lines that go through it (`name;…`) are ordered as
//! two separate items, which gives exactly the byte order of the whole lines (names hold no
//! `;`, so `name;` is never a prefix of a sibling's text). See [`write_folded`].

use std::cmp::Ordering;
use std::io::Write;

use rustc_hash::FxHashMap;

use crate::flame_graph::WeightKind;
use crate::ids::{FrameIndex, StackIndex, StringIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// Options for [`folded_lines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldedOptions {
    /// Put the command name (comm) first, as perf's collapsers do.
    pub include_comm: bool,
    /// Count samples or sum periods.
    pub weight: WeightKind,
}

impl Default for FoldedOptions {
    fn default() -> Self {
        FoldedOptions {
            include_comm: true,
            weight: WeightKind::Samples,
        }
    }
}

const NONE: u32 = u32::MAX;

/// A node of the text tree: one frame text under its parent.
#[derive(Clone, Copy, Debug)]
struct Node {
    name: u32,
    count: u64,
    first_child: u32,
    next_sibling: u32,
    /// Reached by one (command, stack) only, so its children need no lookup (see
    /// [`Tree::frame_child`]).
    pure: bool,
}

/// Frame texts by id: the profile's strings where the text is one of them, else extra ones.
struct Names<'p> {
    profile: &'p Profile,
    extra: Vec<String>,
    extra_index: FxHashMap<String, u32>,
    /// The text id of each frame (`NONE`: not known yet).
    of_frame: Vec<u32>,
    /// The text ids of each thread name's parts (`;`-separated, spaces turned into `_`).
    of_comm: FxHashMap<StringIndex, Vec<u32>>,
}

impl<'p> Names<'p> {
    fn new(profile: &'p Profile) -> Self {
        Names {
            profile,
            extra: Vec::new(),
            extra_index: FxHashMap::default(),
            of_frame: vec![NONE; profile.frames.len()],
            of_comm: FxHashMap::default(),
        }
    }

    fn text(&self, id: u32) -> &str {
        let n = self.profile.strings.len();
        match (id as usize).checked_sub(n) {
            None => self.profile.strings.get(StringIndex(id)),
            Some(i) => self.extra.get(i).map_or("", String::as_str),
        }
    }

    /// The id of a text: its string index when the profile has it.
    fn intern(&mut self, text: &str) -> u32 {
        if let Some(i) = self.profile.strings.find(text) {
            return i.0;
        }
        if let Some(&i) = self.extra_index.get(text) {
            return i;
        }
        let id = u32::try_from(self.profile.strings.len() + self.extra.len()).unwrap_or(NONE - 1);
        self.extra.push(text.to_owned());
        self.extra_index.insert(text.to_owned(), id);
        id
    }

    fn frame(&mut self, frame: FrameIndex) -> u32 {
        if let Some(&id) = self.of_frame.get(frame.index()).filter(|&&id| id != NONE) {
            return id;
        }
        let profile = self.profile;
        let func = profile
            .frames
            .get(frame)
            .and_then(|f| profile.funcs.get(f.func));
        let id = match func {
            Some(f) if !profile.strings.get(f.name).contains(';') => f.name.0,
            Some(f) => self.intern(&profile.strings.get(f.name).replace(';', ":")),
            None => self.intern("[unknown]"),
        };
        if let Some(slot) = self.of_frame.get_mut(frame.index()) {
            *slot = id;
        }
        id
    }

    fn comm(&mut self, comm: StringIndex) -> Vec<u32> {
        if let Some(ids) = self.of_comm.get(&comm) {
            return ids.clone();
        }
        let text = self.profile.strings.get(comm).replace(' ', "_");
        let ids: Vec<u32> = text.split(';').map(|part| self.intern(part)).collect();
        self.of_comm.insert(comm, ids.clone());
        ids
    }
}

/// The text tree of the folded lines.
struct Tree<'p> {
    names: Names<'p>,
    nodes: Vec<Node>,
    children: FxHashMap<u64, u32>,
    /// Whether each text is printed by one frame only (by text id).
    unique_text: Vec<bool>,
    /// Whether command nodes are pure: no `;` in a command, no two that print the same.
    comms_apart: bool,
}

impl Tree<'_> {
    /// The child of `parent` named `name`, found or added through the lookup table.
    fn child(&mut self, parent: u32, name: u32) -> u32 {
        let key = (u64::from(parent) << 32) | u64::from(name);
        let next = u32::try_from(self.nodes.len()).unwrap_or(NONE);
        let nodes = &mut self.nodes;
        *self
            .children
            .entry(key)
            .or_insert_with(|| Self::push(nodes, parent, name, next, false))
    }

    fn push(nodes: &mut Vec<Node>, parent: u32, name: u32, next: u32, pure: bool) -> u32 {
        let first = nodes.get(parent as usize).map_or(NONE, |p| p.first_child);
        nodes.push(Node {
            name,
            count: 0,
            first_child: NONE,
            next_sibling: first,
            pure,
        });
        if let Some(p) = nodes.get_mut(parent as usize) {
            p.first_child = next;
        }
        next
    }

    /// The child of `parent` for the frame of a stack placed for the first time under this
    /// command. Under a pure node (reached by one stack only), a frame whose text no other
    /// frame prints cannot meet a sibling of the same text (the sibling would be the same
    /// stack), so it gets a new pure node without a lookup — typical without symbols, where
    /// almost every frame is its own text. Elsewhere children are looked up (and not pure:
    /// lines of different stacks merge there).
    fn frame_child(&mut self, parent: u32, name: u32) -> u32 {
        let parent_pure = self.nodes.get(parent as usize).is_some_and(|p| p.pure);
        if parent_pure
            && self
                .unique_text
                .get(name as usize)
                .copied()
                .unwrap_or(false)
        {
            let next = u32::try_from(self.nodes.len()).unwrap_or(NONE);
            return Self::push(&mut self.nodes, parent, name, next, true);
        }
        self.child(parent, name)
    }

    fn node(&self, i: u32) -> Option<&Node> {
        self.nodes.get(i as usize)
    }
}

/// Counts the samples that pass `filter` by (command, stack) and merges them into the text tree.
fn build<'p>(profile: &'p Profile, filter: &SampleFilter, options: FoldedOptions) -> Tree<'p> {
    let all = *filter == SampleFilter::all();
    let s = &profile.samples;
    let passes = filter.tester(s, &profile.threads);
    // Weights by stack for the first command seen with each stack (an array: most stacks are
    // sampled under one command); other (command, stack) pairs and empty stacks in a map.
    let mut by_stack: Vec<(u32, u64)> = vec![(NONE, 0); profile.stacks.len()];
    let mut others: FxHashMap<u64, u64> = FxHashMap::default();
    let thread_names: Vec<u32> = (0..profile.threads.len())
        .map(|i| {
            match (
                options.include_comm,
                profile.threads.get(crate::ids::ThreadIndex(i as u32)),
            ) {
                (true, Some(t)) => t.name.0,
                _ => NONE,
            }
        })
        .collect();
    for (i, ((thread, stack), period)) in
        s.thread.iter().zip(s.stacks()).zip(s.periods()).enumerate()
    {
        if !all && !passes(i) {
            continue;
        }
        let comm = thread_names.get(thread.index()).copied().unwrap_or(NONE);
        let w = match options.weight {
            WeightKind::Samples => 1,
            WeightKind::Period => period,
        };
        let slot = stack.and_then(|st| by_stack.get_mut(st.index()));
        match slot {
            Some(slot) if slot.0 == comm || slot.1 == 0 => {
                slot.0 = comm;
                slot.1 = slot.1.saturating_add(w);
            }
            _ => {
                let key = (u64::from(comm) << 32) | u64::from(stack.map_or(NONE, |s| s.0));
                let c = others.entry(key).or_default();
                *c = c.saturating_add(w);
            }
        }
    }
    let counts = by_stack
        .iter()
        .enumerate()
        .filter(|(_, &(_, w))| w > 0)
        .map(|(st, &(comm, w))| ((u64::from(comm) << 32) | st as u64, w))
        .chain(others);
    let mut keys: Vec<(u64, u64)> = counts.collect();
    keys.sort_unstable_by_key(|&(k, _)| k);

    let mut names = Names::new(profile);
    // Texts printed by exactly one frame (an empty text is also the text of a line without
    // command and frames: never unique).
    let mut frames_per_text: Vec<u8> = vec![0; profile.strings.len()];
    for i in 0..profile.frames.len() {
        let id = names.frame(FrameIndex(i as u32)) as usize;
        if frames_per_text.len() <= id {
            frames_per_text.resize(id + 1, 0);
        }
        if let Some(n) = frames_per_text.get_mut(id) {
            *n = n.saturating_add(1);
        }
    }
    let unique_text: Vec<bool> = frames_per_text
        .iter()
        .enumerate()
        .map(|(id, &n)| n == 1 && !names.text(id as u32).is_empty())
        .collect();
    // Each command on a node of its own: no `;` in it, no two that print the same.
    let mut comms: FxHashMap<String, StringIndex> = FxHashMap::default();
    let comms_apart = (0..profile.threads.len()).all(|i| {
        let Some(t) = profile.threads.get(crate::ids::ThreadIndex(i as u32)) else {
            return true;
        };
        let text = profile.strings.get(t.name);
        !text.contains(';') && *comms.entry(text.replace(' ', "_")).or_insert(t.name) == t.name
    }) || !options.include_comm;
    let mut tree = Tree {
        names,
        nodes: vec![Node {
            name: NONE,
            count: 0,
            first_child: NONE,
            next_sibling: NONE,
            pure: !options.include_comm,
        }],
        children: FxHashMap::default(),
        unique_text,
        comms_apart,
    };
    // The tree node of each stack under the current command (valid when its epoch matches).
    let mut memo: Vec<(u32, u32)> = vec![(NONE, 0); profile.stacks.len()];
    let mut epoch = 0u32;
    let mut current_comm = None;
    let mut comm_node = 0u32;
    let mut pending: Vec<StackIndex> = Vec::new();
    for (key, count) in keys {
        let comm = (key >> 32) as u32;
        if current_comm != Some(comm) {
            current_comm = Some(comm);
            epoch += 1;
            comm_node = 0;
            if comm != NONE {
                for part in tree.names.comm(StringIndex(comm)) {
                    comm_node = tree.child(comm_node, part);
                }
                let pure = tree.comms_apart;
                if let Some(n) = tree.nodes.get_mut(comm_node as usize) {
                    n.pure = pure;
                }
            }
        }
        // Walk up to a stack already placed under this command, then down again.
        let mut cur = StackIndex::from_len((key & 0xffff_ffff) as usize)
            .ok()
            .filter(|s| s.0 != NONE);
        pending.clear();
        let mut node = comm_node;
        while let Some(st) = cur {
            match memo.get(st.index()) {
                Some(&(n, e)) if e == epoch => {
                    node = n;
                    break;
                }
                _ => {}
            }
            pending.push(st);
            cur = profile.stacks.get(st).and_then(|s| s.prefix);
        }
        for &st in pending.iter().rev() {
            let Some(frame) = profile.stacks.get(st).map(|s| s.frame) else {
                continue;
            };
            let name = tree.names.frame(frame);
            node = tree.frame_child(node, name);
            if let Some(m) = memo.get_mut(st.index()) {
                *m = (node, epoch);
            }
        }
        // No command and no frame: a line of the empty text.
        if node == 0 {
            let empty = tree.names.intern("");
            node = tree.child(0, empty);
        }
        if let Some(n) = tree.nodes.get_mut(node as usize) {
            n.count = n.count.saturating_add(count);
        }
    }
    tree
}

/// One thing to write among a node's children: the line ending at a child, or the lines going
/// through it.
#[derive(Clone, Copy, Debug)]
enum Item {
    Ends(u32),
    Through(u32),
}

/// Appends the decimal digits of `n`.
pub(crate) fn push_count(out: &mut Vec<u8>, n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        if let Some(b) = buf.get_mut(i) {
            *b = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    out.extend_from_slice(buf.get(i..).unwrap_or(&[]));
}

impl Tree<'_> {
    fn item_name(&self, item: Item) -> &[u8] {
        let (Item::Ends(n) | Item::Through(n)) = item;
        self.node(n)
            .map_or(&[][..], |n| self.names.text(n.name).as_bytes())
    }

    /// What an item prints after the common path: `name count` or `name;`.
    fn item_key(&self, item: Item, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(self.item_name(item));
        match item {
            Item::Ends(n) => {
                out.push(b' ');
                push_count(out, self.node(n).map_or(0, |n| n.count));
            }
            Item::Through(_) => out.push(b';'),
        }
    }

    fn compare(&self, a: Item, b: Item, keys: &mut (Vec<u8>, Vec<u8>)) -> Ordering {
        let (na, nb) = (self.item_name(a), self.item_name(b));
        let common = na.len().min(nb.len());
        match na.get(..common).cmp(&nb.get(..common)) {
            Ordering::Equal => {}
            o => return o,
        }
        // Equal names (one node's two items), or one name is a prefix of the other.
        self.item_key(a, &mut keys.0);
        self.item_key(b, &mut keys.1);
        keys.0.cmp(&keys.1)
    }

    /// Calls `line(text, count)` for every line, in byte order.
    fn for_each_line(&self, mut line: impl FnMut(&[u8], u64)) {
        struct Level {
            end: usize,
            next: usize,
            path_len: usize,
        }
        let mut items: Vec<Item> = Vec::new();
        let mut levels: Vec<Level> = Vec::new();
        let mut path: Vec<u8> = Vec::new();
        let mut keys = (Vec::new(), Vec::new());
        let mut open =
            |node: u32, path_len: usize, items: &mut Vec<Item>, levels: &mut Vec<Level>| {
                let start = items.len();
                let mut c = self.node(node).map_or(NONE, |n| n.first_child);
                while let Some(n) = self.node(c) {
                    if n.count > 0 {
                        items.push(Item::Ends(c));
                    }
                    if n.first_child != NONE {
                        items.push(Item::Through(c));
                    }
                    c = n.next_sibling;
                }
                if let Some(list) = items.get_mut(start..) {
                    if list.len() > 1 {
                        list.sort_unstable_by(|&a, &b| self.compare(a, b, &mut keys));
                    }
                }
                levels.push(Level {
                    end: items.len(),
                    next: start,
                    path_len,
                });
            };
        open(0, 0, &mut items, &mut levels);
        while let Some(top) = levels.last_mut() {
            let Some(&item) = items.get(top.next).filter(|_| top.next < top.end) else {
                levels.pop();
                // The level's items were the last ones pushed.
                let keep = levels.last().map_or(0, |l| l.end);
                items.truncate(keep);
                continue;
            };
            top.next += 1;
            path.truncate(top.path_len);
            path.extend_from_slice(self.item_name(item));
            match item {
                Item::Ends(n) => line(&path, self.node(n).map_or(0, |n| n.count)),
                Item::Through(n) => {
                    path.push(b';');
                    open(n, path.len(), &mut items, &mut levels);
                }
            }
        }
    }
}

/// Writes the folded text of the samples that pass `filter`: one `stack count` line each,
/// newline-terminated, in byte order, without building the lines as strings first.
///
/// ```
/// use perfscope_analysis::export::folded::{write_folded, FoldedOptions};
/// use perfscope_analysis::samples::SampleFilter;
/// use perfscope_analysis::text_samples::profile_from_text_samples;
/// let p = profile_from_text_samples(
///     "
/// comm: a    a    b
/// main  main main
/// f     g
/// ",
/// )
/// .unwrap();
/// let mut out = Vec::new();
/// write_folded(&p, &SampleFilter::all(), FoldedOptions::default(), &mut out).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "a;main;f 1\na;main;g 1\nb;main 1\n");
/// ```
pub fn write_folded(
    profile: &Profile,
    filter: &SampleFilter,
    options: FoldedOptions,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let tree = build(profile, filter, options);
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    let mut result = Ok(());
    tree.for_each_line(|text, count| {
        if result.is_err() {
            return;
        }
        buf.extend_from_slice(text);
        buf.push(b' ');
        push_count(&mut buf, count);
        buf.push(b'\n');
        if buf.len() >= 1 << 20 {
            result = out.write_all(&buf);
            buf.clear();
        }
    });
    result?;
    out.write_all(&buf)
}

/// The folded lines (`"stack"`, count) of the samples that pass `filter`, sorted by the bytes of
/// the whole output line.
pub fn folded_lines(
    profile: &Profile,
    filter: &SampleFilter,
    options: FoldedOptions,
) -> Vec<(String, u64)> {
    let tree = build(profile, filter, options);
    let mut lines = Vec::new();
    tree.for_each_line(|text, count| {
        lines.push((String::from_utf8_lossy(text).into_owned(), count))
    });
    lines
}

/// The folded text: one `stack count` line each, newline-terminated.
pub fn to_folded_text(profile: &Profile, filter: &SampleFilter, options: FoldedOptions) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_folded(profile, filter, options, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests;
