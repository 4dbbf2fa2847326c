//! The functions a change touches. Python, Java, Go, JavaScript, TypeScript and Rust files
//! (chosen by extension) are parsed with tree-sitter; for every changed line, the
//! enclosing definition is found by walking up from the line's node, and named with its
//! enclosing classes, types and functions joined by `.` (`Class.method`,
//! `outer.inner`, `Type.Method` for a Go method, `describe.it` for a JavaScript test).
//! Other languages fall back to the hunk-header context git writes.
//!
//! Lines of a decorator (`@...` in Python, annotations in Java and TypeScript, `#[...]`
//! attributes in Rust) belong to the definition they decorate.
//!
//! Speed: a Python file's changed lines are named from a line scan of the source (see
//! [`super::python_defs`]), which reads the block structure from the indentation, where it
//! can tell; it names them as tree-sitter does. Where it cannot, the file is parsed only
//! where its changed lines are: the top-level definitions holding them, and in a class
//! only the header and the members holding them (tree-sitter's included ranges; see
//! [`super::python_ranges`]). In valid Python this
//! gives the names a parse of the whole file gives. Where those parts hold a syntax error
//! the whole file is parsed instead; where the error lies elsewhere in the file, the parts
//! are spared tree-sitter's recovery from it, which in a whole-file parse can move the
//! definitions after it out of their class. Files of the other languages are parsed
//! whole: a blob is parsed once and kept (by its id) for the commits that follow, where it
//! is usually the base side of the next change to the file, and the head side is parsed
//! incrementally from the base tree edited by the diff's hunks.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::rules::function_in_context;
use git2::Oid;
use tree_sitter::{InputEdit, Language, Node, Parser, Point, Tree};

use super::python_defs;
use super::python_ranges::ranges_for_rows;

/// A language a parser is bundled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// `.py`, `.pyi`.
    Python,
    /// `.java`.
    Java,
    /// `.go`.
    Go,
    /// `.js`, `.jsx`, `.mjs`, `.cjs`.
    JavaScript,
    /// `.ts`, `.mts`, `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.rs`.
    Rust,
}

impl Lang {
    const ALL: [Lang; 7] = [
        Lang::Python,
        Lang::Java,
        Lang::Go,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Rust,
    ];

    /// The language of a path, by its extension.
    pub fn of_path(path: &str) -> Option<Self> {
        let (_, ext) = path.rsplit('/').next()?.rsplit_once('.')?;
        Some(match ext {
            "py" | "pyi" => Self::Python,
            "java" => Self::Java,
            "go" => Self::Go,
            "js" | "jsx" | "mjs" | "cjs" => Self::JavaScript,
            "ts" | "mts" | "cts" => Self::TypeScript,
            "tsx" => Self::Tsx,
            "rs" => Self::Rust,
            _ => return None,
        })
    }

    fn grammar(self) -> Language {
        match self {
            Self::Python => tree_sitter_python::LANGUAGE.into(),
            Self::Java => tree_sitter_java::LANGUAGE.into(),
            Self::Go => tree_sitter_go::LANGUAGE.into(),
            Self::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Self::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Self::Rust => tree_sitter_rust::LANGUAGE.into(),
        }
    }

    fn index(self) -> usize {
        Self::ALL
            .iter()
            .position(|&l| l == self)
            .expect("ALL lists every language")
    }
}

/// How a function name was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A tree-sitter parse of the source at base and head.
    Ast(Lang),
    /// The `@@ ... @@ <context>` text of a hunk header.
    HunkHeader,
}

impl Method {
    /// The name written in records and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ast(Lang::Python) => "python-ast",
            Self::Ast(Lang::Java) => "java-ast",
            Self::Ast(Lang::Go) => "go-ast",
            Self::Ast(Lang::JavaScript) => "javascript-ast",
            Self::Ast(Lang::TypeScript | Lang::Tsx) => "typescript-ast",
            Self::Ast(Lang::Rust) => "rust-ast",
            Self::HunkHeader => "hunk-header",
        }
    }
}

/// A function found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    /// The qualified name (`Class.method`, `outer.inner`, `function`).
    pub name: String,
    /// How it was found.
    pub method: Method,
    /// The qualified name of the innermost enclosing test (the function itself, or the
    /// test a nested helper is defined in), by the language's convention: a Python
    /// `test*` function, a Java `@Test`-like or `test*` method, a Go `Test*`/`Benchmark*`/
    /// `Fuzz*`/`Example*` function, a Rust `#[test]`-like or `test*` function, a
    /// JavaScript/TypeScript `it`/`test` call or `test*` function; from a hunk header, a
    /// `test*` name.
    pub test: Option<String>,
}

/// One side of a changed file: its blob and the changed lines (1-based) on that side.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    /// The blob's id (the cache key).
    pub blob: Oid,
    /// The blob's content.
    pub content: &'a [u8],
    /// Lines removed (base side) or added (head side).
    pub lines: &'a [usize],
}

/// A hunk's line ranges: `(old_start, old_lines, new_start, new_lines)` as in its header.
pub type HunkRange = (usize, usize, usize, usize);

/// A parsed blob, kept for later commits.
struct Parsed {
    tree: Tree,
    source: Vec<u8>,
}

/// The most parsed blobs kept.
const CACHE_ENTRIES: usize = 256;

/// The most line-scanned Python blobs kept.
const SCANNED_ENTRIES: usize = 64;

/// Parsers for every language, reused across files, and the parsed blobs.
pub struct FunctionFinder {
    parsers: Vec<Option<Parser>>,
    cache: HashMap<(Lang, Oid), Arc<Parsed>>,
    order: VecDeque<(Lang, Oid)>,
    /// What the line scan read of Python blobs (`None`: not read with certainty), kept as
    /// a commit's head is usually the next one's base.
    scanned: HashMap<Oid, Option<Arc<python_defs::Structure>>>,
    scanned_order: VecDeque<Oid>,
}

