// epoll(7) for Swift: Glibc's Swift module does not export <sys/epoll.h>, and `struct epoll_event` is
// packed on x86-64, which Swift cannot lay out. These helpers keep the struct on the C side; Swift sees
// descriptors, 64-bit tokens and Sextant's own event bits (1 readable, 2 writable, 4 hang-up or error).
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>

static inline uint32_t sextant_epoll_interest(int readable, int writable) {
    return (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);
}

/// epoll_ctl with the interest and a token in place of the event struct.
static inline int sextant_epoll_ctl(int epfd, int op, int fd, int readable, int writable, uint64_t token) {
    struct epoll_event e;
    e.events = sextant_epoll_interest(readable, writable);
    e.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &e);
}

/// epoll_pwait2 works (set to 0 after ENOSYS or EPERM, e.g. a seccomp filter that does not know it).
/// Read and written atomically: every service's loop thread in a process may set it.
static int sextant_epoll_pwait2_works = 1;

/// epoll_wait into parallel arrays of tokens and Sextant event bits; at most `max` (≤ 256) events.
/// `timeout_ns` < 0 waits forever. The timeout is kept to the nanosecond with epoll_pwait2 (Linux 5.11)
/// when `try_pwait2` and the kernel has it, else rounded up to whole milliseconds with epoll_wait.
static inline int sextant_epoll_wait(int epfd, uint64_t *tokens, uint32_t *bits, int max, int64_t timeout_ns,
                                     int try_pwait2) {
    struct epoll_event events[256];
    if (max > 256) max = 256;
    int n = -1;
    int pwait2 = try_pwait2 && __atomic_load_n(&sextant_epoll_pwait2_works, __ATOMIC_RELAXED);
    if (pwait2) {
        struct timespec t = {(time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000)};
        n = epoll_pwait2(epfd, events, max, timeout_ns < 0 ? NULL : &t, NULL);
        if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
            __atomic_store_n(&sextant_epoll_pwait2_works, 0, __ATOMIC_RELAXED);
            pwait2 = 0;
        }
    }
    if (!pwait2) {
        int ms = timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000);
        n = epoll_wait(epfd, events, max, ms);
    }
    for (int i = 0; i < n; i++) {
        uint32_t e = events[i].events, b = 0;
        if (e & EPOLLIN) b |= 1;
        if (e & EPOLLOUT) b |= 2;
        if (e & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) b |= 4;
        tokens[i] = events[i].data.u64;
        bits[i] = b;
    }
    return n;
}

/// Sets the calling thread's timer slack (prctl PR_SET_TIMERSLACK, variadic in C): how late the kernel
/// may end a timed wait such as the timeout above, nanoseconds. Returns 0, or -1 with errno.
static inline int sextant_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

static inline int sextant_epoll_add(void) { return EPOLL_CTL_ADD; }
static inline int sextant_epoll_mod(void) { return EPOLL_CTL_MOD; }
static inline int sextant_epoll_del(void) { return EPOLL_CTL_DEL; }
static inline int sextant_epoll_cloexec(void) { return EPOLL_CLOEXEC; }
