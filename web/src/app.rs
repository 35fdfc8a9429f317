//! The root component: owns the state and the parser worker, routes files to it and picks the
//! view for the current [`Load`].

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DragEvent, Response};
use yew::prelude::*;

use crate::components::{DropOverlay, ErrorPanel, LoadingView, Metadata, Toolbar, Welcome};
use crate::protocol::describe_js_error;
use crate::state::{Action, AppState, FileInfo, Load};
use crate::worker_client::ParserWorker;

/// The bundled example (index.html copies `tests/data/example.data` into the site).
pub const EXAMPLE_URL: &str = "./example.data";

/// The page.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    let dragging = use_state_eq(|| false);

    let worker: Rc<ParserWorker> = {
        let dispatcher = state.dispatcher();
        use_memo((), move |_| ParserWorker::new(Callback::from(move |reply| dispatcher.dispatch(Action::Replied(reply)))))
    };

    // Every way of opening a file ends here: the blob goes to the worker.
    let open = {
        let dispatcher = state.dispatcher();
        let worker = worker.clone();
        Callback::from(move |(name, blob): (String, Blob)| {
            let file = FileInfo { name: name.clone(), size: Some(blob.size() as u64) };
            match worker.parse(&name, &blob) {
                Ok(id) => dispatcher.dispatch(Action::Started { id, file }),
                Err(message) => dispatcher.dispatch(Action::Failed { file: Some(file), message }),
            }
        })
    };

    let open_example = {
        let dispatcher = state.dispatcher();
        let open = open.clone();
        Callback::from(move |()| {
            let name = "example.data".to_string();
            dispatcher.dispatch(Action::Fetching { name: name.clone() });
            let dispatcher = dispatcher.clone();
            let open = open.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match fetch_blob(EXAMPLE_URL).await {
                    Ok(blob) => open.emit((name, blob)),
                    Err(message) => dispatcher.dispatch(Action::Failed {
                        file: Some(FileInfo { name, size: None }),
                        message: format!("could not fetch the example ({EXAMPLE_URL}): {message}"),
                    }),
                }
            });
        })
    };

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
        let dragging = dragging.clone();
        let open = open.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            let file = e.data_transfer().and_then(|dt| dt.files()).and_then(|files| files.get(0));
            if let Some(file) = file {
                open.emit((file.name(), file.into()));
            }
        })
    };

    {
        let ready = state.ready_state();
        let title = match state.file() {
            Some(file) => format!("{} — Perfscope", file.name),
            None => "Perfscope".to_string(),
        };
        use_effect_with((ready, title), |(ready, title)| {
            if let Some(document) = web_sys::window().and_then(|w| w.document()) {
                if let Some(body) = document.body() {
                    // `document.body.dataset.state`: the ready signal for tests.
                    let _ = body.set_attribute("data-state", ready.as_str());
                }
                document.set_title(title);
            }
        });
    }

    let busy = matches!(state.load, Load::Loading { .. });
    let content = match &state.load {
        Load::Idle => html! { <Welcome on_example={open_example.clone()} /> },
        Load::Loading { file } => html! { <LoadingView file={file.clone()} /> },
        Load::Loaded { file, summary, timings } => html! {
            <Metadata file={file.clone()} summary={summary.clone()} timings={*timings} />
        },
        Load::Failed { file, message } => {
            let title = match file {
                Some(f) => format!("Could not open {}", f.name),
                None => "Could not open the file".to_string(),
            };
            html! { <ErrorPanel title={title} message={message.clone()} /> }
        }
    };

    html! {
        <div id="dropzone" class={classes!("app", dragging.then_some("dragging"))}
             {ondragover} {ondragleave} {ondrop}>
            <Toolbar on_open={open} on_example={open_example} {busy} />
            <main class="content" aria-live="polite">{ content }</main>
            if *dragging { <DropOverlay /> }
        </div>
    }
}

/// GETs `url` as a Blob.
async fn fetch_blob(url: &str) -> Result<Blob, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str(url)).await.map_err(|e| describe_js_error(&e))?;
    let response: Response = response.dyn_into().map_err(|_| "fetch did not return a Response".to_string())?;
    if !response.ok() {
        return Err(format!("HTTP {} {}", response.status(), response.status_text()));
    }
    let blob = response.blob().map_err(|e| describe_js_error(&e))?;
    let blob = JsFuture::from(blob).await.map_err(|e| describe_js_error(&e))?;
    blob.dyn_into().map_err(|_| "the response body is not a Blob".to_string())
}
