// Pointers kept in shared memory are stored as their addresses (64-bit
// values), so copying them races or not as any other value does.
struct node {
    global int *next;
    int value;
};

// Each work-item copies its own node's pointer and value: no race.
kernel void copy_own(global struct node *from, global struct node *to) {
    uint i = get_global_id(0);
    to[i].value = from[i].value;
    to[i].next = from[i].next;
}

// Every work-item stores a pointer into the same node (line 19): a race.
kernel void store_shared(global struct node *to, global int *data) {
    uint i = get_global_id(0);
    to[i].value = 1;
    to[0].next = data + i;
}

// Following a pointer read from memory is refused, not guessed: gpumc
// cannot name the object it points to (line 27).
kernel void follow(global struct node *nodes) {
    uint i = get_global_id(0);
    global int *p = nodes[i].next;
    *p = 1;
}
