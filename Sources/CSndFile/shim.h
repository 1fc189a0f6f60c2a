#include <sndfile.h>

/* The process's allocator: buffers of `bytes` and more are mapped on their own and given back
   when freed (a fixed threshold, which glibc would otherwise raise to the largest buffer freed). */
#include <malloc.h>
static inline int medrender_map_large_buffers(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
