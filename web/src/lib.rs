//! The Perfscope web app.
