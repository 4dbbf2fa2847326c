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

/// A JSON object's text straight into a `dict` (no [`Value`] in between): keys in order,
/// integers as `int`, other numbers as `float`.
pub fn object_to_python<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let value = serde::de::DeserializeSeed::deserialize(Seed(py), &mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(value)
}

/// Makes Python objects as JSON text is read.
#[derive(Clone, Copy)]
struct Seed<'py>(Python<'py>);

impl<'de, 'py> serde::de::DeserializeSeed<'de> for Seed<'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

fn py_error<E: serde::de::Error>(e: &PyErr) -> E {
    E::custom(e.to_string())
}

impl<'de, 'py> serde::de::Visitor<'de> for Seed<'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.0.None().into_bound(self.0))
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(PyBool::new(self.0, v).to_owned().into_any())
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(PyInt::new(self.0, v).into_any())
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(PyInt::new(self.0, v).into_any())
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(PyFloat::new(self.0, v).into_any())
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.0, v).into_any())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let list = PyList::empty(self.0);
        while let Some(item) = seq.next_element_seed(self)? {
            list.append(item).map_err(|e| py_error(&e))?;
        }
        Ok(list.into_any())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.0);
        while let Some(key) = map.next_key_seed(self)? {
            let value = map.next_value_seed(self)?;
            dict.set_item(key, value).map_err(|e| py_error(&e))?;
        }
        Ok(dict.into_any())
    }
}
