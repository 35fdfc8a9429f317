//! The tables of the collapse fast path: frame texts (interned once each) and the distinct
//! folded lines (sequences of text ids) with their counts; then the lines in byte order,
//! written.

use crate::export::folded::push_count;
use std::cmp::Ordering;
use std::hash::{BuildHasher, Hash, Hasher};
use std::io::Write;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::msd::msd_sort;

fn hash_words<T: Hash>(words: &[T]) -> u64 {
    FxBuildHasher.hash_one(words)
}

fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    h.write(bytes);
    h.finish()
}

/// Texts by id, each stored once (bytes in one arena).
#[derive(Default)]
pub(super) struct Texts {
    bytes: Vec<u8>,
    /// `(start, end)` in `bytes` by id.
    spans: Vec<(usize, usize)>,
    hashes: Vec<u64>,
    index: HashTable<u32>,
    /// The texts made by [`Texts::intern_hex`] as `(prefix, offset)` by id (`NO_PREFIX` for
    /// the others), for [`Texts::ranks`].
    hex: Vec<(u32, u64)>,
    /// The prefixes of [`Texts::intern_hex`] (`module+0x`), each once.
    prefixes: Vec<Vec<u8>>,
    prefix_ids: FxHashMap<Vec<u8>, u32>,
    hex_buf: Vec<u8>,
}

/// A text not made by [`Texts::intern_hex`].
const NO_PREFIX: u32 = u32::MAX;

/// Appends `n` in lowercase hex without leading zeros (`format!("{n:x}")`, which costs
/// several times more: a million frame texts are made this way).
fn push_hex_digits(out: &mut Vec<u8>, n: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digits = (16 - n.leading_zeros() as usize / 4).max(1);
    for i in (0..digits).rev() {
        out.push(
            DIGITS
                .get(((n >> (4 * i)) & 0xf) as usize)
                .copied()
                .unwrap_or(b'0'),
        );
    }
}

/// The order of the strings `hex digits of n` + `sep` (no leading zeros) as one number: each
/// byte a 5-bit symbol in the bytes' order, a missing byte (the string ended) the least, 17
/// places (16 digits and the separator).
pub(super) fn hex_key(n: u64, sep: u8) -> u128 {
    let digits = (16 - n.leading_zeros() as usize / 4).max(1);
    let mut key = 0u128;
    for i in (0..digits).rev() {
        let d = ((n >> (4 * i)) & 0xf) as u128;
        // '0'..='9' → 2..=11, ';' → 12, 'a'..='f' → 13..=18.
        key = (key << 5) | if d < 10 { d + 2 } else { d + 3 };
    }
    let sep = if sep == b' ' { 1 } else { 12 };
    key = (key << 5) | sep;
    key << (5 * (16 - digits))
}

impl Texts {
    /// Texts held.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// The id of the text `prefix` + `n` in lowercase hex (`format!("{prefix}{n:x}")`), added
    /// when new; `prefix` is one of [`Texts::prefix`].
    pub fn intern_hex(&mut self, prefix: u32, n: u64) -> u32 {
        let mut buf = std::mem::take(&mut self.hex_buf);
        buf.clear();
        buf.extend_from_slice(self.prefixes.get(prefix as usize).map_or(&[][..], |p| p));
        push_hex_digits(&mut buf, n);
        let before = self.len();
        let id = self.intern(&buf);
        self.hex_buf = buf;
        if self.len() > before {
            self.hex.resize(self.len(), (NO_PREFIX, 0));
            if let Some(h) = self.hex.get_mut(id as usize) {
                *h = (prefix, n);
            }
        }
        id
    }

    /// The id of a prefix for [`Texts::intern_hex`].
    pub fn prefix(&mut self, prefix: &[u8]) -> u32 {
        if let Some(&p) = self.prefix_ids.get(prefix) {
            return p;
        }
        let p = u32::try_from(self.prefixes.len()).unwrap_or(NO_PREFIX);
        self.prefixes.push(prefix.to_vec());
        self.prefix_ids.insert(prefix.to_vec(), p);
        p
    }

