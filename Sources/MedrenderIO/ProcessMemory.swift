import CSndFile
import Foundation
import MedrenderCore

/// How the process's allocator treats large buffers.
public enum ProcessMemory {
    /// Maps every buffer of 128 KiB and more (sounds, the pieces of an OGG, pass 1's parts) on its
    /// own, so it goes back to the system when freed. By default glibc raises this threshold to the
    /// largest buffer freed, after which such buffers stay in its heap, resident, once freed.
    /// Call once, before any thread starts. The corresponding C function is `mallopt`.
    public static func mapLargeBuffers() {
        _ = medrender_map_large_buffers(128 * 1024)
    }

    /// Pages given back to the system as soon as they are no longer read (a bed's floats as they
    /// are rounded to 16 bits). The corresponding C function is `madvise` with `MADV_DONTNEED`.
    public static let pageRelease = PageRelease(pageSize: max(1, Int(sysconf(Int32(_SC_PAGESIZE))))) { start, count in
        _ = madvise(start, count, Int32(MADV_DONTNEED))
    }
}
