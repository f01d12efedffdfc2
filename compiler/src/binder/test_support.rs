//! Helpers for the binder's unit tests: bind a job text, read its first
//! diagnostic.

use crate::diagnostics::{Diagnostics, SourceFile};

/// The first diagnostic binding `sql` (sorted by location), rendered by
/// `render` with the file, or `ok` when there is none.
pub(crate) fn first_diagnostic(
    sql: &str,
    render: &dyn Fn(&SourceFile, &crate::diagnostics::Diagnostic) -> String,
) -> String {
    let file = SourceFile::new("job.sql", sql);
    let mut diags = Diagnostics::default();
    let script = crate::parser::parse_script(&file, &mut diags);
    crate::binder::bind_script(&file, &script, &mut diags);
    diags
        .into_sorted()
        .first()
        .map_or("ok".to_string(), |d| render(&file, d))
}

/// Asserts that the first error binding `sql` starts with `expect` (`ok`
/// when it binds); `what` names the case in the failure.
#[track_caller]
pub(crate) fn assert_first_error(sql: &str, what: &str, expect: &str) {
    let got = first_diagnostic(sql, &|_, d| d.message.clone());
    assert!(
        got.starts_with(expect),
        "{what}\n got: {got}\nwant: {expect}"
    );
}
