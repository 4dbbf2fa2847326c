//! Column shapes from a format's JSON Schema, and the arrow arrays of their cells.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, StringArray, StructArray,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use isobench_core::codec::JsonStyle;
use isobench_core::number;
use serde_json::{Map, Value};

use super::layout::{ENCODING_KEY, EXTRA_COLUMN, HF_KEY, KEYS_COLUMN, LAYOUT_KEY, STYLE_KEY};

/// What a column holds, as the schema declares it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shape {
    Str,
    Int,
    Float,
    Bool,
    /// A union admitting strings: a string as it is, another value as its JSON text
    /// (`json.dumps` style), the value itself then also kept in `__extra`.
    Text,
    List(Box<Shape>),
    Struct(Vec<(String, Shape)>),
    /// Compact JSON text.
    Json,
}

/// The shape a property's schema declares; `root` resolves local `$ref`s.
pub(super) fn shape_of(schema: &Value, root: &Value, depth: u32) -> Shape {
    let Some(obj) = schema.as_object() else {
        return Shape::Json;
    };
    if depth > 16 {
        return Shape::Json;
    }
    if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
        return target
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .map_or(Shape::Json, |t| shape_of(t, root, depth + 1));
    }
    if ["oneOf", "anyOf", "allOf", "not", "if"]
        .iter()
        .any(|k| obj.contains_key(*k))
    {
        return Shape::Json;
    }
    let constants: Option<Vec<&Value>> = match (obj.get("enum"), obj.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.iter().collect()),
        (None, Some(value)) => Some(vec![value]),
        _ => None,
    };
    if let Some(values) = constants {
        let all = |f: fn(&Value) -> bool| !values.is_empty() && values.iter().all(|v| f(v));
        return if all(Value::is_string) {
            Shape::Str
        } else if all(Value::is_i64) {
            Shape::Int
        } else if all(Value::is_boolean) {
            Shape::Bool
        } else {
            Shape::Json
        };
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => return Shape::Json,
    };
    let kind = match types.as_slice() {
        [kind] => *kind,
        kinds if kinds.contains(&"string") => return Shape::Text,
        _ => return Shape::Json,
    };
    match kind {
        "string" => Shape::Str,
        "integer" => Shape::Int,
        "number" => Shape::Float,
        "boolean" => Shape::Bool,
        "array" if !obj.contains_key("prefixItems") => match obj.get("items") {
            Some(items @ Value::Object(_)) => match shape_of(items, root, depth + 1) {
                Shape::Json => Shape::Json,
                inner => Shape::List(Box::new(inner)),
            },
            _ => Shape::Json,
        },
        "object" => {
            let closed = obj.get("additionalProperties") == Some(&Value::Bool(false))
                && !obj.contains_key("patternProperties");
            let Some(Value::Object(props)) = obj.get("properties") else {
                return Shape::Json;
            };
            if !closed || props.is_empty() {
                return Shape::Json;
            }
            let mut fields = Vec::with_capacity(props.len());
            for (name, prop) in props {
                match shape_of(prop, root, depth + 1) {
                    Shape::Json => return Shape::Json,
                    shape => fields.push((name.clone(), shape)),
                }
            }
            Shape::Struct(fields)
        }
        _ => Shape::Json,
    }
}

impl Shape {
    pub(super) fn data_type(&self) -> DataType {
        match self {
            Self::Str | Self::Text | Self::Json => DataType::Utf8,
            Self::Int => DataType::Int64,
            Self::Float => DataType::Float64,
            Self::Bool => DataType::Boolean,
            Self::List(inner) => DataType::List(Arc::new(inner.field("item"))),
            Self::Struct(fields) => DataType::Struct(
                fields
                    .iter()
                    .map(|(name, shape)| shape.field(name))
                    .collect(),
            ),
        }
    }

    pub(super) fn field(&self, name: &str) -> Field {
        let field = Field::new(name, self.data_type(), true);
        if *self == Self::Json {
            field.with_metadata([(ENCODING_KEY.to_owned(), "json".to_owned())].into())
        } else {
            field
        }
    }

