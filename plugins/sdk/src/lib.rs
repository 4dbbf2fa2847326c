//! Write a `cargo isobench` adapter as a native plugin.
//!
//! Declare the format by its field table ([`core::table`]): each key, the canonical field
//! it maps to, its type, what an import and the format's consumer require. Add [`Hooks`]
//! for what a table cannot say. Build the crate as a `cdylib` and write one macro call,
//! [`export_table!`]. The table crosses the C ABI ([`abi`]) in the plugin's manifest; the
//! host runs it itself, so the bulk of a record (patches, texts, test lists) never
//! crosses, and calls the plugin only for its hooks, with what the table left
//! ([`hooks`]). A plugin without hooks is never called per record.
//!
//! An adapter written by hand (a [`ViewAdapter`]) is exported with [`export_plugin!`]
//! instead: whole records then cross the boundary as JSON bytes. Either way, memory is
//! freed by the side that allocated it, and a panic in the plugin comes back to the host
//! as an error instead of unwinding into it.
//!
//! Load it with `cargo isobench --plugin path/to/libtiny_bench.so convert --from tiny-bench ...`,
//! or list it in `isobench.toml` (`[[plugins]] path = "..."`).
//!
//! The field-table API is documented with its types, builders and examples in
//! [`core::table`] (its Reference section): [`core::table::Table`],
//! [`core::table::Field`], [`core::table::FieldType`], [`core::table::ListEncoding`],
//! [`core::table::Hooks`], [`core::table::io::Importer`] and
//! [`core::table::io::Exporter`].
//!
//! A hook reads and writes its own fields' keys ([`core::table::Field::hook`]); a canonical
//! field it fills or writes beyond them is declared on the table, with
//! [`core::table::Table::fills_also`] and [`core::table::Table::carries_also`], so that
//! `cargo isobench adapters`, the conversion report and the contract checks know the format
//! fills and writes it. [`serde_json`] is re-exported, for building the values hooks put.
//!
//! A complete plugin (`Cargo.toml` has `crate-type = ["cdylib", "rlib"]` and depends on
//! this crate):
//!
//! ```
//! use isobench_plugin_sdk::core::table::io::Importer;
//! use isobench_plugin_sdk::core::table::{Field, HookResult, Hooks, ListEncoding, Table};
//! use isobench_plugin_sdk::core::{CanonicalRecord, RecordError};
//! use isobench_plugin_sdk::export_table;
//!
//! /// Rows `{"id": ..., "repository": ..., "issue": ..., "tests": [...], "level": ...}`.
//! fn table() -> Table {
//!     Table::new("tiny-bench", &[], "TinyBench rows")
//!         .fields(vec![
//!             Field::new("id", "instance_id").required(),
//!             Field::new("repository", "repo").required(),
//!             Field::new("issue", "extensions.problem_statement"),
//!             Field::new("tests", "extensions.fail_to_pass").list(ListEncoding::Array),
//!             Field::new("level", "extensions.level").hook(),
//!         ])
//!         // The hook also fills SWE-bench Verified's `difficulty` from the level.
//!         .fills_also(&["extensions.difficulty"])
//! }
//!
//! /// `level` is written `L1` to `L3`; the canonical record holds the number, and the
//! /// difficulty it stands for.
//! #[derive(Debug)]
//! struct Level;
//!
//! impl Hooks for Level {
//!     fn import(&self, from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
//!         if let Some(level) = from.string("level")? {
//!             let Some(n) = level.strip_prefix('L').and_then(|n| n.parse::<u8>().ok()) else {
//!                 return Err(RecordError::invalid("/level", format!("`{level}` is not `L<n>`")));
//!             };
//!             c.set_ext("level", n);
//!             let difficulty = ["<15 min fix", "15 min - 1 hour", "1-4 hours"];
//!             if let Some(text) = difficulty.get(usize::from(n).wrapping_sub(1)) {
//!                 c.set_ext("difficulty", *text);
//!             }
//!         }
//!         Ok(())
//!     }
//!
//!     fn export(
//!         &self,
//!         c: &CanonicalRecord,
//!         to: &mut isobench_plugin_sdk::core::table::io::Exporter<'_, '_, '_>,
//!     ) -> HookResult {
//!         if let Some(n) = c.ext("level").and_then(|n| n.as_u64()) {
//!             to.put("level", isobench_plugin_sdk::serde_json::json!(format!("L{n}")));
//!         }
//!         Ok(())
//!     }
//! }
//!
//! export_table!(table(), Level);
//!
//! // `adapters` and the report say that the format fills `difficulty` too.
//! assert!(table().info().fills.iter().any(|f| f == "extensions.difficulty"));
//!
//! // What the host does, without the dynamic loading:
//! let descriptor = unsafe { &*isobench_plugin_entry() };
//! assert_eq!(descriptor.abi_version, isobench_plugin_sdk::abi::ABI_VERSION);
//! ```
#![warn(missing_docs)]

pub mod abi;
pub mod hooks;
pub mod wire;

pub use isobench_core as core;
pub use isobench_core::{Hooks, ViewAdapter};
pub use serde_json;

