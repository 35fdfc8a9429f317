//! The timeline built from hand-made event sequences: exact interval math for each switch
//! source, the recording's edges, threads that existed before it, idle (pid/tid 0), -1, tid
//! reuse and names over time.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use perfscope_analysis::ids::StackIndex;
use perfscope_analysis::timeline::{
    Bound, Lane, Marker, MarkerKind, OffCpuState, SchedSwitch, StackSource, SwitchEvent, TaskIndex,
    Timeline, TimelineBuilder, TimelineSample,
};

const R: Bound = Bound::Recorded;
const I: Bound = Bound::Inferred;
const T: Bound = Bound::Truncated;

fn sample(time: u64, pid: u32, tid: u32, cpu: Option<u32>) -> TimelineSample {
    TimelineSample {
        time: Some(time),
        pid,
        tid,
        cpu,
        stack: None,
        is_sched_switch: false,
    }
}

fn switch(time: u64, pid: u32, tid: u32, out: bool, preempt: bool) -> SwitchEvent {
    SwitchEvent {
        time,
        pid,
        tid,
        cpu: None,
        out,
        preempt,
        cpu_wide: false,
    }
}

fn sched(
    time: u64,
    cpu: u32,
    prev_tid: u32,
    prev_state: u64,
    next_tid: u32,
) -> SchedSwitch<'static> {
    SchedSwitch {
        time,
        cpu: Some(cpu),
        prev_tid,
        prev_state,
        prev_comm: "",
        next_tid,
        next_comm: "",
        has_callchain: false,
        stack: None,
    }
}

/// (start, end, start bound, end bound) of a task's on-CPU intervals.
fn on(t: &Timeline, task: u32) -> Vec<(u64, u64, Bound, Bound)> {
    t.tasks[task as usize]
        .on_cpu
        .iter()
        .map(|i| (i.start, i.end, i.start_bound, i.end_bound))
        .collect()
}

/// (start, end, state, end bound) of a task's off-CPU intervals.
fn off(t: &Timeline, task: u32) -> Vec<(u64, u64, char, Bound)> {
    t.tasks[task as usize]
        .off_cpu
        .iter()
        .map(|i| (i.start, i.end, i.state.letter(), i.end_bound))
        .collect()
}

#[test]
fn per_task_switch_records_at_the_edges_of_the_recording() {
    let mut b = TimelineBuilder::new();
    b.on_sample(&sample(10, 100, 100, None));
    // Running since before the recording: its first switch is an OUT.
    b.on_switch(&switch(50, 100, 100, true, true));
    b.on_switch(&switch(80, 100, 100, false, false));
    b.on_switch(&switch(120, 100, 100, true, false));
    // A second thread forked at 20 runs from 30 and is still running at the end.
    b.on_fork(20, 100, 100, 101, 100);
    b.on_switch(&switch(30, 100, 101, false, false));
    b.on_sample(&sample(200, 100, 101, None));
    let t = b.build();
    assert_eq!((t.start, t.end), (Some(10), Some(200)));
    assert_eq!(on(&t, 0), [(10, 50, T, R), (80, 120, R, R)]);
    // Blocked from 120 to the end: truncated, and not counted as off-CPU time.
    assert_eq!(off(&t, 0), [(50, 80, 'R', R), (120, 200, 'V', T)]);
    assert_eq!(
        (t.tasks[0].on_cpu_ns(), t.tasks[0].off_cpu_ns()),
        (40 + 40, 30)
    );
    // Nothing before its first switch-in.
    assert_eq!(on(&t, 1), [(30, 200, R, T)]);
    assert_eq!(off(&t, 1), []);
    assert_eq!(t.tasks[1].parent, Some((100, 100)));
    assert_eq!(t.off_cpu.len(), 1);
    assert_eq!(
        (t.off_cpu[0].task, t.off_cpu[0].start, t.off_cpu[0].end),
        (TaskIndex(0), 50, 80)
    );
    assert_eq!(t.switches.switch, 4);
}

