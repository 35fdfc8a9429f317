//! Packets and requests as JS values: `{kind, id, json, cols: {name: TypedArray}}`, posted with
//! the typed arrays' buffers in the transfer list.

use js_sys::{Array, BigUint64Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Blob;

use super::messages::Query;
use super::packet::{Column, Packet};

fn set(object: &Object, key: &str, value: &JsValue) {
    // Setting a property of a fresh plain object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn id_of(value: &JsValue) -> Option<u32> {
    get(value, "id").as_f64().and_then(|v| {
        (v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v)).then_some(v as u32)
    })
}

fn slice_of(value: &JsValue) -> u32 {
    get(value, "slice")
        .as_f64()
        .filter(|v| (0.0..=f64::from(u32::MAX)).contains(v))
        .map_or(0, |v| v as u32)
}

/// A packet as a JS object, and the buffers to transfer with it.
pub fn packet_to_js(p: Packet) -> (JsValue, Array) {
    let object = Object::new();
    let transfer = Array::new();
    set(&object, "kind", &JsValue::from_str(&p.kind));
    set(&object, "id", &JsValue::from(p.id));
    set(&object, "json", &JsValue::from_str(&p.json));
    let cols = Object::new();
    for (name, column) in p.columns {
        let array: JsValue = match column {
            Column::U8(v) => Uint8Array::from(v.as_slice()).into(),
            Column::U32(v) => Uint32Array::from(v.as_slice()).into(),
            Column::U64(v) => BigUint64Array::from(v.as_slice()).into(),
            Column::F64(v) => Float64Array::from(v.as_slice()).into(),
        };
        transfer.push(&get(&array, "buffer"));
        set(&cols, &name, &array);
    }
    set(&object, "cols", &cols);
    (object.into(), transfer)
}

/// Reads a packet made by [`packet_to_js`].
pub fn packet_from_js(value: &JsValue) -> Result<Packet, String> {
    let kind = get(value, "kind")
        .as_string()
        .ok_or("the worker sent a message without a kind")?;
    let id = id_of(value).unwrap_or(0);
    let json = get(value, "json")
        .as_string()
        .unwrap_or_else(|| "{}".to_string());
    let cols = get(value, "cols");
    let mut columns = Vec::new();
    if cols.is_object() {
        for key in Object::keys(cols.unchecked_ref::<Object>()).iter() {
            let Some(name) = key.as_string() else {
                continue;
            };
            let array = get(&cols, &name);
            let column = if let Some(a) = array.dyn_ref::<Uint8Array>() {
                Column::U8(a.to_vec())
            } else if let Some(a) = array.dyn_ref::<Uint32Array>() {
                Column::U32(a.to_vec())
            } else if let Some(a) = array.dyn_ref::<BigUint64Array>() {
                Column::U64(a.to_vec())
            } else if let Some(a) = array.dyn_ref::<Float64Array>() {
                Column::F64(a.to_vec())
            } else {
                return Err(format!(
                    "{kind} message: column {name} is not a typed array"
                ));
            };
            columns.push((name, column));
        }
    }
    Ok(Packet {
        kind,
        id,
        json,
        columns,
    })
}

/// A file handed to the worker.
#[derive(Debug, Clone)]
pub struct NamedBlob {
    /// The file name.
    pub name: String,
    /// The file.
    pub blob: Blob,
}

