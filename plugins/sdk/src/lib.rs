//! Write a `cargo isobench` adapter as a native plugin.
//!
//! Implement [`ViewAdapter`] for a type that has a [`Default`], build the crate as a
//! `cdylib`, and write one macro call, [`export_plugin!`]. The macro exports the single
//! C-ABI entry point of [`abi`]; records cross the boundary as JSON bytes, memory is
//! freed by the side that allocated it, and a panic in the adapter comes back to the
//! host as an error instead of unwinding into it.
//!
//! Long strings an adapter only moves, never reads (a patch, an issue text), may be listed
//! in [`ViewAdapter::verbatim_imports`] and [`ViewAdapter::verbatim_exports`]: the manifest
//! carries the lists, and the host then sends those strings as short markers and writes
//! their original text where the markers land, so neither side decodes or encodes them.
//! The host refuses a record whose answer edited a marker instead of moving it.
//!
//! Load it with `cargo isobench --plugin path/to/libmy_format.so convert --from my-format ...`,
//! or list it in `isobench.toml` (`[[plugins]] path = "..."`).
//!
//! A complete plugin (`Cargo.toml` has `crate-type = ["cdylib", "rlib"]` and depends on
//! this crate, `isobench-core` and `serde_json`):
//!
//! ```
//! use isobench_plugin_sdk::core::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
//! use isobench_plugin_sdk::core::vocab::{self, Source};
//! use isobench_plugin_sdk::core::{CanonicalRecord, Notes, RecordError};
//! use isobench_plugin_sdk::export_plugin;
//! use serde_json::{Map, Value, json};
//!
//! /// Rows `{"id": ..., "repository": ..., "issue": ..., ...}`.
//! #[derive(Debug)]
//! pub struct TinyBench {
//!     info: AdapterInfo,
//!     schema: Value,
//! }
//!
//! impl Default for TinyBench {
//!     fn default() -> Self {
//!         Self {
//!             info: AdapterInfo::new("tiny-bench", &[], "TinyBench rows")
//!                 .fills(&["repo", "instance_id", "extensions.problem_statement"])
//!                 .carries(&["repo", "instance_id", "extensions.problem_statement"]),
//!             schema: json!({"type": "object", "required": ["id", "repository"]}),
//!         }
//!     }
//! }
//!
//! impl ViewAdapter for TinyBench {
//!     fn info(&self) -> &AdapterInfo {
//!         &self.info
//!     }
//!
//!     fn schema(&self) -> &Value {
//!         &self.schema
//!     }
//!
//!     fn import(
//!         &self,
//!         mut record: Map<String, Value>,
//!         _notes: &mut Notes,
//!     ) -> Result<CanonicalRecord, RecordError> {
//!         let mut source = Source::new("tiny-bench", &record);
//!         let mut take = |key: &str| match record.shift_remove(key) {
//!             Some(Value::String(s)) => Ok(s),
//!             Some(other) => Err(RecordError::wrong_type(format!("/{key}"), "a string", &other)),
//!             None => Err(RecordError::missing(format!("/{key}"), "required by tiny-bench")),
//!         };
//!         let mut c = CanonicalRecord {
//!             instance_id: Some(take("id")?),
//!             repo: Some(take("repository")?),
//!             ..CanonicalRecord::default()
//!         };
//!         if let Ok(issue) = take("issue") {
//!             c.set_ext(vocab::PROBLEM_STATEMENT, issue);
//!         }
//!         source.extra = record; // whatever is left, verbatim
//!         c.set_ext(vocab::SOURCE, source.to_value());
//!         Ok(c)
//!     }
//!
//!     fn export(
//!         &self,
//!         c: &CanonicalRecord,
//!         _options: &ExportOptions,
//!         notes: &mut Notes,
//!     ) -> Result<Map<String, Value>, RecordError> {
//!         let mut out = Map::new();
//!         let id = c.instance_id.clone().ok_or_else(|| RecordError::missing("/instance_id", "tiny-bench needs it"))?;
//!         let repo = c.repo.clone().ok_or_else(|| RecordError::missing("/repo", "tiny-bench needs it"))?;
//!         out.insert("id".into(), id.into());
//!         out.insert("repository".into(), repo.into());
//!         if let Some(issue) = c.ext_str(vocab::PROBLEM_STATEMENT) {
//!             out.insert("issue".into(), issue.into());
//!         }
//!         for field in self.info.dropped_from(c) {
//!             notes.dropped(field, "tiny-bench has no field for it");
//!         }
//!         match Source::of_format(&c.extensions, "tiny-bench") {
//!             Some(source) => {
//!                 out.extend(source.extra.clone());
//!                 Ok(source.order(out))
//!             }
//!             None => Ok(out),
//!         }
//!     }
//! }
//!
//! export_plugin!(TinyBench);
//!
//! // What the host does, without the dynamic loading:
//! let descriptor = unsafe { &*isobench_plugin_entry() };
//! assert_eq!(descriptor.abi_version, isobench_plugin_sdk::abi::ABI_VERSION);
//! ```
#![warn(missing_docs)]

