//! Checking a record's JSON text without building it: malformed JSON and keys an object
//! may hold twice are found.

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};

/// Reads a JSON value and keeps nothing: fails on malformed JSON and on an object
/// holding two keys of the same hash (the same key, or by rare chance two keys; the
/// caller then reads the value fully to tell).
pub(super) struct Skim;

impl<'de> DeserializeSeed<'de> for Skim {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skim {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skim)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key_seed(KeyHash)? {
            keys.push(key);
            map.next_value_seed(Skim)?;
        }
        if any_repeated(keys) {
            return Err(A::Error::custom("a key may repeat"));
        }
        Ok(())
    }
}

/// Whether an object's key hashes hold one twice.
fn any_repeated(mut hashes: Vec<u64>) -> bool {
    hashes.sort_unstable();
    hashes.windows(2).any(|pair| pair[0] == pair[1])
}

/// An object key, read as its hash.
struct KeyHash;

impl<'de> DeserializeSeed<'de> for KeyHash {
    type Value = u64;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<u64, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyHash {
    type Value = u64;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<u64, E> {
        Ok(key_hash(key))
    }
}

fn key_hash(key: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(key)
}
