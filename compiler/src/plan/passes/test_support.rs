//! The one helper the rewrite tests go through: bind a job, lower it, run a
//! single pass once, and compare the explain text of the result.

use crate::diagnostics::{Diagnostics, SourceFile};
use crate::plan::explain::{text, Details};
use crate::plan::{lower, Plan};

fn lowered(sql: &str) -> (SourceFile, Plan) {
    let file = SourceFile::new("job.sql", sql);
    let mut diags = Diagnostics::default();
    let script = crate::parser::parse_script(&file, &mut diags);
    let job = crate::binder::bind_script(&file, &script, &mut diags);
    assert!(
        !diags.has_errors(),
        "test job does not check: {:?}",
        diags.into_sorted()
    );
    let mut plan = lower(job, None);
    plan.compact();
    (file, plan)
}

/// Runs pass `name` once on the lowered plan of `sql`; `expected` is the
/// plan text afterwards (without the header line), or "unchanged".
#[track_caller]
pub(crate) fn check_pass(name: &str, sql: &str, expected: &str) {
    let (file, plan) = lowered(sql);
    let pass = super::PASSES
        .iter()
        .find(|p| p.name == name)
        .expect("known pass");
    let actual = match (pass.run)(&plan) {
        Some(next) => {
            crate::plan::verify::check(&next)
                .unwrap_or_else(|e| panic!("{name} broke the plan: {e}"));
            body(&text(&next, &file, Details::default(), Vec::new()))
        }
        None => "unchanged".to_string(),
    };
    assert_eq!(
        actual.trim(),
        expected.trim(),
        "\n--- before ---\n{}\n--- after {name} ---\n{actual}\n",
        body(&text(&plan, &file, Details::default(), Vec::new()))
    );
}

fn body(text: &str) -> String {
    text.lines().skip(2).collect::<Vec<_>>().join("\n")
}

/// The explain text (without the header line) of the plan as lowered,
/// before any rewrite: what `normalize` and `join_order` made of it.
pub(crate) fn lowered_text(sql: &str) -> String {
    let (file, plan) = lowered(sql);
    body(&text(&plan, &file, Details::default(), Vec::new()))
}

/// The explain text (without the header line) of the fully optimized plan.
pub(crate) fn optimized_text(sql: &str) -> String {
    let (file, plan) = lowered(sql);
    let plan = super::optimize(plan, &mut |_, _| {});
    crate::plan::verify::check(&plan).unwrap_or_else(|e| panic!("optimizing broke the plan: {e}"));
    body(&text(&plan, &file, Details::default(), Vec::new()))
}

/// Optimizes `sql` with every pass and compares the plan text.
#[track_caller]
pub(crate) fn check_optimized(sql: &str, expected: &str) {
    let actual = optimized_text(sql);
    assert_eq!(
        actual.trim(),
        expected.trim(),
        "\n--- optimized ---\n{actual}\n"
    );
}

/// The generated `main.rs` of `sql`, compiled as `stmtc compile` does.
pub(crate) fn generated_main(sql: &str) -> String {
    let file = crate::diagnostics::SourceFile::new("job.sql", sql);
    let job = crate::compile(file, &crate::RuntimeLocation::Vendored, None, None)
        .unwrap_or_else(|e| panic!("{:?}", e.diagnostics));
    job.files
        .into_iter()
        .find(|(p, _)| p.ends_with("main.rs"))
        .expect("a main.rs")
        .1
}
