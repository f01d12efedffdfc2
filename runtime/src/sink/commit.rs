//! Filesystem sinks with staging and an all-or-nothing commit across every
//! sink of a job.
//!
//! Layout: a sink `path` is a directory of part files named like Flink's,
//! `part-<uuid>-task-<n>-file-<m>` in batch mode and `part-<uuid>-<n>-<m>` in
//! streaming mode ([`PartNames`]; one uuid per sink per run, `n` the writing
//! thread, `m` the file of that thread). While a job runs, its files live in
//! `<path>/.stmtc-staging/` — hidden from readers, as Flink hides names
//! starting with `.` — and the visible content of `path` is untouched.
//!
//! Commit protocol (all sinks together):
//! 1. every part file is flushed (and fsynced with `STMTC_FSYNC=1`);
//! 2. the *commit point*: `_COMMITTING` is atomically renamed into place in the
//!    first sink's staging directory; it lists every sink's directory, mode
//!    (`append`/`overwrite`) and new part files;
//! 3. each sink is applied: for `overwrite`, visible files not among the new
//!    parts are deleted; the new parts are renamed into `path`; the staging
//!    directories are removed, the first sink's (holding `_COMMITTING`) last.
//!
//! Recovery (at the start of every job, [`Job::begin`]): if a sink's staging
//! directory holds `_COMMITTING`, the killed job had committed, so step 3 is
//! replayed for every sink it lists (idempotent); any other staging directory
//! is the leftover of a job that died before committing and is deleted. So a
//! job killed at any moment leaves each sink either fully old or fully new.
//!
//! Limits: jobs must not write the same sink directory concurrently (a staging
//! directory owned by a live process is reported as an error); recovery only
//! sees the sinks of the job being started.

use super::format::RowFormat;
use crate::error::{Error, Result};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const STAGING_DIR: &str = ".stmtc-staging";
const COMMIT_FILE: &str = "_COMMITTING";
const OWNER_FILE: &str = "_OWNER";

/// `INSERT INTO` appends new part files; `INSERT OVERWRITE` replaces the content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMode {
    Append,
    Overwrite,
}

/// One filesystem sink of the job.
#[derive(Clone, Debug)]
pub struct SinkTarget {
    pub path: PathBuf,
    pub mode: WriteMode,
}

/// The filesystem sinks of a running job and their staging directories.
#[derive(Debug)]
pub struct Job {
    sinks: Vec<StagedSink>,
    names: PartNames,
}

/// How part files are named: Flink's batch file sink writes
/// `part-<uuid>-task-<n>-file-<m>`, its streaming one `part-<uuid>-<n>-<m>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PartNames {
    #[default]
    Batch,
    Streaming,
}

#[derive(Debug)]
struct StagedSink {
    target: SinkTarget,
    staging: PathBuf,
    uuid: String,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

impl Job {
    /// Recovers leftovers of earlier runs, then creates fresh staging directories.
    pub fn begin(targets: &[SinkTarget]) -> Result<Job> {
        Self::begin_named(targets, PartNames::Batch)
    }

    /// [`Job::begin`] with the part-file names of `names`' runtime mode.
    pub fn begin_named(targets: &[SinkTarget], names: PartNames) -> Result<Job> {
        recover(targets)?;
        let mut sinks = Vec::with_capacity(targets.len());
        for t in targets {
            let staging = t.path.join(STAGING_DIR);
            fs::create_dir_all(&staging).map_err(io(&staging))?;
            fs::write(staging.join(OWNER_FILE), std::process::id().to_string())
                .map_err(io(&staging))?;
            sinks.push(StagedSink {
                target: t.clone(),
                staging,
                uuid: crate::util::random_uuid(),
            });
        }
        Ok(Job { sinks, names })
    }

    /// A writer for part file `file` of thread `task` of sink `sink`.
    pub fn part_writer<F: RowFormat>(
        &self,
        sink: usize,
        task: usize,
        file: usize,
        format: F,
    ) -> PartWriter<F> {
        let s = &self.sinks[sink];
        let name = match self.names {
            PartNames::Batch => format!("part-{}-task-{}-file-{}", s.uuid, task, file),
            PartNames::Streaming => format!("part-{}-{}-{}", s.uuid, task, file),
        };
        PartWriter {
            path: s.staging.join(&name),
            file: None,
            // Grows with the rows written (a job of 22 sinks writing a few
            // rows each held 23 MB of empty buffers at its peak).
            buf: Vec::new(),
            format,
            rows: 0,
        }
    }

