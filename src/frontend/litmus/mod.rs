//! PTX and Vulkan litmus front-end (Dat3M dialects).