#[test]
fn an_exited_thread_has_no_off_cpu_tail() {
    let mut b = TimelineBuilder::new();
    b.on_fork(20, 7, 7, 8, 7);
    b.on_switch(&switch(30, 7, 8, false, false));
    b.on_exit(90, 7, 7, 8, 8);
    b.on_switch(&switch(95, 7, 8, true, false));
    b.on_sample(&sample(500, 7, 7, None));
    let t = b.build();
    let task = &t.tasks[0];
    assert_eq!(
        (
            task.fork_time,
            task.exit_time,
            task.first_seen,
            task.last_seen
        ),
        (Some(20), Some(90), Some(20), Some(95))
    );
    assert_eq!(on(&t, 0), [(30, 95, R, R)]);
    assert_eq!(off(&t, 0), []);
}

#[test]
fn system_wide_sched_switch_with_idle_cpus() {
    let mut b = TimelineBuilder::new();
    b.on_sample(&sample(40, 0, 0, Some(0)));
    b.on_comm(None, 5, 5, "worker", false);
    b.on_sched_switch(&sched(100, 0, 0, 0, 5));
    b.on_sched_switch(&sched(150, 0, 5, 1, 0)); // S
    b.on_sched_switch(&sched(400, 0, 0, 0, 5));
    b.on_sched_switch(&sched(450, 1, 0, 0, 9)); // another CPU
    b.on_sample(&sample(500, 5, 5, Some(0)));
    let t = b.build();
    let w = t.find_tasks(5, 5).next().unwrap();
    assert_eq!(w, TaskIndex(1));
    assert_eq!(on(&t, 1), [(100, 150, R, R), (400, 500, R, T)]);
    assert_eq!(off(&t, 1), [(150, 400, 'S', R)]);
    // CPU 0: idle since before the first event, the worker, idle, the worker.
    let slices: Vec<_> = t
        .cpu(0)
        .unwrap()
        .slices
        .iter()
        .map(|s| (s.start, s.end, s.task, s.start_bound, s.end_bound))
        .collect();
    assert_eq!(
        slices,
        [
            (40, 100, None, T, R),
            (100, 150, Some(w), R, R),
            (150, 400, None, R, R),
            (400, 500, Some(w), R, T)
        ]
    );
    // Task 2 is tid 9, seen only in sched_switch: no pid yet.
    assert_eq!((t.tasks[2].tid, t.tasks[2].pid), (9, None));
    assert_eq!(t.cpu(1).unwrap().slices.len(), 2);
    // The swapper's samples are a lane like any other; its intervals are the CPUs' idle slices.
    assert_eq!(
        (t.tasks[0].pid, t.tasks[0].tid, t.tasks[0].on_cpu.len()),
        (Some(0), 0, 0)
    );
    assert_eq!(t.density(Lane::Task(TaskIndex(0)), 0, 1000, 1), [1]);
    assert_eq!(t.density(Lane::Cpu(0), 0, 1000, 2), [1, 1]);
}

#[test]
fn per_task_sched_switch_infers_missed_switch_ins_like_perf_timehist() {
    let mut b = TimelineBuilder::new();
    // Only the workload's switch-outs are recorded.
    b.on_sched_switch(&sched(100, 1, 20, 0x100, 99)); // 20 preempted (R+)
    b.on_sched_switch(&sched(130, 1, 21, 1, 99)); // 21 sleeps: 20 may run after 130
    b.on_sched_switch(&sched(200, 1, 20, 2, 99)); // 20 out again (D): it was back at 130
                                                  // 20 out on CPU 0, whose last switch (50) is before: back at its switch-out, zero wait.
    b.on_sched_switch(&sched(50, 0, 22, 1, 99));
    b.on_sched_switch(&sched(300, 0, 20, 1, 99));
    let t = b.build();
    assert_eq!(t.tasks[0].tid, 20);
    assert_eq!(
        on(&t, 0),
        [(100, 100, T, R), (130, 200, I, R), (200, 300, I, R)]
    );
    // The last switch-out is the end of the recording: no tail.
    assert_eq!(off(&t, 0), [(100, 130, 'R', I), (200, 200, 'D', I)]);
    assert_eq!(t.tasks[0].off_cpu_ns(), 30);
    assert_eq!(
        t.off_cpu
            .iter()
            .map(|s| (s.start, s.end, s.end_bound))
            .collect::<Vec<_>>(),
        [(100, 130, I), (200, 200, I)]
    );
    assert_eq!(
        t.tasks[0].name(),
        "",
        "no COMM and empty comms in the events"
    );
}

