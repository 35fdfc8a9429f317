//! Canvas plumbing shared by the flame graph and the timeline: the container's width from a
//! `ResizeObserver`, a backing store sized by `devicePixelRatio` (crisp on high-DPI screens),
//! and a scheduler that draws at most once per animation frame, with the latest inputs.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, Element, HtmlCanvasElement, ResizeObserver, ResizeObserverEntry,
};
use yew::prelude::*;

/// CSS pixels (as opposed to the canvas's device pixels).
pub type CssPx = f64;

/// The width of `node` in CSS px, kept up to date by a `ResizeObserver`.
#[hook]
pub fn use_width(node: NodeRef) -> CssPx {
    use_size(node).0
}

/// The width and height of `node`'s content box in CSS px, kept up to date by a
/// `ResizeObserver`.
#[hook]
pub fn use_size(node: NodeRef) -> (CssPx, CssPx) {
    let size = use_state_eq(|| (0.0f64, 0.0f64));
    {
        let size = size.clone();
        use_effect_with(node, move |node| {
            let element = node.cast::<Element>();
            let observer = element.as_ref().and_then(|el| {
                size.set((
                    el.get_bounding_client_rect().width().floor(),
                    f64::from(el.client_height()),
                ));
                let s = size.clone();
                let callback =
                    Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
                        if let Some(entry) = entries.get(0).dyn_ref::<ResizeObserverEntry>() {
                            let r = entry.content_rect();
                            s.set((r.width().floor(), r.height().floor()));
                        }
                    });
                let observer = ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
                observer.observe(el);
                Some((observer, callback))
            });
            move || {
                if let Some((observer, _callback)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    *size
}

/// The screen's device pixels per CSS pixel.
pub fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .max(1.0)
}

/// Sizes the canvas to `width × height` CSS px with a backing store of device pixels, and returns
/// its 2D context scaled so that drawing code works in CSS px.
pub fn prepare(
    canvas: &HtmlCanvasElement,
    width: CssPx,
    height: CssPx,
) -> Option<CanvasRenderingContext2d> {
    let dpr = device_pixel_ratio();
    let (w, h) = (
        (width * dpr).round().max(1.0) as u32,
        (height * dpr).round().max(1.0) as u32,
    );
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    let style = canvas.style();
    let _ = style.set_property("width", &format!("{width}px"));
    let _ = style.set_property("height", &format!("{height}px"));
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    Some(ctx)
}

/// A drawing waiting for its frame.
type Pending = Rc<RefCell<Option<Box<dyn FnOnce()>>>>;

/// Runs the latest scheduled drawing once per animation frame.
#[derive(Clone, Default)]
pub struct FrameScheduler {
    pending: Pending,
    scheduled: Rc<Cell<bool>>,
    frames: Rc<Cell<u32>>,
}

impl FrameScheduler {
    /// Schedules `draw` for the next frame, replacing a drawing scheduled but not yet run.
    pub fn schedule(&self, draw: impl FnOnce() + 'static) {
        *self.pending.borrow_mut() = Some(Box::new(draw));
        if self.scheduled.get() {
            return;
        }
        self.scheduled.set(true);
        let (pending, scheduled, frames) = (
            self.pending.clone(),
            self.scheduled.clone(),
            self.frames.clone(),
        );
        let callback = Closure::once_into_js(move || {
            scheduled.set(false);
            frames.set(frames.get().wrapping_add(1));
            if let Some(draw) = pending.borrow_mut().take() {
                draw();
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = w.request_animation_frame(callback.unchecked_ref());
        }
    }

    /// Frames drawn so far.
    pub fn frames(&self) -> u32 {
        self.frames.get()
    }
}

impl PartialEq for FrameScheduler {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.pending, &other.pending)
    }
}

/// A scheduler that lives as long as the component.
#[hook]
pub fn use_frame_scheduler() -> FrameScheduler {
    (*use_memo((), |_| FrameScheduler::default())).clone()
}

/// Runs `draw` as the user-timing measure `name` (between two `performance.mark`s), for
/// benchmarks (a `PerformanceObserver` sees it) and the browser's performance panel. The
/// entries are cleared at once, so none pile up.
pub fn timed<R>(name: &str, draw: impl FnOnce() -> R) -> R {
    let perf = web_sys::window().and_then(|w| w.performance());
    let start = format!("{name}:start");
    if let Some(p) = &perf {
        let _ = p.mark(&start);
    }
    let result = draw();
    if let Some(p) = &perf {
        let _ = p.measure_with_start_mark(name, &start);
        p.clear_marks_with_mark_name(&start);
        p.clear_measures_with_measure_name(name);
    }
    result
}

/// The CSS color value of a custom property on `<body>` (`--fg`), for canvas drawing that
/// follows the theme.
pub fn css_var(name: &str, fallback: &str) -> String {
    let value = web_sys::window()
        .and_then(|w| {
            let body = w.document()?.body()?;
            w.get_computed_style(&body)
                .ok()??
                .get_property_value(name)
                .ok()
        })
        .map(|v| v.trim().to_string())
        .unwrap_or_default();
    if value.is_empty() {
        fallback.to_string()
    } else {
        value
    }
}

/// The computed style of `<body>`, read once for several custom properties (one style lookup
/// per frame rather than one per color).
pub struct CssVars(Option<web_sys::CssStyleDeclaration>);

impl CssVars {
    /// The current computed style of `<body>`.
    pub fn new() -> CssVars {
        CssVars(web_sys::window().and_then(|w| {
            let body = w.document()?.body()?;
            w.get_computed_style(&body).ok()?
        }))
    }

    /// The value of custom property `name` (`--fg`), or `fallback` when unset.
    pub fn get(&self, name: &str, fallback: &str) -> String {
        let value = self
            .0
            .as_ref()
            .and_then(|s| s.get_property_value(name).ok())
            .map(|v| v.trim().to_string())
            .unwrap_or_default();
        if value.is_empty() {
            fallback.to_string()
        } else {
            value
        }
    }
}

impl Default for CssVars {
    fn default() -> Self {
        CssVars::new()
    }
}
