//! Tests of SAMPLE decoding: every sample_type bit, both byte orders, exact errors.

use super::*;
use crate::attr::{AttrFlags, EventAttr};
use crate::constants::{
    branch_sample_type as bst, callchain_context as ctx, read_format as rf, sample_type as st,
};
use crate::layout::EventTable;
use crate::records::read::{ReadValue, ReadValues};
use crate::records::{parse_record, Record};
use crate::testutil::{raw, Builder};
use alloc::vec::Vec;

const ALL: u64 = st::KNOWN & !st::WEIGHT;

fn attr(sample_type: u64) -> EventAttr {
    EventAttr {
        sample_type,
        read_format: rf::GROUP | rf::ID | rf::TOTAL_TIME_ENABLED | rf::LOST,
        branch_sample_type: bst::HW_INDEX,
        sample_regs_user: 0b1011,
        sample_regs_intr: 0b11,
        flags: AttrFlags(AttrFlags::SAMPLE_ID_ALL),
        ..EventAttr::default()
    }
}

fn table(sample_type: u64) -> EventTable {
    EventTable::new([
        (attr(sample_type), &[41u64][..]),
        (attr(sample_type), &[42u64, 44][..]),
    ])
}

/// A SAMPLE with every field, in the order of `evsel__parse_sample`.
fn full_sample(e: Endianness) -> Vec<u8> {
    Builder::new(e)
        .u64(42) // IDENTIFIER
        .u64(0x401000) // IP
        .u32(100)
        .u32(101) // TID
        .u64(123_456_789) // TIME
        .u64(0xdead) // ADDR
        .u64(42) // ID
        .u64(43) // STREAM_ID
        .u32(3)
        .u32(0) // CPU, res
        .u64(250_000) // PERIOD
        .u64s(&[2, 1000, 10, 42, 0, 20, 44, 1]) // READ: nr, time_enabled, (value, id, lost) × 2
        .u64s(&[4, ctx::KERNEL, 0xffff_ffff_8100_0000, ctx::USER, 0x401000]) // CALLCHAIN
        .u32(12)
        .bytes(b"raw-data-123") // RAW
        .u64s(&[1, 7, 0x10, 0x20, 1]) // BRANCH_STACK: nr, hw_idx, from, to, flags (mispred)
        .u64s(&[2, 0xa, 0xb, 0xc]) // REGS_USER: abi 2, 3 registers
        .u64(16)
        .bytes(&[0x55; 16])
        .u64(8) // STACK_USER: size, data, dyn_size
        .u64(0x0003_0002_0000_0064) // WEIGHT_STRUCT: var3 3, var2 2, var1 100
        .u64(0x1234) // DATA_SRC
        .u64(0x5) // TRANSACTION
        .u64(0) // REGS_INTR: abi 0, no registers
        .u64(0x7000) // PHYS_ADDR
        .u64(99) // CGROUP
        .u64(4096) // DATA_PAGE_SIZE
        .u64(2 << 20) // CODE_PAGE_SIZE
        .u64(8)
        .bytes(b"auxbytes") // AUX
        .record(9, 2)
}

fn sample<'a>(
    bytes: &'a [u8],
    e: Endianness,
    t: &EventTable,
) -> crate::error::Result<SampleRecord<'a>> {
    match parse_record(&raw(bytes, 0x1000, e), t)? {
        Record::Sample(s) => Ok(s),
        other => panic!("not a sample: {other:?}"),
    }
}

