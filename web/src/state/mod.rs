//! The page's state and the actions that change it (a yew reducer). Pure data: tested natively.
//!
//! [`Load`] says where the page is with its file; [`view::ViewState`] holds what the person
//! chose; [`Results`] holds the worker's latest answers. Queries are derived from the state by
//! `crate::selectors`, never stored.

pub mod shared;
pub mod url;
pub mod view;

use std::rc::Rc;

pub use shared::Shared;

use perfscope_analysis::summary::Summary;
use yew::Reducible;

use crate::protocol::{
    CompareInfo, DiffReply, Failure, HeatmapReply, PreviewReply, ProfileData, Progress, Query,
    RecordsReply, SearchReply, StackReply, TimelineReply, TreeReply, WorkerMessage,
};
pub use url::LinkState;
pub use view::{ColorBy, FuncPath, SortBy, Tab, ViewAction, ViewState};

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
    /// Being fetched, read or analyzed; the summary shows as soon as it is known.
    Loading {
        /// The file.
        file: FileInfo,
        /// The last progress report.
        progress: Option<Progress>,
        /// The summary, once read.
        summary: Option<Shared<Summary>>,
        /// The latest flame graph of the samples read so far (files that take a while).
        preview: Option<Shared<PreviewReply>>,
    },
    /// Analyzed. `summary.error` may still say that the file could not be read at all; then
    /// `profile` is empty.
    Loaded {
        /// The file.
        file: FileInfo,
        /// What it declares.
        summary: Shared<Summary>,
        /// The analysis.
        profile: Shared<ProfileData>,
    },
    /// Could not be read at all (fetch failed, browser read error, worker failure).
    Failed {
        /// The file, if one was chosen.
        file: Option<FileInfo>,
        /// What went wrong, for people.
        message: String,
    },
}

/// The worker's latest answers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    /// Call tree / flame graph.
    pub tree: Option<Shared<TreeReply>>,
    /// The flame-graph search's matched weight.
    pub search: Option<Shared<SearchReply>>,
    /// Timeline density.
    pub timeline: Option<Shared<TimelineReply>>,
    /// The sub-second heatmap.
    pub heatmap: Option<Shared<HeatmapReply>>,
    /// A page of records.
    pub records: Option<Shared<RecordsReply>>,
    /// A sample's stack.
    pub stack: Option<Shared<StackReply>>,
    /// The diff against the compared profile.
    pub diff: Option<Shared<DiffReply>>,
    /// The last preview of the loading, shown in the flame graph's place until its first tree.
    pub preview: Option<Shared<PreviewReply>>,
}

/// The profile the open one is compared with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Compare {
    /// The compare request.
    pub request: u32,
    /// The base file's name.
    pub name: String,
    /// Set once the worker has read it.
    pub info: Option<CompareInfo>,
    /// Why it could not be read.
    pub error: Option<String>,
}

/// The page's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AppState {
    /// The current file.
    pub load: Load,
    /// The open request whose answers are awaited; messages for other requests are dropped.
    pub request: Option<u32>,
    /// Files started so far: the summary's element is keyed by it, one element per file (the
    /// loading view's summary becomes the loaded view's; the next file's is another one).
    pub opened: u32,
    /// A symbol-file request in progress (the profile stays shown meanwhile).
    pub symbols_request: Option<u32>,
    /// Progress of the symbol request.
    pub symbols_progress: Option<Progress>,
    /// The last symbol request's failure.
    pub symbols_error: Option<String>,
    /// A query on the open profile failed, or the worker stopped after loading it (e.g. out of
    /// wasm memory): the views keep what they had, and a banner says why nothing more comes.
    pub query_error: Option<String>,
    /// What the person chose.
    pub view: ViewState,
    /// What the worker answered.
    pub results: Results,
    /// A link's view state (from the URL hash), applied once the profile is loaded.
    pub link: Option<LinkState>,
    /// The comparison.
    pub compare: Option<Compare>,
    /// An export in progress.
    pub export_request: Option<u32>,
    /// Why the last export failed.
    pub export_error: Option<String>,
    /// Tree queries ask for this detail (0: the worker's default); `?detail=N` in the page's
    /// address, for tests on small files.
    pub tree_detail: u32,
}

