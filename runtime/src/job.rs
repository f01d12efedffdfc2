//! The harness of a generated job binary: command line (`--set`, `--quiet`,
//! `--threads`, `--explain`), connector options with run-time overrides, the
//! builders that turn options into reader/writer settings, and the exit
//! protocol (summary on success, `error: ...` and exit code 1 on failure).
//!
//! Generated code declares its tables ([`TableDecl`]) and a `run` function;
//! [`main`] does the rest. Option values were validated by the compiler;
//! overrides are validated here the same way, before anything runs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::sink::format::{CsvFormat, JsonFormat};
use crate::sink::print::PrintSink;
use crate::source::csv::CsvOptions;
use crate::source::datagen::{Datagen, FieldKind, FieldSpec};
use crate::source::json::JsonOptions;
use crate::source::{SharedInfo, SourceInfo};
use crate::value::Timestamp;

/// A table of the job as the compiler saw it: name and `WITH` options.
pub struct TableDecl {
    pub name: &'static str,
    pub options: &'static [(&'static str, &'static str)],
    /// Whether the job reads / writes the table (for progress and the summary).
    pub reads: bool,
    pub writes: bool,
}

/// Parsed command line.
#[derive(Debug, Default)]
pub struct Args {
    pub sets: Vec<(String, String, String)>,
    pub quiet: bool,
    pub threads: Option<usize>,
    /// `--memory-budget`: bytes for spools before they spill to disk.
    pub memory_budget: Option<u64>,
    pub explain: bool,
    pub help: bool,
    /// `--profile`: each pipeline's wall and CPU time on stderr at the end.
    pub profile: bool,
}

const USAGE: &str =
    "usage: JOB [--set TABLE.OPTION=VALUE]... [--quiet] [--threads N] [--explain] [--profile]

  --set TABLE.OPTION=VALUE  override a connector option at run time
                            (e.g. --set orders.path=/data/orders.csv); a datagen
                            table also takes --set TABLE.seed=N (reproducible
                            random fields)
  --quiet                   no progress and no summary
  --threads N               worker threads (default: all cores, or STMTC_THREADS)
  --memory-budget SIZE      memory for join and aggregate hash tables and rows that
                            wait (e.g. 512mb; default 40% of physical memory);
                            beyond it they spill to temporary files (STMTC_SPILL_DIR)
  --explain                 print the plan this binary was compiled from
  --profile                 print each pipeline's wall and CPU time to stderr at the end
                            (the slowest first), for finding where a job's time goes
";

/// Parses `args` (without the program name).
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args> {
    let mut out = Args::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String> {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| Error::new(format!("{name} needs a value\n{USAGE}")))
        };
        match flag.as_str() {
            "--quiet" | "-q" => out.quiet = true,
            "--explain" => out.explain = true,
            "--profile" => out.profile = true,
            "--help" | "-h" => out.help = true,
            "--threads" => {
                let v = value("--threads")?;
                let n: usize = v.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    Error::new(format!("--threads needs a positive number, found '{v}'"))
                })?;
                out.threads = Some(n);
            }
            "--memory-budget" => {
                let v = value("--memory-budget")?;
                let bytes = crate::memory_size::parse_size(&v).ok_or_else(|| {
                    Error::new(format!(
                        "--memory-budget needs a size such as 512mb or 2gb, found '{v}'"
                    ))
                })?;
                out.memory_budget = Some(bytes);
            }
            "--set" => {
                let v = value("--set")?;
                let (key, val) = v.split_once('=').ok_or_else(|| {
                    Error::new(format!("--set needs TABLE.OPTION=VALUE, found '{v}'"))
                })?;
                let (table, option) = key.split_once('.').ok_or_else(|| {
                    Error::new(format!("--set needs TABLE.OPTION=VALUE, found '{v}'"))
                })?;
                out.sets
                    .push((table.to_string(), option.to_string(), val.to_string()));
            }
            other => return Err(Error::new(format!("unknown argument '{other}'\n{USAGE}"))),
        }
    }
    Ok(out)
}

/// Options that decide what code was generated and cannot change at run time.
const FIXED_OPTIONS: &[&str] = &["connector", "format"];

