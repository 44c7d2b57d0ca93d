/*
 * A stand-in for libcuda with the driver-API entry points the CUDA backend
 * loads, for testing the backend's host logic on machines without a GPU
 * (tests/cuda_fake.rs builds it with `cc` and loads it through
 * GPUMC_LIBCUDA). Device memory is host memory. It checks what it is
 * given (pointers it allocated, sizes within allocations, seven kernel
 * parameters, a current context) and reports violations as errors.
 *
 * Behaviour is chosen by the PTX image: an entry name containing
 * "fake_jit_error" fails to compile with a log; "fake_hang" never
 * finishes; "fake_fault" faults with CUDA_ERROR_ILLEGAL_ADDRESS, which a
 * reset clears; "fake_poison" faults the way a real driver (580, on an
 * H200) was seen to: CUDA_ERROR_INVALID_ADDRESS_SPACE, and every later
 * call, a context retained after a reset too, fails with it. Any
 * other kernel adds 1 to every word of mem, adds 100 + i to results[i]
 * (so results must have been zeroed), doubles every word of shared_io and
 * checks that sync is zero. "fake_regs" in the name makes the kernel
 * need 255 registers, so it runs at most 256 threads per block.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0,
    INVALID_VALUE = 1,
    NOT_INITIALIZED = 3,
    INVALID_CONTEXT = 201,
    INVALID_PTX = 218,
    INVALID_HANDLE = 400,
    NOT_READY = 600,
    ILLEGAL_ADDRESS = 700,
    INVALID_ADDRESS_SPACE = 717,
};

#define MAX_ALLOCS 64
static struct { char *base; size_t bytes; } allocs[MAX_ALLOCS];
static int initialised, retained, current, modules, resets, launches;
static int sticky;            /* a fault happened: every call fails until reset */
static int poisoned;          /* a fault no reset clears (drivers since 12.x: the process must restart) */
static int stream_mode;       /* 0 idle/done, 1 hang, 2 fault */
static int context_token = 7; /* the context handle is &context_token */
static char last_entry[256];
static int threads_option; /* the last CU_JIT_THREADS_PER_BLOCK given */
static unsigned last_grid, last_block;

/* Counters the test reads. */
int fake_live_allocations(void) {
    int n = 0;
    for (int i = 0; i < MAX_ALLOCS; i++) n += allocs[i].base != 0;
    return n;
}
int fake_retained(void) { return retained; }
int fake_modules(void) { return modules; }
int fake_resets(void) { return resets; }
int fake_launches(void) { return launches; }
unsigned fake_last_grid(void) { return last_grid; }
unsigned fake_last_block(void) { return last_block; }

static int find(CUdeviceptr p, size_t bytes) {
    for (int i = 0; i < MAX_ALLOCS; i++) {
        char *b = allocs[i].base;
        if (b && (char *)(uintptr_t)p >= b && (char *)(uintptr_t)p + bytes <= b + allocs[i].bytes) return i;
    }
    return -1;
}

#define GUARD() do { if (!initialised) return NOT_INITIALIZED; if (poisoned) return INVALID_ADDRESS_SPACE; if (sticky) return ILLEGAL_ADDRESS; } while (0)
#define NEED_CONTEXT() do { GUARD(); if (!current || !retained) return INVALID_CONTEXT; } while (0)

