//! The runtime's error type: a message that already names where it happened
//! (`orders.csv:10432: column 'price': cannot parse 'abc' as DECIMAL(10, 2)`).

use std::fmt;

/// A runtime failure. Bad data never panics; it becomes one of these.
#[derive(Debug)]
pub struct Error {
    message: String,
    /// A range of a file started where its quote state was guessed wrong
    /// (`files::plan_splits_guessing`): the job runs again, exactly.
    guessed_split: bool,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            guessed_split: false,
        }
    }

    /// The reader of a range whose end was guessed found its last record
    /// ending elsewhere: the next range started inside a quoted field.
    pub fn guessed_split(path: &std::path::Path, end: u64) -> Self {
        Error {
            message: format!(
                "{}: a parallel read started at byte {end}, inside a quoted field",
                path.display()
            ),
            guessed_split: true,
        }
    }

    /// Whether this is [`Error::guessed_split`].
    pub fn is_guessed_split(&self) -> bool {
        self.guessed_split
    }

    /// An I/O error with the path it concerns.
    pub fn io(path: &std::path::Path, e: std::io::Error) -> Self {
        Error::new(format!("{}: {e}", path.display()))
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
