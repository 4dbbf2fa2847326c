//! The functions a change touches: Python files are parsed with tree-sitter at base and
//! head; other languages fall back to the hunk-header context git writes.

use isobench_core::diff::FileDiff;
use isobench_core::mining::{changed_lines, hunk_header_functions};
use tree_sitter::{Node, Parser};

/// How a function name was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A tree-sitter parse of the Python source at base and head.
    PythonAst,
    /// The `@@ ... @@ <context>` text of a hunk header.
    HunkHeader,
}

impl Method {
    /// The name written in records and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PythonAst => "python-ast",
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
}

/// A Python parser, reused across files.
pub struct PythonParser {
    parser: Parser,
}

impl std::fmt::Debug for PythonParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PythonParser")
    }
}

/// One definition: its qualified name and its 1-based line span.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Def {
    name: String,
    start: usize,
    end: usize,
}

impl PythonParser {
    /// A parser for Python.
    pub fn new() -> Self {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_python::LANGUAGE.into())
            .expect("the bundled Python grammar matches the tree-sitter version");
        Self { parser }
    }

    /// The function definitions of `source`, with qualified names.
    fn definitions(&mut self, source: &str) -> Vec<Def> {
        let Some(tree) = self.parser.parse(source, None) else {
            return Vec::new();
        };
        let mut defs = Vec::new();
        collect(
            tree.root_node(),
            source.as_bytes(),
            &mut Vec::new(),
            &mut defs,
        );
        defs
    }

    /// The functions of a Python file whose definitions hold a changed line: removed lines
    /// in the base source, added lines in the head source. (A pure insertion is found on
    /// the head side, where the inserted lines are.)
    pub fn touched(
        &mut self,
        file: &FileDiff,
        base_source: Option<&str>,
        head_source: Option<&str>,
    ) -> Vec<Touched> {
        let lines = changed_lines(file);
        let mut names: Vec<String> = Vec::new();
        let mut add = |defs: &[Def], line: usize| {
            if let Some(def) = innermost(defs, line)
                && !names.contains(&def.name)
            {
                names.push(def.name.clone());
            }
        };
        if let Some(source) = base_source {
            let defs = self.definitions(source);
            for &line in &lines.old {
                add(&defs, line);
            }
        }
        if let Some(source) = head_source {
            let defs = self.definitions(source);
            for &line in &lines.new {
                add(&defs, line);
            }
        }
        names
            .into_iter()
            .map(|name| Touched {
                name,
                method: Method::PythonAst,
            })
            .collect()
    }
}

impl Default for PythonParser {
    fn default() -> Self {
        Self::new()
    }
}

/// The functions a non-Python file's hunk headers name.
pub fn from_hunk_headers(file: &FileDiff) -> Vec<Touched> {
    hunk_header_functions(file)
        .into_iter()
        .map(|name| Touched {
            name,
            method: Method::HunkHeader,
        })
        .collect()
}

/// The innermost definition spanning `line`.
fn innermost(defs: &[Def], line: usize) -> Option<&Def> {
    defs.iter()
        .filter(|d| d.start <= line && line <= d.end)
        .min_by_key(|d| d.end - d.start)
}

fn collect(node: Node<'_>, source: &[u8], scope: &mut Vec<String>, out: &mut Vec<Def>) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let kind = child.kind();
        if kind == "function_definition" || kind == "class_definition" {
            let name = child
                .child_by_field_name("name")
                .and_then(|n| n.utf8_text(source).ok())
                .unwrap_or_default()
                .to_owned();
            scope.push(name);
            if kind == "function_definition" {
                out.push(Def {
                    name: scope.join("."),
                    start: child.start_position().row + 1,
                    end: child.end_position().row + 1,
                });
            }
            collect(child, source, scope, out);
            scope.pop();
        } else {
            collect(child, source, scope, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use isobench_core::diff;

    #[test]
    fn qualified_names_of_nested_definitions() {
        let source = "import os\n\nclass Table:\n    @property\n    def size(self):\n        return 1\n\n    def sort(self):\n        def key(x):\n            return x\n        return sorted(self, key=key)\n\n\ndef helper():\n    pass\n";
        let defs = PythonParser::new().definitions(source);
        let names: Vec<(&str, usize, usize)> = defs
            .iter()
            .map(|d| (d.name.as_str(), d.start, d.end))
            .collect();
        assert_eq!(
            names,
            vec![
                ("Table.size", 5, 6),
                ("Table.sort", 8, 11),
                ("Table.sort.key", 9, 10),
                ("helper", 14, 15)
            ]
        );
    }

    #[test]
    fn touched_functions_on_both_sides() {
        let base = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
        let head = "def a():\n    return 1\n\n\ndef b():\n    x = 2\n    return x\n";
        let text = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -5,2 +5,3 @@ def a():\n def b():\n-    return 2\n+    x = 2\n+    return x\n";
        let patch = diff::parse(text).unwrap();
        let touched = PythonParser::new().touched(&patch.files[0], Some(base), Some(head));
        assert_eq!(
            touched,
            vec![Touched {
                name: "b".into(),
                method: Method::PythonAst
            }]
        );
        // The hunk header names `a` (the line git found above the hunk): the fallback
        // would be wrong here, which is why Python is parsed.
        assert_eq!(from_hunk_headers(&patch.files[0])[0].name, "a");
    }
}
