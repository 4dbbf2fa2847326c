//! Python objects as records and back, without JSON text on the Python side.
//!
//! A record (a `dict` of `str` keys holding `None`, `bool`, `int`, `float`, `str`,
//! `list`, `tuple` and such `dict`s) is read straight into a [`Value`], in its key order.
//! Whatever JSON text would carry differently is read as the JSON Lines reader reads
//! `json.dumps(record, ensure_ascii=False)`, the text the records were once sent as: `NaN`
//! and `Infinity` are refused with the same message and pointer, an integer beyond 64 bits
//! is the number that text reads as (or refused when no `f64` holds it), a key that is
//! not a `str` is the key `json.dumps` writes, and a value `json.dumps` cannot write
//! raises the `TypeError` it raises. Only such records take that path.

use cargo_isobench::input::{self, BadInput};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// How deep the direct reading goes before it hands the record to the JSON reader, whose
/// limit ([`input::MAX_DEPTH`]) and message then apply; a record that refers to itself
/// ends there too (and `json.dumps` raises its `ValueError`).
const DIRECT_DEPTH: usize = input::MAX_DEPTH / 2;

/// A record from a Python object, as the JSON Lines reader would read its `json.dumps`
/// text: `Err` a record refused (numbered and named by the converter), or a Python
/// exception `json.dumps` raised.
pub fn record(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Result<Value, BadInput>> {
    if let Ok(dict) = object.cast::<PyDict>()
        && let Some(map) = direct_map(dict, 0)
    {
        return Ok(Ok(Value::Object(map)));
    }
    let text: String = py
        .import("json")?
        .getattr("dumps")?
        .call(
            (object,),
            Some(&[("ensure_ascii", false)].into_py_dict(py)?),
        )?
        .extract()?;
    Ok(
        input::parse_record(text.as_bytes(), true).map_err(|bad| BadInput {
            // The rejects file keeps the text, as it keeps a JSON Lines line.
            text: bad.value.is_none().then_some(text),
            ..bad
        }),
    )
}

/// A `dict` read directly, or `None` when some value needs the JSON reader.
fn direct_map(dict: &Bound<'_, PyDict>, depth: usize) -> Option<Map<String, Value>> {
    if depth > DIRECT_DEPTH {
        return None;
    }
    let mut map = Map::with_capacity(dict.len());
    for (key, value) in dict.iter() {
        let key = key.cast::<PyString>().ok()?.to_cow().ok()?;
        map.insert(key.into_owned(), direct(&value, depth + 1)?);
    }
    Some(map)
}

/// A value read directly, or `None` when it needs the JSON reader.
fn direct(value: &Bound<'_, PyAny>, depth: usize) -> Option<Value> {
    if let Ok(s) = value.cast::<PyString>() {
        return s.to_cow().ok().map(|s| Value::String(s.into_owned()));
    }
    if value.is_none() {
        return Some(Value::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Some(Value::Bool(b.is_true()));
    }
    if let Ok(i) = value.cast::<PyInt>() {
        if let Ok(n) = i.extract::<i64>() {
            return Some(Value::from(n));
        }
        return i.extract::<u64>().ok().map(Value::from);
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Number::from_f64(f.value()).map(Value::Number);
    }
    if let Ok(d) = value.cast::<PyDict>() {
        return direct_map(d, depth).map(Value::Object);
    }
    let items = |items: &mut dyn Iterator<Item = Bound<'_, PyAny>>| {
        if depth > DIRECT_DEPTH {
            return None;
        }
        items
            .map(|item| direct(&item, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array)
    };
    if let Ok(l) = value.cast::<PyList>() {
        return items(&mut l.iter());
    }
    if let Ok(t) = value.cast::<PyTuple>() {
        return items(&mut t.iter());
    }
    None
}

/// A value as a Python object: objects as `dict`s in their key order, numbers as `int`
/// or `float` as JSON text reads them.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_u64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().expect("a JSON number")).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => map_to_python(py, map)?.into_any(),
    })
}

/// A JSON object as a `dict`, in its key order.
pub fn map_to_python<'py>(
    py: Python<'py>,
    map: &Map<String, Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in map {
        dict.set_item(PyString::new(py, key), to_python(py, value)?)?;
    }
    Ok(dict)
}
