//! `isobench._isobench`: the Rust half of the `isobench` Python package.
//!
//! Every function builds a [`ConvertRequest`] (or reads records) directly and calls the
//! library: no command line is parsed; keyword arguments are read into the command
//! line's own option structs by their field names ([`cargo_isobench::keywords`]). The GIL is released while Rust works. The Python
//! half (`python/isobench`) gives these functions their documented signatures.

mod arrow;
mod errors;
mod records;

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use cargo_isobench::cli::{ConvertOptions, MineArgs, ProfileArg};
use cargo_isobench::declared::TableError;
use cargo_isobench::errors::CliError;
use cargo_isobench::input::{self, Input, Item};
use cargo_isobench::keywords::{self, KeywordError};
use cargo_isobench::output::RecordWriter;
use cargo_isobench::pipeline::ConvertRequest;
use cargo_isobench::pipeline::{BatchConverter, ConvertedBatch};
use isobench_core::codec::JsonStyle;
use isobench_core::{Profile, Registry, Table, TableAdapter, ViewAdapter};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

use crate::errors::to_py;

/// An adapter loaded besides the built-in ones: a native plugin, or the table a
/// field-table file declared when it was loaded (read once: a later load does not read
/// the file again).
#[derive(Debug, Clone)]
enum Loaded {
    Plugin(PathBuf),
    Table { table: Box<Table>, origin: String },
}

/// What was loaded, in order, and the registry holding the built-in adapters and those.
/// A registry is never changed once made: a load makes a new one (the old one stays for
/// the converters that hold it), so a conversion sees the adapters of when it started.
struct Adapters {
    loaded: Vec<Loaded>,
    registry: &'static Registry,
}

static ADAPTERS: Mutex<Option<Adapters>> = Mutex::new(None);

/// The built-in adapters and every one loaded so far.
fn registry() -> &'static Registry {
    let mut adapters = ADAPTERS.lock().unwrap_or_else(PoisonError::into_inner);
    adapters
        .get_or_insert_with(|| Adapters {
            loaded: Vec::new(),
            registry: build(&[]).expect("the built-in adapters register"),
        })
        .registry
}

/// A registry of the built-in adapters and `loaded`, made once and kept.
fn build(loaded: &[Loaded]) -> Result<&'static Registry, CliError> {
    isobench_adapters::link();
    let mut registry = Registry::builtin();
    for adapter in loaded {
        match adapter {
            Loaded::Plugin(path) => registry
                .register(cargo_isobench::plugin::native::load(path)?)
                .map_err(cargo_isobench::plugin::PluginError::from)?,
            Loaded::Table { table, origin } => {
                let adapter = TableAdapter::new(Table::clone(table), ())
                    .expect("a table checked when it was loaded")
                    .with_origin(origin.clone());
                registry.register(adapter).map_err(TableError::NameClash)?;
            }
        }
    }
    Ok(Box::leak(Box::new(registry)))
}

/// Loads `adapter` for every later call; gives the names of the formats it added.
fn load(py: Python<'_>, adapter: Loaded) -> PyResult<Vec<String>> {
    registry();
    py.detach(|| {
        let mut adapters = ADAPTERS.lock().unwrap_or_else(PoisonError::into_inner);
        let current = adapters.as_mut().expect("made by `registry` above");
        let before = current.registry.names();
        let mut loaded = current.loaded.clone();
        loaded.push(adapter);
        current.registry = build(&loaded)?;
        current.loaded = loaded;
        Ok(current
            .registry
            .names()
            .into_iter()
            .filter(|name| !before.iter().any(|b| b == name))
            .map(str::to_owned)
            .collect())
    })
    .map_err(to_py)
}

/// `load_plugin`: a native plugin (a `cdylib` built with `isobench-plugin-sdk`), as
/// `--plugin PATH` loads it.
#[pyfunction]
fn load_plugin(py: Python<'_>, path: PathBuf) -> PyResult<Vec<String>> {
    load(py, Loaded::Plugin(path))
}

/// `load_adapter`: a format declared by a field table in a TOML file, as
/// `--adapter PATH.toml` loads it.
#[pyfunction]
fn load_adapter(py: Python<'_>, path: PathBuf) -> PyResult<Vec<String>> {
    let adapter = py
        .detach(move || cargo_isobench::declared::load(&path))
        .map_err(to_py)?;
    let table = adapter.table().clone();
    load(
        py,
        Loaded::Table {
            table: Box::new(table),
            origin: adapter.info().origin.clone(),
        },
    )
}

