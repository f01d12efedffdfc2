//! Files of a `filesystem` source: listing a `path` the way Flink does, cutting
//! files into byte ranges that start on record boundaries (for parallel scans),
//! and reading a range through one reusable buffer.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Files to read for `path`: the file itself, or every visible regular file
/// below the directory (recursively), skipping names that start with `.` or `_`
/// (Flink's hidden-file filter, which also hides our staging directories).
/// Sorted by path so that scans are deterministic.
pub fn list_files(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    walk(path, &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        let p = entry.path();
        let ft = entry.file_type().map_err(|e| Error::io(&p, e))?;
        if ft.is_dir() {
            walk(&p, out)?;
        } else if ft.is_file() || (ft.is_symlink() && p.is_file()) {
            out.push(p);
        }
    }
    Ok(())
}

/// A byte range of one file; records starting in `[start, end)` belong to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub path: PathBuf,
    /// Index of the file in the source's file list (keeps output order stable).
    pub file_index: usize,
    pub start: u64,
    pub end: u64,
    /// Whether `start` is the file's beginning (line numbers are then exact
    /// without counting).
    pub first: bool,
    /// Whether `end` was guessed ([`plan_splits_guessing`]): the next range
    /// starts there as if outside quotes, and the reader of this one checks
    /// that its last record ends exactly there.
    pub end_guessed: bool,
}

/// How record boundaries are found when splitting: newline-delimited json can
/// split at any newline; csv with quoting must not split inside a quoted field.
#[derive(Clone, Copy, Debug)]
pub struct Boundary {
    pub quote: Option<u8>,
    pub escape: Option<u8>,
}

/// Smallest range worth its own thread: below it, thread start-up costs more.
pub const MIN_SPLIT: u64 = 8 << 20;

/// Ranges per scan thread (`job::Context::plan_splits`), each at least
/// [`MIN_SPLIT`]. Threads pull ranges from a shared counter, so with
/// several each a thread the host delays hands its later ranges to the
/// others instead of leaving them idle at the end: with one range per
/// thread a 2-core scan of bench/job.sql kept 1.82 cores busy, with four
/// 1.9.
pub const SPLITS_PER_THREAD: usize = 4;

/// Cuts every file into about `parts_per_file` ranges at record boundaries
/// (fewer for small files). Boundaries inside quoted csv fields are avoided by
/// tracking quote parity from the file start (a newline is a record boundary
/// when an even number of unescaped quote chars precede it).
pub fn plan_splits(files: &[PathBuf], parts: usize, boundary: Boundary) -> Result<Vec<Split>> {
    plan_splits_with_min(files, parts, boundary, MIN_SPLIT)
}

/// [`plan_splits`] with an explicit minimum range size (tests use tiny ones).
pub fn plan_splits_with_min(
    files: &[PathBuf],
    parts: usize,
    boundary: Boundary,
    min_split: u64,
) -> Result<Vec<Split>> {
    cut(files, parts, boundary, min_split, false)
}

/// [`plan_splits_with_min`] without reading each file up to its last cut.
/// Finding a boundary inside a quoted csv field means knowing the quote
/// state there, which only reading from the file's start tells: on one
/// thread, before any range is read (a tenth of a second per 600 MB, and
/// more of the file the more threads). Here a range starts after the first
/// line break at or after its cut, as if outside quotes, and the range
/// before it is marked `end_guessed`: its reader, which knows the quote
/// state, fails with [`Error::guessed_split`] if its last record does not
/// end exactly there (a quoted field held that line break), and the job
/// runs again with exact ranges (`job::main`).
pub fn plan_splits_guessing(
    files: &[PathBuf],
    parts: usize,
    boundary: Boundary,
    min_split: u64,
) -> Result<Vec<Split>> {
    cut(files, parts, boundary, min_split, boundary.quote.is_some())
}

fn cut(
    files: &[PathBuf],
    parts: usize,
    boundary: Boundary,
    min_split: u64,
    guess: bool,
) -> Result<Vec<Split>> {
    let mut out = Vec::new();
    for (file_index, path) in files.iter().enumerate() {
        let len = std::fs::metadata(path)
            .map_err(|e| Error::io(path, e))?
            .len();
        let n = (len / min_split.max(1)).clamp(1, parts.max(1) as u64);
        let mut cuts = vec![0u64];
        if n > 1 {
            let guesses: Vec<u64> = (1..n).map(|i| len * i / n).collect();
            let found = if guess {
                // Every line break ends a record when quotes are not tracked.
                let lines = Boundary {
                    quote: None,
                    escape: None,
                };
                find_boundaries(path, &guesses, lines)?
            } else {
                find_boundaries(path, &guesses, boundary)?
            };
            cuts.extend(found);
        }
        cuts.push(len);
        cuts.dedup();
        for w in cuts.windows(2) {
            if w[0] < w[1] || len == 0 {
                out.push(Split {
                    path: path.clone(),
                    file_index,
                    start: w[0],
                    end: w[1],
                    first: w[0] == 0,
                    end_guessed: guess && w[1] < len,
                });
            }
        }
        if len == 0 {
            out.push(Split {
                path: path.clone(),
                file_index,
                start: 0,
                end: 0,
                first: true,
                end_guessed: false,
            });
        }
    }
    Ok(out)
}

