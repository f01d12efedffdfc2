//! The runtime's error type: a message that already names where it happened
//! (`orders.csv:10432: column 'price': cannot parse 'abc' as DECIMAL(10, 2)`).

use std::fmt;

/// A runtime failure. Bad data never panics; it becomes one of these.
#[derive(Debug)]
pub struct Error {
    message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
        }
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
