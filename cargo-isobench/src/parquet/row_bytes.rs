//! The size of a row as its record batch holds it: where the writer cuts row groups by
//! bytes ([`super::GROUP_BYTES`]).
//!
//! A row's bytes are the sum over its cells of: nothing for a null; a string's or a
//! binary's length (the difference of its offsets); a fixed-width value's width (8 for
//! `Int64` and `Float64`, 1 for a boolean); a list's items' bytes; a struct's fields'
//! bytes. Offsets and validity bits are not counted. The figure is read off the built
//! arrays (no value is scanned), and it is the same for the rows read back from the
//! written file: it does not depend on how the rows were batched, on the threads that
//! built them, or on the JSON text they came from.

use arrow_array::cast::AsArray;
use arrow_array::{Array, OffsetSizeTrait, RecordBatch};
use arrow_buffer::ArrowNativeType;
use arrow_schema::DataType;
use serde_json::Value;

/// Each row's bytes in `batch` (see the module's doc).
pub fn row_bytes(batch: &RecordBatch) -> Vec<usize> {
    let mut sizes = vec![0; batch.num_rows()];
    for column in batch.columns() {
        add_cells(column.as_ref(), &mut sizes);
    }
    sizes
}

/// About `value`'s bytes in a row, without its arrays: a string's length, 8 for a number,
/// 1 for a boolean, nothing for `null`, an array's items and an object's keys and values.
/// What a batch of rows being filled counts to tell when it is full; the row groups are
/// cut by [`row_bytes`].
pub fn value_bytes(value: &Value) -> usize {
    match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 8,
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(value_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + value_bytes(v)).sum(),
    }
}

/// Adds each cell's bytes of `array` to `sizes` (one per row of `array`).
fn add_cells(array: &dyn Array, sizes: &mut [usize]) {
    debug_assert_eq!(array.len(), sizes.len());
    if array.null_count() == array.len() {
        return;
    }
    let valid = |i: usize| array.is_valid(i);
    match array.data_type() {
        DataType::Utf8 => add_offsets(array.as_string::<i32>().value_offsets(), &valid, sizes),
        DataType::LargeUtf8 => {
            add_offsets(array.as_string::<i64>().value_offsets(), &valid, sizes);
        }
        DataType::Binary => add_offsets(array.as_binary::<i32>().value_offsets(), &valid, sizes),
        DataType::LargeBinary => {
            add_offsets(array.as_binary::<i64>().value_offsets(), &valid, sizes);
        }
        DataType::Utf8View => add_view_lengths(array.as_string_view().views(), &valid, sizes),
        DataType::BinaryView => add_view_lengths(array.as_binary_view().views(), &valid, sizes),
        DataType::List(_) => add_list(array.as_list::<i32>(), &valid, sizes),
        DataType::LargeList(_) => add_list(array.as_list::<i64>(), &valid, sizes),
        DataType::Map(..) => {
            let map = array.as_map();
            let ranges = map.value_offsets().windows(2);
            add_items(
                map.entries(),
                ranges.map(|e| (e[0].as_usize(), e[1].as_usize())),
                &valid,
                sizes,
            );
        }
        DataType::FixedSizeList(_, n) => {
            let n = usize::try_from(*n).unwrap_or(0);
            let list = array.as_fixed_size_list();
            let ranges = (0..list.len()).map(|i| (i * n, i * n + n));
            add_items(list.values().as_ref(), ranges, &valid, sizes);
        }
        DataType::Dictionary(..) => {
            let dictionary = array.as_any_dictionary();
            let values = dictionary.values();
            let mut each = vec![0; values.len()];
            add_cells(values.as_ref(), &mut each);
            for (i, (size, key)) in sizes
                .iter_mut()
                .zip(dictionary.normalized_keys())
                .enumerate()
            {
                if valid(i) {
                    *size += each.get(key).copied().unwrap_or(0);
                }
            }
        }
        DataType::Struct(_) => {
            let mut fields = vec![0; sizes.len()];
            for child in array.as_struct().columns() {
                add_cells(child.as_ref(), &mut fields);
            }
            for (i, (size, fields)) in sizes.iter_mut().zip(fields).enumerate() {
                if valid(i) {
                    *size += fields;
                }
            }
        }
        other => {
            let width = match other {
                DataType::Boolean => 1,
                other => other.primitive_width().unwrap_or(0),
            };
            for (i, size) in sizes.iter_mut().enumerate() {
                if valid(i) {
                    *size += width;
                }
            }
        }
    }
}