#[test]
fn every_field_in_both_byte_orders() {
    for e in [Endianness::Little, Endianness::Big] {
        let bytes = full_sample(e);
        let t = table(ALL);
        let s = sample(&bytes, e, &t).unwrap();
        assert_eq!(s.event, EventIndex(1));
        assert_eq!((s.misc, s.cpumode()), (2, 2));
        assert_eq!(
            (s.id, s.ip, s.pid, s.tid),
            (Some(42), Some(0x401000), Some(100), Some(101))
        );
        assert_eq!(
            (s.time, s.addr, s.stream_id, s.cpu, s.period),
            (
                Some(123_456_789),
                Some(0xdead),
                Some(43),
                Some(3),
                Some(250_000)
            )
        );
        let read = s.read.unwrap();
        assert_eq!((read.time_enabled, read.time_running), (Some(1000), None));
        let ReadValues::Group(g) = read.values else {
            panic!("group expected")
        };
        assert_eq!(
            g.iter().collect::<Vec<_>>(),
            [
                ReadValue {
                    value: 10,
                    id: Some(42),
                    lost: Some(0)
                },
                ReadValue {
                    value: 20,
                    id: Some(44),
                    lost: Some(1)
                }
            ]
        );
        let cc = s.callchain.unwrap();
        assert_eq!(
            cc.ips().iter().collect::<Vec<_>>(),
            [ctx::KERNEL, 0xffff_ffff_8100_0000, ctx::USER, 0x401000]
        );
        assert_eq!(
            cc.frames().map(|f| f.addr).collect::<Vec<_>>(),
            [0xffff_ffff_8100_0000, 0x401000]
        );
        assert_eq!(s.raw, Some(&b"raw-data-123"[..]));
        let bs = s.branch_stack.unwrap();
        assert_eq!((bs.len(), bs.hw_idx, bs.counters), (1, Some(7), None));
        let entry = bs.get(0).unwrap();
        assert_eq!((entry.from, entry.to), (0x10, 0x20));
        // The flags word 1 is bit 0 as a little-endian writer stores it; a big-endian writer
        // would store mispred in bit 63, so the same word decodes as reserved bits there.
        assert_eq!(entry.flags.mispred(), e == Endianness::Little);
        let regs = s.regs_user.unwrap();
        assert_eq!((regs.abi, regs.values.len()), (2, 3));
        assert_eq!(
            (regs.get(0), regs.get(1), regs.get(2), regs.get(3)),
            (Some(0xa), Some(0xb), None, Some(0xc))
        );
        let stack = s.stack_user.unwrap();
        assert_eq!(
            (stack.data.len(), stack.dyn_size, stack.valid().len()),
            (16, 8, 8)
        );
        let w = s.weight.unwrap();
        assert_eq!(
            (w.var1_dw(), w.var2_w(), w.var3_w(), w.weight()),
            (100, 2, 3, 100)
        );
        assert_eq!((s.data_src, s.transaction), (Some(0x1234), Some(5)));
        let intr = s.regs_intr.unwrap();
        assert_eq!((intr.abi, intr.values.len(), intr.get(0)), (0, 0, None));
        assert_eq!(
            (s.phys_addr, s.cgroup, s.data_page_size, s.code_page_size),
            (Some(0x7000), Some(99), Some(4096), Some(2 << 20))
        );
        assert_eq!(s.aux, Some(&b"auxbytes"[..]));
    }
}

#[test]
fn plain_weight_and_minimal_samples() {
    for e in [Endianness::Little, Endianness::Big] {
        let t = EventTable::new([(attr(st::IP | st::TID | st::WEIGHT), &[][..])]);
        let bytes = Builder::new(e)
            .u64(0x10)
            .u32(1)
            .u32(2)
            .u64(0x0003_0002_0000_0064)
            .record(9, 1);
        let s = sample(&bytes, e, &t).unwrap();
        assert_eq!(
            (s.ip, s.pid, s.tid, s.event),
            (Some(0x10), Some(1), Some(2), EventIndex(0))
        );
        assert_eq!(s.weight.unwrap().weight(), 0x0003_0002_0000_0064);
        assert_eq!((s.time, s.callchain, s.period), (None, None, None));
    }
}

