//! Spools: rows that must wait (the probe rows of a join whose build side
//! comes from the same pipeline), kept in memory up to a byte budget and
//! written to temporary files beyond it, then replayed in order of arrival
//! per thread, or by all threads at once in pieces (files, and chunks of
//! about [`CHUNK`] bytes of the rows in memory).
//!
//! Spill files live in one folder per job run, `stmtc-spill-<pid>-<n>` in
//! the system's temporary directory (or `STMTC_SPILL_DIR`). The folder is
//! removed when the job ends, whether it succeeded or failed; a run killed
//! before that leaves it behind, and the next job run removes every such
//! folder whose process is gone.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::memory::{MemoryPool, Reservation};
use crate::error::{Error, Result};
use crate::value::{Date, Decimal, Str, Time, Timestamp};

/// A value that can be written to a spill file and read back.
pub trait Spill: Sized {
    fn write(&self, out: &mut Vec<u8>);
    fn read(input: &mut &[u8]) -> Result<Self>;
    /// Bytes held on the heap besides the value itself (long strings, bytes).
    #[inline]
    fn heap_bytes(&self) -> usize {
        0
    }
    /// `Option<Self>`: a tag byte (0: NULL), then the value. Integers fold
    /// the tag into their length byte.
    #[inline]
    fn write_option(value: &Option<Self>, out: &mut Vec<u8>) {
        match value {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.write(out);
            }
        }
    }
    #[inline]
    fn read_option(input: &mut &[u8]) -> Result<Option<Self>> {
        match take(input, 1)?[0] {
            0 => Ok(None),
            _ => Ok(Some(Self::read(input)?)),
        }
    }
}

/// `impl Spill` for a generated row struct: its fields written and read
/// back in the order named, e.g. `rt::spill_row!(R3 { c0, c2 });`.
#[macro_export]
macro_rules! spill_row {
    ($row:ident {}) => {
        impl $crate::ops::spool::Spill for $row {
            fn write(&self, _: &mut Vec<u8>) {}
            fn read(_: &mut &[u8]) -> $crate::Result<Self> {
                Ok($row {})
            }
        }
    };
    ($row:ident { $($col:ident),+ $(,)? }) => {
        impl $crate::ops::spool::Spill for $row {
            fn write(&self, out: &mut Vec<u8>) {
                $($crate::ops::spool::Spill::write(&self.$col, out);)+
            }
            fn read(input: &mut &[u8]) -> $crate::Result<Self> {
                Ok($row {
                    $($col: $crate::ops::spool::Spill::read(input)?,)+
                })
            }
            fn heap_bytes(&self) -> usize {
                0 $(+ $crate::ops::spool::Spill::heap_bytes(&self.$col))+
            }
        }
    };
}

#[inline]
fn take<'a>(input: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if input.len() < n {
        return Err(Error::new(
            "a spill file ends early (it was changed or truncated)",
        ));
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

