//! `CliError` as Python exceptions: the message is the command line's, the rest are
//! attributes (`hint`, `exit_code`, and for a record its `file`, `line`, `instance_id`,
//! `pointer`; for a file its `path`). A plugin's and a repository's errors keep their
//! area's type (`PluginError`, `RepositoryError`), under `UsageError`.

use cargo_isobench::cli::ConvertOptions;
use cargo_isobench::errors::CliError;
use cargo_isobench::input::InputError;
use cargo_isobench::keywords::Keyword;
use cargo_isobench::mine::repo::RepoError;
use cargo_isobench::plugin::PluginError as Plugin;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::Value;

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
    let message = as_keywords(&e.to_string());
    let hint = e.hint().map(|hint| as_keywords(&hint));
    let code = e.exit_code();
    Python::attach(|py| {
        let err = match &e {
            CliError::UnknownFormat { .. } => UnknownFormatError::new_err(message),
            CliError::Read { .. } => ReadError::new_err(message),
            CliError::Write { .. } => WriteError::new_err(message),
            CliError::Rejected { .. } => RecordError::new_err(message),
            _ if e.area::<InputError>().is_some() => RecordError::new_err(message),
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
                e => {
                    if let Some(input) = e.area::<InputError>() {
                        // Where the reading stopped, as far as the input tells.
                        let file = input.path().map(|p| p.display().to_string());
                        set(py, &err, "file", file)?;
                        set(py, &err, "line", input.line())?;
                        for name in ["instance_id", "pointer"] {
                            set(py, &err, name, py.None())?;
                        }
                    }
                }
            }
            Ok(())
        };
        attrs().map_or_else(|attr_err| attr_err, |()| err)
    })
}

/// `text` with each flag of `convert` it quotes as the keyword argument the Python
/// package takes for it: `` `--allow-incomplete` `` is `` `allow_incomplete=True` ``,
/// `` `--set FIELD=VALUE` `` is `` `set={"FIELD": VALUE}` ``, `` `--on-error skip` `` is
/// `` `on_error="skip"` ``. A flag the package has no keyword for (`--repos DIR`) is left
/// as the command line's.
pub fn as_keywords(text: &str) -> String {
    let keywords = cargo_isobench::keywords::keywords::<ConvertOptions>();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        let quoted = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        match keyword_for(quoted, &keywords) {
            Some(keyword) => {
                out.push('`');
                out.push_str(&keyword);
                out.push('`');
            }
            None => out.push_str(&rest[open..=open + 1 + len]),
        }
        rest = &rest[open + 2 + len..];
    }
    out.push_str(rest);
    out
}

/// The keyword argument for the flag `quoted` gives, with its value.
fn keyword_for(quoted: &str, keywords: &[Keyword]) -> Option<String> {
    let flag = quoted.strip_prefix("--")?;
    let (flag, value) = match flag.split_once(' ') {
        Some((flag, value)) => (flag, Some(value.trim_matches('\''))),
        None => (flag, None),
    };
    let name = flag.replace('-', "_");
    let keyword = keywords.iter().find(|k| k.name == name)?;
    Some(match value {
        None if keyword.switch => format!("{name}=True"),
        None => name,
        Some(assignment) if name == "set" || name == "replace" => {
            let (field, value) = assignment.split_once('=').unwrap_or((assignment, "..."));
            let value = if value == "VALUE"
                || value == "..."
                || serde_json::from_str::<Value>(value).is_ok()
            {
                value.to_owned()
            } else {
                Value::String(value.to_owned()).to_string()
            };
            format!("{name}={{\"{field}\": {value}}}")
        }
        Some(value) if value.chars().all(|c| c.is_ascii_uppercase()) => format!("{name}={value}"),
        Some(value) => format!("{name}={}", Value::String(value.to_owned())),
    })
}