/// For each guess (ascending), the offset just after the first record-ending
/// newline at or after it.
fn find_boundaries(path: &Path, guesses: &[u64], b: Boundary) -> Result<Vec<u64>> {
    find_boundaries_in_chunks(path, guesses, b, 1 << 20)
}

/// [`find_boundaries`], reading `chunk` bytes at a time (tests use tiny chunks).
fn find_boundaries_in_chunks(
    path: &Path,
    guesses: &[u64],
    b: Boundary,
    chunk: usize,
) -> Result<Vec<u64>> {
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = vec![0u8; chunk];
    let mut out = Vec::with_capacity(guesses.len());
    let mut pos = 0u64; // file offset of buf[0]
    let mut inside = false; // inside a quoted field at `pos`
    let mut pending_escape = false;
    let mut gi = 0;
    let track_quotes = b.quote.is_some();
    loop {
        if gi == guesses.len() {
            break;
        }
        // Without quoting, jump straight to the guess.
        if !track_quotes && pos < guesses[gi] {
            pos = guesses[gi];
            f.seek(SeekFrom::Start(pos))
                .map_err(|e| Error::io(path, e))?;
        }
        let n = read_full(&mut f, &mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        let mut i = 0;
        if let Some(q) = b.quote {
            // Jump from one byte that matters to the next (memchr): quotes and
            // escapes always, newlines only outside quotes at or after a guess.
            while i < n && gi < guesses.len() {
                if pending_escape {
                    pending_escape = false;
                    i += 1;
                    continue;
                }
                let guess_at = usize::try_from(guesses[gi].saturating_sub(pos)).unwrap_or(n);
                let found = if !inside && i >= guess_at {
                    match b.escape {
                        Some(e) => memchr::memchr3(q, e, b'\n', &chunk[i..]),
                        None => memchr::memchr2(q, b'\n', &chunk[i..]),
                    }
                } else {
                    let limit = if inside { n } else { guess_at.min(n) };
                    let hay = &chunk[i..limit];
                    let hit = match b.escape {
                        Some(e) => memchr::memchr2(q, e, hay),
                        None => memchr::memchr(q, hay),
                    };
                    if hit.is_none() {
                        i = limit;
                        continue;
                    }
                    hit
                };
                let Some(k) = found else {
                    break;
                };
                i += k;
                let c = chunk[i];
                if Some(c) == b.escape {
                    pending_escape = true;
                } else if c == q {
                    inside = !inside;
                } else {
                    let off = pos + i as u64;
                    out.push(off + 1);
                    gi += 1;
                    while gi < guesses.len() && guesses[gi] <= off {
                        gi += 1;
                    }
                }
                i += 1;
            }
            pos += n as u64;
            continue;
        }
        while i < n && gi < guesses.len() {
            let c = chunk[i];
            let off = pos + i as u64;
            if pending_escape {
                pending_escape = false;
            } else if Some(c) == b.escape {
                pending_escape = true;
            } else if Some(c) == b.quote {
                inside = !inside;
            } else if c == b'\n' && !inside && off >= guesses[gi] {
                out.push(off + 1);
                gi += 1;
                while gi < guesses.len() && guesses[gi] <= off {
                    gi += 1;
                }
                if !track_quotes {
                    break;
                }
            }
            i += 1;
        }
        if !track_quotes {
            // Continue after the boundary we found (or the end of this chunk).
            pos += i as u64;
            if gi < guesses.len() && pos < guesses[gi] {
                continue;
            }
            f.seek(SeekFrom::Start(pos))
                .map_err(|e| Error::io(path, e))?;
        } else {
            pos += n as u64;
        }
    }
    out.dedup();
    Ok(out)
}

fn read_full(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads a [`Split`] through one growable buffer. Readers ask for more data when
/// a record does not fit in what is buffered; bytes already consumed are
/// dropped from the front first.
pub struct RangeBuffer {
    file: File,
    pub path: PathBuf,
    pub buf: Vec<u8>,
    /// Valid bytes are `buf[head..tail]`.
    pub head: usize,
    pub tail: usize,
    /// File offset of `buf[0]`.
    pub base: u64,
    /// End of the split: records starting at or after it are not ours.
    pub end: u64,
    eof: bool,
    /// Bytes read so far (for progress).
    pub bytes_read: u64,
}

const BUF_SIZE: usize = 1 << 20;

impl RangeBuffer {
    pub fn open(split: &Split) -> Result<Self> {
        let mut file = File::open(&split.path).map_err(|e| Error::io(&split.path, e))?;
        if split.start > 0 {
            file.seek(SeekFrom::Start(split.start))
                .map_err(|e| Error::io(&split.path, e))?;
        }
        Ok(RangeBuffer {
            file,
            path: split.path.clone(),
            buf: vec![0u8; BUF_SIZE],
            head: 0,
            tail: 0,
            base: split.start,
            end: split.end,
            eof: false,
            bytes_read: 0,
        })
    }

    /// File offset of `buf[head]`.
    #[inline]
    pub fn head_offset(&self) -> u64 {
        self.base + self.head as u64
    }

    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.buf[self.head..self.tail]
    }

    pub fn is_eof(&self) -> bool {
        self.eof
    }

    /// Reads more bytes, keeping `buf[head..tail]`; returns false at end of file.
    pub fn fill(&mut self) -> Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.head > 0 {
            self.buf.copy_within(self.head..self.tail, 0);
            self.base += self.head as u64;
            self.tail -= self.head;
            self.head = 0;
        }
        if self.tail == self.buf.len() {
            let n = self.buf.len() * 2;
            self.buf.resize(n, 0);
        }
        loop {
            match self.file.read(&mut self.buf[self.tail..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(k) => {
                    self.tail += k;
                    self.bytes_read += k as u64;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.path, e)),
            }
        }
    }
}

