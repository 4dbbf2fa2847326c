//! The routes of the targets that read records with values held: a string and a test
//! list, as a conversion holds them.

use isobench_core::passthrough::Route;

/// Routes of the two kinds a conversion holds: a string, and a list that may come as a
/// string holding a JSON-encoded list.
pub const ROUTES: [Route<'static>; 2] = [
    Route {
        key: "patch",
        field: "patch",
        list: false,
        encoded: false,
        path: &[],
    },
    Route {
        key: "FAIL_TO_PASS",
        field: "extensions.fail_to_pass",
        list: true,
        encoded: true,
        path: &[],
    },
];