CUresult cuInit(unsigned flags) { if (flags) return INVALID_VALUE; initialised = 1; return OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int *n) { if (!initialised) return NOT_INITIALIZED; *n = 1; return OK; }
CUresult cuDeviceGet(int *d, int ordinal) { if (ordinal != 0) return INVALID_VALUE; *d = 0; return OK; }
CUresult cuDeviceGetName(char *name, int len, int dev) {
    if (dev != 0 || len < 1) return INVALID_VALUE;
    strncpy(name, "gpumc fake device", (size_t)len);
    name[len - 1] = 0;
    return OK;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
    if (dev != 0) return INVALID_VALUE;
    switch (attr) {
    case 1: *v = 1024; break;        /* max threads per block */
    case 5: *v = 2147483647; break;  /* max grid x */
    case 8: *v = 49152; break;       /* shared memory per block */
    case 10: *v = 32; break;         /* warp size */
    case 16: *v = 132; break;        /* SMs */
    case 75: *v = 9; break;          /* compute capability */
    case 76: *v = 0; break;
    default: return INVALID_VALUE;
    }
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
    if (!initialised || dev != 0) return INVALID_VALUE;
    if (poisoned) return INVALID_ADDRESS_SPACE;
    retained++;
    *ctx = &context_token;
    return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
    if (dev != 0 || retained == 0) return INVALID_VALUE;
    retained--;
    if (!retained) current = 0;
    return OK;
}
CUresult cuDevicePrimaryCtxReset_v2(int dev) {
    if (dev != 0) return INVALID_VALUE;
    resets++;
    sticky = 0;
    stream_mode = 0;
    return OK;
}
CUresult cuCtxSetCurrent(void *ctx) {
    if (ctx != &context_token) return INVALID_CONTEXT;
    current = 1;
    return OK;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values) {
    NEED_CONTEXT();
    const char *ptx = image;
    if (!strstr(ptx, ".visible .entry")) return INVALID_PTX;
    for (unsigned i = 0; i < n; i++)
        if (options[i] == 1) threads_option = (int)(uintptr_t)values[i];
    if (strstr(ptx, "fake_jit_error")) {
        for (unsigned i = 0; i < n; i++)
            if (options[i] == 5) {
                size_t cap = (size_t)(uintptr_t)values[i + 1];
                strncpy(values[i], "ptxas fatal   : fake failure on line 1", cap);
                ((char *)values[i])[cap - 1] = 0;
            }
        return INVALID_PTX;
    }
    const char *entry = strstr(ptx, ".visible .entry ") + 16;
    size_t len = strcspn(entry, "(");
    if (len >= sizeof last_entry) return INVALID_PTX;
    memcpy(last_entry, entry, len);
    last_entry[len] = 0;
    modules++;
    *module = strdup(ptx);
    return OK;
}
CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
    NEED_CONTEXT();
    if (!module || strcmp(name, last_entry) != 0) return 500; /* NOT_FOUND */
    *f = module;
    return OK;
}
int fake_jit_threads(void) { return threads_option; }
CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
    NEED_CONTEXT();
    if (!f) return INVALID_HANDLE;
    switch (attr) {
    case 0: *v = strstr((const char *)f, "fake_regs") ? 256 : 1024; break; /* max threads per block */
    case 4: *v = strstr((const char *)f, "fake_regs") ? 255 : 40; break;   /* registers */
    default: return INVALID_VALUE;
    }
    return OK;
}
CUresult cuModuleUnload(void *module) {
    if (!module || modules == 0) return INVALID_HANDLE;
    free(module);
    modules--;
    return OK;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
    NEED_CONTEXT();
    if (bytes == 0) return INVALID_VALUE;
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (!allocs[i].base) {
            allocs[i].base = calloc(1, bytes);
            allocs[i].bytes = bytes;
            *p = (CUdeviceptr)(uintptr_t)allocs[i].base;
            return OK;
        }
    return 2; /* OUT_OF_MEMORY */
}
CUresult cuMemFree_v2(CUdeviceptr p) {
    for (int i = 0; i < MAX_ALLOCS; i++)
        if ((CUdeviceptr)(uintptr_t)allocs[i].base == p && p) {
            free(allocs[i].base);
            allocs[i].base = 0;
            return OK;
        }
    return INVALID_VALUE;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
    NEED_CONTEXT();
    if (find(dst, bytes) < 0) return INVALID_VALUE;
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return OK;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
    NEED_CONTEXT();
    if (find(src, bytes) < 0) return INVALID_VALUE;
    memcpy(dst, (void *)(uintptr_t)src, bytes);
    return OK;
}
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n) {
    NEED_CONTEXT();
    if (find(dst, n * 4) < 0) return INVALID_VALUE;
    for (size_t i = 0; i < n; i++) ((unsigned *)(uintptr_t)dst)[i] = v;
    return OK;
}
static int stream_token, event_tokens;
CUresult cuStreamCreate(void **s, unsigned flags) { NEED_CONTEXT(); if (flags) return INVALID_VALUE; *s = &stream_token; return OK; }
CUresult cuStreamDestroy_v2(void *s) { return s == &stream_token ? OK : INVALID_HANDLE; }
CUresult cuStreamQuery(void *s) {
    GUARD();
    if (s != &stream_token) return INVALID_HANDLE;
    if (stream_mode == 1) return NOT_READY;
    if (stream_mode == 2) { sticky = 1; return ILLEGAL_ADDRESS; }
    if (stream_mode == 3) { poisoned = 1; return INVALID_ADDRESS_SPACE; }
    return OK;
}
static int events[2];
CUresult cuEventCreate(void **e, unsigned flags) {
    NEED_CONTEXT();
    if (flags) return INVALID_VALUE;
    *e = &events[event_tokens++ % 2];
    return OK;
}
CUresult cuEventDestroy_v2(void *e) { return e ? OK : INVALID_HANDLE; }
CUresult cuEventRecord(void *e, void *s) { NEED_CONTEXT(); return e && s == &stream_token ? OK : INVALID_HANDLE; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { NEED_CONTEXT(); if (!a || !b) return INVALID_HANDLE; *ms = 0.25f; return OK; }

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
    NEED_CONTEXT();
    if (!f || gy != 1 || gz != 1 || by != 1 || bz != 1 || shared != 0 || extra || stream != &stream_token || !params)
        return INVALID_VALUE;
    int k[7];
    for (int i = 0; i < 7; i++) {
        if (!params[i]) return INVALID_VALUE;
        k[i] = find(*(CUdeviceptr *)params[i], 4);
        if (k[i] < 0) return INVALID_VALUE;
    }
    launches++;
    last_grid = gx;
    last_block = bx;
    const char *ptx = f;
    if (strstr(ptx, "fake_hang")) { stream_mode = 1; return OK; }
    if (strstr(ptx, "fake_fault")) { stream_mode = 2; return OK; }
    if (strstr(ptx, "fake_poison")) { stream_mode = 3; return OK; }
    stream_mode = 0;
    unsigned *mem = (unsigned *)allocs[k[0]].base, *results = (unsigned *)allocs[k[2]].base;
    unsigned *sync = (unsigned *)allocs[k[3]].base, *sio = (unsigned *)allocs[k[6]].base;
    /* Buffers are at least one word and hold what the launch sized them
       for; the fake kernel touches the words the test's launch gave. */
    for (size_t i = 0; i < allocs[k[3]].bytes / 4; i++)
        if (sync[i] != 0) return INVALID_VALUE;
    size_t nmem = allocs[k[0]].bytes / 4, nres = allocs[k[2]].bytes / 4, nsio = allocs[k[6]].bytes / 4;
    for (size_t i = 0; i < nmem; i++) mem[i] += 1;
    for (size_t i = 0; i < nres; i++) results[i] += 100 + (unsigned)i;
    for (size_t i = 0; i < nsio; i++) sio[i] *= 2;
    return OK;
}

static const char *names[][2] = {
    {"0", "CUDA_SUCCESS"}, {"1", "CUDA_ERROR_INVALID_VALUE"}, {"218", "CUDA_ERROR_INVALID_PTX"},
    {"700", "CUDA_ERROR_ILLEGAL_ADDRESS"}, {"201", "CUDA_ERROR_INVALID_CONTEXT"},
};
CUresult cuGetErrorName(CUresult code, const char **s) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (atoi(names[i][0]) == code) { *s = names[i][1]; return OK; }
    return INVALID_VALUE;
}
CUresult cuGetErrorString(CUresult code, const char **s) {
    if (code == 700) { *s = "an illegal memory access was encountered (fake)"; return OK; }
    if (code == 218) { *s = "a PTX JIT compilation failed (fake)"; return OK; }
    return INVALID_VALUE;
}
