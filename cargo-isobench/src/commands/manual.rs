//! `completions` and `man`: the shell completion scripts and the manual pages, made from
//! the same command line definition the parser uses, so that they list every command and
//! option there is.
//!
//! Both describe the `cargo-isobench` binary (which takes the same arguments as `cargo
//! isobench`): a shell completes `cargo` itself with cargo's own script.

use std::io::Write as _;
use std::path::Path;

use clap::CommandFactory as _;
use clap_complete::Shell as Generator;

use crate::cli::{Cargo, CompletionsArgs, ManArgs, Shell};
use crate::errors::CliError;
use crate::exit;

/// The binary's name, as the scripts and pages call it.
pub const BIN: &str = "cargo-isobench";

/// The command line of the `cargo-isobench` binary: the `isobench` subcommand of the
/// `cargo` layer, named as the binary.
pub fn command() -> clap::Command {
    let command = Cargo::command()
        .find_subcommand("isobench")
        .expect("the cargo layer has the isobench subcommand")
        .clone()
        .name(BIN)
        .display_name(BIN)
        .version(env!("CARGO_PKG_VERSION"));
    named_under(command, BIN)
}

/// `command` and its subcommands, each called by its path from the binary
/// (`cargo-isobench plugin build`), not from the `cargo isobench` layer.
fn named_under(command: clap::Command, bin_name: &str) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    let mut command = command.bin_name(bin_name);
    for name in names {
        let path = format!("{bin_name} {name}");
        command = command.mut_subcommand(&name, |sub| named_under(sub, &path));
    }
    command
}

/// `completions SHELL`: the script on stdout.
pub fn completions(args: &CompletionsArgs) -> Result<i32, CliError> {
    let generator = match args.shell {
        Shell::Bash => Generator::Bash,
        Shell::Zsh => Generator::Zsh,
        Shell::Fish => Generator::Fish,
        Shell::Elvish => Generator::Elvish,
        Shell::Powershell => Generator::PowerShell,
    };
    let mut script = Vec::new();
    clap_complete::generate(generator, &mut command(), BIN, &mut script);
    if args.shell == Shell::Bash {
        script = bash_states_agree(&script).into_bytes();
    }
    write_stdout(&script)
}

/// `clap_complete`'s bash script (4.6) spells a subcommand's state two ways when the
/// binary's name has a hyphen: the loop that reads the words arrives at
/// `cargo__isobench__subcmd__diff`, the branches that complete its options are labelled
/// `cargo__subcmd__isobench__subcmd__diff`, so no option of a subcommand completes
/// (clap issue 6421). The labels are respelled as the loop spells them.
fn bash_states_agree(script: &[u8]) -> String {
    let text = String::from_utf8_lossy(script);
    let labelled = BIN.replace('-', "__subcmd__");
    let reached = BIN.replace('-', "__");
    text.replace(&labelled, &reached)
}

/// `man`: the main page on stdout, or every page into `--dir`.
pub fn man(args: &ManArgs) -> Result<i32, CliError> {
    let Some(dir) = &args.dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(pages_command())
            .render(&mut page)
            .map_err(|e| CliError::Write {
                path: "-".into(),
                source: e,
            })?;
        return write_stdout(&page);
    };
    write_pages(dir, args.overwrite)?;
    Ok(exit::OK)
}

/// Writes `cargo-isobench.1` and one page per subcommand, nested ones included
/// (`cargo-isobench-plugin-build.1`), into `dir`, creating it if needed. Each page is
/// written as every output is ([`crate::output_file`]): an existing page, or a link in its
/// place, is kept unless `overwrite`, and a link is never written through.
fn write_pages(dir: &Path, overwrite: bool) -> Result<(), CliError> {
    let err = |e| CliError::Write {
        path: dir.to_owned(),
        source: e,
    };
    let mut command = pages_command();
    command.build();
    let mut pages = Vec::new();
    render_pages(command, &mut pages).map_err(err)?;
    std::fs::create_dir_all(dir).map_err(err)?;
    for (name, page) in pages {
        crate::output_file::write_whole(&dir.join(name), overwrite, &page)?;
    }
    Ok(())
}

/// The pages of `command` and of its subcommands that are not hidden, each as its file
/// name and text, subcommands first (as `clap_mangen::generate_to` names and orders them).
fn render_pages(command: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    for sub in command
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
    {
        render_pages(sub, pages)?;
    }
    let man = clap_mangen::Man::new(command);
    let mut page = Vec::new();
    man.render(&mut page)?;
    pages.push((man.get_filename(), page));
    Ok(())
}

/// The command the pages describe: without the `help` subcommand, which has no page of
/// its own (`--help` is on every page).
fn pages_command() -> clap::Command {
    command().disable_help_subcommand(true)
}

fn write_stdout(bytes: &[u8]) -> Result<i32, CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Write {
            path: "-".into(),
            source: e,
        })?;
    Ok(exit::OK)
}