/// What can happen to [`AppState`].
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A file is being fetched (the example) before it can be opened.
    Fetching {
        /// Its name.
        name: String,
    },
    /// Files were posted to the worker as request `id`.
    Started {
        /// The request id.
        id: u32,
        /// The perf.data (or the first file).
        file: FileInfo,
    },
    /// Symbol files were posted for the open profile.
    SymbolsStarted {
        /// The request id.
        id: u32,
    },
    /// The page read request `id`'s summary itself ([`crate::early_summary`]): shown unless the
    /// worker's came first.
    EarlySummary {
        /// The request id.
        id: u32,
        /// The summary from the header and feature sections.
        summary: Box<Summary>,
    },
    /// The person cancelled the load (the worker was terminated).
    Cancelled,
    /// The worker said something.
    Worker(WorkerMessage),
    /// The page itself failed to get the file to the worker.
    Failed {
        /// The file, if known.
        file: Option<FileInfo>,
        /// What went wrong.
        message: String,
    },
    /// A view change.
    View(ViewAction),
    /// The page was opened with a link's view state.
    Link(LinkState),
    /// Files to compare with were posted as request `id`.
    CompareStarted {
        /// The request id.
        id: u32,
        /// The base file's name.
        name: String,
    },
    /// An export query was posted as request `id`.
    ExportStarted {
        /// The request id.
        id: u32,
    },
}

