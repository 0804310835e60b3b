/// One HTTP request as the API sees it: method, path, query parameters, the presented token and the peer.
struct HTTPRequest: Sendable {
    enum Method: Sendable { case get, head, other }

    var method: Method
    /// The path without the query, as lws decoded it (`/api/v1/sites/hall`).
    var path: String
    /// Query parameters (the last value wins when a name repeats).
    var query: [String: String]
    /// The token from `Authorization: Bearer TOKEN`, else from `?token=`.
    var token: String?
    /// The client's address.
    var peer: String

    /// The path's segments after the leading `/` (empty segments dropped).
    var segments: [Substring] { path.split(separator: "/") }
}
