//! A native plugin that misbehaves on purpose, for the host's tests. What it does is
//! chosen by `ISOBENCH_TEST_PLUGIN_MODE` when it is called:
//!
//! * `wrong-abi`: its descriptor claims ABI version 999;
//! * `abi-1`: its descriptor claims ABI version 1, the one before tables;
//! * `panic`: `import` and `export` panic;
//! * `garbage`: `import` and `export` answer bytes that are not JSON;
//! * `invalid`: `import` answers a canonical record without `repo`;
//! * `answer`: `import` answers the bytes of `ISOBENCH_TEST_PLUGIN_ANSWER` as they are;
//! * `tamper`: `import` and `export` edit `body`/`patch`;
//! * `table`: it is declared by a field table without hooks, and every per-record call
//!   (`import`, `export`, the hooks) is refused: the host must run the table itself;
//! * `table-hooks`: the same table with hooks for `labels` (a list, in whatever encoding)
//!   and `seen` (a timestamp), which the host must send across and merge back;
//! * anything else: a well-behaved `test-plugin` adapter (records pass through `extensions`).
//!
//! When `ISOBENCH_TEST_PLUGIN_MARK` names a file, its entry point creates that file: the
//! proof that the host ran the library's code.
#![allow(unsafe_code)] // a hand-written ABI, to get it wrong on purpose

use std::sync::OnceLock;

use isobench_plugin_sdk::__private::{Exported, TablePlugin};
use isobench_plugin_sdk::abi::{
    ABI_VERSION, DESCRIPTOR_SIZE, OutBuffer, PluginDescriptor, STATUS_OK,
};
use isobench_plugin_sdk::core::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
use isobench_plugin_sdk::core::codec::Encoding;
use isobench_plugin_sdk::core::table::io::{Exporter, Importer};
use isobench_plugin_sdk::core::table::{Field, HookResult, Hooks, ListEncoding, Table};
use isobench_plugin_sdk::core::{CanonicalRecord, Notes, Profile, RecordError};
use serde_json::{Map, Value, json};

fn mode() -> String {
    std::env::var("ISOBENCH_TEST_PLUGIN_MODE").unwrap_or_default()
}

/// Records `{"id": ..., "repo": ..., "body": ..., "tests": [...], ...}`; `body` travels
/// as `patch` and `tests` as `extensions.fail_to_pass`, both moved unread, everything
/// else but `id` and `repo` in `extensions.rest`.
#[derive(Debug)]
struct TestPlugin {
    info: AdapterInfo,
    schema: Value,
}

impl ViewAdapter for TestPlugin {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self, _profile: Profile) -> &Value {
        &self.schema
    }

    fn import(
        &self,
        mut record: Map<String, Value>,
        _notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        match mode().as_str() {
            "panic" => panic!("the test plugin panics on purpose"),
            "invalid" => Ok(CanonicalRecord::default()),
            _ => {
                let take = |r: &mut Map<String, Value>, k: &str| match r.shift_remove(k) {
                    Some(Value::String(s)) => Ok(s),
                    _ => Err(RecordError::missing(
                        format!("/{k}"),
                        "a string is required",
                    )),
                };
                let mut c = CanonicalRecord {
                    instance_id: Some(take(&mut record, "id")?),
                    repo: Some(take(&mut record, "repo")?),
                    patch: record
                        .contains_key("body")
                        .then(|| take(&mut record, "body"))
                        .transpose()?
                        .map(tamper),
                    ..CanonicalRecord::default()
                };
                if let Some(tests) = record.shift_remove("tests") {
                    c.set_ext("fail_to_pass", tests);
                }
                c.set_ext("rest", Value::Object(record));
                Ok(c)
            }
        }
    }

    fn export(
        &self,
        c: &CanonicalRecord,
        _o: &ExportOptions,
        _notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        assert!(mode() != "panic", "the test plugin panics on purpose");
        let mut out = Map::new();
        out.insert(
            "id".into(),
            c.instance_id.clone().unwrap_or_default().into(),
        );
        out.insert("repo".into(), c.repo.clone().unwrap_or_default().into());
        if let Some(patch) = &c.patch {
            out.insert("body".into(), tamper(patch.clone()).into());
        }
        if let Some(tests) = c.ext("fail_to_pass") {
            out.insert("tests".into(), tests.clone());
        }
        if let Some(Value::Object(rest)) = c.ext("rest") {
            out.extend(rest.clone());
        }
        Ok(out)
    }
}

/// `body` as it is, or edited in the `tamper` mode.
fn tamper(body: String) -> String {
    if mode() == "tamper" {
        format!("edited: {body}")
    } else {
        body
    }
}

/// The same records, declared by a table: `labels` and `seen` are the hooks'.
fn table() -> Table {
    Table::new("test-plugin", &[], "a plugin for the host's tests").fields(vec![
        Field::new("id", "instance_id").required(),
        Field::new("repo", "repo").required(),
        Field::new("body", "patch"),
        Field::new("tests", "extensions.fail_to_pass").list(ListEncoding::Array),
        Field::new("labels", "extensions.labels").hook(),
        Field::new("seen", "created_at").hook(),
    ])
}

/// `labels`: a list in any encoding, kept in it; `seen`: a date-time, kept as written.
#[derive(Debug)]
struct LabelsAndSeen;