/// Fixed-width numbers, written as their little-endian bytes.
macro_rules! spill_number {
    ($($t:ty),*) => {$(
        impl Spill for $t {
            #[inline]
            fn write(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn read(input: &mut &[u8]) -> Result<Self> {
                let bytes = take(input, std::mem::size_of::<$t>())?;
                Ok(<$t>::from_le_bytes(bytes.try_into().expect("sized")))
            }
        }
    )*};
}
spill_number!(i8, u64, f32, f64);

/// Integers are written as a length byte and that many low bytes of
/// their zigzag form (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...), little-endian:
/// keys, dates and lengths, small in magnitude, take 2 to 4 bytes instead
/// of 4 or 8, and a NULL one byte (`Option`'s tag is the length byte, one
/// more than the length). Spooled rows are mostly such numbers (TPC-H
/// q18's waiting order rows: 32 -> 20 bytes). A fixed length byte rather
/// than 7-bit groups keeps writing and reading one copy each: the groups'
/// loop cost the TPC-H set 13% more CPU under a 200 MB budget.
macro_rules! short_int {
    ($write:ident, $read:ident, $u:ty) => {
        /// `z` as [`short_int!`] writes it, its length byte `n + bias`:
        /// the whole value is copied and the unused high bytes cut off
        /// (fixed-size copies, no call to `memcpy`).
        #[inline]
        fn $write(out: &mut Vec<u8>, z: $u, bias: u8) {
            const SIZE: usize = std::mem::size_of::<$u>();
            let n = (<$u>::BITS - z.leading_zeros()).div_ceil(8) as usize;
            let mut bytes = [0u8; SIZE + 1];
            bytes[0] = n as u8 + bias;
            bytes[1..].copy_from_slice(&z.to_le_bytes());
            out.extend_from_slice(&bytes);
            out.truncate(out.len() - (SIZE - n));
        }

        /// The `n` bytes of a number whose length byte said `n`.
        #[inline]
        fn $read(input: &mut &[u8], n: u8) -> Result<$u> {
            const SIZE: usize = std::mem::size_of::<$u>();
            let n = usize::from(n);
            if n > SIZE {
                return Err(malformed());
            }
            if let Some(whole) = input.first_chunk::<SIZE>() {
                // Read a whole value's bytes and keep the low `n`.
                let v = <$u>::from_le_bytes(*whole);
                *input = &input[n..];
                return Ok(if n == SIZE {
                    v
                } else {
                    v & ((1 << (8 * n)) - 1)
                });
            }
            let mut bytes = [0u8; SIZE];
            bytes[..n].copy_from_slice(take(input, n)?);
            Ok(<$u>::from_le_bytes(bytes))
        }
    };
}
short_int!(write_short, read_short, u64);
short_int!(write_short128, read_short128, u128);

fn malformed() -> Error {
    Error::new("a spill file holds a malformed number (it was changed)")
}

/// Signed integers of up to 64 bits, as [`short_int!`] describes.
macro_rules! spill_signed {
    ($($t:ty),*) => {$(
        impl Spill for $t {
            #[inline]
            fn write(&self, out: &mut Vec<u8>) {
                let v = i64::from(*self);
                write_short(out, ((v << 1) ^ (v >> 63)) as u64, 0);
            }
            #[inline]
            fn read(input: &mut &[u8]) -> Result<Self> {
                let n = take(input, 1)?[0];
                unzigzag(read_short(input, n)?)
            }
            #[inline]
            fn write_option(value: &Option<Self>, out: &mut Vec<u8>) {
                match *value {
                    None => out.push(0),
                    Some(v) => {
                        let v = i64::from(v);
                        write_short(out, ((v << 1) ^ (v >> 63)) as u64, 1);
                    }
                }
            }
            #[inline]
            fn read_option(input: &mut &[u8]) -> Result<Option<Self>> {
                match take(input, 1)?[0] {
                    0 => Ok(None),
                    n => unzigzag(read_short(input, n - 1)?).map(Some),
                }
            }
        }
    )*};
}
spill_signed!(i16, i32, i64);

#[inline]
fn unzigzag<T: TryFrom<i64>>(z: u64) -> Result<T> {
    T::try_from((z >> 1) as i64 ^ -((z & 1) as i64)).map_err(|_| malformed())
}

impl Spill for i128 {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        write_short128(out, ((self << 1) ^ (self >> 127)) as u128, 0);
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        let n = take(input, 1)?[0];
        let z = read_short128(input, n)?;
        Ok((z >> 1) as i128 ^ -((z & 1) as i128))
    }
}

impl Spill for u32 {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        write_short(out, u64::from(*self), 0);
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        let n = take(input, 1)?[0];
        u32::try_from(read_short(input, n)?).map_err(|_| malformed())
    }
}

impl Spill for bool {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        Ok(take(input, 1)?[0] != 0)
    }
}

impl Spill for () {
    #[inline]
    fn write(&self, _: &mut Vec<u8>) {}
    #[inline]
    fn read(_: &mut &[u8]) -> Result<Self> {
        Ok(())
    }
}

