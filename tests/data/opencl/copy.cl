// Private arrays and structs initialised from constants and copied: clang
// and llvm-spirv compile these to `OpCopyMemorySized`, which gpumc
// performs cell by cell.
struct pair {
    int a;
    char b;
};

// Every assertion holds: no undefined behaviour.
kernel void copies_hold(global int *out) {
    int A[] = {3, 5, 7, 11, 13};
    struct pair s = {1, 2};
    struct pair t = s;
    uint i = get_global_id(0);
    __assert(A[0] == 3 && A[1] == 5 && A[4] == 13);
    __assert(t.a == 1 && t.b == 2);
    out[i] = A[i % 5];
}

// A copied value asserted wrongly: the assertion fails.
kernel void copy_asserted_wrongly(global int *out) {
    int A[] = {3, 5, 7, 11, 13};
    __assert(A[2] == 5);
    out[get_global_id(0)] = A[2];
}
