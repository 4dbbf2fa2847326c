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

use std::borrow::Cow;
use std::collections::HashMap;

use cargo_isobench::input::{self, BadInput};
use cargo_isobench::pipeline::{ExportedRecord, HoldingRecord};
use isobench_core::Contract;
use isobench_core::codec::Encoding;
use isobench_core::contract::Kind;
use isobench_core::passthrough::{self, Held, Route};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{IntoPyDict, PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

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
        // Beyond 64 bits: its digits, which a number keeps.
        return i.str().ok()?.to_cow().ok()?.parse().ok().map(Value::Number);
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        // Its text as `json.dumps` writes it (`repr`: `5e-05`, not `5e-5`), which a
        // number keeps; `nan` and `inf` are no JSON number, left to the JSON reader.
        return f
            .repr()
            .ok()?
            .to_cow()
            .ok()?
            .parse()
            .ok()
            .map(Value::Number);
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

/// Python strings of the keys output records hold, made once and given again: a
/// conversion's records share a few dozen keys. At most [`Keys::MAX`] are kept (records
/// whose nested objects hold keys of their own make new ones past that).
#[derive(Debug, Default)]
pub struct Keys {
    strings: HashMap<String, Py<PyString>>,
}

impl Keys {
    const MAX: usize = 4096;

    /// `key` as a Python string.
    fn get<'py>(&mut self, py: Python<'py>, key: String) -> Bound<'py, PyString> {
        if let Some(string) = self.strings.get(&key) {
            return string.bind(py).clone();
        }
        let string = PyString::intern(py, &key);
        if self.strings.len() < Self::MAX {
            self.strings.insert(key, string.clone().unbind());
        }
        string
    }
}

/// A held value as [`object`] places it: the keys that lead to it from the object being
/// made, its index among that object's entries, and the object itself.
struct Placing<'a> {
    path: &'a [Py<PyString>],
    keys: &'a [String],
    at: usize,
    object: &'a Py<PyAny>,
}

/// `map`, an exported record, as a `dict`: what `json.loads` makes of the text `convert`
/// writes of it (keys in order, integers as `int`, other numbers as `float`), with each
/// held value of `held` the entry at its path and index, as the writer writes a held
/// text there (one whose object `map` lacks is left out).
fn object<'py>(
    py: Python<'py>,
    map: Map<String, Value>,
    held: &[Placing<'_>],
    keys: &mut Keys,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let mut here: Vec<&Placing<'_>> = held.iter().filter(|p| p.keys.len() == 1).collect();
    here.sort_by_key(|p| p.at);
    let mut here = here.into_iter().peekable();
    let mut entries = map.into_iter();
    let mut written = 0;
    loop {
        // A held value goes at its index; those placed past the last entry, at the end,
        // in order.
        if let Some(placing) = here.next_if(|p| p.at <= written || entries.len() == 0) {
            dict.set_item(placing.path[0].bind(py), placing.object.bind(py))?;
            written += 1;
            continue;
        }
        let Some((key, value)) = entries.next() else {
            break;
        };
        written += 1;
        let value = match value {
            Value::Object(inner) if held.iter().any(|p| p.keys.len() > 1 && p.keys[0] == key) => {
                let inner_held: Vec<Placing<'_>> = held
                    .iter()
                    .filter(|p| p.keys.len() > 1 && p.keys[0] == key)
                    .map(|p| Placing {
                        path: &p.path[1..],
                        keys: &p.keys[1..],
                        at: p.at,
                        object: p.object,
                    })
                    .collect();
                object(py, inner, &inner_held, keys)?.into_any()
            }
            value => to_python(py, value, keys)?,
        };
        dict.set_item(keys.get(py, key), value)?;
    }
    Ok(dict)
}

