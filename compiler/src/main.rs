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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
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
            let trace: Option<&mut dyn FnMut(&str, &str)> = if trace_passes {
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
