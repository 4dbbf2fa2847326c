//! Native plugins: a `cdylib` built with `isobench-plugin-sdk`, loaded with `libloading`.
//!
//! A plugin whose manifest carries a field table becomes a [`TableAdapter`] the host runs
//! itself, calling the plugin only for its hooks ([`super::hooks`]); one written by hand
//! becomes a [`NativeAdapter`], to which whole records are sent.
//!
//! The only `unsafe` of the command line lives here. The library is never unloaded: its
//! code may be referenced until the process ends.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use isobench_core::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
use isobench_core::schema::SchemaValidator;
use isobench_core::{CanonicalRecord, Notes, Profile, RecordError, Registered, TableAdapter};
use isobench_plugin_sdk::abi::{
    ABI_VERSION, DESCRIPTOR_SIZE, ENTRY_SYMBOL, EntryFn, OutBuffer, PluginDescriptor, STATUS_OK,
    STATUS_PANIC, STATUS_RECORD_ERROR,
};
use isobench_plugin_sdk::wire::{self, Converted, ExportRequest, Manifest, WireError, WireMessage};
use serde_json::{Map, Value};

use super::checks::{check_export, check_import, read_valid_import};
use super::error::PluginError;
use super::hooks::{self, HookCall};

/// The answer of an `import`, decoded and checked.
type Imported = Converted<CanonicalRecord>;

/// An adapter living in a loaded native plugin.
#[derive(Debug)]
pub struct NativeAdapter {
    info: AdapterInfo,
    schema: Value,
    validator: Option<SchemaValidator>,
    descriptor: &'static PluginDescriptor,
    path: PathBuf,
    /// The size of the last export request, to size the next one's buffer.
    request_size: AtomicUsize,
}

/// Loads the plugin at `path`: checks the ABI version, then reads its manifest. A
/// plugin declared by a table gives a [`TableAdapter`], one written by hand a
/// [`NativeAdapter`], which the host hands each record's text as it was read.
pub fn load(path: &Path) -> Result<Registered, PluginError> {
    let (adapter, table, hooks) = open(path)?;
    let Some(table) = table else {
        let adapter = Arc::new(adapter);
        let reads_text = Arc::clone(&adapter);
        return Ok(
            Registered::from(adapter as Arc<dyn ViewAdapter>).importing_text(Arc::new(
                move |text, notes| reads_text.import_text(text, notes),
            )),
        );
    };
    let shown = path.display().to_string();
    let origin = adapter.info.origin.clone();
    let call = hooks.then(|| NativeHooks {
        descriptor: adapter.descriptor,
        name: table.name.clone(),
        path: adapter.path.clone(),
    });
    let table: TableAdapter =
        hooks::table_adapter(table, call, origin).map_err(|e| PluginError::Garbage {
            path: shown,
            what: format!("a field table that is not valid: {e}"),
        })?;
    Ok(table.into())
}

/// Opens the plugin at `path` and reads its manifest: the adapter, and its table and
/// whether it has hooks, if it is declared by one.
#[allow(unsafe_code)]
fn open(path: &Path) -> Result<(NativeAdapter, Option<isobench_core::Table>, bool), PluginError> {
    let shown = path.display().to_string();
    if !path.is_file() {
        return Err(PluginError::Missing(path.to_owned()));
    }
    let descriptor = open_descriptor(path)?;
    let plugin = NativeAdapter {
        info: AdapterInfo::new("", &[], ""),
        schema: Value::Null,
        validator: None,
        descriptor,
        path: path.to_owned(),
        request_size: AtomicUsize::new(1024),
    };
    let (status, bytes) = plugin.call(
        |out| {
            // SAFETY: `out` is a valid, writable buffer for the duration of the call, as
            // the ABI requires; the descriptor's version and size were checked.
            unsafe { (descriptor.manifest)(out) }
        },
        |status, bytes| (status, bytes.to_vec()),
    );
    let manifest: Manifest = match status {
        STATUS_OK => serde_json::from_slice(&bytes).map_err(|e| PluginError::Garbage {
            path: shown.clone(),
            what: format!("a manifest that is not valid: {e}"),
        })?,
        STATUS_PANIC => {
            return Err(PluginError::Panicked {
                path: shown,
                message: message_of(&bytes),
            });
        }
        other => {
            return Err(PluginError::Garbage {
                path: shown,
                what: format!("status {other} from `manifest`: {}", message_of(&bytes)),
            });
        }
    };
    if manifest.abi != ABI_VERSION {
        return Err(PluginError::AbiMismatch {
            path: shown,
            found: manifest.abi,
        });
    }
    let mut info = manifest.info;
    if info.name.trim().is_empty() {
        return Err(PluginError::Garbage {
            path: shown,
            what: "a manifest whose adapter has no name".into(),
        });
    }
    info.origin = format!("plugin {shown}");
    let validator = SchemaValidator::new(&manifest.schema).map_err(|e| PluginError::Garbage {
        path: shown,
        what: format!("a record schema that does not compile: {e}"),
    })?;
    let adapter = NativeAdapter {
        info,
        schema: manifest.schema,
        validator: Some(validator),
        ..plugin
    };
    Ok((adapter, manifest.table, manifest.hooks))
}

