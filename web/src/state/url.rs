//! The view state in the URL hash, so that a link reopens what its sender saw (with `?url=`, the
//! same hosted file). Pure: tested natively; `crate::app` reads it on start and writes it with
//! `history.replaceState` as the view changes.
//!
//! # Format (version 1)
//!
//! `#v=1&tab=flame&ev=0&w=period&t=1234-5678&f=main;work;slow&q=text&tid=12,13&inv=1`
//!
//! | key   | value                                                                      |
//! |-------|----------------------------------------------------------------------------|
//! | `v`   | format version, `1` (a link without it, or of a newer version, is ignored)  |
//! | `tab` | `summary`, `timeline`, `flame`, `calltree`, `records`, `compare`           |
//! | `ev`  | the counted event, as its index in the file's attrs (absent: the default)  |
//! | `w`   | `samples` (absent), `period`, or `offcpu` (off-CPU time, when recorded)     |
//! | `t`   | the time selection, `start-end` in ns (both ends included)                 |
//! | `f`   | the focused (zoomed) frame: function names from the root, `;`-separated    |
//! | `q`   | the flame-graph search text                                                |
//! | `tid` | the thread filter, thread ids, `,`-separated                               |
//! | `cmd` | the thread filter as a command: every process of that name (instead of `tid`) |
//! | `inv` | `1`: bottom-up (inverted) trees                                            |
//! | `bycmd` | `1`: a root per command in the trees (`f` then starts with the command)  |
//! | `addr` | `1`: a frame per address for code without symbols (the profile is built so) |
//!
//! Values are percent-encoded (UTF-8; everything but `A-Z a-z 0-9 - . _ ~ : / ( ) < > @ !`),
//! the names in `f` one by one, so a name may hold `;`. Keys this version does not know are
//! ignored, so later versions can add keys without breaking older pages.

use crate::protocol::{ProfileData, WeightKind};
use crate::selectors::{command_of, commands, func_name};

use super::view::{Tab, ViewAction, ViewState};

/// The format version written.
pub const VERSION: u32 = 1;

/// What a link says about the view.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LinkState {
    /// The tab.
    pub tab: Tab,
    /// The event (attr index).
    pub event: Option<u32>,
    /// Samples or period.
    pub weight: WeightKind,
    /// Off-CPU time (the weight is then the period).
    pub off_cpu: bool,
    /// The time selection (ns, inclusive).
    pub range: Option<(u64, u64)>,
    /// The zoomed frame: function names from the root.
    pub frame: Vec<String>,
    /// The search text.
    pub search: String,
    /// Threads by tid.
    pub tids: Vec<u32>,
    /// The threads of every process of this name (a command filter: thousands of tids).
    pub command: Option<String>,
    /// Bottom-up trees.
    pub inverted: bool,
    /// A root per command in the trees.
    pub by_command: bool,
    /// A frame per address for code without symbols (not one per module).
    pub by_address: bool,
}

fn keep(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:/()<>@!".contains(&b)
}

