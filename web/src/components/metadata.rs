//! The summary of an opened file: file facts, the machine it was recorded on, the command
//! line, the events and the header features.

use perfscope_analysis::summary::Summary;
use yew::prelude::*;

use crate::components::{
    ErrorPanel, EventsTable, Fact, FeatureTables, FeaturesList, ProfileSummary, Warnings,
};
use crate::display::{duration_ms, human_bytes, mem_kb, size_with_bytes};
use crate::protocol::{Inflation, ProfileData, StackHelper, Timings};
use crate::state::shared::Shared;
use crate::state::FileInfo;

/// Properties of [`Metadata`].
#[derive(Properties, PartialEq)]
pub struct MetadataProps {
    /// The file.
    pub file: FileInfo,
    /// What it declares.
    pub summary: Shared<Summary>,
    /// The analysis, once every record was read.
    #[prop_or_default]
    pub profile: Option<Shared<ProfileData>>,
    /// Show the file's name and size (off when the page shows them above the tabs).
    #[prop_or(true)]
    pub file_bar: bool,
}

/// Everything known about the file, or why it could not be read.
#[function_component(Metadata)]
pub fn metadata(props: &MetadataProps) -> Html {
    let s = &*props.summary;
    let not_perf = s.byte_order.is_empty();
    // perf script text or folded stacks: events and samples, no header.
    let text_input = not_perf && !s.events.is_empty();
    let error = s.error.as_ref().map(|message| {
        let (title, hint) = if s.file_size == 0 {
            ("The file is empty", Some("A perf.data file starts with a 104-byte header (16 bytes in pipe mode)."))
        } else if not_perf {
            (
                "Not a perf.data file",
                Some("Perfscope opens files written by perf record: they start with the bytes PERFILE2 (or 2ELIFREP when big-endian)."),
            )
        } else {
            ("Parsing stopped early; what could be read is shown below", None)
        };
        html! { <ErrorPanel title={title} message={message.clone()} hint={hint.map(AttrValue::from)} /> }
    });
    html! {
        <div class="metadata" id="summary">
            if props.file_bar {
                <FileBar file={props.file.clone()} summary={props.summary.clone()}
                         timings={props.profile.as_ref().map(|p| p.overview.timings).unwrap_or_default()} />
            }
            { error.unwrap_or_default() }
            if text_input {
                <Warnings warnings={s.warnings.clone()} />
                if let Some(p) = &props.profile { <ProfileSummary profile={p.clone()} /> }
                <section class="card" id="events-card">
                    <h2>{ "Events" }<span class="count">{ s.events.len() }</span></h2>
                    <EventsTable summary={props.summary.clone()} />
                </section>
            }
            if !not_perf {
                <Warnings warnings={s.warnings.clone()} />
                if let Some(p) = &props.profile { <ProfileSummary profile={p.clone()} /> }
                <div class="grid">
                    <FileFacts summary={props.summary.clone()} />
                    <SystemFacts summary={props.summary.clone()} />
                </div>
                <section class="card" id="cmdline-card">
                    <h2>{ "Command line" }</h2>
                    { match &s.cmdline {
                        Some(c) => html! { <pre class="cmdline" data-field="cmdline">{ c }</pre> },
                        None => html! { <p class="missing" data-field="cmdline" data-missing="true">{ "Not available in this file." }</p> },
                    } }
                </section>
                <section class="card" id="events-card">
                    <h2>{ "Events" }<span class="count">{ s.events.len() }</span></h2>
                    <EventsTable summary={props.summary.clone()} />
                </section>
                <FeatureTables summary={props.summary.clone()} />
                <section class="card" id="features-card">
                    <h2>{ "Header features" }<span class="count">{ s.features.len() }</span></h2>
                    <FeaturesList features={s.features.clone()} />
                </section>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct SummaryProps {
    summary: Shared<Summary>,
}

/// Properties of [`FileBar`].
#[derive(Properties, PartialEq)]
pub struct FileBarProps {
    /// The file.
    pub file: FileInfo,
    /// Its summary.
    pub summary: Shared<Summary>,
    /// Time spent in the worker.
    pub timings: Timings,
}

/// The file's name and size, and how long it took.
#[function_component(FileBar)]
pub fn file_bar(props: &FileBarProps) -> Html {
    let s = &*props.summary;
    let t = props.timings;
    html! {
        <div class="file-bar">
            <h1 class="file-name" data-field="file-name" title={props.file.name.clone()}>{ &props.file.name }</h1>
            <span class="file-size" data-field="file-size">{ size_with_bytes(s.file_size) }</span>
            <span class="spacer" />
            <span class="timing" title="time spent in the analysis worker, and its memory" data-field="timings"
                data-summary-ms={t.summary_ms.to_string()} data-wasm-memory={t.wasm_memory.to_string()}
                data-helper={format!("{:?}", t.helper)} data-helper-wasm-memory={t.helper_wasm_memory.to_string()}
                data-inflater={format!("{:?}", t.inflater)} data-inflater-wasm-memory={t.inflater_wasm_memory.to_string()}>
                // Nothing measured yet while the file loads (the times come with the profile).
                if t != Timings::default() {
                    { format!("read {} · summary {}", duration_ms(t.read_ms), duration_ms(t.summary_ms)) }
                    if t.symbols_ms > 0.0 { { format!(" · symbols {}", duration_ms(t.symbols_ms)) } }
                    { format!(" · records {} · profile {}", duration_ms(t.records_ms), duration_ms(t.profile_ms)) }
                }
                if t.wasm_memory > 0.0 { { format!(" · memory {}", human_bytes(t.wasm_memory as u64)) } }
                // A second worker made the later samples' stacks (big files).
                if t.helper == StackHelper::Used { { format!(" · second worker {} (started in {}, reading {}; {})", duration_ms(t.helper_ms), duration_ms(t.helper_start_ms), duration_ms(t.helper_read_ms), human_bytes(t.helper_wasm_memory as u64)) } }
                if t.helper == StackHelper::Failed { { " · the second worker's stacks could not be used: built again" } }
                // Another worker decompressed the records (perf record -z).
                if t.inflater == Inflation::Used { { format!(" · zstd on a second worker ({})", human_bytes(t.inflater_wasm_memory as u64)) } }
                if t.inflater == Inflation::Failed { { " · the decompressing worker failed: the rest decompressed here" } }
                if t.inflater == Inflation::Ordered { { format!(" · records ordered on a second worker ({})", human_bytes(t.inflater_wasm_memory as u64)) } }
                if t.inflater == Inflation::OrderedInflated { { format!(" · records decompressed and ordered on two more workers ({})", human_bytes(t.inflater_wasm_memory as u64)) } }
                if t.inflater == Inflation::OrderFailed { { " · the ordering worker failed: the rest ordered here" } }
            </span>
        </div>
    }
}

/// Byte order, mode, sizes.
#[function_component(FileFacts)]
fn file_facts(props: &SummaryProps) -> Html {
    let s = &*props.summary;
    let byte_order = format!("{}-endian", s.byte_order);
    let magic = if s.byte_order == "big" {
        "magic 2ELIFREP"
    } else {
        "magic PERFILE2"
    };
    let mode = if s.pipe_mode { "pipe" } else { "file" };
    let mode_detail = if s.pipe_mode {
        "perf record -o -: attrs and features come as records"
    } else {
        "seekable, with sections"
    };
    let attr_size = s.attr_size.map(|a| AttrValue::from(format!("{a} bytes")));
    let data_label = if s.pipe_mode {
        "Records"
    } else {
        "Data section"
    };
    html! {
        <section class="card" id="file-facts">
            <h2>{ "File" }</h2>
            <dl class="facts">
                <Fact label="Byte order" field="byte-order" value={AttrValue::from(byte_order)} detail={AttrValue::from(magic)} />
                <Fact label="Mode" field="mode" value={AttrValue::from(mode)} detail={AttrValue::from(mode_detail)} />
                <Fact label="Header size" field="header-size" value={AttrValue::from(format!("{} bytes", s.header_size))} />
                <Fact label="Attr size" field="attr-size" value={attr_size}
                      detail={s.pipe_mode.then_some(AttrValue::from("no attrs section in pipe mode"))} />
                <Fact label={data_label} field="data-size" value={AttrValue::from(size_with_bytes(s.data_size))}
                      detail={AttrValue::from(format!("at offset 0x{:x}", s.data_offset))} />
                <Fact label="Events" field="event-count" value={AttrValue::from(s.events.len().to_string())} />
            </dl>
        </section>
    }
}

/// The machine and perf that recorded.
#[function_component(SystemFacts)]
fn system_facts(props: &SummaryProps) -> Html {
    let s = &*props.summary;
    let text = |v: &Option<String>| v.clone().map(AttrValue::from);
    let memory = s.total_mem_kb.map(|kb| AttrValue::from(mem_kb(kb)));
    html! {
        <section class="card" id="system-facts">
            <h2>{ "Recorded on" }</h2>
            <dl class="facts">
                <Fact label="Hostname" field="hostname" value={text(&s.hostname)} mono=true title="HEADER_HOSTNAME" />
                <Fact label="OS release" field="os-release" value={text(&s.os_release)} mono=true title="HEADER_OSRELEASE" />
                <Fact label="Arch" field="arch" value={text(&s.arch)} mono=true title="HEADER_ARCH" />
                <Fact label="CPU" field="cpu-desc" value={text(&s.cpu_desc)} title="HEADER_CPUDESC" />
                <Fact label="CPUID" field="cpuid" value={text(&s.cpuid)} mono=true title="HEADER_CPUID" />
                <div class="fact">
                    <dt title="HEADER_NRCPUS">{ "CPUs" }</dt>
                    <dd>
                        <CpuCount field="nr-cpus-online" value={s.nr_cpus_online} />
                        <span class="detail">{ "online of" }</span>
                        <CpuCount field="nr-cpus-available" value={s.nr_cpus_available} />
                        <span class="detail">{ "available" }</span>
                    </dd>
                </div>
                <Fact label="Memory" field="total-mem" value={memory} title="HEADER_TOTAL_MEM" />
                <Fact label="perf version" field="perf-version" value={text(&s.perf_version)} mono=true title="HEADER_VERSION" />
            </dl>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct CpuCountProps {
    field: AttrValue,
    value: Option<u32>,
}

#[function_component(CpuCount)]
fn cpu_count(props: &CpuCountProps) -> Html {
    match props.value {
        Some(n) => html! { <span class="value" data-field={props.field.clone()}>{ n }</span> },
        None => {
            html! { <span class="value missing" data-field={props.field.clone()} data-missing="true">{ "—" }</span> }
        }
    }
}