/// Adds each valid row's length between its offsets.
fn add_offsets<O: OffsetSizeTrait>(
    offsets: &[O],
    valid: &impl Fn(usize) -> bool,
    sizes: &mut [usize],
) {
    for (i, (size, ends)) in sizes.iter_mut().zip(offsets.windows(2)).enumerate() {
        if valid(i) {
            *size += (ends[1] - ends[0]).as_usize();
        }
    }
}

/// Adds each valid view's length (a view's low 32 bits).
fn add_view_lengths(views: &[u128], valid: &impl Fn(usize) -> bool, sizes: &mut [usize]) {
    for (i, (size, view)) in sizes.iter_mut().zip(views).enumerate() {
        if valid(i) {
            *size += usize::try_from(*view & u128::from(u32::MAX)).unwrap_or(0);
        }
    }
}

/// Adds each valid list's items' bytes.
fn add_list<O: OffsetSizeTrait>(
    list: &arrow_array::GenericListArray<O>,
    valid: &impl Fn(usize) -> bool,
    sizes: &mut [usize],
) {
    let ranges = list.value_offsets().windows(2);
    add_items(
        list.values().as_ref(),
        ranges.map(|e| (e[0].as_usize(), e[1].as_usize())),
        valid,
        sizes,
    );
}

/// Adds to each valid row the bytes of the items of `values` in its range (start, end).
fn add_items(
    values: &dyn Array,
    ranges: impl Iterator<Item = (usize, usize)>,
    valid: &impl Fn(usize) -> bool,
    sizes: &mut [usize],
) {
    let mut items = vec![0; values.len()];
    add_cells(values, &mut items);
    // Sums of the items' bytes up to each item, to take each list's in one subtraction.
    let mut upto = Vec::with_capacity(items.len() + 1);
    upto.push(0);
    let mut sum = 0;
    for item in items {
        sum += item;
        upto.push(sum);
    }
    for (i, (size, (start, end))) in sizes.iter_mut().zip(ranges).enumerate() {
        if valid(i) {
            *size += upto[end] - upto[start];
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{ListBuilder, StringBuilder};
    use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, StringArray, StructArray};
    use arrow_schema::{Field, Fields};

    use super::*;

    #[test]
    fn each_cell_counts_its_values_bytes() {
        let strings: ArrayRef = Arc::new(StringArray::from(vec![Some("ab"), None, Some("é")]));
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), Some(2), None]));
        let mut lists = ListBuilder::new(StringBuilder::new());
        lists.append_value([Some("xyz"), None]);
        lists.append_null();
        lists.append_value([Some(""), Some("q")]);
        let lists: ArrayRef = Arc::new(lists.finish());
        let fields = Fields::from(vec![
            Field::new("f", DataType::Float64, true),
            Field::new("b", DataType::Boolean, true),
        ]);
        let structs: ArrayRef = Arc::new(StructArray::new(
            fields,
            vec![
                Arc::new(Float64Array::from(vec![Some(0.5), Some(1.5), None])),
                Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
            ],
            Some(vec![true, false, true].into()),
        ));
        let batch =
            RecordBatch::try_from_iter([("s", strings), ("i", ints), ("l", lists), ("t", structs)])
                .unwrap();
        // Row 0: 2 + 8 + 3 + (8 + 1); row 1: 8 (the null struct's field is not counted);
        // row 2: 2 + 1 + 1.
        assert_eq!(row_bytes(&batch), vec![22, 8, 4]);
        // A slice counts its own rows.
        assert_eq!(row_bytes(&batch.slice(1, 2)), vec![8, 4]);
    }
}
