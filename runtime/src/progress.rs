//! Progress and end-of-job summary.
