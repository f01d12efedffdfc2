//! The benchmark job (bench/job.sql) written by hand: the practical limit for stmtc.
//!
//! One pass over `orders.csv` with N threads (default: all cores) over byte
//! ranges of the file, each with thread-local partial aggregates (flat structs
//! in foldhash maps) that are merged at the end; numbers are parsed in place
//! without allocating; output goes through large buffers with itoa/ryu. The two
//! filter sinks are written by each thread to its own part file, like a
//! parallel Flink sink. The join with `users` aggregates per `user_id` first
//! (the per-user sink needs that anyway) and joins the 100k partial rows.
//!
//! It knows the file's layout (no quoting, timestamps `yyyy-MM-dd HH:mm:ss.SSS`)
//! as a hand-written program would; anything else is an error.
//!
//!     bench-handwritten [--threads N] [DATA_DIR [OUT_DIR]]   (defaults: data out-handwritten)

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

fn new_map<K, V>() -> Map<K, V> {
    HashMap::with_hasher(foldhash::fast::RandomState::default())
}

const READ_CHUNK: usize = 4 << 20;
const OUT_FLUSH: usize = 1 << 20;

#[derive(Clone, Copy)]
struct Hourly {
    count: i64,
    qty: i64,
    sum_total: f64,
    max_total: f64,
}

#[derive(Clone, Copy)]
struct Product {
    count: i64,
    qty: i64,
    sum_total: f64,
    sum_price: f64,
    min_price: f64,
    max_price: f64,
}

#[derive(Clone, Copy)]
struct User {
    count: i64,
    qty: i64,
    sum_total: f64,
    first: i64,
    last: i64,
}

#[derive(Clone, Copy)]
struct RegionDay {
    count: i64,
    paid: i64,
    sum_total: f64,
    sum_qty: i64,
    min_id: i64,
    max_id: i64,
}

#[derive(Default, Clone, Copy)]
struct City {
    count: i64,
    buyers: i64,
    qty: i64,
    sum_total: f64,
    sum_age: i64,
}

/// Output buffer flushed to a file in large writes.
struct Out {
    buf: Vec<u8>,
    file: File,
}

impl Out {
    fn create(dir: &Path, name: &str) -> Out {
        fs::create_dir_all(dir).unwrap_or_else(|e| die(&format!("{}: {e}", dir.display())));
        let path = dir.join(name);
        let file = File::create(&path).unwrap_or_else(|e| die(&format!("{}: {e}", path.display())));
        Out { buf: Vec::with_capacity(OUT_FLUSH + 4096), file }
    }
    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    #[inline]
    fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }
    #[inline]
    fn int(&mut self, v: i64) {
        let mut b = itoa::Buffer::new();
        self.buf.extend_from_slice(b.format(v).as_bytes());
    }
    #[inline]
    fn float(&mut self, v: f64) {
        let mut b = ryu::Buffer::new();
        self.buf.extend_from_slice(b.format(v).as_bytes());
    }
    fn date(&mut self, days: i64) {
        let (y, m, d) = civil_from_days(days);
        let s = format!("{y:04}-{m:02}-{d:02}");
        self.bytes(s.as_bytes());
    }
    /// Flink's csv text of a TIMESTAMP(3): quoted (it holds a space), trailing
    /// zeros of the fraction dropped.
    fn timestamp_ms(&mut self, ms: i64) {
        let days = ms.div_euclid(86_400_000);
        let rem = ms.rem_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        let (s, milli) = (rem / 1000, rem % 1000);
        let text = format!("\"{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
        self.bytes(text.as_bytes());
        self.fraction(milli);
        self.byte(b'"');
    }
    #[inline]
    fn fraction(&mut self, milli: i64) {
        if milli != 0 {
            let digits = [b'.', b'0' + (milli / 100) as u8, b'0' + (milli / 10 % 10) as u8, b'0' + (milli % 10) as u8];
            let mut n = 4;
            while digits[n - 1] == b'0' {
                n -= 1;
            }
            self.bytes(&digits[..n]);
        }
    }
    #[inline]
    fn maybe_flush(&mut self) {
        if self.buf.len() >= OUT_FLUSH {
            self.flush();
        }
    }
    fn flush(&mut self) {
        self.file.write_all(&self.buf).unwrap_or_else(|e| die(&format!("write: {e}")));
        self.buf.clear();
    }
}