#[test]
fn single_read_value_without_group() {
    for e in [Endianness::Little, Endianness::Big] {
        let mut a = attr(st::TID | st::READ);
        a.read_format = rf::TOTAL_TIME_ENABLED | rf::TOTAL_TIME_RUNNING | rf::ID;
        let t = EventTable::new([(a, &[][..])]);
        let bytes = Builder::new(e)
            .u32(1)
            .u32(2)
            .u64s(&[77, 10, 9, 5])
            .record(9, 0);
        let r = sample(&bytes, e, &t).unwrap().read.unwrap();
        assert_eq!((r.time_enabled, r.time_running), (Some(10), Some(9)));
        assert_eq!(
            r.values,
            ReadValues::Single(ReadValue {
                value: 77,
                id: Some(5),
                lost: None
            })
        );
    }
}

#[test]
fn errors_name_the_field_and_its_offset() {
    use crate::error::{Error, ErrorKind};
    let e = Endianness::Little;
    // Body starts at 0x1008.
    let t = table(ALL | (1 << 40));
    let bytes = full_sample(e);
    assert_eq!(
        sample(&bytes, e, &t).unwrap_err(),
        Error::new(0x1008, ErrorKind::UnknownSampleType { bits: 1 << 40 })
    );

    let t = table(st::IDENTIFIER | st::IP | st::TID | st::TIME);
    let short = Builder::new(e).u64(42).u64(1).record(9, 0);
    assert_eq!(
        sample(&short, e, &t).unwrap_err(),
        Error::new(
            0x1008,
            ErrorKind::UnexpectedEof {
                what: "sample fixed fields",
                needed: 32,
                available: 16
            }
        )
    );
    let unknown = Builder::new(e).u64(7).u64(1).u64(0).u64(0).record(9, 0);
    assert_eq!(
        sample(&unknown, e, &t).unwrap_err(),
        Error::new(0x1008, ErrorKind::UnknownId { id: 7 })
    );

    let t = table(st::IDENTIFIER | st::CALLCHAIN | st::RAW);
    let cc = Builder::new(e).u64(42).u64(5).u64s(&[1, 2]).record(9, 0);
    assert_eq!(
        sample(&cc, e, &t).unwrap_err(),
        Error::new(
            0x1010,
            ErrorKind::UnexpectedEof {
                what: "callchain",
                needed: 40,
                available: 16
            }
        )
    );
    let rawb = Builder::new(e).u64(42).u64(0).u32(64).u32(0).record(9, 0);
    assert_eq!(
        sample(&rawb, e, &t).unwrap_err(),
        Error::new(
            0x101c,
            ErrorKind::UnexpectedEof {
                what: "raw data",
                needed: 64,
                available: 4
            }
        )
    );

    let t = table(st::IDENTIFIER | st::STACK_USER);
    let stack = Builder::new(e).u64(42).u64(8).u64(0).u64(9).record(9, 0);
    assert_eq!(
        sample(&stack, e, &t).unwrap_err(),
        Error::new(
            0x1020,
            ErrorKind::BadValue {
                what: "user stack dyn_size (larger than its size)",
                value: 9
            }
        )
    );
    let empty_stack = Builder::new(e).u64(42).u64(0).record(9, 0);
    let s = sample(&empty_stack, e, &t).unwrap().stack_user.unwrap();
    assert_eq!((s.data.len(), s.dyn_size), (0, 0));

    let t = table(st::IDENTIFIER | st::REGS_USER);
    let regs = Builder::new(e).u64(42).u64(2).u64(1).record(9, 0);
    assert_eq!(
        sample(&regs, e, &t).unwrap_err(),
        Error::new(
            0x1018,
            ErrorKind::UnexpectedEof {
                what: "user regs",
                needed: 24,
                available: 8
            }
        )
    );
}

#[test]
fn samples_without_attrs_are_an_error() {
    let e = Endianness::Big;
    let bytes = Builder::new(e).u64(1).record(9, 0);
    let err = parse_record(&raw(&bytes, 0x40, e), &EventTable::default()).unwrap_err();
    assert_eq!(
        err,
        crate::error::Error::new(0x48, crate::error::ErrorKind::NoAttrs)
    );
}
