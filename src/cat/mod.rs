//! The `.cat` language: parser and evaluator (herd / Dat3M dialect).