impl Spill for Decimal {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        self.0.write(out)
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        Ok(Decimal(i128::read(input)?))
    }
}

/// Values that are an `i32` inside (days, milliseconds of the day): written
/// as that integer, NULL folded into its length byte.
macro_rules! spill_i32_value {
    ($($t:ident),*) => {$(
        impl Spill for $t {
            #[inline]
            fn write(&self, out: &mut Vec<u8>) {
                self.0.write(out)
            }
            #[inline]
            fn read(input: &mut &[u8]) -> Result<Self> {
                Ok($t(i32::read(input)?))
            }
            #[inline]
            fn write_option(value: &Option<Self>, out: &mut Vec<u8>) {
                i32::write_option(&value.map(|v| v.0), out)
            }
            #[inline]
            fn read_option(input: &mut &[u8]) -> Result<Option<Self>> {
                Ok(i32::read_option(input)?.map($t))
            }
        }
    )*};
}
spill_i32_value!(Date, Time);

impl Spill for Timestamp {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        self.millis.write(out);
        self.nanos().write(out);
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        let millis = i64::read(input)?;
        Ok(Timestamp::new(millis, u32::read(input)?))
    }
}

impl Spill for Vec<u8> {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        (self.len() as u32).write(out);
        out.extend_from_slice(self);
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        let len = u32::read(input)? as usize;
        Ok(take(input, len)?.to_vec())
    }
    #[inline]
    fn heap_bytes(&self) -> usize {
        self.capacity()
    }
}

impl Spill for Str {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        (self.len() as u32).write(out);
        out.extend_from_slice(self.as_bytes());
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        let len = u32::read(input)? as usize;
        let text = std::str::from_utf8(take(input, len)?)
            .map_err(|_| Error::new("a spill file holds invalid text (it was changed)"))?;
        Ok(Str::from(text))
    }
    #[inline]
    fn heap_bytes(&self) -> usize {
        if self.is_inline() {
            0
        } else {
            self.len()
        }
    }
}

impl<A: Spill, B: Spill> Spill for (A, B) {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        self.0.write(out);
        self.1.write(out);
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        Ok((A::read(input)?, B::read(input)?))
    }
    #[inline]
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes() + self.1.heap_bytes()
    }
}

/// Join keys (tuples of one or more column values), spilled with their
/// build rows by a partitioned join.
macro_rules! spill_tuple {
    ($(($($t:ident $i:tt),+)),*) => {$(
        impl<$($t: Spill),+> Spill for ($($t,)+) {
            #[inline]
            fn write(&self, out: &mut Vec<u8>) {
                $(self.$i.write(out);)+
            }
            #[inline]
            fn read(input: &mut &[u8]) -> Result<Self> {
                Ok(($($t::read(input)?,)+))
            }
            #[inline]
            fn heap_bytes(&self) -> usize {
                0 $(+ self.$i.heap_bytes())+
            }
        }
    )*};
}
spill_tuple!(
    (A 0),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11)
);

impl<T: Spill> Spill for Option<T> {
    #[inline]
    fn write(&self, out: &mut Vec<u8>) {
        T::write_option(self, out);
    }
    #[inline]
    fn read(input: &mut &[u8]) -> Result<Self> {
        T::read_option(input)
    }
    #[inline]
    fn heap_bytes(&self) -> usize {
        self.as_ref().map_or(0, T::heap_bytes)
    }
}

/// The memory budget of a job that sets none, when the machine's memory
/// cannot be read (see [`super::memory::default_budget`]).
pub const DEFAULT_BUDGET: u64 = 1 << 30;

/// The folder of this run's spill files, created on first use and removed
/// when the job ends (`Context` drops it).
pub struct SpillDir {
    base: PathBuf,
    path: OnceLock<Result<PathBuf, String>>,
    next: AtomicU64,
    /// Bytes written to spill files, for the summary.
    pub written: AtomicU64,
    lock: Mutex<()>,
    /// Bytes a partitioned join or aggregate buffers per partition file.
    write_buffer: usize,
    /// Bytes after which a spool starts a new spill file (each file is a
    /// piece of a parallel replay, read whole).
    file_limit: u64,
}