fn die(msg: &str) -> ! {
    eprintln!("bench-handwritten: {msg}");
    std::process::exit(1)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
#[inline]
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[inline]
fn parse_int(f: &[u8]) -> i64 {
    let (neg, digits) = match f.first() {
        Some(b'-') => (true, &f[1..]),
        Some(b'+') => (false, &f[1..]),
        _ => (false, f),
    };
    if digits.is_empty() {
        bad(f, "an integer");
    }
    let mut v: i64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            bad(f, "an integer");
        }
        v = v * 10 + d as i64;
    }
    if neg {
        -v
    } else {
        v
    }
}

/// `123.45` exactly as `parseDouble` would: cents / 100 is the correctly
/// rounded double of the decimal. Other shapes go through the std parser.
#[inline]
fn parse_price(f: &[u8]) -> f64 {
    let n = f.len();
    if n >= 4 && f[n - 3] == b'.' {
        let mut cents: i64 = 0;
        let mut ok = true;
        for (i, &c) in f.iter().enumerate() {
            if i == n - 3 {
                continue;
            }
            let d = c.wrapping_sub(b'0');
            ok &= d <= 9;
            cents = cents * 10 + d as i64;
        }
        if ok {
            return cents as f64 / 100.0;
        }
    }
    std::str::from_utf8(f).ok().and_then(|s| s.trim().parse().ok()).unwrap_or_else(|| bad(f, "a DOUBLE"))
}

#[inline]
fn two(f: &[u8], i: usize) -> i64 {
    (f[i].wrapping_sub(b'0') as i64) * 10 + f[i + 1].wrapping_sub(b'0') as i64
}

/// `yyyy-MM-dd HH:mm:ss.SSS` -> (ms since epoch, day, hour).
#[inline]
fn parse_ts(f: &[u8]) -> (i64, i64, i64) {
    if f.len() < 19 || f[4] != b'-' || f[7] != b'-' || f[10] != b' ' || f[13] != b':' || f[16] != b':' {
        bad(f, "a TIMESTAMP");
    }
    let y = two(f, 0) * 100 + two(f, 2);
    let day = days_from_civil(y, two(f, 5), two(f, 8));
    let (h, mi, s) = (two(f, 11), two(f, 14), two(f, 17));
    let mut milli = 0;
    if f.len() > 19 {
        if f[19] != b'.' {
            bad(f, "a TIMESTAMP");
        }
        let mut scale = 100;
        for &c in &f[20..f.len().min(23)] {
            milli += (c.wrapping_sub(b'0') as i64) * scale;
            scale /= 10;
        }
    }
    (day * 86_400_000 + ((h * 60 + mi) * 60 + s) * 1000 + milli, day, h)
}

#[cold]
fn bad(f: &[u8], what: &str) -> ! {
    die(&format!("cannot parse '{}' as {what}", String::from_utf8_lossy(f)))
}

/// The per-thread state: partial aggregates and the thread's part files.
struct Partial {
    hourly: Map<i64, Hourly>,
    product: Map<i64, Product>,
    user: Map<i64, User>,
    region_day: Map<(u8, i64), RegionDay>,
    regions: Vec<Vec<u8>>,
    eu: Out,
    us: Out,
    rows: u64,
}

impl Partial {
    fn region_index(&mut self, r: &[u8]) -> u8 {
        if let Some(i) = self.regions.iter().position(|x| x == r) {
            return i as u8;
        }
        self.regions.push(r.to_vec());
        (self.regions.len() - 1) as u8
    }

