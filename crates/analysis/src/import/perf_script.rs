//! `perf script` text: sample header lines, each followed (with callchains) by indented frame
//! lines, leaf first, and a blank line.
//!
//! (frame lines start with a tab)
//!
//! ```text
//!        mt 26314/26314 [001]  3874.783760326:     250000 cpu-clock:pppH:
//!                15389 update_active.constprop.0 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
//!         7f16c893a8a8 [unknown] ([unknown])
//!
//!        mt 26314/26314  3874.784556045:     250000 cpu-clock:pppH:      7f945808a4a2 main+0x12 (/tmp/mt)
//! ```
//!
//! The header's fields follow perf's order (`comm pid/tid [cpu] time: period event: …`); any
//! of them may be missing (`-F`) except the time, which anchors the line. A header without
//! frame lines has its ip, symbol and dso at the end of the line (possibly followed by other
//! fields such as registers). `PERF_RECORD_*` lines (`--show-*-events`) and `#` comments are
//! skipped; other unreadable lines are counted in [`Imported::skipped_lines`].

use rustc_hash::FxHashMap;

use super::{numbered_lines, ImportError, Imported, TextKind};
use crate::ids::{EventIndex, FrameIndex, ModuleIndex, ThreadIndex};
use crate::profile::Profile;
use crate::samples::Sample;

/// The fields of a sample header line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The command (empty when not printed).
    pub comm: &'a str,
    /// Process id (`u32::MAX` when not printed; the tid when only the tid is printed).
    pub pid: u32,
    /// Thread id (`u32::MAX` when not printed).
    pub tid: u32,
    /// CPU (`u32::MAX` when not printed or -1).
    pub cpu: u32,
    /// Time in ns.
    pub time: u64,
    /// Period (1 when not printed).
    pub period: u64,
    /// Event name without the trailing `:` (empty when not printed).
    pub event: &'a str,
    /// The sample's own frame when the line ends with `ip sym (dso)`.
    pub frame: Option<FrameLine<'a>>,
}

/// One frame: `ip sym+0xoff (dso)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLine<'a> {
    /// The address.
    pub ip: u64,
    /// The symbol, without a `+0x…` offset (`[unknown]` when perf printed none).
    pub sym: &'a str,
    /// The dso, without parentheses (`None` when not printed or `[unknown]`).
    pub dso: Option<&'a str>,
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whitespace-separated tokens with their byte offsets.
pub(crate) fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, line.get(s..i).unwrap_or_default()));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, line.get(s..).unwrap_or_default()));
    }
    out
}

