//! Unit tests of the GPU_PTX dialect.
