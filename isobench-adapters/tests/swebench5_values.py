"""Prints what the installed swebench 5 accepts in a row's 5.x fields, as JSON: the values
of `EvalType`, the names of `PARSER_REGISTRY` and the test output markers. Reads the
package's source and imports none of it (its harness imports docker and datasets)."""
import ast, importlib.util, json, pathlib, sys
spec = importlib.util.find_spec("swebench")
if spec is None or not spec.submodule_search_locations:
    sys.exit("swebench is not installed")
root = pathlib.Path(list(spec.submodule_search_locations)[0]) / "harness"
def tree(rel):
    return ast.parse((root / rel).read_text())
out = {"eval_type": [], "log_parser": [], "start_marker": None, "end_marker": None}
for node in tree("constants/__init__.py").body:
    if isinstance(node, ast.ClassDef) and node.name == "EvalType":
        out["eval_type"] = [s.value.value for s in node.body if isinstance(s, ast.Assign)]
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        name = node.targets[0].id
        if name == "START_TEST_OUTPUT":
            out["start_marker"] = node.value.value
        if name == "END_TEST_OUTPUT":
            out["end_marker"] = node.value.value
for node in tree("log_parsers/__init__.py").body:
    if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PARSER_REGISTRY":
        out["log_parser"] = [k.value for k in node.value.keys]
print(json.dumps(out))
