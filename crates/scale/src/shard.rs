//! Which shard this process is: `--shard K/N`, or `--shard auto` from the
//! job engine's environment.

use std::fmt;

/// Shard `index` of `count` (0 ≤ index < count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// The most shards a batch may be split into.
pub const MAX_SHARDS: usize = 100_000;

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// `K/N` (shard K of N, counted from 0), or `auto`: from the
    /// environment ([`Shard::from_env`]).
    pub fn parse(text: &str) -> Result<Shard, String> {
        Self::parse_with(text, &|name| std::env::var(name).ok())
    }

    /// [`Shard::parse`] with the environment given (for tests).
    pub fn parse_with(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard, String> {
        if text == "auto" {
            return Self::from_env(env);
        }
        let (k, n) = text.split_once('/').ok_or_else(|| {
            format!("--shard {text}: expected K/N (shard K of N, from 0) or auto")
        })?;
        let number = |s: &str, what: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("--shard {text}: {what} `{s}` is not a number"))
        };
        Self::new(number(k, "K")?, number(n, "N")?).map_err(|e| format!("--shard {text}: {e}"))
    }

    /// Shard `index` of `count`, checked.
    pub fn new(index: usize, count: usize) -> Result<Shard, String> {
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("N must be 1 to {MAX_SHARDS}, not {count}"));
        }
        if index >= count {
            return Err(format!(
                "K must be below N (shards are counted from 0): {index} of {count}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// The shard a job engine says this process is: a Slurm job array's
    /// task (`SLURM_ARRAY_TASK_ID` counted from `SLURM_ARRAY_TASK_MIN`,
    /// of `SLURM_ARRAY_TASK_COUNT`), or a Kubernetes Indexed Job's pod
    /// (`JOB_COMPLETION_INDEX`, of `GPUMC_SHARDS`, which the manifest sets
    /// to the job's completions: Kubernetes passes no count).
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let number = |name: &str| -> Result<Option<usize>, String> {
            match env(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<usize>()
                    .map(Some)
                    .map_err(|_| format!("--shard auto: ${name} is `{v}`, not a number")),
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or(
                "--shard auto: $SLURM_ARRAY_TASK_ID is set but $SLURM_ARRAY_TASK_COUNT is not",
            )?;
            let index = id.checked_sub(min).ok_or_else(|| {
                format!(
                    "--shard auto: $SLURM_ARRAY_TASK_ID {id} is below $SLURM_ARRAY_TASK_MIN {min}"
                )
            })?;
            return Self::new(index, count).map_err(|e| {
                format!("--shard auto (Slurm array task {id}, from {min}, of {count}): {e}; submit the array as --array=0-{}", count.saturating_sub(1))
            });
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = number("GPUMC_SHARDS")?.ok_or(
                "--shard auto: $JOB_COMPLETION_INDEX is set but $GPUMC_SHARDS is not (set it to the Indexed Job's completions)",
            )?;
            return Self::new(index, count)
                .map_err(|e| format!("--shard auto (Kubernetes completion index {index}): {e}"));
        }
        Err("--shard auto: no Slurm array task ($SLURM_ARRAY_TASK_ID) or Kubernetes completion index ($JOB_COMPLETION_INDEX) in the environment".into())
    }

    /// The shard's journal file name: `shard-K-of-N.jsonl`.
    pub fn file_name(&self) -> String {
        format!("shard-{}-of-{}.jsonl", self.index, self.count)
    }

    /// The shard whose journal is called `name`, if it is one.
    pub fn from_file_name(name: &str) -> Option<Shard> {
        let rest = name.strip_prefix("shard-")?.strip_suffix(".jsonl")?;
        let (k, n) = rest.split_once("-of-")?;
        let s = Shard::new(k.parse().ok()?, n.parse().ok()?).ok()?;
        (s.file_name() == name).then_some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn explicit_shards_are_checked() {
        assert_eq!(Shard::parse("0/1").unwrap(), Shard { index: 0, count: 1 });
        assert_eq!(Shard::parse("7/8").unwrap(), Shard { index: 7, count: 8 });
        assert!(Shard::parse("8/8")
            .unwrap_err()
            .contains("K must be below N"));
        assert!(Shard::parse("0/0").unwrap_err().contains("N must be 1"));
        assert!(Shard::parse("1-4").unwrap_err().contains("expected K/N"));
        assert!(Shard::parse("a/4")
            .unwrap_err()
            .contains("`a` is not a number"));
    }

    #[test]
    fn slurm_arrays_count_from_their_first_task() {
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ]);
        assert_eq!(
            Shard::parse_with("auto", &e).unwrap(),
            Shard { index: 4, count: 8 }
        );
        let e = env(&[("SLURM_ARRAY_TASK_ID", "3")]);
        assert!(Shard::parse_with("auto", &e)
            .unwrap_err()
            .contains("SLURM_ARRAY_TASK_COUNT is not"));
    }

    #[test]
    fn kubernetes_indexed_jobs_need_the_count_in_the_environment() {
        let e = env(&[("JOB_COMPLETION_INDEX", "2"), ("GPUMC_SHARDS", "4")]);
        assert_eq!(
            Shard::parse_with("auto", &e).unwrap(),
            Shard { index: 2, count: 4 }
        );
        let e = env(&[("JOB_COMPLETION_INDEX", "2")]);
        assert!(Shard::parse_with("auto", &e)
            .unwrap_err()
            .contains("GPUMC_SHARDS"));
        assert!(Shard::parse_with("auto", &env(&[]))
            .unwrap_err()
            .contains("no Slurm array task"));
    }

    #[test]
    fn journal_names_round_trip() {
        let s = Shard::new(3, 12).unwrap();
        assert_eq!(s.file_name(), "shard-3-of-12.jsonl");
        assert_eq!(Shard::from_file_name("shard-3-of-12.jsonl"), Some(s));
        assert_eq!(Shard::from_file_name("shard-03-of-12.jsonl"), None);
        assert_eq!(Shard::from_file_name("shard-12-of-12.jsonl"), None);
        assert_eq!(Shard::from_file_name("merged.out"), None);
    }
}
