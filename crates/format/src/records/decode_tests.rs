//! Every record type through [`parse_record`], in both byte orders, with its `sample_id` trailer.

use super::*;
use crate::attr::{AttrFlags, EventAttr};
use crate::constants::{read_format as rf, sample_type as st};
use crate::endian::Endianness;
use crate::features::RawStr;
use crate::layout::EventTable;
use crate::testutil::{raw, Builder};
use alloc::vec::Vec;

const ORDERS: [Endianness; 2] = [Endianness::Little, Endianness::Big];
const SAMPLE_TYPE: u64 = st::IP | st::TID | st::TIME | st::CPU | st::IDENTIFIER;

fn table() -> EventTable {
    let a = EventAttr {
        sample_type: SAMPLE_TYPE,
        read_format: rf::TOTAL_TIME_RUNNING | rf::ID,
        flags: AttrFlags(AttrFlags::SAMPLE_ID_ALL),
        ..EventAttr::default()
    };
    EventTable::new([(a, &[41u64][..]), (a, &[42u64][..])])
}

/// Appends the trailer: pid 7, tid 8, time 1000, cpu 1, identifier 42 (event 1).
fn trailer(b: Builder) -> Builder {
    b.u32(7).u32(8).u64(1000).u32(1).u32(0).u64(42)
}

const SID: SampleId = SampleId {
    event: Some(EventIndex(1)),
    pid: Some(7),
    tid: Some(8),
    time: Some(1000),
    id: Some(42),
    stream_id: None,
    cpu: Some(1),
};

fn parse(bytes: &[u8], e: Endianness) -> Record<'_> {
    parse_record(&raw(bytes, 0x200, e), &table()).unwrap()
}

fn parse_err(bytes: &[u8], e: Endianness) -> Error {
    parse_record(&raw(bytes, 0x200, e), &table()).unwrap_err()
}

#[test]
fn mmap_and_mmap2() {
    for e in ORDERS {
        let b = trailer(
            Builder::new(e)
                .u32(5)
                .u32(6)
                .u64(0x40_0000)
                .u64(0x1000)
                .u64(0x200)
                .cstr8("/bin/ls"),
        )
        .record(1, 2 | (1 << 13));
        let Record::Mmap(m) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (m.pid, m.tid, m.start, m.len, m.pgoff),
            (5, 6, 0x40_0000, 0x1000, 0x200)
        );
        assert_eq!(
            (m.filename, m.is_data(), m.sample_id),
            (RawStr(b"/bin/ls"), true, SID)
        );

        let b = trailer(
            Builder::new(e)
                .u32(5)
                .u32(6)
                .u64(0x1000)
                .u64(0x2000)
                .u64(0)
                .u32(8)
                .u32(1)
                .u64(1234)
                .u64(9)
                .u32(5)
                .u32(2)
                .cstr8("/lib/libc.so.6"),
        )
        .record(10, 2);
        let Record::Mmap2(m) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            m.file_id,
            mmap::Mmap2FileId::Inode {
                maj: 8,
                min: 1,
                ino: 1234,
                ino_generation: 9
            }
        );
        assert_eq!(
            (m.prot, m.flags, m.filename, m.sample_id),
            (Some(5), Some(2), RawStr(b"/lib/libc.so.6"), SID)
        );
        // The pre-3.16 layout without prot and flags.
        let b = trailer(
            Builder::new(e)
                .u32(5)
                .u32(6)
                .u64(0x1000)
                .u64(0x2000)
                .u64(0)
                .u32(0)
                .u32(0)
                .u64(0)
                .u64(0)
                .cstr8("[stack]"),
        )
        .record(10, 2);
        let Record::Mmap2(m) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (m.prot, m.flags, m.filename, m.sample_id),
            (None, None, RawStr(b"[stack]"), SID)
        );

        let id: Vec<u8> = (1..=20).collect();
        let b = trailer(
            Builder::new(e)
                .u32(5)
                .u32(6)
                .u64(0x1000)
                .u64(0x2000)
                .u64(0)
                .u8(4)
                .u8(0)
                .u16(0)
                .bytes(&id)
                .u32(5)
                .u32(2)
                .cstr8("x"),
        )
        .record(10, 2 | (1 << 14));
        let Record::Mmap2(m) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(m.file_id, mmap::Mmap2FileId::BuildId(&[1, 2, 3, 4]));
        assert_eq!((m.filename, m.prot), (RawStr(b"x"), Some(5)));

        // Cut inside the fixed fields: the error names the field and its offset.
        let b = trailer(Builder::new(e).u32(5).u32(6).u64(0x1000)).record(1, 0);
        assert_eq!(
            parse_err(&b, e),
            Error::new(
                0x218,
                ErrorKind::UnexpectedEof {
                    what: "mmap len",
                    needed: 8,
                    available: 0
                }
            )
        );
    }
}