impl std::fmt::Debug for FunctionFinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionFinder")
            .field("cached", &self.cache.len())
            .finish_non_exhaustive()
    }
}

impl Default for FunctionFinder {
    fn default() -> Self {
        Self::new()
    }
}

impl FunctionFinder {
    /// A finder with no parser built yet (each is built on first use).
    pub fn new() -> Self {
        Self {
            parsers: Lang::ALL.iter().map(|_| None).collect(),
            cache: HashMap::new(),
            order: VecDeque::new(),
            scanned: HashMap::new(),
            scanned_order: VecDeque::new(),
        }
    }

    fn parser(&mut self, lang: Lang) -> &mut Parser {
        self.parsers[lang.index()].get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&lang.grammar())
                .expect("the bundled grammars match the tree-sitter version");
            parser
        })
    }

    fn parse(&mut self, lang: Lang, source: &[u8], old: Option<&Tree>) -> Option<Tree> {
        self.parser(lang).parse(source, old)
    }

    /// A tree of the Python `source` that holds 1-based `lines` as a parse of the whole
    /// source does: only the definitions around them are parsed, unless they hold a
    /// syntax error.
    fn parse_python_around(&mut self, source: &[u8], lines: &[usize]) -> Option<Tree> {
        let rows = lines.iter().map(|l| l.saturating_sub(1));
        if let Some(ranges) = ranges_for_rows(source, rows) {
            let parser = self.parser(Lang::Python);
            let tree = parser
                .set_included_ranges(&ranges)
                .ok()
                .and_then(|()| parser.parse(source, None));
            parser
                .set_included_ranges(&[])
                .expect("no ranges is the whole source");
            if let Some(tree) = tree.filter(|t| !t.root_node().has_error()) {
                return Some(tree);
            }
        }
        self.parse(Lang::Python, source, None)
    }

    /// The line scan's reading of the Python blob of `side`: kept, else read now.
    fn scanned(&mut self, side: Side<'_>) -> Option<Arc<python_defs::Structure>> {
        if let Some(hit) = self.scanned.get(&side.blob) {
            return hit.clone();
        }
        let read = python_defs::Structure::of(side.content).map(Arc::new);
        if self.scanned_order.len() == SCANNED_ENTRIES
            && let Some(old) = self.scanned_order.pop_front()
        {
            self.scanned.remove(&old);
        }
        self.scanned_order.push_back(side.blob);
        self.scanned.insert(side.blob, read.clone());
        read
    }

    fn remember(&mut self, key: (Lang, Oid), parsed: Arc<Parsed>) {
        if self.order.len() == CACHE_ENTRIES
            && let Some(old) = self.order.pop_front()
        {
            self.cache.remove(&old);
        }
        self.order.push_back(key);
        self.cache.insert(key, parsed);
    }

    /// The parse of `side`: from the cache, else incrementally from `base` edited by
    /// `hunks` when given, else from scratch.
    fn parsed(
        &mut self,
        lang: Lang,
        side: Side<'_>,
        base: Option<(&Parsed, &[HunkRange])>,
    ) -> Option<Arc<Parsed>> {
        if let Some(hit) = self.cache.get(&(lang, side.blob)) {
            return Some(Arc::clone(hit));
        }
        let edited = base.map(|(base, hunks)| {
            let mut tree = base.tree.clone();
            for edit in edits(&base.source, side.content, hunks) {
                tree.edit(&edit);
            }
            tree
        });
        let tree = self.parse(lang, side.content, edited.as_ref())?;
        let parsed = Arc::new(Parsed {
            tree,
            source: side.content.to_vec(),
        });
        self.remember((lang, side.blob), Arc::clone(&parsed));
        Some(parsed)
    }

    /// Whether [`Self::touched`] reads the base blob `blob` with removed `lines`: when it
    /// looks them up, or when it parses the head incrementally from the base's kept parse
    /// (languages parsed whole).
    pub fn reads_base(&self, lang: Lang, blob: Option<Oid>, lines: &[usize]) -> bool {
        !lines.is_empty()
            || (lang != Lang::Python
                && blob.is_some_and(|blob| self.cache.contains_key(&(lang, blob))))
    }

    /// The functions of a `lang` file holding a changed line: removed lines in the base
    /// source, added lines in the head source, in that order, each once.
    pub fn touched(
        &mut self,
        lang: Lang,
        base: Option<Side<'_>>,
        head: Option<Side<'_>>,
        hunks: &[HunkRange],
    ) -> Vec<Touched> {
        let mut found: Vec<Touched> = Vec::new();
        if lang == Lang::Python {
            for side in [base, head].into_iter().flatten() {
                if side.lines.is_empty() {
                    continue;
                }
                let answers = self
                    .scanned(side)
                    .map(|read| python_defs::answers(side.content, &read, side.lines));
                let Some(answers) = answers else {
                    // The scan cannot read the file: every line is for the parser.
                    if let Some(tree) = self.parse_python_around(side.content, side.lines) {
                        find_at(lang, &tree, side.content, side.lines, &mut found);
                    }
                    continue;
                };
                // Only the lines the scan cannot tell are parsed for, with the blocks
                // around them; the others keep the scan's names (tree-sitter's, where it
                // tells them), in the order of the lines.
                let unsure: Vec<usize> = side
                    .lines
                    .iter()
                    .zip(&answers)
                    .filter(|(_, a)| matches!(a, python_defs::Answer::Unsure))
                    .map(|(line, _)| *line)
                    .collect();
                let parsed = if unsure.is_empty() {
                    None
                } else {
                    match self.parse_python_around(side.content, &unsure) {
                        Some(tree) => Some(tree),
                        None => continue,
                    }
                };
                let mut from_parse = parsed
                    .as_ref()
                    .map(|tree| definitions_at(lang, tree, side.content, &unsure));
                let named = answers.into_iter().map(|answer| match answer {
                    python_defs::Answer::Told(named) => named,
                    python_defs::Answer::Unsure => {
                        from_parse.as_mut().and_then(Iterator::next).flatten()
                    }
                });
                add_named(lang, named.flatten(), &mut found);
            }
            return found;
        }
        // The base is parsed when its lines are looked up, or when it is at hand anyway
        // (kept from an earlier commit) to parse the head incrementally.
        let base_parsed = base
            .filter(|side| self.reads_base(lang, Some(side.blob), side.lines))
            .and_then(|side| self.parsed(lang, side, None));
        let head_parsed = head.and_then(|side| {
            let from = base_parsed.as_deref().map(|b| (b, hunks));
            self.parsed(lang, side, from)
        });
        for (side, parsed) in [(base, &base_parsed), (head, &head_parsed)] {
            if let (Some(side), Some(parsed)) = (side, parsed) {
                find_at(lang, &parsed.tree, &parsed.source, side.lines, &mut found);
            }
        }
        found
    }
}

