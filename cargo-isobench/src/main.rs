fn main() {
    std::process::exit(cargo_isobench::run(std::env::args_os()));
}