    /// The rank of each text (by id) in the byte order of `text;` (the order of two lines
    /// that go on after two different texts at the same place: no text holds a `;`), and
    /// of `text ` (a line that ends with it), both counted from 1 over all `2 × len` strings.
    /// The second is `None` when one of the strings is the start of another (a text that
    /// starts with another one and a space), where the order of lines also depends on counts.
    fn ranks(&self, threads: bool) -> (Vec<u32>, Option<Vec<u32>>) {
        self.ranks_by_prefix(threads)
            .unwrap_or_else(|| self.ranks_by_bytes(threads))
    }

    /// [`Texts::ranks`] of any texts: their strings sorted by their bytes.
    pub(super) fn ranks_by_bytes(&self, threads: bool) -> (Vec<u32>, Option<Vec<u32>>) {
        // 15 bytes from `depth` (zeros past the end) and how many of them there are: a
        // string before the strings it starts (a zero byte in a text would look like the
        // padding; the count tells them apart).
        let key = |item: u32, depth: usize| {
            let (text, sep) = self.item(item);
            let mut k = 0u128;
            let mut n = 0u128;
            for i in depth..depth + 15 {
                let b = match text.get(i) {
                    Some(&b) => Some(b),
                    None if i == text.len() => Some(sep),
                    None => None,
                };
                n += u128::from(b.is_some());
                k = (k << 8) | u128::from(b.unwrap_or(0));
            }
            (k << 8) | n
        };
        let n = u32::try_from(self.len())
            .unwrap_or(u32::MAX / 2)
            .min(u32::MAX / 2);
        let mut all: Vec<(u128, u32)> = (0..n * 2).map(|i| (0, i)).collect();
        msd_sort(&mut all, 15, &key, &|k| k & 0xff == 15, threads);
        self.ranks_in_order(&all, None)
    }

    /// The ranks of [`Texts::ranks`] from the items (`2 · id + end`) in order, and whether a
    /// string starts the next one (only the strings of `may_start` are compared, when given:
    /// the others start none).
    fn ranks_in_order(
        &self,
        order: &[(u128, u32)],
        may_start: Option<&[u32]>,
    ) -> (Vec<u32>, Option<Vec<u32>>) {
        let mut through = vec![0u32; self.len()];
        let mut end = vec![0u32; self.len()];
        for (rank, &(_, item)) in order.iter().enumerate() {
            let slot = if item & 1 == 1 {
                end.get_mut((item >> 1) as usize)
            } else {
                through.get_mut((item >> 1) as usize)
            };
            if let Some(r) = slot {
                *r = rank as u32 + 1;
            }
        }
        let starts = |a: u32, b: u32| {
            let ((ta, sa), (tb, _)) = (self.item(a), self.item(b));
            tb.len() > ta.len() && tb.starts_with(ta) && tb.get(ta.len()) == Some(&sa)
        };
        let prefix = match may_start {
            None => order.windows(2).any(|w| match w {
                &[(_, a), (_, b)] => starts(a, b),
                _ => false,
            }),
            Some(items) => items.iter().any(|&a| {
                let ranks = if a & 1 == 1 { &end } else { &through };
                // The item after `a` is at `a`'s rank (ranks count from 1).
                let next = ranks
                    .get((a >> 1) as usize)
                    .and_then(|&r| order.get(r as usize));
                next.is_some_and(|&(_, b)| starts(a, b))
            }),
        };
        (through, (!prefix).then_some(end))
    }