    #[inline]
    fn row(&mut self, line: &[u8]) {
        let mut fields = [&line[..0]; 8];
        let mut start = 0;
        let mut n = 0;
        for pos in memchr::memchr_iter(b',', line) {
            if n == 7 {
                bad(line, "a row of 8 fields");
            }
            fields[n] = &line[start..pos];
            n += 1;
            start = pos + 1;
        }
        if n != 7 {
            bad(line, "a row of 8 fields");
        }
        fields[7] = &line[start..];
        self.rows += 1;
        let quantity = parse_int(fields[5]);
        let price = parse_price(fields[6]);
        if !(quantity > 0 && price > 0.0) {
            return;
        }
        let order_id = parse_int(fields[0]);
        let user_id = parse_int(fields[1]);
        let product_id = parse_int(fields[2]);
        let region = fields[3];
        let status = fields[4];
        let (ts, day, hour) = parse_ts(fields[7]);
        let total = quantity as f64 * price;

        let h = self.hourly.entry(day * 24 + hour).or_insert(Hourly {
            count: 0,
            qty: 0,
            sum_total: 0.0,
            max_total: f64::NEG_INFINITY,
        });
        h.count += 1;
        h.qty += quantity;
        h.sum_total += total;
        h.max_total = h.max_total.max(total);

        let p = self.product.entry(product_id).or_insert(Product {
            count: 0,
            qty: 0,
            sum_total: 0.0,
            sum_price: 0.0,
            min_price: f64::INFINITY,
            max_price: f64::NEG_INFINITY,
        });
        p.count += 1;
        p.qty += quantity;
        p.sum_total += total;
        p.sum_price += price;
        p.min_price = p.min_price.min(price);
        p.max_price = p.max_price.max(price);

        let u = self.user.entry(user_id).or_insert(User {
            count: 0,
            qty: 0,
            sum_total: 0.0,
            first: i64::MAX,
            last: i64::MIN,
        });
        u.count += 1;
        u.qty += quantity;
        u.sum_total += total;
        u.first = u.first.min(ts);
        u.last = u.last.max(ts);

        let ri = self.region_index(region);
        let r = self.region_day.entry((ri, day)).or_insert(RegionDay {
            count: 0,
            paid: 0,
            sum_total: 0.0,
            sum_qty: 0,
            min_id: i64::MAX,
            max_id: i64::MIN,
        });
        r.count += 1;
        r.paid += (status == b"PAID") as i64;
        r.sum_total += total;
        r.sum_qty += quantity;
        r.min_id = r.min_id.min(order_id);
        r.max_id = r.max_id.max(order_id);

        let out = if region == b"EU" {
            &mut self.eu
        } else if region == b"US" {
            &mut self.us
        } else {
            return;
        };
        out.bytes(fields[0]);
        out.byte(b',');
        out.bytes(fields[1]);
        out.byte(b',');
        out.bytes(fields[2]);
        out.byte(b',');
        out.bytes(status);
        out.byte(b',');
        out.int(quantity);
        out.byte(b',');
        out.float(price);
        out.byte(b',');
        out.float(total);
        out.bytes(b",\"");
        let t = fields[7];
        out.bytes(&t[..19.min(t.len())]);
        out.fraction(ts.rem_euclid(1000));
        out.bytes(b"\"\n");
        out.maybe_flush();
    }
}

/// Lines whose first byte lies in [start, end) belong to this range.
fn scan_range(path: &Path, start: u64, end: u64, part: &mut Partial) {
    let file = File::open(path).unwrap_or_else(|e| die(&format!("{}: {e}", path.display())));
    let mut buf = vec![0u8; READ_CHUNK];
    let mut pos = start; // file offset of buf[0]
    let mut filled = 0;
    let mut begin = 0; // first unprocessed byte in buf
    let mut eof = false;
    if start > 0 {
        // Skip the partial line unless `start` is the first byte of a line.
        let mut b = [0u8; 1];
        file.read_at(&mut b, start - 1).unwrap_or_else(|e| die(&format!("read: {e}")));
        if b[0] != b'\n' {
            loop {
                filled = read_more(&file, &mut buf, 0, pos, &mut eof);
                if let Some(i) = memchr::memchr(b'\n', &buf[..filled]) {
                    begin = i + 1;
                    break;
                }
                if eof {
                    return;
                }
                pos += filled as u64;
            }
        }
    }
    loop {
        // Process every complete line starting before `end`.
        while pos + (begin as u64) < end {
            match memchr::memchr(b'\n', &buf[begin..filled]) {
                Some(i) => {
                    let line = &buf[begin..begin + i];
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    if !line.is_empty() {
                        part.row(line);
                    }
                    begin += i + 1;
                }
                None => break,
            }
        }
        if pos + (begin as u64) >= end {
            return;
        }
        if eof {
            // Last line without a newline.
            if begin < filled {
                let line = &buf[begin..filled];
                part.row(line.strip_suffix(b"\r").unwrap_or(line));
            }
            return;
        }
        // Move the partial line to the front and read more.
        buf.copy_within(begin..filled, 0);
        pos += begin as u64;
        filled -= begin;
        begin = 0;
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        filled = read_more(&file, &mut buf, filled, pos, &mut eof);
    }
}