    /// Whether a column of this shape is a string array: a string column (its cells'
    /// strings) or a JSON column (its cells' compact JSON text).
    pub(super) fn holds_text(&self) -> bool {
        matches!(self, Self::Str | Self::Text | Self::Json)
    }

    /// Whether `value` (not null) can be stored in this shape and read back unchanged.
    pub(super) fn fits(&self, value: &Value) -> bool {
        match (self, value) {
            (Self::Json, _)
            | (Self::Str | Self::Text, Value::String(_))
            | (Self::Bool, Value::Bool(_)) => true,
            (Self::Int, Value::Number(n)) => number::exact_i64(n).is_some(),
            (Self::Float, Value::Number(n)) => number::exact_f64(n).is_some(),
            (Self::List(inner), Value::Array(items)) => {
                items.iter().all(|v| v.is_null() || inner.fits(v))
            }
            (Self::Struct(fields), Value::Object(map)) => {
                map.len() == fields.len()
                    && map
                        .iter()
                        .zip(fields)
                        .all(|((k, v), (name, shape))| k == name && (v.is_null() || shape.fits(v)))
            }
            _ => false,
        }
    }
}

/// The columns a format's records may be written in: the declared ones, then `__extra`
/// and `__keys`.
#[derive(Debug)]
pub(super) struct Columns {
    pub(super) declared: Vec<(String, Shape)>,
    /// Each declared column's index in `declared`, by name.
    pub(super) index: std::collections::HashMap<String, usize>,
    /// Every column, written or not.
    pub(super) all: Vec<(String, Shape)>,
    pub(super) schema: SchemaRef,
}

impl Columns {
    pub(super) fn from_schema(json_schema: &Value) -> Result<Self, String> {
        let mut declared = Vec::new();
        if let Some(Value::Object(props)) = json_schema.get("properties") {
            for (name, prop) in props {
                if name == EXTRA_COLUMN || name == KEYS_COLUMN {
                    return Err(format!(
                        "the format declares a property `{name}`, a name the Parquet layout uses for its own column"
                    ));
                }
                declared.push((name.clone(), shape_of(prop, json_schema, 0)));
            }
        }
        let mut all = declared.clone();
        all.push((EXTRA_COLUMN.to_owned(), Shape::Json));
        all.push((KEYS_COLUMN.to_owned(), Shape::List(Box::new(Shape::Str))));
        let schema = Arc::new(Schema::new(
            all.iter()
                .map(|(name, shape)| shape.field(name))
                .collect::<Vec<_>>(),
        ));
        let index = (declared.iter().enumerate())
            .map(|(i, (name, _))| (name.clone(), i))
            .collect();
        Ok(Self {
            declared,
            index,
            all,
            schema,
        })
    }

    /// The schema of the file: the columns `used`, and the file's metadata.
    pub(super) fn written_schema(&self, used: &[bool], style: JsonStyle) -> SchemaRef {
        let kept = || {
            self.all
                .iter()
                .zip(used)
                .filter(|(_, u)| **u)
                .map(|(c, _)| c)
        };
        let features: Map<String, Value> = kept()
            .map(|(name, shape)| (name.clone(), shape.hf_feature()))
            .collect();
        let huggingface = serde_json::json!({ "info": { "features": features } });
        let style = match style {
            JsonStyle::Compact => "compact",
            JsonStyle::Spaced => "spaced",
            JsonStyle::CompactAscii => "compact-ascii",
            JsonStyle::SpacedAscii => "spaced-ascii",
        };
        let metadata = [
            (LAYOUT_KEY.to_owned(), "1".to_owned()),
            (STYLE_KEY.to_owned(), style.to_owned()),
            (HF_KEY.to_owned(), huggingface.to_string()),
        ];
        Arc::new(
            Schema::new(
                kept()
                    .map(|(name, shape)| shape.field(name))
                    .collect::<Vec<_>>(),
            )
            .with_metadata(metadata.into()),
        )
    }
}

