// libwebsockets (Debian libwebsockets-dev): HTTP/1.1, WebSocket (RFC 6455) and the service loop of the
// HTTP port. The macros Swift cannot import are given here as constants.
#include <libwebsockets.h>

/// Bytes lws_write needs free before the payload of a WebSocket frame or HTTP body (LWS_PRE).
static const int sextant_lws_pre = LWS_PRE;

/// The content length that means "none: the body ends when the connection does" (SSE).
static const lws_filepos_t sextant_lws_illegal_content_length = LWS_ILLEGAL_HTTP_CONTENT_LEN;
