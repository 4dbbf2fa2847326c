//! Workspace integration tests live under `tests/`.
