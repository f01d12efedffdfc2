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

/// One of several independent steps, such as folding one operator's state
/// of a finished thread into the job's (`State::absorb` in a generated job).
pub type Step<'a> = Box<dyn FnOnce() -> Result<()> + Send + 'a>;

/// Runs independent `steps` on up to `threads` threads, each once, handed
/// out in order; returns the error of the earliest step that failed (later
/// steps are then skipped, as in a serial run). With one thread, or one
/// step, it is a serial loop on the calling thread.
///
/// A pipeline's end folds each thread's hash tables into the job's: each
/// merge is one thread's work, but the tables are independent, so two
/// merges of large tables run on two cores instead of one after the other.
pub fn run_steps<'a>(threads: usize, steps: impl IntoIterator<Item = Step<'a>>) -> Result<()> {
    let steps: Vec<Step<'a>> = steps.into_iter().collect();
    if threads <= 1 || steps.len() <= 1 {
        return steps.into_iter().try_for_each(|step| step());
    }
    let steps: Vec<Mutex<Option<Step<'a>>>> =
        steps.into_iter().map(|s| Mutex::new(Some(s))).collect();
    for_each_parallel(
        &steps,
        threads,
        |_| (),
        |_, _, step| {
            let step = step.lock().unwrap_or_else(|p| p.into_inner()).take();
            step.map_or(Ok(()), |step| step())
        },
    )?;
    Ok(())
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

    /// Every step runs once, each on its own part of the data; the first
    /// failing step's error wins, on one thread or several.
    #[test]
    fn steps_run_once_each_and_the_earliest_error_wins() {
        for threads in [1, 2, 4] {
            let mut parts = vec![0u64; 9];
            let steps: Vec<Step<'_>> = parts
                .iter_mut()
                .enumerate()
                .map(|(i, p)| -> Step<'_> {
                    Box::new(move || {
                        *p += i as u64 + 1;
                        Ok(())
                    })
                })
                .collect();
            run_steps(threads, steps).unwrap();
            assert_eq!(parts, (1..=9).collect::<Vec<u64>>(), "{threads} threads");
            let steps: Vec<Step<'_>> = (0..9)
                .map(|i| -> Step<'_> {
                    Box::new(move || {
                        if i >= 3 {
                            Err(Error::new(format!("step {i}")))
                        } else {
                            Ok(())
                        }
                    })
                })
                .collect();
            assert_eq!(run_steps(threads, steps).unwrap_err().message(), "step 3");
        }
    }
}
