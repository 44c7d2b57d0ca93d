//! Unit tests for the litmus front-end.