/// The definition enclosing each 1-based line of `lines` in `tree` (parsed from
/// `source`), named with its enclosing test.
fn definitions_at<'a>(
    lang: Lang,
    tree: &'a Tree,
    source: &'a [u8],
    lines: &'a [usize],
) -> impl Iterator<Item = Option<(String, Option<String>)>> + 'a {
    let index = LineIndex::new(source);
    let mut locator = Locator::new(tree.root_node());
    lines.iter().map(move |&line| {
        let (start, end) = index.span(line)?;
        let path = locator.path(start, end);
        enclosing(lang, &path, source)
    })
}

/// The smallest node spanning a range, found as tree-sitter's `descendant_for_point_range`
/// finds it, and the path to it from the root. Each node's children are listed once and
/// searched by their end, so that looking up every line of a file costs about its size,
/// where tree-sitter scans a node's children for every lookup (a module of thousands of
/// definitions, once per line) and `parent()` searches down from the root again.
struct Locator<'t> {
    root: Node<'t>,
    children: HashMap<usize, Vec<Node<'t>>>,
    /// Children listed so far (what the lookups cost).
    listed: usize,
}

impl<'t> Locator<'t> {
    fn new(root: Node<'t>) -> Self {
        Self {
            root,
            children: HashMap::new(),
            listed: 0,
        }
    }

    /// The root, then each node down to the smallest one spanning `start..end`.
    fn path(&mut self, start: Point, end: Point) -> Vec<Node<'t>> {
        let mut path = vec![self.root];
        let mut node = self.root;
        loop {
            let listed = &mut self.listed;
            let kids = self.children.entry(node.id()).or_insert_with(|| {
                let mut cursor = node.walk();
                let kids: Vec<Node<'t>> = node.children(&mut cursor).collect();
                *listed += kids.len();
                kids
            });
            // The first child ending at or past `end`, and past `start` (at it, for an
            // empty child): the ends of children do not decrease.
            let i = kids.partition_point(|k| {
                let (s, e) = (k.start_position(), k.end_position());
                e < end || if s == e { e < start } else { e <= start }
            });
            let Some(&child) = kids.get(i) else { break };
            if start < child.start_position() {
                break;
            }
            path.push(child);
            node = child;
        }
        path
    }
}

/// Adds to `found` the definitions enclosing `lines` not in it yet.
fn find_at(lang: Lang, tree: &Tree, source: &[u8], lines: &[usize], found: &mut Vec<Touched>) {
    add_named(
        lang,
        definitions_at(lang, tree, source, lines).flatten(),
        found,
    );
}

/// Adds to `found` the named definitions not in it yet, in order.
fn add_named(
    lang: Lang,
    named: impl IntoIterator<Item = (String, Option<String>)>,
    found: &mut Vec<Touched>,
) {
    let mut seen: std::collections::HashSet<String> =
        found.iter().map(|t| t.name.clone()).collect();
    for (name, test) in named {
        if seen.insert(name.clone()) {
            found.push(Touched {
                name,
                method: Method::Ast(lang),
                test,
            });
        }
    }
}

/// The functions the hunk-header contexts of a file give (for languages without a parser).
pub fn from_hunk_headers<'a>(contexts: impl IntoIterator<Item = &'a str>) -> Vec<Touched> {
    let mut found: Vec<Touched> = Vec::new();
    for context in contexts {
        if let Some(name) = function_in_context(context)
            && !found.iter().any(|t| t.name == name)
        {
            found.push(Touched {
                test: name.starts_with("test").then(|| name.clone()),
                name,
                method: Method::HunkHeader,
            });
        }
    }
    found
}

/// Byte offsets of line starts.
struct LineIndex<'s> {
    source: &'s [u8],
    starts: Vec<usize>,
}

