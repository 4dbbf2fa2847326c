//! A `cargo isobench` adapter for a new benchmark format, `custom-adapter`, built as a
//! native plugin. Copy this crate (or run `cargo isobench plugin new NAME`), then change
//! the field table below to your format's.
//!
//! One record of the format:
//!
//! ```json
//! {"task_id": "octo__widgets-7", "repository": "octo/widgets", "base_sha": "1111...",
//!  "gold_patch": "diff ...", "test_patch": "diff ...", "issue": "Widgets crash ...",
//!  "fail_to_pass": ["tests/test_w.py::test_empty"], "pass_to_pass": ["..."]}
//! ```
//!
//! The table says everything a conversion needs: each key, the canonical field it maps
//! to (a v1 field, or a shared-vocabulary key such as `extensions.fail_to_pass` so the
//! concept travels to every format that knows it), its type, and what an import and the
//! format's own consumer require. Key order, encodings and unknown keys are kept for
//! exact round trips. The table crosses to the host in the plugin's manifest and the host
//! runs it, so patches and texts never cross; the hook runs here, on what the table left.
//! A format that needs no code at all can be a TOML file instead
//! (`--adapter my-format.toml`).
//!
//! Build with `cargo build --release` and load the library with
//! `cargo isobench --plugin target/release/libcustom_adapter.so convert --from custom-adapter ...`
//! (`.dylib` on macOS, `custom_adapter.dll` on Windows).

use isobench_plugin_sdk::core::error::pointer_token;
use isobench_plugin_sdk::core::table::io::Importer;
use isobench_plugin_sdk::core::table::{
    Field, HookResult, Hooks, ListEncoding, Table, TableAdapter,
};
use isobench_plugin_sdk::core::{CanonicalRecord, RecordError};
use isobench_plugin_sdk::export_table;

/// The format's keys.
pub fn table() -> Table {
    let f = Field::new;
    let harness = "the format's harness (loads a task by `task_id` in `repository`)";
    Table::new(
        "custom-adapter",
        &[],
        "custom-adapter rows (task_id, repository, base_sha, gold_patch, issue, test lists)",
    )
    .fields(vec![
        f("task_id", "instance_id")
            .required()
            .consumer(harness)
            .non_empty(),
        f("repository", "repo")
            .required()
            .consumer(harness)
            .non_empty(),
        f("base_sha", "base_commit"),
        f("gold_patch", "patch"),
        f("test_patch", "test_patch"),
        f("issue", "extensions.problem_statement"),
        f("fail_to_pass", "extensions.fail_to_pass").list(ListEncoding::Array),
        f("pass_to_pass", "extensions.pass_to_pass").list(ListEncoding::Array),
    ])
}

/// What the table cannot say: a task id names its repository (`octo__widgets-7` is a
/// task of `octo/widgets`), and a row whose id names another is refused on import. The
/// refusal points at the key the table maps to `instance_id`, whatever the table names it.
#[derive(Debug)]
pub struct SameRepository {
    /// The format's key of the task id.
    id_key: String,
}

impl SameRepository {
    /// The check for a format declared by `table`.
    pub fn of(table: &Table) -> Self {
        Self {
            id_key: table
                .key_of("instance_id")
                .unwrap_or("instance_id")
                .to_owned(),
        }
    }
}

impl Hooks for SameRepository {
    fn import(&self, _from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        let (Some(id), Some(repo)) = (&c.instance_id, &c.repo) else {
            return Ok(());
        };
        if id.starts_with(&format!("{}-", repo.replace('/', "__"))) {
            return Ok(());
        }
        Err(RecordError::invalid(
            format!("/{}", pointer_token(&self.id_key)),
            format!(
                "`{id}` is not a task of `{repo}` (expected `{}-N`)",
                repo.replace('/', "__")
            ),
        ))
    }
}

/// The adapter, as the host builds it from the plugin (for tests in this crate).
pub fn adapter() -> TableAdapter {
    let table = table();
    let hooks = SameRepository::of(&table);
    TableAdapter::new(table, hooks).expect("the table is valid")
}

export_table!(table(), SameRepository::of(&table()));
