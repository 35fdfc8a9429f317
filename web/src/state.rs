//! View state and the actions that change it (a yew reducer). Pure data: tested natively.

use std::rc::Rc;

use perfscope_analysis::summary::Summary;
use yew::Reducible;

use crate::protocol::{ParseOutcome, ParseReply, Timings};

/// The file being shown (or opened).
#[derive(Debug, Clone, PartialEq)]
pub struct FileInfo {
    /// The file name as the browser gave it.
    pub name: String,
    /// Its size in bytes, when known (not yet while the example is being fetched).
    pub size: Option<u64>,
}

/// Where the page is with its file.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Load {
    /// Nothing opened yet.
    #[default]
    Idle,
    /// Being fetched, read or parsed.
    Loading {
        /// The file.
        file: FileInfo,
    },
    /// Read and parsed; `summary.error` may still say that parsing stopped early.
    Loaded {
        /// The file.
        file: FileInfo,
        /// What it declares.
        summary: Rc<Summary>,
        /// Time spent in the worker.
        timings: Timings,
    },
    /// Could not be read at all (fetch failed, browser read error, worker failure).
    Failed {
        /// The file, if one was chosen.
        file: Option<FileInfo>,
        /// What went wrong, for people.
        message: String,
    },
}

/// The page's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AppState {
    /// The current file.
    pub load: Load,
    /// The worker request whose reply is awaited; replies to older requests are dropped.
    pub request: Option<u32>,
}

/// What can happen to [`AppState`].
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A file is being fetched (the example) before it can be parsed.
    Fetching {
        /// Its name.
        name: String,
    },
    /// A file was posted to the worker as request `id`.
    Started {
        /// The request id.
        id: u32,
        /// The file.
        file: FileInfo,
    },
    /// The worker answered (or failed).
    Replied(ParseReply),
    /// The page itself failed to get the file to the worker.
    Failed {
        /// The file, if known.
        file: Option<FileInfo>,
        /// What went wrong.
        message: String,
    },
}

/// The page's readiness, published as `document.body.dataset.state` for tests and tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadyState {
    /// Nothing opened.
    Idle,
    /// Working.
    Loading,
    /// A file is shown without error.
    Loaded,
    /// An error is shown (possibly with whatever could be read).
    Error,
}

impl ReadyState {
    /// The `data-state` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadyState::Idle => "idle",
            ReadyState::Loading => "loading",
            ReadyState::Loaded => "loaded",
            ReadyState::Error => "error",
        }
    }
}

impl AppState {
    /// Applies one action.
    pub fn apply(&self, action: Action) -> AppState {
        match action {
            Action::Fetching { name } => AppState { load: Load::Loading { file: FileInfo { name, size: None } }, request: None },
            Action::Started { id, file } => AppState { load: Load::Loading { file }, request: Some(id) },
            Action::Failed { file, message } => AppState { load: Load::Failed { file, message }, request: None },
            Action::Replied(reply) => self.on_reply(reply),
        }
    }

    fn on_reply(&self, reply: ParseReply) -> AppState {
        let Load::Loading { file } = &self.load else {
            // Nothing awaited (e.g. a worker error after its crash was already reported).
            return self.clone();
        };
        // A reply without id (the worker could not say which request failed) ends the current
        // load; a reply for another request is stale.
        if reply.id.is_some() && reply.id != self.request {
            return self.clone();
        }
        let file = file.clone();
        let load = match reply.outcome {
            ParseOutcome::Parsed { summary, timings } => {
                let file = FileInfo { size: Some(summary.file_size), ..file };
                Load::Loaded { file, summary: Rc::new(*summary), timings }
            }
            ParseOutcome::ReadFailed { message } | ParseOutcome::Crashed { message } => {
                Load::Failed { file: Some(file), message }
            }
        };
        AppState { load, request: None }
    }

    /// What `data-state` should say.
    pub fn ready_state(&self) -> ReadyState {
        match &self.load {
            Load::Idle => ReadyState::Idle,
            Load::Loading { .. } => ReadyState::Loading,
            Load::Loaded { summary, .. } if summary.error.is_some() => ReadyState::Error,
            Load::Loaded { .. } => ReadyState::Loaded,
            Load::Failed { .. } => ReadyState::Error,
        }
    }

    /// The file shown or being opened.
    pub fn file(&self) -> Option<&FileInfo> {
        match &self.load {
            Load::Idle => None,
            Load::Loading { file } | Load::Loaded { file, .. } => Some(file),
            Load::Failed { file, .. } => file.as_ref(),
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, size: u64) -> FileInfo {
        FileInfo { name: name.into(), size: Some(size) }
    }

    fn parsed(id: u32, summary: Summary) -> Action {
        Action::Replied(ParseReply { id: Some(id), outcome: ParseOutcome::Parsed { summary: Box::new(summary), timings: Timings::default() } })
    }

    fn started(id: u32, name: &str) -> AppState {
        AppState::default().apply(Action::Started { id, file: file(name, 10) })
    }

    #[test]
    fn a_parsed_reply_shows_the_summary() {
        let summary = Summary { file_size: 10, byte_order: "little".into(), ..Summary::default() };
        let s = started(1, "a.data").apply(parsed(1, summary.clone()));
        assert_eq!(s.ready_state(), ReadyState::Loaded);
        assert_eq!(s.request, None);
        match s.load {
            Load::Loaded { file: f, summary: got, .. } => {
                assert_eq!(f, file("a.data", 10));
                assert_eq!(*got, summary);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_summary_with_an_error_is_the_error_state() {
        let summary = Summary { error: Some("at offset 0x0: expected ...".into()), ..Summary::default() };
        let s = started(1, "notes.txt").apply(parsed(1, summary));
        assert_eq!(s.ready_state(), ReadyState::Error);
        assert_eq!(s.ready_state().as_str(), "error");
    }

    #[test]
    fn a_stale_reply_is_dropped() {
        // File 1 was replaced by file 2 before its reply came.
        let s = started(1, "old.data").apply(Action::Started { id: 2, file: file("new.data", 20) });
        let after = s.apply(parsed(1, Summary::default()));
        assert_eq!(after, s);
        assert_eq!(after.ready_state(), ReadyState::Loading);
    }

    #[test]
    fn a_crash_without_id_fails_the_current_load() {
        let s = started(4, "a.data").apply(Action::Replied(ParseReply {
            id: None,
            outcome: ParseOutcome::Crashed { message: "the parser worker failed to load".into() },
        }));
        assert_eq!(s.ready_state(), ReadyState::Error);
        assert_eq!(s.load, Load::Failed { file: Some(file("a.data", 10)), message: "the parser worker failed to load".into() });
    }

    #[test]
    fn a_worker_error_after_the_reply_changes_nothing() {
        let s = started(1, "a.data").apply(parsed(1, Summary::default()));
        let after = s.apply(Action::Replied(ParseReply { id: None, outcome: ParseOutcome::Crashed { message: "x".into() } }));
        assert_eq!(after, s);
    }

    #[test]
    fn fetching_clears_the_awaited_request() {
        let s = started(1, "a.data").apply(Action::Fetching { name: "example.data".into() });
        assert_eq!(s.request, None);
        assert_eq!(s.file(), Some(&FileInfo { name: "example.data".into(), size: None }));
        // The old file's reply must not replace the example.
        assert_eq!(s.apply(parsed(1, Summary::default())), s);
    }
}
