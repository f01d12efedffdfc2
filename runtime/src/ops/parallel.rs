//! Running work over source splits on all cores: threads pull splits from a
//! shared counter (so uneven splits balance), each keeps its own state
//! (partial aggregates, its own sink part files), and the states come back to
//! the caller to merge. The first error stops the other threads early.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Number of worker threads to use: `STMTC_THREADS` if set, else the number of cores.
pub fn default_threads() -> usize {
    std::env::var("STMTC_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs `work(state, item_index, item)` for every item on up to `threads`
/// threads, each with a state from `init(thread_index)`; returns the states in
/// thread order. Items are handed out in order, so with one thread the run is
/// exactly a serial loop.
pub fn for_each_parallel<T, S, I, F>(
    items: &[T],
    threads: usize,
    init: I,
    work: F,
) -> Result<Vec<S>>
where
    T: Sync,
    S: Send,
    I: Fn(usize) -> S + Sync,
    F: Fn(&mut S, usize, &T) -> Result<()> + Sync,
{
    let threads = threads.clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let first_error: Mutex<Option<(usize, Error)>> = Mutex::new(None);
    let run = |t: usize| -> S {
        let mut state = init(t);
        loop {
            if failed.load(Ordering::Relaxed) {
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            if let Err(e) = work(&mut state, i, item) {
                failed.store(true, Ordering::Relaxed);
                let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                // Report the error of the earliest item, as a serial run would.
                if slot.as_ref().is_none_or(|(j, _)| i < *j) {
                    *slot = Some((i, e));
                }
                break;
            }
        }
        state
    };
    let states = if threads == 1 {
        vec![run(0)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|t| scope.spawn(move || run(t))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Vec<S>>()
        })
    };
    if let Some((_, e)) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(states)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_items_once_and_first_error_wins() {
        let items: Vec<u64> = (1..=1000).collect();
        let states = for_each_parallel(
            &items,
            4,
            |_| 0u64,
            |s, _, v| {
                *s += v;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(states.iter().sum::<u64>(), 500_500);
        let err = for_each_parallel(
            &items,
            1,
            |_| (),
            |_, i, _| {
                if i >= 10 {
                    Err(Error::new(format!("item {i}")))
                } else {
                    Ok(())
                }
            },
        )
        .unwrap_err();
        assert_eq!(err.message(), "item 10");
    }
}
