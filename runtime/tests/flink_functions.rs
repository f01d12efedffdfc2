//! Scalar functions against Flink 2.3's results for the same expressions
//! (`tests/flink_samples/functions/results.tsv`, produced by `job.sql` there).
//! Each check names the expression exactly as in the file and computes it with
//! the runtime's functions; the expected text is Flink's CAST(... AS STRING).

use std::collections::HashMap;
use stmtc_runtime::func::{cast, like::Like, math, string, temporal};
use stmtc_runtime::value::{decimal, Date, Decimal, DecimalType, Timestamp};

fn flink_results() -> HashMap<String, Option<String>> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/flink_samples/functions/results.tsv"
    ))
    .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (e, v) = l.split_once('\t').unwrap();
            (e.to_string(), (v != "\\N").then(|| v.to_string()))
        })
        .collect()
}

fn ts(s: &str) -> Timestamp {
    Timestamp::parse_lenient(s.as_bytes()).unwrap()
}

fn dt(s: &str) -> Date {
    Date::parse_lenient(s.as_bytes()).unwrap()
}

fn dec(s: &str, p: u8, sc: u8) -> (Decimal, DecimalType) {
    let t = DecimalType::new(p, sc);
    (t.parse(s.as_bytes()).unwrap().unwrap(), t)
}

fn d2s((v, t): (Decimal, DecimalType)) -> String {
    cast::decimal_to_string(v, t)
}

