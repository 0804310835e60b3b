#if canImport(Glibc)
import Glibc
#endif

/// The name of the calling thread as `top -H`, `ps -L` and `perf` show it.
public enum ThreadName {
    /// Names the calling thread (Linux: /proc/thread-self/comm; at most 15 bytes). Best effort.
    public static func setCurrent(_ name: String) {
        #if canImport(Glibc)
        let fd = Glibc.open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        _ = Array(name.utf8.prefix(15)).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        Glibc.close(fd)
        #endif
    }
}
