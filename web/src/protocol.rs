//! The messages between the page and the parser worker.
//!
//! - Page → worker: a plain JS object `{ id, name, blob }` ([`ParseRequest`]). The `Blob` (a
//!   `File` is one) travels by structured clone, which copies a handle, not the bytes: the worker
//!   reads the file itself, so the page never holds or copies its contents.
//! - Worker → page: JSON strings, each a [`WorkerMessage`]: first `Ready` once the worker's wasm
//!   is running (messages posted before that would be lost, so the page holds them until then),
//!   then one `Reply` per request.

use perfscope_analysis::summary::Summary;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

/// A request to read and parse one file.
#[derive(Debug, Clone)]
pub struct ParseRequest {
    /// Chosen by the page; the reply carries it back so that stale replies can be dropped.
    pub id: u32,
    /// The file name, for messages.
    pub name: String,
    /// The file (or any Blob) to read.
    pub blob: web_sys::Blob,
}

impl ParseRequest {
    /// The JS object posted to the worker.
    pub fn to_js(&self) -> JsValue {
        let object = js_sys::Object::new();
        // `Reflect.set` on a fresh plain object cannot fail.
        let _ = js_sys::Reflect::set(&object, &"id".into(), &JsValue::from(self.id));
        let _ = js_sys::Reflect::set(&object, &"name".into(), &JsValue::from(self.name.as_str()));
        let _ = js_sys::Reflect::set(&object, &"blob".into(), &self.blob);
        object.into()
    }

    /// Reads a request posted by [`ParseRequest::to_js`].
    pub fn from_js(value: &JsValue) -> Result<ParseRequest, String> {
        let get = |key: &str| js_sys::Reflect::get(value, &key.into()).unwrap_or(JsValue::UNDEFINED);
        let id = get("id").as_f64().and_then(|v| {
            // Ids are small counters; anything else is not our message.
            (v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v)).then_some(v as u32)
        });
        let id = id.ok_or("the parse request has no numeric `id`")?;
        let name = get("name").as_string().unwrap_or_default();
        let blob = get("blob")
            .dyn_into::<web_sys::Blob>()
            .map_err(|_| "the parse request carries no Blob or File in `blob`".to_string())?;
        Ok(ParseRequest { id, name, blob })
    }
}

/// A message from the worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkerMessage {
    /// The worker is running and listening.
    Ready,
    /// The answer to one request.
    Reply(ParseReply),
}

impl WorkerMessage {
    /// The JSON string posted to the page.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            // Not expected (every field is plain data); say so rather than lose the reply.
            let id = match self {
                WorkerMessage::Reply(r) => r.id,
                WorkerMessage::Ready => None,
            };
            let message = format!("cannot encode the worker's message: {e}");
            let fallback = WorkerMessage::Reply(ParseReply { id, outcome: ParseOutcome::Crashed { message } });
            serde_json::to_string(&fallback).unwrap_or_default()
        })
    }

    /// Reads a message posted by [`WorkerMessage::to_json`].
    pub fn from_json(json: &str) -> Result<WorkerMessage, String> {
        serde_json::from_str(json).map_err(|e| format!("the worker sent an unreadable message: {e}"))
    }
}

/// The worker's answer to one [`ParseRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParseReply {
    /// The request's id; `None` when the worker could not tell which request failed.
    pub id: Option<u32>,
    /// What happened.
    pub outcome: ParseOutcome,
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ParseOutcome {
    /// The file was read; `summary.error` and `summary.warnings` say how well it parsed.
    Parsed {
        /// What the file declares about itself.
        summary: Box<Summary>,
        /// Where the time went.
        timings: Timings,
    },
    /// The browser could not read the file (for example it was deleted or is a directory).
    ReadFailed {
        /// The browser's error, for people.
        message: String,
    },
    /// The worker itself failed (a bug): the page starts a fresh worker for the next file.
    Crashed {
        /// What went wrong, for people.
        message: String,
    },
}

/// Time spent in the worker, in milliseconds. Non-finite values are sent as 0 (JSON has no
/// NaN, and a `null` would make the whole reply unreadable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Reading the file into memory.
    #[serde(serialize_with = "finite_or_zero")]
    pub read_ms: f64,
    /// Parsing it.
    #[serde(serialize_with = "finite_or_zero")]
    pub parse_ms: f64,
}

fn finite_or_zero<S: serde::Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(if value.is_finite() { *value } else { 0.0 })
}

/// A JS exception or rejection as one line for people: `"NotReadableError: The file could not
/// be read"`.
pub fn describe_js_error(error: &JsValue) -> String {
    if let Some(text) = error.as_string() {
        return text;
    }
    let field = |key: &str| {
        js_sys::Reflect::get(error, &key.into())
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
    };
    match (field("name"), field("message")) {
        (Some(name), Some(message)) => format!("{name}: {message}"),
        (None, Some(message)) => message,
        (Some(name), None) => name,
        (None, None) => format!("{error:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_analysis::summary::EventSummary;

    fn summary() -> Summary {
        Summary {
            file_size: 77_580,
            byte_order: "little".into(),
            hostname: Some("vm".into()),
            events: vec![EventSummary { name: "cpu-clock".into(), type_: 1, ids: 2, ..EventSummary::default() }],
            features: vec!["HOSTNAME".into()],
            ..Summary::default()
        }
    }

    #[test]
    fn parsed_reply_round_trips_through_json() {
        let reply = ParseReply {
            id: Some(7),
            outcome: ParseOutcome::Parsed { summary: Box::new(summary()), timings: Timings { read_ms: 1.5, parse_ms: 0.25 } },
        };
        let message = WorkerMessage::Reply(reply);
        let json = message.to_json();
        assert!(json.starts_with(r#"{"type":"reply","id":7,"outcome":{"kind":"parsed","#), "{json}");
        assert_eq!(WorkerMessage::from_json(&json).unwrap(), message);
    }

    #[test]
    fn failure_replies_round_trip_through_json() {
        for outcome in [
            ParseOutcome::ReadFailed { message: "NotReadableError: gone".into() },
            ParseOutcome::Crashed { message: "panicked at x".into() },
        ] {
            let message = WorkerMessage::Reply(ParseReply { id: None, outcome });
            assert_eq!(WorkerMessage::from_json(&message.to_json()).unwrap(), message);
        }
    }

    #[test]
    fn non_finite_timings_are_sent_as_zero() {
        // serde_json writes NaN as null, which does not read back as f64: without the guard the
        // page would get an unreadable reply for request 3.
        let timings = Timings { read_ms: f64::NAN, parse_ms: f64::INFINITY };
        let reply = ParseReply { id: Some(3), outcome: ParseOutcome::Parsed { summary: Box::new(summary()), timings } };
        let back = WorkerMessage::from_json(&WorkerMessage::Reply(reply).to_json()).unwrap();
        let expected = ParseOutcome::Parsed { summary: Box::new(summary()), timings: Timings { read_ms: 0.0, parse_ms: 0.0 } };
        assert_eq!(back, WorkerMessage::Reply(ParseReply { id: Some(3), outcome: expected }));
    }

    #[test]
    fn ready_is_a_bare_tag() {
        assert_eq!(WorkerMessage::Ready.to_json(), r#"{"type":"ready"}"#);
        assert_eq!(WorkerMessage::from_json(r#"{"type":"ready"}"#).unwrap(), WorkerMessage::Ready);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let err = WorkerMessage::from_json("{not json").unwrap_err();
        assert!(err.starts_with("the worker sent an unreadable message: "), "{err}");
    }
}
