//! The `stmtc` command line.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{value_parser, Arg, ArgAction, ArgMatches};
use stmtc::diagnostics::{render, Diagnostic, SourceFile, Span};

/// Generating the program makes millions of small allocations of tokens
/// (`quote`) and of their text. mimalloc serves them faster than glibc's
/// allocator (the TPC-H set: 131 -> 80 ms, bench/RESULTS.md "Issue 13, step
/// 12", when `syn` and `prettyplease` still formatted the program).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A parsed command line.
enum Command {
    Check {
        job: PathBuf,
        format: DiagnosticFormat,
        print_bound: bool,
        color: Color,
    },
    Compile {
        job: PathBuf,
        output: PathBuf,
        name: Option<String>,
        color: Color,
    },
    Run {
        job: PathBuf,
        sets: Vec<String>,
        quiet: bool,
        threads: Option<usize>,
        cache_dir: Option<PathBuf>,
        color: Color,
    },
    Explain {
        job: PathBuf,
        format: PlanFormat,
        detail: Vec<Detail>,
        check: Option<PathBuf>,
        trace_passes: bool,
        color: Color,
    },
}

/// The options that take one of a few words: each enum lists its words once.
trait Choice: Sized + Copy + 'static {
    /// The words and their values; the first is the default.
    const WORDS: &'static [(&'static str, Self)];

    /// What `--help` says of a word's value, if anything.
    fn help(self) -> Option<&'static str> {
        None
    }

    /// The option `--<name> <VALUE_NAME>` taking one of the words.
    fn arg(name: &'static str, value_name: &'static str) -> Arg {
        let values = Self::WORDS.iter().map(|(word, value)| {
            let possible = clap::builder::PossibleValue::new(*word);
            match value.help() {
                Some(help) => possible.help(help),
                None => possible,
            }
        });
        Arg::new(name)
            .long(name)
            .value_name(value_name)
            .value_parser(clap::builder::PossibleValuesParser::new(values))
    }

    fn from_word(word: &str) -> Self {
        Self::WORDS
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, v)| *v)
            .expect("clap only passes the listed words")
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PlanFormat {
    Text,
    Json,
    Dot,
    Mermaid,
}

impl Choice for PlanFormat {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("text", PlanFormat::Text),
        ("json", PlanFormat::Json),
        ("dot", PlanFormat::Dot),
        ("mermaid", PlanFormat::Mermaid),
    ];
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    Changelog,
    Cost,
    All,
}

impl Choice for Detail {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("changelog", Detail::Changelog),
        ("cost", Detail::Cost),
        ("all", Detail::All),
    ];

    fn help(self) -> Option<&'static str> {
        Some(match self {
            Detail::Changelog => "Per-node changelog mode ([I] = insert-only)",
            Detail::Cost => "Per-node estimated row counts",
            Detail::All => "Everything",
        })
    }
}

#[derive(Clone, Copy)]
enum DiagnosticFormat {
    Text,
    Json,
}

impl Choice for DiagnosticFormat {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("text", DiagnosticFormat::Text),
        ("json", DiagnosticFormat::Json),
    ];
}

#[derive(Clone, Copy)]
enum Color {
    Auto,
    Always,
    Never,
}

impl Choice for Color {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("auto", Color::Auto),
        ("always", Color::Always),
        ("never", Color::Never),
    ];
}

