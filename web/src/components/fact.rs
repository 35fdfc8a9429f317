//! One labelled value.

use yew::prelude::*;

/// Properties of [`Fact`].
#[derive(Properties, PartialEq)]
pub struct FactProps {
    /// The label, for people.
    pub label: AttrValue,
    /// The stable `data-field` name of the value element, for tests and tools.
    pub field: AttrValue,
    /// The value; `None` shows a dash marked `data-missing`.
    pub value: Option<AttrValue>,
    /// A detail shown after the value, outside the `data-field` element.
    #[prop_or_default]
    pub detail: Option<AttrValue>,
    /// Monospace value (paths, versions, ids).
    #[prop_or_default]
    pub mono: bool,
    /// A tooltip for the label (e.g. the perf header feature it comes from).
    #[prop_or_default]
    pub title: Option<AttrValue>,
}

/// `<dt>label</dt><dd><span data-field=…>value</span> detail</dd>`.
#[function_component(Fact)]
pub fn fact(props: &FactProps) -> Html {
    let value = match &props.value {
        Some(v) => html! {
            <span class={classes!("value", props.mono.then_some("mono"))} data-field={props.field.clone()}>{ v }</span>
        },
        None => html! {
            <span class="value missing" data-field={props.field.clone()} data-missing="true" title="not in this file">{ "—" }</span>
        },
    };
    html! {
        <div class="fact">
            <dt title={props.title.clone()}>{ &props.label }</dt>
            <dd>
                { value }
                if let Some(detail) = &props.detail { <span class="detail">{ detail }</span> }
            </dd>
        </div>
    }
}
