//! Reading a record's JSON text as `serde_json` does, noting the first key an object
//! holds twice, and leaving passed values as text.

use isobench_core::passthrough::{self, Held};
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::routes::Routes;
use crate::input::bad_input::BadInput;

/// What [`CheckedValue`] found: the first key an object holds twice, with the path to it
/// (built innermost first as the parse returns through the enclosing values).
#[derive(Debug, Default)]
pub(in crate::input) struct Trail {
    /// The repeated key and the path to it, reversed.
    pub(in crate::input) duplicate: Option<(String, Vec<String>)>,
    /// The path is still being built: the enclosing value adds its key or index.
    climbing: bool,
}

impl Trail {
    /// The duplicate found, as bad input; the trail is reset.
    pub(in crate::input) fn take_duplicate(&mut self) -> Option<BadInput> {
        let (key, path) = self.duplicate.take()?;
        self.climbing = false;
        let mut pointer = String::new();
        for token in path.iter().rev() {
            pointer.push('/');
            pointer.push_str(&isobench_core::error::pointer_token(token));
        }
        Some(BadInput {
            message: format!(
                "`{pointer}`: duplicate key `{key}`: the object holds it twice, and reading it would keep only one of the values"
            ),
            value: None,
            hint: Some("remove one of the two; JSON readers disagree on which one wins".to_owned()),
            text: None,
        })
    }

    /// Called by an array or object once a child value is read: adds the child's place to
    /// the path when the duplicate lies inside it. `true` when it did.
    fn climb(&mut self, token: impl FnOnce() -> String) -> bool {
        if !self.climbing {
            return false;
        }
        if let Some((_, path)) = &mut self.duplicate {
            path.push(token());
        }
        self.climbing = false;
        true
    }
}

/// Reads any JSON value, as `serde_json::Value` does, but notes the first key an object
/// holds twice (`serde_json` silently keeps the last one). The check costs one map lookup
/// per key, the one inserting it.
pub(in crate::input) struct CheckedValue<'t> {
    pub(in crate::input) trail: &'t mut Trail,
}

impl<'de> DeserializeSeed<'de> for CheckedValue<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CheckedValue<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut inside = false;
        while let Some(item) = seq.next_element_seed(CheckedValue {
            trail: &mut *self.trail,
        })? {
            let index = items.len();
            inside |= self.trail.climb(|| index.to_string());
            items.push(item);
        }
        self.trail.climbing |= inside;
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        read_object(self.trail, map, |_, _, map, trail| {
            map.next_value_seed(CheckedValue { trail }).map(Some)
        })
    }
}

/// The one key of the map `serde_json` gives a number as (its feature
/// `arbitrary_precision`, which keeps every number's text): the key's value is the text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Reads an object's entries, each value with `read` (given the key and its index
/// among the object's keys), noting the first key it holds twice in `trail`. A value
/// `read` gives as `None` was held outside the object: its key is left out.
fn read_object<'de, A: MapAccess<'de>>(
    trail: &mut Trail,
    mut map: A,
    mut read: impl FnMut(&str, usize, &mut A, &mut Trail) -> Result<Option<Value>, A::Error>,
) -> Result<Value, A::Error> {
    let mut object = serde_json::Map::new();
    let mut held: Vec<String> = Vec::new();
    let mut inside = false;
    let mut index = 0;
    while let Some(key) = map.next_key::<String>()? {
        if index == 0 && key == NUMBER_TOKEN {
            // A number, which `serde_json` gives as a one-entry map holding its text.
            let text = map.next_value::<String>()?;
            return text.parse().map(Value::Number).map_err(A::Error::custom);
        }
        let value = read(&key, index, &mut map, trail)?;
        index += 1;
        if held.contains(&key) || (value.is_none() && object.contains_key(&key)) {
            inside |= trail.climb(|| key.clone());
            if trail.duplicate.is_none() {
                trail.duplicate = Some((key.clone(), vec![key]));
                inside = true;
            }
            continue;
        }
        let Some(value) = value else {
            held.push(key);
            continue;
        };
        match object.entry(key) {
            serde_json::map::Entry::Vacant(slot) => {
                inside |= trail.climb(|| slot.key().clone());
                slot.insert(value);
            }
            serde_json::map::Entry::Occupied(slot) => {
                inside |= trail.climb(|| slot.key().clone());
                if trail.duplicate.is_none() {
                    trail.duplicate = Some((slot.key().clone(), vec![slot.key().clone()]));
                    inside = true;
                }
            }
        }
    }
    trail.climbing |= inside;
    Ok(Value::Object(object))
}

/// Reads a record object as [`CheckedValue`] does, except the values of the keys
/// `routes` names that the writer would write back as they are: those are held as
/// text, and their keys left out (see [`super::parse_record_holding`]).
pub(super) struct RoutedObject<'t> {
    pub(super) trail: &'t mut Trail,
    pub(super) routes: Routes<'t>,
    /// The address of the record's first byte, to turn values into ranges.
    pub(super) start: usize,
    pub(super) held: &'t mut Held,
}

impl<'de> Visitor<'de> for RoutedObject<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        let Self {
            trail,
            routes,
            start,
            held,
        } = self;
        read_object(trail, map, |key, position, map, trail| {
            let Some((index, route)) = routes.get(key) else {
                return map.next_value_seed(CheckedValue { trail }).map(Some);
            };
            let text = map.next_value::<&'de RawValue>()?.get();
            let bytes = text.as_bytes();
            let at = text.as_ptr() as usize - start;
            let input = at..at + text.len();
            // A key given twice is told as the plain reader tells it.
            if !held.holds(index) {
                if !route.list && passthrough::is_written_as_is(bytes) {
                    held.hold_string(index, input, position);
                    return Ok(None);
                }
                if route.list && bytes.first() == Some(&b'"') {
                    if route.encoded && held.hold_encoded_list(index, bytes, routes.style, position)
                    {
                        return Ok(None);
                    }
                } else if route.list && passthrough::is_list_written_as_is(bytes, routes.style) {
                    held.hold_array(index, input, position);
                    return Ok(None);
                }
            }
            let mut de = serde_json::Deserializer::from_str(text);
            CheckedValue { trail }
                .deserialize(&mut de)
                .map(Some)
                .map_err(A::Error::custom)
        })
    }
}