    /// [`Texts::ranks`] when texts were made by [`Texts::intern_hex`]: the other texts'
    /// strings and the prefixes are sorted by their bytes (a few), then every string by (the
    /// place of its own string or of its prefix there, its hex digits and separator as
    /// [`hex_key`]): one sort of numbers, with no text read. `None` when there are no such
    /// texts, or a prefix does not keep its texts together (another string or prefix starts
    /// with it).
    pub(super) fn ranks_by_prefix(&self, threads: bool) -> Option<(Vec<u32>, Option<Vec<u32>>)> {
        let n = self.len();
        if self.prefixes.is_empty() || n >= (u32::MAX / 2) as usize {
            return None;
        }
        let prefix_of = |id: usize| self.hex.get(id).map_or(NO_PREFIX, |h| h.0);
        // The other texts' items, then the prefixes as `2 · n + p`.
        let base = 2 * n as u32;
        let bytes = |entry: u32| match entry.checked_sub(base) {
            Some(p) => (self.prefixes.get(p as usize).map_or(&[][..], |p| p), None),
            None => {
                let (text, sep) = self.item(entry);
                (text, Some(sep))
            }
        };
        let string = |entry: u32| {
            let (text, sep) = bytes(entry);
            text.iter().copied().chain(sep)
        };
        let mut entries: Vec<u32> = (0..n)
            .filter(|&id| prefix_of(id) == NO_PREFIX)
            .flat_map(|id| [2 * id as u32, 2 * id as u32 + 1])
            .chain((0..self.prefixes.len() as u32).map(|p| base + p))
            .collect();
        entries.sort_unstable_by(|&a, &b| string(a).cmp(string(b)));
        let mut all: Vec<(u128, u32)> = (0..base).map(|i| (0, i)).collect();
        let mut places = vec![0u128; self.prefixes.len()];
        for (i, w) in entries.iter().enumerate() {
            let place = (i as u128) << 85;
            match w.checked_sub(base) {
                Some(p) => {
                    // Whatever follows a prefix in the order and starts with it would sort
                    // among its texts.
                    let (prefix, _) = bytes(*w);
                    let next = entries.get(i + 1).map(|&e| string(e));
                    if next.is_some_and(|next| next.take(prefix.len()).eq(prefix.iter().copied())) {
                        return None;
                    }
                    if let Some(slot) = places.get_mut(p as usize) {
                        *slot = place;
                    }
                }
                None => {
                    if let Some(slot) = all.get_mut(*w as usize) {
                        slot.0 = place;
                    }
                }
            }
        }
        for (id, &(p, offset)) in self.hex.iter().enumerate() {
            let Some(&place) = places.get(p as usize) else {
                continue;
            };
            for (item, sep) in [(2 * id, b';'), (2 * id + 1, b' ')] {
                if let Some(slot) = all.get_mut(item) {
                    slot.0 = place | hex_key(offset, sep);
                }
            }
        }
        crate::msd::sort_by_key(&mut all, threads);
        // A text made of a prefix and hex digits holds neither separator after its prefix,
        // and no other string starts with its prefix: its strings start no other.
        entries.retain(|&e| e < base);
        Some(self.ranks_in_order(&all, Some(&entries)))
    }

    /// Item `2 · id + end` of [`Texts::ranks`]: a text and its separator (` ` when a line
    /// ends with it, `;` when the line goes on).
    fn item(&self, item: u32) -> (&[u8], u8) {
        (self.get(item >> 1), if item & 1 == 1 { b' ' } else { b';' })
    }

    pub fn get(&self, id: u32) -> &[u8] {
        let (start, end) = self.spans.get(id as usize).copied().unwrap_or((0, 0));
        self.bytes.get(start..end).unwrap_or(&[])
    }

    /// The id of `text`, added when new.
    pub fn intern(&mut self, text: &[u8]) -> u32 {
        let hash = hash_bytes(text);
        let (bytes, spans) = (&self.bytes, &self.spans);
        let found = self.index.find(hash, |&i| {
            let (s, e) = spans.get(i as usize).copied().unwrap_or((0, 0));
            bytes.get(s..e) == Some(text)
        });
        if let Some(&id) = found {
            return id;
        }
        let id = u32::try_from(self.spans.len()).unwrap_or(u32::MAX);
        let start = self.bytes.len();
        self.bytes.extend_from_slice(text);
        self.spans.push((start, self.bytes.len()));
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.index
            .insert_unique(hash, id, |&i| hashes.get(i as usize).copied().unwrap_or(0));
        id
    }
}

