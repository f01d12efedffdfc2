//! What a job binary does when asked to stop (SIGINT, SIGTERM, SIGHUP):
//! it removes its spill folders, which can hold gigabytes, and then dies of
//! the signal as it would have without this module (its exit status names
//! the signal). Sinks need nothing: a stop is a kill at that moment, and
//! the commit protocol keeps every sink at its old or its new content (a
//! commit the run passed is rolled forward by the next run).
//!
//! The signals are blocked in the main thread before any other thread
//! starts, so every thread inherits the block, and one thread waits for
//! them with `sigwait`: the cleanup runs as ordinary code, not in a signal
//! handler. A signal that was ignored when the job started (`nohup`) stays
//! ignored.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// The spill folders that exist now (see [`crate::ops::spool::SpillDir`]).
static SPILL_FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// The stop signal received, 0 while none was.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

const STOPPING: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Records a spill folder, to be removed if the job is stopped.
pub(crate) fn spill_folder_created(path: &Path) {
    let mut folders = SPILL_FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    folders.push(path.to_path_buf());
}

/// Forgets a spill folder (removed by its owner).
pub(crate) fn spill_folder_removed(path: &Path) {
    let mut folders = SPILL_FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    folders.retain(|p| p != path);
}

/// Blocks the stop signals and starts the thread that waits for them. Call
/// once, first thing in `main`, before any other thread is started.
pub fn watch() {
    // SAFETY: plain libc calls on stack values we own; a zeroed sigset_t
    // is initialized by sigemptyset before use.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in STOPPING {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            libc::sigaddset(&mut set, signal);
        }
        let mut before: libc::sigset_t = std::mem::zeroed();
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut before) != 0 {
            return;
        }
        let waiter = std::thread::Builder::new()
            .name("stmtc-signals".into())
            .spawn(move || loop {
                let mut signal = 0;
                if libc::sigwait(&set, &mut signal) == 0 {
                    stop(signal);
                }
            });
        if waiter.is_err() {
            libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
        }
    }
}

/// Removes the spill folders and dies of `signal`.
fn stop(signal: libc::c_int) -> ! {
    RECEIVED.store(signal, Ordering::SeqCst);
    let folders = SPILL_FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    for folder in folders.iter() {
        // Renamed first: threads still spilling cannot add files to it
        // while it is being emptied (they fail, and `wait_if_stopping`
        // keeps their error quiet). A folder left half removed has the
        // same prefix, and the next run removes it.
        let mut gone = folder.clone().into_os_string();
        gone.push(".stopped");
        let gone = PathBuf::from(gone);
        if std::fs::rename(folder, &gone).is_ok() {
            let _ = std::fs::remove_dir_all(&gone);
        } else {
            let _ = std::fs::remove_dir_all(folder);
        }
    }
    // SAFETY: restores the default action (terminate) and delivers the
    // signal to this thread, the only one that does not block it.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(signal);
    }
    std::process::exit(128 + signal)
}

/// Called where the job would report a failure: when a stop signal is
/// being handled, the failure is likely its doing (a spill file removed
/// under a reader), and the process is about to die of the signal; this
/// waits for that instead of reporting an error the user did not cause.
pub fn wait_if_stopping() {
    if RECEIVED.load(Ordering::SeqCst) != 0 {
        loop {
            std::thread::park();
        }
    }
}