#[test]
fn a_thread_first_seen_switching_out_ran_since_the_previous_switch_on_its_cpu() {
    let mut b = TimelineBuilder::new();
    b.on_sample(&sample(5, 1, 1, Some(0)));
    b.on_sched_switch(&sched(10, 0, 30, 1, 31));
    b.on_fork(40, 32, 1, 32, 1);
    b.on_sched_switch(&sched(60, 0, 31, 1, 33));
    b.on_sched_switch(&sched(70, 0, 32, 1, 30)); // 32 never seen in: since max(60, fork 40)
    let t = b.build();
    let by_tid = |tid: u32| t.tasks.iter().position(|x| x.tid == tid).unwrap() as u32;
    assert_eq!(on(&t, by_tid(30)), [(5, 10, T, R), (70, 70, R, T)]);
    assert_eq!(on(&t, by_tid(31)), [(10, 60, R, R)]);
    assert_eq!(on(&t, by_tid(32)), [(60, 70, I, R)]);
    assert_eq!(off(&t, by_tid(30)), [(10, 70, 'S', R)]);
}

#[test]
fn two_sources_of_one_switch_count_once_and_the_callchain_wins() {
    let mut b = TimelineBuilder::new();
    b.on_sample(&TimelineSample {
        stack: Some(StackIndex(4)),
        ..sample(10, 3, 3, Some(0))
    });
    b.on_switch(&SwitchEvent {
        cpu: Some(0),
        ..switch(20, 3, 3, true, false)
    });
    b.on_sched_switch(&SchedSwitch {
        has_callchain: true,
        stack: Some(StackIndex(8)),
        ..sched(20, 0, 3, 1, 0)
    });
    b.on_switch(&SwitchEvent {
        cpu: Some(0),
        ..switch(50, 3, 3, false, false)
    });
    b.on_sched_switch(&sched(50, 0, 0, 0, 3));
    b.on_sample(&sample(60, 3, 3, Some(0)));
    let t = b.build();
    assert_eq!(on(&t, 0), [(10, 20, T, R), (50, 60, R, T)]);
    assert_eq!(
        off(&t, 0),
        [(20, 50, 'V', R)],
        "the first source's state is kept"
    );
    assert_eq!(t.off_cpu.len(), 1);
    assert_eq!(
        (t.off_cpu[0].stack, t.off_cpu[0].source),
        (Some(StackIndex(8)), StackSource::SwitchCallchain)
    );
    assert_eq!((t.switches.switch, t.switches.sched_switch), (2, 2));
}

#[test]
fn cpu_wide_switch_records_use_only_their_own_task() {
    let mut b = TimelineBuilder::new();
    let cw = |time, pid, tid, out, cpu| SwitchEvent {
        time,
        pid,
        tid,
        cpu: Some(cpu),
        out,
        preempt: false,
        cpu_wide: true,
    };
    b.on_switch(&cw(100, 0, 0, true, 1)); // idle leaves CPU 1
    b.on_switch(&cw(100, 40, 41, false, 1));
    b.on_switch(&cw(180, 40, 41, true, 1));
    b.on_switch(&cw(180, 0, 0, false, 1));
    b.on_switch(&cw(190, u32::MAX, u32::MAX, false, 1)); // not a task: ignored
    let t = b.build();
    assert_eq!(t.tasks.len(), 1);
    assert_eq!((t.tasks[0].pid, t.tasks[0].tid), (Some(40), 41));
    assert_eq!(on(&t, 0), [(100, 180, R, R)]);
    let slices: Vec<_> = t
        .cpu(1)
        .unwrap()
        .slices
        .iter()
        .map(|s| (s.start, s.end, s.task.is_some()))
        .collect();
    assert_eq!(
        slices,
        [(100, 100, false), (100, 180, true), (180, 190, false)]
    );
    assert_eq!(t.switches.switch_cpu_wide, 5);
}