/// A value as `json.loads` reads the text `convert` writes of it.
fn to_python<'py>(py: Python<'py>, value: Value, keys: &mut Keys) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                PyInt::new(py, i).into_any()
            } else if let Some(u) = n.as_u64() {
                PyInt::new(py, u).into_any()
            } else if !n.as_str().contains(['.', 'e', 'E']) {
                // An integer beyond 64 bits: `json.loads` reads it as an `int`.
                py.get_type::<PyInt>().call1((n.as_str(),))?
            } else {
                // A float, as `json.loads` reads it (`1e400` is `inf`).
                let value: f64 = n.as_str().parse().unwrap_or(f64::NAN);
                PyFloat::new(py, value).into_any()
            }
        }
        Value::String(s) => PyString::new(py, &s).into_any(),
        Value::Array(items) => {
            let items = items
                .into_iter()
                .map(|item| to_python(py, item, keys))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(map) => object(py, map, &[], keys)?.into_any(),
    })
}

/// How the values of a conversion's routes (see [`isobench_core::passthrough`]) are held
/// as the Python objects they are: a routed key's value goes to the output unconverted,
/// where `convert` writes its text.
#[derive(Debug)]
pub struct Holding {
    routes: Vec<Held1>,
    /// The keys of input records seen (as `str` objects), each to its index in
    /// `input_names`.
    input_keys: Py<PyDict>,
    /// Their texts, and the route each is the key of.
    input_names: Vec<(String, Option<usize>)>,
}

/// An input record's key, as [`Holding::input_key`] finds it.
enum Name {
    /// The key of `input_names` at this index.
    Seen(usize),
    /// A key not kept there, as text.
    New(String),
}

/// One route, as reading records needs it.
#[derive(Debug)]
struct Held1 {
    key: String,
    /// A list of strings (else a string).
    list: bool,
    /// A list that may come as a string holding it, JSON-encoded.
    encoded: bool,
    /// Where the output holds the value, from the top (as Python strings, made once).
    path: Vec<Py<PyString>>,
    /// The same keys.
    keys: Vec<String>,
    /// The kind the target's contract reads the value as, when it reads it: the text
    /// given for the value is then one the contract judges as it judges the value's
    /// own (see [`Held1::string_text`]); otherwise a text of the same kind stands in,
    /// which nothing reads.
    read: Option<Kind>,
}

/// A record read with its routed values held: what the converter is given, and the
/// objects that go to the output, by route.
pub struct HeldRead {
    pub record: HoldingRecord,
    pub objects: Vec<(usize, Py<PyAny>)>,
}

