// OpenCL functions with a second result written through a pointer
// (`sincos`, `fract`, …) store a value there: a race where two work-items
// pass one location.

// Each work-item's own element: no race.
kernel void own(global float *x, global float *cosines) {
    uint i = get_global_id(0);
    x[i] = sincos(x[i], &cosines[i]);
}

// Every work-item writes the cosine to cosines[0] (line 14): a race.
kernel void shared_out(global float *x, global float *cosines) {
    uint i = get_global_id(0);
    x[i] = sincos(x[i], &cosines[0]);
}

// Into a private variable: no memory event another work-item sees.
kernel void private_out(global float *x) {
    uint i = get_global_id(0);
    float whole;
    x[i] = fract(x[i], &whole) + whole;
}
