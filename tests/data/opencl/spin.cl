// Loops that do nothing while they wait (gpumc's parametric engine stops a
// path in such an iteration as spinning, docs/PTX-KERNELS.md).
//
// `wait_then_own`: every work-item waits until the read-only `go[0]` is
// non-zero (forever if it is zero: the loop writes nothing and changes no
// register), then writes its own element: race-free at any launch.
kernel void wait_then_own(global const int *go, global int *out) {
    int i = get_global_id(0);
    while (go[0] == 0) {
    }
    out[i] = i;
}

// `wait_then_shared`: the same wait, then every work-item writes `out[0]`:
// two work-items that pass the wait race (a write-write race on line 20).
kernel void wait_then_shared(global const int *go, global int *out) {
    int i = get_global_id(0);
    while (go[0] == 0) {
    }
    out[0] = i;
}

// `busy_wait`: while `x + i` is negative the work-item loops forever (the
// loop's condition never changes); the others write their own element.
kernel void busy_wait(global int *out, int x) {
    int i = get_global_id(0);
    while (x + i < 0) {
    }
    out[i] = x;
}

// `writing_wait`: the same wait as `wait_then_own`, but each iteration
// writes: not a spin. With `go[0]` zero the loop never ends and every
// bound cuts it, so no bound decides (UNKNOWN).
kernel void writing_wait(global const int *go, global int *out) {
    int i = get_global_id(0);
    while (go[0] == 0) {
        out[i] = 0;
    }
    out[i] = i;
}