impl Shape {
    /// The column as a Hugging Face `datasets` feature.
    pub(super) fn hf_feature(&self) -> Value {
        let value = |dtype: &str| serde_json::json!({"dtype": dtype, "_type": "Value"});
        match self {
            Self::Str | Self::Text | Self::Json => value("string"),
            Self::Int => value("int64"),
            Self::Float => value("float64"),
            Self::Bool => value("bool"),
            // A list of structs is written `[{...}]`: a `Sequence` of a dict would be read
            // as a dict of lists.
            Self::List(inner) if matches!(**inner, Self::Struct(_)) => {
                Value::Array(vec![inner.hf_feature()])
            }
            Self::List(inner) => {
                serde_json::json!({"feature": inner.hf_feature(), "_type": "Sequence"})
            }
            Self::Struct(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(name, shape)| (name.clone(), shape.hf_feature()))
                    .collect(),
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing.

/// The nulls of a column: `None` when there are none.
pub(super) fn null_buffer(valid: Vec<bool>) -> Option<NullBuffer> {
    valid.iter().any(|v| !v).then(|| NullBuffer::from(valid))
}

/// The arrow array of a column's cells (each fits `shape`, or is absent/null).
pub(super) fn build_array(shape: &Shape, cells: &[Option<&Value>]) -> Result<ArrayRef, String> {
    let cells = cells.iter().map(|c| c.filter(|v| !v.is_null()));
    Ok(match shape {
        Shape::Str | Shape::Text => {
            Arc::new(string_array(cells.map(|c| c.and_then(Value::as_str))))
        }
        Shape::Json => Arc::new(written_array(cells, |out, v| {
            JsonStyle::Compact.write_value(out, v);
        })?),
        Shape::Int => Arc::new(
            cells
                .map(|c| c.and_then(Value::as_i64))
                .collect::<Int64Array>(),
        ),
        Shape::Float => Arc::new(
            cells
                .map(|c| c.and_then(Value::as_f64))
                .collect::<Float64Array>(),
        ),
        Shape::Bool => Arc::new(
            cells
                .map(|c| c.and_then(Value::as_bool))
                .collect::<BooleanArray>(),
        ),
        Shape::List(inner) => {
            let mut offsets = Vec::with_capacity(cells.len() + 1);
            offsets.push(0i32);
            let mut children: Vec<Option<&Value>> = Vec::new();
            let mut valid = Vec::with_capacity(cells.len());
            for cell in cells {
                if let Some(Value::Array(items)) = cell {
                    children.extend(items.iter().map(Some));
                }
                valid.push(cell.is_some());
                let end = i32::try_from(children.len())
                    .map_err(|_| "a list column holds more than 2^31 items".to_owned())?;
                offsets.push(end);
            }
            let values = build_array(inner, &children)?;
            Arc::new(
                ListArray::try_new(
                    Arc::new(inner.field("item")),
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    values,
                    null_buffer(valid),
                )
                .map_err(|e| e.to_string())?,
            )
        }
        Shape::Struct(fields) => {
            let cells: Vec<Option<&Value>> = cells.collect();
            let mut children = Vec::with_capacity(fields.len());
            for (name, shape) in fields {
                let column: Vec<Option<&Value>> =
                    cells.iter().map(|c| c.and_then(|v| v.get(name))).collect();
                children.push(build_array(shape, &column)?);
            }
            let arrow_fields: Fields = fields.iter().map(|(n, s)| s.field(n)).collect();
            let valid = cells.iter().map(Option::is_some).collect();
            Arc::new(
                StructArray::try_new(arrow_fields, children, null_buffer(valid))
                    .map_err(|e| e.to_string())?,
            )
        }
    })
}

/// The string array of `cells`, each cell written by `write` (for a JSON column, its
/// compact JSON text: the bytes `serde_json::to_string` gives) straight into the array's
/// one values buffer: no string per cell, copied again into the array.
pub(super) fn written_array<'a, T: ?Sized + 'a>(
    cells: impl ExactSizeIterator<Item = Option<&'a T>>,
    write: impl Fn(&mut Vec<u8>, &T),
) -> Result<StringArray, String> {
    let mut values = Vec::new();
    let ends: Vec<Option<usize>> = cells
        .map(|cell| {
            cell.map(|cell| {
                write(&mut values, cell);
                values.len()
            })
        })
        .collect();
    laid_array(values, ends.into_iter())
}

/// The string array whose cells are laid one after another in `values`, which holds
/// nothing else: for each row, where its cell ends in `values`, or `None` for a null.
/// The array takes `values` as its values buffer, not a copy of it.
pub(super) fn laid_array(
    values: Vec<u8>,
    ends: impl ExactSizeIterator<Item = Option<usize>>,
) -> Result<StringArray, String> {
    let too_long = || "a string column holds more than 2 GiB of text in one batch".to_owned();
    let mut offsets = Vec::with_capacity(ends.len() + 1);
    offsets.push(0i32);
    let mut valid = Vec::with_capacity(ends.len());
    let mut last = 0;
    for end in ends {
        if let Some(end) = end {
            last = end;
        }
        valid.push(end.is_some());
        offsets.push(i32::try_from(last).map_err(|_| too_long())?);
    }
    StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        null_buffer(valid),
    )
    .map_err(|e| e.to_string())
}

/// The string array of `cells`, its values buffer sized once from their total length: a
/// collected array's buffer starts at 1 KiB and is copied to twice the size each time it
/// fills, which for a row group of patches is a dozen copies of megabytes of fresh memory.
pub(super) fn string_array<'a, I>(cells: I) -> StringArray
where
    I: Iterator<Item = Option<&'a str>> + Clone,
{
    let (rows, bytes) = cells
        .clone()
        .fold((0, 0), |(n, b), c| (n + 1, b + c.map_or(0, str::len)));
    let mut builder = StringBuilder::with_capacity(rows, bytes);
    for cell in cells {
        builder.append_option(cell);
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn shape(schema: &Value) -> Shape {
        shape_of(schema, schema, 0)
    }

    #[test]
    fn schema_types_become_column_types() {
        assert_eq!(shape(&json!({"type": "string"})), Shape::Str);
        assert_eq!(shape(&json!({"type": ["number", "null"]})), Shape::Float);
        assert_eq!(shape(&json!({"type": "integer"})), Shape::Int);
        assert_eq!(shape(&json!({"type": "boolean"})), Shape::Bool);
        assert_eq!(shape(&json!({"enum": ["a", "b"]})), Shape::Str);
        assert_eq!(
            shape(&json!({"type": "array", "items": {"type": "string"}})),
            Shape::List(Box::new(Shape::Str))
        );
        // A union admitting strings is text, as Hugging Face stores SWE-bench's test lists.
        assert_eq!(
            shape(&json!({"type": ["string", "array"], "items": {"type": "string"}})),
            Shape::Text
        );
        // Other unions, open objects, arrays of anything and `{}` are JSON text.
        for json_text in [
            json!({"type": ["integer", "array"], "items": {"type": "string"}}),
            json!({"oneOf": [{"type": "string"}, {"type": "array"}]}),
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"type": "array"}),
            json!({}),
        ] {
            assert_eq!(shape(&json_text), Shape::Json, "{json_text}");
        }
    }

    #[test]
    fn canonical_columns_are_typed() {
        let columns = Columns::from_schema(isobench_core::Profile::Lossless.schema()).unwrap();
        let field = |name: &str| columns.schema.field_with_name(name).unwrap().clone();
        let floats = DataType::List(Arc::new(Field::new("item", DataType::Float64, true)));
        assert_eq!(
            field("duration_changes").data_type(),
            &DataType::List(Arc::new(Field::new(
                "item",
                DataType::Struct(
                    vec![
                        Field::new("base", floats.clone(), true),
                        Field::new("head", floats, true),
                    ]
                    .into()
                ),
                true
            )))
        );
        assert_eq!(
            field("efficiency_test").data_type(),
            &DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
        );
        assert_eq!(field("human_performance").data_type(), &DataType::Float64);
        let extensions = field("extensions");
        assert_eq!(extensions.data_type(), &DataType::Utf8);
        assert_eq!(
            extensions.metadata().get(ENCODING_KEY).map(String::as_str),
            Some("json")
        );
        assert!(field("repo").metadata().is_empty());
        let names: Vec<&str> = columns
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(names[..2], ["repo", "instance_id"]);
        assert_eq!(names[names.len() - 2..], [EXTRA_COLUMN, KEYS_COLUMN]);
    }

    #[test]
    fn every_file_of_a_format_has_the_same_schema() {
        let schema = json!({"properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "string"}}}});
        let one = Columns::from_schema(&schema).unwrap();
        let other = Columns::from_schema(&schema).unwrap();
        assert_eq!(one.schema, other.schema);
        assert!(
            Columns::from_schema(&json!({"properties": {"__extra": {"type": "string"}}}))
                .unwrap_err()
                .contains("__extra")
        );
    }
}

#[cfg(test)]
mod string_arrays {
    use arrow_array::Array;
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The array is the one collecting the cells gives: values, offsets and nulls.
        #[test]
        fn the_array_is_the_collected_one(cells in prop::collection::vec(prop::option::of(".{0,40}"), 0..60)) {
            let built = string_array(cells.iter().map(Option::as_deref));
            let collected: StringArray = cells.iter().map(Option::as_deref).collect();
            prop_assert_eq!(&built, &collected);
            prop_assert_eq!(built.nulls(), collected.nulls());
            prop_assert_eq!(built.value_offsets(), collected.value_offsets());
        }
    }

    /// JSON values of every kind: strings rich in what is escaped (quotes, backslashes,
    /// controls, DEL, characters beyond ASCII and beyond the BMP), keys likewise, integers
    /// at the ends of `i64` and `u64`, any float, nesting.
    fn any_value() -> impl Strategy<Value = Value> {
        let text = || "[a \"\\\\\n\t\u{1}\u{8}\u{1f}\u{7f}\u{80}é中\u{1F600}]{0,8}";
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// A JSON column holds each cell as `serde_json::to_string` writes it, a null where
        /// the cell is absent or null; `__extra` each map the same way.
        #[test]
        fn json_cells_are_serde_json_text(cells in prop::collection::vec(prop::option::of(any_value()), 0..40)) {
            let refs: Vec<Option<&Value>> = cells.iter().map(Option::as_ref).collect();
            let array = build_array(&Shape::Json, &refs).unwrap();
            let array = array.as_any().downcast_ref::<StringArray>().unwrap();
            let expected: StringArray = cells
                .iter()
                .map(|c| c.as_ref().filter(|v| !v.is_null()).map(|v| serde_json::to_string(v).unwrap()))
                .collect();
            prop_assert_eq!(array, &expected);
            prop_assert_eq!(array.nulls(), expected.nulls());

            let maps: Vec<Option<&Map<String, Value>>> = cells.iter().map(|c| c.as_ref().and_then(Value::as_object)).collect();
            let array = written_array(maps.iter().copied(), |out, map| JsonStyle::Compact.write_object(out, map)).unwrap();
            let expected: StringArray = maps.iter().map(|m| m.map(|m| serde_json::to_string(m).unwrap())).collect();
            prop_assert_eq!(&array, &expected);
            prop_assert_eq!(array.nulls(), expected.nulls());
        }
    }

    #[test]
    fn the_values_buffer_is_allocated_once_at_its_size() {
        // 2,900 bytes: a buffer grown from 1 KiB by doubling would hold 4 KiB.
        let cells: Vec<Option<String>> = (0..30)
            .map(|i| (i % 7 != 0).then(|| "x".repeat(116)))
            .collect();
        let bytes: usize = cells.iter().flatten().map(String::len).sum();
        assert_eq!(bytes, 2900);
        let array = string_array(cells.iter().map(Option::as_deref));
        assert_eq!(array.values().len(), bytes);
        // Capacities are rounded up to 64 bytes.
        assert!(
            array.values().capacity() < bytes + 64,
            "{}",
            array.values().capacity()
        );
        let array = build_array(
            &Shape::Text,
            &cells
                .iter()
                .map(|c| c.clone().map(Value::String))
                .collect::<Vec<_>>()
                .iter()
                .map(Option::as_ref)
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert!(
            array
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap()
                .values()
                .capacity()
                < bytes + 64
        );
    }
}
