//! Folded stacks (`comm;root;…;leaf count`), as inferno, FlameGraph's `stackcollapse-*` and
//! `perfscope collapse` write them: one line per distinct stack, frames root first separated
//! by `;`, a space and a sample count at the end.
//!
//! With [`FoldedImportOptions::comm_first`] (the default, as perf's collapsers write it) the
//! first part is the command: each distinct one becomes a thread named so (pid and tid unknown,
//! `u32::MAX`), and the remaining parts the stack. A line of `count` becomes `count` samples of
//! period 1, so sample counts, flame graphs and a folded export give the text back. Folded text
//! has no time, cpu or event: samples have time 0, cpu `u32::MAX`, event `samples`.

use rustc_hash::FxHashMap;

use super::{numbered_lines, ImportError, Imported, TextKind};
use crate::ids::{FrameIndex, StackIndex, ThreadIndex};
use crate::profile::Profile;
use crate::samples::Sample;

/// Most samples a folded import makes (32 bytes each in the sample table).
pub const MAX_FOLDED_SAMPLES: u64 = 20_000_000;

/// Options of [`import`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldedImportOptions {
    /// The first part of each line is the command name, not a frame.
    pub comm_first: bool,
}

impl Default for FoldedImportOptions {
    fn default() -> Self {
        FoldedImportOptions { comm_first: true }
    }
}

/// One line: the stack text and its count. `Err` with what is wrong.
pub fn parse_line(line: &str) -> Result<(&str, u64), &'static str> {
    let line = line.trim_end();
    let (stack, count) = line
        .rsplit_once([' ', '\t'])
        .ok_or("expected `stack count`")?;
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return Err("the count at the end is not a whole number");
    }
    let count = count.parse().map_err(|_| "the count is too large")?;
    let stack = stack.trim_end();
    if stack.is_empty() || stack.starts_with(char::is_whitespace) {
        return Err("expected `stack count`");
    }
    Ok((stack, count))
}

/// Imports folded stacks. Errors name the first line that is not `stack count`.
pub fn import(bytes: &[u8], options: &FoldedImportOptions) -> Result<Imported, ImportError> {
    let text = String::from_utf8_lossy(bytes);
    let mut p = Profile::new();
    let event = p
        .add_event("samples")
        .map_err(|e| ImportError::capacity(0, e))?;
    let mut threads: FxHashMap<String, ThreadIndex> = FxHashMap::default();
    let mut frames: FxHashMap<String, FrameIndex> = FxHashMap::default();
    let mut no_comm: Option<ThreadIndex> = None;
    let mut total: u64 = 0;
    for (no, line) in numbered_lines(&text) {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (stack_text, count) = parse_line(line).map_err(|m| ImportError::new(no, m))?;
        total = total.saturating_add(count);
        if total > MAX_FOLDED_SAMPLES {
            return Err(ImportError::new(
                no,
                format!("the counts add up to more than {MAX_FOLDED_SAMPLES} samples"),
            ));
        }
        let err = |e| ImportError::capacity(no, e);
        let mut parts = stack_text.split(';');
        let thread = if options.comm_first {
            let comm = parts.next().unwrap_or_default();
            match threads.get(comm) {
                Some(&t) => t,
                None => {
                    let t = p.add_thread(u32::MAX, u32::MAX, comm).map_err(err)?;
                    threads.insert(comm.to_owned(), t);
                    t
                }
            }
        } else {
            match no_comm {
                Some(t) => t,
                None => {
                    let t = p.add_thread(u32::MAX, u32::MAX, "").map_err(err)?;
                    no_comm = Some(t);
                    t
                }
            }
        };
        let mut stack: Option<StackIndex> = None;
        for name in parts {
            let frame = match frames.get(name) {
                Some(&f) => f,
                None => {
                    let func = p.intern_func(name, None).map_err(err)?;
                    let f = p.intern_frame(func, None, 0, 0).map_err(err)?;
                    frames.insert(name.to_owned(), f);
                    f
                }
            };
            stack = Some(p.stacks.intern(stack, frame).map_err(err)?);
        }
        let sample = Sample {
            time: 0,
            thread,
            cpu: u32::MAX,
            event,
            stack,
            period: 1,
        };
        for _ in 0..count {
            p.push_sample(sample).map_err(err)?;
        }
    }
    Ok(Imported {
        profile: p,
        kind: TextKind::Folded,
        skipped_lines: 0,
        first_skipped: None,
    })
}
