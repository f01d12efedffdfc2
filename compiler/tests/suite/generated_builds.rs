//! "check ok => compile ok", all the way to rustc: generated jobs (the
//! robustness generator's clean ones) that `check` accepts are compiled and
//! their crates built against the shared runtime (`support/shared_build.rs`).
//! `robustness.rs` already requires every accepted job's `main.rs` to parse;
//! a sample must also link and run its `main`, and every accepted job of
//! the fixtures and of the first `TYPE_CHECKED_SEEDS` generator seeds must
//! type-check: their programs become the modules of one crate checked by
//! one `cargo check` (rustc's full type and borrow checking, no codegen).

use stmtc::diagnostics::SourceFile;

use crate::generator;
use crate::shared_build;

/// Accepted jobs built per run (each takes a few seconds).
const SAMPLE: usize = 12;

/// Generator seeds whose accepted jobs are all type-checked.
const TYPE_CHECKED_SEEDS: u64 = 400;

#[test]
fn generated_jobs_that_check_accepts_build() {
    let runtime = shared_build::runtime_dir(stmtc::runtime_crate());
    let location = stmtc::RuntimeLocation::Path(runtime.display().to_string());
    let mut written = Vec::new();
    let mut names = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for seed in 0..2_000u64 {
        if written.len() == SAMPLE {
            break;
        }
        let mut rng = generator::Rng::seeded(seed);
        let text = generator::job(&mut rng, 0);
        let name = format!("generated_{seed}.sql");
        if stmtc::check(SourceFile::new(name.clone(), text.clone())).has_errors() {
            continue;
        }
        let package = format!("generated_{seed}");
        match stmtc::compile(
            SourceFile::new(name.clone(), text.clone()),
            &location,
            Some(&package),
            None,
        ) {
            Err(c) => failures.push(format!(
                "{name}: check accepted it, compile refused it:\n{}\n--- job ---\n{text}",
                c.render_diagnostics(false)
            )),
            Ok(job) => {
                shared_build::write_files(&shared_build::crate_dir(&package), &job.files);
                names.insert(package.clone(), (name, text));
                written.push(package);
            }
        }
    }
    // Built in one cargo run, side by side.
    let mut built = Vec::new();
    for (package, result) in shared_build::build_many("generated", &written) {
        let (name, text) = &names[&package];
        match result {
            Ok(_) => built.push(name.clone()),
            Err(e) => failures.push(format!(
                "{name}: check accepted it, its crate does not build:\n{e}\n--- job ---\n{text}"
            )),
        }
    }
    eprintln!("built {} generated jobs: {}", built.len(), built.join(", "));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(
        built.len(),
        SAMPLE,
        "the generator gave too few accepted jobs"
    );
}

/// One accepted job's program, made a module of the type-check crate.
struct Module {
    name: String,
    text: String,
}

/// The program of `text` if `check` accepts it; `Err` when `check` accepts
/// it and `compile` refuses it.
fn accepted_program(
    name: &str,
    text: &str,
    base_dir: Option<&std::path::Path>,
    location: &stmtc::RuntimeLocation,
) -> Result<Option<(String, String)>, String> {
    if stmtc::check(SourceFile::new(name.to_string(), text.to_string())).has_errors() {
        return Ok(None);
    }
    let job = stmtc::compile(
        SourceFile::new(name.to_string(), text.to_string()),
        location,
        Some("typecheck"),
        base_dir,
    )
    .map_err(|c| {
        format!(
            "{name}: check accepted it, compile refused it:\n{}",
            c.render_diagnostics(false)
        )
    })?;
    let file = |path: &str| {
        job.files
            .iter()
            .find(|(p, _)| p == std::path::Path::new(path))
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| panic!("{name}: the compiled crate has no {path}"))
    };
    Ok(Some((file("src/main.rs"), file("plan.txt"))))
}