#[test]
fn task_records() {
    for e in ORDERS {
        let b = trailer(Builder::new(e).u32(5).u32(6).cstr8("bash")).record(3, 1 << 13);
        let Record::Comm(c) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (c.pid, c.tid, c.comm, c.is_exec(), c.sample_id),
            (5, 6, RawStr(b"bash"), true, SID)
        );
        for (t, exit) in [(4u32, true), (7, false)] {
            let b = trailer(Builder::new(e).u32(10).u32(1).u32(11).u32(2).u64(555)).record(t, 0);
            let r = parse(&b, e);
            let f = match (r, exit) {
                (Record::Exit(f), true) | (Record::Fork(f), false) => f,
                _ => panic!(),
            };
            assert_eq!(
                (f.pid, f.ppid, f.tid, f.ptid, f.time, f.sample_id),
                (10, 1, 11, 2, 555, SID)
            );
        }
        let b = trailer(Builder::new(e).u32(3).u32(4).u64(100).u64(90).u64(77)).record(8, 0);
        let Record::Read(r) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (r.pid, r.tid, r.values.time_running, r.values.time_enabled),
            (3, 4, Some(90), None)
        );
        assert_eq!(
            r.values.values,
            read::ReadValues::Single(read::ReadValue {
                value: 100,
                id: Some(77),
                lost: None
            })
        );
    }
}

#[test]
fn lost_throttle_switch_aux() {
    for e in ORDERS {
        let Record::Lost(l) = parse(&trailer(Builder::new(e).u64(42).u64(17)).record(2, 0), e)
        else {
            panic!()
        };
        assert_eq!((l.id, l.lost, l.sample_id), (42, 17, SID));
        let Record::LostSamples(l) = parse(&trailer(Builder::new(e).u64(3)).record(13, 1 << 15), e)
        else {
            panic!()
        };
        assert_eq!((l.lost, l.misc), (3, 1 << 15));
        let Record::Throttle(t) = parse(
            &trailer(Builder::new(e).u64(9).u64(42).u64(43)).record(5, 0),
            e,
        ) else {
            panic!()
        };
        assert_eq!((t.time, t.id, t.stream_id, t.sample_id), (9, 42, 43, SID));
        let Record::Unthrottle(t) = parse(
            &trailer(Builder::new(e).u64(10).u64(42).u64(43)).record(6, 0),
            e,
        ) else {
            panic!()
        };
        assert_eq!(t.time, 10);
        let Record::Switch(s) = parse(
            &trailer(Builder::new(e)).record(14, (1 << 13) | (1 << 14)),
            e,
        ) else {
            panic!()
        };
        assert_eq!(
            (s.is_out(), s.is_preempt(), s.next_prev_pid, s.sample_id),
            (true, true, None, SID)
        );
        let Record::SwitchCpuWide(s) =
            parse(&trailer(Builder::new(e).u32(20).u32(21)).record(15, 0), e)
        else {
            panic!()
        };
        assert_eq!(
            (s.is_out(), s.next_prev_pid, s.next_prev_tid),
            (false, Some(20), Some(21))
        );
        let Record::Aux(a) = parse(
            &trailer(Builder::new(e).u64(0x100).u64(0x40).u64(1)).record(11, 0),
            e,
        ) else {
            panic!()
        };
        assert_eq!(
            (a.aux_offset, a.aux_size, a.flags, a.sample_id),
            (0x100, 0x40, 1, SID)
        );
        let Record::ItraceStart(i) =
            parse(&trailer(Builder::new(e).u32(5).u32(6)).record(12, 0), e)
        else {
            panic!()
        };
        assert_eq!((i.pid, i.tid), (5, 6));
        let Record::AuxOutputHwId(h) = parse(&trailer(Builder::new(e).u64(0xabc)).record(21, 0), e)
        else {
            panic!()
        };
        assert_eq!((h.hw_id, h.sample_id), (0xabc, SID));
    }
}

