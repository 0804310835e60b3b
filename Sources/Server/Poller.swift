#if canImport(Glibc)
import Glibc
#endif
import CEpoll

/// Readiness polling over the loop's descriptors with `epoll(7)`, plus a wake-up pipe (`WakePipe`);
/// the one owner of the epoll descriptor (closed in `deinit`) and of the pipe.
///
/// epoll, not `poll(2)`: a `poll` call scans every descriptor, and with 1,000 gateway connections each
/// sending a few lines at a time the loop spent most of its time in those scans (server CPU per line
/// 7 → 19 µs at the same rate). `epoll_wait` costs what is ready, not what is watched. The struct
/// `epoll_event` stays in C (`Sources/CEpoll/shim.h`): it is packed on x86-64.
///
/// Registrations carry a 64-bit token, not the descriptor, so an event for a connection closed earlier
/// in the same batch cannot be mistaken for a new connection that reused its descriptor number.
/// Interest is level-triggered, as with `poll`. Threading: everything but `wake()` runs on the loop
/// thread; `wake()` may be called from any thread (it only writes a byte to the pipe).
final class Poller: @unchecked Sendable {
    /// Event bits handed to `wait`'s body.
    static let readable: UInt32 = 1
    static let writable: UInt32 = 2
    /// Hang-up or error: read to learn what happened.
    static let hangup: UInt32 = 4
    /// The token of the wake-up pipe.
    static let wakeToken: UInt64 = 0
    /// Most events taken from the kernel per `wait` (the rest stay ready for the next one).
    static let batch = 256

    private let epoll: Int32
    private let wakePipe: WakePipe
    /// The watched descriptors (to refuse a double registration, as `poll`'s table did).
    private var watched = Set<Int32>()
    /// The ready events of the last `wait`, filled by the kernel and read in place: allocated once, so
    /// that a loop turn allocates nothing here (owned by the poller, freed in `deinit`).
    private let tokens = UnsafeMutablePointer<UInt64>.allocate(capacity: Poller.batch)
    private let bits = UnsafeMutablePointer<UInt32>.allocate(capacity: Poller.batch)
    /// Whether `wait` tries `epoll_pwait2` (false: `epoll_wait` only, the path of kernels before 5.11
    /// and of seccomp filters that refuse it).
    private let precise: Int32

    /// - Parameter precise: false waits with `epoll_wait` only (timeouts rounded up to milliseconds).
    init(precise: Bool = true) throws(SystemError) {
        self.precise = precise ? 1 : 0
        epoll = try Syscall.retrying("epoll_create1") { epoll_create1(sextant_epoll_cloexec()) }
        do {
            wakePipe = try WakePipe()
        } catch {
            Syscall.close(epoll)
            throw error
        }
        try register(wakePipe.readEnd, token: Self.wakeToken)
    }

    deinit {
        Syscall.close(epoll)
        tokens.deallocate()
        bits.deallocate()
    }

    /// Number of watched descriptors, the wake-up pipe included.
    var count: Int { watched.count }

    /// Watches `fd` for reads (and writes when `writable`), level-triggered.
    func register(_ fd: Int32, token: UInt64, writable: Bool = false) throws(SystemError) {
        guard !watched.contains(fd) else { throw SystemError("epoll register", code: EEXIST) }
        _ = try Syscall.retrying("epoll_ctl(ADD)") {
            sextant_epoll_ctl(epoll, sextant_epoll_add(), fd, 1, writable ? 1 : 0, token)
        }
        watched.insert(fd)
    }

    /// Changes the interest of a watched descriptor.
    func modify(_ fd: Int32, token: UInt64, writable: Bool, readable: Bool = true) throws(SystemError) {
        guard watched.contains(fd) else { throw SystemError("epoll modify", code: ENOENT) }
        _ = try Syscall.retrying("epoll_ctl(MOD)") {
            sextant_epoll_ctl(epoll, sextant_epoll_mod(), fd, readable ? 1 : 0, writable ? 1 : 0, token)
        }
    }

    /// Stops watching `fd` (before closing it).
    func remove(_ fd: Int32) {
        guard watched.remove(fd) != nil else { return }
        _ = sextant_epoll_ctl(epoll, sextant_epoll_del(), fd, 0, 0, 0)
    }

    /// Wakes a `wait` in progress (or the next one). Any thread.
    func wake() { wakePipe.signal() }

    /// Waits up to `timeoutNanoseconds` (negative: forever) and calls `body(token, events)` for each
    /// ready registration (events: `readable`, `writable`, `hangup` bits). The body may register and
    /// remove descriptors. The wake-up pipe is drained and reported with `wakeToken`. The timeout keeps
    /// its nanoseconds (`epoll_pwait2`), so a sub-millisecond deadline (the feed's flush hold) is not
    /// rounded up to a millisecond; where `epoll_pwait2` is refused it is rounded up (`epoll_wait`).
    func wait(timeoutNanoseconds: Int64, _ body: (UInt64, UInt32) -> Void) throws(SystemError) {
        let n = sextant_epoll_wait(epoll, tokens, bits, Int32(Self.batch), timeoutNanoseconds, precise)
        if n < 0 {
            if errno == EINTR { return }
            throw SystemError("epoll_wait", code: errno)
        }
        // Read in place: the body may close descriptors, and a later event of this batch for a closed
        // connection is then ignored by its token; nothing but the next `wait` writes these buffers.
        for i in 0..<Int(n) {
            let token = tokens[i]
            if token == Self.wakeToken { wakePipe.drain() }
            body(token, bits[i])
        }
    }
}