/// `3874.783522540:` (or `336.954749:`) as ns.
fn parse_time(token: &str) -> Option<u64> {
    let t = token.strip_suffix(':')?;
    let (secs, frac) = t.split_once('.')?;
    if !is_digits(secs) || !is_digits(frac) || frac.len() > 9 {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    let mut frac_ns: u64 = frac.parse().ok()?;
    for _ in frac.len()..9 {
        frac_ns = frac_ns.checked_mul(10)?;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(frac_ns)
}

/// `sym+0x1f` → `sym`; an empty symbol is `[unknown]`.
fn strip_offset(sym: &str) -> &str {
    let sym = sym.trim();
    let sym = match sym.rsplit_once('+') {
        Some((name, off)) if !name.is_empty() && off.strip_prefix("0x").is_some_and(is_hex) => name,
        _ => sym,
    };
    if sym.is_empty() {
        "[unknown]"
    } else {
        sym
    }
}

fn dso_of(dso: &str) -> Option<&str> {
    let dso = dso.trim();
    (!dso.is_empty() && dso != "[unknown]").then_some(dso)
}

/// The `(…)` group that ends at byte `close` (a `)`), matched backwards: its start.
fn open_paren(s: &str, close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in s.as_bytes().get(..=close)?.iter().enumerate().rev() {
        match b {
            b')' => depth += 1,
            b'(' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A frame line: `\t    addr sym+0xoff (dso)` (the dso may be missing).
pub fn parse_frame(line: &str) -> Option<FrameLine<'_>> {
    let s = line.trim();
    let (ip, rest) = s.split_once(|c: char| c.is_whitespace()).unwrap_or((s, ""));
    if !is_hex(ip) || ip.len() > 16 {
        return None;
    }
    let ip = u64::from_str_radix(ip, 16).ok()?;
    let rest = rest.trim();
    if let Some(close) = rest.len().checked_sub(1).filter(|_| rest.ends_with(')')) {
        if let Some(open) = open_paren(rest, close) {
            let sym = rest.get(..open)?;
            if open == 0 || sym.ends_with(char::is_whitespace) {
                return Some(FrameLine {
                    ip,
                    sym: strip_offset(sym),
                    dso: dso_of(rest.get(open + 1..close)?),
                });
            }
        }
    }
    Some(FrameLine {
        ip,
        sym: strip_offset(rest),
        dso: None,
    })
}

/// The last `ip sym (dso)` in the text after a header's event (followed by nothing or by
/// other fields).
fn trailing_frame(rest: &str) -> Option<FrameLine<'_>> {
    let closes: Vec<usize> = rest
        .char_indices()
        .filter(|&(i, c)| {
            c == ')'
                && rest
                    .get(i + 1..)
                    .is_some_and(|after| after.is_empty() || after.starts_with(char::is_whitespace))
        })
        .map(|(i, _)| i)
        .collect();
    for &close in closes.iter().rev() {
        let Some(open) = open_paren(rest, close) else {
            continue;
        };
        let Some(before) = rest.get(..open) else {
            continue;
        };
        if !before.ends_with(char::is_whitespace) {
            continue;
        }
        let toks = tokens(before);
        // The rightmost hex token with a symbol after it.
        let Some(j) = (0..toks.len().saturating_sub(1)).rev().find(|&j| {
            toks.get(j)
                .is_some_and(|&(_, t)| is_hex(t) && t.len() <= 16)
        }) else {
            continue;
        };
        let (Some(&(_, ip)), Some(&(sym_start, _))) = (toks.get(j), toks.get(j + 1)) else {
            continue;
        };
        let Ok(ip) = u64::from_str_radix(ip, 16) else {
            continue;
        };
        let sym = before.get(sym_start..).unwrap_or_default();
        return Some(FrameLine {
            ip,
            sym: strip_offset(sym),
            dso: dso_of(rest.get(open + 1..close).unwrap_or_default()),
        });
    }
    None
}

/// Whether a token is `pid/tid`, `tid` or `[cpu]`.
fn is_ids(t: &str) -> bool {
    let ids = |t: &str| {
        t.split_once('/').map_or(is_digits(t), |(p, t)| {
            (is_digits(p) || p == "-1") && (is_digits(t) || t == "-1")
        })
    };
    ids(t)
        || t.strip_prefix('[')
            .and_then(|c| c.strip_suffix(']'))
            .is_some_and(|c| is_digits(c.trim_start_matches('-')))
}

/// In a line without a time: the index of the event token (`name:`) right after the ids (or
/// after the ids and a period), and whether a period stands between.
fn event_after_ids(toks: &[(usize, &str)]) -> Option<(usize, bool)> {
    let is_event = |t: &str| t.len() > 1 && t.ends_with(':') && !is_digits(t.trim_end_matches(':'));
    (1..toks.len()).find_map(|k| {
        let &(_, t) = toks.get(k)?;
        if !is_event(t) {
            return None;
        }
        let &(_, before) = toks.get(k - 1)?;
        // `ids period event:` first: a bare number before the event may be a tid or a period.
        let before2 = k.checked_sub(2).and_then(|j| toks.get(j)).map(|&(_, t)| t);
        if is_digits(before) && before2.is_some_and(is_ids) {
            return Some((k, true));
        }
        is_ids(before).then_some((k, false))
    })
}

/// A sample header line (`None`: not one).
pub fn parse_header(line: &str) -> Option<Header<'_>> {
    if line.starts_with('\t') || line.contains("PERF_RECORD_") {
        return None;
    }
    let toks = tokens(line);
    // The time anchors the line; without one (`-F` without time), the event after the ids.
    let (pre_end, post_start, time, mut rest_at) =
        match toks.iter().position(|&(_, t)| parse_time(t).is_some()) {
            Some(k) => {
                let &(at, tok) = toks.get(k)?;
                (k, k + 1, parse_time(tok)?, at + tok.len())
            }
            None => {
                let (k, with_period) = event_after_ids(&toks)?;
                let start = if with_period { k - 1 } else { k };
                let &(at, _) = toks.get(start)?;
                (start, start, 0, at)
            }
        };
    let time_at = toks.get(pre_end).map_or(line.len(), |&(at, _)| at);
    let mut pre = toks.get(..pre_end)?;
    let mut cpu = u32::MAX;
    if let Some((&(_, last), rest)) = pre.split_last() {
        if let Some(c) = last.strip_prefix('[').and_then(|c| c.strip_suffix(']')) {
            cpu = c
                .parse::<i64>()
                .ok()
                .and_then(|c| u32::try_from(c).ok())
                .unwrap_or(u32::MAX);
            pre = rest;
        }
    }
    let (mut pid, mut tid) = (u32::MAX, u32::MAX);
    let mut comm_end = pre.last().map_or(time_at, |&(at, t)| at + t.len());
    if let Some((&(at, last), rest)) = pre.split_last() {
        let ids = match last.split_once('/') {
            Some((p, t)) => p.parse::<i64>().ok().zip(t.parse::<i64>().ok()),
            None if is_digits(last) && !rest.is_empty() => last.parse::<i64>().ok().map(|t| (t, t)),
            None => None,
        };
        if let Some((p, t)) = ids {
            pid = u32::try_from(p).unwrap_or(u32::MAX);
            tid = u32::try_from(t).unwrap_or(u32::MAX);
            comm_end = at;
        }
    }
    let comm = line.get(..comm_end).unwrap_or_default().trim();
    let mut post = toks.get(post_start..).unwrap_or_default();
    let mut period = 1;
    if let Some((&(_, first), rest)) = post.split_first() {
        if is_digits(first) {
            period = first.parse().unwrap_or(u64::MAX);
            post = rest;
        }
    }
    let mut event = "";
    if let Some(&(at, first)) = post.first() {
        if let Some(name) = first.strip_suffix(':').filter(|n| !n.is_empty()) {
            event = name;
            rest_at = at + first.len();
        }
    }
    let frame = line.get(rest_at..).and_then(trailing_frame);
    Some(Header {
        comm,
        pid,
        tid,
        cpu,
        time,
        period,
        event,
        frame,
    })
}

/// Builds the profile sample by sample.
struct Importer {
    profile: Profile,
    threads: FxHashMap<(u32, u32, String), ThreadIndex>,
    events: FxHashMap<String, EventIndex>,
    modules: FxHashMap<String, ModuleIndex>,
    frames: FxHashMap<(Option<ModuleIndex>, u64, String), FrameIndex>,
}

/// A header waiting for its frame lines.
struct Pending {
    line: usize,
    thread: ThreadIndex,
    event: EventIndex,
    time: u64,
    cpu: u32,
    period: u64,
    own: Option<(u64, String, Option<String>)>,
    frames: Vec<FrameIndex>,
}

impl Importer {
    fn frame(&mut self, line: usize, f: &FrameLine<'_>) -> Result<FrameIndex, ImportError> {
        let err = |e| ImportError::capacity(line, e);
        let module = match f.dso {
            Some(d) => Some(match self.modules.get(d) {
                Some(&m) => m,
                None => {
                    let m = self.profile.intern_module(d, None).map_err(err)?;
                    self.modules.insert(d.to_owned(), m);
                    m
                }
            }),
            None => None,
        };
        let key = (module, f.ip, f.sym.to_owned());
        if let Some(&fr) = self.frames.get(&key) {
            return Ok(fr);
        }
        let func = self.profile.intern_func(f.sym, module).map_err(err)?;
        let fr = self
            .profile
            .intern_frame(func, module, f.ip, 0)
            .map_err(err)?;
        self.frames.insert(key, fr);
        Ok(fr)
    }

    fn start(&mut self, line: usize, h: &Header<'_>) -> Result<Pending, ImportError> {
        let err = |e| ImportError::capacity(line, e);
        let key = (h.pid, h.tid, h.comm.to_owned());
        let thread = match self.threads.get(&key) {
            Some(&t) => t,
            None => {
                let t = self.profile.add_thread(h.pid, h.tid, h.comm).map_err(err)?;
                self.threads.insert(key, t);
                t
            }
        };
        let name = if h.event.is_empty() {
            "samples"
        } else {
            h.event
        };
        let event = match self.events.get(name) {
            Some(&e) => e,
            None => {
                let e = self.profile.add_event(name).map_err(err)?;
                self.events.insert(name.to_owned(), e);
                e
            }
        };
        let own = h
            .frame
            .map(|f| (f.ip, f.sym.to_owned(), f.dso.map(str::to_owned)));
        Ok(Pending {
            line,
            thread,
            event,
            time: h.time,
            cpu: h.cpu,
            period: h.period,
            own,
            frames: Vec::new(),
        })
    }

    fn finish(&mut self, p: Pending) -> Result<(), ImportError> {
        let mut leaf_first = p.frames;
        if leaf_first.is_empty() {
            if let Some((ip, sym, dso)) = &p.own {
                let f = FrameLine {
                    ip: *ip,
                    sym,
                    dso: dso.as_deref(),
                };
                leaf_first.push(self.frame(p.line, &f)?);
            }
        }
        let mut stack = None;
        for &frame in leaf_first.iter().rev() {
            stack = Some(
                self.profile
                    .stacks
                    .intern(stack, frame)
                    .map_err(|e| ImportError::capacity(p.line, e))?,
            );
        }
        let sample = Sample {
            time: p.time,
            thread: p.thread,
            cpu: p.cpu,
            event: p.event,
            stack,
            period: p.period,
        };
        self.profile
            .push_sample(sample)
            .map_err(|e| ImportError::capacity(p.line, e))
    }
}

/// Imports `perf script` text. Errors only when a table overflows or nothing in the text is a
/// sample (naming the first line that is not one).
pub fn import(bytes: &[u8]) -> Result<Imported, ImportError> {
    let text = String::from_utf8_lossy(bytes);
    let mut imp = Importer {
        profile: Profile::new(),
        threads: FxHashMap::default(),
        events: FxHashMap::default(),
        modules: FxHashMap::default(),
        frames: FxHashMap::default(),
    };
    let mut pending: Option<Pending> = None;
    let (mut skipped, mut first_skipped) = (0usize, None);
    for (no, line) in numbered_lines(&text) {
        if line.trim().is_empty() {
            if let Some(p) = pending.take() {
                imp.finish(p)?;
            }
            continue;
        }
        if let Some(h) = parse_header(line) {
            if let Some(p) = pending.take() {
                imp.finish(p)?;
            }
            pending = Some(imp.start(no, &h)?);
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            if let (Some(p), Some(f)) = (pending.as_mut(), parse_frame(line)) {
                let fr = imp.frame(no, &f)?;
                p.frames.push(fr);
                continue;
            }
            // Other indented lines of a sample (srcline, brstack, …) are not frames.
            if pending.is_some() {
                continue;
            }
        }
        if let Some(p) = pending.take() {
            imp.finish(p)?;
        }
        if line.contains("PERF_RECORD_") || line.starts_with('#') {
            continue;
        }
        skipped += 1;
        first_skipped.get_or_insert(no);
    }
    if let Some(p) = pending.take() {
        imp.finish(p)?;
    }
    if imp.profile.samples.is_empty() {
        if let Some(line) = first_skipped {
            return Err(ImportError::new(line, "not a perf script sample line (expected `comm pid/tid [cpu] time: period event: …`)"));
        }
    }
    Ok(Imported {
        profile: imp.profile,
        kind: TextKind::PerfScript,
        skipped_lines: skipped,
        first_skipped,
    })
}