#[test]
fn namespaces_ksymbol_bpf_cgroup_text_poke_deferred() {
    for e in ORDERS {
        let b = trailer(Builder::new(e).u32(5).u32(6).u64(2).u64s(&[1, 100, 2, 200])).record(16, 0);
        let Record::Namespaces(n) = parse(&b, e) else {
            panic!()
        };
        assert_eq!((n.pid, n.tid, n.len()), (5, 6, 2));
        assert_eq!(
            n.iter().map(|l| (l.dev, l.ino)).collect::<Vec<_>>(),
            [(1, 100), (2, 200)]
        );

        let b = trailer(
            Builder::new(e)
                .u64(0xffff_a000)
                .u32(0x80)
                .u16(1)
                .u16(1)
                .cstr8("bpf_prog_x"),
        )
        .record(17, 0);
        let Record::Ksymbol(k) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (k.addr, k.len, k.ksym_type, k.is_unregister(), k.name),
            (0xffff_a000, 0x80, 1, true, RawStr(b"bpf_prog_x"))
        );

        let b = trailer(
            Builder::new(e)
                .u16(1)
                .u16(0)
                .u32(33)
                .bytes(&[1, 2, 3, 4, 5, 6, 7, 8]),
        )
        .record(18, 0);
        let Record::BpfEvent(p) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (p.type_, p.id, p.tag, p.sample_id),
            (1, 33, [1, 2, 3, 4, 5, 6, 7, 8], SID)
        );

        let b = trailer(Builder::new(e).u64(99).cstr8("/sys/fs/cgroup/a")).record(19, 0);
        let Record::Cgroup(c) = parse(&b, e) else {
            panic!()
        };
        assert_eq!((c.id, c.path), (99, RawStr(b"/sys/fs/cgroup/a")));

        let b = trailer(
            Builder::new(e)
                .u64(0xffff_b000)
                .u16(2)
                .u16(3)
                .bytes(&[1, 2, 9, 8, 7, 0, 0, 0]),
        )
        .record(20, 0);
        let Record::TextPoke(t) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (t.addr, t.old_bytes, t.new_bytes),
            (0xffff_b000, &[1u8, 2][..], &[9u8, 8, 7][..])
        );

        let b = trailer(
            Builder::new(e)
                .u64(77)
                .u64(2)
                .u64s(&[crate::constants::callchain_context::USER, 0x4000]),
        )
        .record(22, 0);
        let Record::CallchainDeferred(d) = parse(&b, e) else {
            panic!()
        };
        assert_eq!((d.cookie, d.callchain.len(), d.sample_id), (77, 2, SID));
        assert_eq!(d.callchain.frames().next().map(|f| f.addr), Some(0x4000));
    }
}

#[test]
fn trailer_routing_and_absence() {
    for e in ORDERS {
        // Routed by the identifier in its last 8 bytes, but too short for the 32-byte trailer.
        let b = Builder::new(e).u64(42).record(2, 0);
        assert_eq!(
            parse_err(&b, e),
            Error::new(
                0x208,
                ErrorKind::UnexpectedEof {
                    what: "sample_id trailer",
                    needed: 32,
                    available: 8
                }
            )
        );
        // An id no event declares.
        let b = trailer(Builder::new(e).u64(1).u64(2)).record(2, 0);
        let mut b = b;
        let n = b.len();
        b[n - 8..].copy_from_slice(&e.u64_bytes(99));
        assert_eq!(
            parse_err(&b, e),
            Error::new(0x230, ErrorKind::UnknownId { id: 99 })
        );
        // Synthesized records carry id 0: the first event.
        let b = Builder::new(e)
            .u64(42)
            .u64(17)
            .u32(0)
            .u32(0)
            .u64(0)
            .u32(0)
            .u32(0)
            .u64(0)
            .record(2, 0);
        let Record::Lost(l) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (l.sample_id.event, l.sample_id.time),
            (Some(EventIndex(0)), Some(0))
        );
        // Without sample_id_all there is no trailer.
        let no_sid = EventTable::new([(
            EventAttr {
                sample_type: SAMPLE_TYPE,
                ..EventAttr::default()
            },
            &[][..],
        )]);
        let b = Builder::new(e).u64(42).u64(17).record(2, 0);
        let Record::Lost(l) = parse_record(&raw(&b, 0, e), &no_sid).unwrap() else {
            panic!()
        };
        assert_eq!(
            (l.lost, l.sample_id),
            (17, SampleId::of_event(Some(EventIndex(0))))
        );
        // Without any event, the same.
        let Record::Lost(l) = parse_record(&raw(&b, 0, e), &EventTable::default()).unwrap() else {
            panic!()
        };
        assert_eq!(l.sample_id, SampleId::default());
        // Unknown types are data.
        let b = Builder::new(e).u64(5).record(32775, 0);
        assert!(matches!(parse(&b, e), Record::Unknown(r) if r.header.type_.0 == 32775));
        let b = Builder::new(e).u64(5).record(23, 0);
        assert!(matches!(parse(&b, e), Record::Unknown(_)));
    }
}