fn read_more(file: &File, buf: &mut [u8], filled: usize, pos: u64, eof: &mut bool) -> usize {
    let n = file.read_at(&mut buf[filled..], pos + filled as u64).unwrap_or_else(|e| die(&format!("read: {e}")));
    if n == 0 {
        *eof = true;
    }
    filled + n
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        threads = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or_else(|| die("--threads N"));
        args.drain(i..i + 2);
    }
    let data = PathBuf::from(args.first().map(String::as_str).unwrap_or("data"));
    let out_dir = PathBuf::from(args.get(1).map(String::as_str).unwrap_or("out-handwritten"));
    let orders = data.join("orders.csv");
    let len = fs::metadata(&orders).unwrap_or_else(|e| die(&format!("{}: {e}", orders.display()))).len();
    let threads = threads.max(1);

    let partials: Vec<Partial> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (orders, out_dir) = (&orders, &out_dir);
                s.spawn(move || {
                    let start = len * t as u64 / threads as u64;
                    let end = len * (t as u64 + 1) / threads as u64;
                    let part_name = format!("part-{t}.csv");
                    let mut p = Partial {
                        hourly: new_map(),
                        product: new_map(),
                        user: new_map(),
                        region_day: new_map(),
                        regions: Vec::new(),
                        eu: Out::create(&out_dir.join("eu_orders"), &part_name),
                        us: Out::create(&out_dir.join("us_orders"), &part_name),
                        rows: 0,
                    };
                    scan_range(orders, start, end, &mut p);
                    p.eu.flush();
                    p.us.flush();
                    p
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    // Merge the thread-local partials into the first.
    let mut it = partials.into_iter();
    let mut m = it.next().unwrap();
    for p in it {
        m.rows += p.rows;
        for (k, v) in p.hourly {
            m.hourly
                .entry(k)
                .and_modify(|a| {
                    a.count += v.count;
                    a.qty += v.qty;
                    a.sum_total += v.sum_total;
                    a.max_total = a.max_total.max(v.max_total);
                })
                .or_insert(v);
        }
        for (k, v) in p.product {
            m.product
                .entry(k)
                .and_modify(|a| {
                    a.count += v.count;
                    a.qty += v.qty;
                    a.sum_total += v.sum_total;
                    a.sum_price += v.sum_price;
                    a.min_price = a.min_price.min(v.min_price);
                    a.max_price = a.max_price.max(v.max_price);
                })
                .or_insert(v);
        }
        for (k, v) in p.user {
            m.user
                .entry(k)
                .and_modify(|a| {
                    a.count += v.count;
                    a.qty += v.qty;
                    a.sum_total += v.sum_total;
                    a.first = a.first.min(v.first);
                    a.last = a.last.max(v.last);
                })
                .or_insert(v);
        }
        for ((ri, day), v) in p.region_day {
            let ri = m.region_index(&p.regions[ri as usize]);
            m.region_day
                .entry((ri, day))
                .and_modify(|a| {
                    a.count += v.count;
                    a.paid += v.paid;
                    a.sum_total += v.sum_total;
                    a.sum_qty += v.sum_qty;
                    a.min_id = a.min_id.min(v.min_id);
                    a.max_id = a.max_id.max(v.max_id);
                })
                .or_insert(v);
        }
    }

    // Join the per-user partial aggregates with users, then aggregate per city.
    let users_path = data.join("users.csv");
    let users = fs::read(&users_path).unwrap_or_else(|e| die(&format!("{}: {e}", users_path.display())));
    let mut cities: Map<Vec<u8>, City> = new_map();
    for line in users.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let mut f = line.splitn(4, |&b| b == b',');
        let (id, _name, age, city) = (f.next(), f.next(), f.next(), f.next());
        let (Some(id), Some(age), Some(city)) = (id, age, city) else { bad(line, "a users row") };
        if let Some(u) = m.user.get(&parse_int(id)) {
            let c = match cities.get_mut(city) {
                Some(c) => c,
                None => cities.entry(city.to_vec()).or_default(),
            };
            c.count += u.count;
            c.buyers += 1;
            c.qty += u.qty;
            c.sum_total += u.sum_total;
            c.sum_age += parse_int(age) * u.count;
        }
    }

    let mut o = Out::create(&out_dir.join("hourly_stats"), "part-0.csv");
    for (k, a) in &m.hourly {
        o.date(k.div_euclid(24));
        o.byte(b',');
        o.int(k.rem_euclid(24));
        o.byte(b',');
        o.int(a.count);
        o.byte(b',');
        o.int(a.qty);
        o.byte(b',');
        o.float(a.sum_total);
        o.byte(b',');
        o.float(a.sum_total / a.count as f64);
        o.byte(b',');
        o.float(a.max_total);
        o.byte(b'\n');
    }
    o.flush();

    let mut o = Out::create(&out_dir.join("product_stats"), "part-0.csv");
    for (k, a) in &m.product {
        o.int(*k);
        o.byte(b',');
        o.int(a.count);
        o.byte(b',');
        o.int(a.qty);
        o.byte(b',');
        o.float(a.sum_total);
        o.byte(b',');
        o.float(a.sum_price / a.count as f64);
        o.byte(b',');
        o.float(a.min_price);
        o.byte(b',');
        o.float(a.max_price);
        o.byte(b'\n');
        o.maybe_flush();
    }
    o.flush();

    let mut o = Out::create(&out_dir.join("user_stats"), "part-0.csv");
    for (k, a) in &m.user {
        o.int(*k);
        o.byte(b',');
        o.int(a.count);
        o.byte(b',');
        o.int(a.qty);
        o.byte(b',');
        o.float(a.sum_total);
        o.byte(b',');
        o.float(a.sum_total / a.count as f64);
        o.byte(b',');
        o.timestamp_ms(a.first);
        o.byte(b',');
        o.timestamp_ms(a.last);
        o.byte(b'\n');
        o.maybe_flush();
    }
    o.flush();

    let mut o = Out::create(&out_dir.join("region_day_stats"), "part-0.csv");
    for ((ri, day), a) in &m.region_day {
        o.bytes(&m.regions[*ri as usize]);
        o.byte(b',');
        o.date(*day);
        o.byte(b',');
        o.int(a.count);
        o.byte(b',');
        o.int(a.paid);
        o.byte(b',');
        o.float(a.sum_total);
        o.byte(b',');
        o.float(a.sum_qty as f64 / a.count as f64);
        o.byte(b',');
        o.int(a.min_id);
        o.byte(b',');
        o.int(a.max_id);
        o.byte(b'\n');
    }
    o.flush();

    let mut o = Out::create(&out_dir.join("city_stats"), "part-0.csv");
    for (city, a) in &cities {
        o.bytes(city);
        o.byte(b',');
        o.int(a.count);
        o.byte(b',');
        o.int(a.buyers);
        o.byte(b',');
        o.int(a.qty);
        o.byte(b',');
        o.float(a.sum_total);
        o.byte(b',');
        o.float(a.sum_age as f64 / a.count as f64);
        o.byte(b'\n');
    }
    o.flush();

    eprintln!(
        "bench-handwritten: {} rows of {} read with {threads} threads; {} hours, {} products, {} users, {} region-days, {} cities",
        m.rows,
        orders.display(),
        m.hourly.len(),
        m.product.len(),
        m.user.len(),
        m.region_day.len(),
        cities.len()
    );
}
