/*
 * The feed clients of scripts/http-latency, in one process and one thread: a TCP feed client, and N
 * WebSocket and N SSE clients of the HTTP port, all read through one epoll loop, so that every
 * transport is measured by the same reader at the same cost. Each position's latency is the time it
 * was read (CLOCK_REALTIME) minus its timestamp (the JSON "timeNs", the line protocol's last field).
 *
 *   clients --tcp PORT [--http PORT --ws N --sse N --tags-per-client K --tags T]
 *
 * Prints "ready" once every client is subscribed; then reads commands on standard input: "go" starts
 * recording, "stop" prints one JSON object (per transport: positions, p50/p99/max in ms; and this
 * process's CPU seconds while recording) and exits. A benchmark helper, not part of the service: the
 * WebSocket reading below understands only what a server sends (unmasked frames) and needs nothing more.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum kind { TCP, WS, SSE, KINDS };
static const char *names[KINDS] = { "tcp", "ws", "sse" };

struct samples { int64_t *v; size_t n, cap; };
static struct samples lat[KINDS];
static int recording;

struct client {
	int fd, kind, ready;
	char *buf;
	size_t len, cap;
};

static void die(const char *what) { perror(what); exit(2); }

static int64_t now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void record(int kind, int64_t at, int64_t stamp) {
	if (!recording || stamp <= 0) return;
	struct samples *s = &lat[kind];
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 65536;
		if (!(s->v = realloc(s->v, s->cap * sizeof *s->v))) die("realloc");
	}
	s->v[s->n++] = at - stamp;
}

static int64_t digits(const char *p, const char *end) {
	int64_t v = 0;
	while (p < end && *p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
	return v;
}

/* A JSON position: its "timeNs". */
static void json_message(int kind, const char *m, size_t n, int64_t at) {
	static const char type[] = "{\"type\":\"position\"", key[] = "\"timeNs\":\"";
	if (n < sizeof type - 1 || memcmp(m, type, sizeof type - 1)) return;
	const char *k = memmem(m, n, key, sizeof key - 1);
	if (k) record(kind, at, digits(k + sizeof key - 1, m + n));
}

static int connect_to(int port) {
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

static void send_all(int fd, const char *s) {
	size_t n = strlen(s);
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0) die("write");
		s += k; n -= (size_t)k;
	}
}

/* Consumes what `c` has buffered; returns the bytes used. */
static size_t parse(struct client *c, int64_t at) {
	char *b = c->buf, *end = b + c->len, *p = b;
	if (!c->ready && c->kind != TCP) {
		char *h = memmem(b, c->len, "\r\n\r\n", 4);
		if (!h) return 0;
		if (c->kind == WS ? strncmp(b, "HTTP/1.1 101", 12) : strncmp(b, "HTTP/1.1 200", 12)) {
			fprintf(stderr, "clients: %s refused: %.*s\n", names[c->kind], (int)(h - b), b);
			exit(2);
		}
		c->ready = 1;
		p = h + 4;
	}
	if (c->kind == WS) {
		while (end - p >= 2) {
			unsigned op = (unsigned char)p[0] & 15, len7 = (unsigned char)p[1] & 127;
			size_t head = 2, len = len7;
			if (len7 == 126) { if (end - p < 4) break; len = ((size_t)(unsigned char)p[2] << 8) | (unsigned char)p[3]; head = 4; }
			else if (len7 == 127) {
				if (end - p < 10) break;
				len = 0; for (int i = 2; i < 10; i++) len = len << 8 | (unsigned char)p[i];
				head = 10;
			}
			if ((size_t)(end - p) < head + len) break;
			if (op == 1) json_message(WS, p + head, len, at);
			p += head + len;
		}
		return (size_t)(p - b);
	}
	for (;;) {   /* lines: the TCP feed's, or SSE's "data: ..." */
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) break;
		if (c->kind == SSE) {
			if (nl - p > 6 && !memcmp(p, "data: ", 6)) json_message(SSE, p + 6, (size_t)(nl - p - 6), at);
		} else if (nl - p > 9 && !memcmp(p, "position,", 9)) {
			char *sp = nl;
			while (sp > p && sp[-1] != ' ') sp--;
			record(TCP, at, digits(sp, nl));
		}
		p = nl + 1;
	}
	return (size_t)(p - b);
}