impl<'s> LineIndex<'s> {
    fn new(source: &'s [u8]) -> Self {
        let mut starts = Vec::with_capacity(source.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', source).map(|i| i + 1));
        Self { source, starts }
    }

    /// The byte offset where 0-based line `row` starts (the end of the source past it).
    fn offset(&self, row: usize) -> usize {
        self.starts
            .get(row)
            .copied()
            .unwrap_or(self.source.len())
            .min(self.source.len())
    }

    /// The points of 1-based `line` from its first non-blank character to its end (the
    /// line's start for a blank line).
    fn span(&self, line: usize) -> Option<(Point, Point)> {
        let row = line.checked_sub(1)?;
        let start = *self.starts.get(row)?;
        let end = self
            .starts
            .get(row + 1)
            .map_or(self.source.len(), |e| e - 1);
        let text = &self.source[start..end.max(start)];
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let first = text.iter().position(|b| !b.is_ascii_whitespace());
        let last = text.iter().rposition(|b| !b.is_ascii_whitespace());
        Some(match (first, last) {
            (Some(first), Some(last)) => (Point::new(row, first), Point::new(row, last + 1)),
            _ => (Point::new(row, 0), Point::new(row, 0)),
        })
    }
}

/// The edits turning `old` into `new`, one per hunk, last hunk first (so that each edit's
/// positions are still those of the old text).
fn edits(old: &[u8], new: &[u8], hunks: &[HunkRange]) -> Vec<InputEdit> {
    let (old_lines, new_lines) = (LineIndex::new(old), LineIndex::new(new));
    // A hunk header's start is the line before an empty range.
    let first_row = |start: usize, count: usize| if count == 0 { start } else { start - 1 };
    hunks
        .iter()
        .rev()
        .filter(|h| h.0 + h.1 > 0 || h.2 + h.3 > 0)
        .map(|&(old_start, old_count, new_start, new_count)| {
            let old_row = first_row(old_start, old_count);
            let new_row = first_row(new_start, new_count);
            let start_byte = old_lines.offset(old_row);
            let old_end_byte = old_lines.offset(old_row + old_count);
            let new_len = new_lines.offset(new_row + new_count) - new_lines.offset(new_row);
            InputEdit {
                start_byte,
                old_end_byte,
                new_end_byte: start_byte + new_len,
                start_position: Point::new(old_row, 0),
                old_end_position: end_point(&old_lines, old_row + old_count),
                new_end_position: {
                    let end = end_point(&new_lines, new_row + new_count);
                    Point::new(old_row + (end.row - new_row), end.column)
                },
            }
        })
        .collect()
}

/// The point at the start of 0-based `row`, or at the end of a source without a final
/// newline when `row` is past its last line.
fn end_point(lines: &LineIndex<'_>, row: usize) -> Point {
    if row < lines.starts.len() {
        Point::new(row, 0)
    } else {
        let last = lines.starts.len() - 1;
        Point::new(last, lines.source.len() - lines.starts[last])
    }
}

fn text<'s>(node: Node<'_>, source: &'s [u8]) -> std::borrow::Cow<'s, str> {
    String::from_utf8_lossy(&source[node.byte_range()])
}

fn field_text(node: Node<'_>, field: &str, source: &[u8]) -> Option<String> {
    node.child_by_field_name(field)
        .map(|n| text(n, source).into_owned())
}

/// What a node is to the name of a definition.
enum Role {
    /// A function: its name and whether it is a test.
    Function(String, bool),
    /// A named scope (class, type, module, `describe` block).
    Scope(String),
    /// Neither.
    Other,
}

/// The qualified name of the innermost definition enclosing the last node of `path` (the
/// nodes from the root down), and that of the innermost enclosing test.
fn enclosing(lang: Lang, path: &[Node<'_>], source: &[u8]) -> Option<(String, Option<String>)> {
    // Names innermost first; `test_at` is the index of the innermost test's name.
    let mut names: Vec<String> = Vec::new();
    let mut test_at = None;
    for (depth, &at) in path.iter().enumerate().rev() {
        // Below the definition, a decorator-like node stands for what it decorates; the
        // walk goes on from the decorator's parent (the definition's own parent).
        let n = if names.is_empty() {
            decorated(lang, at)
        } else {
            at
        };
        // The parent of what stands for `at`: `at` itself for Python's decorated
        // definition (the definition is its child), else `at`'s parent (a sibling).
        let parent = if n != at && lang == Lang::Python {
            Some(at)
        } else {
            depth.checked_sub(1).map(|d| path[d])
        };
        match role(lang, n, parent, source) {
            Role::Function(name, test) => {
                if test && test_at.is_none() {
                    test_at = Some(names.len());
                }
                names.push(name);
            }
            Role::Scope(name) if !names.is_empty() => names.push(name),
            Role::Scope(_) | Role::Other => {}
        }
    }
    if names.is_empty() {
        return None;
    }
    let join = |names: &[String]| {
        names
            .iter()
            .rev()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(".")
    };
    Some((join(&names), test_at.map(|i| join(&names[i..]))))
}

/// The definition a decorator-like node belongs to, or the node itself.
fn decorated(lang: Lang, node: Node<'_>) -> Node<'_> {
    match (lang, node.kind()) {
        // `@decorator` lines: the definition is the decorated_definition's `definition`.
        (Lang::Python, "decorated_definition") => {
            node.child_by_field_name("definition").unwrap_or(node)
        }
        // `#[test]` attributes, and TypeScript's decorators of class members, are siblings
        // before the item they apply to.
        (Lang::Rust, "attribute_item") => {
            following(node, &["attribute_item", "line_comment", "block_comment"])
                .filter(|n| n.kind() == "function_item")
                .unwrap_or(node)
        }
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "decorator") => {
            following(node, &["decorator", "comment"])
                .filter(|n| n.kind() == "method_definition")
                .unwrap_or(node)
        }
        _ => node,
    }
}

/// The first named sibling after `node` that is not of one of the `skipped` kinds.
fn following<'t>(node: Node<'t>, skipped: &[&str]) -> Option<Node<'t>> {
    let mut next = node.next_named_sibling();
    while let Some(n) = next {
        if !skipped.contains(&n.kind()) {
            return Some(n);
        }
        next = n.next_named_sibling();
    }
    None
}

