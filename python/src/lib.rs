//! `isobench._isobench`: the Rust half of the `isobench` Python package.
//!
//! Every function builds a [`ConvertRequest`] (or reads records) directly and calls the
//! library: no command line is parsed. The GIL is released while Rust works. The Python
//! half (`python/isobench`) gives these functions their documented signatures.

mod arrow;
mod errors;

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use cargo_isobench::cli::OnError;
use cargo_isobench::errors::{CliError, TableError};
use cargo_isobench::input::{self, Input, Item};
use cargo_isobench::pipeline::BatchConverter;
use cargo_isobench::pipeline::ConvertRequest;
use isobench_core::codec::JsonStyle;
use isobench_core::{Profile, Registry, Table, TableAdapter, ViewAdapter};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::Value;

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

/// A request from the keyword arguments the Python layer passes on: names as the flags
/// (`on_error`, `allow_incomplete`, ...); an unknown name is a `TypeError`.
fn request(from: &str, to: &str, options: &Bound<'_, PyDict>) -> PyResult<ConvertRequest> {
    let mut request = ConvertRequest::new(from, to);
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        if value.is_none() {
            continue;
        }
        match key.as_str() {
            "inputs" => request.inputs = value.extract::<Vec<PathBuf>>()?,
            "output" => request.output = Some(value.extract()?),
            "profile" => {
                request.profile = match value.extract::<String>()?.as_str() {
                    "lossless" => Profile::Lossless,
                    "strict" => Profile::Strict,
                    other => return Err(bad_choice("profile", other, "lossless, strict")),
                }
            }
            "on_error" => {
                request.on_error = match value.extract::<String>()?.as_str() {
                    "fail" => OnError::Fail,
                    "skip" => OnError::Skip,
                    other => return Err(bad_choice("on_error", other, "fail, skip")),
                }
            }
            "rejects" => request.rejects = Some(value.extract()?),
            "report" => request.report = Some(value.extract()?),
            "overwrite" => request.overwrite = value.extract()?,
            "limit" => request.limit = Some(value.extract()?),
            "dry_run" => request.dry_run = value.extract()?,
            "set" => request.set = value.extract()?,
            "allow_incomplete" => request.allow_incomplete = value.extract()?,
            "json_style" => {
                request.json_style = match value.extract::<String>()?.as_str() {
                    "auto" => None,
                    "compact" => Some(JsonStyle::Compact),
                    "spaced" => Some(JsonStyle::Spaced),
                    other => return Err(bad_choice("json_style", other, "auto, compact, spaced")),
                }
            }
            "jobs" => request.jobs = Some(value.extract()?),
            "shard" => request.shard = Some(value.extract()?),
            other => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected keyword argument `{other}`"
                )));
            }
        }
    }
    request.quiet = true;
    Ok(request)
}

fn bad_choice(name: &str, given: &str, choices: &str) -> PyErr {
    errors::usage_error(
        &format!("`{name}={given}` is not one of {choices}"),
        None::<&str>,
    )
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

/// Converts batches of JSON Lines the Python layer serialised from dicts. Used from the
/// thread that made it (enrichment holds repositories, which are not shared).
#[pyclass(module = "isobench._isobench", unsendable)]
struct RecordConverter {
    inner: BatchConverter<'static>,
}

#[pymethods]
impl RecordConverter {
    #[new]
    fn new(from_: &str, to: &str, options: &Bound<'_, PyDict>) -> PyResult<Self> {
        let registry = registry();
        let plan = request(from_, to, options)?
            .plan_records(registry)
            .map_err(to_py)?;
        let inner = BatchConverter::new(registry, &plan, "<records>").map_err(to_py)?;
        Ok(Self { inner })
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
        let rejects = batch
            .rejects
            .iter()
            .map(|r| serde_json::to_string(r).expect("a JSON map serialises"))
            .collect();
        let report = serde_json::to_string(&batch.report).expect("the report serialises");
        Ok((PyBytes::new(py, &batch.out), rejects, report))
    }
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
    let profile = match profile {
        "lossless" => Profile::Lossless,
        "strict" => Profile::Strict,
        other => return Err(bad_choice("profile", other, "lossless, strict")),
    };
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
#[pyfunction]
#[pyo3(signature = (repo, output, *, repo_name=None, head=Vec::new(), base=None, range=Vec::new(), preset="default".to_owned(), only_source=false, code_and_tests=false, max_files=None, paths=Vec::new(), overwrite=false, jobs=None))]
#[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)] // `mine`'s flags
fn mine(
    py: Python<'_>,
    repo: PathBuf,
    output: PathBuf,
    repo_name: Option<String>,
    head: Vec<String>,
    base: Option<String>,
    range: Vec<String>,
    preset: String,
    only_source: bool,
    code_and_tests: bool,
    max_files: Option<usize>,
    paths: Vec<String>,
    overwrite: bool,
    jobs: Option<usize>,
) -> PyResult<i32> {
    let args = cargo_isobench::cli::MineArgs {
        repo,
        repo_name,
        head,
        base,
        range,
        preset,
        only_source,
        code_and_tests,
        max_files,
        paths,
        python: None,
        arch: "x86_64".into(),
        image: "latest".into(),
        install: Vec::new(),
        output: Some(output),
        overwrite,
        jobs,
    };
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
    m.add_function(wrap_pyfunction!(adapters, m)?)?;
    m.add_function(wrap_pyfunction!(load_plugin, m)?)?;
    m.add_function(wrap_pyfunction!(load_adapter, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(mine, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_lines, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::convert_arrow, m)?)?;
    m.add_class::<RecordConverter>()?;
    m.add_class::<arrow::ArrowStream>()?;
    errors::register(m)?;
    Ok(())
}