/// The adapters as `cargo isobench adapters --json` lists them (JSON text).
#[pyfunction]
fn adapters() -> String {
    Value::Array(cargo_isobench::adapter_list(registry())).to_string()
}

/// A request from the keyword arguments the Python layer passes on: the names of
/// [`ConvertOptions`]' fields (`on_error`, `allow_incomplete`, ...), read as the command
/// line reads its flags.
fn request(from: &str, to: &str, options: &Bound<'_, PyDict>) -> PyResult<ConvertRequest> {
    let mut request = ConvertRequest::new(from, to, by_name(options)?);
    request.quiet = true;
    Ok(request)
}

/// A command's options from keyword arguments: an unknown name or a value of the wrong
/// type is a `TypeError`, a value outside a choice a `UsageError`; `None` is a keyword
/// not given.
fn by_name<T: clap::Args + serde::de::DeserializeOwned>(
    options: &Bound<'_, PyDict>,
) -> PyResult<T> {
    let mut map = Map::new();
    for (key, value) in options.iter() {
        map.insert(key.extract()?, json(&value)?);
    }
    keywords::from_keywords(map).map_err(|e| keyword_error(&e))
}

fn keyword_error(e: &KeywordError) -> PyErr {
    match e {
        KeywordError::Choice { .. } => errors::usage_error(&e.to_string(), None::<&str>),
        _ => PyTypeError::new_err(e.to_string()),
    }
}

/// A keyword argument's value as JSON: `None`, `bool`, `int`, `float`, `str`, a path
/// (`os.PathLike`), and lists or tuples of those.
fn json(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if value.is_none() {
        Ok(Value::Null)
    } else if let Ok(b) = value.cast::<PyBool>() {
        Ok(Value::Bool(b.is_true()))
    } else if let Ok(i) = value.cast::<PyInt>() {
        match i.extract::<i64>() {
            Ok(n) => Ok(Value::from(n)),
            Err(_) => Ok(Value::from(i.extract::<u64>()?)),
        }
    } else if let Ok(f) = value.cast::<PyFloat>() {
        Ok(Value::from(f.value()))
    } else if let Ok(s) = value.cast::<PyString>() {
        Ok(Value::String(s.extract()?))
    } else if value.cast::<PyList>().is_ok() || value.cast::<PyTuple>().is_ok() {
        value
            .try_iter()?
            .map(|item| json(&item?))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array)
    } else if value.hasattr("__fspath__")? {
        let path: PathBuf = value.extract()?;
        Ok(Value::String(path.to_string_lossy().into_owned()))
    } else {
        Err(PyTypeError::new_err(format!(
            "a keyword argument cannot be a `{}`",
            value.get_type().name()?
        )))
    }
}

/// The options `convert` or `mine` takes by name, as JSON text: `[{"name", "default",
/// "choices"}]`, in the command line's order (the Python layer's signatures are checked
/// against it).
#[pyfunction]
fn options(command: &str) -> PyResult<String> {
    let list = match command {
        "convert" => keywords::keywords::<ConvertOptions>(),
        "mine" => keywords::keywords::<MineArgs>(),
        other => {
            return Err(PyTypeError::new_err(format!(
                "no options for `{other}`: `convert` or `mine`"
            )));
        }
    };
    let list: Vec<Value> = list
        .into_iter()
        .map(|k| serde_json::json!({"name": k.name, "default": k.default, "choices": k.choices}))
        .collect();
    Ok(Value::Array(list).to_string())
}

/// `convert` on files: the report, as JSON text.
#[pyfunction]
fn convert(py: Python<'_>, from_: &str, to: &str, options: &Bound<'_, PyDict>) -> PyResult<String> {
    let request = request(from_, to, options)?;
    let registry = registry();
    let finished = py
        .detach(|| {
            request
                .plan(registry)
                .and_then(|plan| cargo_isobench::pipeline::execute(registry, &plan))
        })
        .map_err(to_py)?;
    Ok(serde_json::to_string(&finished.report).expect("the report serialises"))
}

