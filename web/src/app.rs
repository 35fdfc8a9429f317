//! The root component: owns the state (a reducer) and the analysis worker, routes files to it,
//! sends the queries the current view needs, publishes the ready signals and picks the view.

use std::rc::Rc;

use js_sys::Uint8Array;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, HtmlElement, KeyboardEvent};
use yew::prelude::*;

use crate::components::flame_graph::preview::{PreviewFlame, PreviewPlace, PREVIEW_FILE_BYTES};
use crate::components::{
    CallTreeView, CompareView, CopyLink, DropOverlay, ErrorBanner, ErrorPanel, ExportMenu, FileBar,
    FlameGraphView, LoadingView, Metadata, RecordsView, Tabs, TimelineView, Toolbar, Welcome,
};
use crate::early_summary::Ends;
use crate::protocol::js::{describe_js_error, NamedBlob};
use crate::protocol::{ExportFormat, ExportReply, Privacy, Query, WorkerMessage};
use crate::selectors;
use crate::session::symbols::{classify, FileKind};
use crate::state::{Action, AppState, FileInfo, LinkState, Load, Tab, ViewAction};
use crate::worker_client::AnalysisWorker;

/// The bundled example (index.html copies `tests/data/example.data` into the site).
pub const EXAMPLE_URL: &str = "./example.data";

