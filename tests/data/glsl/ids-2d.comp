#version 450
// Ids of a workgroup of 2 × 2 invocations in a grid of 1 × 2 workgroups,
// written where the global ids say (x first): the final state shows the
// numbering a device gives.
layout(local_size_x = 2, local_size_y = 2) in;
layout(std430, binding = 0) buffer B { uint a[]; };
void main() {
  uvec3 g = gl_GlobalInvocationID;
  a[g.y * gl_NumWorkGroups.x * 2u + g.x] = gl_LocalInvocationID.y * 100u + gl_WorkGroupID.y * 10u;
}