/// Exports a format declared by a [`Table`](core::Table), with or without [`Hooks`], as a
/// native plugin.
///
/// `export_table!(table())` exports a table alone: the host runs it and never calls the
/// plugin per record. `export_table!(table(), MyHooks)` adds hooks, which the host calls
/// once per record and direction with what the table left ([`hooks`]). The expressions
/// are evaluated the first time the host asks. Write it once per `cdylib`, at the crate's
/// top level: it defines the exported symbol `isobench_plugin_entry`.
#[macro_export]
macro_rules! export_table {
    ($table:expr) => {
        $crate::export_table!(@with $table, ::core::option::Option::None);
    };
    ($table:expr, $hooks:expr) => {
        $crate::export_table!(@with $table, ::core::option::Option::Some(
            ::std::boxed::Box::new($hooks) as ::std::boxed::Box<dyn $crate::Hooks>
        ));
    };
    (@with $table:expr, $hooks:expr) => {
        #[doc(hidden)]
        fn __isobench_plugin() -> $crate::__private::Exported {
            static PLUGIN: ::std::sync::OnceLock<$crate::__private::TablePlugin> =
                ::std::sync::OnceLock::new();
            $crate::__private::Exported::Table(PLUGIN.get_or_init(|| {
                $crate::__private::TablePlugin {
                    table: $table,
                    hooks: $hooks,
                }
            }))
        }
        $crate::__export_entry!();
    };
}

/// Exports a [`ViewAdapter`] written by hand as a native plugin: whole records cross the
/// boundary. A format a [`Table`](core::Table) can declare is better exported with
/// [`export_table!`].
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
        fn __isobench_plugin() -> $crate::__private::Exported {
            static ADAPTER: ::std::sync::OnceLock<$adapter> = ::std::sync::OnceLock::new();
            $crate::__private::Exported::View(ADAPTER.get_or_init(|| $make))
        }
        $crate::__export_entry!();
    };
}

