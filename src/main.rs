fn main() {
    std::process::exit(gpumc_cli::run());
}

mod gpumc_cli {
    pub fn run() -> i32 {
        eprintln!("gpumc: not wired yet");
        2
    }
}
