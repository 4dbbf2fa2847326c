//! The C ABI between `cargo isobench` and a native plugin.
//!
//! A plugin exports one symbol, [`ENTRY_SYMBOL`], an `extern "C" fn() -> *const
//! PluginDescriptor`. The descriptor is `#[repr(C)]` and starts with the ABI version and
//! its own size, so a host reads those two fields first and touches nothing else when
//! they do not match. Every function after them takes and gives JSON bytes only: no Rust
//! type, trait object or allocation crosses the boundary.
//!
//! Version 2 adds the hook calls: a plugin declared by a field table sends the table in
//! its manifest, the host runs it, and calls `hook_import`/`hook_export` (see
//! [`crate::hooks`]) only for what the table leaves to the plugin's hooks. A library of
//! version 1 is refused with the remedy (rebuild it against this SDK).
//!
//! Each of `manifest`, `import`, `export` and the hook calls writes its answer into an [`OutBuffer`]
//! allocated by the plugin and returns a status ([`STATUS_OK`], ...). The host copies
//! the bytes out and hands the buffer back to the plugin's `free`: memory is always
//! released by the side that allocated it.

use std::mem::ManuallyDrop;

/// The version of this ABI. A host refuses a plugin whose descriptor says otherwise.
pub const ABI_VERSION: u32 = 2;

/// The name of the one exported entry point (NUL-terminated, as `dlsym` wants it).
pub const ENTRY_SYMBOL: &[u8] = b"isobench_plugin_entry\0";

/// The call succeeded; the buffer holds the answer.
pub const STATUS_OK: i32 = 0;
/// The adapter refused the record; the buffer holds a [`crate::wire::WireError`].
pub const STATUS_RECORD_ERROR: i32 = 1;
/// The adapter panicked; the buffer holds `{"message": ...}`.
pub const STATUS_PANIC: i32 = 2;
/// The request was not what the ABI promises (bad JSON); the buffer holds `{"message": ...}`.
pub const STATUS_BAD_REQUEST: i32 = 3;

/// Bytes allocated by the plugin, handed to the host, and given back to the plugin's
/// `free` once copied.
#[repr(C)]
#[derive(Debug)]
pub struct OutBuffer {
    /// Start of the bytes (null when empty).
    pub ptr: *mut u8,
    /// Number of bytes.
    pub len: usize,
    /// Capacity of the allocation (the plugin needs it to free).
    pub cap: usize,
}

impl OutBuffer {
    /// An empty buffer, for the host to pass as the out parameter.
    pub const fn empty() -> Self {
        Self {
            ptr: std::ptr::null_mut(),
            len: 0,
            cap: 0,
        }
    }

    /// Hands a vector's allocation over (plugin side).
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        let mut bytes = ManuallyDrop::new(bytes);
        Self {
            ptr: bytes.as_mut_ptr(),
            len: bytes.len(),
            cap: bytes.capacity(),
        }
    }

    /// Takes the allocation back (plugin side, in `free`).
    ///
    /// # Safety
    /// `self` must come from [`OutBuffer::from_vec`] in this same library and not have
    /// been freed already.
    #[allow(unsafe_code)]
    pub unsafe fn into_vec(self) -> Vec<u8> {
        if self.ptr.is_null() {
            return Vec::new();
        }
        // SAFETY: the caller promises ptr/len/cap come from a `Vec<u8>` allocated by this
        // library's allocator and not yet freed.
        unsafe { Vec::from_raw_parts(self.ptr, self.len, self.cap) }
    }

    /// The bytes (host side, before `free`).
    ///
    /// # Safety
    /// `self` must have been filled by a plugin call and not freed yet.
    #[allow(unsafe_code)]
    pub unsafe fn as_slice(&self) -> &[u8] {
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: the plugin wrote `len` initialised bytes at `ptr` and keeps them alive
        // until `free` is called; the caller has not called it yet.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// `manifest(out)`: writes the [`crate::wire::Manifest`] as JSON.
pub type ManifestFn = unsafe extern "C" fn(out: *mut OutBuffer) -> i32;
/// `import(record, len, out)`: reads a foreign record (JSON object bytes), writes a
/// [`crate::wire::Converted`] holding the canonical record.
pub type ImportFn = unsafe extern "C" fn(input: *const u8, len: usize, out: *mut OutBuffer) -> i32;
/// `export(request, len, out)`: reads a [`crate::wire::ExportRequest`], writes a
/// [`crate::wire::Converted`] holding the foreign record.
pub type ExportFn = unsafe extern "C" fn(input: *const u8, len: usize, out: *mut OutBuffer) -> i32;
/// `hook_import(request, len, out)`: reads a [`crate::hooks::HookImport`], writes a
/// [`crate::hooks::HookImported`]. A plugin without hooks answers [`STATUS_BAD_REQUEST`].
pub type HookImportFn =
    unsafe extern "C" fn(input: *const u8, len: usize, out: *mut OutBuffer) -> i32;
/// `hook_export(request, len, out)`: reads a [`crate::hooks::HookExport`], writes a
/// [`crate::hooks::HookExported`]. A plugin without hooks answers [`STATUS_BAD_REQUEST`].
pub type HookExportFn =
    unsafe extern "C" fn(input: *const u8, len: usize, out: *mut OutBuffer) -> i32;
/// `free(buffer)`: releases a buffer the plugin filled.
pub type FreeFn = unsafe extern "C" fn(buffer: OutBuffer);

/// What the entry point returns. Field order is the ABI: never reorder, only append
/// (and then raise [`ABI_VERSION`]).
#[repr(C)]
#[derive(Debug)]
pub struct PluginDescriptor {
    /// [`ABI_VERSION`] of the SDK the plugin was built with. Always the first field.
    pub abi_version: u32,
    /// `size_of::<PluginDescriptor>()` in the plugin. Always the second field.
    pub size: u32,
    /// See [`ManifestFn`].
    pub manifest: ManifestFn,
    /// See [`ImportFn`].
    pub import: ImportFn,
    /// See [`ExportFn`].
    pub export: ExportFn,
    /// See [`FreeFn`].
    pub free: FreeFn,
    /// See [`HookImportFn`] (since version 2).
    pub hook_import: HookImportFn,
    /// See [`HookExportFn`] (since version 2).
    pub hook_export: HookExportFn,
}

/// The type of the entry point.
pub type EntryFn = unsafe extern "C" fn() -> *const PluginDescriptor;

/// The descriptor's size, as written in [`PluginDescriptor::size`].
#[allow(clippy::cast_possible_truncation)] // a handful of pointers
pub const DESCRIPTOR_SIZE: u32 = std::mem::size_of::<PluginDescriptor>() as u32;
