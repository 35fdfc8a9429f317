//! Problems that did not stop reading.

use yew::prelude::*;

/// Properties of [`Warnings`].
#[derive(Properties, PartialEq)]
pub struct WarningsProps {
    /// The warnings, each naming its offset.
    pub warnings: Vec<String>,
}

/// A yellow list of warnings (nothing when there are none).
#[function_component(Warnings)]
pub fn warnings(props: &WarningsProps) -> Html {
    if props.warnings.is_empty() {
        return Html::default();
    }
    let count = props.warnings.len();
    html! {
        <section class="panel warning" id="warnings">
            <h2>{ if count == 1 { "1 warning".to_string() } else { format!("{count} warnings") } }</h2>
            <ul>
                { for props.warnings.iter().map(|w| html! { <li data-field="warning">{ w }</li> }) }
            </ul>
        </section>
    }
}
