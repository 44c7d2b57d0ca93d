//! Our consistency models, embedded as `.cat` text.
