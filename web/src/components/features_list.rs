//! The header features present in a file.

use yew::prelude::*;

/// Properties of [`FeaturesList`].
#[derive(Properties, PartialEq)]
pub struct FeaturesListProps {
    /// Feature names in bit order (`HOSTNAME`, `CMDLINE`, ...).
    pub features: Vec<String>,
}

/// The features as a wrapping list of tags.
#[function_component(FeaturesList)]
pub fn features_list(props: &FeaturesListProps) -> Html {
    if props.features.is_empty() {
        return html! { <p class="missing" data-field="features" data-missing="true">{ "No header features." }</p> };
    }
    html! {
        <ul class="tags" data-field="features">
            { for props.features.iter().map(|f| html! { <li data-feature={f.clone()}>{ f }</li> }) }
        </ul>
    }
}
