//! A text DSL of stacks for tests, modeled on the Firefox Profiler's `getProfileFromTextSamples`:
//! one column per sample, one row per stack depth, root on the first row.
//!
//! ```text
//! tid:    1  1  2  2
//! time:   0  10 20 30
//! A       A  A  A
//! B       B  C  B
//! C       D     C[lib:libc.so.6]
//! ```
//!
//! Frame rows are split into columns by character position: the tokens of the first frame row
//! (which must name a root for every sample) give where each column starts, and a token belongs
//! to the column whose start is the closest one at or before it. A name may carry a module as
//! `name[lib:module]`. Rows whose first token ends with `:` are per-sample attributes, one
//! value per sample in order: `time:`, `pid:`, `tid:`, `cpu:`, `event:` (a name),
//! `period:` and `comm:` (thread name). Defaults: time = column number, pid = tid = 1, cpu 0,
//! event `cycles`, period 1, comm `app`.

use std::collections::HashMap;

use crate::ids::ThreadIndex;
use crate::profile::Profile;
use crate::samples::Sample;

#[derive(Default)]
struct Attrs {
    time: Option<Vec<u64>>,
    pid: Option<Vec<u32>>,
    tid: Option<Vec<u32>>,
    cpu: Option<Vec<u32>>,
    period: Option<Vec<u64>>,
    event: Option<Vec<String>>,
    comm: Option<Vec<String>>,
}

fn parse_all<T: core::str::FromStr>(key: &str, values: &[&str]) -> Result<Vec<T>, String> {
    values
        .iter()
        .map(|v| v.parse().map_err(|_| format!("{key}: cannot parse {v:?}")))
        .collect()
}

/// Builds a [`Profile`] from the text. Errors name the line that is wrong.
pub fn profile_from_text_samples(text: &str) -> Result<Profile, String> {
    let mut attrs = Attrs::default();
    let mut frame_rows: Vec<Vec<(usize, &str)>> = Vec::new();
    for line in text.lines() {
        let toks = crate::import::perf_script::tokens(line);
        let Some(&(_, first)) = toks.first() else {
            continue;
        };
        if let Some(key) = first.strip_suffix(':') {
            let values: Vec<&str> = toks.iter().skip(1).map(|&(_, t)| t).collect();
            match key {
                "time" => attrs.time = Some(parse_all(key, &values)?),
                "pid" => attrs.pid = Some(parse_all(key, &values)?),
                "tid" => attrs.tid = Some(parse_all(key, &values)?),
                "cpu" => attrs.cpu = Some(parse_all(key, &values)?),
                "period" => attrs.period = Some(parse_all(key, &values)?),
                "event" => attrs.event = Some(values.iter().map(|s| (*s).to_owned()).collect()),
                "comm" => attrs.comm = Some(values.iter().map(|s| (*s).to_owned()).collect()),
                other => return Err(format!("unknown attribute row {other:?}")),
            }
        } else {
            frame_rows.push(toks);
        }
    }
    let starts: Vec<usize> = frame_rows
        .first()
        .map(|r| r.iter().map(|&(p, _)| p).collect())
        .unwrap_or_default();
    let n = starts.len();
    let mut columns: Vec<Vec<&str>> = vec![Vec::new(); n];
    for (row_no, row) in frame_rows.iter().enumerate() {
        for &(pos, tok) in row {
            let col = starts
                .iter()
                .rposition(|&s| s <= pos)
                .ok_or(format!("frame row {row_no}: {tok:?} left of every column"))?;
            let c = columns.get_mut(col).ok_or("column")?;
            if c.len() != row_no {
                return Err(format!(
                    "frame row {row_no}: column {col} has a gap above {tok:?}"
                ));
            }
            c.push(tok);
        }
    }
    let check = |name: &str, len: Option<usize>| match len {
        Some(l) if l != n => Err(format!("{name}: {l} values for {n} samples")),
        _ => Ok(()),
    };
    check("time", attrs.time.as_ref().map(Vec::len))?;
    check("pid", attrs.pid.as_ref().map(Vec::len))?;
    check("tid", attrs.tid.as_ref().map(Vec::len))?;
    check("cpu", attrs.cpu.as_ref().map(Vec::len))?;
    check("period", attrs.period.as_ref().map(Vec::len))?;
    check("event", attrs.event.as_ref().map(Vec::len))?;
    check("comm", attrs.comm.as_ref().map(Vec::len))?;

    let mut p = Profile::new();
    let mut threads: HashMap<(u32, u32, String), ThreadIndex> = HashMap::new();
    let mut events = HashMap::new();
    let e = |r: crate::ids::CapacityError| r.to_string();
    for (i, col) in columns.iter().enumerate() {
        let pick =
            |v: &Option<Vec<u32>>, d: u32| v.as_ref().and_then(|v| v.get(i).copied()).unwrap_or(d);
        let pid = pick(&attrs.pid, 1);
        let tid = pick(&attrs.tid, pid);
        let comm = attrs
            .comm
            .as_ref()
            .and_then(|v| v.get(i).cloned())
            .unwrap_or_else(|| "app".into());
        let thread = match threads.get(&(pid, tid, comm.clone())) {
            Some(&t) => t,
            None => {
                let t = p.add_thread(pid, tid, &comm).map_err(e)?;
                threads.insert((pid, tid, comm), t);
                t
            }
        };
        let event_name = attrs
            .event
            .as_ref()
            .and_then(|v| v.get(i).cloned())
            .unwrap_or_else(|| "cycles".into());
        let event = match events.get(&event_name) {
            Some(&ev) => ev,
            None => {
                let ev = p.add_event(&event_name).map_err(e)?;
                events.insert(event_name, ev);
                ev
            }
        };
        let mut stack = None;
        for tok in col {
            let (name, module) = match tok.split_once("[lib:") {
                Some((name, rest)) => (name, Some(rest.trim_end_matches(']'))),
                None => (*tok, None),
            };
            let module = module
                .map(|m| p.intern_module(m, None))
                .transpose()
                .map_err(e)?;
            let func = p.intern_func(name, module).map_err(e)?;
            let frame = p.intern_frame(func, module, 0, 0).map_err(e)?;
            stack = Some(p.stacks.intern(stack, frame).map_err(e)?);
        }
        p.push_sample(Sample {
            time: attrs
                .time
                .as_ref()
                .and_then(|v| v.get(i).copied())
                .unwrap_or(i as u64),
            thread,
            cpu: pick(&attrs.cpu, 0),
            event,
            stack,
            period: attrs
                .period
                .as_ref()
                .and_then(|v| v.get(i).copied())
                .unwrap_or(1),
        })
        .map_err(e)?;
    }
    Ok(p)
}