static int cmp(const void *a, const void *b) {
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double cpu_seconds(void) {
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static void summary(double cpu) {
	printf("{\"cpu_s\":%.3f", cpu);
	for (int k = 0; k < KINDS; k++) {
		struct samples *s = &lat[k];
		qsort(s->v, s->n, sizeof *s->v, cmp);
#define Q(q) (s->n ? s->v[(size_t)((q) * (double)s->n) < s->n ? (size_t)((q) * (double)s->n) : s->n - 1] / 1e6 : -1.0)
		printf(",\"%s\":{\"n\":%zu,\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}", names[k], s->n, Q(0.5), Q(0.99), Q(1.0));
	}
	printf("}\n");
	fflush(stdout);
}

int main(int argc, char **argv) {
	int tcp = 0, http = 0, nws = 0, nsse = 0, per = 5, tags = 50;
	for (int i = 1; i + 1 < argc; i += 2) {
		int v = atoi(argv[i + 1]);
		if (!strcmp(argv[i], "--tcp")) tcp = v;
		else if (!strcmp(argv[i], "--http")) http = v;
		else if (!strcmp(argv[i], "--ws")) nws = v;
		else if (!strcmp(argv[i], "--sse")) nsse = v;
		else if (!strcmp(argv[i], "--tags-per-client")) per = v;
		else if (!strcmp(argv[i], "--tags")) tags = v;
		else { fprintf(stderr, "clients: unknown option %s\n", argv[i]); return 2; }
	}
	int n = 1 + nws + nsse, ep = epoll_create1(0);
	struct client *cs = calloc((size_t)n, sizeof *cs);
	if (ep < 0 || !cs) die("setup");
	char req[1024];
	for (int i = 0; i < n; i++) {
		struct client *c = &cs[i];
		c->kind = i == 0 ? TCP : i <= nws ? WS : SSE;
		c->cap = 1 << 16;
		if (!(c->buf = malloc(c->cap))) die("malloc");
		c->fd = connect_to(c->kind == TCP ? tcp : http);
		if (c->kind == TCP) {
			send_all(c->fd, "subscribe kinds=position\n");
			c->ready = 1;
		} else {
			int j = c->kind == WS ? i - 1 : i - 1 - nws, o = snprintf(req, 300, "GET /api/v1/feed/%s?kinds=position&tag=",
			                                                          c->kind == WS ? "ws" : "sse");
			for (int t = 0; t < per; t++) o += snprintf(req + o, 24, "%sT%d", t ? "," : "", (j * per + t) % tags);
			snprintf(req + o, sizeof req - (size_t)o, c->kind == WS
			         ? " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
			         : " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
			send_all(c->fd, req);
		}
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
		if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e) < 0) die("epoll_ctl");
	}
	struct epoll_event in = { .events = EPOLLIN, .data.ptr = NULL };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &in) < 0) die("epoll_ctl stdin");
	int announced = 0;
	double cpu0 = 0;
	struct epoll_event ev[256];
	for (;;) {
		if (!announced) {
			int all = 1;
			for (int i = 0; i < n; i++) all &= cs[i].ready;
			if (all) { printf("ready\n"); fflush(stdout); announced = 1; }
		}
		int k = epoll_wait(ep, ev, 256, 1000);
		if (k < 0 && errno != EINTR) die("epoll_wait");
		for (int i = 0; i < k; i++) {
			struct client *c = ev[i].data.ptr;
			if (!c) {
				char cmd[64];
				ssize_t r = read(0, cmd, sizeof cmd - 1);
				if (r <= 0 || !strncmp(cmd, "stop", 4)) { summary(cpu_seconds() - cpu0); return 0; }
				if (!strncmp(cmd, "go", 2)) {
					for (int j = 0; j < KINDS; j++) lat[j].n = 0;
					recording = 1;
					cpu0 = cpu_seconds();
				}
				continue;
			}
			if (c->cap - c->len < 16384) {
				c->cap *= 2;
				if (!(c->buf = realloc(c->buf, c->cap))) die("realloc");
			}
			ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
			int64_t at = now_ns();
			if (r <= 0) { fprintf(stderr, "clients: a %s client was closed\n", names[c->kind]); return 2; }
			c->len += (size_t)r;
			size_t used = parse(c, at);
			memmove(c->buf, c->buf + used, c->len - used);
			c->len -= used;
		}
	}
}
