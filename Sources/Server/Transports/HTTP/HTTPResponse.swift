import Positioning

/// A whole HTTP response: status, content type and body (streams are `HTTPConnection.Kind`s of their own).
struct HTTPResponse: Sendable {
    var status: Int
    var contentType: String
    var body: [UInt8]

    init(status: Int = 200, contentType: String = "application/json", body: [UInt8]) {
        self.status = status; self.contentType = contentType; self.body = body
    }

    /// A JSON body.
    static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, body: Array(text.utf8))
    }

    /// `{"error":"<message>","status":N}` with that status: the message says what to do.
    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        .json("{\"error\":\(JSONText.quoted(message)),\"status\":\(status)}", status: status)
    }

    /// Plain text (health checks, metrics).
    static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }
}