/// The command line's grammar (clap's builder: its derive macro would make
/// every build compile `syn`, see README.md "Run the tests").
fn command_line() -> clap::Command {
    let job = || {
        Arg::new("job")
            .required(true)
            .value_name("JOB")
            .value_parser(value_parser!(PathBuf))
    };
    let job_help = "The job file (SET, CREATE TABLE/VIEW, INSERT, EXECUTE STATEMENT SET)";
    // A one-of-words option with its first word as the default.
    fn choice<T: Choice>(name: &'static str, value_name: &'static str) -> Arg {
        T::arg(name, value_name).default_value(T::WORDS[0].0)
    }
    let color = || {
        choice::<Color>("color", "COLOR")
            .help("Color the code frames: auto (when stderr is a terminal), always, never")
    };
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    clap::Command::new("stmtc")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Compiles a Flink SQL statement set into a native Rust program")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            clap::Command::new("check")
                .about("Parse, bind and type-check a job file; report every error at once")
                .arg(job().help(job_help))
                .arg(
                    choice::<DiagnosticFormat>("format", "FORMAT").help("How to print diagnostics"),
                )
                .arg(flag(
                    "print-bound",
                    "Also print the bound statement set (tables, views, each INSERT's tree)",
                ))
                .arg(color()),
        )
        .subcommand(
            clap::Command::new("compile")
                .about(
                    "Generate the job crate: Cargo.toml, Cargo.lock, src/main.rs, plan.txt, \
                     plan.json, README.md and the vendored runtime",
                )
                .arg(job().help(job_help))
                .arg(
                    Arg::new("output")
                        .short('o')
                        .long("output")
                        .value_name("DIR")
                        .required(true)
                        .value_parser(value_parser!(PathBuf))
                        .help("The crate folder to write"),
                )
                .arg(
                    Arg::new("name")
                        .long("name")
                        .value_name("NAME")
                        .help("Package and binary name (default: from the job file name)"),
                )
                .arg(color()),
        )
        .subcommand(
            clap::Command::new("run")
                .about("Compile into a cache keyed by the generated code, build (once), and run")
                .arg(job().help(job_help))
                .arg(
                    Arg::new("set")
                        .long("set")
                        .value_name("TABLE.OPTION=VALUE")
                        .action(ArgAction::Append)
                        .help("Override a connector option: --set TABLE.OPTION=VALUE (repeatable)"),
                )
                .arg(flag("quiet", "No progress and no summary from the job"))
                .arg(
                    Arg::new("threads")
                        .long("threads")
                        .value_name("THREADS")
                        .value_parser(value_parser!(usize))
                        .help("Worker threads of the job"),
                )
                .arg(
                    Arg::new("cache-dir")
                        .long("cache-dir")
                        .value_name("DIR")
                        .value_parser(value_parser!(PathBuf))
                        .help("Cache folder (default: $STMTC_CACHE_DIR, else ~/.cache/stmtc)"),
                )
                .arg(color()),
        )
        .subcommand(
            clap::Command::new("explain")
                .about(
                    "Print the merged plan of the whole statement set: one scan per source, \
                     shared subplans printed once and referenced by id",
                )
                .arg(job().help(job_help))
                .arg(choice::<PlanFormat>("format", "FORMAT"))
                .arg(
                    Detail::arg("detail", "DETAIL")
                        .action(ArgAction::Append)
                        .help("Extra per-node details (repeatable), like Flink's ExplainDetail"),
                )
                .arg(
                    Arg::new("check")
                        .long("check")
                        .value_name("PLAN_FILE")
                        .value_parser(value_parser!(PathBuf))
                        .help(
                            "Compare with a committed plan file instead of printing; exit 1 \
                             with a unified diff when it is stale",
                        ),
                )
                .arg(flag(
                    "trace-passes",
                    "Print the plan after lowering and after each rewrite (to stderr)",
                ))
                .arg(color()),
        )
}

/// Reads the command line, or exits with clap's message (and `--help`).
fn parse_command_line() -> Command {
    let matches = command_line().get_matches();
    let (name, m) = matches.subcommand().expect("a subcommand is required");
    let path = |m: &ArgMatches, id: &str| m.get_one::<PathBuf>(id).cloned();
    let word = |m: &ArgMatches, id: &str| m.get_one::<String>(id).cloned().unwrap_or_default();
    let job = path(m, "job").expect("JOB is required");
    let color = Color::from_word(&word(m, "color"));
    match name {
        "check" => Command::Check {
            job,
            format: DiagnosticFormat::from_word(&word(m, "format")),
            print_bound: m.get_flag("print-bound"),
            color,
        },
        "compile" => Command::Compile {
            job,
            output: path(m, "output").expect("--output is required"),
            name: m.get_one::<String>("name").cloned(),
            color,
        },
        "run" => Command::Run {
            job,
            sets: m
                .get_many::<String>("set")
                .map(|v| v.cloned().collect())
                .unwrap_or_default(),
            quiet: m.get_flag("quiet"),
            threads: m.get_one::<usize>("threads").copied(),
            cache_dir: path(m, "cache-dir"),
            color,
        },
        _ => Command::Explain {
            job,
            format: PlanFormat::from_word(&word(m, "format")),
            detail: m
                .get_many::<String>("detail")
                .map(|v| v.map(|w| Detail::from_word(w)).collect())
                .unwrap_or_default(),
            check: path(m, "check"),
            trace_passes: m.get_flag("trace-passes"),
            color,
        },
    }
}

fn read_job(path: &Path) -> Result<SourceFile, ExitCode> {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(path.display().to_string(), text)),
            Err(e) => {
                eprint!("{}", invalid_utf8(path, e.as_bytes(), e.utf8_error()));
                Err(ExitCode::from(2))
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            Err(ExitCode::from(2))
        }
    }
}