/// A distinct line: where its tokens are, and its count.
#[derive(Clone, Copy)]
struct Line {
    hash: u64,
    start: usize,
    len: u32,
    /// The order it was first counted in (its tokens' order in memory).
    id: u32,
    count: u64,
}

/// The distinct folded lines: text-id sequences (command parts, then frames root first), with
/// their counts kept in the lookup table itself (one probe per sample).
#[derive(Default)]
pub(super) struct Lines {
    tokens: Vec<u32>,
    index: HashTable<Line>,
}

impl Lines {
    /// Adds `n` to the count of the line of `tokens` (added when new).
    pub fn count(&mut self, tokens: &[u32], n: u64) {
        let hash = hash_words(tokens);
        let all = &self.tokens;
        let found = self.index.find_mut(hash, |l| {
            l.hash == hash && all.get(l.start..l.start + l.len as usize) == Some(tokens)
        });
        if let Some(l) = found {
            l.count = l.count.saturating_add(n);
            return;
        }
        let line = Line {
            hash,
            start: self.tokens.len(),
            len: u32::try_from(tokens.len()).unwrap_or(u32::MAX),
            id: u32::try_from(self.index.len()).unwrap_or(u32::MAX),
            count: n,
        };
        self.tokens.extend_from_slice(tokens);
        self.index.insert_unique(hash, line, |l| l.hash);
    }