impl Default for SpillDir {
    fn default() -> Self {
        SpillDir::new()
    }
}

impl SpillDir {
    /// Spill files go to `STMTC_SPILL_DIR`, or the system's temporary directory.
    pub fn new() -> SpillDir {
        SpillDir::at(
            std::env::var_os("STMTC_SPILL_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(std::env::temp_dir),
        )
    }

    /// Spill files go to a new folder in `base`; folders left there by job
    /// runs that were killed are removed now.
    pub fn at(base: PathBuf) -> SpillDir {
        remove_stale(&base);
        SpillDir {
            base,
            path: OnceLock::new(),
            next: AtomicU64::new(0),
            written: AtomicU64::new(0),
            lock: Mutex::new(()),
            write_buffer: 64 << 10,
            file_limit: 16 << 20,
        }
    }

    /// Partition files buffer a 256th of `budget` each (256 bytes to 64 KiB),
    /// so the buffers of one partitioned operator stay a small share of it;
    /// a spool's files hold a 64th of it (64 KiB to 16 MiB).
    pub fn with_budget(mut self, budget: u64) -> SpillDir {
        self.write_buffer = (budget / 256).clamp(256, 64 << 10) as usize;
        self.file_limit = (budget / 64).clamp(64 << 10, 16 << 20);
        self
    }

    pub(crate) fn write_buffer(&self) -> usize {
        self.write_buffer
    }

    fn dir(&self) -> Result<&Path> {
        let made = self.path.get_or_init(|| {
            let _guard = self.lock.lock();
            let base = &self.base;
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let dir = base.join(format!("stmtc-spill-{}-{nanos}", std::process::id()));
            std::fs::create_dir_all(&dir)
                .map(|()| {
                    crate::signals::spill_folder_created(&dir);
                    dir.clone()
                })
                .map_err(|e| format!("cannot create the spill folder {}: {e}", dir.display()))
        });
        match made {
            Ok(p) => Ok(p.as_path()),
            Err(e) => Err(Error::new(e.clone())),
        }
    }

    /// Writes `bytes` to a new spill file and returns its path.
    pub(crate) fn write_file(&self, bytes: &[u8]) -> Result<PathBuf> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let path = self.dir()?.join(format!("{n}.spill"));
        let file = std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
        let mut out = BufWriter::new(file);
        out.write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io(&path, e))?;
        self.written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(path)
    }
}

impl SpillDir {
    /// Appends `bytes` to the spill file `path` (made by [`SpillDir::write_file`]).
    pub(crate) fn append_file(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        file.write_all(bytes).map_err(|e| Error::io(path, e))?;
        self.written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        if let Some(Ok(dir)) = self.path.get() {
            let _ = std::fs::remove_dir_all(dir);
            crate::signals::spill_folder_removed(dir);
        }
    }
}

