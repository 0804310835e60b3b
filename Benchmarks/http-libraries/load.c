/*
 * The load of scripts/http-libraries, on one thread with epoll:
 *   load json PORT CONNECTIONS SECONDS   keep-alive GET /json on each connection, one request at a
 *                                        time, for SECONDS; prints the responses completed;
 *   load sse PORT CONNECTIONS            GET /sse on each connection at once, reads every stream to
 *                                        its end; prints the bytes read.
 * Either way it prints one JSON object: {"responses": N, "bytes": B, "seconds": S}.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct conn { int fd; char buf[1 << 16]; size_t len; };

static double now_s(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int open_conn(int port) {
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect"); exit(2); }
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

static void send_str(int fd, const char *s) {
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s)) { perror("write"); exit(2); }
}

/* The length of the first whole response in c->buf (headers and a Content-Length body), or 0. */
static size_t whole_response(struct conn *c) {
	char *h = memmem(c->buf, c->len, "\r\n\r\n", 4);
	if (!h) return 0;
	size_t head = (size_t)(h - c->buf) + 4, body = 0;
	for (char *p = c->buf; p < h; p++) {
		if ((p == c->buf || p[-1] == '\n') && !strncasecmp(p, "content-length:", 15)) { body = strtoul(p + 15, NULL, 10); break; }
	}
	return c->len >= head + body ? head + body : 0;
}

int main(int argc, char **argv) {
	if (argc < 4) { fprintf(stderr, "usage: load json|sse PORT CONNECTIONS [SECONDS]\n"); return 2; }
	int sse = !strcmp(argv[1], "sse"), port = atoi(argv[2]), n = atoi(argv[3]);
	double seconds = argc > 4 ? atof(argv[4]) : 0;
	static const char get_json[] = "GET /json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	static const char get_sse[] = "GET /sse HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
	int ep = epoll_create1(0), open = n;
	struct conn *cs = calloc((size_t)n, sizeof *cs);
	long responses = 0, bytes = 0;
	double start = now_s();
	for (int i = 0; i < n; i++) {
		cs[i].fd = open_conn(port);
		send_str(cs[i].fd, sse ? get_sse : get_json);
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = &cs[i] };
		epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &e);
	}
	struct epoll_event ev[256];
	while (open > 0 && (sse || now_s() - start < seconds)) {
		int k = epoll_wait(ep, ev, 256, 1000);
		for (int i = 0; i < k; i++) {
			struct conn *c = ev[i].data.ptr;
			ssize_t r = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
			if (r <= 0) { close(c->fd); open--; if (sse) responses++; continue; }
			bytes += r;
			if (sse) continue;   /* read to the end; the bytes are counted */
			c->len += (size_t)r;
			size_t m;
			while ((m = whole_response(c))) {
				memmove(c->buf, c->buf + m, c->len - m);
				c->len -= m;
				responses++;
				send_str(c->fd, get_json);
			}
		}
	}
	printf("{\"responses\":%ld,\"bytes\":%ld,\"seconds\":%.3f}\n", responses, bytes, now_s() - start);
	return 0;
}