fn attr_bytes(e: Endianness, sample_type: u64) -> Vec<u8> {
    Builder::new(e)
        .u32(1)
        .u32(64)
        .u64(0)
        .u64(4000)
        .u64(sample_type)
        .u64(0)
        .u64(0)
        .u32(0)
        .u32(0)
        .u64(0)
        .into_vec()
}

#[test]
fn pipe_metadata_records() {
    for e in ORDERS {
        let b = Builder::new(e)
            .bytes(&attr_bytes(e, 0x107))
            .u64s(&[11, 12])
            .record(64, 0);
        let Record::HeaderAttr(a) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (
                a.attr.type_,
                a.attr.sample_type,
                a.attr.sample_period_or_freq
            ),
            (1, 0x107, 4000)
        );
        assert_eq!(a.ids.iter().collect::<Vec<_>>(), [11, 12]);
        let short = Builder::new(e)
            .bytes(&attr_bytes(e, 0x107)[..40])
            .record(64, 0);
        assert_eq!(
            parse_err(&short, e),
            Error::new(
                0x208,
                ErrorKind::UnexpectedEof {
                    what: "header_attr perf_event_attr",
                    needed: 64,
                    available: 40
                }
            )
        );

        let b = Builder::new(e)
            .u64(3)
            .fixed_str("sched:sched_switch", 64)
            .record(65, 0);
        let Record::HeaderEventType(t) = parse(&b, e) else {
            panic!()
        };
        assert_eq!((t.event_id, t.name), (3, RawStr(b"sched:sched_switch")));

        let mut b = Builder::new(e).u32(8).record(66, 0);
        b.extend_from_slice(b"tracing!");
        let Record::TracingData(t) = parse(&b, e) else {
            panic!()
        };
        assert_eq!((t.size, t.data), (8, &b"tracing!"[..]));
        // simpleperf keeps the data inside the record.
        let b = Builder::new(e)
            .u32(8)
            .bytes(b"tracing!")
            .u32(0)
            .record(66, 0);
        let Record::TracingData(t) = parse(&b, e) else {
            panic!()
        };
        assert_eq!((t.size, t.data), (8, &b"tracing!"[..]));

        let id: Vec<u8> = (1..=20).collect();
        let b = Builder::new(e)
            .u32(u32::MAX)
            .bytes(&id)
            .u8(4)
            .u8(0)
            .u16(0)
            .cstr8("/usr/bin/x")
            .record(67, 1 | (1 << 15));
        let Record::HeaderBuildId(bi) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (bi.pid, bi.build_id, bi.filename),
            (-1, &[1u8, 2, 3, 4][..], RawStr(b"/usr/bin/x"))
        );
        let b = Builder::new(e)
            .u32(7)
            .bytes(&id)
            .u8(4)
            .u8(0)
            .u16(0)
            .cstr8("y")
            .record(67, 2);
        let Record::HeaderBuildId(bi) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(bi.build_id.len(), 20);

        assert_eq!(
            parse(&Builder::new(e).record(68, 0), e),
            Record::FinishedRound
        );
        assert_eq!(
            parse(&Builder::new(e).record(82, 0), e),
            Record::FinishedInit
        );

        let b = Builder::new(e)
            .u64(2)
            .u64s(&[10, 0, 1, 500, 11, 1, u64::MAX, 501])
            .record(69, 0);
        let Record::IdIndex(ix) = parse(&b, e) else {
            panic!()
        };
        let v: Vec<_> = ix.iter().collect();
        assert_eq!(
            (
                v.len(),
                v[1].id,
                v[1].idx,
                v[1].cpu,
                v[1].tid,
                v[1].machine_pid
            ),
            (2, 11, 1, u64::MAX, 501, None)
        );
        let b = Builder::new(e)
            .u64(1)
            .u64s(&[10, 0, 1, 500])
            .u64s(&[1234, 3])
            .record(69, 0);
        let Record::IdIndex(ix) = parse(&b, e) else {
            panic!()
        };
        let v: Vec<_> = ix.iter().collect();
        assert_eq!((v[0].machine_pid, v[0].vcpu), (Some(1234), Some(3)));

        let b = Builder::new(e)
            .u64(2)
            .u64(100)
            .fixed_str("perf", 16)
            .u64(101)
            .fixed_str("worker", 16)
            .record(73, 0);
        let Record::ThreadMap(t) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            t.iter().map(|x| (x.pid, x.comm)).collect::<Vec<_>>(),
            [(100, RawStr(b"perf")), (101, RawStr(b"worker"))]
        );

        let b = Builder::new(e)
            .u16(2)
            .u8(0)
            .u8(0)
            .u16(0)
            .u16(3)
            .record(74, 0);
        let Record::CpuMap(c) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(c.data.cpus().collect::<Vec<_>>(), [0, 1, 2, 3]);
    }
}

