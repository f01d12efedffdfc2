//! The Flink front end: reads a whole job file into [`ast::Script`].
//!
//! It wraps sqlparser rather than forking it (like DataFusion's `DFParser`):
//! Flink-only statements — `SET`, `CREATE TABLE ... WITH (...)` with computed
//! columns and watermarks, `INSERT INTO|OVERWRITE`, statement-set blocks —
//! are parsed here with sqlparser's token-level API, and every query is handed
//! to sqlparser's `parse_query`. Statements are delimited by tokens, never by
//! splitting the text on `;`. A syntax error is reported at the offending
//! token, and parsing resumes after the next `;` so that every error of the
//! file is found in one run.

pub mod ast;
pub mod dialect;
mod group_by_quantifier;
mod grouping_subquery;
pub mod reserved;

use sqlparser::ast::{Expr, ObjectName};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::types;
use ast::*;
use dialect::FlinkDialect;

static DIALECT: FlinkDialect = FlinkDialect;

/// How deep expressions and queries may nest before the parser refuses,
/// instead of overflowing the stack.
const RECURSION_LIMIT: usize = 200;

/// Parses a job file. Errors go to `diags`; the statements that parsed are returned.
pub fn parse_script(file: &SourceFile, diags: &mut Diagnostics) -> Script {
    let tokens = match Tokenizer::new(&DIALECT, &file.text).tokenize_with_location() {
        Ok(tokens) => tokens,
        Err(e) => {
            let at = file.offset(e.location.line, e.location.column);
            let end = (at + 1).min(file.text.len()).max(at);
            diags.push(Diagnostic::error(
                Span::new(at, end),
                format!("syntax error: {}", lowercase_first(&e.message)),
            ));
            return Script::default();
        }
    };
    // Flink's parser refuses `!=` (its default conformance level allows only `<>`).
    for t in tokens.iter().filter(|t| t.token == Token::Neq) {
        let span = span_of(file, t.span);
        if file.text.get(span.start..span.end) == Some("!=") {
            diags.push(
                Diagnostic::error(
                    span,
                    "Bang equal '!=' is not allowed under the current SQL conformance level",
                )
                .with_help("write `<>`, as Flink SQL requires"),
            );
        }
    }
    let tokens = grouping_subquery::wrap_subquery_elements(tokens);
    let (tokens, group_by_distinct) = group_by_quantifier::strip_quantifiers(tokens);
    // The parser owns the tokens; error locations only need their spans.
    let token_spans: Vec<sqlparser::tokenizer::Span> = tokens.iter().map(|t| t.span).collect();
    let parser = Parser::new(&DIALECT)
        .with_recursion_limit(RECURSION_LIMIT)
        .with_tokens_with_locations(tokens);
    let mut front = FrontEnd {
        parser,
        token_spans: &token_spans,
        file,
        diags,
        declared: None,
    };
    let mut script = front.parse_statements();
    script.group_by_distinct = group_by_distinct
        .into_iter()
        .map(|l| (l.line, l.column))
        .collect();
    script
}

/// Converts a sqlparser span (1-based line/column) to a byte span.
pub fn span_of(file: &SourceFile, span: sqlparser::tokenizer::Span) -> Span {
    let start = file.offset(span.start.line, span.start.column);
    let end = file.offset(span.end.line, span.end.column).max(start);
    Span::new(start, end)
}

struct FrontEnd<'a> {
    parser: Parser<'a>,
    /// Every token's span, in file order.
    token_spans: &'a [sqlparser::tokenizer::Span],
    file: &'a SourceFile,
    diags: &'a mut Diagnostics,
    /// The name a CREATE statement being parsed declares.
    declared: Option<Name>,
}

type PResult<T> = Result<T, Diagnostic>;