/// Applies `--set` overrides to the declared options. An override must name
/// a table of the job and an option that table sets, or `path`.
pub fn resolve_options(
    tables: &[TableDecl],
    sets: &[(String, String, String)],
) -> Result<Vec<BTreeMap<String, String>>> {
    let mut resolved: Vec<BTreeMap<String, String>> = tables
        .iter()
        .map(|t| {
            t.options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect();
    for (table, option, value) in sets {
        let Some(i) = tables.iter().position(|t| t.name == table) else {
            let names: Vec<&str> = tables.iter().map(|t| t.name).collect();
            return Err(Error::new(format!(
                "--set {table}.{option}: the job has no table '{table}' (tables: {})",
                names.join(", ")
            )));
        };
        if FIXED_OPTIONS.contains(&option.as_str()) {
            return Err(Error::new(format!(
                "--set {table}.{option}: '{option}' is compiled into the job; change it in the job file and recompile"
            )));
        }
        // `seed` is stmtc's own and run-time only (Flink's datagen has no
        // such option, so a job file cannot set it): any datagen table takes it.
        let run_time_only =
            option == "seed" && resolved[i].get("connector").map(String::as_str) == Some("datagen");
        if !resolved[i].contains_key(option) && !run_time_only {
            let keys: Vec<&str> = resolved[i]
                .keys()
                .map(String::as_str)
                .filter(|k| !FIXED_OPTIONS.contains(k))
                .collect();
            return Err(Error::new(format!(
                "--set {table}.{option}: table '{table}' has no option '{option}' (it can override: {})",
                keys.join(", ")
            )));
        }
        check_value(option, value)
            .map_err(|m| Error::new(format!("--set {table}.{option}={value}: {m}")))?;
        resolved[i].insert(option.clone(), value.clone());
    }
    Ok(resolved)
}

/// Value checks mirroring the compiler's for the options a user overrides.
fn check_value(option: &str, value: &str) -> std::result::Result<(), String> {
    let boolean = |v: &str| v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false");
    match option {
        "csv.ignore-parse-errors"
        | "csv.allow-comments"
        | "csv.disable-quote-character"
        | "json.ignore-parse-errors"
        | "json.fail-on-missing-field"
        | "standard-error" => {
            if boolean(value) {
                Ok(())
            } else {
                Err("expected 'true' or 'false'".into())
            }
        }
        "number-of-rows" | "seed" => value
            .parse::<u64>()
            .map(|_| ())
            .map_err(|_| "expected a non-negative integer".into()),
        "csv.field-delimiter" | "csv.quote-character" | "csv.escape-character" => {
            single_char(value).map(|_| ())
        }
        "path" if value.is_empty() => Err("the path is empty".into()),
        _ => Ok(()),
    }
}

/// Java-style unescaping for delimiter options (`\t`, `\u0009`), as Flink does.
fn single_char(value: &str) -> std::result::Result<u8, String> {
    let unescaped = match value {
        "\\t" => "\t".to_string(),
        "\\n" => "\n".to_string(),
        "\\r" => "\r".to_string(),
        "\\\\" => "\\".to_string(),
        v if v.starts_with("\\u") && v.len() == 6 => u32::from_str_radix(&v[2..], 16)
            .ok()
            .and_then(char::from_u32)
            .map(String::from)
            .ok_or("expected a single character")?,
        v => v.to_string(),
    };
    match unescaped.as_bytes() {
        [b] => Ok(*b),
        _ => Err("expected a single (ASCII) character".into()),
    }
}

/// Everything a running job needs besides its generated code.
pub struct Context {
    pub threads: usize,
    /// Smallest byte range a file is split into for parallel reading
    /// (`STMTC_MIN_SPLIT_BYTES`, for tests that force many splits).
    pub min_split: u64,
    pub quiet: bool,
    options: Vec<BTreeMap<String, String>>,
    names: Vec<&'static str>,
    pub progress: Arc<Progress>,
    /// Progress counter index per table (reads, writes).
    counters: Vec<(Option<usize>, Option<usize>)>,
    /// Bytes all spools and join hash tables may hold in memory together.
    pub memory_budget: u64,
    /// The pool of `memory_budget` bytes they reserve from.
    pub memory: std::sync::Arc<crate::ops::memory::MemoryPool>,
    /// Where spools spill; removed when the job ends.
    pub spill: Arc<crate::ops::spool::SpillDir>,
    /// `--profile`: the wall and CPU time (seconds) of each pipeline run so
    /// far, by index.
    profile: Option<std::sync::Mutex<Vec<(usize, std::time::Duration, f64)>>>,
    /// Whether csv files are cut where their quote state is guessed
    /// ([`Context::plan_splits`]), and whether a cut was.
    guess_splits: bool,
    guessed: std::sync::atomic::AtomicBool,
}

/// `--profile`'s memory section: the budget's peak and, at that moment,
/// the operators that held it and the process's resident size.
fn memory_report(peak: &crate::ops::memory::PeakReport) -> String {
    const MB: f64 = 1024.0 * 1024.0;
    let hwm = crate::util::resident_bytes_of(true).unwrap_or(0);
    let mut out = format!(
        "memory: {:.1} MB reserved at the peak of {:.1} MB budget; resident then {:.1} MB \
         (process peak {:.1} MB); held then by:\n",
        peak.reserved as f64 / MB,
        peak.limit as f64 / MB,
        peak.rss as f64 / MB,
        hwm as f64 / MB,
    );
    for (label, bytes) in &peak.holders {
        let label = if label.is_empty() { "(unnamed)" } else { label };
        out.push_str(&format!("{:9.1} MB  {label}\n", *bytes as f64 / MB));
    }
    out
}

impl Context {
    /// `memory_budget` is the job's own (`SET 'stmtc.memory-budget'`), which
    /// `--memory-budget` overrides; without either, [`default_budget`].
    ///
    /// [`default_budget`]: crate::ops::memory::default_budget
    pub fn new(tables: &[TableDecl], args: &Args, memory_budget: Option<u64>) -> Result<Context> {
        Context::with_splits(tables, args, memory_budget, true)
    }

    /// [`Context::new`]; `guess_splits` false cuts files only where their
    /// quote state is known (the run after a guess was wrong). Guessing is
    /// off too when a sink prints: what a run printed cannot be taken back.
    pub fn with_splits(
        tables: &[TableDecl],
        args: &Args,
        memory_budget: Option<u64>,
        guess_splits: bool,
    ) -> Result<Context> {
        let budget = args
            .memory_budget
            .or(memory_budget)
            .unwrap_or_else(crate::ops::memory::default_budget);
        let options = resolve_options(tables, &args.sets)?;
        let mut progress = Progress::new(args.quiet);
        let mut counters = Vec::with_capacity(tables.len());
        for (t, opts) in tables.iter().zip(&options) {
            let read = t.reads.then(|| {
                // Total bytes for the progress bar; a missing path fails later, located.
                let total = opts
                    .get("path")
                    .and_then(|p| crate::source::files::list_files(std::path::Path::new(p)).ok())
                    .map_or(0, |files| {
                        files
                            .iter()
                            .filter_map(|f| std::fs::metadata(f).ok())
                            .map(|m| m.len())
                            .sum()
                    });
                progress.add_source(t.name, total)
            });
            let write = t.writes.then(|| progress.add_sink(t.name));
            counters.push((read, write));
        }
        Ok(Context {
            threads: args
                .threads
                .unwrap_or_else(crate::ops::parallel::default_threads),
            min_split: std::env::var("STMTC_MIN_SPLIT_BYTES")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|&n: &u64| n > 0)
                .unwrap_or(crate::source::files::MIN_SPLIT),
            quiet: args.quiet,
            names: tables.iter().map(|t| t.name).collect(),
            progress: Arc::new(progress),
            counters,
            memory_budget: budget,
            memory: if args.profile {
                crate::ops::memory::MemoryPool::profiled(budget)
            } else {
                crate::ops::memory::MemoryPool::new(budget)
            },
            spill: Arc::new(crate::ops::spool::SpillDir::new().with_budget(budget)),
            profile: args.profile.then(Default::default),
            guess_splits: guess_splits
                && !tables
                    .iter()
                    .zip(&options)
                    .any(|(t, o)| t.writes && o.get("connector").is_some_and(|c| c == "print")),
            guessed: std::sync::atomic::AtomicBool::new(false),
            options,
        })
    }

    /// The byte ranges a scan's threads read `files` in: exact cuts, or
    /// guessed ones (`files::plan_splits_guessing`) when this run may guess.
    pub fn plan_splits(
        &self,
        files: &[PathBuf],
        boundary: crate::source::files::Boundary,
    ) -> Result<Vec<crate::source::files::Split>> {
        use crate::source::files::{plan_splits_guessing, plan_splits_with_min, SPLITS_PER_THREAD};
        // Exact cuts in quoted csv read the file up to the last cut on one
        // thread first, so they stay one per thread; guessed cuts, and cuts
        // where no quote state matters, cost a seek each.
        let exact_costs_reads = boundary.quote.is_some();
        let parts = if self.threads > 1 && (self.guess_splits || !exact_costs_reads) {
            self.threads * SPLITS_PER_THREAD
        } else {
            self.threads
        };
        if !self.guess_splits {
            return plan_splits_with_min(files, parts, boundary, self.min_split);
        }
        let splits = plan_splits_guessing(files, parts, boundary, self.min_split)?;
        if splits.iter().any(|s| s.end_guessed) {
            self.guessed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(splits)
    }

    /// Whether this run cut a file where its quote state was guessed.
    pub fn guessed_splits(&self) -> bool {
        self.guessed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Runs pipeline `index` (the generated `task_<index>`), timing it
    /// under `--profile`.
    #[inline]
    pub fn run_task(&self, index: usize, task: impl FnOnce() -> Result<()>) -> Result<()> {
        let Some(times) = &self.profile else {
            return task();
        };
        let (started, cpu) = (std::time::Instant::now(), cpu_seconds());
        let result = task();
        let took = started.elapsed();
        let cpu = cpu_seconds() - cpu;
        times
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((index, took, cpu));
        result
    }

    /// The `--profile` report: the pipelines that ran, slowest first, with
    /// their wall time, share and description (`names[index]`).
    pub fn profile_report(&self, names: &[&str]) -> Option<String> {
        let times = self.profile.as_ref()?;
        let mut times = times.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let total: f64 = times.iter().map(|(_, t, _)| t.as_secs_f64()).sum();
        let total_cpu: f64 = times.iter().map(|(.., c)| c).sum();
        times.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut out = format!(
            "pipelines by wall time ({total:.3} s in all, {total_cpu:.3} s of CPU time):\n\
             {:>11} {:>6} {:>9} {:>6}\n",
            "wall", "share", "CPU", "cores"
        );
        for (index, took, cpu) in times {
            let secs = took.as_secs_f64();
            let share = if total > 0.0 {
                secs / total * 100.0
            } else {
                0.0
            };
            let name = names.get(index).copied().unwrap_or("");
            // How many cores the pipeline kept busy on average.
            let cores = if secs > 0.0 { cpu / secs } else { 0.0 };
            out.push_str(&format!(
                "{secs:9.3} s {share:5.1}% {cpu:7.3} s {cores:6.2}  pipeline {index}: {name}\n"
            ));
        }
        if let Some(peak) = self.memory.peak_report() {
            out.push_str(&memory_report(&peak));
        }
        Some(out)
    }

    /// The progress counter of a table the job reads.
    pub fn source_counter(&self, table: usize) -> &crate::progress::SourceCounter {
        let i = self.counters[table]
            .0
            .unwrap_or_else(|| unreachable!("table {table} is read"));
        &self.progress.sources[i]
    }

    /// The progress counter of a table the job writes.
    pub fn sink_counter(&self, table: usize) -> &crate::progress::SinkCounter {
        let i = self.counters[table]
            .1
            .unwrap_or_else(|| unreachable!("table {table} is written"));
        &self.progress.sinks[i]
    }

    pub fn option(&self, table: usize, key: &str) -> Option<&str> {
        self.options[table].get(key).map(String::as_str)
    }

    fn flag(&self, table: usize, key: &str) -> bool {
        self.option(table, key)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    fn char_option(&self, table: usize, key: &str) -> Result<Option<u8>> {
        self.option(table, key)
            .map(|v| {
                single_char(v).map_err(|m| {
                    Error::new(format!(
                        "table '{}': '{key}' = '{v}': {m}",
                        self.names[table]
                    ))
                })
            })
            .transpose()
    }

    /// `path`, relative to the current directory as in Flink.
    pub fn path(&self, table: usize) -> PathBuf {
        PathBuf::from(self.option(table, "path").unwrap_or_default())
    }

    pub fn source_info(&self, table: usize, columns: &[&str]) -> SharedInfo {
        let ignore = self.flag(table, "csv.ignore-parse-errors")
            || self.flag(table, "json.ignore-parse-errors");
        Arc::new(SourceInfo {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            ignore_parse_errors: ignore,
        })
    }

    pub fn csv_options(&self, table: usize) -> Result<CsvOptions> {
        let mut o = CsvOptions::default();
        if let Some(d) = self.char_option(table, "csv.field-delimiter")? {
            o.field_delimiter = d;
        }
        if self.flag(table, "csv.disable-quote-character") {
            o.quote = None;
        } else if let Some(q) = self.char_option(table, "csv.quote-character")? {
            o.quote = Some(q);
        }
        o.allow_comments = self.flag(table, "csv.allow-comments");
        o.escape = self.char_option(table, "csv.escape-character")?;
        o.null_literal = self
            .option(table, "csv.null-literal")
            .map(|s| s.as_bytes().to_vec());
        Ok(o)
    }

    pub fn json_options(&self, table: usize) -> Result<JsonOptions> {
        Ok(JsonOptions {
            fail_on_missing_field: self.flag(table, "json.fail-on-missing-field"),
            iso8601: self
                .option(table, "json.timestamp-format.standard")
                .is_some_and(|v| v.eq_ignore_ascii_case("ISO-8601")),
        })
    }

    pub fn csv_format(&self, table: usize) -> Result<CsvFormat> {
        let delimiter = self
            .char_option(table, "csv.field-delimiter")?
            .unwrap_or(b',');
        let quote = if self.flag(table, "csv.disable-quote-character") {
            None
        } else {
            Some(
                self.char_option(table, "csv.quote-character")?
                    .unwrap_or(b'"'),
            )
        };
        let escape = self.char_option(table, "csv.escape-character")?;
        let null_literal = self.option(table, "csv.null-literal").map(str::to_string);
        Ok(CsvFormat::new(delimiter, quote, escape, null_literal))
    }

    pub fn json_format(&self, table: usize, columns: &[&str]) -> JsonFormat {
        let mut f = JsonFormat::new(columns);
        f.iso8601 = self
            .option(table, "json.timestamp-format.standard")
            .is_some_and(|v| v.eq_ignore_ascii_case("ISO-8601"));
        f.decimal_plain = self.flag(table, "json.encode.decimal-as-plain-number");
        f
    }

    pub fn print_sink(&self, table: usize) -> PrintSink {
        PrintSink::new(
            self.option(table, "print-identifier"),
            self.flag(table, "standard-error"),
        )
    }

    /// The datagen generator of a table; `columns` are its physical columns.
    pub fn datagen(&self, table: usize, columns: &[&str]) -> Result<Datagen> {
        let name = self.names[table];
        let number = |key: &str| -> Result<Option<f64>> {
            self.option(table, key)
                .map(|v| {
                    v.trim().parse::<f64>().map_err(|_| {
                        Error::new(format!("table '{name}': '{key}' = '{v}' is not a number"))
                    })
                })
                .transpose()
        };
        let mut fields = Vec::with_capacity(columns.len());
        for col in columns {
            let key = |o: &str| format!("fields.{col}.{o}");
            let mut spec = FieldSpec::default();
            if self
                .option(table, &key("kind"))
                .is_some_and(|k| k.eq_ignore_ascii_case("sequence"))
            {
                let start = number(&key("start"))?.unwrap_or(0.0) as i64;
                let end = number(&key("end"))?.ok_or_else(|| {
                    Error::new(format!(
                        "table '{name}': sequence field '{col}' needs 'fields.{col}.end'"
                    ))
                })? as i64;
                spec.kind = FieldKind::Sequence { start, end };
            }
            spec.min = number(&key("min"))?;
            spec.max = number(&key("max"))?;
            if let Some(l) = number(&key("length"))? {
                spec.length = l as usize;
            }
            spec.null_rate = number(&key("null-rate"))?.unwrap_or(0.0);
            if let Some(v) = self.option(table, &key("max-past")) {
                spec.max_past_ms = parse_duration_ms(v).ok_or_else(|| {
                    Error::new(format!(
                        "table '{name}': 'fields.{col}.max-past' = '{v}' is not a duration"
                    ))
                })?;
            }
            fields.push(spec);
        }
        let rows = number("number-of-rows")?.map(|n| n as u64);
        let seed = number("seed")?.map(|n| n as u64);
        Datagen::new(fields, rows, seed, now())
    }
}

/// Flink durations: a number with an optional unit (default milliseconds).
fn parse_duration_ms(v: &str) -> Option<i64> {
    let v = v.trim();
    let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
    let n: i64 = digits.parse().ok()?;
    let factor = match v[digits.len()..].trim().to_ascii_lowercase().as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
        "min" | "m" | "minute" | "minutes" => 60_000,
        "h" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

fn now() -> Timestamp {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp::from_millis(d.as_millis() as i64)
}

/// CPU time (user and system) the process has used so far, in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return 0.0;
        }
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The job binary's `main`: parses the command line, runs `run`, prints the
/// summary, and maps failure to `error: ...` on stderr and exit 1.
/// `memory_budget` is the job's own budget (`SET 'stmtc.memory-budget'`);
/// `pipelines` describes each pipeline by index (for `--profile`).
pub fn main(
    plan: &str,
    tables: &[TableDecl],
    memory_budget: Option<u64>,
    pipelines: &[&str],
    run: fn(&mut Context) -> Result<()>,
) -> ExitCode {
    crate::util::fix_mmap_threshold();
    crate::signals::watch();
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {}", e.message());
            return ExitCode::from(2);
        }
    };
    if args.help {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if args.explain {
        print!("{plan}");
        return ExitCode::SUCCESS;
    }
    let mut guess_splits = true;
    let (ctx, result) = loop {
        let mut ctx = match Context::with_splits(tables, &args, memory_budget, guess_splits) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {}", e.message());
                return ExitCode::from(2);
            }
        };
        let ticker = ctx.progress.start_ticker();
        let result = run(&mut ctx);
        drop(ticker);
        match &result {
            // A run that guessed where a csv file's ranges start and failed
            // (a guess was wrong, or bad rows may be the work of one) is
            // run again with exact ranges; its sinks were not changed.
            Err(e) if ctx.guessed_splits() => {
                crate::signals::wait_if_stopping();
                if !args.quiet {
                    let why = if e.is_guessed_split() {
                        e.message()
                    } else {
                        "the run failed after reading csv files in ranges started where \
                         their quote state was guessed"
                    };
                    eprintln!(
                        "note: {why}; running the job again with ranges cut where the quote \
                         state is known"
                    );
                }
                guess_splits = false;
            }
            _ => break (ctx, result),
        }
    };
    if let Some(report) = ctx.profile_report(pipelines) {
        eprint!("{report}");
    }
    match result {
        Ok(()) => {
            ctx.progress.print_summary();
            let spilled = ctx.spill.written.load(std::sync::atomic::Ordering::Relaxed);
            if spilled > 0 && !args.quiet {
                eprintln!("spilled {spilled} bytes of waiting rows and join partitions to temporary files");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            crate::signals::wait_if_stopping();
            eprintln!("error: {}", e.message());
            eprintln!("the job failed; no sink was changed");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: &[TableDecl] = &[TableDecl {
        name: "orders",
        options: &[
            ("connector", "filesystem"),
            ("path", "a.csv"),
            ("format", "csv"),
        ],
        reads: true,
        writes: false,
    }];

    fn args(list: &[&str]) -> Result<Args> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn overrides_apply_and_are_validated() {
        let a = args(&["--set", "orders.path=/tmp/x.csv", "--quiet", "--threads=3"]).unwrap();
        assert!(a.quiet);
        assert_eq!(a.threads, Some(3));
        let resolved = resolve_options(TABLES, &a.sets).unwrap();
        assert_eq!(resolved[0]["path"], "/tmp/x.csv");
        let bad =
            |s: &str| resolve_options(TABLES, &args(&["--set", s]).unwrap().sets).unwrap_err();
        assert!(bad("users.path=x").message().contains("no table 'users'"));
        assert!(bad("orders.format=json")
            .message()
            .contains("compiled into the job"));
        assert!(bad("orders.pth=x")
            .message()
            .contains("has no option 'pth'"));
        assert!(args(&["--threads", "0"]).is_err());
        assert!(args(&["--bogus"]).is_err());
    }

    #[test]
    fn delimiters_unescape_like_flink() {
        assert_eq!(single_char("\\t"), Ok(b'\t'));
        assert_eq!(single_char("\\u0009"), Ok(b'\t'));
        assert_eq!(single_char(";"), Ok(b';'));
        assert!(single_char(";;").is_err());
    }
}
