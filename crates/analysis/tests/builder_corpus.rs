//! The record-facing builder fed by hand with events copied from `fp-callchain.data`'s
//! `perf script` oracle (MMAP lines and one sample), checked against perf's folded stack for it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "symbols_common/mod.rs"]
mod common;

use perfscope_analysis::builder::{
    CpuMode, ProfileBuilder, SampleInput, UnknownNames, PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER,
};
use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::symbols::archive::PerfArchive;
use perfscope_analysis::symbols::resolver::SymbolResolver;

fn feed(b: &mut ProfileBuilder) {
    let ev = b.add_event("cpu-clock:pppH").unwrap();
    // From oracle/fp-callchain.script.txt:
    b.mmap(
        u32::MAX,
        0xffff_ffff_8100_0000,
        0x12090c8,
        0xffff_ffff_8100_0000,
        "[kernel.kallsyms]_text",
        None,
    )
    .unwrap();
    b.comm(26314, 26314, "perf-exec").unwrap();
    b.comm(26314, 26314, "mt").unwrap();
    b.mmap(
        26314,
        0x5620_248b_2000,
        0x1000,
        0x1000,
        "/tmp/corpus-gen/workloads/mt",
        None,
    )
    .unwrap();
    b.mmap(
        26314,
        0x7f16_c873_7000,
        0x156000,
        0x26000,
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        None,
    )
    .unwrap();
    // Sample at 3874.784783971: exc_page_fault <- asm_exc_page_fault <- libc 16e0ba <- libc 2724a
    // (file-relative; run-time = start + rel - pgoff).
    let chain = [
        PERF_CONTEXT_KERNEL,
        0xffff_ffff_821f_26e7,
        0xffff_ffff_8100_0c82,
        PERF_CONTEXT_USER,
        0x7f16_c873_7000 + 0x16e0ba - 0x26000,
        0x7f16_c873_7000 + 0x2724a - 0x26000,
    ];
    b.sample(&SampleInput {
        pid: 26314,
        tid: 26314,
        time: 3_874_784_783_971,
        cpu: u32::MAX,
        event: ev,
        period: 250_000,
        ip: 0xffff_ffff_821f_26e7,
        ip_mode: CpuMode::Kernel,
        callchain: &chain,
    })
    .unwrap();
    // A sample without callchain in mt's leaf (run-time 0x5620248b247e = rel 0x147e).
    b.sample(&SampleInput {
        pid: 26314,
        tid: 26314,
        time: 3_874_784_800_000,
        cpu: u32::MAX,
        event: ev,
        period: 250_000,
        ip: 0x5620_248b_2000 + 0x147e - 0x1000,
        ip_mode: CpuMode::User,
        callchain: &[],
    })
    .unwrap();
}

#[test]
fn symbolized_folded_line_equals_perfs() {
    let Some(shared) = common::shared_dir("symbolized_folded_line_equals_perfs") else {
        return;
    };
    let gen = shared.join("corpus/gen");
    let mut r = SymbolResolver::new();
    r.add_archive(
        PerfArchive::parse(&std::fs::read(gen.join("extra/fp-callchain.data.tar.bz2")).unwrap())
            .unwrap(),
    )
    .unwrap();
    r.set_kallsyms(&std::fs::read(gen.join("extra/kallsyms.gz")).unwrap())
        .unwrap();
    let mut b = ProfileBuilder::new(Some(r));
    feed(&mut b);
    let p = b.finish();
    let folded = to_folded_text(&p, &SampleFilter::all(), FoldedOptions::default());
    let stack = "mt;__libc_start_call_main;__memset_avx512_unaligned_erms;asm_exc_page_fault;exc_page_fault";
    let oracle = std::fs::read_to_string(gen.join("oracle/fp-callchain.folded.txt")).unwrap();
    // perf saw this stack 27 times in the whole file; we fed one of those samples.
    assert!(
        oracle.lines().any(|l| l == format!("{stack} 27")),
        "oracle has the stack"
    );
    assert_eq!(folded, format!("{stack} 1\nmt;leaf 1\n")); // byte order: `_` < `l`
}

#[test]
fn unsymbolized_frames_are_module_plus_offset() {
    let mut b = ProfileBuilder::new(None);
    b.unknown_names = UnknownNames::ModuleOffset;
    feed(&mut b);
    let p = b.finish();
    assert_eq!(
        to_folded_text(&p, &SampleFilter::all(), FoldedOptions::default()),
        "mt;libc.so.6+0x2724a;libc.so.6+0x16e0ba;[kernel.kallsyms]+0xffffffff81000c82;[kernel.kallsyms]+0xffffffff821f26e7 1\nmt;mt+0x147e 1\n"
    );
}