    /// Distinct lines.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    fn tokens_of(&self, l: &Line) -> &[u32] {
        self.tokens
            .get(l.start..l.start + l.len as usize)
            .unwrap_or(&[])
    }

    /// Writes the lines of a count above 0 in the byte order of the whole line
    /// (`LC_ALL=C sort`): `text;text;… count`. With `threads`, the sort and the formatting are
    /// shared with a second thread.
    pub fn write(&self, texts: &Texts, threads: bool, out: &mut impl Write) -> std::io::Result<()> {
        self.write_buffers(texts, threads, &mut |buf| {
            out.write_all(&buf)?;
            Ok(buf)
        })
    }

    /// [`Lines::write`], handing each filled buffer (a few MB of whole lines) to `sink`, which
    /// gives back a buffer to fill next (the same one, or another: no copy is needed to send
    /// the text elsewhere).
    pub fn write_buffers(
        &self,
        texts: &Texts,
        threads: bool,
        sink: &mut dyn FnMut(Vec<u8>) -> std::io::Result<Vec<u8>>,
    ) -> std::io::Result<()> {
        let none = Line {
            hash: 0,
            start: 0,
            len: 0,
            id: 0,
            count: 0,
        };
        // In the order of their tokens in memory (the first sort reads them all): each put in
        // its place, rather than sorted there.
        let mut lines = vec![none; self.index.len()];
        for l in self.index.iter() {
            if let Some(slot) = lines.get_mut(l.id as usize) {
                *slot = *l;
            }
        }
        lines.retain(|l| l.count > 0);
        let mut order: Vec<u32> = (0..lines.len() as u32).collect();
        let line = |i: u32| lines.get(i as usize).copied().unwrap_or(none);
        let (through, end) = texts.ranks(threads);
        match end {
            Some(end) => self.sort_by_ranks(&lines, &mut order, &through, &end, threads),
            None => order.sort_unstable_by(|&a, &b| {
                let (la, lb) = (line(a), line(b));
                compare(
                    texts,
                    &through,
                    self.tokens_of(&la),
                    la.count,
                    self.tokens_of(&lb),
                    lb.count,
                )
            }),
        }
        // A line's start shared with the line before (in order, most of it) is copied from
        // that line's bytes rather than put together again from its texts.
        let format = |chunk: &[u32], buf: &mut Vec<u8>| {
            let mut prev: &[u32] = &[];
            let mut prev_start = 0;
            // Where each token of the line before ends, from the line's start.
            let mut ends: Vec<usize> = Vec::new();
            for &i in chunk {
                let l = line(i);
                let tokens = self.tokens_of(&l);
                let common = common_prefix(prev, tokens).min(tokens.len().saturating_sub(1));
                let start = buf.len();
                ends.truncate(common);
                if let Some(&end) = ends.last() {
                    buf.extend_from_within(prev_start..prev_start + end);
                }
                for (n, &t) in tokens.iter().enumerate().skip(common) {
                    if n > 0 {
                        buf.push(b';');
                    }
                    buf.extend_from_slice(texts.get(t));
                    ends.push(buf.len() - start);
                }
                buf.push(b' ');
                push_count(buf, l.count);
                buf.push(b'\n');
                prev = tokens;
                prev_start = start;
            }
        };
        const CHUNK: usize = 2048;
        if !threads {
            let mut buf = Vec::with_capacity(1 << 21);
            for chunk in order.chunks(CHUNK) {
                buf.clear();
                format(chunk, &mut buf);
                buf = sink(buf)?;
            }
            return Ok(());
        }
        // Chunks of lines formatted in turn here and on a second thread, written in order.
        std::thread::scope(|scope| {
            let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
            let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
            let order = &order;
            scope.spawn(move || {
                for chunk in order.chunks(CHUNK).skip(1).step_by(2) {
                    let mut buf = empty_rx
                        .try_recv()
                        .unwrap_or_else(|_| Vec::with_capacity(1 << 21));
                    buf.clear();
                    format(chunk, &mut buf);
                    if full_tx.send(buf).is_err() {
                        break;
                    }
                }
            });
            let mut buf = Vec::with_capacity(1 << 21);
            for (i, chunk) in order.chunks(CHUNK).enumerate() {
                if i % 2 == 0 {
                    buf.clear();
                    format(chunk, &mut buf);
                    buf = sink(buf)?;
                } else {
                    let theirs = full_rx
                        .recv()
                        .map_err(|_| std::io::Error::other("the formatting thread stopped"))?;
                    let _ = empty_tx.send(sink(theirs)?);
                }
            }
            Ok(())
        })
    }

    /// Sorts lines by their sequences of ranks (`through` for a text the line goes on after,
    /// `end` for its last one; see [`Texts::ranks`]), which is the byte order of the lines
    /// when no rank string starts another. Most significant digit first: the ranks of a few
    /// places at a time packed into one key, sorted, then each run of equal keys by the next
    /// places (the keys sort in a compact array, the lines' tokens are read once per place).
    /// With `threads`, the runs after the first places are shared with a second thread.
    fn sort_by_ranks(
        &self,
        lines: &[Line],
        order: &mut [u32],
        through: &[u32],
        end: &[u32],
        threads: bool,
    ) {
        let max = through.len().saturating_mul(2).max(1) as u128;
        let bits = (128 - max.leading_zeros()).max(1);
        let per_key = (128 / bits) as usize;
        let none = Line {
            hash: 0,
            start: 0,
            len: 0,
            id: 0,
            count: 0,
        };
        let key = |i: u32, depth: usize| {
            let l = lines.get(i as usize).copied().unwrap_or(none);
            let tokens = self.tokens_of(&l);
            let mut key = 0u128;
            for place in depth..depth + per_key {
                let rank = match tokens.get(place) {
                    Some(&t) if place + 1 < tokens.len() => {
                        through.get(t as usize).copied().unwrap_or(0)
                    }
                    Some(&t) => end.get(t as usize).copied().unwrap_or(0),
                    None => 0,
                };
                key = (key << bits) | u128::from(rank);
            }
            key
        };
        // Equal keys whose last place is empty belong to lines that ended: equal lines,
        // which cannot be.
        let more = |k: u128| k & ((1u128 << bits) - 1) != 0;
        let mut elems: Vec<(u128, u32)> = order.iter().map(|&i| (0, i)).collect();
        msd_sort(&mut elems, per_key, &key, &more, threads);
        for (o, e) in order.iter_mut().zip(&elems) {
            *o = e.1;
        }
    }
}