/// A rejects file, written as `convert --rejects` writes one ([`RecordWriter`]): into a
/// temporary file beside it, put in place by `close`, never through a link planted at
/// its path; `abandon` (or dropping it) leaves nothing.
#[pyclass(module = "isobench._isobench", unsendable)]
struct RejectsFile {
    writer: Option<RecordWriter>,
}

#[pymethods]
impl RejectsFile {
    #[new]
    #[expect(
        clippy::needless_pass_by_value,
        reason = "pyo3 gives a path argument as an owned value"
    )]
    fn new(path: PathBuf, overwrite: bool) -> PyResult<Self> {
        let writer =
            RecordWriter::create(Some(&path), overwrite, JsonStyle::Compact).map_err(to_py)?;
        Ok(Self {
            writer: Some(writer),
        })
    }

    /// Writes rejects file lines (JSON text without the line end).
    fn add(&mut self, lines: Vec<String>) -> PyResult<()> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "the rejects file is closed",
            ));
        };
        for line in lines {
            writer.write_raw(line.as_bytes()).map_err(to_py)?;
        }
        Ok(())
    }

    /// Completes the file and puts it in place.
    fn close(&mut self) -> PyResult<()> {
        match self.writer.take() {
            Some(writer) => writer.finish().map_err(to_py),
            None => Ok(()),
        }
    }

    /// Leaves nothing: the conversion did not complete.
    fn abandon(&mut self) {
        self.writer = None;
    }
}

/// Converts batches of records, as Python objects or JSON Lines. Used from the
/// thread that made it (enrichment holds repositories, which are not shared).
#[pyclass(module = "isobench._isobench", unsendable)]
struct RecordConverter {
    inner: BatchConverter<'static>,
    /// How the routed values of records are held (none under `--set`, enrichment or
    /// the strict profile, as in `convert`).
    holding: records::Holding,
    /// The output's keys as Python strings.
    keys: records::Keys,
}

#[pymethods]
impl RecordConverter {
    #[new]
    fn new(py: Python<'_>, from_: &str, to: &str, options: &Bound<'_, PyDict>) -> PyResult<Self> {
        let registry = registry();
        let plan = request(from_, to, options)?
            .plan_records(registry)
            .map_err(to_py)?;
        let inner = BatchConverter::new(registry, &plan, "<records>").map_err(to_py)?;
        let to = cargo_isobench::find(registry, to).map_err(to_py)?;
        let holding = records::Holding::new(py, inner.routes(), &to.info().contract);
        Ok(Self {
            inner,
            holding,
            keys: records::Keys::default(),
        })
    }

    /// Converts records (Python objects, read directly: see [`records`]): `(the output
    /// records as dicts, rejects file lines as JSON text, report as JSON text)`. The
    /// values of the conversion's routes are held: each goes to the output dict as the
    /// object it is (a list of strings decoded from a `str` holding one, a new list of
    /// the same strings), where `convert` writes its text. The output dicts are made
    /// from the exported records, with no JSON text between. Only reading the objects
    /// and making the output's holds the GIL.
    fn records<'py>(
        &mut self,
        py: Python<'py>,
        objects: &Bound<'py, PyList>,
    ) -> PyResult<(Bound<'py, PyList>, Vec<String>, String)> {
        let mut rows = Vec::with_capacity(objects.len());
        let mut held = Vec::with_capacity(objects.len());
        for object in objects.iter() {
            let read = self.holding.read(py, &object)?;
            rows.push(read.record);
            held.push(read.objects);
        }
        let inner = &mut self.inner;
        let all = objects.clone().unbind();
        // A record refused with values held is read again whole, as without holding.
        let mut whole = |i: usize| {
            Python::attach(|py| {
                let object = all.bind(py).get_item(i);
                object
                    .and_then(|object| records::record(py, &object))
                    .unwrap_or_else(|e| {
                        Err(cargo_isobench::input::BadInput {
                            message: e.to_string(),
                            value: None,
                            hint: None,
                            text: None,
                        })
                    })
            })
        };
        let converted = py
            .detach(|| {
                // The style `json.dumps(record, ensure_ascii=False)` writes, as when
                // records were sent as its text.
                inner.records_holding(
                    rows,
                    Some(isobench_core::codec::JsonStyle::Spaced),
                    &mut whole,
                )
            })
            .map_err(to_py)?;
        let mut out = Vec::with_capacity(converted.records.len());
        for exported in converted.records {
            let objects = &held[exported.source];
            out.push(self.holding.output(py, exported, objects, &mut self.keys)?);
        }
        let (rejects, report) = rejects_and_report(&converted.batch);
        Ok((PyList::new(py, out)?, rejects, report))
    }

    /// Converts JSON Lines: `(output JSON Lines, rejects file lines as JSON text, report
    /// as JSON text)`.
    fn lines<'py>(
        &mut self,
        py: Python<'py>,
        text: Vec<u8>,
    ) -> PyResult<(Bound<'py, PyBytes>, Vec<String>, String)> {
        let inner = &mut self.inner;
        let batch = py.detach(|| inner.lines(text)).map_err(to_py)?;
        let (rejects, report) = rejects_and_report(&batch);
        Ok((PyBytes::new(py, &batch.out), rejects, report))
    }
}

