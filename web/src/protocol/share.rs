//! The messages of sharing: exports (formats, privacy options, the file made) and compare (the
//! base profile read, the diff). Encoded as packets with the other messages in `messages.rs`.

use serde::{Deserialize, Serialize};

use super::messages::Query;

/// A format of [`Query::Export`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Perfscope's share file (`perfscope_analysis::export::share`).
    #[default]
    Share,
    /// Folded stacks (FlameGraph.pl / inferno input).
    Folded,
    /// A standalone SVG flame graph.
    Svg,
    /// pprof's gzipped `profile.proto`.
    Pprof,
    /// speedscope's JSON.
    Speedscope,
}

impl ExportFormat {
    /// All formats, in menu order.
    pub const ALL: [ExportFormat; 5] = [
        ExportFormat::Share,
        ExportFormat::Folded,
        ExportFormat::Svg,
        ExportFormat::Pprof,
        ExportFormat::Speedscope,
    ];

    /// The stable id (`export-share`, ...).
    pub fn id(self) -> &'static str {
        match self {
            ExportFormat::Share => "share",
            ExportFormat::Folded => "folded",
            ExportFormat::Svg => "svg",
            ExportFormat::Pprof => "pprof",
            ExportFormat::Speedscope => "speedscope",
        }
    }

    /// The menu label.
    pub fn label(self) -> &'static str {
        match self {
            ExportFormat::Share => "Share file (.perfscope)",
            ExportFormat::Folded => "Folded stacks (.folded)",
            ExportFormat::Svg => "SVG flame graph (.svg)",
            ExportFormat::Pprof => "pprof (.pb.gz)",
            ExportFormat::Speedscope => "speedscope (.speedscope.json)",
        }
    }

    /// The file name extension, with its dot.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Share => ".perfscope",
            ExportFormat::Folded => ".folded",
            ExportFormat::Svg => ".svg",
            ExportFormat::Pprof => ".pb.gz",
            ExportFormat::Speedscope => ".speedscope.json",
        }
    }

    /// The MIME type of the download.
    pub fn mime(self) -> &'static str {
        match self {
            ExportFormat::Share | ExportFormat::Pprof => "application/octet-stream",
            ExportFormat::Folded => "text/plain",
            ExportFormat::Svg => "image/svg+xml",
            ExportFormat::Speedscope => "application/json",
        }
    }
}

/// What a share file leaves out (`perfscope_analysis::export::share::PrivacyOptions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Privacy {
    /// Module paths become base names.
    pub strip_paths: bool,
    /// No recorded command line.
    pub strip_cmdline: bool,
    /// No host name.
    pub strip_hostname: bool,
    /// Threads named `thread-TID`.
    pub strip_thread_names: bool,
}

/// The JSON part of an export reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExportMeta {
    /// The download's file name.
    pub file_name: String,
    /// Its MIME type.
    pub mime: String,
}

/// A file made by [`Query::Export`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportReply {
    /// Name and type.
    pub meta: ExportMeta,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// The base profile of a compare request was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompareInfo {
    /// The base file's name.
    pub name: String,
    /// Its samples.
    pub samples: u64,
}

/// One function of a diff: fractions (0..=1) of each profile's total weight.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiffRow {
    /// The function name.
    pub name: String,
    /// Self fraction in the base.
    pub base_self: f64,
    /// Total fraction in the base.
    pub base_total: f64,
    /// Self fraction in the open profile.
    pub new_self: f64,
    /// Total fraction in the open profile.
    pub new_total: f64,
}

/// The JSON part of a diff reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiffMeta {
    /// The query answered.
    pub query: Option<Query>,
    /// Why there is no diff (then the rest is empty): e.g. off-CPU time asked of a base
    /// recorded without context switches. Shown in the Compare tab.
    #[serde(default)]
    pub error: Option<String>,
    /// The profile generation.
    pub generation: u32,
    /// The base's total weight.
    pub base_total: u64,
    /// The open profile's total weight.
    pub new_total: u64,
    /// Functions by the change of their self fraction, largest increase first (at most 500).
    pub rows: Vec<DiffRow>,
    /// Width of the flame graph in weight units (the open profile's total).
    pub total: f64,
    /// Deepest row + 1.
    pub depth: u32,
    /// The largest `|delta_self|` (the full color).
    pub max_abs_delta: f64,
}

/// A differential flame graph (the open profile's layout, base scaled to its total) and the
/// function table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffReply {
    /// Totals and rows.
    pub meta: DiffMeta,
    /// Per box: function (index into [`super::ProfileData::func_name`]).
    pub func: Vec<u32>,
    /// Per box: row.
    pub depth: Vec<u32>,
    /// Per box: left edge in weight units.
    pub x: Vec<f64>,
    /// Per box: width (total weight in the open profile).
    pub width: Vec<f64>,
    /// Per box: change of the self weight (open minus scaled base).
    pub delta_self: Vec<f64>,
    /// Per box: the scaled base total weight.
    pub base_total: Vec<f64>,
}
