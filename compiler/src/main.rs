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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
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
                    let color = match color {
                        Color::Always => true,
                        Color::Never => false,
                        Color::Auto => std::io::stderr().is_terminal(),
                    };
                    eprint!("{}", checked.render_diagnostics(color));
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