impl Holding {
    /// For `routes`, those of a conversion to a format whose contract is `contract`.
    pub fn new(py: Python<'_>, routes: &[Route<'_>], contract: &Contract) -> Self {
        let routes = routes
            .iter()
            .map(|route| {
                let key = route.path.join("/");
                Held1 {
                    key: route.key.to_owned(),
                    list: route.list,
                    encoded: route.encoded,
                    path: route
                        .path
                        .iter()
                        .map(|key| PyString::intern(py, key).unbind())
                        .collect(),
                    keys: route.path.to_vec(),
                    read: (contract.requires.iter())
                        .find(|r| r.key == key)
                        .map(|r| r.kind),
                }
            })
            .collect();
        Self {
            routes,
            input_keys: PyDict::new(py).unbind(),
            input_names: Vec::new(),
        }
    }

    /// A record from a Python object, as [`record`] reads it, with the values of the
    /// routes' keys held where they pass (see [`Holding::hold`]); held only when the
    /// record is read directly.
    pub fn read(&mut self, py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<HeldRead> {
        if let Ok(dict) = object.cast::<PyDict>()
            && let Some(read) = self.read_map(py, dict)?
        {
            return Ok(read);
        }
        Ok(HeldRead {
            record: HoldingRecord {
                record: record(py, object)?,
                held: Held::default(),
            },
            objects: Vec::new(),
        })
    }

    fn read_map(&mut self, py: Python<'_>, dict: &Bound<'_, PyDict>) -> PyResult<Option<HeldRead>> {
        let mut map = Map::with_capacity(dict.len());
        let mut held = Held::default();
        let mut objects = Vec::new();
        for (position, (key, value)) in dict.iter().enumerate() {
            let Some((name, route)) = self.input_key(&key)? else {
                return Ok(None);
            };
            if let Some(index) = route
                && let Some((object, text, encoding)) = self.routes[index].hold(py, &value)?
            {
                held.hold_text(index, &text, position, encoding);
                objects.push((index, object));
                continue;
            }
            let Some(value) = direct(&value, 1) else {
                return Ok(None);
            };
            let key = match name {
                Name::Seen(index) => self.input_names[index].0.clone(),
                Name::New(text) => text,
            };
            map.insert(key, value);
        }
        Ok(Some(HeldRead {
            record: HoldingRecord {
                record: Ok(Value::Object(map)),
                held,
            },
            objects,
        }))
    }

    /// An input record's key, and the route it is the key of; `None` for a key that is
    /// not a `str` (or not UTF-8). A `str` key seen before is found by the object
    /// (hashed once, kept by the string), not encoded again, and its text is copied
    /// only where the record holds it (not for a held value).
    fn input_key(&mut self, key: &Bound<'_, PyAny>) -> PyResult<Option<(Name, Option<usize>)>> {
        let py = key.py();
        let exact = key.is_exact_instance_of::<PyString>();
        let known = self.input_keys.bind(py);
        if exact && let Some(index) = known.get_item(key)? {
            let index = index.extract::<usize>()?;
            return Ok(Some((Name::Seen(index), self.input_names[index].1)));
        }
        let Some(text) = key.cast::<PyString>().ok().and_then(|k| k.to_cow().ok()) else {
            return Ok(None);
        };
        let route = self.routes.iter().position(|r| r.key == text);
        if exact && self.input_names.len() < Keys::MAX {
            known.set_item(key, self.input_names.len())?;
            self.input_names.push((text.clone().into_owned(), route));
        }
        Ok(Some((Name::New(text.into_owned()), route)))
    }

    /// `exported`, an output record, as a `dict`, with the held values of the record
    /// it came from (`objects`, by route) where the output holds them.
    pub fn output<'py>(
        &self,
        py: Python<'py>,
        exported: ExportedRecord,
        objects: &[(usize, Py<PyAny>)],
        keys: &mut Keys,
    ) -> PyResult<Bound<'py, PyDict>> {
        let held: Vec<Placing<'_>> = exported
            .held
            .iter()
            .filter_map(|h| {
                let route = &self.routes[h.route];
                let (_, object) = objects.iter().find(|(r, _)| *r == h.route)?;
                Some(Placing {
                    path: &route.path,
                    keys: &route.keys,
                    at: h.at,
                    object,
                })
            })
            .filter(|p| !p.keys.is_empty())
            .collect();
        object(py, exported.record, &held, keys)
    }
}

/// What a held value gives: the object that goes to the output, the text import and
/// the contract see, and a list's encoding.
type Hold = (Py<PyAny>, Vec<u8>, Option<Encoding>);