fn role<'t>(lang: Lang, node: Node<'t>, parent: Option<Node<'t>>, source: &[u8]) -> Role {
    let named = |field: &str| field_text(node, field, source).unwrap_or_default();
    match (lang, node.kind()) {
        (Lang::Python, "function_definition")
        | (
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
            "function_declaration" | "generator_function_declaration" | "method_definition",
        ) => {
            let name = named("name");
            let test = name.starts_with("test");
            Role::Function(name, test)
        }
        (Lang::Python, "class_definition")
        | (Lang::Rust, "trait_item" | "mod_item")
        | (
            Lang::Java,
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration",
        ) => Role::Scope(named("name")),
        (Lang::Java, "method_declaration" | "constructor_declaration") => {
            let name = named("name");
            let test = name.starts_with("test") || java_test_annotation(node, source);
            Role::Function(name, test)
        }
        (Lang::Go, "function_declaration") => {
            let name = named("name");
            let test = ["Test", "Benchmark", "Fuzz", "Example"]
                .iter()
                .any(|p| name.starts_with(p));
            Role::Function(name, test)
        }
        (Lang::Go, "method_declaration") => {
            let receiver = node
                .child_by_field_name("receiver")
                .and_then(|r| r.named_child(0))
                .and_then(|p| p.child_by_field_name("type"))
                .map(|t| go_type_name(t, source));
            let name = named("name");
            match receiver {
                Some(receiver) => Role::Function(format!("{receiver}.{name}"), false),
                None => Role::Function(name, false),
            }
        }
        (
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
            "arrow_function" | "function_expression",
        ) => {
            // A function bound to a name: `const f = () => ...`, `{ f: function () ... }`.
            let name = parent.and_then(|p| match p.kind() {
                "variable_declarator" => field_text(p, "name", source),
                "pair" => field_text(p, "key", source),
                "public_field_definition" | "field_definition" => {
                    field_text(p, "name", source).or_else(|| field_text(p, "property", source))
                }
                _ => None,
            });
            match name {
                Some(name) => Role::Function(name, false),
                None => Role::Other,
            }
        }
        (
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
            "class_declaration" | "abstract_class_declaration" | "class" | "interface_declaration",
        ) => match field_text(node, "name", source) {
            Some(name) => Role::Scope(name),
            None => Role::Other,
        },
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "call_expression") => {
            js_test_call(node, source)
        }
        (Lang::Rust, "function_item" | "function_signature_item") => {
            let name = named("name");
            let test = name.starts_with("test") || rust_test_attribute(node, source);
            Role::Function(name, test)
        }
        (Lang::Rust, "impl_item") => Role::Scope(
            node.child_by_field_name("type")
                .map(|t| rust_type_name(t, source))
                .unwrap_or_default(),
        ),
        _ => Role::Other,
    }
}

/// Whether a Java method carries `@Test`, `@ParameterizedTest`, `@RepeatedTest`,
/// `@TestFactory` or `@TestTemplate` (qualified or not).
fn java_test_annotation(method: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = method.walk();
    let Some(modifiers) = method
        .children(&mut cursor)
        .find(|c| c.kind() == "modifiers")
    else {
        return false;
    };
    let mut cursor = modifiers.walk();
    modifiers.children(&mut cursor).any(|a| {
        matches!(a.kind(), "marker_annotation" | "annotation")
            && a.child_by_field_name("name").is_some_and(|n| {
                let name = text(n, source);
                let last = name.rsplit('.').next().unwrap_or(&name);
                matches!(
                    last,
                    "Test" | "ParameterizedTest" | "RepeatedTest" | "TestFactory" | "TestTemplate"
                )
            })
    })
}

/// Whether a Rust item has an attribute whose path ends in `test` (`#[test]`,
/// `#[tokio::test]`, `#[rstest]`).
fn rust_test_attribute(item: Node<'_>, source: &[u8]) -> bool {
    let mut previous = item.prev_named_sibling();
    while let Some(p) = previous {
        match p.kind() {
            "attribute_item" => {
                let attribute = text(p, source);
                let path = attribute
                    .trim_start_matches("#[")
                    .split(['(', ']', '='])
                    .next()
                    .unwrap_or_default()
                    .trim();
                if path
                    .rsplit("::")
                    .next()
                    .is_some_and(|l| l.ends_with("test"))
                {
                    return true;
                }
            }
            "line_comment" | "block_comment" => {}
            _ => return false,
        }
        previous = p.prev_named_sibling();
    }
    false
}

/// `describe("name", ...)` is a scope, `it("name", ...)` and `test("name", ...)` are tests
/// (also `.only`, `.skip`, `.each(...)` forms).
fn js_test_call(call: Node<'_>, source: &[u8]) -> Role {
    let Some(function) = call.child_by_field_name("function") else {
        return Role::Other;
    };
    let callee = text(function, source);
    let head = callee.split(['.', '(']).next().unwrap_or_default();
    let Some(title) = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .filter(|a| matches!(a.kind(), "string" | "template_string"))
        .map(|a| {
            // One delimiter off each end: a title may begin or end with a quote.
            let t = text(a, source);
            t.get(1..t.len().saturating_sub(1))
                .unwrap_or_default()
                .to_owned()
        })
    else {
        return Role::Other;
    };
    match head {
        "describe" | "context" | "suite" => Role::Scope(title),
        "it" | "test" => Role::Function(title, true),
        _ => Role::Other,
    }
}

/// A Go receiver's type name without pointer or type arguments: `*Server[T]` -> `Server`.
fn go_type_name(node: Node<'_>, source: &[u8]) -> String {
    let t = text(node, source);
    let t = t.trim_start_matches('*');
    t.split('[').next().unwrap_or(t).trim().to_owned()
}

