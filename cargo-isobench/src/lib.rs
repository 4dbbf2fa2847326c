//! `cargo isobench`: the command line of the ISO-Bench converter.
//!
//! `main.rs` only calls [`run`]; everything else lives here so that tests can drive it.
//! Data goes to stdout, everything else to stderr; exit codes are in [`exit`].

pub mod assign;
pub mod cli;
pub mod commands;
pub mod config;
pub mod declared;
pub mod detect;
pub mod errors;
pub mod exit;
pub mod formats;
pub mod input;
pub mod keywords;
pub mod mine;
pub mod output;
pub mod output_file;
pub mod parquet;
pub mod pipeline;
pub mod plugin;
pub mod session;
pub mod small_file;
pub mod terminal;
pub mod validate;

use std::ffi::OsString;
use std::io::{self, Write};

use clap::Parser;
use isobench_core::{Profile, Registry};

pub use crate::formats::find;
pub use crate::session::Session;

use crate::cli::{AdaptersArgs, Cargo, Command, SchemaArgs};
use crate::errors::CliError;

/// Runs the command line and returns the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> i32 {
    let mut args: Vec<OsString> = args.into_iter().collect();
    // Run directly (`cargo-isobench convert ...`, `cargo-isobench --help`), the
    // `isobench` layer cargo adds is implied.
    if args.get(1).is_none_or(|a| a != "isobench") {
        args.insert(1.min(args.len()), "isobench".into());
    }
    let Cargo::Isobench(cli) = match Cargo::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return code;
        }
    };
    input::set_max_record_bytes(cli.max_record_bytes);
    // They describe the command line: no configuration or plugin is read.
    let early = match &cli.command {
        Command::Completions(args) => Some(commands::manual::completions(args)),
        Command::Man(args) => Some(commands::manual::man(args)),
        _ => None,
    };
    let result = early.unwrap_or_else(|| run_in_session(&cli));
    match result {
        Ok(code) => code,
        // A reader that stops early (`| head`) did not get every record: said in one line,
        // and not a success.
        Err(CliError::Write { ref source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {
            crate::terminal::say!(
                "error: the output pipe was closed before every record was written; the rest were not"
            );
            exit::IO
        }
        Err(e) => {
            report_error(&e);
            e.exit_code()
        }
    }
}

/// Runs a command that needs the adapters and the configuration.
fn run_in_session(cli: &cli::Isobench) -> Result<i32, CliError> {
    Session::open(cli).and_then(|session| {
        let registry = &session.registry;
        let result = match &cli.command {
            Command::Convert(args) => pipeline::ConvertRequest::from_args(
                args,
                mine::convert_enrichment(
                    &session.config,
                    args.repos.as_deref(),
                    args.timings.as_deref(),
                ),
            )
            .plan(registry)
            .and_then(|plan| pipeline::run(registry, &plan)),
            Command::Mine(args) => commands::mine::run_mine(&session, args),
            Command::Enrich(args) => commands::enrich::run_enrich(&session, args),
            Command::Timings(args) => commands::timings::run_timings(args),
            Command::Validate(args) => validate::run(registry, args),
            Command::Adapters(args) => list_adapters(registry, args),
            Command::Schema(args) => print_schema(registry, args),
            Command::Plugin(command) => plugin_command(&session.cwd, command),
            Command::Trust(args) => plugin::trust::run(&session.cwd, args),
            Command::Diff(args) => commands::diff::run(registry, args),
            Command::Completions(args) => commands::manual::completions(args),
            Command::Man(args) => commands::manual::man(args),
        };
        result.map_err(|mut e| {
            if let CliError::UnknownFormat { skipped, .. } = &mut e {
                skipped.extend(
                    session
                        .skipped
                        .iter()
                        .map(|s| format!("{s} ({})", s.remedy)),
                );
            }
            e
        })
    })
}

fn plugin_command(cwd: &std::path::Path, command: &cli::PluginCommand) -> Result<i32, CliError> {
    match command {
        cli::PluginCommand::List(args) => plugin::workspace::list(cwd, args),
        cli::PluginCommand::Build(args) => plugin::workspace::build(cwd, args),
        cli::PluginCommand::New(args) => plugin::scaffold::run(cwd, args),
    }
}

/// Prints an error and its hint on stderr.
pub fn report_error(e: &CliError) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{}", terminal::shown(&format!("error: {e}")));
    if let Some(hint) = e.hint() {
        let _ = writeln!(err, "{}", terminal::shown(&format!("hint: {hint}")));
    }
}

fn stdout_error(e: io::Error) -> CliError {
    CliError::Write {
        path: "-".into(),
        source: e,
    }
}

