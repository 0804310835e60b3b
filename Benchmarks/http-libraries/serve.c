/*
 * The same two routes served with libwebsockets and with libmicrohttpd, each on one thread, for
 * scripts/http-libraries:
 *   GET /json  the body of the file given (the service's GET /api/v1/sites), keep-alive;
 *   GET /sse   text/event-stream: EVENTS copies of one JSON position as "data: ...\n\n", written as
 *              fast as the client reads them, then the end of the response.
 *
 *   serve lws|mhd PORT BODY_FILE EVENTS
 *
 * Prints "ready" once listening and serves until killed.
 */
#include <libwebsockets.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *body;
static size_t body_len;
static long events;
static const char event[] =
	"data: {\"type\":\"position\",\"site\":\"demo-warehouse\",\"tag\":\"T1\",\"time\":\"2026-12-02T03:04:05.123456789Z\","
	"\"timeNs\":\"1796180645123456789\",\"x\":12.3456,\"y\":7.8912,\"z\":1.2,\"vx\":0.1,\"vy\":-0.2,\"vz\":0.0,"
	"\"sigma\":0.0812,\"cov\":{\"xx\":0.00712,\"xy\":0.00105,\"yy\":0.00606},\"anchors\":5,\"motion\":\"moving\"}\n\n";
#define EVENT_LEN (sizeof event - 1)
#define BLOCK (64 * 1024)

/* Fills `buf` with whole events, at most `room` bytes and `*left` events; returns the bytes. */
static size_t fill(char *buf, size_t room, long *left) {
	size_t n = 0;
	while (*left > 0 && n + EVENT_LEN <= room) { memcpy(buf + n, event, EVENT_LEN); n += EVENT_LEN; (*left)--; }
	return n;
}

/* ---- libwebsockets -------------------------------------------------------------------------- */

struct session { int sse; int headers_sent; long left; };
static unsigned char lws_buf[LWS_PRE + BLOCK];

static int lws_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
	struct session *s = user;
	unsigned char *start = lws_buf + LWS_PRE, *p = start, *end = start + BLOCK;
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		memset(s, 0, sizeof *s);
		s->sse = !strcmp((const char *)in, "/sse");
		s->left = events;
		lws_callback_on_writable(wsi);
		return 0;
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (!s->headers_sent) {
			s->headers_sent = 1;
			if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, s->sse ? "text/event-stream" : "application/json",
			                                s->sse ? LWS_ILLEGAL_HTTP_CONTENT_LEN : body_len, &p, end) ||
			    lws_finalize_write_http_header(wsi, start, &p, end))
				return 1;
			if (s->sse) { lws_callback_on_writable(wsi); return 0; }
			memcpy(start, body, body_len);
			if (lws_write(wsi, start, body_len, LWS_WRITE_HTTP_FINAL) < 0) return -1;
			return lws_http_transaction_completed(wsi) ? -1 : 0;
		}
		if (s->left > 0) {
			size_t n = fill((char *)start, BLOCK, &s->left);
			if (lws_write(wsi, start, n, LWS_WRITE_HTTP) < 0) return -1;
			lws_callback_on_writable(wsi);
			return 0;
		}
		return -1;   /* the stream is over: close */
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static void run_lws(int port) {
	static struct lws_protocols protocols[] = { { "bench", lws_cb, sizeof(struct session), 4096, 0, NULL, 0 }, { NULL, NULL, 0, 0, 0, NULL, 0 } };
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = port;
	info.iface = "127.0.0.1";
	info.protocols = protocols;
	info.gid = -1; info.uid = -1;
	info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
	info.max_http_header_pool = 256;
	lws_set_log_level(LLL_ERR, NULL);
	struct lws_context *ctx = lws_create_context(&info);
	if (!ctx) { fprintf(stderr, "serve: lws_create_context failed\n"); exit(2); }
	printf("ready\n"); fflush(stdout);
	for (;;) lws_service(ctx, 0);
}

/* ---- libmicrohttpd -------------------------------------------------------------------------- */

static ssize_t mhd_reader(void *cls, uint64_t pos, char *buf, size_t max) {
	(void)pos;
	long *left = cls;
	if (*left <= 0) return MHD_CONTENT_READER_END_OF_STREAM;
	return (ssize_t)fill(buf, max, left);
}

static enum MHD_Result mhd_handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                   const char *version, const char *upload, size_t *upload_len, void **state) {
	(void)cls; (void)method; (void)version; (void)upload; (void)upload_len;
	static int seen;
	/* The first call only says that the headers are in; answering then would close the connection
	   (the request might still have a body to read). The usual idiom: answer on the second call. */
	if (!*state) { *state = &seen; return MHD_YES; }
	struct MHD_Response *r;
	if (!strcmp(url, "/sse")) {
		long *left = malloc(sizeof *left);
		*left = events;
		r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK, mhd_reader, left, free);
		MHD_add_response_header(r, "Content-Type", "text/event-stream");
	} else {
		r = MHD_create_response_from_buffer(body_len, body, MHD_RESPMEM_PERSISTENT);
		MHD_add_response_header(r, "Content-Type", "application/json");
	}
	enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}

static void run_mhd(int port) {
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET; a.sin_port = htons((uint16_t)port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* One internal thread polling with epoll: the same shape as the lws service thread. */
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TURBO, (uint16_t)port, NULL, NULL,
	                                        mhd_handler, NULL, MHD_OPTION_SOCK_ADDR, &a,
	                                        MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_END);
	if (!d) { fprintf(stderr, "serve: MHD_start_daemon failed\n"); exit(2); }
	printf("ready\n"); fflush(stdout);
	for (;;) pause();
}

int main(int argc, char **argv) {
	if (argc != 5) { fprintf(stderr, "usage: serve lws|mhd PORT BODY_FILE EVENTS\n"); return 2; }
	FILE *f = fopen(argv[3], "rb");
	if (!f) { perror(argv[3]); return 2; }
	body = malloc(1 << 20);
	body_len = fread(body, 1, 1 << 20, f);
	fclose(f);
	events = atol(argv[4]);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[1], "lws")) run_lws(atoi(argv[2]));
	else run_mhd(atoi(argv[2]));
	return 0;
}