#[test]
fn auxtrace_records() {
    for e in ORDERS {
        let b = Builder::new(e).u32(1).u32(0).u64s(&[5, 6, 7]).record(70, 0);
        let Record::AuxtraceInfo(i) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (i.type_, i.priv_.iter().collect::<Vec<_>>()),
            (1, alloc::vec![5, 6, 7])
        );

        let mut b = Builder::new(e)
            .u64(4)
            .u64(0x100)
            .u64(9)
            .u32(1)
            .u32(55)
            .u32(2)
            .u32(0)
            .record(71, 0);
        b.extend_from_slice(&[0xaa; 4]);
        let Record::Auxtrace(a) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (a.size, a.offset, a.reference, a.idx, a.tid, a.cpu, a.data),
            (4, 0x100, 9, 1, 55, 2, &[0xaa; 4][..])
        );

        let head = |fmt: u32| {
            Builder::new(e)
                .u32(1)
                .u32(2)
                .u32(3)
                .u32(4)
                .u32(5)
                .u32(fmt)
                .u64(0xfeed)
        };
        let b = head(0).fixed_str("decoder error", 64).record(72, 0);
        let Record::AuxtraceError(x) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (x.code, x.cpu, x.pid, x.tid, x.ip, x.time, x.msg),
            (2, 3, 4, 5, 0xfeed, None, RawStr(b"decoder error"))
        );
        let b = head(2)
            .u64(777)
            .fixed_str("m", 64)
            .u32(10)
            .u32(11)
            .record(72, 0);
        let Record::AuxtraceError(x) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (x.time, x.msg, x.machine_pid, x.vcpu),
            (Some(777), RawStr(b"m"), Some(10), Some(11))
        );
    }
}

#[test]
fn stat_time_conv_event_update() {
    for e in ORDERS {
        let b = Builder::new(e).u64(2).u64s(&[0, 1, 2, 1]).record(75, 0);
        let Record::StatConfig(c) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(c.iter().collect::<Vec<_>>(), [(0, 1), (2, 1)]);
        let b = Builder::new(e)
            .u64(42)
            .u32(1)
            .u32(0)
            .u64s(&[1000, 50, 40])
            .record(76, 0);
        let Record::Stat(s) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (s.id, s.cpu, s.thread, s.val, s.ena, s.run),
            (42, 1, 0, 1000, 50, 40)
        );
        let Record::StatRound(r) = parse(&Builder::new(e).u64(1).u64(99).record(77, 0), e) else {
            panic!()
        };
        assert_eq!((r.type_, r.time), (1, 99));

        let b = Builder::new(e).u64s(&[31, 1000, 5]).record(79, 0);
        let Record::TimeConv(t) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (t.time_shift, t.time_mult, t.time_zero, t.ext),
            (31, 1000, 5, None)
        );
        let b = Builder::new(e)
            .u64s(&[31, 1000, 5, 7, u64::MAX])
            .u8(1)
            .u8(0)
            .bytes(&[0; 6])
            .record(79, 0);
        let Record::TimeConv(t) = parse(&b, e) else {
            panic!()
        };
        let x = t.ext.unwrap();
        assert_eq!(
            (
                x.time_cycles,
                x.time_mask,
                x.cap_user_time_zero,
                x.cap_user_time_short
            ),
            (7, u64::MAX, true, false)
        );

        let b = Builder::new(e).u64(0).u64(42).cstr8("msec").record(78, 0);
        let Record::EventUpdate(u) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (u.type_, u.id, u.update),
            (0, 42, event_update::EventUpdate::Unit(RawStr(b"msec")))
        );
        let b = Builder::new(e)
            .u64(1)
            .u64(42)
            .u64(0.5f64.to_bits())
            .record(78, 0);
        let Record::EventUpdate(u) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(u.update, event_update::EventUpdate::Scale(0.5));
        let b = Builder::new(e)
            .u64(2)
            .u64(42)
            .cstr8("cycles:u")
            .record(78, 0);
        let Record::EventUpdate(u) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            u.update,
            event_update::EventUpdate::Name(RawStr(b"cycles:u"))
        );
        let b = Builder::new(e)
            .u64(3)
            .u64(42)
            .u16(0)
            .u16(2)
            .u16(4)
            .u16(6)
            .record(78, 0);
        let Record::EventUpdate(u) = parse(&b, e) else {
            panic!()
        };
        let event_update::EventUpdate::Cpus(c) = u.update else {
            panic!()
        };
        assert_eq!(c.cpus().collect::<Vec<_>>(), [4, 6]);
    }
}