    /// Commits every sink together (see the module doc). Consumes the job.
    pub fn commit(self) -> Result<()> {
        if self.sinks.is_empty() {
            return Ok(());
        }
        // The manifest: one line per sink: mode, directory, then its part names.
        let mut manifest = String::new();
        for s in &self.sinks {
            let mut parts: Vec<String> = fs::read_dir(&s.staging)
                .map_err(io(&s.staging))?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("part-"))
                .collect();
            parts.sort();
            let mode = match s.target.mode {
                WriteMode::Append => "append",
                WriteMode::Overwrite => "overwrite",
            };
            manifest.push_str(mode);
            manifest.push('\t');
            manifest.push_str(&s.target.path.to_string_lossy());
            for p in parts {
                manifest.push('\t');
                manifest.push_str(&p);
            }
            manifest.push('\n');
        }
        let first = &self.sinks[0].staging;
        let tmp = first.join("_COMMITTING.tmp");
        {
            let mut f = File::create(&tmp).map_err(io(&tmp))?;
            f.write_all(manifest.as_bytes()).map_err(io(&tmp))?;
            f.sync_all().map_err(io(&tmp))?;
        }
        let committed = first.join(COMMIT_FILE);
        fs::rename(&tmp, &committed).map_err(io(&committed))?;
        sync_dir(first);
        // Crash tests kill the process right after the commit point to check
        // that the next run rolls the commit forward.
        if std::env::var_os("STMTC_TEST_CRASH_AFTER_COMMIT_POINT").is_some() {
            std::process::abort();
        }
        apply_manifest(&manifest, first)
    }