/// The adapters, as `adapters --json` lists them: each adapter's info, with what it cannot
/// carry.
pub fn adapter_list(registry: &Registry) -> Vec<serde_json::Value> {
    registry
        .iter()
        .map(|a| {
            let info = a.info();
            let mut value = serde_json::to_value(info).expect("adapter info serialises");
            value["cannot_carry"] = info.cannot_carry().into();
            if let Some(table) = a.table() {
                value["table"] = serde_json::to_value(table).expect("a table serialises");
            }
            value
        })
        .collect()
}

fn list_adapters(registry: &Registry, args: &AdaptersArgs) -> Result<i32, CliError> {
    let mut out = io::stdout().lock();
    if args.json {
        let list = adapter_list(registry);
        serde_json::to_writer_pretty(&mut out, &list).map_err(|e| stdout_error(e.into()))?;
        writeln!(out).map_err(stdout_error)?;
        return Ok(exit::OK);
    }
    out.write_all(adapters_table(registry).as_bytes())
        .map_err(stdout_error)?;
    Ok(exit::OK)
}

/// `adapters`: one table of the canonical fields by format, saying for each what the
/// format's import fills and needs, what its export writes, and what its consumer
/// requires; then each format's names, origin and description.
fn adapters_table(registry: &Registry) -> String {
    use std::collections::HashSet;
    use std::fmt::Write as _;
    let adapters: Vec<&isobench_core::Registered> = registry.iter().collect();
    let mut rows: Vec<String> = isobench_core::record::V1_FIELDS
        .iter()
        .filter(|f| **f != "extensions")
        .map(|f| (*f).to_owned())
        .chain(
            isobench_core::vocab::SHARED_KEYS
                .iter()
                .map(|k| format!("extensions.{k}")),
        )
        .collect();
    let mut listed: HashSet<String> = rows.iter().cloned().collect();
    for adapter in &adapters {
        let info = adapter.info();
        for field in info.fills.iter().chain(&info.carries) {
            if listed.insert(field.clone()) {
                rows.push(field.clone());
            }
        }
    }
    // Each adapter's fields by mark, looked up per cell: a table may declare thousands.
    let marks: Vec<[HashSet<&str>; 4]> = adapters
        .iter()
        .map(|adapter| {
            let info = adapter.info();
            let needs = adapter.table().map_or_else(HashSet::new, |t| {
                t.fields
                    .iter()
                    .filter(|f| f.required)
                    .filter_map(|f| f.to.as_deref())
                    .collect()
            });
            [
                info.fills.iter().map(String::as_str).collect(),
                needs,
                info.carries.iter().map(String::as_str).collect(),
                info.contract
                    .requires
                    .iter()
                    .map(|r| r.field.as_str())
                    .collect(),
            ]
        })
        .collect();
    let cell = |marks: &[HashSet<&str>; 4], field: &str| {
        let mut cell: String = ['r', 'n', 'w', '!']
            .into_iter()
            .zip(marks)
            .filter(|(_, set)| set.contains(field))
            .map(|(mark, _)| mark)
            .collect();
        if cell.is_empty() {
            cell.push('-');
        }
        cell
    };
    let first = rows.iter().map(String::len).max().unwrap_or(0);
    let widths: Vec<usize> = adapters
        .iter()
        .map(|a| a.info().name.len().max(4))
        .collect();
    let mut text = format!("{:first$}", "canonical field");
    for (adapter, width) in adapters.iter().zip(&widths) {
        let _ = write!(text, "  {:width$}", adapter.info().name);
    }
    text = text.trim_end().to_owned();
    text.push('\n');
    for row in &rows {
        let mut line = format!("{row:first$}");
        for (marks, width) in marks.iter().zip(&widths) {
            let _ = write!(line, "  {:width$}", cell(marks, row));
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.push_str(
        "\nr: an import fills it   n: an import needs it   w: an export writes it   !: the format's consumer requires it   -: the format has no place for it\n\n",
    );
    for adapter in &adapters {
        let info = adapter.info();
        let aliases = if info.aliases.is_empty() {
            String::new()
        } else {
            format!(" (aliases: {})", info.aliases.join(", "))
        };
        let consumer = if info.contract.consumer.is_empty() {
            String::new()
        } else {
            format!("; consumer: {}", info.contract.consumer)
        };
        let _ = writeln!(
            text,
            "{}{aliases}  [{}]\n  {}{consumer}",
            info.name, info.origin, info.description
        );
    }
    text.push_str("\n`cargo isobench adapters --json` gives each format's full field table.\n");
    text
}

fn print_schema(registry: &Registry, args: &SchemaArgs) -> Result<i32, CliError> {
    let adapter = find(registry, &args.format)?;
    let schema = adapter.schema(Profile::from(args.profile));
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, schema).map_err(|e| stdout_error(e.into()))?;
    writeln!(out).map_err(stdout_error)?;
    Ok(exit::OK)
}
