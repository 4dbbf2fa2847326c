//! `completions` and `man`: scripts the shells accept and pages for every command the
//! help lists (the list is read from `--help`, not from the code that writes the pages).

use std::process::Command;

mod common;

use common::{TestContext, stderr, stdout};

/// The subcommands `--help` lists (of the whole tool, or of `plugin`), `help` aside.
fn listed_commands(context: &TestContext, args: &[&str]) -> Vec<String> {
    let out = context.run(args.iter().copied().chain(["--help"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let help = stdout(&out);
    let section = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .filter(|name| name != "help")
        .collect()
}

fn have(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: `{program}` is not installed");
    }
    found
}

#[test]
fn the_bash_script_parses_and_completes_every_command() {
    let context = TestContext::new();
    let out = context.run(["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = context.write("cargo-isobench.bash", &out.stdout);
    let check = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", stderr(&check));
    // Sourced, it registers a completion for the binary, and completes the subcommands
    // and an option of `diff`.
    let complete = |line: &str| {
        let words: Vec<&str> = line.split(' ').collect();
        let program = format!(
            // The function the script registers for the binary, called as bash calls it.
            "source '{}'\nf=$(complete -p cargo-isobench | sed -E 's/.*-F ([^ ]+).*/\\1/')\nCOMP_WORDS=({})\nCOMP_CWORD={}\nCOMP_LINE='{line}'\nCOMP_POINT=${{#COMP_LINE}}\n\"$f\" cargo-isobench '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display(),
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            words.len() - 1,
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(program)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let words = complete("cargo-isobench ");
    let words: Vec<&str> = words.lines().collect();
    for command in listed_commands(&context, &[]) {
        assert!(words.contains(&command.as_str()), "{command}: {words:?}");
    }
    // A nested subcommand's options too.
    assert!(
        complete("cargo-isobench plugin build --re")
            .lines()
            .any(|w| w == "--release")
    );
    assert!(
        complete("cargo-isobench diff --fr")
            .lines()
            .any(|w| w == "--from-a")
    );
    // Format names after the flags that take one: the built-in formats, `auto` where the
    // flag takes it.
    let formats = complete("cargo-isobench convert --from ");
    let formats: Vec<&str> = formats.lines().collect();
    for name in ["auto", "canonical", "swe-bench", "swe-smith", "gso"] {
        assert!(formats.contains(&name), "{name}: {formats:?}");
    }
    let targets = complete("cargo-isobench convert --to swe-");
    let targets: Vec<&str> = targets.lines().collect();
    assert_eq!(targets, ["swe-bench", "swe-perf", "swe-smith"]);
    assert!(
        complete("cargo-isobench validate --format min")
            .lines()
            .eq(["minisandbox"])
    );
    let registered = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && complete -p cargo-isobench",
            script.display()
        ))
        .output()
        .unwrap();
    assert!(registered.status.success(), "{}", stderr(&registered));
}

#[test]
fn every_shell_gets_a_script_and_installed_shells_parse_theirs() {
    let context = TestContext::new();
    for (shell, check) in [
        ("zsh", Some(["zsh", "-n"])),
        ("fish", Some(["fish", "--no-execute"])),
        ("elvish", None),
        ("powershell", None),
    ] {
        let out = context.run(["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains("diff"), "{shell}");
        assert!(script.contains("from-b"), "{shell}");
        if let Some([program, flag]) = check
            && have(program)
        {
            let path = context.write(format!("script.{shell}"), &script);
            let parsed = Command::new(program).arg(flag).arg(&path).output().unwrap();
            assert!(parsed.status.success(), "{shell}: {}", stderr(&parsed));
        }
    }
    let out = context.run(["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_man_page_lists_every_command_and_each_has_its_page() {
    let context = TestContext::new();
    let out = context.run(["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains(".TH cargo-isobench 1"), "{page}");
    let commands = listed_commands(&context, &[]);
    assert!(commands.contains(&"diff".to_owned()), "{commands:?}");
    for command in &commands {
        assert!(
            page.contains(&format!("cargo\\-isobench\\-{command}(1)")),
            "{command} is not in the SUBCOMMANDS of the page"
        );
    }
    // The exit codes are on it.
    assert!(
        page.contains("4  `diff`: a record could not be compared"),
        "{page}"
    );

    let out = context.run(["man", "--dir", "pages"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut expected: Vec<String> = vec!["cargo-isobench.1".into()];
    for command in &commands {
        expected.push(format!("cargo-isobench-{command}.1"));
    }
    for nested in listed_commands(&context, &["plugin"]) {
        expected.push(format!("cargo-isobench-plugin-{nested}.1"));
    }
    let mut written: Vec<String> = std::fs::read_dir(context.path("pages"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    expected.sort();
    assert_eq!(written, expected);
    // Every page a page points to is there.
    for name in &written {
        let text = context.read(format!("pages/{name}"));
        for reference in text.split(".TP\n").skip(1) {
            let Some(target) = reference.lines().next().and_then(|l| l.strip_suffix("(1)")) else {
                continue;
            };
            let file = format!("{}.1", target.replace("\\-", "-"));
            assert!(written.contains(&file), "{name} points to {file}");
        }
    }
    // groff reads them without a warning.
    if have("groff") {
        for name in &written {
            let check = Command::new("groff")
                .args(["-man", "-Tutf8", "-ww", "-z"])
                .arg(context.path(format!("pages/{name}")))
                .output()
                .unwrap();
            assert!(check.status.success(), "{name}: {}", stderr(&check));
            assert!(check.stderr.is_empty(), "{name}: {}", stderr(&check));
        }
    }
}

#[test]
fn completions_and_man_need_no_configuration() {
    // A broken `isobench.toml` stops the commands that read it, not these two.
    let context = TestContext::new();
    context.write("isobench.toml", "this is not toml [");
    assert_eq!(context.run(["adapters"]).status.code(), Some(2));
    assert!(context.run(["completions", "bash"]).status.success());
    assert!(context.run(["man"]).status.success());
}
