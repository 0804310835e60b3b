/// The live map's files, served from the binary at `/` and `/static/<file>`.
enum StaticFiles {
    /// The file at `path` (`index.html`, `static/map.js`), or nil when there is none.
    static func file(at path: String) -> (bytes: [UInt8], contentType: String)? {
        switch path {
        case "index.html":
            return (Array(page.utf8), "text/html; charset=utf-8")
        default:
            return nil
        }
    }

    private static let page = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Sextant</title></head>
        <body><h1>Sextant</h1>
        <p>The HTTP API: <a href="/api/v1/sites">/api/v1/sites</a>, <a href="/api/v1/stats">/api/v1/stats</a>,
        <a href="/metrics">/metrics</a>.</p></body></html>
        """
}
