//! The process groups of the shell commands the agent starts (the `bash` tool's and the
//! client's `bash` command's; each command leads a group of its own). A command killed (an
//! abort, a timeout, the agent ending mid-command) is killed with its whole group, as the
//! reference does; and when the agent ends, [`end_all`] ends the groups of the commands that
//! already returned too, where what they started in the background lives on. The reference
//! leaves those running; pi-agent does not leave a process behind (a command that means its
//! child to outlive the agent starts it with `setsid`, in a group of its own).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// The groups of the commands started so far (their leaders' pids).
static STARTED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// How long the groups have, after SIGTERM, before SIGKILL.
const GRACE: Duration = Duration::from_millis(200);

/// Remembers the group a command leads (`pid`: the command's, its group's id).
pub fn started(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|pid| i32::try_from(pid).ok()) else {
        return;
    };
    let mut started = STARTED.lock().unwrap_or_else(|poison| poison.into_inner());
    if !started.contains(&pid) {
        started.push(pid);
    }
}

/// Kills the command's whole process group (its leader alone if the group is gone).
pub fn kill(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|pid| Pid::from_raw(pid as i32)) else {
        return;
    };
    if rustix::process::kill_process_group(pid, Signal::KILL).is_err() {
        let _ = rustix::process::kill_process(pid, Signal::KILL);
    }
}

/// Ends every remembered group that still has a process of this agent's session: SIGTERM,
/// then SIGKILL for what is left after a short grace. (A group id is only ever reused once all
/// of its processes are gone; the session check keeps a reused one of another session safe.)
pub fn end_all() {
    let groups = std::mem::take(&mut *STARTED.lock().unwrap_or_else(|p| p.into_inner()));
    if groups.is_empty() {
        return;
    }
    let Some(session) = own_session() else {
        return;
    };
    let live = |groups: &[i32]| -> Vec<i32> {
        let members = session_groups(session);
        groups
            .iter()
            .copied()
            .filter(|group| members.contains(group))
            .collect()
    };
    let mut left = live(&groups);
    signal_groups(&left, Signal::TERM);
    let deadline = Instant::now() + GRACE;
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
        left = live(&left);
    }
    signal_groups(&left, Signal::KILL);
}

fn signal_groups(groups: &[i32], signal: Signal) {
    for group in groups.iter().filter_map(|group| Pid::from_raw(*group)) {
        let _ = rustix::process::kill_process_group(group, signal);
    }
}

/// This process's session, from `/proc` (not `getsid`: in a container whose session leader
/// lives outside the PID namespace the session id is 0, which rustix's `Pid` cannot hold).
fn own_session() -> Option<i32> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat(&stat).map(|(_, _, session)| session)
}

/// The process groups that have a running (not zombie) process of `session`, from `/proc`.
fn session_groups(session: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut groups = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((state, group, of_session)) = parse_stat(&stat)
            && of_session == session
            && state != 'Z'
        {
            groups.push(group);
        }
    }
    groups
}

/// A `/proc/<pid>/stat` line's state, process group and session (the fields after the
/// command's name, which is in parentheses and may hold anything).
fn parse_stat(stat: &str) -> Option<(char, i32, i32)> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _parent = fields.next()?;
    let group = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    Some((state, group, session))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_state_group_and_session_whatever_the_name() {
        let stat = "4242 (a (weird) name) S 1 4240 4100 34816 4240 4194304 100 0";
        assert_eq!(parse_stat(stat), Some(('S', 4240, 4100)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn this_process_is_found_in_its_own_session_and_group() {
        // Both from the stat line: in a container either may be 0, which `getpgrp` cannot return.
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        let (_, group, session) = parse_stat(&stat).unwrap();
        assert_eq!(own_session(), Some(session));
        assert!(session_groups(session).contains(&group));
    }
}