/// A Rust impl's type name without type arguments: `Parser<'a, T>` -> `Parser`.
fn rust_type_name(node: Node<'_>, source: &[u8]) -> String {
    let t = text(node, source);
    t.split('<').next().unwrap_or(&t).trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The functions of `source` (a new file: every line added).
    fn all(lang: Lang, source: &str) -> Vec<(String, Option<String>)> {
        let lines: Vec<usize> = (1..=source.lines().count()).collect();
        let head = Side {
            blob: Oid::hash_object(git2::ObjectType::Blob, source.as_bytes()).unwrap(),
            content: source.as_bytes(),
            lines: &lines,
        };
        FunctionFinder::new()
            .touched(lang, None, Some(head), &[])
            .into_iter()
            .map(|t| (t.name, t.test))
            .collect()
    }

    fn names(found: &[(String, Option<String>)]) -> Vec<&str> {
        found.iter().map(|(n, _)| n.as_str()).collect()
    }

    #[test]
    fn python_nested_and_decorated_definitions() {
        let source = "import os\n\nclass Table:\n    @property\n    def size(self):\n        return 1\n\n    def sort(self):\n        @cache\n        def key(x):\n            return x\n        return sorted(self, key=key)\n\n\ndef helper():\n    pass\n";
        assert_eq!(
            names(&all(Lang::Python, source)),
            ["Table.size", "Table.sort", "Table.sort.key", "helper"]
        );
    }

    #[test]
    fn languages_by_extension() {
        assert_eq!(Lang::of_path("a/b.py"), Some(Lang::Python));
        assert_eq!(Lang::of_path("A.java"), Some(Lang::Java));
        assert_eq!(Lang::of_path("x_test.go"), Some(Lang::Go));
        assert_eq!(Lang::of_path("w/app.spec.ts"), Some(Lang::TypeScript));
        assert_eq!(Lang::of_path("w/App.tsx"), Some(Lang::Tsx));
        assert_eq!(Lang::of_path("w/app.mjs"), Some(Lang::JavaScript));
        assert_eq!(Lang::of_path("src/lib.rs"), Some(Lang::Rust));
        assert_eq!(Lang::of_path("native/sort.c"), None);
        assert_eq!(Lang::of_path("Makefile"), None);
        assert_eq!(Lang::of_path("dir.py/README"), None);
    }

    #[test]
    fn incremental_edits_give_the_fresh_parse() {
        let base = "package p\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\treturn 2\n}\n";
        let head = "package p\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\tx := 2\n\treturn x\n}\n\nfunc c() {\n}";
        let hunks = [(7, 3, 7, 7)];
        let mut finder = FunctionFinder::new();
        let base_side = Side {
            blob: Oid::hash_object(git2::ObjectType::Blob, base.as_bytes()).unwrap(),
            content: base.as_bytes(),
            lines: &[8],
        };
        let head_side = Side {
            blob: Oid::hash_object(git2::ObjectType::Blob, head.as_bytes()).unwrap(),
            content: head.as_bytes(),
            lines: &[8, 9, 10, 11, 12, 13],
        };
        let found = finder.touched(Lang::Go, Some(base_side), Some(head_side), &hunks);
        let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["b", "c"]);
        let incremental = finder.cache[&(Lang::Go, head_side.blob)]
            .tree
            .root_node()
            .to_sexp();
        let fresh = FunctionFinder::new()
            .parse(Lang::Go, head.as_bytes(), None)
            .unwrap()
            .root_node()
            .to_sexp();
        assert_eq!(incremental, fresh);
    }

    /// Every line of a module of many definitions is looked up with each node's children
    /// listed once (tree-sitter's own lookup scans the module's children for every line,
    /// and `parent()` searches down from the root), and the lookup finds what
    /// tree-sitter's does, with the path of parents to it.
    #[test]
    fn looking_up_every_line_lists_each_node_once_and_agrees_with_tree_sitter() {
        let source: String = (0..3000)
            .map(|i| format!("@deco\ndef f{i}(x):\n    return x + {i}\n\n"))
            .chain((0..300).map(|i| format!("class C{i}:\n    def m(self):\n        pass\n")))
            .collect();
        let mut finder = FunctionFinder::new();
        let tree = finder.parse(Lang::Python, source.as_bytes(), None).unwrap();
        let index = LineIndex::new(source.as_bytes());
        let root = tree.root_node();
        let mut locator = Locator::new(root);
        let lines = memchr::memchr_iter(b'\n', source.as_bytes()).count();
        for line in 1..=lines {
            let (start, end) = index.span(line).unwrap();
            let path = locator.path(start, end);
            let found = *path.last().unwrap();
            assert_eq!(
                Some(found),
                root.descendant_for_point_range(start, end),
                "line {line}"
            );
            if line % 97 == 0 {
                for pair in path.windows(2) {
                    assert_eq!(pair[1].parent(), Some(pair[0]), "line {line}");
                }
            }
        }
        let nodes = root.descendant_count();
        assert!(
            locator.listed <= nodes,
            "{} children listed for {nodes} nodes",
            locator.listed
        );
        let names: Vec<_> = definitions_at(Lang::Python, &tree, source.as_bytes(), &[1, 2, 3])
            .flatten()
            .collect();
        assert_eq!(names, vec![("f0".to_owned(), None); 3]);
    }

    /// The `.py` files of the Python standard library of `python3` on this machine
    /// (site-packages left out), by path; `None` without such an interpreter.
    fn python_stdlib_files() -> Option<Vec<std::path::PathBuf>> {
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
            ])
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        let root = std::path::PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).ok()?.flatten() {
                let path = entry.path();
                let name = entry.file_name();
                if path.is_dir() && name != "site-packages" && name != "__pycache__" {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "py") {
                    files.push(path);
                }
            }
        }
        files.sort();
        (!files.is_empty()).then_some(files)
    }

    /// A generated piece of Python: statements, blank and comment lines, definitions
    /// (decorated, nested, async), classes and `if`/`else` blocks.
    #[derive(Debug, Clone)]
    enum Py {
        Simple(usize),
        Blank,
        /// A comment line: at the block's indentation, at column 0, or deeper.
        Comment(u8),
        Def {
            name: usize,
            asynchronous: bool,
            decorators: u8,
            body: Vec<Py>,
        },
        Class {
            name: usize,
            decorators: u8,
            body: Vec<Py>,
        },
        If(Vec<Py>, Vec<Py>),
    }

    /// Statements whose continuation lines, strings and brackets the scan must follow.
    const SIMPLE: &[&str] = &[
        "x = 1",
        "y = f(1)  # note: def h():",
        "z = g(\n1,\n    2)",
        "s = \"\"\"\ndef fake():\n    pass\n\"\"\"",
        "t = 'def not_a_def(): pass'",
        "u = 1 + \\\n    2",
        "return None",
        "d = {\n    'k': [\n        1,\n    ],\n\n}",
        "pass",
        "def one(): return 1",
        "class K: pass",
        "w = lambda: 0",
        "\"\"\"Doc.\n\nclass Fake:\n\"\"\"",
        "r = rb'\\'' + \"\\\"#\"",
        "if x: y = 2",
    ];
    const FUNCTIONS: &[&str] = &["f", "g", "test_one", "test_two", "helper"];
    const CLASSES: &[&str] = &["A", "TestB", "C"];

    fn python() -> impl proptest::strategy::Strategy<Value = Vec<Py>> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            (0..SIMPLE.len()).prop_map(Py::Simple),
            Just(Py::Blank),
            (0..3u8).prop_map(Py::Comment),
        ];
        let item = leaf.prop_recursive(4, 40, 5, |inner| {
            let body = proptest::collection::vec(inner, 0..5);
            prop_oneof![
                (0..FUNCTIONS.len(), any::<bool>(), 0..3u8, body.clone()).prop_map(
                    |(name, asynchronous, decorators, body)| Py::Def {
                        name,
                        asynchronous,
                        decorators,
                        body
                    }
                ),
                (0..CLASSES.len(), 0..2u8, body.clone()).prop_map(|(name, decorators, body)| {
                    Py::Class {
                        name,
                        decorators,
                        body,
                    }
                }),
                (body.clone(), body).prop_map(|(then, otherwise)| Py::If(then, otherwise)),
            ]
        });
        proptest::collection::vec(item, 1..8)
    }

    fn render(items: &[Py], indent: usize, out: &mut String) {
        use std::fmt::Write as _;
        let pad = " ".repeat(indent);
        let block = |body: &[Py], out: &mut String| {
            render(body, indent + 4, out);
            if body.iter().all(|i| matches!(i, Py::Blank | Py::Comment(_))) {
                let _ = writeln!(out, "{pad}    pass");
            }
        };
        let decorate = |count: u8, out: &mut String| {
            for n in 0..count {
                if n == 0 {
                    let _ = writeln!(out, "{pad}@deco");
                } else {
                    let _ = writeln!(out, "{pad}@deco(\n    1,\n)");
                }
            }
        };
        for item in items {
            match item {
                Py::Simple(i) => {
                    let _ = writeln!(out, "{pad}{}", SIMPLE[*i]);
                }
                Py::Blank => out.push('\n'),
                Py::Comment(at) => {
                    let column = match at {
                        0 => indent,
                        1 => 0,
                        _ => indent + 4,
                    };
                    let _ = writeln!(out, "{}# def commented(): out", " ".repeat(column));
                }
                Py::Def {
                    name,
                    asynchronous,
                    decorators,
                    body,
                } => {
                    decorate(*decorators, out);
                    let prefix = if *asynchronous { "async " } else { "" };
                    let _ = writeln!(out, "{pad}{prefix}def {}(\n    a,\n):", FUNCTIONS[*name]);
                    block(body, out);
                }
                Py::Class {
                    name,
                    decorators,
                    body,
                } => {
                    decorate(*decorators, out);
                    let _ = writeln!(out, "{pad}class {}(Base):", CLASSES[*name]);
                    block(body, out);
                }
                Py::If(then, otherwise) => {
                    let _ = writeln!(out, "{pad}if x:");
                    block(then, out);
                    if !otherwise.is_empty() {
                        let _ = writeln!(out, "{pad}else:");
                        block(otherwise, out);
                    }
                }
            }
        }
    }

    fn has_comment_line(items: &[Py]) -> bool {
        items.iter().any(|i| match i {
            Py::Comment(_) => true,
            Py::Def { body, .. } | Py::Class { body, .. } => has_comment_line(body),
            Py::If(a, b) => has_comment_line(a) || has_comment_line(b),
            Py::Simple(_) | Py::Blank => false,
        })
    }

    proptest::proptest! {
        /// On generated Python, every line the scan names is named as tree-sitter's parse
        /// of the whole source names it; without comment lines, the scan names every line.
        #[test]
        fn python_line_scan_names_equal_the_parse(items in python()) {
            let mut source = String::new();
            render(&items, 0, &mut source);
            let source = source.as_bytes();
            let full = FunctionFinder::new().parse(Lang::Python, source, None).unwrap();
            proptest::prop_assert!(!full.root_node().has_error(), "generated invalid Python");
            let lines: Vec<usize> = (1..=memchr::memchr_iter(b'\n', source).count() + 1).collect();
            let parsed: Vec<_> = definitions_at(Lang::Python, &full, source, &lines).collect();
            let told = python_defs::each_line(source, &lines);
            if !has_comment_line(&items) {
                proptest::prop_assert!(
                    told.as_ref().is_some_and(|t| t.iter().all(|a| *a != python_defs::Answer::Unsure)),
                    "not every line told"
                );
            }
            for ((line, scan), parse) in lines.iter().zip(told.unwrap_or_default()).zip(&parsed) {
                if let python_defs::Answer::Told(scan) = scan {
                    proptest::prop_assert_eq!(&scan, parse, "line {}", line);
                }
            }
        }
    }

    /// The line scan's names against the whole-file parse's, on every line of every
    /// fourth valid file of the standard library: where the scan tells a line's name, it
    /// is tree-sitter's; and it tells most lines.
    #[test]
    fn python_line_scan_names_equal_the_parse_on_the_standard_library() {
        let Some(files) = python_stdlib_files() else {
            println!("skipped: no `python3` with a standard library on this machine");
            return;
        };
        let mut finder = FunctionFinder::new();
        let (mut files_read, mut files_told, mut lines_told, mut lines_all) = (0, 0, 0, 0);
        for path in files.iter().step_by(4) {
            let Ok(source) = std::fs::read(path) else {
                continue;
            };
            let full = finder.parse(Lang::Python, &source, None).unwrap();
            if full.root_node().has_error() {
                continue;
            }
            files_read += 1;
            let lines: Vec<usize> = (1..=memchr::memchr_iter(b'\n', &source).count() + 1).collect();
            lines_all += lines.len();
            let Some(told) = python_defs::each_line(&source, &lines) else {
                continue;
            };
            files_told += 1;
            let parsed: Vec<_> = definitions_at(Lang::Python, &full, &source, &lines).collect();
            for ((line, scan), parse) in lines.iter().zip(&told).zip(&parsed) {
                if let python_defs::Answer::Told(scan) = scan {
                    assert_eq!(scan, parse, "{}:{line}", path.display());
                    lines_told += 1;
                }
            }
        }
        println!(
            "{files_told} of {files_read} files read by the scan, {lines_told} of {lines_all} lines told"
        );
        assert!(files_read >= 100, "{files_read} files");
        assert!(
            files_told * 10 > files_read * 8,
            "{files_told} of {files_read} files"
        );
        assert!(
            lines_told * 10 > lines_all * 7,
            "{lines_told} of {lines_all} lines"
        );
    }

    /// The ranged parse of Python against the whole-file parse, on real files: for groups
    /// of one to three lines of every fourth valid file of the standard library (chosen by
    /// a fixed sequence, decorators and definitions among them), each line's enclosing
    /// definition and test are the same.
    #[test]
    fn python_parts_give_the_whole_file_names_on_the_standard_library() {
        let Some(files) = python_stdlib_files() else {
            println!("skipped: no `python3` with a standard library on this machine");
            return;
        };
        let mut finder = FunctionFinder::new();
        let mut seed: u64 = 19;
        let mut next = |below: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(seed >> 33).unwrap() % below
        };
        let (mut groups, mut ranged, mut named, mut lines_compared) = (0, 0, 0, 0);
        let mut invalid = 0;
        for path in files.iter().step_by(4) {
            let Ok(source) = std::fs::read(path) else {
                continue;
            };
            let count = memchr::memchr_iter(b'\n', &source).count() + 1;
            let full = finder.parse(Lang::Python, &source, None).unwrap();
            if full.root_node().has_error() {
                // Not valid Python (the library keeps some on purpose, for its own tests):
                // the promise is for valid sources (see the module's documentation).
                invalid += 1;
                continue;
            }
            // Rows of decorators and definitions, and any rows.
            let marked: Vec<usize> = source
                .split(|&b| b == b'\n')
                .enumerate()
                .filter(|(_, l)| {
                    let l = l.trim_ascii_start();
                    l.starts_with(b"@") || l.starts_with(b"def ") || l.starts_with(b"class ")
                })
                .map(|(i, _)| i + 1)
                .collect();
            for _ in 0..8 {
                let mut lines: Vec<usize> = (0..=next(3))
                    .map(|_| {
                        if !marked.is_empty() && next(2) == 0 {
                            marked[next(marked.len())]
                        } else {
                            1 + next(count)
                        }
                    })
                    .collect();
                lines.sort_unstable();
                lines.dedup();
                let rows = lines.iter().map(|l| l - 1);
                let parts = ranges_for_rows(&source, rows);
                let tree = finder.parse_python_around(&source, &lines).unwrap();
                if parts.is_some_and(|p| tree.included_ranges() == p) {
                    ranged += 1;
                }
                let whole: Vec<_> = definitions_at(Lang::Python, &full, &source, &lines).collect();
                let part: Vec<_> = definitions_at(Lang::Python, &tree, &source, &lines).collect();
                for ((line, w), p) in lines.iter().zip(&whole).zip(&part) {
                    assert_eq!(w, p, "{}:{line}", path.display());
                    named += usize::from(w.is_some());
                    lines_compared += 1;
                }
                groups += 1;
            }
        }
        println!(
            "{groups} groups, {ranged} parsed in parts, {lines_compared} lines, {named} in a definition; {invalid} files with a syntax error left out"
        );
        assert!(groups >= 400, "{groups} groups");
        // Most groups were parsed in parts (not the whole file), and many lines compared
        // lie in a definition: the comparison is not between two whole-file parses.
        assert!(ranged * 2 > groups, "{ranged} of {groups} parsed in parts");
        assert!(
            named * 3 > lines_compared,
            "{named} of {lines_compared} named"
        );
    }
}