impl Hooks for LabelsAndSeen {
    fn import(&self, from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        assert!(
            c.patch.is_none() && c.ext("fail_to_pass").is_none(),
            "the host sent a bulk field to the hooks"
        );
        if let Some(labels) = from.list("labels")? {
            c.set_ext("labels", labels);
        }
        c.created_at = from.timestamp("seen", str::to_owned)?;
        from.notes.derived("labels", "read by the plugin's hook");
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) -> HookResult {
        assert!(
            c.patch.is_none() && c.ext("fail_to_pass").is_none(),
            "the host sent a bulk field to the hooks"
        );
        to.list("labels", c.ext_list("labels"), Encoding::Native);
        to.timestamp("seen", c.created_at.as_deref(), str::to_owned);
        Ok(())
    }
}

fn adapter() -> &'static dyn ViewAdapter {
    static ADAPTER: OnceLock<TestPlugin> = OnceLock::new();
    ADAPTER.get_or_init(|| TestPlugin {
        info: AdapterInfo::new("test-plugin", &[], "a plugin for the host's tests"),
        schema: json!({"type": "object"}),
    })
}

fn plugin() -> Exported {
    static BARE: OnceLock<TablePlugin> = OnceLock::new();
    static HOOKED: OnceLock<TablePlugin> = OnceLock::new();
    match mode().as_str() {
        "table" => Exported::Table(BARE.get_or_init(|| TablePlugin {
            table: table(),
            hooks: None,
        })),
        "table-hooks" => Exported::Table(HOOKED.get_or_init(|| TablePlugin {
            table: table(),
            hooks: Some(Box::new(LabelsAndSeen)),
        })),
        _ => Exported::View(adapter()),
    }
}

unsafe extern "C" fn manifest(out: *mut OutBuffer) -> i32 {
    // SAFETY: the host passes a writable buffer.
    unsafe { isobench_plugin_sdk::__private::manifest(plugin, out) }
}

unsafe fn garbage(out: *mut OutBuffer) -> i32 {
    // SAFETY: the host passes a writable buffer.
    unsafe { out.write(OutBuffer::from_vec(b"{this is not json".to_vec())) };
    STATUS_OK
}

unsafe extern "C" fn import(input: *const u8, len: usize, out: *mut OutBuffer) -> i32 {
    if mode() == "garbage" {
        // SAFETY: forwarded from the host.
        return unsafe { garbage(out) };
    }
    if mode() == "answer" {
        let answer = std::env::var("ISOBENCH_TEST_PLUGIN_ANSWER").unwrap_or_default();
        // SAFETY: the host passes a writable buffer.
        unsafe { out.write(OutBuffer::from_vec(answer.into_bytes())) };
        return STATUS_OK;
    }
    // SAFETY: the host passes `len` readable bytes and a writable buffer.
    unsafe { isobench_plugin_sdk::__private::import(plugin, input, len, out) }
}

unsafe extern "C" fn export(input: *const u8, len: usize, out: *mut OutBuffer) -> i32 {
    if mode() == "garbage" {
        // SAFETY: forwarded from the host.
        return unsafe { garbage(out) };
    }
    // SAFETY: the host passes `len` readable bytes and a writable buffer.
    unsafe { isobench_plugin_sdk::__private::export(plugin, input, len, out) }
}

unsafe extern "C" fn hook_import(input: *const u8, len: usize, out: *mut OutBuffer) -> i32 {
    // SAFETY: the host passes `len` readable bytes and a writable buffer.
    unsafe { isobench_plugin_sdk::__private::hook_import(plugin, input, len, out) }
}

unsafe extern "C" fn hook_export(input: *const u8, len: usize, out: *mut OutBuffer) -> i32 {
    // SAFETY: the host passes `len` readable bytes and a writable buffer.
    unsafe { isobench_plugin_sdk::__private::hook_export(plugin, input, len, out) }
}

unsafe extern "C" fn free(buffer: OutBuffer) {
    // SAFETY: the buffer was filled by this library.
    unsafe { isobench_plugin_sdk::__private::free(buffer) }
}

static GOOD: PluginDescriptor = PluginDescriptor {
    abi_version: ABI_VERSION,
    size: DESCRIPTOR_SIZE,
    manifest,
    import,
    export,
    free,
    hook_import,
    hook_export,
};

static ABI_1: PluginDescriptor = PluginDescriptor {
    abi_version: 1,
    size: DESCRIPTOR_SIZE,
    manifest,
    import,
    export,
    free,
    hook_import,
    hook_export,
};

static WRONG_ABI: PluginDescriptor = PluginDescriptor {
    abi_version: 999,
    size: DESCRIPTOR_SIZE,
    manifest,
    import,
    export,
    free,
    hook_import,
    hook_export,
};

/// The entry point.
#[unsafe(no_mangle)]
pub extern "C" fn isobench_plugin_entry() -> *const PluginDescriptor {
    if let Some(mark) = std::env::var_os("ISOBENCH_TEST_PLUGIN_MARK") {
        let _ = std::fs::write(mark, "the test plugin's code ran\n");
    }
    match mode().as_str() {
        "wrong-abi" => &raw const WRONG_ABI,
        "abi-1" => &raw const ABI_1,
        _ => &raw const GOOD,
    }
}