    /// Abandons the job: removes its staging directories (a failed run).
    pub fn abort(self) {
        for s in &self.sinks {
            let _ = fs::remove_dir_all(&s.staging);
        }
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Step 3 of the protocol; idempotent so recovery can replay it.
fn apply_manifest(manifest: &str, commit_dir: &Path) -> Result<()> {
    for line in manifest.lines() {
        let mut cols = line.split('\t');
        let (Some(mode), Some(dir)) = (cols.next(), cols.next()) else {
            continue;
        };
        let dir = PathBuf::from(dir);
        let parts: Vec<&str> = cols.collect();
        let staging = dir.join(STAGING_DIR);
        if mode == "overwrite" {
            for entry in fs::read_dir(&dir).map_err(io(&dir))? {
                let entry = entry.map_err(io(&dir))?;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name == STAGING_DIR || parts.contains(&name.as_ref()) {
                    continue;
                }
                let p = entry.path();
                if p.is_dir() {
                    fs::remove_dir_all(&p).map_err(io(&p))?;
                } else {
                    fs::remove_file(&p).map_err(io(&p))?;
                }
            }
        }
        for part in &parts {
            let from = staging.join(part);
            if from.exists() {
                let to = dir.join(part);
                fs::rename(&from, &to).map_err(io(&to))?;
            }
        }
        sync_dir(&dir);
        if staging != commit_dir {
            let _ = fs::remove_dir_all(&staging);
        }
    }
    fs::remove_dir_all(commit_dir).map_err(io(commit_dir))?;
    Ok(())
}

fn process_alive(pid: u32) -> bool {
    pid != std::process::id() && Path::new(&format!("/proc/{pid}")).exists()
}

/// Rolls committed leftovers forward and uncommitted ones back.
fn recover(targets: &[SinkTarget]) -> Result<()> {
    // First replay every commit found, then delete what is left.
    for t in targets {
        let staging = t.path.join(STAGING_DIR);
        let committed = staging.join(COMMIT_FILE);
        if let Ok(manifest) = fs::read_to_string(&committed) {
            apply_manifest(&manifest, &staging)?;
        }
    }
    for t in targets {
        let staging = t.path.join(STAGING_DIR);
        if !staging.exists() {
            continue;
        }
        if let Some(pid) = fs::read_to_string(staging.join(OWNER_FILE))
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            if process_alive(pid) && Path::new("/proc/self").exists() {
                // Only trust the pid check where /proc exists; a live owner means
                // another job is writing this sink right now.
                let cmd = fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let me = fs::read_to_string("/proc/self/cmdline").unwrap_or_default();
                if cmd.split('\0').next() == me.split('\0').next() {
                    return Err(Error::new(format!(
                        "{}: another job (pid {pid}) is writing this sink",
                        t.path.display()
                    )));
                }
            }
        }
        fs::remove_dir_all(&staging).map_err(io(&staging))?;
    }
    Ok(())
}

/// Whether part files are fsynced before the commit (`STMTC_FSYNC=1`).
fn durable() -> bool {
    std::env::var_os("STMTC_FSYNC").is_some_and(|v| v == "1")
}

/// Buffer size at which a part writer hands its bytes to the OS.
const FLUSH_AT: usize = 1 << 20;

/// Writes rows of one part file. The file is created on the first flush, so a
/// thread that writes no rows leaves no empty file (as Flink).
pub struct PartWriter<F: RowFormat> {
    path: PathBuf,
    file: Option<File>,
    buf: Vec<u8>,
    pub format: F,
    rows: u64,
}

impl<F: RowFormat> PartWriter<F> {
    /// Writes one row: `fields` calls `format.field` once per column.
    #[inline]
    pub fn write_row(&mut self, fields: impl FnOnce(&mut F, &mut Vec<u8>)) -> Result<()> {
        self.format.begin_row(&mut self.buf);
        fields(&mut self.format, &mut self.buf);
        self.format.end_row(&mut self.buf);
        self.rows += 1;
        if self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    fn flush(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if self.file.is_none() {
            self.file = Some(File::create(&self.path).map_err(io(&self.path))?);
        }
        if let Some(f) = self.file.as_mut() {
            f.write_all(&self.buf).map_err(io(&self.path))?;
        }
        self.buf.clear();
        Ok(())
    }

    /// Flushes (and, with `STMTC_FSYNC=1`, fsyncs); returns the number of rows
    /// written. The commit is atomic against a killed process either way (the
    /// data is in the page cache before the rename); fsync also makes it
    /// survive a power loss, at a cost of seconds per GB.
    pub fn finish(mut self) -> Result<u64> {
        self.flush()?;
        if let Some(f) = self.file.take() {
            if durable() {
                f.sync_all().map_err(io(&self.path))?;
            }
        }
        Ok(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::format::CsvFormat;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn append_overwrite_and_recovery() {
        let root = std::env::temp_dir().join(format!("stmtc-commit-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let a = SinkTarget {
            path: root.join("a"),
            mode: WriteMode::Append,
        };
        let mut b = SinkTarget {
            path: root.join("b"),
            mode: WriteMode::Overwrite,
        };
        let run = |targets: &[SinkTarget], rows: u64| {
            let job = Job::begin(targets).unwrap();
            for s in 0..targets.len() {
                let mut w = job.part_writer(s, 0, 0, CsvFormat::default());
                for i in 0..rows {
                    w.write_row(|f, out| f.field(out, &(i as i64))).unwrap();
                }
                w.finish().unwrap();
            }
            job
        };
        run(&[a.clone(), b.clone()], 2).commit().unwrap();
        run(&[a.clone(), b.clone()], 3).commit().unwrap();
        assert_eq!(names(&a.path).len(), 2, "append keeps both runs");
        let bn = names(&b.path);
        assert_eq!(bn.len(), 1, "overwrite keeps the last run");
        assert_eq!(
            fs::read_to_string(b.path.join(&bn[0])).unwrap(),
            "0\n1\n2\n"
        );
        // A run that dies before committing leaves the old content; the next run cleans up.
        let job = run(&[a.clone(), b.clone()], 5);
        std::mem::forget(job);
        assert_eq!(names(&a.path).len(), 3, "staging dir + 2 parts");
        Job::begin(&[a.clone(), b.clone()]).unwrap().abort();
        assert_eq!(names(&a.path).len(), 2);
        assert_eq!(names(&b.path), bn);
        // Overwrite with zero rows empties the directory.
        b.mode = WriteMode::Overwrite;
        run(std::slice::from_ref(&b), 0).commit().unwrap();
        assert!(names(&b.path).is_empty());
        fs::remove_dir_all(&root).unwrap();
    }
}