#[test]
fn feature_compressed_bpf_metadata_schedstat() {
    for e in ORDERS {
        let b = Builder::new(e)
            .u64(3)
            .u32(8)
            .fixed_str("host", 8)
            .record(80, 0);
        let Record::HeaderFeature(f) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (f.feature(), f.data.offset(), f.data.len()),
            (Some(crate::constants::HeaderFeature::HOSTNAME), 0x210, 12)
        );
        assert_eq!(
            crate::features::strings::parse_string(f.data).unwrap(),
            RawStr(b"host")
        );

        let b = Builder::new(e)
            .bytes(&[0x28, 0xb5, 0x2f, 0xfd])
            .record(81, 0);
        let Record::Compressed(c) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (c.data_size, c.data),
            (None, &[0x28u8, 0xb5, 0x2f, 0xfd][..])
        );
        let b = Builder::new(e)
            .u64(5)
            .bytes(&[1, 2, 3, 4, 5, 0, 0, 0])
            .record(83, 0);
        let Record::Compressed2(c) = parse(&b, e) else {
            panic!()
        };
        assert_eq!((c.data_size, c.data), (Some(5), &[1u8, 2, 3, 4, 5][..]));
        let b = Builder::new(e)
            .u64(9)
            .bytes(&[1, 2, 3, 4, 5, 0, 0, 0])
            .record(83, 0);
        assert_eq!(
            parse_err(&b, e),
            Error::new(
                0x208,
                ErrorKind::UnexpectedEof {
                    what: "compressed2 data",
                    needed: 9,
                    available: 8
                }
            )
        );

        for name_len in [512, 256] {
            let b = Builder::new(e)
                .fixed_str("prog", name_len)
                .u64(1)
                .fixed_str("key", 64)
                .fixed_str("value", 256)
                .record(84, 0);
            let Record::BpfMetadata(m) = parse(&b, e) else {
                panic!()
            };
            assert_eq!(
                (m.prog_name, m.iter().collect::<Vec<_>>()),
                (
                    RawStr(b"prog"),
                    alloc::vec![(RawStr(b"key"), RawStr(b"value"))]
                )
            );
        }
        let bad = Builder::new(e).fixed_str("prog", 512).u64(3).record(84, 0);
        assert_eq!(
            parse_err(&bad, e),
            Error::new(
                0x208,
                ErrorKind::BadRecordBody {
                    what: "BPF_METADATA"
                }
            )
        );

        let b = Builder::new(e)
            .u64(123)
            .u32(2)
            .u16(16)
            .u16(0)
            .u32s_for_test()
            .record(85, 0);
        let Record::SchedstatCpu(s) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (s.timestamp, s.cpu, s.version, s.domain, s.data.len()),
            (123, 2, 16, None, 8)
        );
        let b = Builder::new(e)
            .u64(124)
            .u32(3)
            .u16(17)
            .u16(1)
            .u32s_for_test()
            .record(86, 0);
        let Record::SchedstatDomain(s) = parse(&b, e) else {
            panic!()
        };
        assert_eq!(
            (s.timestamp, s.cpu, s.version, s.domain),
            (124, 3, 17, Some(1))
        );
    }
}

trait TestExt {
    fn u32s_for_test(self) -> Self;
}

impl TestExt for Builder {
    fn u32s_for_test(self) -> Self {
        self.u32(1).u32(2)
    }
}