/// The entry point and the C functions behind it, calling `__isobench_plugin`.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_entry {
    () => {
        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_manifest(out: *mut $crate::abi::OutBuffer) -> i32 {
            // SAFETY: the host passes a valid, writable `OutBuffer` (the ABI's contract).
            unsafe { $crate::__private::manifest(__isobench_plugin, out) }
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_import(
            input: *const u8,
            len: usize,
            out: *mut $crate::abi::OutBuffer,
        ) -> i32 {
            // SAFETY: the host passes `len` readable bytes at `input` and a writable `out`.
            unsafe { $crate::__private::import(__isobench_plugin, input, len, out) }
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_export(
            input: *const u8,
            len: usize,
            out: *mut $crate::abi::OutBuffer,
        ) -> i32 {
            // SAFETY: the host passes `len` readable bytes at `input` and a writable `out`.
            unsafe { $crate::__private::export(__isobench_plugin, input, len, out) }
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_hook_import(
            input: *const u8,
            len: usize,
            out: *mut $crate::abi::OutBuffer,
        ) -> i32 {
            // SAFETY: the host passes `len` readable bytes at `input` and a writable `out`.
            unsafe { $crate::__private::hook_import(__isobench_plugin, input, len, out) }
        }

        #[doc(hidden)]
        #[allow(unsafe_code)]
        unsafe extern "C" fn __isobench_plugin_hook_export(
            input: *const u8,
            len: usize,
            out: *mut $crate::abi::OutBuffer,
        ) -> i32 {
            // SAFETY: the host passes `len` readable bytes at `input` and a writable `out`.
            unsafe { $crate::__private::hook_export(__isobench_plugin, input, len, out) }
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
                hook_import: __isobench_plugin_hook_import,
                hook_export: __isobench_plugin_hook_export,
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

    use crate::abi::{
        ABI_VERSION, OutBuffer, STATUS_BAD_REQUEST, STATUS_OK, STATUS_PANIC, STATUS_RECORD_ERROR,
    };
    use crate::core::codec::{JsonStyle, RecordMap};
    use crate::core::{Hooks, Table};
    use crate::wire::{self, Manifest, WireMessage};
    use crate::{ViewAdapter, hooks};

    /// A format declared by a table, and its hooks if it has any.
    #[derive(Debug)]
    pub struct TablePlugin {
        /// The table.
        pub table: Table,
        /// The hooks.
        pub hooks: Option<Box<dyn Hooks>>,
    }

    /// What a plugin exports.
    #[derive(Debug, Clone, Copy)]
    pub enum Exported {
        /// An adapter written by hand: whole records cross.
        View(&'static dyn ViewAdapter),
        /// A table: the host runs it, and calls the hooks.
        Table(&'static TablePlugin),
    }

    type Plugin = fn() -> Exported;

    /// The adapter written by hand, or the answer for a table plugin.
    fn view(plugin: Plugin) -> Result<&'static dyn ViewAdapter, (i32, Vec<u8>)> {
        match plugin() {
            Exported::View(adapter) => Ok(adapter),
            Exported::Table(_) => Err(bad_request(
                "this plugin is declared by a table: the host runs the table and calls only the hooks"
                    .to_owned(),
            )),
        }
    }

    /// The table and hooks of a table plugin with hooks, or the answer for another.
    fn with_hooks(plugin: Plugin) -> Result<(&'static Table, &'static dyn Hooks), (i32, Vec<u8>)> {
        match plugin() {
            Exported::Table(TablePlugin {
                table,
                hooks: Some(hooks),
            }) => Ok((table, hooks.as_ref())),
            _ => Err(bad_request("this plugin has no hooks to call".to_owned())),
        }
    }

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
    pub unsafe fn manifest(plugin: Plugin, out: *mut OutBuffer) -> i32 {
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                let manifest = match plugin() {
                    Exported::View(a) => Manifest {
                        abi: ABI_VERSION,
                        sdk: env!("CARGO_PKG_VERSION").to_owned(),
                        info: a.info().clone(),
                        schema: a.schema(isobench_core::Profile::Lossless).clone(),
                        table: None,
                        hooks: false,
                    },
                    Exported::Table(TablePlugin { table, hooks }) => Manifest {
                        abi: ABI_VERSION,
                        sdk: env!("CARGO_PKG_VERSION").to_owned(),
                        info: table.info(),
                        schema: table.schema(),
                        table: Some(table.clone()),
                        hooks: hooks.is_some(),
                    },
                };
                (STATUS_OK, encode(&manifest))
            })
        }
    }

    /// `import`.
    ///
    /// # Safety
    /// `len` bytes must be readable at `bytes`, and `out` valid for writes.
    pub unsafe fn import(plugin: Plugin, bytes: *const u8, len: usize, out: *mut OutBuffer) -> i32 {
        // SAFETY: forwarded from the caller.
        let bytes = unsafe { input(bytes, len) };
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                let adapter = match view(plugin) {
                    Ok(adapter) => adapter,
                    Err(answer) => return answer,
                };
                // Checked as UTF-8 once, the strings are read without checking each again.
                let text = std::str::from_utf8(bytes).map_err(serde::de::Error::custom);
                match text.and_then(serde_json::from_str::<RecordMap>) {
                    Ok(RecordMap(record)) => converted(
                        wire::run_import(adapter, record),
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
    pub unsafe fn export(plugin: Plugin, bytes: *const u8, len: usize, out: *mut OutBuffer) -> i32 {
        // SAFETY: forwarded from the caller.
        let bytes = unsafe { input(bytes, len) };
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                let adapter = match view(plugin) {
                    Ok(adapter) => adapter,
                    Err(answer) => return answer,
                };
                match serde_json::from_slice::<wire::ExportRequest<crate::core::CanonicalRecord>>(
                    bytes,
                ) {
                    Ok(request) => converted(
                        wire::run_export(adapter, &request),
                        answer_capacity(bytes),
                        |out, record| JsonStyle::Compact.write_object(out, record),
                    ),
                    Err(e) => bad_request(format!("the host sent a malformed export request: {e}")),
                }
            })
        }
    }

    /// `hook_import`.
    ///
    /// # Safety
    /// `len` bytes must be readable at `bytes`, and `out` valid for writes.
    pub unsafe fn hook_import(
        plugin: Plugin,
        bytes: *const u8,
        len: usize,
        out: *mut OutBuffer,
    ) -> i32 {
        // SAFETY: forwarded from the caller.
        let bytes = unsafe { input(bytes, len) };
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                let (table, hook) = match with_hooks(plugin) {
                    Ok(found) => found,
                    Err(answer) => return answer,
                };
                match serde_json::from_slice::<hooks::HookImport>(bytes) {
                    Ok(request) => match hooks::run_import(table, hook, request) {
                        Ok(answer) => (STATUS_OK, encode_sized(&answer, answer_capacity(bytes))),
                        Err(e) => (STATUS_RECORD_ERROR, encode(&e)),
                    },
                    Err(e) => bad_request(format!("the host sent a malformed hook request: {e}")),
                }
            })
        }
    }

    /// `hook_export`.
    ///
    /// # Safety
    /// `len` bytes must be readable at `bytes`, and `out` valid for writes.
    pub unsafe fn hook_export(
        plugin: Plugin,
        bytes: *const u8,
        len: usize,
        out: *mut OutBuffer,
    ) -> i32 {
        // SAFETY: forwarded from the caller.
        let bytes = unsafe { input(bytes, len) };
        // SAFETY: forwarded from the caller.
        unsafe {
            answer(out, || {
                let (table, hook) = match with_hooks(plugin) {
                    Ok(found) => found,
                    Err(answer) => return answer,
                };
                match serde_json::from_slice::<hooks::HookExport>(bytes) {
                    Ok(request) => match hooks::run_export(table, hook, &request) {
                        Ok(answer) => (STATUS_OK, encode_sized(&answer, answer_capacity(bytes))),
                        Err(e) => (STATUS_RECORD_ERROR, encode(&e)),
                    },
                    Err(e) => bad_request(format!("the host sent a malformed hook request: {e}")),
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