/// Removes spill folders of job runs that are gone (killed before cleanup).
fn remove_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("stmtc-spill-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Rows that wait: in memory while the job's memory pool gives room, then in
/// spill files.
///
/// In memory the rows are kept as they are written to a spill file (each
/// value's bytes, a NULL as one byte), not as row structs: a spooled
/// `lineitem` key and quantity take 18 bytes instead of the 32 of their
/// struct (`Option<i64>`, `Option<f64>`), and going to disk is one write of
/// that buffer. Replay reads each row back.
pub struct Spool<R> {
    /// The rows being written, up to about [`CHUNK`] bytes.
    buf: Vec<u8>,
    /// Earlier buffers, before `buf`: each about [`CHUNK`] bytes (the
    /// pieces a parallel replay hands out). Rows go into buffers of a fixed
    /// size, not one that doubles: a doubled buffer asked for up to twice its
    /// rows (the three large spools of the TPC-H set, 94 MB for 65 MB of
    /// rows) and copied them on every doubling. The rows of other threads'
    /// spools are kept as they were, not copied onto one buffer (which
    /// after a scan of `lineitem` moved hundreds of MB on one thread).
    held: Vec<Vec<u8>>,
    mem: Reservation,
    files: Vec<PathBuf>,
    /// Bytes in the last of `files` when this spool wrote it (more rows are
    /// appended to it up to the folder's file limit); `None` when the last
    /// file came from another spool.
    tail: Option<u64>,
    dir: Arc<SpillDir>,
    _row: std::marker::PhantomData<fn(R) -> R>,
}

/// Bytes of spooled rows in one buffer in memory, the piece a parallel
/// replay hands to a thread at a time.
pub const CHUNK: usize = 1 << 20;

impl<R: Spill> Spool<R> {
    pub fn new(pool: &Arc<MemoryPool>, dir: Arc<SpillDir>) -> Spool<R> {
        Spool {
            buf: Vec::new(),
            held: Vec::new(),
            mem: Reservation::new(pool),
            files: Vec::new(),
            tail: None,
            dir,
            _row: std::marker::PhantomData,
        }
    }

    /// Names this operator in `--profile`'s memory report.
    pub fn labelled(mut self, label: &'static str) -> Self {
        self.mem.set_label(label);
        self
    }

    pub fn push(&mut self, row: &R) -> Result<()> {
        if self.buf.len() >= CHUNK {
            // Room for the usual row beyond the chunk without a doubling.
            let next = Vec::with_capacity(CHUNK + CHUNK / 16);
            self.held.push(std::mem::replace(&mut self.buf, next));
        }
        let at = self.buf.len();
        row.write(&mut self.buf);
        if !self.mem.grow((self.buf.len() - at) as u64) {
            self.spill()?;
        }
        Ok(())
    }

    /// Writes the rows in memory to spill files: appended to this spool's
    /// last file while it stays within the folder's file limit.
    fn spill(&mut self) -> Result<()> {
        for buf in std::mem::take(&mut self.held) {
            self.write(&buf)?;
        }
        let buf = std::mem::take(&mut self.buf);
        self.write(&buf)?;
        self.mem.reset();
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let n = bytes.len() as u64;
        match (self.tail, self.files.last()) {
            (Some(tail), Some(path)) if tail + n <= self.dir.file_limit => {
                self.dir.append_file(path, bytes)?;
                self.tail = Some(tail + n);
            }
            _ => {
                self.files.push(self.dir.write_file(bytes)?);
                self.tail = Some(n);
            }
        }
        Ok(())
    }

    /// Takes in another thread's spool (its files and its rows).
    pub fn absorb(&mut self, mut other: Spool<R>) -> Result<()> {
        if !other.files.is_empty() {
            self.tail = None;
        }
        self.files.append(&mut other.files);
        self.mem.absorb(std::mem::take(&mut other.mem));
        if other.buf.is_empty() && other.held.is_empty() {
            return Ok(());
        }
        if !self.buf.is_empty() {
            self.held.push(std::mem::take(&mut self.buf));
        }
        self.held.append(&mut other.held);
        self.buf = std::mem::take(&mut other.buf);
        Ok(())
    }

    /// An empty spool of the same pool and folder (what a replay leaves behind).
    pub fn emptied(&self) -> Spool<R> {
        Spool {
            buf: Vec::new(),
            held: Vec::new(),
            mem: self.mem.sibling(),
            files: Vec::new(),
            tail: None,
            dir: Arc::clone(&self.dir),
            _row: std::marker::PhantomData,
        }
    }

    /// Every row, spilled ones first, each spill file read whole (a file
    /// holds the folder's file limit, or the rows of one spill if more) and
    /// removed once read.
    pub fn replay(self, mut f: impl FnMut(&R) -> Result<()>) -> Result<()> {
        for piece in self.pieces() {
            piece.rows(&mut f)?;
        }
        Ok(())
    }

    /// Every row, by up to `threads` threads at once, each with its own
    /// state from `init` (returned, one per thread, to be folded together):
    /// the threads take the pieces (spill files, then chunks of the rows in
    /// memory) in order, so rows keep their order within a piece and one
    /// thread replays exactly as [`Spool::replay`] does. A spool of one
    /// piece is replayed by one thread.
    pub fn replay_parallel<S, I, F>(self, threads: usize, init: I, f: F) -> Result<Vec<S>>
    where
        S: Send,
        I: Fn(usize) -> S + Sync,
        F: Fn(&mut S, &R) -> Result<()> + Sync,
    {
        let pieces = self.pieces();
        super::parallel::for_each_parallel(&pieces, threads, init, |st, _, piece| {
            piece.rows(&mut |row| f(st, row))
        })
    }

    /// The spill files, then the in-memory rows (held buffers, then `buf`).
    fn pieces(&self) -> Vec<Piece<'_>> {
        let files = self.files.iter().map(|p| Piece::File(p));
        let buffers = self.held.iter().chain(std::iter::once(&self.buf));
        let rows = buffers.filter(|b| !b.is_empty()).map(|b| Piece::Rows(b));
        files.chain(rows).collect()
    }

    /// Rows held in memory and in files (for tests).
    pub fn spilled_files(&self) -> usize {
        self.files.len()
    }
}