/// `main.rs` as module `module`, its plan read from `plans/`. (Generated
/// code has no crate attributes; as modules of one library its `main` and
/// the items only `main` reaches are unused, which the module declaration
/// allows.)
fn as_module(main_rs: &str, module: &str) -> String {
    let text = main_rs.to_string();
    assert!(!text.contains("#!["), "{module}: a crate attribute");
    let plan = "include_str!(\"../plan.txt\")";
    assert!(
        text.contains(plan),
        "{module}: the plan is not included as expected"
    );
    text.replace(plan, &format!("include_str!(\"../plans/{module}.txt\")"))
}

#[test]
fn every_accepted_fixture_and_generated_job_type_checks() {
    let runtime = shared_build::runtime_dir(stmtc::runtime_crate());
    let location = stmtc::RuntimeLocation::Path(runtime.display().to_string());
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut jobs: Vec<(String, String, Option<std::path::PathBuf>)> = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&fixtures)
        .expect("fixtures/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("job.sql").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let text = std::fs::read_to_string(dir.join("job.sql")).expect("job.sql");
        let name = format!("fixtures/{}", dir.file_name().unwrap().to_string_lossy());
        jobs.push((name, text, Some(dir)));
    }
    for seed in 0..TYPE_CHECKED_SEEDS {
        let mut rng = generator::Rng::seeded(seed);
        jobs.push((
            format!("generated_{seed}.sql"),
            generator::job(&mut rng, 0),
            None,
        ));
    }

    let mut failures = Vec::new();
    let mut modules = Vec::new();
    let mut generated = 0;
    for (name, text, dir) in &jobs {
        match accepted_program(name, text, dir.as_deref(), &location) {
            Err(e) => failures.push(e),
            Ok(None) => {}
            Ok(Some((main_rs, plan))) => {
                generated += usize::from(dir.is_none());
                let module = format!("job_{}", modules.len());
                modules.push((
                    Module {
                        name: name.clone(),
                        text: as_module(&main_rs, &module),
                    },
                    plan,
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        generated >= 40,
        "only {generated} of {TYPE_CHECKED_SEEDS} generated jobs were accepted"
    );

    let package = "typecheck_all";
    let mut files = vec![(
        std::path::PathBuf::from("Cargo.toml"),
        format!(
            "[package]\nname = \"{package}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
             [lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n\
             stmtc-runtime = {{ path = {:?}, features = [\"regex\"] }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    )];
    let mut lib = String::from("//! Every accepted job's program, one module each.\n");
    for (i, (module, plan)) in modules.iter().enumerate() {
        lib.push_str(&format!(
            "/// {}\n#[allow(dead_code)]\nmod job_{i};\n",
            module.name
        ));
        files.push((format!("src/job_{i}.rs").into(), module.text.clone()));
        files.push((format!("plans/job_{i}.txt").into(), plan.clone()));
    }
    files.push(("src/lib.rs".into(), lib));
    let dir = shared_build::crate_dir(package);
    let _ = std::fs::remove_dir_all(dir.join("src"));
    shared_build::write_files(&dir, &files);
    let lock = fixtures.join("../Cargo.lock");
    std::fs::copy(&lock, dir.join("Cargo.lock")).expect("copy the workspace Cargo.lock");

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = shared_build::sanitized(&mut std::process::Command::new(cargo))
        .args([
            "check",
            "--release",
            "--quiet",
            "--message-format=short",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", shared_build::target())
        .output()
        .expect("run cargo check");
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut report = String::new();
        for line in stderr.lines().filter(|l| l.contains("error")).take(40) {
            let job = line
                .split_once("src/job_")
                .and_then(|(_, rest)| rest.split_once('.'))
                .and_then(|(i, _)| i.parse::<usize>().ok())
                .map_or("?", |i| modules[i].0.name.as_str());
            report.push_str(&format!("{job}: {line}\n"));
        }
        panic!(
            "accepted jobs whose programs do not type-check:\n{report}\n(all of cargo's output:)\n{stderr}"
        );
    }
    eprintln!(
        "type-checked {} accepted jobs ({generated} generated) in one crate",
        modules.len()
    );
}
