//! Reports: human text and JSON.
