/* The relay floor of `scripts/reliability load`: the least a feed can do. It accepts N subscribers on
 * one port (never reading what they send), then one source on another, and writes every chunk the
 * source frames (a 4-byte little-endian length, then the bytes) to every subscriber in one send each:
 * no parsing, no routing, no queue beyond the bytes a full socket did not take (kept up to 8 MiB a
 * subscriber, then dropped). The frames keep the writes the source asks for: read as a plain stream,
 * chunks that arrive together would merge into fewer, larger writes than the service made. The load
 * check compares the service's CPU per delivered feed line with this program's, on the same bytes, the
 * same number of sockets and the same writes. What subscribers send is never read.
 * Usage: relay SUBSCRIBER_PORT SOURCE_PORT N.
 * Prints "ready" once listening; when the source closes, prints "cpu SECONDS" (user + system) and exits. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PENDING (8 << 20)

typedef struct { int fd; char *pending; size_t len; } Sub;

static int listen_on(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1024) < 0) { perror("relay: listen"); exit(1); }
    return fd;
}

static void send_to(Sub *s, const char *p, size_t n) {
    if (s->len > 0) {   /* keep the order: behind what is already waiting */
        if (s->len + n <= MAX_PENDING) { memcpy(s->pending + s->len, p, n); s->len += n; }
        return;
    }
    ssize_t k = send(s->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k < 0) k = 0;
    if ((size_t)k < n && n - k <= MAX_PENDING) { memcpy(s->pending, p + k, n - k); s->len = n - k; }
}

static void retry(Sub *s) {
    if (s->len == 0) return;
    ssize_t k = send(s->fd, s->pending, s->len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k <= 0) return;
    memmove(s->pending, s->pending + k, s->len - k);
    s->len -= k;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: relay SUBSCRIBER_PORT SOURCE_PORT N\n"); return 64; }
    int n = atoi(argv[3]);
    int lsub = listen_on(atoi(argv[1])), lsrc = listen_on(atoi(argv[2]));
    printf("ready\n");
    fflush(stdout);
    Sub *subs = calloc(n, sizeof *subs);
    for (int i = 0; i < n; i++) {
        subs[i].fd = accept(lsub, NULL, NULL);
        int one = 1;
        setsockopt(subs[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(subs[i].fd, F_SETFL, O_NONBLOCK);
        subs[i].pending = malloc(MAX_PENDING);
    }
    int src = accept(lsrc, NULL, NULL);
    static char buf[1 << 20];
    size_t have = 0;
    for (;;) {
        ssize_t r = read(src, buf + have, sizeof buf - have);
        if (r <= 0) break;
        have += (size_t)r;
        size_t at = 0;
        for (;;) {   /* each whole frame: one write to every subscriber */
            if (have - at < 4) break;
            uint32_t len;
            memcpy(&len, buf + at, 4);
            if (len > sizeof buf - 4) { fprintf(stderr, "relay: frame of %u bytes\n", len); return 1; }
            if (have - at - 4 < len) break;
            for (int i = 0; i < n; i++) {
                retry(&subs[i]);
                send_to(&subs[i], buf + at + 4, len);
            }
            at += 4 + len;
        }
        memmove(buf, buf + at, have - at);
        have -= at;
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    printf("cpu %.6f\n", u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6);
    for (int i = 0; i < n; i++) close(subs[i].fd);
    return 0;
}