/// A part of a spool that one thread replays: a spill file (read whole,
/// removed once read) or a run of whole rows in memory.
enum Piece<'a> {
    File(&'a Path),
    Rows(&'a [u8]),
}

impl Piece<'_> {
    fn rows<R: Spill>(&self, f: &mut impl FnMut(&R) -> Result<()>) -> Result<()> {
        let bytes;
        let mut input = match self {
            Piece::File(path) => {
                let mut read = Vec::new();
                std::fs::File::open(path)
                    .and_then(|mut file| file.read_to_end(&mut read))
                    .map_err(|e| Error::io(path, e))?;
                let _ = std::fs::remove_file(path);
                bytes = read;
                bytes.as_slice()
            }
            Piece::Rows(rows) => rows,
        };
        while !input.is_empty() {
            f(&R::read(&mut input)?)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Clone)]
    struct Row {
        a: Option<i64>,
        s: Option<Str>,
        d: Option<Decimal>,
        t: Option<Timestamp>,
    }

    impl Spill for Row {
        fn write(&self, out: &mut Vec<u8>) {
            self.a.write(out);
            self.s.write(out);
            self.d.write(out);
            self.t.write(out);
        }
        fn read(input: &mut &[u8]) -> Result<Self> {
            Ok(Row {
                a: Spill::read(input)?,
                s: Spill::read(input)?,
                d: Spill::read(input)?,
                t: Spill::read(input)?,
            })
        }
        fn heap_bytes(&self) -> usize {
            self.s.heap_bytes()
        }
    }

    fn row(i: i64) -> Row {
        Row {
            a: (i % 7 != 0).then_some(i),
            s: Some(Str::from("x".repeat((i % 40) as usize).as_str())),
            d: Some(Decimal(i as i128 * 1_000_000_007)),
            t: (i % 3 == 0).then_some(Timestamp::new(i * 1000, 17)),
        }
    }

    #[test]
    fn a_tiny_budget_spills_and_replays_every_row_and_cleans_up() {
        let base = std::env::temp_dir().join(format!("stmtc-spool-test-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let dir = Arc::new(SpillDir::at(base.clone()));
        let pool = MemoryPool::new(512);
        let mut a: Spool<Row> = Spool::new(&pool, Arc::clone(&dir));
        let mut b: Spool<Row> = Spool::new(&pool, Arc::clone(&dir));
        for i in 0..1000 {
            if i % 2 == 0 {
                a.push(&row(i))
            } else {
                b.push(&row(i))
            }
            .unwrap();
        }
        assert!(a.spilled_files() >= 1 && b.spilled_files() >= 1);
        a.absorb(b).unwrap();
        let mut seen = Vec::new();
        a.replay(|r| {
            seen.push(r.clone());
            Ok(())
        })
        .unwrap();
        let mut want: Vec<Row> = (0..1000).map(row).collect();
        let key = |r: &Row| r.d.map(|d| d.0);
        seen.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(seen, want);
        assert!(dir.written.load(Ordering::Relaxed) > 0);
        drop(dir);
        let left: Vec<_> = std::fs::read_dir(&base).unwrap().collect();
        assert!(left.is_empty(), "spill folders left behind: {left:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A spool that starts when other operators have filled the pool still
    /// keeps the pool's floor in memory: it spills in pieces of that size,
    /// appended to files of the folder's limit, and writes each row once.
    #[test]
    fn a_spool_behind_a_full_pool_spills_each_row_once_in_few_files() {
        let budget = 1 << 20;
        let pool = MemoryPool::new(budget);
        let dir = Arc::new(SpillDir::new().with_budget(budget));
        let mut hog = Reservation::new(&pool);
        assert!(hog.grow(budget));
        let mut s: Spool<Row> = Spool::new(&pool, Arc::clone(&dir));
        let mut bytes = Vec::new();
        for i in 0..20_000 {
            s.push(&row(i)).unwrap();
            row(i).write(&mut bytes);
        }
        let written = dir.written.load(Ordering::Relaxed);
        assert!(
            written > 0 && written <= bytes.len() as u64,
            "{written} bytes"
        );
        let most = bytes.len() as u64 / dir.file_limit + 2;
        assert!(
            s.spilled_files() as u64 <= most,
            "{} files",
            s.spilled_files()
        );
        let mut n = 0;
        s.replay(|r| {
            assert_eq!(*r, row(n));
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 20_000);
    }

    #[test]
    fn a_parallel_replay_gives_every_row_once_in_chunks_and_one_thread_replays_in_order() {
        let pool = MemoryPool::new(u64::MAX / 4);
        let dir = Arc::new(SpillDir::new());
        let spool = |rows: std::ops::Range<i64>| {
            let mut s: Spool<Row> = Spool::new(&pool, Arc::clone(&dir));
            for i in rows {
                s.push(&row(i)).unwrap();
            }
            s
        };
        // ~60 bytes a row: three spools of several chunks each, absorbed.
        let n = 120_000;
        let mut a = spool(0..n / 2);
        a.absorb(spool(n / 2..n - 10)).unwrap();
        a.absorb(spool(n - 10..n)).unwrap();
        assert!(a.pieces().len() >= 6, "{} pieces", a.pieces().len());
        let pieces_rows: usize = a
            .pieces()
            .iter()
            .map(|p| {
                let mut k = 0;
                p.rows(&mut |_: &Row| {
                    k += 1;
                    Ok(())
                })
                .unwrap();
                k
            })
            .sum();
        assert_eq!(pieces_rows, n as usize, "a chunk cut inside a row");

        let in_order = |threads| {
            let mut b = spool(0..n / 2);
            b.absorb(spool(n / 2..n)).unwrap();
            b.replay_parallel(
                threads,
                |_| Vec::new(),
                |seen: &mut Vec<i64>, r| {
                    seen.push(r.d.unwrap().0 as i64 / 1_000_000_007);
                    Ok(())
                },
            )
            .unwrap()
        };
        assert_eq!(in_order(1), vec![(0..n).collect::<Vec<_>>()]);
        let per_thread = in_order(2);
        assert_eq!(per_thread.len(), 2);
        let mut all: Vec<i64> = per_thread.concat();
        all.sort();
        assert_eq!(all, (0..n).collect::<Vec<_>>());

        let err = a
            .replay_parallel(
                2,
                |_| (),
                |_, r| match r.a {
                    Some(77_778) => Err(Error::new("row 77778")),
                    _ => Ok(()),
                },
            )
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.message(), "row 77778");
    }

    #[test]
    fn rows_absorbed_from_other_spools_spill_with_the_rest() {
        let pool = MemoryPool::new(10_000);
        let dir = Arc::new(SpillDir::new());
        let mut a: Spool<Row> = Spool::new(&pool, Arc::clone(&dir));
        let mut b: Spool<Row> = Spool::new(&pool, Arc::clone(&dir));
        for i in 0..60 {
            a.push(&row(i)).unwrap();
        }
        for i in 60..100 {
            b.push(&row(i)).unwrap();
        }
        assert_eq!(a.spilled_files() + b.spilled_files(), 0);
        a.absorb(b).unwrap();
        assert_eq!(a.held.len(), 1);
        for i in 100..400 {
            a.push(&row(i)).unwrap();
        }
        assert!(a.spilled_files() >= 1, "{} files", a.spilled_files());
        assert!(a.held.is_empty(), "the absorbed rows spilled too");
        let mut seen = Vec::new();
        a.replay(|r| {
            seen.push(r.d.unwrap().0 as i64 / 1_000_000_007);
            Ok(())
        })
        .unwrap();
        seen.sort();
        assert_eq!(seen, (0..400).collect::<Vec<_>>());
    }

    #[test]
    fn integers_round_trip_in_as_few_bytes_as_their_magnitude_needs() {
        fn round_trip<T: Spill + PartialEq + std::fmt::Debug + Copy>(v: T) -> usize {
            let mut out = Vec::new();
            v.write(&mut out);
            let mut input = &out[..];
            assert_eq!(T::read(&mut input).unwrap(), v);
            assert!(input.is_empty(), "{v:?} left bytes behind");
            out.len()
        }
        for v in [0i64, 1, -1, 63, -64, 64, 6_000_000, i64::MAX, i64::MIN] {
            round_trip(v);
        }
        for v in [0i32, -1, i32::MAX, i32::MIN] {
            round_trip(v);
        }
        for v in [0i16, i16::MIN, i16::MAX] {
            round_trip(v);
        }
        for v in [0i128, -1, i128::MAX, i128::MIN] {
            round_trip(v);
        }
        for v in [0u32, 127, 128, u32::MAX] {
            round_trip(v);
        }
        // A length byte, then the zigzag form's significant bytes.
        assert_eq!(round_trip(0i64), 1);
        assert_eq!(round_trip(-64i64), 2);
        assert_eq!(round_trip(6_000_000i64), 4);
        assert_eq!(round_trip(i64::MIN), 9);
        assert_eq!(round_trip(9_000i32), 3);
        assert_eq!(round_trip(i128::MIN), 17);
        // NULL is one byte, and so is a present 0: the tag is the length byte.
        assert_eq!(round_trip(None::<i64>), 1);
        assert_eq!(round_trip(Some(0i64)), 1);
        assert_eq!(round_trip(Some(6_000_000i64)), 4);
        assert_eq!(round_trip(Some(Date(9_000))), 3);
        assert_eq!(round_trip(None::<Date>), 1);
        assert_eq!(round_trip(Some(1.5f64)), 9);
        // Read back from the middle of a buffer too (a whole value's bytes
        // are read at once there).
        let values = [0i64, 5, -300, 6_000_000, i64::MAX, i64::MIN, 1 << 40, -1];
        let mut out = Vec::new();
        for v in values {
            v.write(&mut out);
            Some(v).write(&mut out);
        }
        let mut input = &out[..];
        for v in values {
            assert_eq!(i64::read(&mut input).unwrap(), v);
            assert_eq!(Option::<i64>::read(&mut input).unwrap(), Some(v));
        }
        assert!(input.is_empty());
        // A number too large for its type, or one that never ends, is an
        // error, not a wrapped value or a panic.
        let mut out = Vec::new();
        i64::from(i32::MAX).wrapping_add(1).write(&mut out);
        assert!(i32::read(&mut &out[..]).is_err());
        assert!(i64::read(&mut &[0xff; 11][..]).is_err());
        assert!(u32::read(&mut &[0x80][..]).is_err());
        assert!(i64::read(&mut &[3, 1][..]).is_err());
    }
}