pub mod abi;
pub mod wire;

pub use isobench_core as core;
pub use isobench_core::ViewAdapter;

/// Exports a [`ViewAdapter`] as a native plugin.
///
/// `export_plugin!(MyAdapter)` builds the adapter with `MyAdapter::default()` the first
/// time the host asks for it; `export_plugin!(MyAdapter, MyAdapter::new("x"))` uses the
/// given expression instead. Write it once per `cdylib`, at the crate's top level: it
/// defines the exported symbol `isobench_plugin_entry`.
#[macro_export]
macro_rules! export_plugin {
    ($adapter:ty) => {
        $crate::export_plugin!($adapter, <$adapter as ::core::default::Default>::default());
    };
    ($adapter:ty, $make:expr) => {
        #[doc(hidden)]
        fn __isobench_plugin_adapter() -> &'static dyn $crate::ViewAdapter {
            static ADAPTER: ::std::sync::OnceLock<$adapter> = ::std::sync::OnceLock::new();
            ADAPTER.get_or_init(|| $make)
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_manifest(out: *mut $crate::abi::OutBuffer) -> i32 {
            // SAFETY: the host passes a valid, writable `OutBuffer` (the ABI's contract).
            unsafe { $crate::__private::manifest(__isobench_plugin_adapter, out) }
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_import(
            input: *const u8,
            len: usize,
            out: *mut $crate::abi::OutBuffer,
        ) -> i32 {
            // SAFETY: the host passes `len` readable bytes at `input` and a writable `out`.
            unsafe { $crate::__private::import(__isobench_plugin_adapter, input, len, out) }
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_export(
            input: *const u8,
            len: usize,
            out: *mut $crate::abi::OutBuffer,
        ) -> i32 {
            // SAFETY: the host passes `len` readable bytes at `input` and a writable `out`.
            unsafe { $crate::__private::export(__isobench_plugin_adapter, input, len, out) }
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_free(buffer: $crate::abi::OutBuffer) {
            // SAFETY: the host gives back a buffer this library filled, exactly once.
            unsafe { $crate::__private::free(buffer) }
        }

        #[doc(hidden)]
        static __ISOBENCH_PLUGIN_DESCRIPTOR: $crate::abi::PluginDescriptor =
            $crate::abi::PluginDescriptor {
                abi_version: $crate::abi::ABI_VERSION,
                size: $crate::abi::DESCRIPTOR_SIZE,
                manifest: __isobench_plugin_manifest,
                import: __isobench_plugin_import,
                export: __isobench_plugin_export,
                free: __isobench_plugin_free,
            };

        /// The plugin's entry point: its descriptor.
        #[allow(unsafe_code)]
        #[unsafe(no_mangle)]
        pub extern "C" fn isobench_plugin_entry() -> *const $crate::abi::PluginDescriptor {
            &raw const __ISOBENCH_PLUGIN_DESCRIPTOR
        }
    };
}

#[doc(hidden)]
#[allow(unsafe_code)]
pub mod __private {
    //! What the macro expands to call. Not a stable API.

    use std::panic::{AssertUnwindSafe, catch_unwind};

    use serde::Serialize;

    use crate::ViewAdapter;
    use crate::abi::{
        ABI_VERSION, OutBuffer, STATUS_BAD_REQUEST, STATUS_OK, STATUS_PANIC, STATUS_RECORD_ERROR,
    };
    use crate::core::codec::{JsonStyle, RecordMap};
    use crate::wire::{self, Manifest, WireMessage};

    type Adapter = fn() -> &'static dyn ViewAdapter;

    fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
        if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "a panic with a non-string payload".to_owned()
        }
    }

    fn encode<T: Serialize>(value: &T) -> Vec<u8> {
        encode_sized(value, 128)
    }

    /// Encodes `value` into a buffer of `capacity` bytes to start with, so that an
    /// answer about the size of the request is written without growing it many times.
    fn encode_sized<T: Serialize>(value: &T, capacity: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(capacity);
        match serde_json::to_writer(&mut out, value) {
            Ok(()) => out,
            Err(e) => format!("{{\"message\":\"cannot serialise the answer: {e}\"}}").into_bytes(),
        }
    }

    /// A first guess of an answer's size from its request's: records come back about
    /// as long as they went in, plus the envelope and the notes.
    fn answer_capacity(request: &[u8]) -> usize {
        request.len() + request.len() / 8 + 256
    }

    /// Runs `body` with panics caught; writes its answer to `out` and returns the status.
    unsafe fn answer(out: *mut OutBuffer, body: impl FnOnce() -> (i32, Vec<u8>)) -> i32 {
        let (status, bytes) = match catch_unwind(AssertUnwindSafe(body)) {
            Ok(answer) => answer,
            Err(payload) => (
                STATUS_PANIC,
                encode(&WireMessage {
                    message: panic_message(&*payload),
                }),
            ),
        };
        if out.is_null() {
            return STATUS_BAD_REQUEST;
        }
        // SAFETY: `out` is non-null and the host promises it is valid for writes.
        unsafe { out.write(OutBuffer::from_vec(bytes)) };
        status
    }

    unsafe fn input<'a>(input: *const u8, len: usize) -> &'a [u8] {
        if input.is_null() || len == 0 {
            return &[];
        }
        // SAFETY: the host promises `len` readable bytes at `input` for the call.
        unsafe { std::slice::from_raw_parts(input, len) }
    }

    fn bad_request(message: String) -> (i32, Vec<u8>) {
        (STATUS_BAD_REQUEST, encode(&WireMessage { message }))
    }

    /// The answer of an `import` or `export`: a [`wire::Converted`] whose record
    /// `write_record` writes, or the [`wire::WireError`].
    fn converted<R>(
        result: Result<wire::Converted<R>, wire::WireError>,
        capacity: usize,
        write_record: impl FnOnce(&mut Vec<u8>, &R),
    ) -> (i32, Vec<u8>) {
        match result {
            Ok(c) => {
                let mut out = Vec::with_capacity(capacity);
                out.extend_from_slice(b"{\"record\":");
                write_record(&mut out, &c.record);
                out.extend_from_slice(b",\"notes\":");
                serde_json::to_writer(&mut out, &c.notes)
                    .expect("notes are strings, which always serialise into memory");
                out.push(b'}');
                (STATUS_OK, out)
            }
            Err(e) => (STATUS_RECORD_ERROR, encode(&e)),
        }
    }

    /// `manifest`.
    ///
    /// # Safety
    /// `out` must be valid for writes.
    pub unsafe fn manifest(adapter: Adapter, out: *mut OutBuffer) -> i32 {
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                let a = adapter();
                let manifest = Manifest {
                    abi: ABI_VERSION,
                    sdk: env!("CARGO_PKG_VERSION").to_owned(),
                    info: a.info().clone(),
                    schema: a.schema().clone(),
                    verbatim_imports: a.verbatim_imports().to_vec(),
                    verbatim_exports: a.verbatim_exports().to_vec(),
                };
                (STATUS_OK, encode(&manifest))
            })
        }
    }

    /// `import`.
    ///
    /// # Safety
    /// `len` bytes must be readable at `bytes`, and `out` valid for writes.
    pub unsafe fn import(
        adapter: Adapter,
        bytes: *const u8,
        len: usize,
        out: *mut OutBuffer,
    ) -> i32 {
        // SAFETY: forwarded from the caller.
        let bytes = unsafe { input(bytes, len) };
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                // Checked as UTF-8 once, the strings are read without checking each again.
                let text = std::str::from_utf8(bytes).map_err(serde::de::Error::custom);
                match text.and_then(serde_json::from_str::<RecordMap>) {
                    Ok(RecordMap(record)) => converted(
                        wire::run_import(adapter(), record),
                        answer_capacity(bytes),
                        |out, record| JsonStyle::Compact.write_record(out, record),
                    ),
                    Err(e) => bad_request(format!(
                        "the host sent a record that is not a JSON object: {e}"
                    )),
                }
            })
        }
    }

    /// `export`.
    ///
    /// # Safety
    /// `len` bytes must be readable at `bytes`, and `out` valid for writes.
    pub unsafe fn export(
        adapter: Adapter,
        bytes: *const u8,
        len: usize,
        out: *mut OutBuffer,
    ) -> i32 {
        // SAFETY: forwarded from the caller.
        let bytes = unsafe { input(bytes, len) };
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                match serde_json::from_slice::<wire::ExportRequest<crate::core::CanonicalRecord>>(
                    bytes,
                ) {
                    Ok(request) => converted(
                        wire::run_export(adapter(), &request),
                        answer_capacity(bytes),
                        |out, record| JsonStyle::Compact.write_object(out, record),
                    ),
                    Err(e) => bad_request(format!("the host sent a malformed export request: {e}")),
                }
            })
        }
    }

    /// `free`.
    ///
    /// # Safety
    /// `buffer` must come from one of the functions above, in this library, once.
    pub unsafe fn free(buffer: OutBuffer) {
        // SAFETY: forwarded from the caller.
        drop(unsafe { buffer.into_vec() });
    }
}