/// Percent-encodes `s` (see the module docs for what is kept).
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Undoes [`encode_component`] (and `+` as a space, as forms write it); `None` on a bad escape
/// or bytes that are not UTF-8.
pub fn decode_component(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn tab_of(id: &str) -> Option<Tab> {
    Tab::ALL.iter().copied().find(|t| t.id() == id)
}

impl LinkState {
    /// The hash, without its `#`.
    pub fn encode(&self) -> String {
        let mut parts = vec![format!("v={VERSION}"), format!("tab={}", self.tab.id())];
        if let Some(e) = self.event {
            parts.push(format!("ev={e}"));
        }
        if self.off_cpu {
            parts.push("w=offcpu".into());
        } else if self.weight == WeightKind::Period {
            parts.push("w=period".into());
        }
        if let Some((a, b)) = self.range {
            parts.push(format!("t={a}-{b}"));
        }
        if !self.frame.is_empty() {
            let names: Vec<String> = self.frame.iter().map(|n| encode_component(n)).collect();
            parts.push(format!("f={}", names.join(";")));
        }
        if !self.search.is_empty() {
            parts.push(format!("q={}", encode_component(&self.search)));
        }
        if let Some(c) = &self.command {
            parts.push(format!("cmd={}", encode_component(c)));
        } else if !self.tids.is_empty() {
            let tids: Vec<String> = self.tids.iter().map(u32::to_string).collect();
            parts.push(format!("tid={}", tids.join(",")));
        }
        if self.inverted {
            parts.push("inv=1".into());
        }
        if self.by_command {
            parts.push("bycmd=1".into());
        }
        if self.by_address {
            parts.push("addr=1".into());
        }
        parts.join("&")
    }

    /// Reads a hash (with or without its `#`). `None` when it is not a version-1 link; a bad
    /// value leaves its setting at the default.
    pub fn decode(hash: &str) -> Option<LinkState> {
        let hash = hash.strip_prefix('#').unwrap_or(hash);
        let pairs: Vec<(&str, &str)> = hash.split('&').filter_map(|p| p.split_once('=')).collect();
        let get = |key: &str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        if get("v")?.parse::<u32>().ok()? != VERSION {
            return None;
        }
        let mut link = LinkState::default();
        if let Some(tab) = get("tab").and_then(tab_of) {
            link.tab = tab;
        }
        link.event = get("ev").and_then(|e| e.parse().ok());
        match get("w") {
            Some("period") => link.weight = WeightKind::Period,
            Some("offcpu") => {
                link.weight = WeightKind::Period;
                link.off_cpu = true;
            }
            _ => {}
        }
        link.range = get("t").and_then(|t| {
            let (a, b) = t.split_once('-')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        });
        if let Some(f) = get("f").filter(|f| !f.is_empty()) {
            link.frame = f
                .split(';')
                .map(decode_component)
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default();
        }
        link.search = get("q").and_then(decode_component).unwrap_or_default();
        link.tids = get("tid")
            .map(|t| t.split(',').filter_map(|x| x.parse().ok()).collect())
            .unwrap_or_default();
        link.command = get("cmd").and_then(decode_component);
        link.inverted = get("inv") == Some("1");
        link.by_command = get("bycmd") == Some("1");
        link.by_address = get("addr") == Some("1");
        Some(link)
    }

    /// The link of `view` over `profile`.
    pub fn from_view(view: &ViewState, profile: &ProfileData) -> LinkState {
        let threads = &profile.overview.threads;
        // A command's threads go by its name (a link of thousands of tids would be long).
        let command = (view.threads.len() > 1)
            .then(|| commands(&profile.overview))
            .and_then(|all| command_of(&all, &view.threads).map(|c| c.name.clone()));
        LinkState {
            tab: view.tab,
            event: view.event,
            weight: view.weight,
            off_cpu: view.off_cpu,
            range: view.selection,
            frame: view
                .zoom
                .iter()
                .map(|&f| func_name(profile, f).to_string())
                .collect(),
            search: view.search.clone(),
            tids: if command.is_some() {
                Vec::new()
            } else {
                view.threads
                    .iter()
                    .filter_map(|&lane| threads.get(lane as usize))
                    .map(|t| t.tid)
                    .collect()
            },
            command,
            inverted: view.inverted,
            by_command: view.by_command,
            by_address: profile.overview.by_address == Some(true),
        }
    }

    /// The actions that make a view show this link over `profile`. Names, tids and a command
    /// that are not in the profile are left out (the frame path stops at the first unknown
    /// name).
    pub fn to_actions(&self, profile: &ProfileData) -> Vec<ViewAction> {
        let events = profile.overview.events.len() as u32;
        let lanes: Vec<u32> = match &self.command {
            Some(name) => commands(&profile.overview)
                .into_iter()
                .find(|c| &c.name == name)
                .map(|c| c.lanes)
                .unwrap_or_default(),
            None => self
                .tids
                .iter()
                .filter_map(|&tid| profile.overview.threads.iter().position(|t| t.tid == tid))
                .map(|i| i as u32)
                .collect(),
        };
        // Grouped by command, the path starts with a command (whose ids follow the functions').
        let all = profile.func_name.len() as u32;
        let first_command = all.saturating_sub(commands(&profile.overview).len() as u32);
        let mut zoom = Vec::with_capacity(self.frame.len());
        for (i, name) in self.frame.iter().enumerate() {
            let ids = match (self.by_command, i) {
                (true, 0) => first_command..all,
                _ => 0..first_command,
            };
            match ids.clone().find(|&f| func_name(profile, f) == name) {
                Some(f) => zoom.push(f),
                None => break,
            }
        }
        // Inverting, grouping, the event and the threads clear the zoom: they go first.
        let mut out = vec![
            ViewAction::Inverted(self.inverted),
            ViewAction::ByCommand(self.by_command),
        ];
        if let Some(e) = self.event.filter(|&e| e < events) {
            out.push(ViewAction::Event(Some(e)));
        }
        out.push(ViewAction::Threads(lanes));
        out.push(ViewAction::Weight(self.weight));
        if self.off_cpu && profile.overview.off_cpu.is_some() {
            out.push(ViewAction::OffCpu(true));
        }
        out.push(ViewAction::Select(self.range));
        out.push(ViewAction::Search(self.search.clone()));
        out.push(ViewAction::Zoom(zoom));
        out.push(ViewAction::Tab(self.tab));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::strings::StringTable;
    use crate::protocol::{EventInfo, Overview, ThreadInfo};

    fn profile() -> ProfileData {
        let mut strings = StringTable::new();
        for s in ["main", "a;b & c", "slow", "λ"] {
            strings.push(s);
        }
        let threads = [7, 9]
            .iter()
            .map(|&tid| ThreadInfo {
                pid: 7,
                tid,
                ..ThreadInfo::default()
            })
            .collect();
        let overview = Overview {
            events: vec![EventInfo::default(), EventInfo::default()],
            threads,
            ..Overview::default()
        };
        ProfileData {
            overview,
            strings,
            func_name: vec![0, 1, 2, 3],
            func_module: vec![u32::MAX; 4],
        }
    }

    #[test]
    fn a_view_survives_the_round_trip_through_its_hash() {
        let p = profile();
        let view = ViewState {
            tab: Tab::Flame,
            event: Some(1),
            weight: WeightKind::Period,
            inverted: true,
            search: "sl ow&=%".into(),
            zoom: vec![0, 1, 3],
            selection: Some((1_000_000_123, 2_000_000_456)),
            threads: vec![1],
            ..ViewState::default()
        };
        let link = LinkState::from_view(&view, &p);
        let hash = link.encode();
        assert_eq!(hash, "v=1&tab=flame&ev=1&w=period&t=1000000123-2000000456&f=main;a%3Bb%20%26%20c;%CE%BB&q=sl%20ow%26%3D%25&tid=9&inv=1");
        let back = LinkState::decode(&format!("#{hash}")).unwrap();
        assert_eq!(back, link);
        let mut fresh = ViewState::default();
        for a in back.to_actions(&p) {
            fresh.apply(a);
        }
        assert_eq!(
            (fresh.tab, fresh.event, fresh.weight, fresh.inverted),
            (Tab::Flame, Some(1), WeightKind::Period, true)
        );
        assert_eq!(
            (fresh.zoom, fresh.selection, fresh.threads, fresh.search),
            (vec![0, 1, 3], view.selection, vec![1], view.search)
        );
    }

    #[test]
    fn a_command_filter_goes_by_the_command_name() {
        use crate::protocol::ProcessInfo;
        // Lanes 0-3: tids 7, 9 (pid 7, "make"), 11 (pid 11, "cc 1"), 12 (pid 12, "cc 1").
        let mut p = profile();
        for tid in [11, 12] {
            p.overview.threads.push(ThreadInfo {
                pid: tid,
                tid,
                ..ThreadInfo::default()
            });
        }
        let process = |pid: u32, name: &str, threads: Vec<u32>, samples: u64| ProcessInfo {
            pid,
            name: name.into(),
            threads,
            samples,
        };
        p.overview.processes = vec![
            process(7, "make", vec![0, 1], 5),
            process(11, "cc 1", vec![2], 9),
            process(12, "cc 1", vec![3], 4),
        ];
        let round_trip = |threads: Vec<u32>| {
            let view = ViewState {
                threads,
                ..ViewState::default()
            };
            let hash = LinkState::from_view(&view, &p).encode();
            let mut fresh = ViewState::default();
            for a in LinkState::decode(&hash).unwrap().to_actions(&p) {
                fresh.apply(a);
            }
            (hash, fresh.threads)
        };
        // Both processes named "cc 1": by name.
        let (hash, lanes) = round_trip(vec![3, 2]);
        assert_eq!(hash, "v=1&tab=summary&cmd=cc%201");
        assert_eq!(lanes, vec![2, 3]);
        // Both threads of make: by name too.
        assert_eq!(round_trip(vec![0, 1]).0, "v=1&tab=summary&cmd=make");
        // One thread, or threads that are not a whole command: by tid.
        assert_eq!(
            round_trip(vec![2]),
            ("v=1&tab=summary&tid=11".into(), vec![2])
        );
        assert_eq!(
            round_trip(vec![1, 2]),
            ("v=1&tab=summary&tid=9,11".into(), vec![1, 2])
        );
        // A command the recording does not have: no thread filter.
        let mut fresh = ViewState::default();
        for a in LinkState::decode("v=1&cmd=gzip").unwrap().to_actions(&p) {
            fresh.apply(a);
        }
        assert!(fresh.threads.is_empty());
    }

    #[test]
    fn off_cpu_time_survives_the_round_trip_when_the_recording_has_it() {
        let mut p = profile();
        let view = ViewState {
            tab: Tab::CallTree,
            weight: WeightKind::Period,
            off_cpu: true,
            zoom: vec![0],
            ..ViewState::default()
        };
        let hash = LinkState::from_view(&view, &p).encode();
        assert_eq!(hash, "v=1&tab=calltree&w=offcpu&f=main");
        let back = LinkState::decode(&hash).unwrap();
        let apply = |p: &ProfileData| {
            let mut fresh = ViewState::default();
            for a in back.to_actions(p) {
                fresh.apply(a);
            }
            fresh
        };
        // Without off-CPU time in the profile: the period.
        let v = apply(&p);
        assert_eq!(
            (v.off_cpu, v.weight, v.zoom),
            (false, WeightKind::Period, vec![0])
        );
        p.overview.off_cpu = Some(crate::protocol::OffCpuInfo {
            switches: 3,
            ns: 10,
            approximate: 0,
        });
        let v = apply(&p);
        assert_eq!(
            (v.off_cpu, v.weight, v.zoom, v.tab),
            (true, WeightKind::Period, vec![0], Tab::CallTree)
        );
    }

    #[test]
    fn other_versions_and_bad_values_are_ignored() {
        assert_eq!(LinkState::decode("#v=2&tab=flame"), None);
        assert_eq!(LinkState::decode("tab=flame"), None);
        assert_eq!(LinkState::decode(""), None);
        let l = LinkState::decode("v=1&tab=nope&t=5-x&f=%ZZ&ev=q&tid=3,x,4&new=1").unwrap();
        assert_eq!(
            l,
            LinkState {
                tids: vec![3, 4],
                ..LinkState::default()
            }
        );
        assert_eq!(decode_component("a+b%2B"), Some("a b+".into()));
        assert_eq!(decode_component("%FF"), None);
    }

    #[test]
    fn unknown_names_cut_the_frame_path() {
        let link = LinkState {
            frame: vec!["main".into(), "gone".into(), "slow".into()],
            event: Some(5),
            tids: vec![1234],
            ..LinkState::default()
        };
        let mut v = ViewState::default();
        for a in link.to_actions(&profile()) {
            v.apply(a);
        }
        assert_eq!((v.zoom, v.event, v.threads), (vec![0], None, vec![]));
    }

    #[test]
    fn a_tree_by_command_survives_the_round_trip_with_its_command_first_in_the_path() {
        use crate::protocol::ProcessInfo;
        // Functions main, "a;b & c", slow, λ; then the commands (busiest first): slow, main —
        // a command may have a function's name.
        let mut p = profile();
        p.overview.processes = vec![
            ProcessInfo {
                pid: 7,
                name: "main".into(),
                threads: vec![0],
                samples: 2,
            },
            ProcessInfo {
                pid: 8,
                name: "slow".into(),
                threads: vec![1],
                samples: 5,
            },
        ];
        for name in ["slow", "main"] {
            let s = p.strings.push(name);
            p.func_name.push(s);
            p.func_module.push(crate::selectors::COMMAND_MODULE);
        }
        let view = ViewState {
            tab: Tab::CallTree,
            by_command: true,
            zoom: vec![5, 0, 2],
            ..ViewState::default()
        };
        let link = LinkState::from_view(&view, &p);
        let hash = link.encode();
        assert_eq!(hash, "v=1&tab=calltree&f=main;main;slow&bycmd=1");
        let mut fresh = ViewState::default();
        for a in LinkState::decode(&hash).unwrap().to_actions(&p) {
            fresh.apply(a);
        }
        // The first name is the command main (id 5), the next ones functions.
        assert_eq!((fresh.by_command, fresh.zoom), (true, vec![5, 0, 2]));
        // Without the flag, the same names are functions only.
        let mut plain = ViewState::default();
        for a in LinkState::decode("v=1&f=slow;main").unwrap().to_actions(&p) {
            plain.apply(a);
        }
        assert_eq!((plain.by_command, plain.zoom), (false, vec![2, 0]));
    }
}
