//! The names the C dialect knows: memory orders, scopes (OpenCL C and
//! CUDA spellings) and the atomic operations with their arguments.

use crate::ir::RmwOp;

/// A C/C++ memory order (`memory_order_consume` reads as acquire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl Order {
    /// The order tag (docs/EVENTS.md, "Tags from the C litmus front-end").
    pub fn tag(self) -> &'static str {
        match self {
            Order::Relaxed => "RLX",
            Order::Acquire => "ACQ",
            Order::Release => "REL",
            Order::AcqRel => "ACQ_REL",
            Order::SeqCst => "SC",
        }
    }

    /// The C spelling.
    pub fn spelling(self) -> &'static str {
        match self {
            Order::Relaxed => "memory_order_relaxed",
            Order::Acquire => "memory_order_acquire",
            Order::Release => "memory_order_release",
            Order::AcqRel => "memory_order_acq_rel",
            Order::SeqCst => "memory_order_seq_cst",
        }
    }
}

/// The last component of a qualified name (`cuda::std::memory_order_acquire`
/// → `memory_order_acquire`), if its namespaces are `std` or `cuda`;
/// C++20's `memory_order::acquire` is read as `memory_order_acquire`.
fn unqualified(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split("::").collect();
    let (last, ns) = parts.split_last()?;
    if let [rest @ .., "memory_order"] = ns {
        return rest
            .iter()
            .all(|n| matches!(*n, "std" | "cuda"))
            .then(|| format!("memory_order_{last}"));
    }
    ns.iter()
        .all(|n| matches!(*n, "std" | "cuda"))
        .then(|| last.to_string())
}

/// A memory order by name.
pub(super) fn order(name: &str) -> Option<Order> {
    Some(match unqualified(name)?.as_str() {
        "memory_order_relaxed" => Order::Relaxed,
        "memory_order_consume" | "memory_order_acquire" => Order::Acquire,
        "memory_order_release" => Order::Release,
        "memory_order_acq_rel" => Order::AcqRel,
        "memory_order_seq_cst" => Order::SeqCst,
        _ => return None,
    })
}

/// What a scope name means.
pub(super) enum Scope {
    /// The scope tag.
    Tag(&'static str),
    /// A scope the models have no level for (the reason).
    Unsupported(&'static str),
}

/// A scope by name: OpenCL C's `memory_scope_*` and CUDA's
/// `cuda::thread_scope_*`.
pub(super) fn scope(name: &str) -> Option<Scope> {
    Some(match unqualified(name)?.as_str() {
        "memory_scope_work_group" | "thread_scope_block" => Scope::Tag("CTA"),
        "memory_scope_device" | "thread_scope_device" => Scope::Tag("GPU"),
        "memory_scope_all_svm_devices" | "memory_scope_all_devices" | "thread_scope_system" => {
            Scope::Tag("SYS")
        }
        "memory_scope_work_item" | "thread_scope_thread" => {
            Scope::Unsupported("a single-thread scope (the models have no thread scope level)")
        }
        "memory_scope_sub_group" => {
            Scope::Unsupported("the sub-group scope (the PTX scope levels are CTA, GPU, system)")
        }
        _ => return None,
    })
}

/// An atomic operation of `<stdatomic.h>` (or OpenCL C).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Atomic {
    Load,
    Store,
    /// Exchange and the fetch-and-op operations.
    Rmw(RmwOp),
    /// Compare-exchange (weak is the same as strong: no spurious
    /// failures).
    Cas,
    /// `atomic_thread_fence(order)`.
    ThreadFence,
    /// OpenCL's `atomic_work_item_fence(flags, order, scope)`.
    WorkItemFence,
}

impl Atomic {
    /// The value arguments before the orders (the location included).
    pub fn base_args(&self) -> usize {
        match self {
            Atomic::Load => 1,
            Atomic::Store | Atomic::Rmw(_) => 2,
            Atomic::Cas => 3,
            Atomic::ThreadFence => 0,
            Atomic::WorkItemFence => 1,
        }
    }

    /// The number of order arguments of the `_explicit` form.
    pub fn orders(&self) -> usize {
        match self {
            Atomic::Cas => 2,
            _ => 1,
        }
    }
}

/// An atomic function by name: the operation and whether it is an
/// `_explicit` form (taking orders and an optional scope). Fences always
/// take their order.
pub(super) fn atomic(name: &str) -> Option<(Atomic, bool)> {
    let (base, explicit) = match name.strip_suffix("_explicit") {
        Some(b) => (b, true),
        None => (name, false),
    };
    let op = match base {
        "atomic_load" => Atomic::Load,
        "atomic_store" => Atomic::Store,
        "atomic_exchange" => Atomic::Rmw(RmwOp::Exch),
        "atomic_fetch_add" => Atomic::Rmw(RmwOp::Add),
        "atomic_fetch_sub" => Atomic::Rmw(RmwOp::Sub),
        "atomic_fetch_and" => Atomic::Rmw(RmwOp::And),
        "atomic_fetch_or" => Atomic::Rmw(RmwOp::Or),
        "atomic_fetch_xor" => Atomic::Rmw(RmwOp::Xor),
        "atomic_fetch_min" => Atomic::Rmw(RmwOp::Min),
        "atomic_fetch_max" => Atomic::Rmw(RmwOp::Max),
        "atomic_compare_exchange_strong" | "atomic_compare_exchange_weak" => Atomic::Cas,
        "atomic_thread_fence" if !explicit => return Some((Atomic::ThreadFence, true)),
        "atomic_work_item_fence" if !explicit => return Some((Atomic::WorkItemFence, true)),
        _ => return None,
    };
    Some((op, explicit))
}

/// Whether `order` is valid for `op` in C (C11 7.17.7: a load is not a
/// release, a store not an acquire; a compare-exchange's failure order is
/// neither).
pub(super) fn order_allowed(op: &Atomic, order: Order, failure: bool) -> bool {
    match (op, failure) {
        (Atomic::Load, _) | (Atomic::Cas, true) => !matches!(order, Order::Release | Order::AcqRel),
        (Atomic::Store, _) => !matches!(order, Order::Acquire | Order::AcqRel),
        _ => true,
    }
}
