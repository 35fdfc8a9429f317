//! `perfscope script`: every record in file order with its decoded fields.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::summary::Summary;
use perfscope_format::metadata::Metadata;
use perfscope_format::records::{
    CpuMapData, EventUpdate, Mmap2FileId, ReadData, ReadValues, SampleId, SampleRecord,
};
use perfscope_format::walk::Item;
use perfscope_format::{RawRecord, Record};
use serde_json::{json, Map, Value};

use super::input::Input;
use super::walk::walk;

/// Arguments of `perfscope script`.
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object per record and line instead of text.
    #[arg(long)]
    json: bool,
    /// A perf.data file or a `perf record --threads` directory.
    file: PathBuf,
}

/// Runs `perfscope script`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let input = Input::read(&args.file)?;
    let name = args.file.display().to_string();
    let summary = Summary::from_bytes(&input.bytes);
    let mut printer = Printer {
        out: BufWriter::new(io::stdout().lock()),
        json: args.json,
        names: summary.events.iter().map(|e| e.name.clone()).collect(),
        parts: std::iter::once(None)
            .chain(
                input
                    .extra
                    .iter()
                    .map(|(path, _)| path.file_name().map(|n| n.to_string_lossy().into_owned())),
            )
            .collect(),
        failed: false,
        io_error: None,
    };
    let result = walk(&input, |meta, part, item| match item {
        Item::Record(raw) => printer.print_record(meta, part, raw),
        Item::Error(e) => printer.error(part, &name, e),
    });
    if let Err(e) = result {
        eprintln!("error: {name}: {e}");
        printer.failed = true;
    }
    match printer.io_error.take() {
        // The reader went away (e.g. `| head`): stop quietly.
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Some(e) => return Err(format!("cannot write: {e}")),
        None => {}
    }
    if let Err(e) = printer.out.flush() {
        if e.kind() != io::ErrorKind::BrokenPipe {
            return Err(format!("cannot write: {e}"));
        }
    }
    Ok(if printer.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

struct Printer<W: Write> {
    out: W,
    json: bool,
    names: Vec<String>,
    /// The directory part names (`data.N`), by part index; `None` for the main file.
    parts: Vec<Option<String>>,
    failed: bool,
    /// The first write error; nothing more is written after one.
    io_error: Option<io::Error>,
}

impl<W: Write> Printer<W> {
    fn error(&mut self, part: usize, name: &str, e: &perfscope_format::Error) {
        let _ = self.out.flush();
        match self.parts.get(part).cloned().flatten() {
            Some(p) => eprintln!("error: {name}/{p}: {e}"),
            None => eprintln!("error: {name}: {e}"),
        }
        self.failed = true;
    }

    fn print_record(&mut self, meta: &Metadata, part: usize, raw: &RawRecord<'_>) {
        if self.io_error.is_some() {
            return;
        }
        if let Err(e) = self.try_print_record(meta, part, raw) {
            self.io_error = Some(e);
        }
    }

    fn try_print_record(
        &mut self,
        meta: &Metadata,
        part: usize,
        raw: &RawRecord<'_>,
    ) -> io::Result<()> {
        {
            let rec = match meta.parse(raw) {
                Ok(rec) => rec,
                Err(e) => {
                    self.out.flush()?;
                    eprintln!(
                        "error: {} record at 0x{:x}: {e}",
                        raw.header.type_, raw.offset
                    );
                    self.failed = true;
                    return Ok(());
                }
            };
            if let Record::EventUpdate(u) = &rec {
                if let (EventUpdate::Name(n), Some(e)) = (u.update, meta.events.event_of_id(u.id)) {
                    if let Some(slot) = self.names.get_mut(e.index()) {
                        *slot = n.to_string();
                    }
                }
            }
            let mut fields = Fields::default();
            if let Some(p) = self.parts.get(part).cloned().flatten() {
                fields.push("file", Val::Str(p));
            }
            self.describe(meta, &rec, &mut fields);
            let type_ = raw.header.type_;
            if self.json {
                let mut obj = Map::new();
                obj.insert("type".into(), json!(type_.to_string()));
                obj.insert("offset".into(), json!(raw.offset));
                if let Some(inner) = raw.inner_offset {
                    obj.insert("inner_offset".into(), json!(inner));
                }
                obj.insert("misc".into(), json!(raw.header.misc));
                obj.insert("size".into(), json!(raw.header.size));
                for (k, v) in fields.0 {
                    obj.insert(k.into(), v.to_json());
                }
                writeln!(self.out, "{}", Value::Object(obj))?;
            } else {
                write!(self.out, "0x{:x} {type_}", raw.offset)?;
                let mut chain = None;
                for (k, v) in fields.0 {
                    match (k, v) {
                        ("callchain", Val::List(l)) => chain = Some(l),
                        (k, v) => write!(self.out, " {k}={}", v.to_text())?,
                    }
                }
                writeln!(self.out)?;
                for ip in chain.unwrap_or_default() {
                    writeln!(self.out, "\t{}", ip.to_text())?;
                }
            }
        }
        Ok(())
    }

    fn describe(&self, meta: &Metadata, rec: &Record<'_>, f: &mut Fields) {
        use Val::{Bool, Hex, Str, I, U};
        match rec {
            Record::Sample(s) => self.describe_sample(meta, s, f),
            Record::Mmap(m) => {
                f.push("pid", I(i64::from(m.pid as i32)));
                f.push("tid", I(i64::from(m.tid as i32)));
                f.push("start", Hex(m.start));
                f.push("len", Hex(m.len));
                f.push("pgoff", Hex(m.pgoff));
                f.push("filename", Str(m.filename.to_string()));
            }
            Record::Mmap2(m) => {
                f.push("pid", I(i64::from(m.pid as i32)));
                f.push("tid", I(i64::from(m.tid as i32)));
                f.push("start", Hex(m.start));
                f.push("len", Hex(m.len));
                f.push("pgoff", Hex(m.pgoff));
                match m.file_id {
                    Mmap2FileId::Inode {
                        maj,
                        min,
                        ino,
                        ino_generation,
                    } => {
                        f.push("maj", U(maj.into()));
                        f.push("min", U(min.into()));
                        f.push("ino", U(ino));
                        f.push("ino_generation", U(ino_generation));
                    }
                    Mmap2FileId::BuildId(id) => f.push("build_id", Str(hex_bytes(id))),
                }
                f.opt("prot", m.prot.map(|p| U(p.into())));
                f.opt("flags", m.flags.map(|p| Hex(p.into())));
                f.push("filename", Str(m.filename.to_string()));
            }
            Record::Comm(c) => {
                f.push("pid", I(i64::from(c.pid as i32)));
                f.push("tid", I(i64::from(c.tid as i32)));
                f.push("comm", Str(c.comm.to_string()));
                f.push("exec", Bool(c.is_exec()));
            }
            Record::Fork(x) | Record::Exit(x) => {
                f.push("pid", I(i64::from(x.pid as i32)));
                f.push("ppid", I(i64::from(x.ppid as i32)));
                f.push("tid", I(i64::from(x.tid as i32)));
                f.push("ptid", I(i64::from(x.ptid as i32)));
                f.push("fork_time", U(x.time));
            }
            Record::Lost(l) => {
                f.push("id", U(l.id));
                f.push("lost", U(l.lost));
            }
            Record::LostSamples(l) => f.push("lost", U(l.lost)),
            Record::Throttle(t) | Record::Unthrottle(t) => {
                f.push("throttle_time", U(t.time));
                f.push("id", U(t.id));
                f.push("stream_id", U(t.stream_id));
            }
            Record::Read(r) => {
                f.push("pid", I(i64::from(r.pid as i32)));
                f.push("tid", I(i64::from(r.tid as i32)));
                read_fields(&r.values, f);
            }
            Record::Aux(a) => {
                f.push("aux_offset", Hex(a.aux_offset));
                f.push("aux_size", Hex(a.aux_size));
                f.push("flags", Hex(a.flags));
            }
            Record::ItraceStart(i) => {
                f.push("pid", I(i64::from(i.pid as i32)));
                f.push("tid", I(i64::from(i.tid as i32)));
            }
            Record::Switch(s) | Record::SwitchCpuWide(s) => {
                f.push("out", Bool(s.is_out()));
                f.push("preempt", Bool(s.is_preempt()));
                f.opt(
                    "next_prev_pid",
                    s.next_prev_pid.map(|p| I(i64::from(p as i32))),
                );
                f.opt(
                    "next_prev_tid",
                    s.next_prev_tid.map(|p| I(i64::from(p as i32))),
                );
            }
            Record::Namespaces(n) => {
                f.push("pid", I(i64::from(n.pid as i32)));
                f.push("tid", I(i64::from(n.tid as i32)));
                let l = n
                    .iter()
                    .map(|l| Str(format!("{}/{:#x}", l.dev, l.ino)))
                    .collect();
                f.push("namespaces", Val::List(l));
            }
            Record::Ksymbol(k) => {
                f.push("addr", Hex(k.addr));
                f.push("len", U(k.len.into()));
                f.push("ksym_type", U(k.ksym_type.into()));
                f.push("unregister", Bool(k.is_unregister()));
                f.push("name", Str(k.name.to_string()));
            }
            Record::BpfEvent(b) => {
                f.push("bpf_type", U(b.type_.into()));
                f.push("prog_id", U(b.id.into()));
                f.push("tag", Str(hex_bytes(&b.tag)));
            }
            Record::Cgroup(c) => {
                f.push("cgroup_id", U(c.id));
                f.push("path", Str(c.path.to_string()));
            }
            Record::TextPoke(t) => {
                f.push("addr", Hex(t.addr));
                f.push("old", Str(hex_bytes(t.old_bytes)));
                f.push("new", Str(hex_bytes(t.new_bytes)));
            }
            Record::AuxOutputHwId(h) => f.push("hw_id", Hex(h.hw_id)),
            Record::CallchainDeferred(d) => {
                f.push("cookie", U(d.cookie));
                f.push(
                    "callchain",
                    Val::List(d.callchain.frames().map(|fr| Hex(fr.addr)).collect()),
                );
            }
            Record::HeaderAttr(a) => {
                f.push("attr_type", U(a.attr.type_.into()));
                f.push("config", Hex(a.attr.config));
                f.push("sample_type", Hex(a.attr.sample_type));
                f.push("ids", Val::List(a.ids.iter().map(U).collect()));
            }
            Record::HeaderEventType(t) => {
                f.push("event_id", U(t.event_id));
                f.push("name", Str(t.name.to_string()));
            }
            Record::TracingData(t) => f.push("data_size", U(t.data.len() as u64)),
            Record::HeaderBuildId(b) => {
                f.push("pid", I(b.pid.into()));
                f.push("build_id", Str(hex_bytes(b.build_id)));
                f.push("filename", Str(b.filename.to_string()));
            }
            Record::IdIndex(ix) => {
                let l = ix
                    .iter()
                    .map(|e| Str(format!("{}:{}", e.id, e.idx)))
                    .collect();
                f.push("id_to_event", Val::List(l));
            }
            Record::AuxtraceInfo(i) => f.push("auxtrace_type", U(i.type_.into())),
            Record::Auxtrace(a) => {
                f.push("aux_size", U(a.size));
                f.push("aux_offset", Hex(a.offset));
                f.push("idx", U(a.idx.into()));
                f.push("tid", I(i64::from(a.tid as i32)));
                f.push("cpu", I(i64::from(a.cpu as i32)));
            }
            Record::AuxtraceError(e) => {
                f.push("error_type", U(e.type_.into()));
                f.push("code", U(e.code.into()));
                f.push("cpu", I(i64::from(e.cpu as i32)));
                f.push("pid", I(i64::from(e.pid as i32)));
                f.push("tid", I(i64::from(e.tid as i32)));
                f.push("ip", Hex(e.ip));
                f.push("msg", Str(e.msg.to_string()));
            }
            Record::ThreadMap(t) => {
                let l = t
                    .iter()
                    .map(|e| Str(format!("{}:{}", e.pid as i64, e.comm)))
                    .collect();
                f.push("threads", Val::List(l));
            }
            Record::CpuMap(c) => f.push("cpus", cpu_list(&c.data)),
            Record::StatConfig(c) => {
                f.push(
                    "terms",
                    Val::List(c.iter().map(|(t, v)| Str(format!("{t}={v}"))).collect()),
                );
            }
            Record::Stat(s) => {
                f.push("id", U(s.id));
                f.push("cpu", I(i64::from(s.cpu as i32)));
                f.push("thread", I(i64::from(s.thread as i32)));
                f.push("val", U(s.val));
                f.push("ena", U(s.ena));
                f.push("run", U(s.run));
            }
            Record::StatRound(r) => {
                f.push("round_type", U(r.type_));
                f.push("round_time", U(r.time));
            }
            Record::EventUpdate(u) => {
                f.push("id", U(u.id));
                match u.update {
                    EventUpdate::Unit(s) => f.push("unit", Str(s.to_string())),
                    EventUpdate::Scale(x) => f.push("scale", Val::F(x)),
                    EventUpdate::Name(s) => f.push("name", Str(s.to_string())),
                    EventUpdate::Cpus(c) => f.push("cpus", cpu_list(&c)),
                    EventUpdate::Unknown(b) => {
                        f.push("update_type", U(u.type_));
                        f.push("data_size", U(b.len() as u64));
                    }
                }
            }
            Record::TimeConv(t) => {
                f.push("time_shift", U(t.time_shift));
                f.push("time_mult", U(t.time_mult));
                f.push("time_zero", U(t.time_zero));
            }
            Record::HeaderFeature(h) => {
                f.push(
                    "feature",
                    Str(h
                        .feature()
                        .map_or_else(|| h.feat_id.to_string(), |x| x.to_string())),
                );
                f.push("data_size", U(h.data.len() as u64));
            }
            Record::Compressed(c) | Record::Compressed2(c) => {
                f.push("compressed_size", U(c.data.len() as u64))
            }
            Record::BpfMetadata(m) => {
                f.push("prog_name", Str(m.prog_name.to_string()));
                f.push(
                    "entries",
                    Val::List(m.iter().map(|(k, v)| Str(format!("{k}={v}"))).collect()),
                );
            }
            Record::SchedstatCpu(s) | Record::SchedstatDomain(s) => {
                f.push("timestamp", U(s.timestamp));
                f.push("cpu", U(s.cpu.into()));
                f.push("version", U(s.version.into()));
                f.opt("domain", s.domain.map(|d| U(d.into())));
            }
            Record::Unknown(r) => f.push("body_size", U(r.body.len() as u64)),
            _ => {}
        }
        if let Some(sid) = rec.sample_id() {
            self.describe_sample_id(sid, f);
        }
    }

    fn event_name(&self, e: perfscope_format::EventIndex) -> String {
        self.names
            .get(e.index())
            .cloned()
            .unwrap_or_else(|| format!("event{}", e.0))
    }

    fn describe_sample_id(&self, sid: &SampleId, f: &mut Fields) {
        use Val::{I, U};
        let mut any = false;
        let mut sub = Fields::default();
        if let Some(t) = sid.time {
            sub.push("time", U(t));
            any = true;
        }
        sub.opt("pid", sid.pid.map(|p| I(i64::from(p as i32))));
        sub.opt("tid", sid.tid.map(|p| I(i64::from(p as i32))));
        sub.opt("cpu", sid.cpu.map(|p| U(p.into())));
        sub.opt("id", sid.id.map(U));
        sub.opt("stream_id", sid.stream_id.map(U));
        any |= !sub.0.is_empty();
        if any {
            if let Some(e) = sid.event {
                sub.push("event", Val::Str(self.event_name(e)));
            }
            if let Some(t) = sid.time {
                f.push("time", U(t));
            }
            f.push("sample_id", Val::Obj(sub.0));
        }
    }

    fn describe_sample(&self, meta: &Metadata, s: &SampleRecord<'_>, f: &mut Fields) {
        use Val::{Hex, Str, I, U};
        f.push("event", Str(self.event_name(s.event)));
        f.opt("pid", s.pid.map(|p| I(i64::from(p as i32))));
        f.opt("tid", s.tid.map(|p| I(i64::from(p as i32))));
        f.opt("cpu", s.cpu.map(|c| U(c.into())));
        f.opt("time", s.time.map(U));
        let attr_period = meta.events.layout(s.event).and_then(|l| l.attr_period);
        f.opt("period", s.period.or(attr_period).map(U));
        f.opt("ip", s.ip.map(Hex));
        f.opt("addr", s.addr.map(Hex));
        f.opt("id", s.id.map(U));
        f.opt("stream_id", s.stream_id.map(U));
        if let Some(r) = &s.read {
            read_fields(r, f);
        }
        if let Some(cc) = s.callchain {
            f.push(
                "callchain",
                Val::List(cc.frames().map(|fr| Hex(fr.addr)).collect()),
            );
            f.opt("callchain_deferred_cookie", cc.deferred_cookie().map(U));
        }
        f.opt("raw_size", s.raw.map(|r| U(r.len() as u64)));
        if let Some(b) = s.branch_stack {
            let l = b
                .entries()
                .map(|e| Str(format!("{:#x}->{:#x}", e.from, e.to)))
                .collect();
            f.push("branch_stack", Val::List(l));
        }
        if let Some(r) = s.regs_user {
            f.push("regs_user_abi", U(r.abi));
            f.push("regs_user", Val::List(r.values.iter().map(Hex).collect()));
        }
        if let Some(u) = s.stack_user {
            f.push("stack_user_size", U(u.data.len() as u64));
            f.push("stack_user_dyn_size", U(u.dyn_size));
        }
        f.opt("weight", s.weight.map(|w| U(w.weight())));
        f.opt("data_src", s.data_src.map(Hex));
        f.opt("transaction", s.transaction.map(Hex));
        if let Some(r) = s.regs_intr {
            f.push("regs_intr_abi", U(r.abi));
            f.push("regs_intr", Val::List(r.values.iter().map(Hex).collect()));
        }
        f.opt("phys_addr", s.phys_addr.map(Hex));
        f.opt("cgroup", s.cgroup.map(U));
        f.opt("data_page_size", s.data_page_size.map(U));
        f.opt("code_page_size", s.code_page_size.map(U));
        f.opt("aux_size", s.aux.map(|a| U(a.len() as u64)));
    }
}

fn read_fields(r: &ReadData<'_>, f: &mut Fields) {
    use Val::U;
    f.opt("time_enabled", r.time_enabled.map(U));
    f.opt("time_running", r.time_running.map(U));
    let values: Vec<_> = match r.values {
        ReadValues::Single(v) => vec![v],
        ReadValues::Group(g) => g.iter().collect(),
    };
    let l = values
        .iter()
        .map(|v| {
            let mut o = vec![("value", U(v.value))];
            o.extend(v.id.map(|i| ("id", U(i))));
            o.extend(v.lost.map(|i| ("lost", U(i))));
            Val::Obj(o)
        })
        .collect();
    f.push("read", Val::List(l));
}

fn cpu_list(c: &CpuMapData<'_>) -> Val {
    Val::List(c.cpus().map(|c| Val::I(c.into())).collect())
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A field value: printed as text or JSON. Addresses are hex strings in both, as in perf's JSON.
#[derive(Debug, Clone)]
enum Val {
    U(u64),
    I(i64),
    Hex(u64),
    F(f64),
    Bool(bool),
    Str(String),
    List(Vec<Val>),
    Obj(Vec<(&'static str, Val)>),
}

impl Val {
    fn to_json(&self) -> Value {
        match self {
            Val::U(v) => json!(v),
            Val::I(v) => json!(v),
            Val::Hex(v) => json!(format!("{v:#x}")),
            Val::F(v) => json!(v),
            Val::Bool(v) => json!(v),
            Val::Str(s) => json!(s),
            Val::List(l) => Value::Array(l.iter().map(Val::to_json).collect()),
            Val::Obj(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| ((*k).to_string(), v.to_json()))
                    .collect(),
            ),
        }
    }

    fn to_text(&self) -> String {
        match self {
            Val::U(v) => v.to_string(),
            Val::I(v) => v.to_string(),
            Val::Hex(v) => format!("{v:#x}"),
            Val::F(v) => v.to_string(),
            Val::Bool(v) => v.to_string(),
            Val::Str(s) if s.is_empty() || s.contains([' ', '"', '=']) => format!("{s:?}"),
            Val::Str(s) => s.clone(),
            Val::List(l) => format!(
                "[{}]",
                l.iter().map(Val::to_text).collect::<Vec<_>>().join(",")
            ),
            Val::Obj(o) => format!(
                "{{{}}}",
                o.iter()
                    .map(|(k, v)| format!("{k}={}", v.to_text()))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }
}

/// The decoded fields of a record, in print order.
#[derive(Default)]
struct Fields(Vec<(&'static str, Val)>);

impl Fields {
    fn push(&mut self, k: &'static str, v: Val) {
        self.0.push((k, v));
    }

    fn opt(&mut self, k: &'static str, v: Option<Val>) {
        if let Some(v) = v {
            self.0.push((k, v));
        }
    }
}