/// The bytes of a line from its `i`-th token on: `text;text;… count`, with the separator
/// before token `i` (`;`, or ` ` when the line ends before it; nothing at the start).
struct Tail<'a> {
    texts: &'a Texts,
    tokens: &'a [u32],
    /// The next token to emit.
    next: usize,
    /// The rest of the current token's text.
    piece: &'a [u8],
    digits: [u8; 20],
    digit: usize,
    digits_len: usize,
    /// 0: a separator next; 1: a token (or the count) next; 2: the count's digits.
    state: u8,
}

impl<'a> Tail<'a> {
    fn new(texts: &'a Texts, tokens: &'a [u32], count: u64, i: usize) -> Tail<'a> {
        let mut v = Vec::with_capacity(20);
        push_count(&mut v, count);
        let mut digits = [0u8; 20];
        for (d, s) in digits.iter_mut().zip(&v) {
            *d = *s;
        }
        let state = if i == 0 && !tokens.is_empty() { 1 } else { 0 };
        Tail {
            texts,
            tokens,
            next: i,
            piece: &[],
            digits,
            digit: 0,
            digits_len: v.len(),
            state,
        }
    }

    fn next_byte(&mut self) -> Option<u8> {
        loop {
            if let Some((&b, rest)) = self.piece.split_first() {
                self.piece = rest;
                return Some(b);
            }
            match self.state {
                0 => {
                    self.state = 1;
                    return Some(if self.next < self.tokens.len() {
                        b';'
                    } else {
                        b' '
                    });
                }
                1 => match self.tokens.get(self.next) {
                    Some(&t) => {
                        self.next += 1;
                        self.piece = self.texts.get(t);
                        self.state = 0;
                    }
                    None => self.state = 2,
                },
                _ => {
                    if self.digit >= self.digits_len {
                        return None;
                    }
                    self.digit += 1;
                    return self.digits.get(self.digit - 1).copied();
                }
            }
        }
    }
}

/// The length of the common start of `a` and `b`.
fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        if x != y {
            break;
        }
        i += 8;
    }
    let (a, b) = (a.get(i..).unwrap_or(&[]), b.get(i..).unwrap_or(&[]));
    i + a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Compares two lines by the bytes of the whole text (`a;b;c count`). `ranks`: see
/// [`Texts::ranks`].
fn compare(
    texts: &Texts,
    ranks: &[u32],
    a: &[u32],
    count_a: u64,
    b: &[u32],
    count_b: u64,
) -> Ordering {
    let i = common_prefix(a, b);
    // The usual case: two different texts at the same place, both lines going on after them.
    if let (Some(&x), Some(&y), true) = (a.get(i), b.get(i), i + 1 < a.len().min(b.len())) {
        return ranks.get(x as usize).cmp(&ranks.get(y as usize));
    }
    // Two different texts that differ within both.
    if let (Some(&x), Some(&y)) = (a.get(i), b.get(i)) {
        let (tx, ty) = (texts.get(x), texts.get(y));
        let common = tx.len().min(ty.len());
        if let Some(k) = (0..common).find(|&k| tx.get(k) != ty.get(k)) {
            return tx.get(k).cmp(&ty.get(k));
        }
    }
    let (mut ta, mut tb) = (
        Tail::new(texts, a, count_a, i),
        Tail::new(texts, b, count_b, i),
    );
    loop {
        match (ta.next_byte(), tb.next_byte()) {
            (None, None) => return Ordering::Equal,
            (x, y) if x != y => return x.cmp(&y),
            _ => {}
        }
    }
}
