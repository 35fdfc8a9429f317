//! What the page shows before a file is opened.

use yew::prelude::*;

/// Properties of [`Welcome`].
#[derive(Properties, PartialEq)]
pub struct WelcomeProps {
    /// "Open example" was pressed.
    pub on_example: Callback<()>,
}

/// The empty state: how to open a file and how to make one.
#[function_component(Welcome)]
pub fn welcome(props: &WelcomeProps) -> Html {
    let onclick = props.on_example.reform(|_: MouseEvent| ());
    html! {
        <section class="welcome" id="welcome">
            <div class="welcome-box">
                <h1>{ "Drop a perf.data file anywhere on this page" }</h1>
                <p class="muted">
                    { "or " }<label class="link" for="file">{ "choose a file" }</label>
                    { ", or " }<button type="button" class="link" {onclick}>{ "open the example" }</button>
                    { ". The file is read and parsed in this tab, in WebAssembly; it never leaves your machine." }
                </p>
                <div class="recipe">
                    <div class="recipe-title">{ "Record one with Linux perf" }</div>
                    <pre><code>{ "perf record -g -- ./your-program\n# or, for a running process:\nperf record -g -p PID -- sleep 10" }</code></pre>
                </div>
                <p class="muted small">
                    { "Both file-mode and pipe-mode (perf record -o -) files, in either byte order, are read." }
                </p>
            </div>
        </section>
    }
}
