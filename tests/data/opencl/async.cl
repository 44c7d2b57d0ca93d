// Asynchronous work-group copies (OpenCL C 2.0, 6.13.10), as our header
// writes them out (docs/OPENCL.md): done at the call, element k moved by
// another work-item than k, the call and the wait reached by the whole
// work-group.

#define N 64 // the largest work-group; each copies its own slice of p

// Copy, wait, barrier, read: the barrier orders the copy before every
// read, and its reads of p before the writes (with CLK_LOCAL_MEM_FENCE
// alone the copy's reads of p would race with them). Race-free.
kernel void waited(global int* p) {
    local int tile[N];
    event_t e = async_work_group_copy(tile, p + get_local_size(0) * get_group_id(0), get_local_size(0), 0);
    wait_group_events(1, &e);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    p[get_global_id(0)] = 2 * tile[get_local_id(0)];
}

// The wait completes the copy but orders nothing between work-items:
// tile[i] is moved by another work-item than the one reading it. Racy.
kernel void no_barrier(global int* p) {
    local int tile[N];
    event_t e[2];
    e[0] = async_work_group_copy(tile, p + get_local_size(0) * get_group_id(0), get_local_size(0), 0);
    wait_group_events(1, e);
    p[get_global_id(0)] = 2 * tile[get_local_id(0)];
}

// Only the first half of the work-group reaches the copy: undefined (the
// copy's barrier diverges).
kernel void partial(global int* p) {
    local int tile[N];
    if (get_local_id(0) < get_local_size(0) / 2) {
        async_work_group_copy(tile, p, N, 0);
    }
}
