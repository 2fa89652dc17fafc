// Interface shared by the kernels in this folder: binding 0 is the input, binding 1 the output,
// and this push-constant block (32 bytes) says how much of them to use.
layout(push_constant, std430) uniform Params {
    uint count;        // live items; the last work-group is short when count is not a multiple of its size
    uint group_count;  // work-groups that hold items; the dispatch may have more, which exit at once
    uint source_dims;  // broadcast only: 1, 2 or 3 coordinates in source
    uint reserved;
    uvec4 source;      // broadcast only: the local id to broadcast from
} params;

// Work-groups come as a 2D grid when there are more than one dimension of the grid can hold.
uint linear_group_id() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