/// The page.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| AppState {
        tree_detail: crate::worker_client::detail_param(),
        ..AppState::default()
    });
    let dragging = use_state_eq(|| false);

    let worker: Rc<AnalysisWorker> = {
        let dispatcher = state.dispatcher();
        use_memo((), move |_| {
            AnalysisWorker::new(Callback::from(move |m| match m {
                // Downloads are side effects: the bytes go to the browser, not into the state.
                WorkerMessage::Export(id, e) => {
                    let ExportReply { meta, bytes } = *e;
                    if let Err(message) = download(&meta.file_name, &meta.mime, &bytes) {
                        dispatcher.dispatch(Action::Worker(WorkerMessage::Failed(
                            id,
                            crate::protocol::Failure {
                                message,
                                crashed: false,
                            },
                        )));
                    } else {
                        dispatcher.dispatch(Action::Worker(WorkerMessage::Export(
                            id,
                            Box::new(ExportReply {
                                meta,
                                bytes: Vec::new(),
                            }),
                        )));
                    }
                }
                m => dispatcher.dispatch(Action::Worker(m)),
            }))
        })
    };
    let on_action = {
        let dispatcher = state.dispatcher();
        Callback::from(move |a: ViewAction| dispatcher.dispatch(Action::View(a)))
    };

    // Every way of opening files ends here. A perf.data among them opens it (the others are its
    // symbol files); symbol files alone re-symbolize the open profile.
    let open = {
        let (dispatcher, worker) = (state.dispatcher(), worker.clone());
        let loaded = state.profile().is_some();
        Callback::from(move |files: Vec<NamedBlob>| {
            let (dispatcher, worker) = (dispatcher.clone(), worker.clone());
            crate::page_warm_up::opening();
            wasm_bindgen_futures::spawn_local(async move {
                // Marked for the browser bench and the performance panel, as the worker's steps.
                let t0 = crate::worker::now_ms();
                // Every file's ends are read at once (see `Ends`).
                let started: Vec<Ends> = files.iter().map(|f| Ends::start(&f.blob)).collect();
                let mut kinds = Vec::with_capacity(files.len());
                let mut ends = Vec::with_capacity(files.len());
                for (f, e) in files.iter().zip(started) {
                    // What the file is, from its name and first bytes (the worker decides
                    // again on its own).
                    let (head, parts) = e.read().await;
                    kinds.push(classify(&f.name, &head));
                    ends.push(Some(parts));
                }
                crate::worker::measure("page: file kinds", t0);
                let perf = kinds.iter().position(|&k| k.is_profile());
                let symbols = kinds
                    .iter()
                    .any(|&k| !k.is_profile() && k != FileKind::Unknown);
                if perf.is_none() && symbols && loaded {
                    match worker.add_files(files) {
                        Ok(id) => dispatcher.dispatch(Action::SymbolsStarted { id }),
                        Err(message) => dispatcher.dispatch(Action::Failed {
                            file: None,
                            message,
                        }),
                    }
                    return;
                }
                let Some(main) = files.get(perf.unwrap_or(0)) else {
                    return;
                };
                let file = FileInfo {
                    name: main.name.clone(),
                    size: Some(main.blob.size() as u64),
                };
                // A perf.data's header is read here too, while the worker (maybe still starting)
                // opens it: its summary shows at once.
                let blob = (perf.and_then(|i| kinds.get(i)) == Some(&FileKind::PerfData))
                    .then(|| main.blob.clone())
                    .zip(perf.and_then(|i| ends.get_mut(i)).and_then(Option::take));
                match worker.open(files) {
                    Ok(id) => {
                        dispatcher.dispatch(Action::Started { id, file });
                        if let Some((blob, parts)) = blob {
                            let t0 = crate::worker::now_ms();
                            let summary = crate::early_summary::early_summary(&blob, parts).await;
                            crate::worker::measure("page: summary read", t0);
                            if let Some(summary) = summary {
                                dispatcher.dispatch(Action::EarlySummary {
                                    id,
                                    summary: Box::new(summary),
                                });
                            }
                        }
                    }
                    Err(message) => dispatcher.dispatch(Action::Failed {
                        file: Some(file),
                        message,
                    }),
                }
            });
        })
    };

    // Downloads happen in the worker, streamed into a Blob with progress, then open as files do.
    let fetch_and_open = {
        let (dispatcher, worker) = (state.dispatcher(), worker.clone());
        Callback::from(move |(name, url): (String, String)| {
            crate::page_warm_up::opening();
            let file = FileInfo {
                name: name.clone(),
                size: None,
            };
            match worker.open_url(name, &url) {
                Ok(id) => dispatcher.dispatch(Action::Started { id, file }),
                Err(message) => dispatcher.dispatch(Action::Failed {
                    file: Some(file),
                    message: format!("could not fetch {url}: {message}"),
                }),
            }
        })
    };
    let open_example =
        fetch_and_open.reform(|()| ("example.data".to_string(), EXAMPLE_URL.to_string()));

    // ?url=https://… opens that file on start; a #v=1&… hash is the view to show it in.
    {
        let (fetch_and_open, dispatcher, worker) =
            (fetch_and_open.clone(), state.dispatcher(), worker.clone());
        use_effect_with((), move |_| {
            // The worker's wasm compiles while the person picks a file, and the page runs what
            // it runs for a file once.
            worker.warm_up();
            wasm_bindgen_futures::spawn_local(crate::page_warm_up::run());
            let hash = web_sys::window()
                .and_then(|w| w.location().hash().ok())
                .unwrap_or_default();
            if let Some(link) = LinkState::decode(&hash) {
                // (Before the ?url= file is asked for, which is opened so.)
                worker.prefer_by_address(link.by_address);
                dispatcher.dispatch(Action::Link(link));
            }
            let url = web_sys::window()
                .and_then(|w| w.location().search().ok())
                .and_then(|q| web_sys::UrlSearchParams::new_with_str(&q).ok())
                .and_then(|p| p.get("url"));
            if let Some(url) = url.filter(|u| !u.is_empty()) {
                let name = url
                    .rsplit('/')
                    .next()
                    .filter(|n| !n.is_empty())
                    .unwrap_or("perf.data")
                    .to_string();
                fetch_and_open.emit((name, url));
            }
        });
    }

    // The view state goes to the hash (debounced: the effect's cleanup cancels a pending write).
    {
        let hash = match (state.profile(), &state.link) {
            (Some(profile), None) => Some(LinkState::from_view(&state.view, profile).encode()),
            _ => None,
        };
        use_effect_with(hash, |hash| {
            let timer = hash.clone().and_then(|hash| {
                let window = web_sys::window()?;
                let write = Closure::once_into_js(move || {
                    if let Some(w) = web_sys::window() {
                        let url = format!(
                            "{}{}#{hash}",
                            w.location().pathname().unwrap_or_default(),
                            w.location().search().unwrap_or_default()
                        );
                        if let Ok(history) = w.history() {
                            let _ = history.replace_state_with_url(
                                &wasm_bindgen::JsValue::NULL,
                                "",
                                Some(&url),
                            );
                        }
                    }
                });
                window
                    .set_timeout_with_callback_and_timeout_and_arguments_0(
                        write.unchecked_ref(),
                        250,
                    )
                    .ok()
            });
            move || {
                if let (Some(t), Some(w)) = (timer, web_sys::window()) {
                    w.clear_timeout_with_handle(t);
                }
            }
        });
    }

    let on_export = {
        let (dispatcher, worker) = (state.dispatcher(), worker.clone());
        let filter = selectors::filter(&state);
        let weight = state.view.weight;
        let name = state.file().map(|f| f.name.clone()).unwrap_or_default();
        Callback::from(move |(format, privacy): (ExportFormat, Privacy)| {
            let query = Query::Export {
                format,
                filter: filter.clone(),
                weight,
                privacy,
                name: name.clone(),
            };
            match worker.ask(query) {
                Ok(id) => dispatcher.dispatch(Action::ExportStarted { id }),
                Err(message) => dispatcher.dispatch(Action::Failed {
                    file: None,
                    message,
                }),
            }
        })
    };
    let on_compare = {
        let (dispatcher, worker) = (state.dispatcher(), worker.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(list) = input.files() else { return };
            let files: Vec<NamedBlob> = (0..list.length())
                .filter_map(|i| list.get(i))
                .map(|f| NamedBlob {
                    name: f.name(),
                    blob: f.into(),
                })
                .collect();
            input.set_value("");
            let Some(first) = files.first() else { return };
            let name = first.name.clone();
            match worker.compare(files) {
                Ok(id) => dispatcher.dispatch(Action::CompareStarted { id, name }),
                Err(message) => dispatcher.dispatch(Action::Failed {
                    file: None,
                    message,
                }),
            }
        })
    };
    let hosted = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|q| q.contains("url="));

    let cancel = {
        let (dispatcher, worker) = (state.dispatcher(), worker.clone());
        Callback::from(move |()| {
            worker.cancel();
            worker.warm_up();
            dispatcher.dispatch(Action::Cancelled);
        })
    };

    // Frames without a symbol one per address or one per module: the open profile is built
    // again when that changes (and the next file is opened so).
    {
        let (dispatcher, worker) = (state.dispatcher(), worker.clone());
        let loaded = state.profile().is_some();
        use_effect_with((state.view.by_address, loaded), move |&(on, loaded)| {
            if !loaded {
                // Nothing to build again: the next file is opened so.
                worker.prefer_by_address(on);
                return;
            }
            match worker.set_by_address(on) {
                Ok(Some(id)) => dispatcher.dispatch(Action::SymbolsStarted { id }),
                Ok(None) => {}
                Err(message) => dispatcher.dispatch(Action::Failed {
                    file: None,
                    message,
                }),
            }
        });
    }

    // The queries the shown view needs; the worker client skips repeats and coalesces.
    {
        let wanted = selectors::wanted_queries(&state);
        let generation = state.profile().map_or(0, |p| p.overview.generation);
        let worker = worker.clone();
        use_effect_with((wanted, generation), move |(wanted, generation)| {
            for q in wanted {
                worker.want(*generation, q.clone());
            }
        });
    }

    // Ready signals for tests and tools: body[data-state], [data-generation], [data-tab].
    {
        let ready = state.ready_state();
        let title = match state.file() {
            Some(file) => format!("{} — Perfscope", file.name),
            None => "Perfscope".to_string(),
        };
        let generation = state.profile().map_or(0, |p| p.overview.generation);
        let tab = state.view.tab.id();
        let symbolizing = state.symbols_request.is_some();
        use_effect_with(
            (ready, title, generation, tab, symbolizing),
            |(ready, title, generation, tab, symbolizing)| {
                if let Some(document) = web_sys::window().and_then(|w| w.document()) {
                    if let Some(body) = document.body() {
                        let _ = body.set_attribute("data-state", ready.as_str());
                        let _ = body.set_attribute("data-generation", &generation.to_string());
                        let _ = body.set_attribute("data-tab", tab);
                        let _ = body.set_attribute("data-symbolizing", &symbolizing.to_string());
                    }
                    document.set_title(title);
                }
            },
        );
    }

    // Digits 1–6 switch tabs (outside text fields).
    {
        let on_action = on_action.clone();
        use_effect_with((), move |_| {
            let cb = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
                if e.ctrl_key() || e.meta_key() || e.alt_key() {
                    return;
                }
                let typing = e
                    .target()
                    .and_then(|t| t.dyn_into::<HtmlElement>().ok())
                    .is_some_and(|el| {
                        matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                    });
                if typing {
                    return;
                }
                let tab = e
                    .key()
                    .parse::<usize>()
                    .ok()
                    .and_then(|d| d.checked_sub(1))
                    .and_then(|i| Tab::ALL.get(i).copied());
                if let Some(tab) = tab {
                    on_action.emit(ViewAction::Tab(tab));
                }
            });
            let document = web_sys::window().and_then(|w| w.document());
            if let Some(d) = &document {
                let _ = d.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
            }
            move || {
                if let Some(d) = document {
                    let _ = d.remove_event_listener_with_callback(
                        "keydown",
                        cb.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }

    // The drop zone is the whole window.
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            // Without this the browser never fires `drop` (and opens the file itself instead).
            e.prevent_default();
            if let Some(dt) = e.data_transfer() {
                dt.set_drop_effect("copy");
            }
            dragging.set(true);
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            // Moving between elements inside the page has a related target; leaving it has none.
            if e.related_target().is_none() {
                dragging.set(false);
            }
        })
    };
    let ondrop = {
        let (dragging, open) = (dragging.clone(), open.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            if let Some(files) = e.data_transfer().and_then(|dt| dt.files()) {
                let list: Vec<NamedBlob> = (0..files.length())
                    .filter_map(|i| files.get(i))
                    .map(|f| NamedBlob {
                        name: f.name(),
                        blob: f.into(),
                    })
                    .collect();
                if !list.is_empty() {
                    open.emit(list);
                }
            }
        })
    };

    let summary_key = format!("summary-{}", state.opened);
    let snapshot = Rc::new((*state).clone());
    let content = match &state.load {
        Load::Idle => html! { <Welcome on_example={open_example.clone()} /> },
        Load::Loading {
            file,
            progress,
            summary,
            preview,
        } => {
            // Keyed, as the loaded view's children are: the summary read while loading is the
            // same element and component as the loaded view's Summary tab, so loading ends by
            // adding the analysis to it rather than building the whole summary again. A new
            // file's summary is a new element (`opened`): moving the last file's one into the
            // loading view made yew fail to place its nodes when the summary came at once.
            let mut items = vec![html! {
                <LoadingView key="loading" file={file.clone()} progress={*progress} on_cancel={cancel.clone()} />
            }];
            if let Some(preview) = preview {
                items.push(html! { <PreviewFlame key="preview" preview={preview.clone()} /> });
            } else if file.size.is_some_and(|b| b >= PREVIEW_FILE_BYTES)
                && summary.as_ref().is_some_and(|s| !s.byte_order.is_empty())
                && crate::worker_client::previews_on()
            {
                items.push(html! { <PreviewPlace key="preview-place" /> });
            }
            if let Some(summary) = summary {
                items.push(html! {
                    <div key={summary_key.clone()} class="view summary-view">
                        <Metadata file={file.clone()} summary={summary.clone()} />
                    </div>
                });
            }
            items.into_iter().collect::<Html>()
        }
        Load::Loaded {
            file,
            summary,
            profile,
        } => {
            let show_records = on_action.reform(|()| ViewAction::Tab(Tab::Records));
            let on_tab = on_action.reform(ViewAction::Tab);
            // Not a perf.data, nor text input (which has events but no byte order): the summary says why.
            let unreadable = summary.byte_order.is_empty() && summary.events.is_empty();
            let panel = if unreadable {
                html! { <Metadata key={summary_key.clone()} file={file.clone()} summary={summary.clone()} profile={profile.clone()} /> }
            } else {
                match state.view.tab {
                    Tab::Summary => html! {
                        <div key={summary_key.clone()} class="view summary-view" id="panel-summary" role="tabpanel" aria-labelledby="tab-summary">
                            <Metadata file={file.clone()} summary={summary.clone()} profile={profile.clone()} file_bar={false} />
                        </div>
                    },
                    Tab::Flame => {
                        html! { <FlameGraphView key="flame" state={snapshot.clone()} profile={profile.clone()} wanted={selectors::tree_query(&state)} on_action={on_action.clone()} /> }
                    }
                    Tab::CallTree => {
                        html! { <CallTreeView key="call-tree" state={snapshot.clone()} profile={profile.clone()} wanted={selectors::tree_query(&state)} on_action={on_action.clone()} /> }
                    }
                    Tab::Timeline => {
                        html! { <TimelineView key="timeline" state={snapshot.clone()} profile={profile.clone()} wanted={selectors::timeline_query(&state)} on_action={on_action.clone()} /> }
                    }
                    Tab::Records => {
                        html! { <RecordsView key="records" state={snapshot.clone()} profile={profile.clone()} wanted={selectors::records_query(&state)} on_action={on_action.clone()} /> }
                    }
                    Tab::Compare => {
                        html! { <CompareView key="compare" profile={profile.clone()} compare={state.compare.clone()} diff={state.results.diff.clone()} /> }
                    }
                }
            };
            // Every child keyed (see the loading view).
            let mut items = Vec::new();
            if !unreadable {
                items.extend([
                    html! { <FileBar key="file-bar" file={file.clone()} summary={summary.clone()} timings={profile.overview.timings} /> },
                    html! {
                        <div key="share-bar" class="share-bar" id="share-bar">
                            <ExportMenu on_export={on_export.clone()} busy={state.export_request.is_some()} error={state.export_error.clone()} />
                            <CopyLink {hosted} />
                            <input type="file" id="compare-file" class="visually-hidden" multiple=true onchange={on_compare.clone()} />
                            <label class="button" for="compare-file" title="Open a base profile (a perf.data or share file, with its symbol files) to compare this one with">{ "Compare with…" }</label>
                        </div>
                    },
                    html! { <ErrorBanner key="error-banner" profile={profile.clone()} on_show_records={show_records} /> },
                    html! { <Tabs key="tabs" current={state.view.tab} on_select={on_tab} /> },
                ]);
            }
            if let Some(e) = &state.symbols_error {
                items.push(html! { <div key="symbols-error" class="banner warning" role="alert" id="symbols-error">{ format!("Symbol files: {e}") }</div> });
            }
            if let Some(e) = &state.query_error {
                items.push(html! { <div key="query-error" class="banner error" role="alert" id="query-error">{ e.clone() }</div> });
            }
            items.push(panel);
            items.into_iter().collect::<Html>()
        }
        Load::Failed { file, message } => {
            let title = match file {
                Some(f) => format!("Could not open {}", f.name),
                None => "Could not open the file".to_string(),
            };
            html! {
                <>
                    if let Some(f) = file { <div class="file-bar"><h1 class="file-name" data-field="file-name">{ &f.name }</h1></div> }
                    <ErrorPanel title={title} message={message.clone()} />
                </>
            }
        }
    };

    html! {
        <div id="dropzone" class={classes!("app", dragging.then_some("dragging"))} {ondragover} {ondragleave} {ondrop}>
            <Toolbar on_open={open} on_example={open_example} symbolizing={state.symbols_request.is_some()} />
            <main class="content" aria-live="polite">{ content }</main>
            if *dragging { <DropOverlay /> }
        </div>
    }
}

/// Hands `bytes` to the browser as a download named `name`.
fn download(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let parts = js_sys::Array::of1(&Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|e| describe_js_error(&e))?;
    let url =
        web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| describe_js_error(&e))?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|e| describe_js_error(&e))?
        .unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // The browser has started the download once click() returns; let it read the Blob first.
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    Ok(())
}