#[test]
fn functions_match_flink() {
    let flink = flink_results();
    let s = |v: &str| Some(v.to_string());
    let checks: Vec<(&str, Option<String>)> =
        vec![
        (
            "SUBSTRING('hello', 2, 3)",
            string::substring("hello", 2, Some(3)).map(String::from),
        ),
        (
            "SUBSTRING('hello', -2)",
            string::substring("hello", -2, None).map(String::from),
        ),
        (
            "SUBSTRING('hello', 0, 2)",
            string::substring("hello", 0, Some(2)).map(String::from),
        ),
        (
            "SUBSTRING('hello', 10)",
            string::substring("hello", 10, None).map(String::from),
        ),
        (
            "SUBSTRING('héllo', 2)",
            string::substring("héllo", 2, None).map(String::from),
        ),
        ("UPPER('abc é')", s(&string::upper("abc é"))),
        ("LOWER('ABC É')", s(&string::lower("ABC É"))),
        ("TRIM('  x  ')", s(string::trim("  x  "))),
        ("LTRIM('  x ')", s(string::ltrim("  x "))),
        ("RTRIM(' x  ')", s(string::rtrim(" x  "))),
        (
            "TRIM(BOTH 'x' FROM 'xxaxx')",
            s(string::trim_chars("xxaxx", "x", true, true)),
        ),
        (
            "TRIM(LEADING 'x' FROM 'xxaxx')",
            s(string::trim_chars("xxaxx", "x", true, false)),
        ),
        (
            "CONCAT('a', CAST(NULL AS STRING), 'b')",
            string::concat(&[Some("a"), None, Some("b")]),
        ),
        (
            "CONCAT_WS('-', 'a', CAST(NULL AS STRING), 'b')",
            string::concat_ws(Some("-"), &[Some("a"), None, Some("b")]),
        ),
        (
            "CHAR_LENGTH('héllo')",
            s(&string::char_length("héllo").to_string()),
        ),
        (
            "REPLACE('abab', 'b', 'x')",
            s(&string::replace("abab", "b", "x")),
        ),
        (
            "POSITION('b' IN 'abc')",
            s(&string::position("b", "abc").to_string()),
        ),
        (
            "POSITION('z' IN 'abc')",
            s(&string::position("z", "abc").to_string()),
        ),
        ("LPAD('ab', 5, 'xy')", string::lpad("ab", 5, "xy").unwrap()),
        ("RPAD('ab', 5, 'xy')", string::rpad("ab", 5, "xy").unwrap()),
        ("LPAD('abcdef', 3, 'x')", string::lpad("abcdef", 3, "x").unwrap()),
        (
            "INITCAP('hello wORLD foo-bar a1b')",
            s(&string::initcap("hello wORLD foo-bar a1b")),
        ),
        ("REVERSE('abc')", s(&string::reverse("abc"))),
        ("ROUND(1.235, 2)", {
            let (v, t) = dec("1.235", 4, 3);
            let tr = DecimalType::new(4, 2);
            math::round_decimal(v, t, 2, tr).map(|r| d2s((r, tr)))
        }),
        ("ROUND(-2.5)", {
            let (v, t) = dec("-2.5", 2, 1);
            let tr = DecimalType::new(2, 0);
            math::round_decimal(v, t, 0, tr).map(|r| d2s((r, tr)))
        }),
        (
            "ROUND(CAST(1.235 AS DOUBLE), 2)",
            s(&cast::f64_to_string(math::round_f64(1.235, 2))),
        ),
        (
            "ROUND(CAST(2.5 AS DOUBLE), 0)",
            s(&cast::f64_to_string(math::round_f64(2.5, 0))),
        ),
        ("FLOOR(-2.7)", {
            let (v, t) = dec("-2.7", 2, 1);
            s(&d2s((math::floor_decimal(v, t), DecimalType::new(2, 0))))
        }),
        ("CEIL(2.1)", {
            let (v, t) = dec("2.1", 2, 1);
            s(&d2s((math::ceil_decimal(v, t), DecimalType::new(2, 0))))
        }),
        ("MOD(-7, 3)", math::int_mod(-7i32, 3).map(|v| v.to_string())),
        ("MOD(7.5, 2)", {
            let (a, ta) = dec("7.5", 2, 1);
            let (b, tb) = dec("2", 1, 0);
            let tr = DecimalType::new(2, 1);
            decimal::rem(a, ta, b, tb, tr)
                .unwrap()
                .map(|r| d2s((r, tr)))
        }),
        (
            "POWER(2, 10)",
            s(&cast::f64_to_string(math::power(2.0, 10.0))),
        ),
        ("SQRT(2)", s(&cast::f64_to_string(math::sqrt(2.0)))),
        ("LN(10)", s(&cast::f64_to_string(math::ln(10.0)))),
        ("LOG10(1000)", s(&cast::f64_to_string(math::log10(1000.0)))),
        ("EXP(1)", s(&cast::f64_to_string(math::exp(1.0)))),
        ("SIGN(-2.5)", {
            let (v, t) = dec("-2.5", 2, 1);
            s(&d2s((math::sign_decimal(v, t), t)))
        }),
        ("TRUNCATE(-1.789, 1)", {
            let (v, t) = dec("-1.789", 4, 3);
            let tr = DecimalType::new(4, 1);
            math::truncate_decimal(v, t, 1, tr).map(|r| d2s((r, tr)))
        }),
        ("-7 / 2", math::int_div(-7i32, 2).map(|v| v.to_string())),
        ("CAST(1 AS DECIMAL(10, 2)) / CAST(3 AS DECIMAL(10, 2))", {
            let t = DecimalType::new(10, 2);
            let tr = DecimalType::new(23, 13);
            decimal::div(Decimal(100), t, Decimal(300), t, tr)
                .unwrap()
                .map(|r| d2s((r, tr)))
        }),
        (
            "CAST(10 AS DECIMAL(10, 2)) * CAST(3.333 AS DECIMAL(10, 3))",
            {
                let tr = DecimalType::new(20, 5);
                decimal::mul(
                    Decimal(1000),
                    DecimalType::new(10, 2),
                    Decimal(3333),
                    DecimalType::new(10, 3),
                    tr,
                )
                .map(|r| d2s((r, tr)))
            },
        ),
        ("CAST(-2.7 AS INT)", s(&cast::f64_to_i32(-2.7).to_string())),
        (
            "CAST(' 12 ' AS INT)",
            cast::str_to_i32(" 12 ").ok().map(|v| v.to_string()),
        ),
        (
            "TRY_CAST('abc' AS INT)",
            cast::str_to_i32("abc").ok().map(|v| v.to_string()),
        ),
        ("CAST('1.555' AS DECIMAL(5, 2))", {
            let t = DecimalType::new(5, 2);
            cast::str_to_decimal("1.555", t)
                .unwrap()
                .map(|v| d2s((v, t)))
        }),
        ("TRY_CAST('12345.6' AS DECIMAL(4, 1))", {
            let t = DecimalType::new(4, 1);
            cast::str_to_decimal("12345.6", t)
                .ok()
                .flatten()
                .map(|v| d2s((v, t)))
        }),
        (
            "CAST('TRUE' AS BOOLEAN)",
            cast::str_to_bool("TRUE").ok().map(cast::bool_to_string),
        ),
        (
            "TRY_CAST('yes' AS BOOLEAN)",
            cast::str_to_bool("yes").ok().map(cast::bool_to_string),
        ),
        ("CAST(1000000.0e0 AS STRING)", s(&cast::f64_to_string(1e6))),
        (
            "CAST(12345678.9e0 AS STRING)",
            s(&cast::f64_to_string(12345678.9)),
        ),
        ("CAST(12.50 AS STRING)", s(&d2s(dec("12.50", 4, 2)))),
        (
            "CAST(TIMESTAMP '2024-01-05 10:00:00.120' AS STRING)",
            s(&cast::timestamp_to_string(ts("2024-01-05 10:00:00.120"), 3)),
        ),
        (
            "CAST(DATE '2024-01-05' AS TIMESTAMP)",
            s(&cast::timestamp_to_string(
                cast::date_to_timestamp(dt("2024-01-05")),
                6,
            )),
        ),
        (
            "CAST(' 2024-1-5 ' AS DATE)",
            cast::str_to_date(" 2024-1-5 ")
                .ok()
                .map(cast::date_to_string),
        ),
        (
            "TRY_CAST('2024-01-05T10:00' AS TIMESTAMP)",
            cast::str_to_timestamp("2024-01-05T10:00", 6)
                .ok()
                .map(|t| cast::timestamp_to_string(t, 6)),
        ),
        ("CAST(300 AS TINYINT)", s(&cast::narrow_i8(300).to_string())),
        (
            "CAST(CAST(1.0E20 AS DOUBLE) AS BIGINT)",
            s(&cast::f64_to_i64(1e20).to_string()),
        ),
        ("CAST(X'41' AS STRING)", s(&cast::bytes_to_string(b"A"))),
        (
            "EXTRACT(DOW FROM DATE '2024-01-05')",
            s(&temporal::extract_date(temporal::Unit::DayOfWeek, dt("2024-01-05")).to_string()),
        ),
        (
            "EXTRACT(WEEK FROM DATE '2024-01-05')",
            s(&temporal::extract_date(temporal::Unit::Week, dt("2024-01-05")).to_string()),
        ),
        (
            "EXTRACT(DOY FROM DATE '2024-12-31')",
            s(&temporal::extract_date(temporal::Unit::DayOfYear, dt("2024-12-31")).to_string()),
        ),
        (
            "EXTRACT(MILLISECOND FROM TIMESTAMP '2024-01-05 13:04:05.123')",
            s(
                &temporal::extract(temporal::Unit::Millisecond, ts("2024-01-05 13:04:05.123"))
                    .to_string(),
            ),
        ),
        (
            "FLOOR(TIMESTAMP '2024-05-17 10:23:45.5' TO WEEK)",
            s(&cast::timestamp_to_string(
                temporal::floor(ts("2024-05-17 10:23:45.5"), temporal::Unit::Week),
                1,
            )),
        ),
        (
            "FLOOR(TIMESTAMP '2024-05-17 10:23:45.5' TO QUARTER)",
            s(&cast::timestamp_to_string(
                temporal::floor(ts("2024-05-17 10:23:45.5"), temporal::Unit::Quarter),
                1,
            )),
        ),
        (
            "CEIL(TIMESTAMP '2024-05-17 10:23:45.5' TO MINUTE)",
            s(&cast::timestamp_to_string(
                temporal::ceil(ts("2024-05-17 10:23:45.5"), temporal::Unit::Minute),
                1,
            )),
        ),
        (
            "CEIL(TIMESTAMP '2024-05-17 00:00:00' TO DAY)",
            s(&cast::timestamp_to_string(
                temporal::ceil(ts("2024-05-17 00:00:00"), temporal::Unit::Day),
                0,
            )),
        ),
        (
            "DATE_FORMAT(TIMESTAMP '2024-01-05 15:48:29.252', 'EEE MMM d HH:mm')",
            s(
                &temporal::DatePattern::new("EEE MMM d HH:mm")
                    .format(ts("2024-01-05 15:48:29.252")),
            ),
        ),
        (
            "DATE_FORMAT(TIMESTAMP '2024-01-05 03:48:29.252', 'yyyyMMdd''T''HHmmss')",
            s(&temporal::DatePattern::new("yyyyMMdd'T'HHmmss")
                .format(ts("2024-01-05 03:48:29.252"))),
        ),
        (
            "DATE '2024-01-31' + INTERVAL '1' MONTH",
            s(&cast::date_to_string(temporal::add_months_date(
                dt("2024-01-31"),
                1,
            ))),
        ),
        (
            "DATE '2024-02-29' + INTERVAL '1' YEAR",
            s(&cast::date_to_string(temporal::add_months_date(
                dt("2024-02-29"),
                12,
            ))),
        ),
        (
            "DATE '2024-03-01' - INTERVAL '1' DAY",
            s(&cast::date_to_string(temporal::add_days(
                dt("2024-03-01"),
                -86_400_000,
            ))),
        ),
        (
            "TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '2' HOUR",
            s(&cast::timestamp_to_string(
                temporal::add_millis(ts("2024-01-01"), -7_200_000),
                0,
            )),
        ),
        (
            "TIMESTAMPDIFF(DAY, TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-03-01 12:00:00')",
            s(&temporal::timestamp_diff(
                temporal::Unit::Day,
                ts("2024-01-01"),
                ts("2024-03-01 12:00:00"),
            )
            .to_string()),
        ),
        (
            "TO_DATE('05/01/2024', 'dd/MM/yyyy')",
            temporal::to_date(
                "05/01/2024",
                Some(&temporal::DatePattern::new("dd/MM/yyyy")),
            )
            .map(cast::date_to_string),
        ),
        (
            "TO_TIMESTAMP('2024-01-05 10:00:00.123456')",
            temporal::to_timestamp("2024-01-05 10:00:00.123456", None)
                .map(|t| cast::timestamp_to_string(t, 3)),
        ),
        (
            "TO_TIMESTAMP('2024/01/05', 'yyyy/MM/dd')",
            temporal::to_timestamp(
                "2024/01/05",
                Some(&temporal::DatePattern::new("yyyy/MM/dd")),
            )
            .map(|t| cast::timestamp_to_string(t, 3)),
        ),
        (
            "'a_c' LIKE 'a\\_c' ESCAPE '\\'",
            s(&cast::bool_to_string(
                Like::new("a\\_c", Some('\\')).unwrap().matches("a_c"),
            )),
        ),
        (
            "'ABC' LIKE 'a%'",
            s(&cast::bool_to_string(
                Like::new("a%", None).unwrap().matches("ABC"),
            )),
        ),
        (
            "'é' > 'z'",
            s(&cast::bool_to_string(string::compare("é", "z").is_gt())),
        ),
        (
            "2147483647 + 1",
            s(&2147483647i32.wrapping_add(1).to_string()),
        ),
    ];
    for (expr, got) in checks {
        let want = flink
            .get(expr)
            .unwrap_or_else(|| panic!("no Flink result for {expr}"));
        assert_eq!(&got, want, "{expr}");
    }
}
