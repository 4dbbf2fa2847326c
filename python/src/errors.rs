//! `CliError` as Python exceptions: the message is the command line's, the rest are
//! attributes (`hint`, `exit_code`, and for a record its `file`, `line`, `instance_id`,
//! `pointer`; for a file its `path`). A plugin's and a repository's errors keep their
//! area's type (`PluginError`, `RepositoryError`), under `UsageError`.

use cargo_isobench::errors::CliError;
use cargo_isobench::mine::repo::RepoError;
use cargo_isobench::plugin::PluginError as Plugin;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _isobench,
    IsobenchError,
    PyException,
    "An error that stops a conversion; `hint` says what to do."
);
create_exception!(
    _isobench,
    UsageError,
    IsobenchError,
    "A request that cannot run: nothing was converted."
);
create_exception!(
    _isobench,
    UnknownFormatError,
    UsageError,
    "A format name no adapter answers to; `known` lists the formats."
);
create_exception!(
    _isobench,
    PluginError,
    UsageError,
    "A plugin that cannot be loaded or that failed (missing, not a plugin, another ABI, a \
     name clash, a panic): the plugin's own error, a `UsageError` as before."
);
create_exception!(
    _isobench,
    RepositoryError,
    UsageError,
    "A git repository that cannot be read as asked (not a repository, an unknown revision, \
     a shallow clone, a root commit): the repository's own error, a `UsageError` as before."
);
create_exception!(
    _isobench,
    ReadError,
    IsobenchError,
    "An input that could not be read; `path` names it."
);
create_exception!(
    _isobench,
    WriteError,
    IsobenchError,
    "An output that could not be written; `path` names it."
);
create_exception!(
    _isobench,
    RecordError,
    IsobenchError,
    "A bad record: `file`, `line`, `instance_id` and `pointer` say where."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("IsobenchError", py.get_type::<IsobenchError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("UnknownFormatError", py.get_type::<UnknownFormatError>())?;
    m.add("PluginError", py.get_type::<PluginError>())?;
    m.add("RepositoryError", py.get_type::<RepositoryError>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    m.add("WriteError", py.get_type::<WriteError>())?;
    m.add("RecordError", py.get_type::<RecordError>())?;
    Ok(())
}

/// A usage error raised by the bindings themselves.
pub fn usage_error(message: &str, hint: Option<&str>) -> PyErr {
    Python::attach(|py| {
        let err = UsageError::new_err(message.to_owned());
        let _ = set(py, &err, "hint", hint);
        let _ = set(py, &err, "exit_code", cargo_isobench::exit::USAGE);
        err
    })
}

fn set<'py>(
    py: Python<'py>,
    err: &PyErr,
    name: &str,
    value: impl IntoPyObject<'py>,
) -> PyResult<()> {
    err.value(py).setattr(name, value)
}

/// The Python exception for `e`.
pub fn to_py(e: CliError) -> PyErr {
    let message = e.to_string();
    let hint = e.hint();
    let code = e.exit_code();
    Python::attach(|py| {
        let err = match &e {
            CliError::UnknownFormat { .. } => UnknownFormatError::new_err(message),
            CliError::Read { .. } => ReadError::new_err(message),
            CliError::Write { .. } => WriteError::new_err(message),
            CliError::Record(..) | CliError::Rejected { .. } => RecordError::new_err(message),
            // The area's own type, below the class its exit code gave before.
            _ if code == cargo_isobench::exit::USAGE && e.area::<Plugin>().is_some() => {
                PluginError::new_err(message)
            }
            _ if code == cargo_isobench::exit::USAGE && e.area::<RepoError>().is_some() => {
                RepositoryError::new_err(message)
            }
            _ if code == cargo_isobench::exit::USAGE => UsageError::new_err(message),
            _ => IsobenchError::new_err(message),
        };
        let attrs = || -> PyResult<()> {
            set(py, &err, "hint", hint)?;
            set(py, &err, "exit_code", code)?;
            match e {
                CliError::UnknownFormat { name, known, .. } => {
                    set(py, &err, "name", name)?;
                    set(py, &err, "known", known)?;
                }
                CliError::Read { path, .. } | CliError::Write { path, .. } => {
                    // A `str`, as `file` is (a `PathBuf` would become a `pathlib.Path`).
                    set(py, &err, "path", path.display().to_string())?;
                }
                CliError::Rejected { rejection, .. } => {
                    set(py, &err, "file", rejection.file)?;
                    set(py, &err, "line", rejection.line)?;
                    set(py, &err, "instance_id", rejection.instance_id)?;
                    set(py, &err, "pointer", rejection.pointer)?;
                    set(py, &err, "reason", rejection.message)?;
                }
                CliError::Record(..) => {
                    for name in ["file", "line", "instance_id", "pointer"] {
                        set(py, &err, name, py.None())?;
                    }
                }
                _ => {}
            }
            Ok(())
        };
        attrs().map_or_else(|attr_err| attr_err, |()| err)
    })
}
