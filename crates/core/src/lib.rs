//! gpumc-core: what every stage of the pipeline shares (see
//! `ARCHITECTURE.md`): the program IR ([`ir`]), event sets and relations
//! ([`rel`]), errors with positions ([`diag`]), resource guards ([`guard`]),
//! the `.cat` language ([`cat`]), the names a model may use without defining
//! them ([`vocab`]) and the embedded models ([`models`]). No command-line
//! parsing, no solver, no front-end.

pub mod cat;
pub mod diag;
pub mod fasthash;
pub mod guard;
pub mod ir;
pub mod models;
pub mod rel;
pub mod vocab;
