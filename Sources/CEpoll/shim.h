// epoll(7) for Swift: Glibc's Swift module does not export <sys/epoll.h>, and `struct epoll_event` is
// packed on x86-64, which Swift cannot lay out. These helpers keep the struct on the C side; Swift sees
// descriptors, 64-bit tokens and Sextant's own event bits (1 readable, 2 writable, 4 hang-up or error).
#include <stdint.h>
#include <sys/epoll.h>

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

/// epoll_wait into parallel arrays of tokens and Sextant event bits; at most `max` (≤ 256) events.
static inline int sextant_epoll_wait(int epfd, uint64_t *tokens, uint32_t *bits, int max, int timeout) {
    struct epoll_event events[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, events, max, timeout);
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

static inline int sextant_epoll_add(void) { return EPOLL_CTL_ADD; }
static inline int sextant_epoll_mod(void) { return EPOLL_CTL_MOD; }
static inline int sextant_epoll_del(void) { return EPOLL_CTL_DEL; }
static inline int sextant_epoll_cloexec(void) { return EPOLL_CLOEXEC; }
