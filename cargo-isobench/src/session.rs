//! What every command works with: the adapters (built in, declared, plugins) and the
//! configuration.

use isobench_core::Registry;

use crate::cli::{self, Command};
use crate::errors::CliError;
use crate::{config, declared, plugin};

/// What every command works with: the adapters and the configuration.
#[derive(Debug)]
pub struct Session {
    /// The adapters available.
    pub registry: Registry,
    /// `isobench.toml`, or the defaults.
    pub config: config::Config,
    /// Plugins found but not loaded, since the user did not choose them (or they changed).
    pub skipped: Vec<plugin::Skipped>,
    /// The directory the command runs in.
    pub cwd: std::path::PathBuf,
}

impl Session {
    /// Loads the configuration and registers the adapters.
    pub fn open(cli: &cli::Isobench) -> Result<Self, CliError> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
        let config = config::Config::load(cli.config.as_deref(), &cwd)?;
        isobench_adapters::link();
        let mut registry = Registry::builtin();
        // `plugin` and `trust` manage plugins: a broken one must not stop them.
        let configured: Vec<_> = config.adapters.iter().map(|a| a.path.clone()).collect();
        let config_dir = config.path.as_deref().and_then(std::path::Path::parent);
        declared::register_all(&mut registry, &cli.adapters, &configured, config_dir, &cwd)?;
        let skipped = if matches!(cli.command, Command::Plugin(_) | Command::Trust(_)) {
            Vec::new()
        } else {
            plugin::register_all(&mut registry, &cli.plugins, &config, &cwd)?
        };
        Ok(Self {
            registry,
            config,
            skipped,
            cwd,
        })
    }
}
