//! The page: mounts [`perfscope_web::app::App`] into `<div id="app">`.

fn main() {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => {
            // Replace the static "Loading…" placeholder of index.html.
            root.set_inner_html("");
            yew::Renderer::<perfscope_web::app::App>::with_root(root).render();
        }
        None => {
            yew::Renderer::<perfscope_web::app::App>::new().render();
        }
    }
}
