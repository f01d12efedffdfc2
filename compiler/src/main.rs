//! The `stmtc` command line.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use stmtc::diagnostics::SourceFile;

#[derive(Parser)]
#[command(
    name = "stmtc",
    version,
    about = "Compiles a Flink SQL statement set into a native Rust program"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, bind and type-check a job file; report every error at once.
    Check {
        /// The job file (SET, CREATE TABLE/VIEW, INSERT, EXECUTE STATEMENT SET).
        job: PathBuf,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = DiagnosticFormat::Text)]
        format: DiagnosticFormat,
        /// Also print the bound statement set (tables, views, each INSERT's tree).
        #[arg(long)]
        print_bound: bool,
        /// Color the code frames: auto (when stderr is a terminal), always, never.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Generate the job crate: Cargo.toml, Cargo.lock, src/main.rs, plan.txt,
    /// plan.json, README.md and the vendored runtime.
    Compile {
        job: PathBuf,
        /// The crate folder to write.
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Package and binary name (default: from the job file name).
        #[arg(long)]
        name: Option<String>,
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Compile into a cache keyed by the generated code, build (once), and run.
    Run {
        job: PathBuf,
        /// Override a connector option: --set TABLE.OPTION=VALUE (repeatable).
        #[arg(long = "set", value_name = "TABLE.OPTION=VALUE")]
        sets: Vec<String>,
        /// No progress and no summary from the job.
        #[arg(long)]
        quiet: bool,
        /// Worker threads of the job.
        #[arg(long)]
        threads: Option<usize>,
        /// Cache folder (default: $STMTC_CACHE_DIR, else ~/.cache/stmtc).
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Print the merged plan of the whole statement set: one scan per source,
    /// shared subplans printed once and referenced by id.
    Explain {
        job: PathBuf,
        #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
        format: PlanFormat,
        /// Extra per-node details (repeatable), like Flink's ExplainDetail.
        #[arg(long, value_enum)]
        detail: Vec<Detail>,
        /// Compare with a committed plan file instead of printing; exit 1 with
        /// a unified diff when it is stale.
        #[arg(long, value_name = "PLAN_FILE")]
        check: Option<PathBuf>,
        /// Print the plan after lowering and after each rewrite (to stderr).
        #[arg(long)]
        trace_passes: bool,
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PlanFormat {
    Text,
    Json,
    Dot,
    Mermaid,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Detail {
    /// Per-node changelog mode ([I] = insert-only).
    Changelog,
    /// Per-node estimated row counts.
    Cost,
    /// Everything.
    All,
}

#[derive(Clone, Copy, ValueEnum)]
enum DiagnosticFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

fn read_job(path: &Path) -> Result<SourceFile, ExitCode> {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(path.display().to_string(), text)),
            Err(e) => {
                eprintln!(
                    "error: {}: not valid UTF-8 text (byte {})",
                    path.display(),
                    e.utf8_error().valid_up_to()
                );
                Err(ExitCode::from(2))
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            Err(ExitCode::from(2))
        }
    }
}

fn use_color(color: Color) -> bool {
    match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal(),
    }
}

fn report(checked: &stmtc::Checked, color: Color) -> ExitCode {
    eprint!("{}", checked.render_diagnostics(use_color(color)));
    let n = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == stmtc::diagnostics::Severity::Error)
        .count();
    eprintln!(
        "{}: {n} error{}",
        checked.file.name,
        if n == 1 { "" } else { "s" }
    );
    ExitCode::FAILURE
}

fn write_files(root: &Path, files: &[(PathBuf, String)]) -> std::io::Result<()> {
    for (path, text) in files {
        let target = root.join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Leave unchanged files alone so cargo sees nothing new.
        if std::fs::read_to_string(&target).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&target, text)?;
        }
    }
    Ok(())
}

