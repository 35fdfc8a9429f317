//! The parser Web Worker (built by Trunk with `data-type="worker" data-loader-shim`).

fn main() {
    perfscope_web::worker::start();
}