#[test]
fn pids_are_learned_tids_are_reused_and_minus_one_is_its_own_lane() {
    let mut b = TimelineBuilder::new();
    b.on_sched_switch(&SchedSwitch {
        next_comm: "kworker",
        ..sched(10, 0, 0, 0, 9)
    });
    b.on_sample(&sample(20, 3, 9, Some(0))); // tid 9 belongs to pid 3
    b.on_exit(30, 3, 3, 9, 9);
    b.on_fork(40, 50, 1, 9, 1); // tid 9 reused by a new process
    b.on_sample(&sample(45, 50, 9, Some(0)));
    b.on_sample(&sample(46, 50, u32::MAX, Some(0)));
    b.on_sample(&sample(47, 50, u32::MAX, Some(1)));
    b.on_sample(&sample(48, 60, u32::MAX, Some(1)));
    b.on_sched_switch(&sched(49, 0, u32::MAX, 0, u32::MAX)); // nothing to do
    let t = b.build();
    let ids: Vec<_> = t.tasks.iter().map(|x| (x.pid, x.tid, x.samples)).collect();
    assert_eq!(
        ids,
        [
            (Some(3), 9, 1),
            (Some(50), 9, 1),
            (Some(50), u32::MAX, 2),
            (Some(60), u32::MAX, 1)
        ]
    );
    assert_eq!(t.tasks[0].name(), "kworker");
    assert_eq!(t.tasks[0].exit_time, Some(30));
    assert_eq!(t.tasks[1].fork_time, Some(40));
    assert_eq!(
        t.find_tasks(50, u32::MAX).collect::<Vec<_>>(),
        [TaskIndex(2)]
    );
    assert_eq!(t.density(Lane::Cpu(1), 0, 100, 1), [2]);
}

#[test]
fn synthesized_records_at_time_zero_do_not_move_the_start() {
    let mut b = TimelineBuilder::new();
    b.on_fork(0, 1, 0, 1, 0);
    b.on_comm(Some(0), 1, 1, "init", false);
    b.on_fork(1_000, 2, 1, 2, 1);
    b.on_comm(Some(2_000), 2, 2, "sh", true);
    b.on_comm(Some(3_000), 2, 2, "ls", true);
    b.on_marker(Marker {
        time: Some(2_500),
        cpu: Some(1),
        kind: MarkerKind::Throttle { id: 7 },
    });
    b.on_marker(Marker {
        time: Some(1_500),
        cpu: None,
        kind: MarkerKind::Lost { id: 7, lost: 3 },
    });
    let t = b.build();
    assert_eq!((t.start, t.end), (Some(1_000), Some(3_000)));
    assert_eq!(t.tasks[0].fork_time, None);
    let child = &t.tasks[1];
    let names: Vec<_> = child
        .names
        .iter()
        .map(|n| (n.time, n.name.as_str(), n.exec))
        .collect();
    assert_eq!(
        names,
        [
            (Some(1_000), "init", false),
            (Some(2_000), "sh", true),
            (Some(3_000), "ls", true)
        ]
    );
    assert_eq!(
        (
            child.name_at(500),
            child.name_at(2_999),
            child.name_at(3_000)
        ),
        ("init", "sh", "ls")
    );
    assert_eq!(
        t.markers.iter().map(|m| m.time).collect::<Vec<_>>(),
        [Some(1_500), Some(2_500)]
    );
}

