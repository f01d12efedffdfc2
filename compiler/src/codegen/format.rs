//! Formatting the generated program (`pretty::format`) on all cores while
//! it is generated.
//!
//! Each top-level item prints on its own from the first column, so
//! consecutive runs of items can be printed apart and the texts joined:
//! the result is the text of the whole file printed at once, however the
//! items are cut. The program comes in two parts: its head (the `main`,
//! `run` and `State` items), made last, and its body (row structs, push
//! functions, tasks, statics), made first. While the generator goes on,
//! other threads format the body in runs of text (tokens cannot leave
//! their thread); the head goes to them last, one run per item, and this
//! thread takes the runs no one has taken yet.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

use proc_macro2::TokenStream;

/// The body is cut into runs of about this many bytes of tokens' text.
const RUN_BYTES: usize = 16 << 10;

/// Where a run goes in the file: the head's runs first, then the body's,
/// each in the order they were made.
type Position = (Part, usize);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    /// The head's first items (`Body::finish`).
    Head,
    /// The head's items made while the body is made (`Body::push_head`),
    /// after those.
    HeadTail,
    Body,
}

/// Where the generator sends the pieces of the program's body (each
/// whole items), in order.
pub(super) struct Body<'a> {
    /// `None`: formatted on this thread with the rest (`tokens`).
    shared: Option<&'a Shared>,
    tokens: Vec<TokenStream>,
    /// [`Body::push_head`]'s items, when they stay on this thread.
    head_tail: Vec<TokenStream>,
    head_tails: usize,
    run: String,
    runs: usize,
}

impl<'a> Body<'a> {
    pub fn new(shared: Option<&'a Shared>) -> Self {
        Body {
            shared,
            tokens: Vec::new(),
            head_tail: Vec::new(),
            head_tails: 0,
            run: String::new(),
            runs: 0,
        }
    }

    /// An item of the file's head (after those `finish` gets), made before
    /// the body is complete: the other threads format it, a run of its own,
    /// while the body is made, instead of last, alone.
    pub fn push_head(&mut self, piece: TokenStream) {
        let Some(shared) = self.shared else {
            self.head_tail.push(piece);
            return;
        };
        shared.push((Part::HeadTail, self.head_tails), piece.to_string());
        self.head_tails += 1;
    }

    pub fn push(&mut self, piece: TokenStream) {
        let Some(shared) = self.shared else {
            self.tokens.push(piece);
            return;
        };
        self.run.push_str(&piece.to_string());
        if self.run.len() >= RUN_BYTES {
            self.flush(shared);
        }
    }

    /// Sends the last run of the body, then the head (the file's first
    /// items, before [`Body::push_head`]'s), each of its pieces a run of
    /// its own. Returns the whole program's tokens, head first, when they
    /// stay on this thread.
    pub fn finish(mut self, head: Vec<TokenStream>) -> Vec<TokenStream> {
        let Some(shared) = self.shared else {
            let mut tokens = head;
            tokens.append(&mut self.head_tail);
            tokens.append(&mut self.tokens);
            return tokens;
        };
        self.flush(shared);
        for (i, piece) in head.into_iter().enumerate() {
            shared.push((Part::Head, i), piece.to_string());
        }
        Vec::new()
    }

    fn flush(&mut self, shared: &Shared) {
        if !self.run.is_empty() {
            shared.push((Part::Body, self.runs), std::mem::take(&mut self.run));
            self.runs += 1;
        }
    }
}

#[derive(Default)]
struct Queue {
    /// Runs not taken yet, by position in the file.
    waiting: VecDeque<(Position, String)>,
    printed: Vec<(Position, Result<String, String>)>,
    /// No more runs will come.
    closed: bool,
}

/// The runs of the program, shared by the threads that format them.
#[derive(Default)]
pub(super) struct Shared {
    queue: Mutex<Queue>,
    arrived: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, position: Position, text: String) {
        self.lock().waiting.push_back((position, text));
        self.arrived.notify_one();
    }

    /// No more runs: the threads waiting for one stop.
    pub fn close(&self) {
        self.lock().closed = true;
        self.arrived.notify_all();
    }

    /// Closes the queue when dropped, also when the generator panics (the
    /// other threads would wait for runs forever).
    pub fn closer(&self) -> impl Drop + '_ {
        struct Closer<'s>(&'s Shared);
        impl Drop for Closer<'_> {
            fn drop(&mut self) {
                self.0.close();
            }
        }
        Closer(self)
    }

    /// Formats runs as they come until the queue is closed and empty; with
    /// `wait` false, only those waiting now.
    pub fn work(&self, wait: bool) {
        loop {
            let run = {
                let mut queue = self.lock();
                loop {
                    if let Some(run) = queue.waiting.pop_front() {
                        break Some(run);
                    }
                    if queue.closed || !wait {
                        break None;
                    }
                    queue = self.arrived.wait(queue).unwrap_or_else(|e| e.into_inner());
                }
            };
            let Some((position, text)) = run else {
                return;
            };
            let printed = super::pretty::format(&text);
            self.lock().printed.push((position, printed));
        }
    }

    /// The printed runs, in order.
    pub fn printed(&self) -> Result<String, String> {
        let mut printed = std::mem::take(&mut self.lock().printed);
        printed.sort_by_key(|(position, _)| *position);
        let mut out = String::new();
        for (_, text) in printed {
            out.push_str(&text?);
        }
        Ok(out)
    }
}

/// Prints whole items from their tokens.
pub(super) fn unparse(pieces: Vec<TokenStream>) -> Result<String, String> {
    let text: TokenStream = pieces.into_iter().collect();
    super::pretty::format(&text.to_string())
}
