//! Engines: programs → candidate executions → verdicts.
