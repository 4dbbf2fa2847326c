//! Why a plugin cannot be used, and what the user can do about it.

use std::path::PathBuf;

use isobench_core::adapter::NameClash;

use crate::errors::AreaError;

/// A plugin that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// The file does not exist.
    #[error("plugin `{}` does not exist", .0.display())]
    Missing(PathBuf),
    /// The file is not a loadable library.
    #[error("plugin `{path}` cannot be loaded as a library: {reason}")]
    NotALibrary {
        /// The file.
        path: String,
        /// What the loader said.
        reason: String,
    },
    /// The library has no isobench entry point.
    #[error(
        "`{path}` is a library but not an isobench plugin: it exports no `isobench_plugin_entry`"
    )]
    NotAPlugin {
        /// The file.
        path: String,
    },
    /// The plugin was built for another ABI.
    #[error(
        "plugin `{path}` speaks plugin ABI version {found}, this cargo-isobench speaks {}",
        isobench_plugin_sdk::abi::ABI_VERSION
    )]
    AbiMismatch {
        /// The file.
        path: String,
        /// The version it declares.
        found: u32,
    },
    /// The plugin panicked while describing itself.
    #[error("plugin `{path}` panicked: {message}")]
    Panicked {
        /// The file.
        path: String,
        /// The panic message.
        message: String,
    },
    /// The plugin answered something that is not what the ABI promises.
    #[error("plugin `{path}` returned {what}")]
    Garbage {
        /// The file.
        path: String,
        /// What it returned.
        what: String,
    },
    /// A program plugin failed to start or to shake hands.
    #[error("program plugin `{command}` {what}")]
    Program {
        /// The command line.
        command: String,
        /// What went wrong.
        what: String,
    },
    /// Two adapters answer to the same name.
    #[error("{0}")]
    Clash(#[from] NameClash),
    /// The cargo workspace could not be read or built.
    #[error("{0}")]
    Workspace(String),
}

impl AreaError for PluginError {
    fn hint(&self) -> Option<String> {
        let hint = match self {
            Self::Missing(_) => {
                "check the path; build the plugin first (`cargo build --release` in its crate, or `cargo isobench plugin build`)"
            }
            Self::NotALibrary { .. } | Self::NotAPlugin { .. } => {
                "a native plugin is the `cdylib` of a crate that calls `isobench_plugin_sdk::export_plugin!`"
            }
            Self::AbiMismatch { .. } => {
                "rebuild the plugin against the isobench-plugin-sdk that matches this cargo-isobench"
            }
            Self::Panicked { .. } | Self::Garbage { .. } => {
                "a bug in the plugin: report it to its author"
            }
            Self::Program { .. } => {
                "run the command by hand: it must answer `{\"id\":0,\"method\":\"hello\",\"protocol\":2}` on stdin with a manifest line on stdout"
            }
            Self::Clash(_) => "rename the plugin's adapter, or load only one of the two",
            Self::Workspace(_) => {
                "run the command inside a cargo workspace whose plugin crates build"
            }
        };
        Some(hint.to_owned())
    }
}