fn cache_dir(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| std::env::var_os("STMTC_CACHE_DIR").map(PathBuf::from))
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("stmtc")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/stmtc")))
        .unwrap_or_else(|| PathBuf::from(".stmtc-cache"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Relative source paths resolve here, as in Flink; the planner sizes sources by them.
    let cwd = std::env::current_dir().ok();
    match cli.command {
        Command::Compile {
            job,
            output,
            name,
            color,
        } => {
            let file = match read_job(&job) {
                Ok(f) => f,
                Err(code) => return code,
            };
            let compiled = match stmtc::compile(
                file,
                &stmtc::RuntimeLocation::Vendored,
                name.as_deref(),
                cwd.as_deref(),
            ) {
                Ok(c) => c,
                Err(checked) => return report(&checked, color),
            };
            if let Err(e) = write_files(&output, &compiled.files) {
                eprintln!("error: cannot write {}: {e}", output.display());
                return ExitCode::from(2);
            }
            println!(
                "wrote {} (package {}): cd {} && cargo build --release && ./target/release/{}",
                output.display(),
                compiled.package,
                output.display(),
                compiled.package
            );
            ExitCode::SUCCESS
        }
        Command::Run {
            job,
            sets,
            quiet,
            threads,
            cache_dir: cache_flag,
            color,
        } => {
            let file = match read_job(&job) {
                Ok(f) => f,
                Err(code) => return code,
            };
            let cache = cache_dir(cache_flag);
            let cache = std::fs::create_dir_all(&cache)
                .and_then(|()| cache.canonicalize())
                .unwrap_or(cache);
            let (digest, runtime_files) = stmtc::runtime_crate();
            let runtime_dir = cache.join(format!("runtime-{}-{digest}", env!("CARGO_PKG_VERSION")));
            if let Err(e) = write_files(&runtime_dir, &runtime_files) {
                eprintln!("error: cannot write {}: {e}", runtime_dir.display());
                return ExitCode::from(2);
            }
            let runtime = stmtc::RuntimeLocation::Path(runtime_dir.display().to_string());
            // First compile names the package after the job; the cache key is the generated code.
            let compiled = match stmtc::compile(file.clone(), &runtime, None, cwd.as_deref()) {
                Ok(c) => c,
                Err(checked) => return report(&checked, color),
            };
            let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
            for (path, text) in &compiled.files {
                for b in path.to_string_lossy().bytes().chain(text.bytes()) {
                    hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
            }
            let package = format!("{}_{:012x}", compiled.package, hash >> 16);
            let compiled = match stmtc::compile(file, &runtime, Some(&package), cwd.as_deref()) {
                Ok(c) => c,
                Err(checked) => return report(&checked, color),
            };
            let crate_dir = cache.join("jobs").join(&package);
            if let Err(e) = write_files(&crate_dir, &compiled.files) {
                eprintln!("error: cannot write {}: {e}", crate_dir.display());
                return ExitCode::from(2);
            }
            let target = cache.join("target");
            let status = std::process::Command::new(
                std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
            )
            .args(["build", "--release", "--manifest-path"])
            .arg(crate_dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .status();
            match status {
                Ok(s) if s.success() => {}
                Ok(s) => {
                    eprintln!(
                        "error: building the job failed ({s}); the crate is in {}",
                        crate_dir.display()
                    );
                    return ExitCode::FAILURE;
                }
                Err(e) => {
                    eprintln!("error: cannot run cargo: {e}");
                    return ExitCode::from(2);
                }
            }
            let mut run = std::process::Command::new(target.join("release").join(&package));
            for s in &sets {
                run.arg("--set").arg(s);
            }
            if quiet {
                run.arg("--quiet");
            }
            if let Some(t) = threads {
                run.arg("--threads").arg(t.to_string());
            }
            match run.status() {
                Ok(s) if s.success() => ExitCode::SUCCESS,
                Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(1, 255) as u8)),
                Err(e) => {
                    eprintln!("error: cannot start the job binary: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Explain {
            job,
            format,
            detail,
            check,
            trace_passes,
            color,
        } => {
            let file = match read_job(&job) {
                Ok(f) => f,
                Err(code) => return code,
            };
            let all = detail.contains(&Detail::All);
            let options = stmtc::ExplainOptions {
                format: match format {
                    PlanFormat::Text => stmtc::ExplainFormat::Text,
                    PlanFormat::Json => stmtc::ExplainFormat::Json,
                    PlanFormat::Dot => stmtc::ExplainFormat::Dot,
                    PlanFormat::Mermaid => stmtc::ExplainFormat::Mermaid,
                },
                changelog: all || detail.contains(&Detail::Changelog),
                cost: all || detail.contains(&Detail::Cost),
                base_dir: std::env::current_dir().unwrap_or_default(),
            };
            let mut print_trace = |pass: &str, plan: &str| eprint!("== after {pass} ==\n{plan}\n");
            let trace: Option<stmtc::TraceFn<'_>> = if trace_passes {
                Some(&mut print_trace)
            } else {
                None
            };
            let plan = match stmtc::explain(file, &options, trace) {
                Ok(plan) => plan,
                Err(checked) => {
                    eprint!("{}", checked.render_diagnostics(use_color(color)));
                    let n = checked.diagnostics.len();
                    eprintln!(
                        "{}: {n} error{}",
                        checked.file.name,
                        if n == 1 { "" } else { "s" }
                    );
                    return ExitCode::FAILURE;
                }
            };
            let Some(committed) = check else {
                print!("{plan}");
                return ExitCode::SUCCESS;
            };
            let expected = match std::fs::read_to_string(&committed) {
                Ok(text) => text,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", committed.display());
                    return ExitCode::from(2);
                }
            };
            if expected == plan {
                println!("{}: up to date", committed.display());
                return ExitCode::SUCCESS;
            }
            let diff = similar::TextDiff::from_lines(&expected, &plan);
            eprint!(
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&committed.display().to_string(), "current plan")
            );
            eprintln!(
                "error: {} is stale; update it with `stmtc explain {} > {}`",
                committed.display(),
                job.display(),
                committed.display()
            );
            ExitCode::FAILURE
        }
        Command::Check {
            job,
            format,
            print_bound,
            color,
        } => {
            let file = match read_job(&job) {
                Ok(f) => f,
                Err(code) => return code,
            };
            let checked = stmtc::check(file);
            match format {
                DiagnosticFormat::Json => println!("{}", checked.diagnostics_json()),
                DiagnosticFormat::Text => {
                    eprint!("{}", checked.render_diagnostics(use_color(color)));
                    if checked.has_errors() {
                        let n = checked.diagnostics.len();
                        eprintln!(
                            "{}: {n} error{}",
                            checked.file.name,
                            if n == 1 { "" } else { "s" }
                        );
                    } else {
                        println!("{}: ok ({})", checked.file.name, checked.summary());
                    }
                }
            }
            if print_bound {
                print!("{}", checked.bound_text());
            }
            if checked.has_errors() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}
