//! Finding and loading `libcuda` at run time: the dynamic loader's own
//! search first (`LD_LIBRARY_PATH`, the cache), then the places NVIDIA
//! drivers are installed when the cache does not know them (containers
//! mount them under `/usr/local/nvidia`), then `$CUDA_PATH`.

use super::ffi::Driver;
use libloading::Library;
use std::path::PathBuf;

/// What a missing driver is reported as.
pub const NO_DRIVER: &str =
    "no CUDA driver (libcuda.so.1) found; gpumc run --backend cuda needs an NVIDIA driver";

/// The variable naming a driver library to load before any other.
pub const LIBCUDA_VAR: &str = "GPUMC_LIBCUDA";

/// The candidates, in order: `$GPUMC_LIBCUDA` if set (a driver in an
/// unusual place, or a test's stand-in), bare names for the loader's
/// search, then full paths.
pub fn candidates() -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = vec![];
    if let Some(p) = std::env::var_os(LIBCUDA_VAR) {
        list.push(PathBuf::from(p));
    }
    list.push("libcuda.so.1".into());
    list.push("libcuda.so".into());
    let mut dirs: Vec<PathBuf> = [
        "/usr/local/nvidia/lib64",
        "/usr/local/nvidia/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/lib/wsl/lib",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        let cuda = PathBuf::from(cuda);
        dirs.push(cuda.join("lib64"));
        // The forward-compatibility driver a toolkit may ship (not
        // `lib64/stubs`, whose libcuda only reports CUDA_ERROR_STUB_LIBRARY).
        dirs.push(cuda.join("compat"));
    }
    for dir in dirs {
        list.push(dir.join("libcuda.so.1"));
        list.push(dir.join("libcuda.so"));
    }
    list
}

/// Loads the first candidate that opens and resolves as a driver. None
/// opening is [`NO_DRIVER`]; a library that opens but is not a usable
/// driver is reported as such, with the loader's own errors after it.
pub fn load(candidates: &[PathBuf]) -> Result<Driver, String> {
    let mut unusable = vec![];
    for path in candidates {
        let bare = path.components().count() == 1;
        if !bare && !path.exists() {
            continue;
        }
        // SAFETY: loading runs the library's initialisers; libcuda's are
        // the driver's own and have no preconditions.
        match unsafe { Library::new(path) } {
            Ok(library) => match Driver::from_library(library, &path.display().to_string()) {
                Ok(driver) => return Ok(driver),
                Err(e) => unusable.push(e),
            },
            // A bare name the loader does not find is the usual case
            // without a driver; a path that exists but does not load is
            // worth reporting.
            Err(e) if !bare => unusable.push(format!("{}: {e}", path.display())),
            Err(_) => {}
        }
    }
    if unusable.is_empty() {
        Err(NO_DRIVER.to_string())
    } else {
        Err(format!("{NO_DRIVER} ({})", unusable.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_found_is_the_clear_error() {
        let e = load(&[
            PathBuf::from("libgpumc-no-such-driver.so.1"),
            PathBuf::from("/nonexistent/libcuda.so.1"),
        ])
        .err()
        .expect("no driver");
        assert_eq!(e, NO_DRIVER);
    }

    #[test]
    fn a_library_that_is_not_a_driver_is_named() {
        // libc loads everywhere this builds, and has no cuInit.
        let e = load(&[PathBuf::from("libc.so.6")])
            .err()
            .expect("not a driver");
        assert!(e.starts_with(NO_DRIVER), "{e}");
        assert!(
            e.contains("libc.so.6 is not a usable CUDA driver: no cuInit"),
            "{e}"
        );
    }

    #[test]
    fn a_file_that_does_not_load_is_reported() {
        let dir = std::env::temp_dir().join(format!("gpumc-loader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("libcuda.so.1");
        std::fs::write(&fake, b"not an ELF file").unwrap();
        let e = load(std::slice::from_ref(&fake))
            .err()
            .expect("not loadable");
        assert!(e.contains(&fake.display().to_string()), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_search_covers_the_usual_places() {
        let list = candidates();
        let first = std::env::var_os(LIBCUDA_VAR).map_or("libcuda.so.1".into(), PathBuf::from);
        assert_eq!(list[0], first);
        assert!(list.contains(&PathBuf::from("/usr/local/nvidia/lib64/libcuda.so.1")));
        assert!(list.contains(&PathBuf::from("/usr/lib/x86_64-linux-gnu/libcuda.so.1")));
        assert!(list.contains(&PathBuf::from("/usr/lib64/libcuda.so.1")));
        assert!(!list.iter().any(|p| p.to_string_lossy().contains("stubs")));
    }
}