#[test]
fn prev_state_letters() {
    let letters: Vec<char> = [0u64, 1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80, 0x100, 0x101]
        .iter()
        .map(|&v| OffCpuState::from_prev_state(v).letter())
        .collect();
    assert_eq!(
        letters,
        ['R', 'S', 'D', 'T', 't', 'X', 'Z', 'P', 'I', 'R', 'S']
    );
    assert!(OffCpuState::from_prev_state(0x10).is_dead());
}

#[test]
fn intervals_in_a_window() {
    let mut b = TimelineBuilder::new();
    for (i, time) in [100u64, 200, 300, 400, 500, 600].into_iter().enumerate() {
        b.on_switch(&switch(time, 1, 1, i % 2 == 1, false));
    }
    let t = b.build();
    let got: Vec<_> = t
        .on_cpu_in(TaskIndex(0), 250, 450)
        .iter()
        .map(|i| (i.start, i.end))
        .collect();
    assert_eq!(got, [(300, 400)]);
    let got: Vec<_> = t
        .off_cpu_in(TaskIndex(0), 250, 450)
        .iter()
        .map(|i| (i.start, i.end))
        .collect();
    assert_eq!(got, [(200, 300), (400, 500)]);
    assert!(t.on_cpu_in(TaskIndex(9), 0, 1_000).is_empty());
}

#[test]
fn a_thread_taking_the_cpu_evicts_the_one_the_switches_left_there() {
    // Per-task sched_switch: 20 and 21 are recorded, 99 is not (it never switches out).
    let mut b = TimelineBuilder::new();
    b.on_sched_switch(&sched(100, 0, 20, 0x100, 99));
    b.on_sched_switch(&sched(180, 0, 21, 1, 99)); // 21 ran since 100: 99 left then, unseen
    b.on_sample(&sample(300, 5, 5, None));
    let t = b.build();
    let by_tid = |tid: u32| t.tasks.iter().position(|x| x.tid == tid).unwrap() as u32;
    assert_eq!(on(&t, by_tid(21)), [(100, 180, I, R)]);
    assert_eq!(
        on(&t, by_tid(99)),
        [(180, 300, R, T)],
        "nothing for the zero-length run at 100"
    );
    assert_eq!(off(&t, by_tid(99)), [(100, 180, '?', R)]);
    assert_eq!(
        t.tasks[by_tid(99) as usize].off_cpu_ns(),
        0,
        "an unseen switch-out is no off-CPU time"
    );
    assert!(t.off_cpu.is_empty());
    let slices: Vec<_> = t
        .cpu(0)
        .unwrap()
        .slices
        .iter()
        .map(|s| (s.start, s.end, t.tasks[s.task.unwrap().index()].tid))
        .collect();
    assert_eq!(slices, [(100, 100, 20), (100, 180, 21), (180, 300, 99)]);
}

#[test]
fn a_switch_out_record_after_the_next_switch_in_tells_the_state() {
    let mut b = TimelineBuilder::new();
    let cw = |time, tid, out, preempt| SwitchEvent {
        time,
        pid: tid,
        tid,
        cpu: Some(0),
        out,
        preempt,
        cpu_wide: true,
    };
    b.on_switch(&cw(10, 7, false, false));
    b.on_switch(&cw(50, 8, false, false)); // 8 comes in before 7's out record at the same time
    b.on_switch(&cw(50, 7, true, true));
    b.on_switch(&cw(70, 8, true, false));
    b.on_switch(&cw(70, 7, false, false));
    let t = b.build();
    assert_eq!(on(&t, 0), [(10, 50, R, I), (70, 70, R, T)]);
    assert_eq!(off(&t, 0), [(50, 70, 'R', R)]);
    assert_eq!((t.off_cpu.len(), t.off_cpu[0].duration()), (1, 20));
}