/// Opens the library, finds the entry point and checks the descriptor's version and size
/// before anything else is read from it.
#[allow(unsafe_code)]
fn open_descriptor(path: &Path) -> Result<&'static PluginDescriptor, PluginError> {
    let shown = path.display().to_string();
    // SAFETY: loading a library runs its initialisers. Only libraries the user named (with
    // `--plugin` or `isobench.toml`) or that `cargo isobench plugin build` built are loaded;
    // that is the trust the user gives a plugin, as to any program they run.
    let library =
        unsafe { libloading::Library::new(path) }.map_err(|e| PluginError::NotALibrary {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
    // Never unloaded: the descriptor and its functions live as long as the process.
    let library: &'static libloading::Library = Box::leak(Box::new(library));
    // SAFETY: the symbol is declared with the SDK's `EntryFn` type; a library that exports
    // the name with another type is not an isobench plugin, which nobody can detect.
    let entry =
        unsafe { library.get::<EntryFn>(ENTRY_SYMBOL) }.map_err(|_| PluginError::NotAPlugin {
            path: shown.clone(),
        })?;
    // SAFETY: the entry point takes nothing and returns a pointer to a static descriptor.
    let raw = unsafe { entry() };
    if raw.is_null() {
        return Err(PluginError::NotAPlugin { path: shown });
    }
    // SAFETY: every version of the ABI starts the descriptor with two `u32`s, the version
    // and the size; those are the only fields read before they are checked.
    let (version, size) = unsafe {
        let head = raw.cast::<u32>();
        (head.read(), head.add(1).read())
    };
    if version != ABI_VERSION {
        return Err(PluginError::AbiMismatch {
            path: shown,
            found: version,
        });
    }
    if size < DESCRIPTOR_SIZE {
        return Err(PluginError::Garbage {
            path: shown,
            what: format!(
                "a descriptor of {size} bytes, smaller than the {DESCRIPTOR_SIZE} of ABI {ABI_VERSION}"
            ),
        });
    }
    // SAFETY: version and size match this ABI, so the pointer is to a static
    // `PluginDescriptor` in the library, which is never unloaded.
    Ok(unsafe { &*raw })
}

/// Calls a plugin function that fills an out buffer, reads the answer with `read` while
/// the buffer is alive, then frees it with the plugin's own `free`.
#[allow(unsafe_code)]
fn call<T>(
    descriptor: &PluginDescriptor,
    f: impl FnOnce(*mut OutBuffer) -> i32,
    read: impl FnOnce(i32, &[u8]) -> T,
) -> T {
    let mut out = OutBuffer::empty();
    let status = f(&raw mut out);
    // SAFETY: the plugin filled `out` (or left it empty) and has not freed it; the slice
    // is dropped before the buffer is given back.
    let answer = read(status, unsafe { out.as_slice() });
    // SAFETY: `out` was filled by this plugin and is given back exactly once.
    unsafe { (descriptor.free)(out) };
    answer
}

/// The hooks of a native plugin declared by a table.
#[derive(Debug)]
struct NativeHooks {
    descriptor: &'static PluginDescriptor,
    name: String,
    path: PathBuf,
}

impl HookCall for NativeHooks {
    #[allow(unsafe_code)]
    fn call(&self, export: bool, request: &[u8]) -> Result<Vec<u8>, RecordError> {
        let (function, what) = if export {
            (self.descriptor.hook_export, "hook_export")
        } else {
            (self.descriptor.hook_import, "hook_import")
        };
        call(
            self.descriptor,
            |out| {
                // SAFETY: `request` is valid for `len` bytes during the call and `out` is
                // a valid, writable buffer; the descriptor was checked at load.
                unsafe { function(request.as_ptr(), request.len(), out) }
            },
            |status, answer| match status {
                STATUS_OK => Ok(answer.to_vec()),
                other => Err(refusal(&self.name, &self.path, what, other, answer)),
            },
        )
    }

    fn broken(&self, what: &str) -> RecordError {
        broken(&self.name, &self.path, what)
    }
}

/// The error a plugin's call answered with a status other than [`STATUS_OK`] stands for.
fn refusal(name: &str, path: &Path, what: &str, status: i32, bytes: &[u8]) -> RecordError {
    match status {
        STATUS_RECORD_ERROR => serde_json::from_slice::<WireError>(bytes).map_or_else(
            |e| {
                broken(
                    name,
                    path,
                    &format!("returned an unreadable error from `{what}`: {e}"),
                )
            },
            wire::error_from_wire,
        ),
        STATUS_PANIC => RecordError::invalid(
            "",
            format!(
                "plugin `{name}` ({}) panicked in `{what}`: {}",
                path.display(),
                message_of(bytes)
            ),
        )
        .with_hint("a bug in the plugin: report it to its author with this record"),
        other => broken(
            name,
            path,
            &format!(
                "answered `{what}` with status {other}: {}",
                message_of(bytes)
            ),
        ),
    }
}

/// The error for a plugin that broke the ABI's promises.
fn broken(name: &str, path: &Path, what: &str) -> RecordError {
    RecordError::invalid("", format!("plugin `{name}` ({}) {what}", path.display()))
        .with_hint("a bug in the plugin: report it to its author with this record")
}

fn message_of(bytes: &[u8]) -> String {
    serde_json::from_slice::<WireMessage>(bytes).map_or_else(
        |_| String::from_utf8_lossy(bytes).chars().take(200).collect(),
        |m| m.message,
    )
}

impl NativeAdapter {
    /// The library's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn call<T>(
        &self,
        f: impl FnOnce(*mut OutBuffer) -> i32,
        read: impl FnOnce(i32, &[u8]) -> T,
    ) -> T {
        call(self.descriptor, f, read)
    }

    /// Calls `import` or `export` with `input` and reads the answer with `read`.
    #[allow(unsafe_code)]
    fn convert<T>(
        &self,
        export: bool,
        input: &[u8],
        read: impl FnOnce(i32, &[u8]) -> Result<T, RecordError>,
    ) -> Result<T, RecordError> {
        let function = if export {
            self.descriptor.export
        } else {
            self.descriptor.import
        };
        self.call(
            |out| {
                // SAFETY: `input` is valid for `len` bytes during the call and `out` is a
                // valid, writable buffer; the descriptor was checked at load.
                unsafe { function(input.as_ptr(), input.len(), out) }
            },
            read,
        )
    }

    /// Reads the answer of `import`: straight into a [`CanonicalRecord`] when the typed
    /// decode shows it valid ([`Lossless`](super::lossless::Lossless)), else through a
    /// [`Value`] and the lossless schema, which names what is wrong.
    fn read_import(&self, status: i32, bytes: &[u8]) -> Result<Imported, RecordError> {
        if status == STATUS_OK
            && let Some(converted) = read_valid_import(bytes)
        {
            return Ok(converted);
        }
        let converted = self.decode("import", status, bytes)?;
        let record = check_import(&self.info.name, converted.record)?;
        Ok(Converted {
            record,
            notes: converted.notes,
        })
    }

    /// Decodes the answer of `import` or `export`.
    fn decode(&self, what: &str, status: i32, bytes: &[u8]) -> Result<Converted, RecordError> {
        match status {
            STATUS_OK => serde_json::from_slice(bytes)
                .map_err(|e| self.bad(&format!("returned invalid JSON from `{what}`: {e}"))),
            other => Err(refusal(&self.info.name, &self.path, what, other, bytes)),
        }
    }

    fn bad(&self, what: &str) -> RecordError {
        broken(&self.info.name, &self.path, what)
    }

    /// Imports a record from its JSON text, sent to the plugin as it is.
    fn import_text(&self, text: &[u8], notes: &mut Notes) -> Result<CanonicalRecord, RecordError> {
        let converted =
            self.convert(false, text, |status, bytes| self.read_import(status, bytes))?;
        wire::notes_from_wire(converted.notes, notes);
        Ok(converted.record)
    }
}

impl ViewAdapter for NativeAdapter {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self, _profile: Profile) -> &Value {
        &self.schema
    }

    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let bytes =
            serde_json::to_vec(&record).map_err(|e| RecordError::invalid("", e.to_string()))?;
        drop(record);
        self.import_text(&bytes, notes)
    }

    fn export(
        &self,
        record: &CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        let request = ExportRequest {
            record,
            profile: options.profile,
        };
        // Requests are about as long as each other: start at the last one's size.
        let mut bytes = Vec::with_capacity(self.request_size.load(Ordering::Relaxed));
        serde_json::to_writer(&mut bytes, &request)
            .map_err(|e| RecordError::invalid("", e.to_string()))?;
        self.request_size.store(bytes.len() + 64, Ordering::Relaxed);
        let converted = self.convert(true, &bytes, |status, bytes| {
            self.decode("export", status, bytes)
        })?;
        wire::notes_from_wire(converted.notes, notes);
        check_export(&self.info, self.validator.as_ref(), converted.record)
    }
}