/// `job.sql:3:7: error: not valid UTF-8 text ...` with a code frame at the
/// first bad byte. The file is shown lossily: up to that byte it is intact,
/// and the bad byte is the U+FFFD that replaced it.
fn invalid_utf8(path: &Path, bytes: &[u8], error: std::str::Utf8Error) -> String {
    let at = error.valid_up_to();
    let file = SourceFile::new(
        path.display().to_string(),
        String::from_utf8_lossy(bytes).into_owned(),
    );
    let diagnostic = Diagnostic::error(
        Span::new(at, at + char::REPLACEMENT_CHARACTER.len_utf8()),
        format!("not valid UTF-8 text: byte 0x{:02X}", bytes[at]),
    )
    .with_help("a job file must be UTF-8; save it in that encoding");
    render(&file, &[diagnostic], false)
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
        // Leave unchanged files alone so cargo sees nothing new. A changed
        // file is replaced through a rename: another `stmtc run` of the same
        // job (one cache, one crate folder) or its cargo never reads half a
        // file.
        if std::fs::read_to_string(&target).ok().as_deref() != Some(text.as_str()) {
            let name = target.file_name().unwrap_or_default().to_string_lossy();
            let temp = target.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
            std::fs::write(&temp, text)?;
            if let Err(e) = std::fs::rename(&temp, &target) {
                let _ = std::fs::remove_file(&temp);
                return Err(e);
            }
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

/// The children of `stmtc run` (cargo, then the job binary) and the signals
/// that stop them. Each child leads its own process group, so a signal
/// forwarded to the group also reaches cargo's rustc processes, and nothing
/// of a group outlives `stmtc run`, however `stmtc run` ends:
/// - SIGINT, SIGTERM or SIGHUP to stmtc is forwarded to the group; stmtc waits
///   for the child, starts no next step and exits with 128 + the signal;
/// - if stmtc is killed outright (SIGKILL), the child gets SIGKILL from the
///   kernel (`PR_SET_PDEATHSIG`) and a watchdog process kills the rest of
///   its group (rustc processes of a killed cargo would otherwise finish);
/// - when the child ends, whatever it left in its group is killed.
///
/// Children must be started from the main thread: the kernel sends the
/// parent-death signal when the thread that forked the child ends.
mod children {
    use std::io;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::process::{Command, ExitCode, ExitStatus};
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::time::Duration;

    const FORWARDED: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];
    /// How often the supervising loop looks for a signal to forward or an
    /// exited child; a signal handler cannot wake a `wait` without a race.
    const POLL: Duration = Duration::from_millis(25);

    /// A signal received and not yet forwarded to the running child.
    static PENDING: AtomicI32 = AtomicI32::new(0);
    /// The last signal received by stmtc, 0 while none was.
    static RECEIVED: AtomicI32 = AtomicI32::new(0);

    extern "C" fn record(signal: libc::c_int) {
        // Atomic stores are async-signal-safe; the supervising loop does the rest.
        PENDING.store(signal, Ordering::SeqCst);
        RECEIVED.store(signal, Ordering::SeqCst);
    }

    /// Records SIGINT, SIGTERM and SIGHUP instead of dying at once, so that
    /// they can be forwarded to the running child. A signal ignored when stmtc
    /// started (nohup, a background job of a script) stays ignored, for stmtc
    /// and its children.
    pub fn catch_signals() {
        for signal in FORWARDED {
            // SAFETY: sigaction with a zeroed struct, an empty mask and a handler
            // that only stores to atomics.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = record as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, &action, &mut old) == 0
                    && old.sa_sigaction == libc::SIG_IGN
                {
                    libc::sigaction(signal, &old, std::ptr::null_mut());
                }
            }
        }
    }

    /// The exit code of an interrupted `stmtc run` (130 for SIGINT, 143 for
    /// SIGTERM), once a signal was received.
    pub fn interrupted() -> Option<ExitCode> {
        match RECEIVED.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(ExitCode::from((128 + signal) as u8)),
        }
    }

    /// The exit code that reports a child's status: its own code, or
    /// 128 + the signal that killed it, as shells report it.
    pub fn exit_code(status: ExitStatus) -> ExitCode {
        match (status.code(), status.signal()) {
            (Some(code), _) => ExitCode::from(code as u8),
            (None, Some(signal)) => ExitCode::from((128 + signal) as u8),
            (None, None) => ExitCode::FAILURE,
        }
    }

    /// Runs `command` to its end in its own process group, forwarding the
    /// signals stmtc receives meanwhile, then kills what is left of the group.
    pub fn run(command: &mut Command) -> io::Result<ExitStatus> {
        let parent = std::process::id() as libc::pid_t;
        command.process_group(0);
        // SAFETY: the hook only calls prctl and getppid, both async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // stmtc died before prctl ran: the signal will never come.
                if libc::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
        let mut child = command.spawn()?;
        // spawn returns after exec, so the group exists and the child's
        // handlers are the defaults: a forwarded signal cannot be lost.
        let group = child.id() as libc::pid_t;
        let watchdog = Watchdog::start(group);
        loop {
            let signal = PENDING.swap(0, Ordering::SeqCst);
            if signal != 0 {
                // SAFETY: kill has no memory effects.
                unsafe { libc::kill(-group, signal) };
            }
            if exited(group) {
                break;
            }
            std::thread::sleep(POLL);
        }
        // The exited leader stays a zombie until `wait` reaps it, so the group
        // id cannot name another group yet.
        // SAFETY: kill has no memory effects.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        drop(watchdog);
        child.wait()
    }

    /// Whether the child `pid` has exited, without reaping it. An error
    /// (there is no such child) counts as exited, so `wait` reports it.
    fn exited(pid: libc::pid_t) -> bool {
        loop {
            // SAFETY: waitid writes into a zeroed siginfo_t we own.
            unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
                if libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) == 0 {
                    return info.si_pid() != 0;
                }
            }
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return true;
            }
        }
    }

    /// A forked helper that kills a process group when stmtc dies, even by
    /// SIGKILL: it blocks reading a pipe whose only writer is stmtc, and the
    /// kernel closes that end when stmtc exits, however it exits.
    struct Watchdog {
        pid: libc::pid_t,
        writer: libc::c_int,
    }

    impl Watchdog {
        /// None when no pipe or process could be made; the child still dies
        /// with stmtc, only its own children might not.
        fn start(group: libc::pid_t) -> Option<Watchdog> {
            let mut ends = [0; 2];
            // SAFETY: pipe2 writes two descriptors into `ends`.
            if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
                return None;
            }
            let [reader, writer] = ends;
            // SAFETY: between fork and _exit the helper only makes
            // async-signal-safe calls on memory it owns.
            match unsafe { libc::fork() } {
                0 => unsafe {
                    libc::close(writer);
                    for fd in 0..=2 {
                        libc::close(fd);
                    }
                    // Its own group and no handlers: a Ctrl-C to stmtc's
                    // terminal group must not end it before stmtc.
                    libc::setpgid(0, 0);
                    for signal in FORWARDED {
                        libc::signal(signal, libc::SIG_IGN);
                    }
                    let mut byte = 0u8;
                    while libc::read(reader, (&raw mut byte).cast(), 1) < 0
                        && *libc::__errno_location() == libc::EINTR
                    {}
                    libc::kill(-group, libc::SIGKILL);
                    libc::_exit(0)
                },
                -1 => {
                    // SAFETY: closing the descriptors pipe2 just made.
                    unsafe {
                        libc::close(reader);
                        libc::close(writer);
                    }
                    None
                }
                pid => {
                    // SAFETY: closing stmtc's copy of the reading end.
                    unsafe { libc::close(reader) };
                    Some(Watchdog { pid, writer })
                }
            }
        }
    }

    impl Drop for Watchdog {
        /// Lets the helper go (it kills the group, already empty or about to
        /// be) and reaps it.
        fn drop(&mut self) {
            // SAFETY: closing our descriptor and reaping our own child.
            unsafe {
                libc::close(self.writer);
                let mut status = 0;
                while libc::waitpid(self.pid, &mut status, 0) < 0
                    && *libc::__errno_location() == libc::EINTR
                {}
            }
        }
    }
}

fn main() -> ExitCode {
    // Relative source paths resolve here, as in Flink; the planner sizes sources by them.
    let cwd = std::env::current_dir().ok();
    match parse_command_line() {
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
            if let Some(warning) = compiled.sizing_warning(cwd.as_deref()) {
                eprintln!("warning: {warning}");
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
            children::catch_signals();
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
            if let Some(code) = children::interrupted() {
                return code;
            }
            let target = cache.join("target");
            let mut build = std::process::Command::new(
                std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
            );
            build
                .args(["build", "--release", "--manifest-path"])
                .arg(crate_dir.join("Cargo.toml"))
                .env("CARGO_TARGET_DIR", &target);
            let status = children::run(&mut build);
            if let Some(code) = children::interrupted() {
                return code;
            }
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
            let status = children::run(&mut run);
            if let Some(code) = children::interrupted() {
                return code;
            }
            match status {
                Ok(s) => children::exit_code(s),
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