impl Held1 {
    /// `value` held, when it passes as the JSON Lines reader passes its text: a `str`
    /// (the object itself goes to the output), or for a list, a `list` of `str` (a new
    /// list of the same strings) or, where the route takes one, a `str` holding a list
    /// as the writer writes one (a list of its items, decoded here). Only `str` itself,
    /// not a subclass, and valid UTF-8: any other value is read into the record, as
    /// without holding, and import says what it says of it.
    fn hold(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Option<Hold>> {
        if let Ok(s) = value.cast_exact::<PyString>() {
            if !self.list {
                if self.read.is_none() && is_ascii(s)? {
                    return Ok(Some((
                        s.clone().into_any().unbind(),
                        b"\"\"".to_vec(),
                        None,
                    )));
                }
                let Ok(string) = PyBackedStr::try_from(s.clone()) else {
                    return Ok(None);
                };
                let text = self.string_text(&string);
                return Ok(Some((s.clone().into_any().unbind(), text, None)));
            }
            if !self.encoded {
                return Ok(None);
            }
            let Ok(text) = PyBackedStr::try_from(s.clone()) else {
                return Ok(None);
            };
            let Some(encoding) = passthrough::encoded_list_encoding(text.as_bytes()) else {
                return Ok(None);
            };
            let items = list_items(py, &text)?;
            let text = self.list_text(items.is_empty(), || Ok(text.as_bytes().to_vec()))?;
            return Ok(Some((items.into_any().unbind(), text, Some(encoding))));
        }
        if !self.list {
            return Ok(None);
        }
        let Ok(list) = value.cast_exact::<PyList>() else {
            return Ok(None);
        };
        let mut items = Vec::with_capacity(list.len());
        for item in list.iter() {
            let Ok(s) = item.cast_exact::<PyString>() else {
                return Ok(None);
            };
            if !is_ascii(s)? && s.encode_utf8().is_err() {
                return Ok(None);
            }
            items.push(item);
        }
        let text = self.list_text(items.is_empty(), || {
            let strings = (items.iter())
                .map(|item| item.cast::<PyString>()?.to_cow().map(Cow::into_owned))
                .collect::<PyResult<Vec<String>>>()?;
            Ok(serde_json::to_vec(&strings).expect("strings serialise"))
        })?;
        let copy = PyList::new(py, items)?;
        Ok(Some((
            copy.into_any().unbind(),
            text,
            Some(Encoding::Native),
        )))
    }
}

impl Held1 {
    /// The text given for a held string `s`: where the contract reads it as a string,
    /// one that starts as `s`'s JSON text does when that tells the contract all it
    /// looks at (a first character that is printable ASCII: the string is not blank),
    /// else `s`'s JSON text; `""` where nothing reads it.
    fn string_text(&self, s: &str) -> Vec<u8> {
        let first = s.as_bytes().first().copied();
        match (self.read, first) {
            (None, _) => b"\"\"".to_vec(),
            (Some(Kind::String | Kind::StringOrNull), Some(first))
                if first.is_ascii_graphic() && !matches!(first, b'"' | b'\\') =>
            {
                vec![b'"', first, b'"']
            }
            (Some(_), _) => serde_json::to_vec(s).expect("a string serialises"),
        }
    }

    /// The text given for a held list of strings, `empty` or not: where the contract
    /// reads it as a list, one that is empty as the list is (it looks no further);
    /// else the list's JSON text, `full`; `[]` where nothing reads it.
    fn list_text(
        &self,
        empty: bool,
        full: impl FnOnce() -> PyResult<Vec<u8>>,
    ) -> PyResult<Vec<u8>> {
        Ok(match self.read {
            None => b"[]".to_vec(),
            Some(Kind::List | Kind::ListOrEncoded | Kind::ListOrPythonRepr) => {
                let text: &[u8] = if empty { b"[]" } else { b"[\"\"]" };
                text.to_vec()
            }
            Some(_) => full()?,
        })
    }
}

/// Whether `s` is ASCII (so valid UTF-8 too), told without encoding it.
fn is_ascii(s: &Bound<'_, PyString>) -> PyResult<bool> {
    s.call_method0(pyo3::intern!(s.py(), "isascii"))?
        .is_truthy()
}

/// The items of `text`, a list of strings as the writer writes it (see
/// [`passthrough::encoded_list_encoding`]), as a `list` of `str`.
fn list_items<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyList>> {
    let mut items = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 1;
    while at < bytes.len() - 1 {
        let length = passthrough::string_length(&bytes[at..])
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("a list item is cut short"))?;
        let token = &text[at..at + length];
        let inner = &token[1..length - 1];
        if inner.contains('\\') {
            let decoded: String = serde_json::from_str(token)
                .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
            items.push(PyString::new(py, &decoded));
        } else {
            items.push(PyString::new(py, inner));
        }
        at += length;
        // The separator: `,` and a space where the list has them.
        if bytes.get(at) == Some(&b',') {
            at += if bytes.get(at + 1) == Some(&b' ') {
                2
            } else {
                1
            };
        }
    }
    PyList::new(py, items)
}