impl FrontEnd<'_> {
    fn parse_statements(&mut self) -> Script {
        let mut script = Script::default();
        loop {
            while self.parser.consume_token(&Token::SemiColon) {}
            if self.peek() == &Token::EOF {
                break;
            }
            self.declared = None;
            let result = if self.peek_keyword(Keyword::EXECUTE) || self.is_begin_statement_set() {
                self.parse_statement_set(&mut script)
            } else {
                self.parse_statement()
                    .and_then(|s| self.expect_end_of_statement().map(|()| s))
                    .map(|s| script.statements.push(s))
            };
            if let Err(d) = result {
                self.diags.push(d);
                // A CREATE that failed still claims its name, so that later
                // statements using it do not report it as unknown.
                if let Some(name) = self.declared.take() {
                    script.broken_names.push(name);
                }
                self.skip_past_semicolon();
            }
        }
        script
    }

    /// `EXECUTE STATEMENT SET BEGIN ... END;` or `BEGIN STATEMENT SET; ... END;`.
    fn parse_statement_set(&mut self, script: &mut Script) -> PResult<()> {
        let start = self.current_span();
        if self.parser.parse_keyword(Keyword::EXECUTE) {
            self.expect_keywords(&[Keyword::STATEMENT, Keyword::SET, Keyword::BEGIN])?;
        } else {
            self.expect_keywords(&[Keyword::BEGIN, Keyword::STATEMENT, Keyword::SET])?;
            let _ = self.parser.consume_token(&Token::SemiColon);
        }
        loop {
            while self.parser.consume_token(&Token::SemiColon) {}
            if self.peek() == &Token::EOF {
                return Err(Diagnostic::error(start, "statement set is not closed")
                    .with_help("end the block with `END;`"));
            }
            if self.parser.parse_keyword(Keyword::END) {
                return self.expect_end_of_statement();
            }
            let result = if self.peek_keyword(Keyword::INSERT) {
                self.parse_insert()
                    .and_then(|s| self.expect_end_of_statement().map(|()| s))
                    .map(|s| script.statements.push(Statement::Insert(s)))
            } else {
                let span = self.current_span();
                Err(Diagnostic::error(
                    span,
                    format!(
                        "only INSERT statements are allowed in a statement set, found {}",
                        describe_token(self.peek())
                    ),
                )
                .with_note("the block began here")
                .with_related(start, "statement set begins here"))
            };
            if let Err(d) = result {
                self.diags.push(d);
                self.skip_past_semicolon();
            }
        }
    }

    fn parse_statement(&mut self) -> PResult<Statement> {
        match self.peek().clone() {
            Token::Word(w) if w.quote_style.is_none() => match w.keyword {
                Keyword::SET => self.parse_set().map(Statement::Set),
                Keyword::CREATE => self.parse_create(),
                Keyword::INSERT => self.parse_insert().map(Statement::Insert),
                Keyword::SELECT | Keyword::WITH | Keyword::VALUES => Err(Diagnostic::error(
                    self.current_span(),
                    "a query on its own is not part of a statement set",
                )
                .with_help("write `INSERT INTO <sink> SELECT ...` to send its rows to a table")),
                _ => Err(self.unsupported_statement()),
            },
            _ => Err(self.unsupported_statement()),
        }
    }

    fn unsupported_statement(&self) -> Diagnostic {
        Diagnostic::error(
            self.current_span(),
            format!(
                "unsupported statement starting with {}",
                describe_token(self.peek())
            ),
        )
        .with_help(
            "a job file holds SET, CREATE TABLE, CREATE VIEW, INSERT and EXECUTE STATEMENT SET",
        )
    }

    /// `SET 'key' = 'value'`.
    fn parse_set(&mut self) -> PResult<SetOption> {
        let start = self.current_span();
        self.parser.next_token();
        let key_span = self.current_span();
        let key = match self.peek().clone() {
            Token::SingleQuotedString(s) => {
                self.parser.next_token();
                s
            }
            _ => {
                return Err(
                    Diagnostic::error(key_span, "expected a quoted option key after SET")
                        .with_help("write SET 'key' = 'value';"),
                )
            }
        };
        self.expect_token(&Token::Eq)?;
        let value = self.parse_string_literal("a quoted option value")?;
        Ok(SetOption {
            key,
            value,
            span: start.to(self.previous_span()),
        })
    }

    fn parse_create(&mut self) -> PResult<Statement> {
        let start = self.current_span();
        self.parser.next_token(); // CREATE
        let temporary = self.parser.parse_keyword(Keyword::TEMPORARY);
        if self.parser.parse_keyword(Keyword::TABLE) {
            self.parse_create_table(start, temporary)
                .map(|t| Statement::CreateTable(Box::new(t)))
        } else if self.parser.parse_keyword(Keyword::VIEW) {
            self.parse_create_view(start, temporary)
                .map(Statement::CreateView)
        } else {
            let what = describe_token(self.peek());
            Err(Diagnostic::error(
                self.current_span(),
                format!("unsupported statement: CREATE {what}"),
            )
            .with_help("stmtc supports CREATE [TEMPORARY] TABLE and CREATE [TEMPORARY] VIEW"))
        }
    }

    fn parse_if_not_exists(&mut self) -> bool {
        self.parser
            .parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS])
    }

    fn parse_create_table(&mut self, start: Span, temporary: bool) -> PResult<CreateTable> {
        let if_not_exists = self.parse_if_not_exists();
        let name = self.parse_simple_name("table")?;
        self.declared = Some(name.clone());
        self.expect_token(&Token::LParen)?;
        let mut columns = Vec::new();
        let mut watermark = None;
        let mut primary_key: Option<PrimaryKey> = None;
        loop {
            let element_start = self.current_span();
            if self.parse_word("WATERMARK") {
                self.expect_keywords(&[Keyword::FOR])?;
                let column = self.parse_name()?;
                self.expect_keywords(&[Keyword::AS])?;
                let expr = self.parse_expr()?;
                let wm = Watermark {
                    column,
                    expr,
                    span: element_start.to(self.previous_span()),
                };
                if watermark.is_some() {
                    self.diags.push(Diagnostic::error(
                        wm.span,
                        "a table can have only one WATERMARK definition",
                    ));
                }
                watermark = Some(wm);
            } else if self.peek_keyword(Keyword::PRIMARY) || self.peek_keyword(Keyword::CONSTRAINT)
            {
                if self.parser.parse_keyword(Keyword::CONSTRAINT) {
                    self.parse_name()?;
                }
                self.expect_keywords(&[Keyword::PRIMARY, Keyword::KEY])?;
                self.expect_token(&Token::LParen)?;
                let mut key_columns = vec![self.parse_name()?];
                while self.parser.consume_token(&Token::Comma) {
                    key_columns.push(self.parse_name()?);
                }
                self.expect_token(&Token::RParen)?;
                self.parse_not_enforced()?;
                let pk = PrimaryKey {
                    columns: key_columns,
                    span: element_start.to(self.previous_span()),
                };
                self.set_primary_key(&mut primary_key, pk);
            } else {
                let (column, inline_pk) = self.parse_column_def()?;
                if let Some(pk) = inline_pk {
                    self.set_primary_key(&mut primary_key, pk);
                }
                columns.push(column);
            }
            if !self.parser.consume_token(&Token::Comma) {
                break;
            }
        }
        if self.peek() != &Token::RParen {
            return Err(self.expected_here("',' or ')' after a column definition"));
        }
        self.expect_token(&Token::RParen)?;
        if self.parser.parse_keyword(Keyword::COMMENT) {
            self.parse_string_literal("a quoted comment")?;
        }
        if self.peek_keyword(Keyword::PARTITIONED) {
            return Err(Diagnostic::error(
                self.current_span(),
                "PARTITIONED BY is not supported yet",
            ));
        }
        let with_span = self.current_span();
        let options = if self.parser.parse_keyword(Keyword::WITH) {
            self.parse_table_options()?
        } else {
            Vec::new()
        };
        if self.peek_keyword(Keyword::LIKE) {
            return Err(Diagnostic::error(
                self.current_span(),
                "CREATE TABLE ... LIKE is not supported yet",
            ));
        }
        Ok(CreateTable {
            name,
            temporary,
            if_not_exists,
            columns,
            watermark,
            primary_key,
            options,
            with_span,
            span: start.to(self.previous_span()),
        })
    }

    fn set_primary_key(&mut self, slot: &mut Option<PrimaryKey>, pk: PrimaryKey) {
        if let Some(first) = slot {
            self.diags.push(
                Diagnostic::error(pk.span, "a table can have only one PRIMARY KEY")
                    .with_related(first.span, "first primary key"),
            );
        } else {
            *slot = Some(pk);
        }
    }

    /// `NOT ENFORCED` is required: Flink does not check keys of external data.
    fn parse_not_enforced(&mut self) -> PResult<()> {
        if self
            .parser
            .parse_keywords(&[Keyword::NOT, Keyword::ENFORCED])
        {
            Ok(())
        } else {
            let span = self.current_span();
            let _ = self.parser.parse_keyword(Keyword::ENFORCED);
            Err(Diagnostic::error(
                span,
                "Flink does not support ENFORCED primary keys; write PRIMARY KEY (...) NOT ENFORCED",
            ))
        }
    }

    /// A physical (`name TYPE [NOT NULL]`), computed (`name AS expr`) or
    /// metadata column, with an inline `PRIMARY KEY NOT ENFORCED` if present.
    fn parse_column_def(&mut self) -> PResult<(ColumnDef, Option<PrimaryKey>)> {
        let name = self.parse_column_name()?;
        let start = name.span;
        let mut inline_pk = None;
        let kind = if self.parser.parse_keyword(Keyword::AS) {
            ColumnKind::Computed {
                expr: Box::new(self.parse_expr()?),
            }
        } else {
            let kind = self.parse_type()?;
            // Flink's grammar: at most one NULL / NOT NULL, right after the
            // type, then at most one PRIMARY KEY NOT ENFORCED.
            let mut nullable = true;
            if self.parser.parse_keywords(&[Keyword::NOT, Keyword::NULL]) {
                nullable = false;
            } else {
                let _ = self.parser.parse_keyword(Keyword::NULL);
            }
            let at = self.current_span();
            if self
                .parser
                .parse_keywords(&[Keyword::PRIMARY, Keyword::KEY])
            {
                self.parse_not_enforced()?;
                inline_pk = Some(PrimaryKey {
                    columns: vec![name.clone()],
                    span: at.to(self.previous_span()),
                });
            }
            let at = self.current_span();
            let again = if self.parser.parse_keywords(&[Keyword::NOT, Keyword::NULL])
                || self.parser.parse_keyword(Keyword::NULL)
            {
                Some("NULL / NOT NULL")
            } else if self
                .parser
                .parse_keywords(&[Keyword::PRIMARY, Keyword::KEY])
            {
                Some("PRIMARY KEY")
            } else {
                None
            };
            if let Some(what) = again {
                // The peeked span may begin with the whitespace before the word.
                let text = &self.file.text[at.start..];
                let start = at.start + (text.len() - text.trim_start().len());
                let word = self.file.text[start..]
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(0);
                let end = self.previous_span().end.max(start + word);
                return Err(Diagnostic::error(
                    Span::new(start, end),
                    format!(
                        "syntax error: unexpected {what}: a column takes one NULL or NOT NULL, \
                         right after its type, then at most one PRIMARY KEY NOT ENFORCED"
                    ),
                ));
            }
            let data_type = types::DataType::new(kind, nullable);
            if self.parser.parse_keyword(Keyword::METADATA) {
                if self.parser.parse_keyword(Keyword::FROM) {
                    self.parse_string_literal("a quoted metadata key")?;
                }
                let _ = self.parser.parse_keyword(Keyword::VIRTUAL);
                ColumnKind::Metadata
            } else {
                ColumnKind::Physical { data_type }
            }
        };
        // Comments document the DDL; they change nothing for the job.
        if self.parser.parse_keyword(Keyword::COMMENT) {
            self.parse_string_literal("a quoted comment")?;
        }
        let column = ColumnDef {
            name,
            kind,
            span: start.to(self.previous_span()),
        };
        Ok((column, inline_pk))
    }

    /// A data type, converted to Flink's type system right away so that an
    /// unknown or malformed type is reported where it is written.
    fn parse_type(&mut self) -> PResult<types::TypeKind> {
        let start = self.current_span();
        let data_type = self
            .parser
            .parse_data_type()
            .map_err(|e| self.error_of(e))?;
        let span = start.to(self.previous_span());
        use sqlparser::ast::{DataType as T, ExactNumberInfo as P};
        if let T::Decimal(P::Precision(p) | P::PrecisionAndScale(p, _))
        | T::Numeric(P::Precision(p) | P::PrecisionAndScale(p, _)) = &data_type
        {
            if *p > u64::from(types::MAX_DECIMAL_PRECISION) {
                self.diags.push(Diagnostic::warning(
                    span,
                    format!("DECIMAL precision {p} is above Flink's maximum of 38; Flink uses 38 instead"),
                ));
            }
        }
        types::from_sql(&data_type).map_err(|msg| Diagnostic::error(span, msg))
    }

    fn parse_table_options(&mut self) -> PResult<Vec<TableOption>> {
        self.expect_token(&Token::LParen)?;
        let mut options = Vec::new();
        if self.parser.consume_token(&Token::RParen) {
            return Ok(options);
        }
        loop {
            let key_span = self.current_span();
            let key = match self.peek().clone() {
                Token::SingleQuotedString(s) => {
                    self.parser.next_token();
                    s
                }
                Token::Word(w) => {
                    return Err(Diagnostic::error(
                        key_span,
                        format!("option keys must be string literals, found `{}`", w.value),
                    )
                    .with_help(format!("write '{}'", w.value)))
                }
                _ => return Err(self.expected_here("a quoted option key")),
            };
            self.expect_token(&Token::Eq)?;
            let value_span = self.current_span();
            let value = match self.peek().clone() {
                Token::SingleQuotedString(s) => {
                    self.parser.next_token();
                    s
                }
                Token::Number(n, _) => {
                    return Err(Diagnostic::error(
                        value_span,
                        format!("option values must be string literals, found {n}"),
                    )
                    .with_help(format!("write '{n}'")))
                }
                _ => return Err(self.expected_here("a quoted option value")),
            };
            options.push(TableOption {
                key,
                key_span,
                value,
                value_span,
            });
            if !self.parser.consume_token(&Token::Comma) {
                break;
            }
        }
        self.expect_token(&Token::RParen)?;
        Ok(options)
    }

    fn parse_create_view(&mut self, start: Span, temporary: bool) -> PResult<CreateView> {
        let if_not_exists = self.parse_if_not_exists();
        let name = self.parse_simple_name("view")?;
        self.declared = Some(name.clone());
        let mut columns = Vec::new();
        if self.parser.consume_token(&Token::LParen) {
            loop {
                columns.push(self.parse_name()?);
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            self.expect_token(&Token::RParen)?;
        }
        if self.parser.parse_keyword(Keyword::COMMENT) {
            self.parse_string_literal("a quoted comment")?;
        }
        self.expect_keywords(&[Keyword::AS])?;
        let query = self.parse_query()?;
        Ok(CreateView {
            name,
            temporary,
            if_not_exists,
            columns,
            query,
            span: start.to(self.previous_span()),
        })
    }

    fn parse_insert(&mut self) -> PResult<Insert> {
        let start = self.current_span();
        self.expect_keywords(&[Keyword::INSERT])?;
        let overwrite = if self.parser.parse_keyword(Keyword::OVERWRITE) {
            true
        } else {
            self.expect_keywords(&[Keyword::INTO])?;
            false
        };
        let _ = self.parser.parse_keyword(Keyword::TABLE);
        let target = self.parse_simple_name("table")?;
        if self.peek_keyword(Keyword::PARTITION) {
            return Err(Diagnostic::error(
                self.current_span(),
                "INSERT ... PARTITION is not supported yet",
            ));
        }
        let mut columns = Vec::new();
        // `(a, b)` is a column list unless it opens the query: `INSERT INTO t (SELECT ...)`.
        if self.peek() == &Token::LParen
            && !matches!(&self.parser.peek_nth_token_ref(1).token,
                Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES) && w.quote_style.is_none())
        {
            self.parser.next_token();
            loop {
                columns.push(self.parse_name()?);
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            self.expect_token(&Token::RParen)?;
        }
        let query = self.parse_query()?;
        Ok(Insert {
            target,
            overwrite,
            columns,
            query,
            span: start.to(self.previous_span()),
        })
    }

    // ---- small token-level helpers ----

    fn peek(&self) -> &Token {
        &self.parser.peek_token_ref().token
    }

    fn peek_keyword(&self, keyword: Keyword) -> bool {
        matches!(self.peek(), Token::Word(w) if w.keyword == keyword && w.quote_style.is_none())
    }

    /// Consumes an unquoted word that sqlparser does not know as a keyword.
    fn parse_word(&mut self, word: &str) -> bool {
        let found = matches!(self.peek(), Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
        if found {
            self.parser.next_token();
        }
        found
    }

    fn is_begin_statement_set(&self) -> bool {
        self.peek_keyword(Keyword::BEGIN)
            && matches!(&self.parser.peek_nth_token_ref(1).token, Token::Word(w) if w.keyword == Keyword::STATEMENT)
    }

    fn current_span(&self) -> Span {
        span_of(self.file, self.parser.peek_token_ref().span)
    }

    fn previous_span(&self) -> Span {
        span_of(self.file, self.parser.get_previous_token().span)
    }

    fn parse_expr(&mut self) -> PResult<Expr> {
        let expr = self.parser.parse_expr().map_err(|e| self.error_of(e))?;
        self.check_reserved_in_expr(&expr);
        Ok(expr)
    }

    fn parse_query(&mut self) -> PResult<Box<sqlparser::ast::Query>> {
        let query = self.parser.parse_query().map_err(|e| self.error_of(e))?;
        self.check_reserved_in_query(&query);
        Ok(query)
    }

    fn expect_token(&mut self, token: &Token) -> PResult<()> {
        self.parser
            .expect_token(token)
            .map(|_| ())
            .map_err(|e| self.error_of(e))
    }

    fn expect_keywords(&mut self, keywords: &[Keyword]) -> PResult<()> {
        for &k in keywords {
            if !self.parser.parse_keyword(k) {
                return Err(self.expected_here(&format!("{k:?}")));
            }
        }
        Ok(())
    }

    fn expected_here(&self, what: &str) -> Diagnostic {
        Diagnostic::error(
            self.current_span(),
            format!(
                "syntax error: expected {what}, found {}",
                describe_token(self.peek())
            ),
        )
    }

    fn parse_string_literal(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Token::SingleQuotedString(s) => {
                self.parser.next_token();
                Ok(s)
            }
            _ => Err(self.expected_here(what)),
        }
    }

    /// A column name in DDL.
    fn parse_column_name(&mut self) -> PResult<Name> {
        self.parse_name()
    }

    /// Refuses an unquoted reserved word where Flink expects an identifier
    /// (`timestamp`, `value`, `raw`, ...), as Flink's parser does. The
    /// statement is kept, so the mistake is reported once, where it is.
    fn check_reserved(&mut self, ident: &sqlparser::ast::Ident) {
        if reserved::is_unquoted_reserved(ident) {
            self.diags
                .push(reserved_word(span_of(self.file, ident.span), &ident.value));
        }
    }

    fn check_reserved_in_query(&mut self, query: &sqlparser::ast::Query) {
        let (file, diags) = (self.file, &mut *self.diags);
        reserved::check_query(query, &mut |i| {
            diags.push(reserved_word(span_of(file, i.span), &i.value))
        });
    }

    fn check_reserved_in_expr(&mut self, expr: &Expr) {
        let (file, diags) = (self.file, &mut *self.diags);
        reserved::check_expr(expr, &mut |i| {
            diags.push(reserved_word(span_of(file, i.span), &i.value))
        });
    }

    fn parse_name(&mut self) -> PResult<Name> {
        let span = self.current_span();
        let ident = self
            .parser
            .parse_identifier()
            .map_err(|e| self.error_of(e))?;
        self.check_reserved(&ident);
        Ok(Name {
            value: ident.value,
            span,
        })
    }

    /// A table or view name. Catalog-qualified names are refused: a job has one
    /// in-memory catalog.
    fn parse_simple_name(&mut self, what: &str) -> PResult<Name> {
        let start = self.current_span();
        let name: ObjectName = self
            .parser
            .parse_object_name(false)
            .map_err(|e| self.error_of(e))?;
        let span = start.to(self.previous_span());
        for part in &name.0 {
            if let Some(ident) = part.as_ident() {
                self.check_reserved(ident);
            }
        }
        let mut parts: Vec<String> = name
            .0
            .iter()
            .filter_map(|p| p.as_ident().map(|i| i.value.clone()))
            .collect();
        if parts.len() != 1 {
            return Err(Diagnostic::error(
                span,
                format!("qualified {what} names (catalog.database.{what}) are not supported"),
            )
            .with_help(format!("use the bare {what} name")));
        }
        Ok(Name {
            value: parts.remove(0),
            span,
        })
    }

    /// After a statement: `;`, end of file, or (in a block) nothing else.
    fn expect_end_of_statement(&mut self) -> PResult<()> {
        match self.peek() {
            Token::SemiColon => {
                self.parser.next_token();
                Ok(())
            }
            Token::EOF => Ok(()),
            _ => Err(self.expected_here("';' at the end of the statement")),
        }
    }

    fn skip_past_semicolon(&mut self) {
        loop {
            match self.parser.next_token().token {
                Token::SemiColon | Token::EOF => break,
                _ => {}
            }
        }
    }

    /// A sqlparser error as a located diagnostic. sqlparser puts the location
    /// of the offending token into its message text (`... at Line: 3, Column: 7`).
    fn error_of(&self, e: ParserError) -> Diagnostic {
        let (text, located) = match &e {
            ParserError::ParserError(m) | ParserError::TokenizerError(m) => split_location(m),
            ParserError::RecursionLimitExceeded => {
                return Diagnostic::error(
                    self.current_span(),
                    "the statement is nested too deeply to compile",
                )
                .with_help(format!(
                    "stmtc accepts up to {RECURSION_LIMIT} levels of nested expressions and queries"
                ))
            }
        };
        let span = match located {
            Some((line, column)) => self.token_span_at(line, column),
            None => self.current_span(),
        };
        let message = match text
            .strip_prefix("Expected: ")
            .or_else(|| text.strip_prefix("Expected "))
            .and_then(|r| r.split_once(", found: "))
        {
            Some((expected, found)) => format!("syntax error: expected {expected}, found {found}"),
            None => format!("syntax error: {}", lowercase_first(text)),
        };
        Diagnostic::error(span, message)
    }

    /// The span of the token that starts at a line/column, or a one-character span.
    fn token_span_at(&self, line: u64, column: u64) -> Span {
        // Tokens are in file order: a binary search, not a scan per error.
        let i = self
            .token_spans
            .partition_point(|s| (s.start.line, s.start.column) < (line, column));
        self.token_spans
            .get(i)
            .filter(|s| s.start.line == line && s.start.column == column)
            .map(|s| span_of(self.file, *s))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| {
                let at = self.file.offset(line, column);
                Span::new(at, (at + 1).min(self.file.text.len()).max(at))
            })
    }
}

/// Splits `"Expected: x, found: y at Line: 3, Column: 7"` into text and location.
fn split_location(message: &str) -> (&str, Option<(u64, u64)>) {
    let Some(at) = message.rfind(" at Line: ") else {
        return (message, None);
    };
    let (text, rest) = message.split_at(at);
    let rest = &rest[" at Line: ".len()..];
    let location = rest.split_once(", Column: ").and_then(|(line, column)| {
        let column: String = column.chars().take_while(char::is_ascii_digit).collect();
        Some((line.trim().parse().ok()?, column.parse().ok()?))
    });
    match location {
        Some(l) => (text, Some(l)),
        None => (message, None),
    }
}

/// An unquoted reserved word where Flink expects an identifier. Flink's own
/// message is `Encountered "raw" at line 1, column 14`.
fn reserved_word(span: Span, word: &str) -> Diagnostic {
    Diagnostic::error(span, format!("`{word}` is a reserved word in Flink SQL"))
        .with_help(format!("quote it with backticks: `{word}`"))
}

fn describe_token(token: &Token) -> String {
    match token {
        Token::EOF => "end of file".to_string(),
        Token::Word(w) if w.quote_style.is_none() => format!("`{}`", w.value),
        other => format!("`{other}`"),
    }
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
