//! Progress-model toolkit (seed 003): AXB tests, progress models, termination oracle, synthesis.