/// A request from the page.
#[derive(Debug, Clone)]
pub enum Request {
    /// Open these files (one perf.data and symbol files, or symbol files only).
    Files {
        /// Request id.
        id: u32,
        /// The files.
        files: Vec<NamedBlob>,
        /// Read the perf.data in slices of this many bytes (0: the worker's default).
        slice: u32,
        /// Name frames without a symbol one per address (`module+0xoffset`), not one per
        /// module (`[module]`). Sent alone (no files) to an open profile, it builds the
        /// profile again if that changes it.
        by_address: bool,
    },
    /// Download a perf.data from `url` (with progress) and open it.
    Url {
        /// Request id.
        id: u32,
        /// The file name to show.
        name: String,
        /// An absolute URL.
        url: String,
        /// As in [`Request::Files`].
        slice: u32,
        /// As in [`Request::Files`].
        by_address: bool,
    },
    /// Read these files (one profile and its symbol files) as the base to compare the open
    /// profile with.
    Compare {
        /// Request id.
        id: u32,
        /// The files.
        files: Vec<NamedBlob>,
    },
    /// Make the stacks of the samples of `blob` whose records start at `cut` or later, for
    /// the worker that reads the same file (sent by that worker to its helper:
    /// `crate::stack_helper`).
    Stacks {
        /// Request id.
        id: u32,
        /// The perf.data.
        blob: Blob,
        /// The file offset from which on the samples are this request's.
        cut: u64,
        /// Read the file in slices of this many bytes.
        slice: u32,
        /// As in [`Request::Files`].
        by_address: bool,
    },
    /// Decompress the compressed records of `blob`, read in slices of `slice` bytes, for the
    /// worker that reads the same file (sent by that worker to its inflater:
    /// `crate::inflater`).
    Inflate {
        /// Request id.
        id: u32,
        /// The perf.data.
        blob: Blob,
        /// Its records: from this file offset...
        start: u64,
        /// ...to this one.
        end: u64,
        /// Whether they are big-endian.
        big_endian: bool,
        /// Read them in slices of this many bytes.
        slice: u32,
        /// Instead of decompressing them, put them in time order and decode the samples
        /// (`crate::session::OrderPass`): the file has no compressed records, or is a
        /// compressed pipe stream (`pipe`).
        order: bool,
        /// `blob` is a pipe-mode stream whose records are compressed: decompressed from its
        /// first byte (`start` 0, its pipe header), or, with `order`, by an inflater of the
        /// ordering worker's own.
        pipe: bool,
    },
    /// A query on the open profile.
    Query {
        /// Request id.
        id: u32,
        /// The query.
        query: Query,
    },
}

/// Files as a JS array of `{name, blob}`.
fn files_to_js(files: &[NamedBlob]) -> Array {
    let list = Array::new();
    for f in files {
        let entry = Object::new();
        set(&entry, "name", &JsValue::from_str(&f.name));
        set(&entry, "blob", &f.blob);
        list.push(&entry);
    }
    list
}

impl Request {
    /// The JS object posted to the worker (Blobs travel as handles).
    pub fn to_js(&self) -> JsValue {
        let object = Object::new();
        match self {
            Request::Url {
                id,
                name,
                url,
                slice,
                by_address,
            } => {
                set(&object, "op", &JsValue::from_str("url"));
                set(&object, "id", &JsValue::from(*id));
                set(&object, "name", &JsValue::from_str(name));
                set(&object, "url", &JsValue::from_str(url));
                set(&object, "slice", &JsValue::from(*slice));
                set(&object, "byAddress", &JsValue::from(*by_address));
            }
            Request::Compare { id, files } => {
                set(&object, "op", &JsValue::from_str("compare"));
                set(&object, "id", &JsValue::from(*id));
                set(&object, "files", &files_to_js(files));
            }
            Request::Files {
                id,
                files,
                slice,
                by_address,
            } => {
                set(&object, "op", &JsValue::from_str("files"));
                set(&object, "id", &JsValue::from(*id));
                set(&object, "slice", &JsValue::from(*slice));
                set(&object, "byAddress", &JsValue::from(*by_address));
                set(&object, "files", &files_to_js(files));
            }
            Request::Stacks {
                id,
                blob,
                cut,
                slice,
                by_address,
            } => {
                set(&object, "op", &JsValue::from_str("stacks"));
                set(&object, "id", &JsValue::from(*id));
                set(&object, "blob", blob);
                set(&object, "cut", &JsValue::from(*cut as f64));
                set(&object, "slice", &JsValue::from(*slice));
                set(&object, "byAddress", &JsValue::from(*by_address));
            }
            Request::Inflate {
                id,
                blob,
                start,
                end,
                big_endian,
                slice,
                order,
                pipe,
            } => {
                set(&object, "op", &JsValue::from_str("inflate"));
                set(&object, "order", &JsValue::from(*order));
                set(&object, "pipe", &JsValue::from(*pipe));
                set(&object, "id", &JsValue::from(*id));
                set(&object, "blob", blob);
                set(&object, "start", &JsValue::from(*start as f64));
                set(&object, "end", &JsValue::from(*end as f64));
                set(&object, "bigEndian", &JsValue::from(*big_endian));
                set(&object, "slice", &JsValue::from(*slice));
            }
            Request::Query { id, query } => {
                set(&object, "op", &JsValue::from_str("query"));
                set(&object, "id", &JsValue::from(*id));
                let json = serde_json::to_string(query).unwrap_or_default();
                set(&object, "json", &JsValue::from_str(&json));
            }
        }
        object.into()
    }