/// The page's readiness, published as `document.body.dataset.state` for tests and tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadyState {
    /// Nothing opened.
    Idle,
    /// Working.
    Loading,
    /// A file is shown, fully analyzed.
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
    pub fn apply(mut self, action: Action) -> AppState {
        match action {
            Action::Fetching { name } => {
                self.load = Load::Loading {
                    file: FileInfo { name, size: None },
                    progress: None,
                    summary: None,
                    preview: None,
                };
                self.request = None;
            }
            Action::Started { id, file } => {
                self.load = Load::Loading {
                    file,
                    progress: None,
                    summary: None,
                    preview: None,
                };
                self.request = Some(id);
                self.opened = self.opened.wrapping_add(1);
                self.query_error = None;
                self.symbols_request = None;
                self.results = Results::default();
                // A new file: keep the tab and the display options, drop what named the old one.
                self.view = ViewState {
                    tab: self.view.tab,
                    weight: self.view.weight,
                    icicle: self.view.icicle,
                    // The naming of frames without a symbol is the page's (the next file is
                    // opened with it).
                    by_address: self.view.by_address,
                    color_by: self.view.color_by,
                    timeline_bins: self.view.timeline_bins,
                    heatmap: self.view.heatmap,
                    record_rows: self.view.record_rows,
                    ..ViewState::default()
                };
            }
            Action::SymbolsStarted { id } => {
                self.symbols_request = Some(id);
                self.symbols_progress = None;
                self.symbols_error = None;
            }
            Action::EarlySummary { id, summary: early } => {
                if Some(id) == self.request {
                    if let Load::Loading {
                        file,
                        summary: summary @ None,
                        ..
                    } = &mut self.load
                    {
                        file.size = Some(early.file_size);
                        *summary = Some(Shared::new(*early));
                    }
                }
            }
            Action::Cancelled => {
                self.load = Load::Idle;
                self.request = None;
                self.symbols_request = None;
                self.results = Results::default();
            }
            Action::Failed { file, message } => {
                self.load = Load::Failed { file, message };
                self.request = None;
            }
            Action::View(a) => self.view.apply(a),
            Action::Worker(m) => self.on_message(m),
            Action::Link(link) => {
                self.view.tab = link.tab;
                // The file is opened as the link was made.
                self.view.by_address = link.by_address;
                self.link = Some(link);
            }
            Action::CompareStarted { id, name } => {
                self.compare = Some(Compare {
                    request: id,
                    name,
                    info: None,
                    error: None,
                });
                self.results.diff = None;
                self.view.tab = Tab::Compare;
            }
            Action::ExportStarted { id } => {
                self.export_request = Some(id);
                self.export_error = None;
            }
        }
        self
    }

    fn on_message(&mut self, m: WorkerMessage) {
        match m {
            WorkerMessage::Ready => {}
            WorkerMessage::Progress(id, p) => {
                if Some(id) == self.symbols_request {
                    self.symbols_progress = Some(p);
                } else if Some(id) == self.request {
                    if let Load::Loading { progress, .. } = &mut self.load {
                        *progress = Some(p);
                    }
                }
            }
            WorkerMessage::Preview(id, p) => {
                if Some(id) == self.request {
                    if let Load::Loading { preview, .. } = &mut self.load {
                        *preview = Some(Shared::new(*p));
                    }
                }
            }
            WorkerMessage::Summary(id, s) => {
                if Some(id) == self.request {
                    if let Load::Loading { file, summary, .. } = &mut self.load {
                        file.size = Some(s.file_size);
                        // The same as the page's early read (the usual case): kept, so the
                        // summary shown is not rendered again.
                        if summary.as_deref() != Some(&*s) {
                            *summary = Some(Shared::new(*s));
                        }
                    }
                }
            }
            WorkerMessage::Profile(id, p) => {
                if Some(id) == self.symbols_request {
                    self.symbols_request = None;
                    self.symbols_progress = None;
                    if let Load::Loaded { profile, .. } = &mut self.load {
                        // Built again: its functions have other ids. The view keeps those it
                        // names, found by name and module (a path stops where its name is gone).
                        view::translate_funcs(&mut self.view, profile, &p);
                        *profile = Shared::new(*p);
                    }
                    // A link waiting for this build.
                    self.apply_link_now();
                } else if Some(id) == self.request {
                    if let Load::Loading {
                        file,
                        summary: Some(summary),
                        preview,
                        ..
                    } = &self.load
                    {
                        self.results.preview = preview.clone();
                        // A preview flame graph was shown while the file was read (over the
                        // summary, which says the full one follows): the full one takes its
                        // place, unless a tab was chosen: another than the first for an
                        // earlier file, or any by the link being opened.
                        if preview.is_some() && self.view.tab == Tab::Summary && self.link.is_none()
                        {
                            self.view.tab = Tab::Flame;
                        }
                        self.load = Load::Loaded {
                            file: file.clone(),
                            summary: summary.clone(),
                            profile: Shared::new(*p),
                        };
                        self.request = None;
                        self.pick_default_event();
                        self.apply_link();
                    }
                }
            }
            WorkerMessage::Failed(id, Failure { message, crashed }) => {
                if let Some(c) = self.compare.as_mut().filter(|c| c.request == id) {
                    c.error = Some(message);
                } else if Some(id) == self.export_request {
                    self.export_request = None;
                    self.export_error = Some(message);
                } else if Some(id) == self.symbols_request {
                    self.symbols_request = None;
                    self.symbols_error = Some(message);
                    // A link waiting for a build that failed: applied to the profile there is.
                    self.apply_link_now();
                } else if Some(id) == self.request
                    || (id == 0 && matches!(self.load, Load::Loading { .. }))
                    || (crashed && self.request.is_some())
                {
                    let file = match &self.load {
                        Load::Loading { file, .. } => Some(file.clone()),
                        _ => None,
                    };
                    self.load = Load::Failed { file, message };
                    self.request = None;
                } else if matches!(self.load, Load::Loaded { .. })
                    && (crashed || self.query_error.is_none())
                {
                    // A query's failure, or the worker stopped (a trap: "unreachable" is what
                    // running out of wasm memory looks like). Without this the view waits forever.
                    self.query_error = Some(if crashed {
                        let hint = if message.contains("unreachable") || message.contains("memory")
                        {
                            " — most likely out of memory: a browser gives a page's worker at most 4 GiB"
                        } else {
                            ""
                        };
                        format!("The analysis worker stopped: {message}{hint}. The views show what they had; open the file again to retry.")
                    } else {
                        message
                    });
                    // A stopped worker answers nothing more: the tree shown stays the last one
                    // made, and the Inverted and By command buttons say which it is, not what
                    // was asked.
                    if let (
                        true,
                        Some(Query::Tree {
                            inverted,
                            by_command,
                            ..
                        }),
                    ) = (
                        crashed,
                        self.results
                            .tree
                            .as_ref()
                            .and_then(|t| t.meta.query.as_ref()),
                    ) {
                        self.view.inverted = *inverted;
                        self.view.by_command = *by_command;
                    }
                }
            }
            WorkerMessage::Tree(_, t) => {
                self.results.tree = Some(Shared::new(*t));
                self.results.preview = None;
            }
            WorkerMessage::Search(_, r) => self.results.search = Some(Shared::new(*r)),
            WorkerMessage::Timeline(_, t) => self.results.timeline = Some(Shared::new(*t)),
            WorkerMessage::Heatmap(_, h) => self.results.heatmap = Some(Shared::new(*h)),
            WorkerMessage::Records(_, r) => self.results.records = Some(Shared::new(*r)),
            WorkerMessage::Stack(_, s) => self.results.stack = Some(Shared::new(*s)),
            WorkerMessage::Compared(id, info) => {
                if let Some(c) = self.compare.as_mut().filter(|c| c.request == id) {
                    c.info = Some(info);
                }
            }
            WorkerMessage::Diff(_, d) => self.results.diff = Some(Shared::new(*d)),
            WorkerMessage::Export(id, _) => {
                if Some(id) == self.export_request {
                    self.export_request = None;
                }
            }
        }
    }

    /// Applies a pending link's view state to the loaded profile (once).
    fn apply_link(&mut self) {
        let Load::Loaded { profile, .. } = &self.load else {
            return;
        };
        // A link made with a frame per address, over a profile of a frame per module: the
        // profile is built again first (the app asks the worker when `by_address` changes),
        // and the link is applied to that one (its frame path names addresses).
        if self.link.as_ref().is_some_and(|l| l.by_address)
            && profile.overview.by_address == Some(false)
        {
            self.view.by_address = true;
            return;
        }
        self.apply_link_now();
    }

    /// Applies the pending link to the profile as it is.
    fn apply_link_now(&mut self) {
        let Load::Loaded { profile, .. } = &self.load else {
            return;
        };
        let Some(link) = self.link.take() else { return };
        for a in link.to_actions(profile) {
            self.view.apply(a);
        }
    }

    /// The first event with samples ([`crate::protocol::Overview::default_event`]).
    fn pick_default_event(&mut self) {
        if let Load::Loaded { profile, .. } = &self.load {
            self.view.event = profile.overview.default_event();
        }
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
            Load::Loading { file, .. } | Load::Loaded { file, .. } => Some(file),
            Load::Failed { file, .. } => file.as_ref(),
        }
    }

    /// The loaded profile.
    pub fn profile(&self) -> Option<&Shared<ProfileData>> {
        match &self.load {
            Load::Loaded { profile, .. } => Some(profile),
            _ => None,
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{EventInfo, Filter, Overview, Phase, WeightKind};

    fn file(name: &str, size: u64) -> FileInfo {
        FileInfo {
            name: name.into(),
            size: Some(size),
        }
    }

    fn started(id: u32, name: &str) -> AppState {
        AppState::default().apply(Action::Started {
            id,
            file: file(name, 10),
        })
    }

    fn profile(events: &[u64]) -> WorkerMessage {
        let events = events
            .iter()
            .map(|&samples| EventInfo {
                samples,
                ..EventInfo::default()
            })
            .collect();
        let data = ProfileData {
            overview: Overview {
                events,
                ..Overview::default()
            },
            ..ProfileData::default()
        };
        WorkerMessage::Profile(1, Box::new(data))
    }

    #[test]
    fn summary_then_profile_loads() {
        let s = started(1, "a.data");
        let s = s.apply(Action::Worker(WorkerMessage::Progress(
            1,
            Progress {
                phase: Phase::Read,
                bytes: 5.0,
                total: 10.0,
                records: 0.0,
            },
        )));
        assert!(matches!(&s.load, Load::Loading { progress: Some(p), .. } if p.bytes == 5.0));
        let s = s.apply(Action::Worker(WorkerMessage::Summary(
            1,
            Box::new(Summary {
                file_size: 10,
                ..Summary::default()
            }),
        )));
        assert_eq!(s.ready_state(), ReadyState::Loading);
        let s = s.apply(Action::Worker(profile(&[0, 7])));
        assert_eq!(s.ready_state(), ReadyState::Loaded);
        // Two events: the first with samples is counted.
        assert_eq!(s.view.event, Some(1));
        // No preview was shown: the first tab.
        assert_eq!(s.view.tab, Tab::Summary);
    }

    #[test]
    fn previews_show_while_loading_and_give_way_to_the_profile() {
        let preview = |id: u32, taken: u64| {
            Action::Worker(WorkerMessage::Preview(
                id,
                Box::new(PreviewReply {
                    taken,
                    ..PreviewReply::default()
                }),
            ))
        };
        let taken = |s: &AppState| match &s.load {
            Load::Loading {
                preview: Some(p), ..
            } => Some(p.taken),
            _ => None,
        };
        let s =
            started(1, "a.data").apply(Action::Worker(WorkerMessage::Summary(1, Box::default())));
        assert_eq!(taken(&s), None);
        let s = s.apply(preview(1, 5));
        assert_eq!(taken(&s), Some(5));
        // Another request's preview is dropped; a newer one replaces the last.
        let s = s.apply(preview(2, 9));
        assert_eq!(taken(&s), Some(5));
        let s = s.apply(preview(1, 7));
        assert_eq!(taken(&s), Some(7));
        let s = s.apply(Action::Worker(profile(&[3])));
        assert_eq!(s.ready_state(), ReadyState::Loaded);
        // The full flame graph takes the preview's place.
        assert_eq!(s.view.tab, Tab::Flame);
        // Kept for the flame graph's place until its first tree; a late one changes nothing.
        let kept = |s: &AppState| s.results.preview.as_ref().map(|p| p.taken);
        assert_eq!(kept(&s), Some(7));
        let s = s.apply(preview(1, 8));
        assert_eq!(s.ready_state(), ReadyState::Loaded);
        assert_eq!((taken(&s), kept(&s)), (None, Some(7)));
        let s = s.apply(Action::Worker(WorkerMessage::Tree(3, Box::default())));
        assert_eq!(kept(&s), None);
    }

    #[test]
    fn a_tab_chosen_before_stays_after_a_preview() {
        let preview = Action::Worker(WorkerMessage::Preview(
            1,
            Box::new(PreviewReply {
                taken: 5,
                ..PreviewReply::default()
            }),
        ));
        let open = |tab: Tab| {
            let mut s = AppState::default();
            s.view.tab = tab;
            s.apply(Action::Started {
                id: 1,
                file: file("b.data", 10),
            })
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(preview.clone())
            .apply(Action::Worker(profile(&[3])))
        };
        for tab in [Tab::Timeline, Tab::CallTree, Tab::Records, Tab::Flame] {
            let s = open(tab);
            assert_eq!((s.ready_state(), s.view.tab), (ReadyState::Loaded, tab));
        }
        assert_eq!(open(Tab::Summary).view.tab, Tab::Flame);
        // A link's tab, the summary's too, is the one it opens on.
        let linked = AppState::default()
            .apply(Action::Link(LinkState::decode("#v=1&tab=summary").unwrap()))
            .apply(Action::Started {
                id: 1,
                file: file("b.data", 10),
            })
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(preview.clone())
            .apply(Action::Worker(profile(&[3])));
        assert_eq!(linked.view.tab, Tab::Summary);
    }

    #[test]
    fn the_pages_own_summary_shows_until_the_workers_and_never_replaces_it() {
        let early = |size: u64| Action::EarlySummary {
            id: 1,
            summary: Box::new(Summary {
                file_size: size,
                ..Summary::default()
            }),
        };
        let summary_size = |s: &AppState| match &s.load {
            Load::Loading { summary, .. } => summary.as_ref().map(|s| s.file_size),
            _ => None,
        };
        // Before the worker's: shown.
        let s = started(1, "a.data").apply(early(10));
        assert_eq!(summary_size(&s), Some(10));
        // The worker's, equal to it: the page's stays (the same value, not rendered again).
        let shown = |s: &AppState| match &s.load {
            Load::Loading {
                summary: Some(summary),
                ..
            } => Some(Shared::id(summary)),
            _ => None,
        };
        let same = s.clone().apply(Action::Worker(WorkerMessage::Summary(
            1,
            Box::new(Summary {
                file_size: 10,
                ..Summary::default()
            }),
        )));
        assert!(shown(&same).is_some());
        assert_eq!(shown(&same), shown(&s));
        // The worker's replaces it (it may know more from the records).
        let s = s.apply(Action::Worker(WorkerMessage::Summary(
            1,
            Box::new(Summary {
                file_size: 11,
                ..Summary::default()
            }),
        )));
        assert_eq!(summary_size(&s), Some(11));
        // After the worker's, or for another request: ignored.
        assert_eq!(summary_size(&s.clone().apply(early(12))), Some(11));
        let other = started(1, "a.data").apply(Action::EarlySummary {
            id: 2,
            summary: Box::default(),
        });
        assert_eq!(summary_size(&other), None);
        // Loaded: ignored.
        let loaded = s.apply(Action::Worker(profile(&[3]))).apply(early(13));
        assert_eq!(loaded.ready_state(), ReadyState::Loaded);
        assert!(matches!(&loaded.load, Load::Loaded { summary, .. } if summary.file_size == 11));
    }

    #[test]
    fn a_summary_with_an_error_is_the_error_state() {
        let s = started(1, "notes.txt").apply(Action::Worker(WorkerMessage::Summary(
            1,
            Box::new(Summary {
                error: Some("at offset 0x0: x".into()),
                ..Summary::default()
            }),
        )));
        let s = s.apply(Action::Worker(profile(&[])));
        assert_eq!(s.ready_state(), ReadyState::Error);
    }

    #[test]
    fn messages_of_an_old_request_are_dropped() {
        let s = started(1, "old.data").apply(Action::Started {
            id: 2,
            file: file("new.data", 20),
        });
        let after = s
            .clone()
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())));
        assert_eq!(after, s);
    }

    #[test]
    fn a_crash_fails_the_current_load_and_cancel_goes_back_to_idle() {
        let s = started(4, "a.data").apply(Action::Worker(WorkerMessage::Failed(
            0,
            Failure {
                message: "the parser worker failed to load".into(),
                crashed: true,
            },
        )));
        assert_eq!(
            s.load,
            Load::Failed {
                file: Some(file("a.data", 10)),
                message: "the parser worker failed to load".into()
            }
        );
        let s = started(5, "b.data").apply(Action::Cancelled);
        assert_eq!(s.ready_state(), ReadyState::Idle);
    }

    #[test]
    fn a_worker_that_stops_after_loading_is_said_and_the_profile_kept() {
        let s = started(1, "a.data")
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(Action::Worker(profile(&[3])));
        assert_eq!(s.ready_state(), ReadyState::Loaded);
        let s = s.apply(Action::Worker(WorkerMessage::Failed(
            0,
            Failure {
                message: "RuntimeError: unreachable".into(),
                crashed: true,
            },
        )));
        assert_eq!(
            s.ready_state(),
            ReadyState::Loaded,
            "the views keep what they had"
        );
        let e = s.query_error.clone().unwrap();
        assert!(
            e.contains("RuntimeError: unreachable") && e.contains("out of memory"),
            "{e}"
        );
        // What the restarted worker says next ("no file is open") does not hide why.
        let s = s.apply(Action::Worker(WorkerMessage::Failed(
            7,
            Failure {
                message: "no file is open".into(),
                crashed: false,
            },
        )));
        assert_eq!(s.query_error, Some(e));
        // A new file starts clean.
        let s = s.apply(Action::Started {
            id: 2,
            file: file("b.data", 10),
        });
        assert_eq!(s.query_error, None);
    }

    #[test]
    fn after_the_worker_stops_the_inverted_button_says_which_tree_is_shown() {
        let shown = |inverted: bool| {
            let mut t = TreeReply::default();
            t.meta.query = Some(Query::Tree {
                filter: Filter::default(),
                inverted,
                weight: WeightKind::Samples,
                root: Vec::new(),
                detail: 0,
                by_command: false,
            });
            Action::Worker(WorkerMessage::Tree(2, Box::new(t)))
        };
        let s = started(1, "a.data")
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(Action::Worker(profile(&[3])))
            .apply(shown(false))
            // Asked for the inverted tree; the worker runs out of memory making it.
            .apply(Action::View(ViewAction::Inverted(true)));
        assert!(s.view.inverted);
        let s = s.apply(Action::Worker(WorkerMessage::Failed(
            0,
            Failure {
                message: "RuntimeError: unreachable".into(),
                crashed: true,
            },
        )));
        assert!(s.query_error.is_some());
        assert!(!s.view.inverted, "the top-down tree is the one shown");
        // An inverted tree shown keeps the button pressed.
        let s = started(1, "b.data")
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(Action::Worker(profile(&[3])))
            .apply(shown(true))
            .apply(Action::View(ViewAction::Inverted(true)))
            .apply(Action::Worker(WorkerMessage::Failed(
                0,
                Failure {
                    message: "RuntimeError: unreachable".into(),
                    crashed: true,
                },
            )));
        assert!(s.query_error.is_some());
        assert!(s.view.inverted);
    }

    #[test]
    fn a_link_made_by_address_waits_for_the_profile_built_so() {
        // The link asks for a frame per address; the file came one per module (say, opened
        // before): the view asks for the other build, and the link waits for it.
        let by = |on: bool, id: u32| {
            let mut data = ProfileData::default();
            data.overview.events = vec![EventInfo {
                samples: 3,
                ..EventInfo::default()
            }];
            data.overview.by_address = Some(on);
            WorkerMessage::Profile(id, Box::new(data))
        };
        let link = LinkState::decode("#v=1&tab=flame&q=x&addr=1").unwrap();
        assert!(link.by_address);
        let s = AppState::default().apply(Action::Link(link));
        assert!(s.view.by_address, "the file is opened as the link was made");
        let s = s
            .apply(Action::Started {
                id: 1,
                file: file("a.data", 10),
            })
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(Action::Worker(by(false, 1)));
        assert!(s.view.by_address);
        assert!(s.link.is_some(), "waits for the build by address");
        assert_eq!(s.view.search, "");
        let s = s
            .apply(Action::SymbolsStarted { id: 2 })
            .apply(Action::Worker(by(true, 2)));
        assert_eq!(s.link, None);
        assert_eq!(s.view.search, "x");
        // A profile built by address makes links that say so.
        let p = s.profile().unwrap();
        assert!(LinkState::from_view(&s.view, p).encode().contains("addr=1"));
    }

    #[test]
    fn a_link_is_applied_once_the_profile_is_loaded() {
        let link = LinkState::decode("#v=1&tab=calltree&ev=1&t=5-9&q=x&inv=1").unwrap();
        let s = AppState::default()
            .apply(Action::Link(link))
            .apply(Action::Started {
                id: 1,
                file: file("a.data", 10),
            });
        let s = s
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(Action::Worker(profile(&[3, 4])));
        assert_eq!(
            (s.view.tab, s.view.event, s.view.selection, s.view.inverted),
            (Tab::CallTree, Some(1), Some((5, 9)), true)
        );
        assert_eq!(s.view.search, "x");
        assert_eq!(s.link, None);
    }

    #[test]
    fn compare_replies_are_kept_for_their_request() {
        let s = AppState::default().apply(Action::CompareStarted {
            id: 3,
            name: "base.data".into(),
        });
        assert_eq!(s.view.tab, Tab::Compare);
        let s = s.apply(Action::Worker(WorkerMessage::Compared(
            2,
            CompareInfo::default(),
        )));
        assert_eq!(s.compare.as_ref().and_then(|c| c.info.as_ref()), None);
        let s = s.apply(Action::Worker(WorkerMessage::Failed(
            3,
            Failure {
                message: "bad".into(),
                crashed: false,
            },
        )));
        assert_eq!(s.compare.and_then(|c| c.error), Some("bad".into()));
    }

    #[test]
    fn symbols_replace_the_profile_in_place() {
        let s = started(1, "a.data")
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(Action::Worker(profile(&[3])))
            .apply(Action::View(ViewAction::Tab(Tab::Flame)))
            .apply(Action::SymbolsStarted { id: 9 });
        let mut data = ProfileData::default();
        data.overview.generation = 2;
        let s = s.apply(Action::Worker(WorkerMessage::Profile(9, Box::new(data))));
        assert_eq!(s.profile().map(|p| p.overview.generation), Some(2));
        assert_eq!(s.view.tab, Tab::Flame);
        assert_eq!(s.symbols_request, None);
    }
}