/// 1-based line number of file offset `offset` (counts newlines before it; used
/// only to report errors in splits that do not start at the file's beginning).
pub fn line_of_offset(path: &Path, offset: u64) -> u64 {
    let Ok(mut f) = File::open(path) else {
        return 0;
    };
    let mut buf = vec![0u8; 1 << 20];
    let mut remaining = offset;
    let mut lines = 1u64;
    while remaining > 0 {
        let want = remaining.min(buf.len() as u64) as usize;
        match f.read(&mut buf[..want]) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
                remaining -= n as u64;
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_visible_files_recursively() {
        let dir = std::env::temp_dir().join(format!("stmtc-list-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::create_dir_all(dir.join(".staging")).unwrap();
        for f in [
            "b.csv",
            "a.csv",
            ".hidden",
            "_SUCCESS",
            "sub/c.csv",
            ".staging/x.csv",
        ] {
            std::fs::write(dir.join(f), "1\n").unwrap();
        }
        let files = list_files(&dir).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.csv", "b.csv", "sub/c.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn boundaries_skip_quoted_newlines() {
        let dir = std::env::temp_dir().join(format!("stmtc-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("q.csv");
        std::fs::write(&p, b"a,\"x\ny\"\nb,2\nc,3\n").unwrap();
        let q = Boundary {
            quote: Some(b'"'),
            escape: None,
        };
        // A guess inside the quoted field moves past its closing newline.
        assert_eq!(find_boundaries(&p, &[3], q).unwrap(), vec![8]);
        let nq = Boundary {
            quote: None,
            escape: None,
        };
        assert_eq!(find_boundaries(&p, &[3], nq).unwrap(), vec![5]);
        assert_eq!(find_boundaries(&p, &[3, 9], nq).unwrap(), vec![5, 12]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The memchr jumps agree with a byte-by-byte reading of quote parity,
    /// whatever the chunk size (state carried across chunk ends).
    #[test]
    fn boundaries_match_a_byte_by_byte_scan() {
        let dir = std::env::temp_dir().join(format!("stmtc-split-ref-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut rng = crate::util::SplitMix64::new(3);
        let alphabet = b"ab,\"\n\\";
        for case in 0..300 {
            let len = 1 + (rng.next() % 120) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
                .collect();
            let p = dir.join(format!("r{case}.csv"));
            std::fs::write(&p, &text).unwrap();
            let mut guesses: Vec<u64> = (0..1 + rng.next() % 4)
                .map(|_| rng.next() % len as u64)
                .collect();
            guesses.sort_unstable();
            for escape in [None, Some(b'\\')] {
                let b = Boundary {
                    quote: Some(b'"'),
                    escape,
                };
                let expected = reference(&text, &guesses, b);
                for chunk in [1, 2, 3, 7, 64, 1 << 20] {
                    let got = find_boundaries_in_chunks(&p, &guesses, b, chunk).unwrap();
                    assert_eq!(
                        got,
                        expected,
                        "{:?} {guesses:?} {escape:?} chunk {chunk}",
                        String::from_utf8_lossy(&text)
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn reference(text: &[u8], guesses: &[u64], b: Boundary) -> Vec<u64> {
        let (mut inside, mut escaped, mut gi) = (false, false, 0);
        let mut out = Vec::new();
        for (i, &c) in text.iter().enumerate() {
            if gi == guesses.len() {
                break;
            }
            if escaped {
                escaped = false;
            } else if Some(c) == b.escape {
                escaped = true;
            } else if Some(c) == b.quote {
                inside = !inside;
            } else if c == b'\n' && !inside && i as u64 >= guesses[gi] {
                out.push(i as u64 + 1);
                while gi < guesses.len() && guesses[gi] <= i as u64 {
                    gi += 1;
                }
            }
        }
        out.dedup();
        out
    }
}
