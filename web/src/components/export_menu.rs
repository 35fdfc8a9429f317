//! The export menu: the open profile (with the view's filter) as a share file — with the
//! privacy options — or as folded stacks, an SVG flame graph, pprof or speedscope JSON. The
//! worker writes the file; the page downloads it.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::protocol::{ExportFormat, Privacy};

/// Properties of [`ExportMenu`].
#[derive(Properties, PartialEq)]
pub struct ExportMenuProps {
    /// A format was chosen, with the privacy options (they apply to the share file).
    pub on_export: Callback<(ExportFormat, Privacy)>,
    /// An export is being written.
    pub busy: bool,
    /// The last export's failure.
    #[prop_or_default]
    pub error: Option<String>,
}

/// "Export…": a disclosure with the formats and the privacy options.
#[function_component(ExportMenu)]
pub fn export_menu(props: &ExportMenuProps) -> Html {
    // Sharing strips what identifies the machine by default; thread names are often useful.
    let privacy = use_state(|| Privacy {
        strip_paths: true,
        strip_cmdline: true,
        strip_hostname: true,
        strip_thread_names: false,
    });
    let option = |id: &'static str,
                  label: &'static str,
                  get: fn(&Privacy) -> bool,
                  set: fn(&mut Privacy, bool)| {
        let p = privacy.clone();
        let onchange = Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let mut next = *p;
            set(&mut next, input.checked());
            p.set(next);
        });
        html! {
            <label class="check"><input type="checkbox" id={id} checked={get(&privacy)} {onchange} />{ label }</label>
        }
    };
    html! {
        <details class="export-menu" id="export-menu">
            <summary class="button">{ "Export…" }</summary>
            <div class="menu-panel" role="group" aria-label="Export">
                <fieldset>
                    <legend>{ "Share file: leave out" }</legend>
                    { option("privacy-paths", "file paths (keep base names)", |p| p.strip_paths, |p, v| p.strip_paths = v) }
                    { option("privacy-cmdline", "the command line", |p| p.strip_cmdline, |p, v| p.strip_cmdline = v) }
                    { option("privacy-hostname", "the host name", |p| p.strip_hostname, |p, v| p.strip_hostname = v) }
                    { option("privacy-threads", "thread names", |p| p.strip_thread_names, |p, v| p.strip_thread_names = v) }
                </fieldset>
                <div class="menu-buttons">
                    { for ExportFormat::ALL.iter().map(|&format| {
                        let (on_export, privacy) = (props.on_export.clone(), privacy.clone());
                        let onclick = Callback::from(move |_: MouseEvent| on_export.emit((format, *privacy)));
                        let label = if format == ExportFormat::Share { "Export for sharing" } else { format.label() };
                        html! {
                            <button type="button" class={classes!("button", (format == ExportFormat::Share).then_some("primary"))}
                                    id={format!("export-{}", format.id())} disabled={props.busy} {onclick}
                                    title={format.label()}>{ label }</button>
                        }
                    }) }
                </div>
                if props.busy { <p class="muted small" id="export-busy">{ "Writing…" }</p> }
                if let Some(e) = &props.error { <p class="error small" id="export-error" role="alert">{ format!("Export failed: {e}") }</p> }
                <p class="muted small">{ "The file is written here, in your browser, from what the views count (time selection, event, threads; off-CPU time when the weight is off-CPU time)." }</p>
            </div>
        </details>
    }
}
