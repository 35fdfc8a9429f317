//! A failure, said plainly.

use yew::prelude::*;

/// Properties of [`ErrorPanel`].
#[derive(Properties, PartialEq)]
pub struct ErrorPanelProps {
    /// One line: what failed.
    pub title: AttrValue,
    /// The details (the parser's message names the offset, what was expected and what was found).
    pub message: AttrValue,
    /// An optional hint on what to do.
    #[prop_or_default]
    pub hint: Option<AttrValue>,
}

/// A red panel with the title, the message (verbatim, monospace) and a hint.
#[function_component(ErrorPanel)]
pub fn error_panel(props: &ErrorPanelProps) -> Html {
    html! {
        <section class="panel error" id="error" role="alert">
            <h2 data-field="error-title">{ &props.title }</h2>
            <pre class="message" data-field="error">{ &props.message }</pre>
            if let Some(hint) = &props.hint { <p class="hint">{ hint }</p> }
        </section>
    }
}