    /// Reads a request posted by [`Request::to_js`].
    pub fn from_js(value: &JsValue) -> Result<Request, String> {
        let id = id_of(value).ok_or("the request has no numeric `id`")?;
        match get(value, "op").as_string().as_deref() {
            Some(op @ ("files" | "compare")) => {
                let list: Array = get(value, "files")
                    .dyn_into()
                    .map_err(|_| "the files request has no `files` array".to_string())?;
                let mut files = Vec::new();
                for entry in list.iter() {
                    let name = get(&entry, "name").as_string().unwrap_or_default();
                    let blob = get(&entry, "blob")
                        .dyn_into::<Blob>()
                        .map_err(|_| format!("the file {name:?} carries no Blob"))?;
                    files.push(NamedBlob { name, blob });
                }
                Ok(if op == "compare" {
                    Request::Compare { id, files }
                } else {
                    Request::Files {
                        id,
                        files,
                        slice: slice_of(value),
                        by_address: by_address_of(value),
                    }
                })
            }
            Some("url") => {
                let name = get(value, "name").as_string().unwrap_or_default();
                let url = get(value, "url")
                    .as_string()
                    .ok_or("the url request has no `url`")?;
                Ok(Request::Url {
                    id,
                    name,
                    url,
                    slice: slice_of(value),
                    by_address: by_address_of(value),
                })
            }
            Some("stacks") => {
                let blob = get(value, "blob")
                    .dyn_into::<Blob>()
                    .map_err(|_| "the stacks request carries no Blob".to_string())?;
                let cut = get(value, "cut")
                    .as_f64()
                    .filter(|c| *c >= 0.0)
                    .ok_or("the stacks request has no `cut`")?;
                Ok(Request::Stacks {
                    id,
                    blob,
                    cut: cut as u64,
                    slice: slice_of(value),
                    by_address: by_address_of(value),
                })
            }
            Some("inflate") => {
                let blob = get(value, "blob")
                    .dyn_into::<Blob>()
                    .map_err(|_| "the inflate request carries no Blob".to_string())?;
                let offset = |name: &str| {
                    get(value, name)
                        .as_f64()
                        .filter(|o| *o >= 0.0)
                        .map(|o| o as u64)
                        .ok_or(format!("the inflate request has no `{name}`"))
                };
                Ok(Request::Inflate {
                    id,
                    blob,
                    start: offset("start")?,
                    end: offset("end")?,
                    big_endian: get(value, "bigEndian").as_bool().unwrap_or(false),
                    slice: slice_of(value),
                    order: get(value, "order").as_bool().unwrap_or(false),
                    pipe: get(value, "pipe").as_bool().unwrap_or(false),
                })
            }
            Some("query") => {
                let json = get(value, "json").as_string().unwrap_or_default();
                let query =
                    serde_json::from_str(&json).map_err(|e| format!("unreadable query: {e}"))?;
                Ok(Request::Query { id, query })
            }
            other => Err(format!("unknown request op {other:?}")),
        }
    }
}

/// A request's `byAddress` (false when missing).
fn by_address_of(value: &JsValue) -> bool {
    get(value, "byAddress").as_bool().unwrap_or(false)
}

/// A JS exception or rejection as one line for people: `"NotReadableError: The file could not
/// be read"`.
pub fn describe_js_error(error: &JsValue) -> String {
    if let Some(text) = error.as_string() {
        return text;
    }
    let field = |key: &str| get(error, key).as_string().filter(|s| !s.is_empty());
    match (field("name"), field("message")) {
        (Some(name), Some(message)) => format!("{name}: {message}"),
        (None, Some(message)) => message,
        (Some(name), None) => name,
        (None, None) => format!("{error:?}"),
    }
}
