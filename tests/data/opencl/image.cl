// Images: each image argument is a buffer of texels of its own; a write
// is a store to the texel its coordinates name, a read of a read_only
// image a free value (nothing writes such an image).

// Each work-item copies its own texel: no race.
kernel void copy(write_only image2d_t dst, read_only image2d_t src, sampler_t s) {
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, at, read_imagef(src, s, at));
}

// Work-items (x, y) and (x, y + 1) both write texel (x, y + 1)
// (lines 15 and 16): a race.
kernel void overlap(write_only image2d_t dst) {
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, at, (float4)(0.0f));
    write_imagef(dst, at + (int2)(0, 1), (float4)(1.0f));
}

// Rows and columns are told apart: texel (x, y) is not texel (y, x), so
// work-item (x, y) writing (x, y) and reading nothing races with no one
// even when the image is square.
kernel void transpose_free(write_only image2d_t dst, read_only image2d_t src) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    write_imagei(dst, (int2)(x, y), read_imagei(src, (int2)(y, x)));
}

// A read_write image is read and written by the kernel: the order of
// those accesses is not modelled, so the read on line 32 is refused.
kernel void rw_image(read_write image2d_t img) {
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    float4 v = read_imagef(img, at);
    write_imagef(img, at, v + 1.0f);
}