/// A converted batch's rejects file lines and its report, each as JSON text.
fn rejects_and_report(batch: &ConvertedBatch) -> (Vec<String>, String) {
    let rejects = batch
        .rejects
        .iter()
        .map(|r| serde_json::to_string(r).expect("a JSON map serialises"))
        .collect();
    let report = serde_json::to_string(&batch.report).expect("the report serialises");
    (rejects, report)
}

/// `validate`: `(records checked, [(file, line, instance_id, pointer, message)])`.
#[pyfunction]
#[allow(clippy::type_complexity)] // the tuple the Python layer unpacks
#[allow(clippy::needless_pass_by_value)] // taken from Python
fn validate(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    format: &str,
    profile: &str,
) -> PyResult<(u64, Vec<(String, u64, Option<String>, String, String)>)> {
    let profile: Profile = keywords::choice::<ProfileArg>("profile", profile)
        .map_err(|e| keyword_error(&e))?
        .into();
    let registry = registry();
    py.detach(|| {
        let adapter = cargo_isobench::find(registry, format)?;
        let validator = cargo_isobench::validate::Validator::new(adapter, profile)?;
        let mut records = 0u64;
        let mut problems = Vec::new();
        for source in cargo_isobench::input::hf::sources(&inputs)? {
            if let Input::File(p) = &source
                && !p.is_file()
            {
                return Err(CliError::Read {
                    path: p.clone(),
                    source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                });
            }
            let file = source.display();
            input::for_each_item(&source, |Item { line, record, .. }| {
                records += 1;
                match record {
                    Err(bad) => {
                        problems.push((file.clone(), line, None, String::new(), bad.message));
                    }
                    Ok(value) => {
                        let id = value
                            .get("instance_id")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        for (pointer, message) in validator.problems(value) {
                            problems.push((file.clone(), line, id.clone(), pointer, message));
                        }
                    }
                }
                Ok(true)
            })?;
        }
        Ok((records, problems))
    })
    .map_err(to_py)
}

/// `mine`: canonical records of a repository's commits, written to `output` (JSON Lines).
/// The options are `mine`'s flags by name (`repo`, `output`, `head`, `only_source`, ...).
#[pyfunction]
fn mine(py: Python<'_>, options: &Bound<'_, PyDict>) -> PyResult<i32> {
    let args: MineArgs = by_name(options)?;
    py.detach(|| {
        let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
        let session = cargo_isobench::Session {
            registry: Registry::builtin(),
            config: cargo_isobench::config::Config::load(None, &cwd)?,
            skipped: Vec::new(),
            cwd,
        };
        cargo_isobench::commands::mine::run_mine(&session, &args)
    })
    .map_err(to_py)
}

/// Rows of Arrow record batches read back as JSON Lines, as `convert` reads Parquet.
#[pyfunction]
fn arrow_lines<'py>(py: Python<'py>, stream: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let reader = arrow::import_stream(stream)?;
    let lines = py.detach(|| arrow::lines(reader)).map_err(to_py)?;
    PyList::new(py, lines)
}

#[pymodule]
fn _isobench(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(adapters, m)?)?;
    m.add_function(wrap_pyfunction!(load_plugin, m)?)?;
    m.add_function(wrap_pyfunction!(load_adapter, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(mine, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_lines, m)?)?;
    m.add_class::<RecordConverter>()?;
    m.add_class::<RejectsFile>()?;
    m.add_class::<arrow::ArrowStream>()?;
    m.add_class::<arrow::ArrowConverter>()?;
    errors::register(m)?;
    Ok(())
}
