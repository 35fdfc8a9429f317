//! The page's warm-up, as the worker has its own (`worker::warm_up`): before the first file
//! comes, the code that the page's thread runs when a file opens runs once on the bundled
//! example, so that the browser has compiled it by then. V8 compiles a wasm function when it
//! is first called: the first file's summary otherwise waited for ~400 such compiles (~70 ms
//! of the page's thread on the benchmark machine, BENCHMARKS.md session 41), in the window
//! where the page shows it.
//!
//! Three parts, each left out once a file is being opened ([`opening`]):
//! - the page's own read of a file's kind and summary ([`crate::early_summary`]), on the
//!   example fetched from the site;
//! - the views of a file being opened (the loading view and the summary), rendered once into
//!   an element outside the document, then taken down;
//! - the messages the worker sends for a file (its summary, profile and first tree): the
//!   worker sends the example's with request id 0, which no request has, after its first
//!   warm-up round; they are decoded as any message and dropped ([`take`]), the profile's
//!   file bar rendered as the summary's views are.

use std::cell::Cell;

use yew::prelude::*;

use crate::app::EXAMPLE_URL;
use crate::components::{FileBar, LoadingView, Metadata, Tabs};
use crate::early_summary::{Parts, KIND_BYTES};
use crate::protocol::{Phase, ProfileData, Progress, WorkerMessage};
use crate::session::symbols::classify;
use crate::state::{FileInfo, Shared, Tab};
use perfscope_analysis::summary::Summary;

thread_local! {
    /// Set when a file is being opened.
    static OPENING: Cell<bool> = const { Cell::new(false) };
}

/// A file is being opened: what is left of the warm-up is not done (it would take the thread
/// from the file).
pub fn opening() {
    OPENING.with(|o| o.set(true));
}

fn left_out() -> bool {
    OPENING.with(Cell::get)
}

/// Reads the example's kind and summary as a dropped file's, and renders its views (see the
/// module docs).
pub async fn run() {
    let Some(bytes) = fetch(EXAMPLE_URL).await else {
        return;
    };
    if left_out() {
        return;
    }
    let t0 = crate::worker::now_ms();
    let _ = classify("example.data", bytes.get(..KIND_BYTES).unwrap_or(&bytes));
    let mut parts = Parts::new(bytes.len() as u64);
    parts.add(0, bytes);
    let Some(Ok(summary)) = parts.summary() else {
        return;
    };
    render(Shared::new(summary), None).await;
    crate::worker::measure("page warm-up", t0);
}

/// Whether `message` is one of the worker's warm-up messages (request id 0: see the module
/// docs), which the page does not act on. The profile's views are rendered.
pub fn take(message: &WorkerMessage) -> bool {
    match message {
        WorkerMessage::Summary(0, _) | WorkerMessage::Tree(0, _) => true,
        WorkerMessage::Profile(0, profile) => {
            if !left_out() {
                let profile = Shared::new((**profile).clone());
                wasm_bindgen_futures::spawn_local(async move {
                    render(Shared::new(Summary::default()), Some(profile)).await;
                });
            }
            true
        }
        _ => false,
    }
}

#[derive(Properties, PartialEq)]
struct ViewsProps {
    summary: Shared<Summary>,
    profile: Option<Shared<ProfileData>>,
}

/// A file's views while it opens (with its summary), or once open (with its profile).
#[function_component(Views)]
fn views(props: &ViewsProps) -> Html {
    let file = FileInfo {
        name: "example.data".to_string(),
        size: Some(props.summary.file_size),
    };
    match &props.profile {
        None => html! {
            <>
                <LoadingView file={file.clone()} progress={Some(Progress { phase: Phase::Records, bytes: 1.0, total: 2.0, records: 10.0 })} on_cancel={Callback::noop()} />
                <div class="view summary-view">
                    <Metadata {file} summary={props.summary.clone()} />
                </div>
            </>
        },
        Some(profile) => html! {
            <>
                <FileBar file={file.clone()} summary={props.summary.clone()} timings={profile.overview.timings} />
                <Tabs current={Tab::Flame} on_select={Callback::noop()} />
                <Metadata {file} summary={props.summary.clone()} profile={profile.clone()} file_bar={false} />
            </>
        },
    }
}

/// Renders the views into an element outside the document, and takes them down after the
/// render (yew renders in a microtask; a timeout's turn comes after it).
async fn render(summary: Shared<Summary>, profile: Option<Shared<ProfileData>>) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("div").ok())
    else {
        return;
    };
    let handle =
        yew::Renderer::<Views>::with_root_and_props(root, ViewsProps { summary, profile }).render();
    crate::worker::next_turn().await;
    handle.destroy();
}

/// The bytes at `url` (relative to the page), or `None` on any failure.
async fn fetch(url: &str) -> Option<Vec<u8>> {
    let window = web_sys::window()?;
    let response: web_sys::Response =
        wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
            .await
            .ok()?
            .into();
    if !response.ok() {
        return None;
    }
    let buffer = wasm_bindgen_futures::JsFuture::from(response.array_buffer().ok()?)
        .await
        .ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}
